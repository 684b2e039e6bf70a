"""Starting, watching and stopping the offline model's server process, the same way on Windows, macOS and Linux.

Not taught in a notebook; ``local_server.ensure_server`` uses it.  Nothing
here is POSIX-only: process checks and stops go through ``psutil`` (on
PyPI, wheels for every platform; ipykernel already installs it), the
start-up lock through ``filelock`` - no signal-0 probe with ``os.kill`` (on Windows that
call *terminates* the process), no ``SIGKILL``, no ``fcntl``.

The guard
---------
The server is started through a small guard process::

    python -m course_runtime.server_process guard --cwd FOLDER STATE_FILE -- PROGRAM FLAGS...

The guard starts ``PROGRAM FLAGS`` as its child (in ``FOLDER``: the server's
flags name its files relative to it, ``local_server.server_folder``) and, once a second, reads
the ``owners`` of ``STATE_FILE`` (the processes that use the server: each
notebook kernel, a ``python course.py test`` run).  When every owner has
exited, or when the guard is asked to stop, it stops the server: so the
model's memory (about 2 GB) is given back when the last kernel or command
that used it ends, on every OS, even when a kernel was killed.  A state file
with no owners (``local_server start`` by hand) keeps the server until
``local_server stop``.  A kernel that starts again later simply starts a new
server (``http_client.RestartingTransport``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

POLL_S = 1.0
STOP_TIMEOUT_S = 10.0


# --------------------------------------------------------------------------- processes
def started(proc) -> float:
    """When process ``proc`` (a ``psutil.Process``) started, in seconds, on a clock that setting the time never moves.

    psutil's public ``create_time()`` is seconds since the epoch: on Linux it
    adds ``/proc/stat``'s ``btime`` to the process's start in ticks since boot,
    and on macOS/BSD it corrects by how far the boot time moved since psutil was
    imported - so a time recorded in one process before the wall clock was set
    (NTP after a laptop wakes, a student fixing the time) no longer matches the
    one another process reads after it, and a live kernel looked dead.  psutil
    itself tells processes apart with the raw start time for this reason
    (``Process._get_ident``, psutil 7.2: ``create_time(monotonic=True)`` on
    Linux, macOS and NetBSD); this reads the same value (a private method of the
    pinned psutil==7.2.2, so with a fallback).  Windows: ``create_time()``, the
    time stamp Windows stored when the process started, which a later clock
    change does not rewrite.
    """
    if sys.platform != "win32":
        raw = getattr(getattr(proc, "_proc", None), "create_time", None)
        if raw is not None:
            try:
                return float(raw(monotonic=True))
            except TypeError:  # a psutil without the parameter
                pass
    return proc.create_time()


def identity(pid: int | None = None) -> list[float] | None:
    """``[pid, start]`` of a running process (default this one; ``start``: ``started``), or None if it is not running.

    The start time tells a process apart from a later one that got the same
    number (process ids are reused, quickly on Windows).
    """
    import psutil

    try:
        proc = psutil.Process(pid if pid is not None else os.getpid())
        return [proc.pid, started(proc)]
    except (psutil.Error, ValueError):
        return None


def alive(who: int | list | None) -> bool:
    """True if process ``who`` (a pid, or ``[pid, start]`` from ``identity``) is running (zombies are not).

    With a start time, only that very process: another one that got the same
    pid later started more than a second apart from it.
    """
    import psutil

    if not who:
        return False
    pid, created = (who[0], who[1]) if isinstance(who, (list, tuple)) else (who, None)
    try:
        proc = psutil.Process(int(pid))
        if created is not None and abs(started(proc) - float(created)) > 1.0:
            return False
        return proc.status() != psutil.STATUS_ZOMBIE
    except (psutil.Error, ValueError, TypeError):
        return False


def stop(pid: int | None, timeout: float = STOP_TIMEOUT_S, who: list | None = None) -> bool:
    """End process ``pid`` and its children: terminate (SIGTERM / TerminateProcess), then kill after ``timeout`` s.

    Args:
        pid: the process.  timeout: seconds to wait after each step.
        who: its ``identity`` as recorded; when given, nothing is signalled
            unless the process running as ``pid`` is that very one (``alive(who)``).
    Returns:
        True if something was running and is now gone.
    """
    import psutil

    if not pid or (who is not None and (int(who[0]) != int(pid) or not alive(who))):
        return False
    try:
        proc = psutil.Process(int(pid))
        procs = [proc] + proc.children(recursive=True)
    except psutil.Error:
        return False
    for each in procs:
        with contextlib.suppress(psutil.Error):
            each.terminate()
    _, left = psutil.wait_procs(procs, timeout=timeout)
    for each in left:
        with contextlib.suppress(psutil.Error):
            each.kill()
    psutil.wait_procs(left, timeout=timeout)
    return True


def detached_options() -> dict:
    """``subprocess.Popen`` options that let the server outlive the call that started it.

    POSIX: a new session (Ctrl-C in the kernel's terminal does not reach it).
    Windows: a new process group and no console window of its own.
    """
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.CREATE_NO_WINDOW}
    return {"start_new_session": True}


@contextlib.contextmanager
def locked(path: Path, timeout: float = 300.0):
    """Hold the file lock ``path`` (``filelock``: fcntl on POSIX, msvcrt on Windows) for the ``with`` block.

    Raises:
        filelock.Timeout: another process held it for ``timeout`` s.
    """
    from filelock import FileLock

    with FileLock(str(path), timeout=timeout):
        yield


# --------------------------------------------------------------------------- the state file
def read_state(path: Path) -> dict:
    """The state file's contents (``{}`` when it is missing or unreadable)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def write_state(path: Path, state: dict) -> None:
    """Write the state file whole (a temporary file, then ``os.replace``: a reader never sees half of it)."""
    tmp = Path(path).with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(state), encoding="utf-8")
    for attempt in range(50):
        try:
            os.replace(tmp, path)
            return
        except PermissionError:  # Windows: the guard is reading the file at this moment
            if attempt == 49:
                raise
            time.sleep(0.05)


