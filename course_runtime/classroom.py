"""The teacher's server: one model for the whole class.

Not taught in a notebook: the teacher runs it (``python course.py serve``; the
teacher's guide, 「一台服务器给全班」), and the students' notebooks talk to it
through the ``classroom`` provider (``providers.PRESETS``) with the three
``.env`` lines it prints.

What it starts is the embedded server of ``local_server`` with five changes,
and nothing else: the same binary, model file, chat template, seed and
context per slot, so the class sees the replies the lessons describe.

* It listens on its own port (8766, beside the embedded server's 8765), so a
  teacher can run both, and on this computer only (127.0.0.1): the students
  reach it through the door of the progress service (``class_door``, on
  the LAN, port 8767), each with their own student token, in fair turns.
* Every request must carry the class key (``Authorization: Bearer <key>``):
  llama-server answers 401 without it.  The door adds it; no student's
  computer ever has it.  The key is made once with
  ``secrets`` and kept in ``.class-key`` at the project root (git-ignored,
  readable by its owner only).  A teacher may edit that file or write a key
  of their own (at least 16 characters of two kinds: ``keys.check_strength``):
  it is read as they wrote it (``read_key``) and replaced only with
  ``--new-key`` (which renews the teacher key too).  llama-server reads the key from a clean copy in the
  cache directory (``--api-key-file``; ``server_key_file``), so it never
  appears in a process list or a log.
* Nothing lets one student see or erase another's work: no ``/slots``
  endpoint (``--no-slots``: it would show every slot's prompt), no slot
  save/restore/erase (no ``--slot-save-path``), no web UI, no ``POST /props``
  (llama-server refuses it unless started with ``--props``), no built-in
  tools (off unless ``--tools`` is given).
* ``--metrics``: the teacher's progress page shows how busy the server is
  (llama-server's Prometheus counters at ``/metrics``, behind the class key:
  request and token counts, nothing of any prompt).
* Four slots (``DEFAULT_SLOTS``): four students' requests are decoded together
  in one batch, and each slot keeps the prompt cache of the conversation it
  last served.

However the command ends - Ctrl-C, SIGTERM, the terminal window closed
(SIGHUP) - the server is stopped before the command exits
(``end_like_ctrl_c``); if the command was killed outright (also Windows
closing its console window), the guard stops it a second later
(``server_process``), and a server left over from a crash (the guard killed
too) is found, named and stopped by the next ``serve``
(``ClassModelServer.stop_leftover``).

When the class model server dies while ``serve`` runs (a request that crashed it,
the OS out of memory), it is started again with the same command line and key
file, after a short wait, at most ``MAX_RESTARTS`` times in
``RESTART_WINDOW_S`` (``Supervisor``); the teacher is told each time, with
the log file, and the progress service and the students' door keep running
(a student's request meanwhile gets the door's "model unreachable" answer).
Only when the restarts are used up does ``serve`` end (exit status 1).

More model servers can stand behind the door (``--upstream SPEC``, repeatable;
``--no-local-model``: those only): ``upstream_pool`` builds the
``upstreams.UpstreamPool`` (this computer's server first), and the ready
message lists them (label and host, never a key).

Beside it, the same command runs the teacher's progress service
(``progress_service``, on the next port, 8767, with the students' door to
the model, ``class_door``) and prints the class code (``class_code``) that
lets a student join with ``python course.py join CODE``.

Where the numbers come from: ``bench/classroom.py`` (``python course.py bench
--parts classroom``) replays notebooks 01, 02 and 06 as N simulated students
against this server; ``bench/results/classroom.md`` has the table.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import class_code, fair_share, keys, local_server, progress_service, server_process, upstreams
from .keys import KEY_FILE, KEY_PREFIX, class_key, read_key, write_key  # noqa: F401 - the class key's home is keys.py
from .progress_store import DB_FILE, ProgressStore
from .web_server import ProgressService
from .settings import PROJECT_ROOT, EnvFileError, load_env
from .texts import t

DEFAULT_PORT = 8766
START_TIMEOUT_S = 180.0
# When the class model server dies (a request that crashed it, the OS out of memory), serve starts it
# again after a short wait, at most MAX_RESTARTS times in RESTART_WINDOW_S (Supervisor).
MAX_RESTARTS = 5
RESTART_WINDOW_S = 600.0
RESTART_BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 15.0)  # the wait before the 1st, 2nd, ... restart in the window


def log_path() -> Path:
    """The file the class model server writes its log to (in the course cache directory)."""
    return local_server.cache_dir() / "classroom-server.log"


def server_key_file() -> Path:
    """The key file llama-server reads (in the cache directory): ``serve`` writes the class key there alone.

    llama-server takes every line of ``--api-key-file`` byte for byte
    (``std::getline``: a BOM, a ``\r`` or a space would be part of the key, and
    every student would get 401), so it is given this clean copy, not the
    teacher's file.
    """
    return local_server.cache_dir() / "classroom-server.key"


# Requests decoded together.  Measured on 2 cores (bench/results/classroom.md, 2026-12-01): with 8
# and 16 students 4 slots did more requests with a lower median wait than 1 (16 students: 398 requests,
# p50 10.4 s, max 33 s against 174, 22.8 s and 114 s) - one slot re-reads every student's whole prompt,
# because its one prompt cache keeps only the last conversation; with 2-4 students 1 slot had the lower
# p95.  A class is more than 4 students, so 4; bigger machines were not measured (--slots changes it).
DEFAULT_SLOTS = 4


def serve_args(gguf: Path, host: str, port: int, slots: int, key_file: Path, cache_ram_mib: int = 0) -> list[str]:
    """The class model server's llama-server command line (see the module docstring for what differs).

    ``cache_ram_mib``: llama-server's host-memory prompt cache (0 = none, as the embedded server).
    """
    return local_server.server_args(gguf, host=host, port_=port, parallel=slots, slot_actions=False,
                                    api_key_file=key_file, cache_ram_mib=cache_ram_mib, metrics=True)


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses that other machines on the LAN can reach (no loopback).

    Read from the host name's addresses, then from the interface the system
    would route through (a UDP socket is "connected" to a documentation
    address, RFC 5737: this sends nothing, it only asks the routing table).
    Returns:
        Zero or more dotted addresses, most likely first.
    """
    found: list[str] = []
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(info[4][0])
    except OSError:
        pass
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            found.insert(0, probe.getsockname()[0])
    except OSError:
        pass
    usable = []
    for address in found:
        ip = ipaddress.ip_address(address)
        if not (ip.is_loopback or ip.is_unspecified or ip.is_link_local) and address not in usable:
            usable.append(address)
    return usable


