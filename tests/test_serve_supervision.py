"""``serve`` survives its model (course_runtime/classroom.py, ``Supervisor``), and its new command line.

* The supervisor's rules with a fake server, clock and sleep: a dead server is
  started again after its wait, at most ``MAX_RESTARTS`` times in
  ``RESTART_WINDOW_S``, a restart that does not come up is tried again, and
  each step is told to the teacher in Chinese with the log file.
* A real class server (``ClassModelServer``, the course's binary and model, a free
  loopback port): its llama-server killed outright (``psutil``'s kill: SIGKILL
  on POSIX, TerminateProcess on Windows), the supervisor starts it again and it
  answers ``/health`` and, with the class key, a chat request.  Skipped
  without the compiled server and the model, except under ``CI=true``.
* ``serve --upstream`` / ``--no-local-model``: a wrong spec stops the command
  before anything starts; the pool puts this computer's server first.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx2
import psutil
import pytest
from machine_support import free_port, model_server_available, skip_or_fail

from course_runtime import classroom, local_server, server_process, upstreams
from course_runtime.classroom import Supervisor

CJK = re.compile(r"[\u4e00-\u9fff]")


class FakeProcess:
    def __init__(self) -> None:
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode


class FakeServer:
    """What the supervisor uses of a ``ClassModelServer``; ``starts_fail`` restarts raise before it comes up."""

    def __init__(self, tmp_path: Path, starts_fail: int = 0) -> None:
        self.log = tmp_path / "classroom-server.log"
        self.state = tmp_path / "classroom-server.json"
        self.process = FakeProcess()
        self.starts = 0
        self.starts_fail = starts_fail

    def start(self):
        self.starts += 1
        self.process = FakeProcess()
        return self

    def wait(self, timeout: float) -> None:
        if self.starts_fail:
            self.starts_fail -= 1
            self.process.returncode = 1
            raise local_server.LocalModelError("llama-server 启动时退出了")

    def stop(self) -> None:
        if self.process.returncode is None:
            self.process.returncode = -15


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def supervised(tmp_path, **options):
    server = FakeServer(tmp_path, options.pop("starts_fail", 0))
    clock, said, slept = Clock(), [], []
    supervisor = Supervisor(server, say=said.append, clock=clock, sleep=slept.append, **options)
    return supervisor, server, clock, said, slept


def test_a_running_server_is_left_alone(tmp_path):
    supervisor, server, _, said, slept = supervised(tmp_path)
    assert [supervisor.poll_once() for _ in range(3)] == [Supervisor.RUNNING] * 3
    assert server.starts == 0 and not said and not slept


def test_a_dead_server_is_started_again_after_its_wait_and_the_teacher_is_told(tmp_path):
    supervisor, server, _, said, slept = supervised(tmp_path)
    server.process.returncode = -9
    assert supervisor.poll_once() == Supervisor.RESTARTED
    assert server.starts == 1 and slept == [classroom.RESTART_BACKOFF_S[0]]
    assert supervisor.poll_once() == Supervisor.RUNNING
    restarting, back = said
    assert str(server.log) in restarting and "-9" in restarting and CJK.search(restarting)
    assert f"最多 {classroom.MAX_RESTARTS} 次" in restarting and CJK.search(back)


def test_restarts_are_bounded_in_the_window_and_then_serve_gives_up(tmp_path):
    supervisor, server, clock, said, slept = supervised(tmp_path)
    for n in range(classroom.MAX_RESTARTS):
        server.process.returncode = 1
        clock.now += 30
        assert supervisor.poll_once() == Supervisor.RESTARTED
    assert slept == list(classroom.RESTART_BACKOFF_S)[:classroom.MAX_RESTARTS]  # a longer wait each time
    server.process.returncode = 1
    clock.now += 30
    assert supervisor.poll_once() == Supervisor.GAVE_UP
    assert supervisor.poll_once() == Supervisor.GAVE_UP  # and stays so
    assert server.starts == classroom.MAX_RESTARTS
    assert "不再重新启动" in said[-1] and f"{classroom.MAX_RESTARTS} 次" in said[-1]


def test_restarts_older_than_the_window_no_longer_count(tmp_path):
    supervisor, server, clock, _, slept = supervised(tmp_path, max_restarts=2, window_s=600)
    for _ in range(2):
        server.process.returncode = 1
        assert supervisor.poll_once() == Supervisor.RESTARTED
    clock.now += 601  # ten minutes of a healthy server later
    server.process.returncode = 1
    assert supervisor.poll_once() == Supervisor.RESTARTED
    assert slept[-1] == classroom.RESTART_BACKOFF_S[0]  # the waits start short again


def test_a_restart_that_does_not_come_up_is_tried_again_within_the_bound(tmp_path):
    supervisor, server, clock, said, _ = supervised(tmp_path, max_restarts=3, starts_fail=2)
    server.process.returncode = 1
    assert supervisor.poll_once() == Supervisor.FAILED
    assert "没有成功" in said[-1] and "启动时退出了" in said[-1]
    assert supervisor.poll_once() == Supervisor.FAILED
    assert supervisor.poll_once() == Supervisor.RESTARTED
    server.process.returncode = 1
    assert supervisor.poll_once() == Supervisor.GAVE_UP


# --------------------------------------------------------------------------- a real class server


@pytest.fixture
def real_server(tmp_path, monkeypatch):
    if not model_server_available():
        skip_or_fail("no llama-server or model here (python course.py setup builds them)")
    monkeypatch.setenv("COURSE_LOCAL_CTX", "1024")
    key_file = tmp_path / ".class-key"
    key = classroom.class_key(key_file)
    server = classroom.ClassModelServer("127.0.0.1", free_port(), slots=1, key_file=key_file, log=tmp_path / "server.log")
    try:
        server.start().wait()
        yield server, key
    finally:
        server.stop()


def server_pid(server) -> int:
    return int(server_process.read_state(server.state)["server"][0])


def test_a_killed_llama_server_is_started_again_and_answers(real_server):
    server, key = real_server
    said: list[str] = []
    supervisor = Supervisor(server, say=said.append, backoff_s=(0.2,), start_timeout=120)
    first = server_pid(server)
    began = time.monotonic()
    psutil.Process(first).kill()  # as a request that crashes it, or the OS out of memory
    deadline = time.monotonic() + 150
    outcome = Supervisor.RUNNING
    while outcome == Supervisor.RUNNING and time.monotonic() < deadline:
        outcome = supervisor.poll_once()
        time.sleep(0.1)
    assert outcome == Supervisor.RESTARTED, said
    took = time.monotonic() - began
    assert local_server.health(root=server.root) == "ok"
    assert server_pid(server) != first and server.process.poll() is None
    reply = httpx2.post(f"{server.root}/v1/chat/completions", timeout=120,
                       headers={"Authorization": f"Bearer {key}"},  # the same key file as before
                       json={"model": local_server.MODEL_ALIAS, "max_tokens": 4,
                             "messages": [{"role": "user", "content": "你好"}]})
    assert reply.status_code == 200, reply.text
    assert str(server.log) in said[0] and len(said) == 2
    assert server.log.read_text(encoding="utf-8", errors="replace").count("starting:") == 2  # one log, appended
    print(f"killed llama-server back and healthy after {took:.1f} s")


# --------------------------------------------------------------------------- serve's command line


def test_the_pool_puts_this_computers_server_first_with_the_class_key(tmp_path):
    server = classroom.ClassModelServer("127.0.0.1", 18766, slots=3, key_file=tmp_path / "k", log=tmp_path / "l.log")
    pool = classroom.upstream_pool(server, ["http://gpu:8000/v1,slots=16,key_env=VLLM_KEY,model=Qwen/Qwen2.5-7B"],
                                   {"VLLM_KEY": "sk-" + "vllm-0123456789abcdef"}, key="course-class-0123456789")
    local, gpu = pool.upstreams
    assert (local.label, local.root, local.kind, local.slots, local.key) == (
        "本机 llama-server", "http://127.0.0.1:18766", "llama-server", 3, "course-class-0123456789")
    assert gpu.kind == "openai-compatible" and gpu.slots == 16 and pool.capacity() == 19
    listing = classroom.describe_upstreams(pool)
    assert "本机 llama-server" in listing and "127.0.0.1:18766" in listing and "gpu:8000" in listing
    assert "Qwen/Qwen2.5-7B" in listing
    assert "sk-vllm" not in listing and "course-class" not in listing and "/v1" not in listing
    only_remote = classroom.upstream_pool(None, ["http://gpu:8000"], {})
    assert [u.host for u in only_remote.upstreams] == ["gpu:8000"]
    with pytest.raises(upstreams.UpstreamError):
        classroom.upstream_pool(server, ["http://127.0.0.1:18766"], {})  # this computer's server twice


@pytest.mark.parametrize("argv, words", [
    (["--no-local-model"], ["--no-local-model", "--upstream"]),
    (["--upstream", "gpu-box:8000"], ["gpu-box:8000", "http://"]),
    (["--upstream", "http://gpu:8000,key_env=NO_SUCH_KEY_VARIABLE"], ["NO_SUCH_KEY_VARIABLE"]),
])
def test_a_wrong_upstream_stops_serve_before_anything_starts(monkeypatch, tmp_path, capsys, argv, words):
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    monkeypatch.delenv("NO_SUCH_KEY_VARIABLE", raising=False)

    def no_start(self):
        raise AssertionError("nothing may start")

    monkeypatch.setattr(classroom, "end_like_ctrl_c", lambda: None)  # keep pytest's own signal handlers
    monkeypatch.setattr(classroom.ClassModelServer, "start", no_start)
    monkeypatch.setattr(classroom.ClassModelServer, "stop_leftover", no_start)
    key_file = tmp_path / ".class-key"
    assert classroom.main([*argv, "--key-file", str(key_file), "--port", str(free_port())]) == 1
    err = capsys.readouterr().err
    assert CJK.search(err)
    for word in words:
        assert word in err, (word, err)
    assert not key_file.exists()  # no key was made either
