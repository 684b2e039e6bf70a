"""The server's guard (course_runtime/server_process.py): the offline model stops when its last user exits, on every OS.

Real processes, no model: the "server" is a Python child that sleeps, so the
tests show what the guard does to whatever program it runs.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from course_runtime import server_process
from machine_support import wait_until

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]



def server_pid(state: Path) -> int | None:
    wait_until(lambda: server_process.read_state(state).get("server_pid"))
    return server_process.read_state(state).get("server_pid")


@pytest.fixture
def owner():
    """A process that stands for a notebook kernel: it runs until the test ends it."""
    proc = subprocess.Popen(SLEEPER)
    yield proc
    proc.kill()
    proc.wait()


def test_identity_and_alive_tell_a_running_process_from_a_gone_one(owner):
    who = server_process.identity(owner.pid)
    assert who and who[0] == owner.pid
    assert server_process.alive(who) and server_process.alive(owner.pid)
    assert not server_process.alive([owner.pid, who[1] - 100])  # same number, another start time: not ours
    owner.kill()
    owner.wait()
    assert not server_process.alive(who)
    assert not server_process.alive(None) and not server_process.alive(0)


def test_the_guard_stops_the_server_when_its_last_owner_exits(tmp_path, owner):
    state, log = tmp_path / "state.json", tmp_path / "server.log"
    second = subprocess.Popen(SLEEPER)
    try:
        guard = server_process.start_guarded(SLEEPER, state, log, owners=True)
        # the test process is the first owner; replace it by two "kernels"
        server_process.write_state(state, {**server_process.read_state(state),
                                           "owners": [server_process.identity(owner.pid)]})
        server_process.add_owner(state, server_process.identity(second.pid))
        assert len(server_process.read_state(state)["owners"]) == 2
        child = server_pid(state)
        assert child and server_process.alive(child)
        owner.kill()
        owner.wait()
        time.sleep(2.5 * server_process.POLL_S)
        assert server_process.alive(child), "one owner is still running: the server must stay"
        second.kill()
        second.wait()
        assert wait_until(lambda: not server_process.alive(child)), "no owner left, but the server still runs"
        assert guard.wait(15) == 0
        assert "no process uses it any more" in log.read_text(encoding="utf-8")
    finally:
        second.kill()
        server_process.stop(server_process.read_state(state).get("pid"))


def test_a_server_started_by_hand_has_no_owners_and_runs_until_stopped(tmp_path):
    state, log = tmp_path / "state.json", tmp_path / "server.log"
    guard = server_process.start_guarded(SLEEPER, state, log, owners=False)
    try:
        child = server_pid(state)
        server_process.add_owner(state)  # a kernel that reuses it does not make it stop-on-exit
        assert server_process.read_state(state)["owners"] is None
        time.sleep(2.5 * server_process.POLL_S)
        assert server_process.alive(child)
        assert server_process.stop(guard.pid)
        assert wait_until(lambda: not server_process.alive(child))
    finally:
        server_process.stop(guard.pid)


def test_stop_ends_the_guard_and_its_server_together(tmp_path):
    """What stop_server relies on where terminating the guard alone would leave the server (Windows)."""
    state, log = tmp_path / "state.json", tmp_path / "server.log"
    guard = server_process.start_guarded(SLEEPER, state, log, owners=False)
    child = server_pid(state)
    assert server_process.stop(guard.pid, timeout=5)
    assert not server_process.alive(child) and guard.wait(10) is not None
    assert not server_process.stop(guard.pid), "a second stop finds nothing to stop"


def test_the_guard_returns_the_servers_own_exit_status(tmp_path):
    state, log = tmp_path / "state.json", tmp_path / "server.log"
    guard = server_process.start_guarded([sys.executable, "-c", "import sys; print('bad flag'); sys.exit(3)"],
                                         state, log, owners=False)
    assert guard.wait(30) == 3
    assert "bad flag" in log.read_text(encoding="utf-8")


def test_a_missing_program_is_the_guards_error_not_a_hang(tmp_path):
    state, log = tmp_path / "state.json", tmp_path / "server.log"
    guard = server_process.start_guarded([str(tmp_path / "no-such-server")], state, log, owners=False)
    assert guard.wait(30) != 0
    assert "no-such-server" in log.read_text(encoding="utf-8")


def test_the_state_file_is_replaced_whole(tmp_path):
    state = tmp_path / "state.json"
    server_process.write_state(state, {"pid": 1, "owners": []})
    server_process.write_state(state, {"pid": 2, "owners": None})
    assert server_process.read_state(state) == {"pid": 2, "owners": None}
    assert not list(tmp_path.glob("*.tmp"))
    assert server_process.read_state(tmp_path / "missing.json") == {}


def test_the_lock_serializes_two_processes(tmp_path):
    lock = tmp_path / "start.lock"
    code = ("import sys, time; from pathlib import Path; from course_runtime import server_process as s\n"
            "with s.locked(Path(sys.argv[1])):\n    print('in', time.monotonic(), flush=True); time.sleep(1.5)\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(lock)], stdout=subprocess.PIPE, text=True,
                              encoding="utf-8") for _ in range(2)]
    starts = sorted(float(p.communicate(timeout=60)[0].split()[1]) for p in procs)
    assert starts[1] - starts[0] >= 1.4, "the second process entered while the first held the lock"


def test_no_posix_only_process_calls_remain():
    """Issue 28: no os.kill (a signal-0 probe terminates the process on Windows), no SIGKILL, no fcntl, no waitpid."""
    import ast

    root = Path(__file__).resolve().parent.parent / "course_runtime"
    for name in ("local_server.py", "classroom.py", "server_process.py", "xllamacpp_server.py"):
        tree = ast.parse((root / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                assert node.attr not in ("kill", "SIGKILL", "waitpid") or not (
                    isinstance(node.value, ast.Name) and node.value.id in ("os", "signal")), f"{name}: {node.attr}"
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert "fcntl" not in names, f"{name} imports fcntl"