class ClassModelServer:
    """One class model server process: ``start()``, ``wait()`` until healthy, ``stop()``; a context manager.

    Args:
        host: where to listen ("0.0.0.0" = every interface; tests and the bench use "127.0.0.1").
        port: TCP port.  slots: ``--parallel``.  key_file: the class key file.
        log: llama-server's output goes here (appended).
        cache_ram_mib: see ``serve_args``.
    """

    def __init__(self, host: str = "0.0.0.0", port: int = DEFAULT_PORT, slots: int | None = None,
                 key_file: Path = KEY_FILE, log: Path | None = None, cache_ram_mib: int = 0):
        self.host, self.port, self.key_file = host, port, key_file
        self.slots = slots or DEFAULT_SLOTS
        self.cache_ram_mib = cache_ram_mib
        self.log = log or log_path()
        self.process: subprocess.Popen | None = None

    @property
    def root(self) -> str:
        """The server's root URL as seen from this machine, e.g. ``http://127.0.0.1:8766``."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def args(self) -> list[str]:
        return serve_args(local_server.model_path(), self.host, self.port, self.slots, self.key_file,
                          self.cache_ram_mib)

    @property
    def state(self) -> Path:
        """The guard's state file (``server_process``), beside the log."""
        return self.log.with_suffix(".json")

    def stop_leftover(self) -> str | None:
        """Stop a class model server that an earlier command left running (the guard killed too: a crash).

        Read from the state file: only the very processes it names (pid and start
        time), and only when the command that started them is gone.
        Returns:
            None when nothing was left, else the sentence that names the server
            stopped (its pid and port).
        Raises:
            LocalModelError: that command is still running (another ``serve``);
                the message names its pid and how to stop it.
        """
        old = server_process.read_state(self.state)
        running = server_process.still_running(old)
        if not running:
            return None
        owner = server_process.live_owner(old)
        if owner is not None:
            raise local_server.LocalModelError(t("classroom.already_serving", pid=owner[0], port=old.get("port")))
        for who in running:
            server_process.stop(who[0], who=who)
        return t("classroom.leftover_stopped", pid=running[0][0], port=old.get("port"))

    def start(self) -> "ClassModelServer":
        """Start llama-server (its output appended to ``log``).

        Raises:
            LocalModelError: something already answers on the port, or the
                binary or model is missing.
        """
        if local_server.health(root=self.root) is not None or local_server.port_in_use(self.port, self.host or "0.0.0.0"):
            raise local_server.LocalModelError(t("classroom.port_busy", port=self.port))
        args = self.args()
        # Under a guard whose one owner is this process: the server stops when this command
        # ends, however it ends (server_process.py), on every OS.  It runs in the server folder,
        # where its flags name their files (local_server.server_folder).
        self.process = server_process.start_guarded(args, self.state, self.log, owners=True, extra={"port": self.port},
                                                    cwd=local_server.server_folder(),
                                                    env=local_server.server_env(args))
        return self

    def wait(self, timeout: float = START_TIMEOUT_S) -> None:
        """Wait until ``/health`` says ok.

        Raises:
            LocalModelError: the process exited, or it was not healthy in time (names the log).
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if local_server.health(root=self.root) == "ok":
                return
            if self.process is not None and self.process.poll() is not None:
                raise local_server.LocalModelError(t("local.exited", log=self.log))
            time.sleep(0.25)
        raise local_server.LocalModelError(t("local.not_healthy", seconds=timeout, log=self.log))

    def stop(self, timeout: float = 10.0) -> None:
        """End the server and its guard: asked to end first, killed after ``timeout`` s (``server_process.stop``)."""
        if self.process is None or self.process.poll() is not None:
            return
        server_process.stop(self.process.pid, timeout)
        self.process.wait(timeout)

    def __enter__(self) -> "ClassModelServer":
        self.start().wait()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Supervisor:
    """Keeps the class model server running while ``serve`` runs: when it dies, it is started again.

    Each ``poll_once`` looks whether ``server``'s process is still running.  When it has exited
    (killed by a request that crashed it, by the OS for memory, by hand), the teacher is told
    (``classroom.model_restarting``, naming the log), and after ``backoff_s`` it is started again
    with the same command line and key file (``ClassModelServer.start``) and waited for (``wait``).
    Meanwhile the progress service and the students' door keep running (they are not touched
    here): a student's request gets the door's "model unreachable" answer (HTTP 502).  At most
    ``max_restarts`` restarts in ``window_s`` seconds; the next death gives up (``GAVE_UP``), and
    ``serve`` ends as before.  A server or guard the dead command left running (the guard killed
    alone) is stopped first, through the state file (``server_process``: no POSIX-only signal).

    Args:
        server: a started ``ClassModelServer``.
        max_restarts, window_s: the bound (default 5 in 10 minutes).
        backoff_s: seconds to wait before the 1st, 2nd, ... restart in the window (the last repeats).
        say: where the teacher's lines go (default: standard error).
        clock, sleep: monotonic seconds and the wait (tests pass their own).
        start_timeout: seconds a restarted server has to become healthy.
    """

    RUNNING, RESTARTED, FAILED, GAVE_UP = "running", "restarted", "failed", "gave_up"

    def __init__(self, server: ClassModelServer, max_restarts: int = MAX_RESTARTS, window_s: float = RESTART_WINDOW_S,
                 backoff_s: tuple[float, ...] = RESTART_BACKOFF_S, say=None, clock=time.monotonic,
                 sleep=time.sleep, start_timeout: float = START_TIMEOUT_S):
        self.server, self.max_restarts, self.window_s = server, max_restarts, window_s
        self.backoff_s = tuple(backoff_s) or (0.0,)
        self.say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        self.clock, self.sleep, self.start_timeout = clock, sleep, start_timeout
        self.restarts: collections.deque[float] = collections.deque()  # when each recent restart began
        self.gave_up = False

    def poll_once(self) -> str:
        """Look once; restart the server if it has exited (blocks until it is healthy or the restart failed).

        Returns:
            ``RUNNING`` (it runs), ``RESTARTED`` (it had exited and answers ``/health`` again),
            ``FAILED`` (a restart did not come up: the next call tries again, counted in the bound),
            ``GAVE_UP`` (it exited after ``max_restarts`` restarts in ``window_s``; from then on always).
        Raises:
            KeyboardInterrupt: Ctrl-C during the wait (``serve`` stops everything).
        """
        if self.gave_up:
            return self.GAVE_UP
        process = self.server.process
        if process is not None and process.poll() is None:
            return self.RUNNING
        code = None if process is None else process.returncode
        now = self.clock()
        while self.restarts and now - self.restarts[0] > self.window_s:
            self.restarts.popleft()
        minutes = round(self.window_s / 60)
        if len(self.restarts) >= self.max_restarts:
            self.gave_up = True
            self.say(t("classroom.model_gave_up", minutes=minutes, n=len(self.restarts)))
            return self.GAVE_UP
        self.restarts.append(now)
        wait = self.backoff_s[min(len(self.restarts), len(self.backoff_s)) - 1]
        self.say(t("classroom.model_restarting", code=code, wait=f"{wait:g}", minutes=minutes, n=len(self.restarts),
                   limit=self.max_restarts, log=self.server.log))
        self.sleep(wait)
        for who in server_process.still_running(server_process.read_state(self.server.state)):
            server_process.stop(who[0], who=who)  # what the dead command left: a server whose guard was killed
        try:
            self.server.start()
            self.server.wait(self.start_timeout)
        except (local_server.LocalModelError, OSError) as exc:
            self.say(t("classroom.model_restart_failed", error=exc))
            self.server.stop()  # one that started but never became healthy: the next call starts it again
            return self.FAILED
        self.say(t("classroom.model_back"))
        return self.RESTARTED


def upstream_pool(server: ClassModelServer | None, specs: list[str] | tuple[str, ...], env: Mapping[str, str],
                  key: str = "") -> upstreams.UpstreamPool:
    """The model servers the students' door sends requests to (``upstreams``).

    Args:
        server: the class model server (first in the pool: 「本机 llama-server」, kind llama-server,
            its slots), or None (``--no-local-model``).
        specs: the ``--upstream`` specs, in order (``upstreams.parse_upstream``).
        env: where their ``key_env`` names are looked up (``os.environ`` once ``.env`` is loaded).
        key: the class key (what the local server wants; "" when only checking the specs).
    Returns:
        The pool.
    Raises:
        upstreams.UpstreamError: a spec written wrongly, a key variable not set, the same server twice,
            or no upstream at all (``--no-local-model`` without ``--upstream``).
    """
    chosen = [upstreams.parse_upstream(spec, env) for spec in specs]
    if server is not None:
        chosen.insert(0, upstreams.Upstream(t("upstreams.local_label"), server.root, key=key, slots=server.slots,
                                            kind=upstreams.LLAMA_SERVER))
    if not chosen:
        raise upstreams.UpstreamError(t("upstreams.none"))
    return upstreams.UpstreamPool(chosen)


def describe_upstreams(pool: upstreams.UpstreamPool) -> str:
    """The lines of ``serve``'s ready message that name the upstreams (label and host:port, never a key)."""
    def problem(code: str | None) -> str:  # upstreams' short codes, said in words
        if code == "timeout":
            return t("upstreams.problem_timeout")
        if code and code.startswith("HTTP "):
            return t("upstreams.problem_http", code=code[5:])
        return t("upstreams.problem_connection")

    lines = [t("upstreams.list_title")]
    for row in pool.snapshot():
        state = t("upstreams.state_ok") if row["healthy"] else t("upstreams.state_down", problem=problem(row["problem"]))
        model = t("upstreams.model_name", model=row["model"]) if row["model"] else ""
        lines.append(t("upstreams.list_line", label=row["label"], host=row["host"], kind=row["kind"], model=model,
                       slots=row["slots"], state=state))
    return "\n".join(lines) + "\n"