def still_running(state: dict) -> list[list]:
    """The server and the guard a state file names that are still running: ``[identity, ...]``, server first.

    Only the very processes recorded (pid and start time, ``"server"`` and
    ``"guard"``), never another one that got the same number since.
    """
    return [who for who in (state.get("server"), state.get("guard")) if alive(who)]


def live_owner(state: dict) -> list | None:
    """The first owner in a state file that is still running (its ``identity``), or None."""
    return next((who for who in state.get("owners") or [] if alive(who)), None)


def add_owner(path: Path, who: list | None = None) -> None:
    """Record process ``who`` (default this one, ``identity()``) as a user of the server; call it under ``locked``."""
    state = read_state(path)
    if state.get("owners") is None:  # no state, or a server started by hand: it keeps running for everyone
        return
    who = who or identity()
    owners = [o for o in state["owners"] if alive(o)]
    if who and who not in owners:
        owners.append(who)
    if owners != state["owners"]:  # a kernel's every get_client() call comes here: write only what changed
        write_state(path, {**state, "owners": owners})


def start_guarded(command: list[str], state: Path, log: Path, owners: bool = True,
                  extra: dict | None = None, cwd: Path | None = None, env: dict | None = None) -> subprocess.Popen:
    """Start ``command`` under a guard (see the module docstring) and write the state file.

    Args:
        command: the server's program and flags (``local_server.server_args``).
        state: the state file the guard watches.
        log: the file the server's output is appended to.
        owners: True = the calling process is the first owner (the server stops when all owners
            have exited); False = no owners (it runs until ``stop``).
        extra: more fields for the state file (port, model, engine).
        cwd: the server's working directory (``local_server.server_folder()``: its flags name
            files relative to it); None = the project root, where the guard runs.
        env: the environment of the guard and the server; None = this process's.
    Returns:
        The guard's ``Popen`` (it exits with the server's exit status, or 0 when it stopped the
        server).  The state file then holds ``{"pid": guard pid, "guard": identity of the guard,
        "owners": [...] or None, "command": [...], **extra}``, and the guard adds ``"server_pid"``
        and ``"server"`` (the server's ``identity``) once the server runs: so a later start can
        tell a server left over from a crash from another process that got the same number.
    Raises:
        OSError: the guard could not be started (e.g. no such program).
    """
    first = {"owners": [identity()] if owners else None, "command": command, **(extra or {})}
    write_state(state, first)
    with open(log, "ab") as out:
        out.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} starting: {' '.join(command)}\n".encode())
        out.flush()
        where = [] if cwd is None else ["--cwd", str(cwd)]
        guard = subprocess.Popen([sys.executable, "-m", "course_runtime.server_process", "guard", *where, str(state),
                                  "--", *command],
                                 stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                 cwd=str(Path(__file__).resolve().parent.parent), **detached_options())
    write_state(state, {**read_state(state), "pid": guard.pid, "guard": identity(guard.pid)})
    return guard


# --------------------------------------------------------------------------- the guard itself
def guard(state: Path, command: list[str], poll: float = POLL_S, cwd: Path | None = None) -> int:
    """Run ``command`` (in folder ``cwd``, default this one) until it exits, every owner in ``state`` has exited,
    or this process is told to stop.

    Returns:
        The server's exit status, or 0 when the guard stopped it.
    """
    asked = []
    for name in ("SIGINT", "SIGTERM", "SIGBREAK"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), lambda *_: asked.append(True))
    server = subprocess.Popen(command, stdin=subprocess.DEVNULL, cwd=None if cwd is None else str(cwd))
    with contextlib.suppress(OSError):
        write_state(state, {**read_state(state), "server_pid": server.pid, "server": identity(server.pid)})
    while server.poll() is None:
        owners = read_state(state).get("owners")
        if asked or (owners is not None and not any(alive(o) for o in owners)):
            print(f"=== {time.strftime('%Y-%m-%d %H:%M:%S')} stopping the server "
                  f"({'asked to' if asked else 'no process uses it any more'})", flush=True)
            stop(server.pid)
            return 0
        time.sleep(poll)
    return server.returncode


def main(argv: list[str] | None = None) -> int:
    """``python -m course_runtime.server_process guard [--cwd FOLDER] STATE -- COMMAND...`` (``--cwd`` first: the rest is the command)."""
    p = argparse.ArgumentParser(prog="python -m course_runtime.server_process")
    p.add_argument("what", choices=["guard"])
    p.add_argument("state", type=Path)
    p.add_argument("--cwd", type=Path, default=None)
    p.add_argument("command", nargs=argparse.REMAINDER)
    opts = p.parse_args(argv)
    command = opts.command[1:] if opts.command[:1] == ["--"] else opts.command
    return guard(opts.state, command, cwd=opts.cwd)


if __name__ == "__main__":
    sys.exit(main())