def check_upstreams(pool: upstreams.UpstreamPool) -> None:
    """Check every upstream once (``UpstreamPool.check``), from this thread (no event loop runs here)."""

    async def once() -> None:
        async with upstreams.make_client(pool.upstreams) as client:
            await pool.check(client)

    asyncio.run(once())


def serve(host: str = "0.0.0.0", port: int = DEFAULT_PORT, slots: int | None = None, new_key: bool = False,
          key_file: Path = KEY_FILE, progress_port: int | None = None, teacher_anywhere: bool = False,
          budget: int = fair_share.DEFAULT_BUDGET, reply_memory: bool = True,
          upstream_specs: list[str] | tuple[str, ...] = (), local_model: bool = True,
          env: Mapping[str, str] | None = None, exam_scorer: Any = None) -> int:
    """``python course.py serve``: start the class model server, print the students' ``.env`` lines, run until Ctrl-C.

    A server an earlier command left running is stopped first (``ClassModelServer.stop_leftover``).
    When the class model server dies while serving, it is started again (``Supervisor``).

    Args:
        host: where the progress service and the students' door listen (llama-server: 127.0.0.1 only).
        port, slots: see ``ClassModelServer``.  new_key: make new class and teacher keys.
        key_file: the teacher's class key file (``class_key``); the teacher key (``.teacher-key``) and
            the progress database (``class-progress.sqlite3``) are kept beside it.
        progress_port: the progress service's port (default ``port + 1``: 8767).
        teacher_anywhere: the teacher's page answers every address, not only this computer (``--teacher-anywhere``).
        budget: tokens per student per minute at the door (0 = none; ``fair_share``, ``--budget``).
        reply_memory: the door answers a temperature-0 request it has seen before from memory
            (``reply_memory.ReplyCache``); False: every request reaches the model (``--no-reply-memory``).
        upstream_specs: more model servers (``--upstream``, ``upstreams.parse_upstream``).
        local_model: start this computer's llama-server (False: ``--no-local-model``, the upstreams only).
        env: where the upstreams' ``key_env`` are looked up (default ``os.environ``, ``.env`` loaded).
        exam_scorer: scores one capstone answer (``progress_service.make_app``; ``course.py serve`` hands in
            ``course_lib.capstone.score_answer``); None: the exam cannot be opened.
    Returns:
        The exit status: 0 after Ctrl-C (or SIGTERM / SIGHUP, see ``end_like_ctrl_c``),
        1 when the server could not start, an ``--upstream`` is wrong, or the class model server died
        more often than ``Supervisor`` restarts it.
    """
    server = ClassModelServer("127.0.0.1", port, slots, key_file=server_key_file()) if local_model else None
    try:
        return _serve(server, host, port, new_key, key_file, progress_port or port + 1, teacher_anywhere, budget,
                      reply_memory, tuple(upstream_specs), os.environ if env is None else env, exam_scorer)
    finally:
        if server is not None:
            server.stop()  # whatever ended the command (the guard also stops it if this process is killed)


def start_progress(server: "ClassModelServer | None", host: str, progress_port: int, key: str, key_file: Path,
                   new_key: bool = False, teacher_anywhere: bool = False,
                   budget: int = fair_share.DEFAULT_BUDGET, reply_memory: bool = True,
                   pool: "upstreams.UpstreamPool | None" = None, exam_scorer: Any = None):
    """Start the teacher's progress service beside the class model server (``progress_service``), with the
    students' door to it (``class_door``: turns for the model servers' slots, ``budget`` tokens a minute each,
    the replies it remembers unless ``reply_memory`` is False).  ``pool``: the model servers behind the door
    (``upstream_pool``; default: ``server`` alone).  ``server`` None (``--no-local-model``): no local model.

    ``new_key``: a new teacher key too (``--new-key``).  ``teacher_anywhere``, ``exam_scorer``: see
    ``progress_service.make_app``.

    Returns:
        ``(service, join_secret)``: the running ``ProgressService`` and the class code's secret.
    Raises:
        OSError: it could not listen on ``progress_port``.
        keys.KeyFileError: the teacher key is one the teacher wrote, too weak (``keys.check_strength``).
    """
    teacher = keys.teacher_key(key_file.parent / keys.TEACHER_KEY_FILE.name, new=new_key)
    store = ProgressStore(key_file.parent / DB_FILE.name)
    secret = class_code.new_secret()
    if pool is None and server is not None:
        pool = upstream_pool(server, (), {}, key)
    app = progress_service.make_app(store, key, teacher, join_secret=secret, teacher_anywhere=teacher_anywhere,
                                    budget=budget, reply_memory=reply_memory, upstreams=pool, exam_scorer=exam_scorer)
    return ProgressService(app, host, progress_port).start(), secret


def _serve(server: "ClassModelServer | None", host: str, port: int, new_key: bool, key_file: Path, progress_port: int,
           teacher_anywhere: bool = False, budget: int = fair_share.DEFAULT_BUDGET,
           reply_memory: bool = True, specs: tuple[str, ...] = (), env: Mapping[str, str] | None = None,
           exam_scorer: Any = None) -> int:
    env = os.environ if env is None else env
    try:
        upstream_pool(server, specs, env)  # a wrong --upstream stops us before anything starts
        if server is not None:
            leftover = server.stop_leftover()  # before a new key is made: another serve may still use the old one
            if leftover:
                print(leftover, flush=True)
        key = class_key(key_file, new=new_key)
        keys.teacher_key(key_file.parent / keys.TEACHER_KEY_FILE.name, new=new_key)  # a weak one stops us here
        if server is not None:
            write_key(server.key_file, key)
            server.start()
            print(t("classroom.starting", slots=server.slots, model=local_server.MODEL_ALIAS, log=server.log),
                  flush=True)
            server.wait()
        pool = upstream_pool(server, specs, env, key)
        check_upstreams(pool)
        service, secret = start_progress(server, host, progress_port, key, key_file,
                                         teacher_anywhere=teacher_anywhere, budget=budget,
                                         reply_memory=reply_memory, pool=pool, exam_scorer=exam_scorer)
    except (local_server.LocalModelError, keys.KeyFileError, upstreams.UpstreamError, OSError) as exc:
        if server is not None:
            server.stop()
        print(t("providers.error_line", error=exc), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if server is not None:
            server.stop()
        print(t("classroom.stopped"))
        return 0
    if host in ("0.0.0.0", ""):
        addresses = lan_addresses()
        shown = addresses[0] if addresses else t("classroom.address_unknown")
        others = t("classroom.other_addresses", addresses=", ".join(addresses[1:])) if len(addresses) > 1 else ""
    else:
        shown, others = host, ""
    def named(path: Path) -> Path | str:  # a file at the project root by its name, any other by its path
        return path.name if path.parent == PROJECT_ROOT else path

    try:
        code = class_code.make_code(shown, progress_port, secret)
    except ValueError:  # no IPv4 address to put in a code: the lines still work
        code = t("classroom.no_code")
    print(describe_upstreams(pool), flush=True)
    print(t("classroom.ready", others=others, key_file=named(key_file), code=code, progress_port=progress_port,
            teacher_file=named(key_file.parent / keys.TEACHER_KEY_FILE.name),
            budget=t("classroom.budget_on", budget=budget) if budget else t("classroom.budget_off")),
          flush=True)
    supervisor = Supervisor(server) if server is not None else None
    try:
        while supervisor is None or supervisor.poll_once() != Supervisor.GAVE_UP:
            time.sleep(0.5)
    except KeyboardInterrupt:
        if server is not None:
            server.stop()
        service.stop()
        print(t("classroom.stopped"))
        return 0
    service.stop()
    print(t("classroom.exited", code=server.process.returncode, log=server.log), file=sys.stderr)
    return 1


def end_like_ctrl_c() -> None:
    """Make every signal that ends this command end it as Ctrl-C does: the server is stopped first.

    By default SIGTERM (``kill``, a service manager) and SIGHUP (the terminal
    window closed) end Python at once, without ``finally``, and the server
    stayed on the LAN until the guard noticed.  Here they raise
    ``KeyboardInterrupt`` (``signal.default_int_handler``).  Only the signals this
    OS has: SIGHUP is POSIX only; Windows has SIGBREAK (Ctrl-Break; its C
    runtime raises it for the console's close event too, but Windows may end
    the process before Python's handler runs - then the guard stops the server,
    as for any killed command; not tested on Windows).  Python sets handlers
    from the main thread only; elsewhere nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGTERM", "SIGHUP", "SIGBREAK"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.default_int_handler)


def main(argv: list[str] | None = None, exam_scorer: Any = None) -> int:
    """Command line: ``python -m course_runtime.classroom [--host H] [--port P] [--slots N] [--new-key] [--key-file F]
    [--progress-port P] [--teacher-anywhere] [--budget TOKENS] [--no-reply-memory] [--upstream SPEC ...]
    [--no-local-model]``.  ``python course.py serve`` runs it through ``course_lib.capstone``, which hands in
    ``exam_scorer`` (the capstone exam's scorer; without it the exam cannot be opened)."""
    parser = argparse.ArgumentParser(prog="python course.py serve", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="0.0.0.0",
                        help="where the students' door listens (default: every interface; the model: 127.0.0.1 only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--slots", type=int, default=None,
                        help=f"requests decoded together (default {DEFAULT_SLOTS}; bench/results/classroom.md)")
    parser.add_argument("--new-key", action="store_true",
                        help="make new class and teacher keys (students join again)")
    parser.add_argument("--key-file", type=Path, default=KEY_FILE, help=f"the class key file (default {KEY_FILE.name})")
    parser.add_argument("--progress-port", type=int, default=None,
                        help="the progress service's port (default: --port + 1)")
    parser.add_argument("--teacher-anywhere", action="store_true",
                        help="the progress page answers every computer, not only this one (default: this one only)")
    parser.add_argument("--budget", type=int, default=fair_share.DEFAULT_BUDGET,
                        help="tokens per student per minute (0 = none; changeable on the teacher's page)")
    parser.add_argument("--no-reply-memory", dest="reply_memory", action="store_false",
                        help="send every request to the model: by default the door answers a temperature-0 "
                             "request it has already answered (the same JSON, key order and spaces aside) from memory; turn that "
                             "off to measure the model, or when every request should reach it")
    parser.add_argument("--upstream", dest="upstreams", action="append", default=[], metavar="SPEC",
                        help="one more model server behind the door (repeatable): URL[,slots=N][,key_env=NAME]"
                             "[,model=NAME][,kind=llama-server|openai-compatible][,label=TEXT]; the key is read from "
                             "the environment variable or .env line NAME, never written here (docs/classroom.md)")
    parser.add_argument("--no-local-model", dest="local_model", action="store_false",
                        help="start no llama-server on this computer: the students' requests go to the --upstream servers only")
    opts = parser.parse_args(argv)
    end_like_ctrl_c()
    try:
        load_env()
    except EnvFileError as exc:
        print(t("providers.error_line", error=exc), file=sys.stderr)
        return 1
    return serve(opts.host, opts.port, opts.slots, opts.new_key, opts.key_file, opts.progress_port,
                 opts.teacher_anywhere, max(0, opts.budget), reply_memory=opts.reply_memory,
                 upstream_specs=opts.upstreams, local_model=opts.local_model, exam_scorer=exam_scorer)


if __name__ == "__main__":
    sys.exit(main())
