"""Calling a student's code from a checker so that nothing it does can break the check.

Used by every checker (through ``checkers.safely`` and the ``@exercise`` decorator); never opened in class.

A student's function may loop forever, call ``sys.exit()``, or print a line in a loop.  None of
that may cost the ❌ line, the progress record or the rest of "Run All":

* ``within_limit(func, ...)``: one call, stopped after ``CALL_LIMIT_S`` seconds of its own (time spent
  in ``waiting_for_model``, a request to the real model, is not counted).  A watchdog thread
  raises ``CallTimedOut`` (a ``BaseException``, so a student's ``except Exception`` cannot swallow
  it; it is raised again every ``RETRY_S`` while the call goes on, for a bare ``except:``) inside the
  thread running the call, with CPython's ``PyThreadState_SetAsyncExc`` (the same call on Windows,
  macOS and Linux; the student's code stays in the kernel's own thread, so a SQLite connection or a
  widget it made before still works).  Python code is stopped between two bytecodes; a call blocked
  inside C (``time.sleep(600)``, a socket read) is stopped when it returns.
* ``bounded_output()``: ``sys.stdout`` and ``sys.stderr`` let ``OUTPUT_LIMIT`` characters of the
  student's own printing through and count the rest; the checker's own line always gets through
  (``real_stdout``).
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import sys
import threading
import time
from typing import Any, Callable, Iterator, TextIO

CALL_LIMIT_S = 10.0  # one call of a student's function in a check (the slowest reference call takes under 1 s)
CHECK_LIMIT_S = 300.0  # a whole check, for student code a checker calls outside ``safely``
RETRY_S = 0.2  # how often the stop is raised again while the call still runs
TICK_S = 0.05  # how often the watchdog looks at the clock
OUTPUT_LIMIT = 2000  # characters of the student's own output shown under one check


class CallTimedOut(BaseException):
    """Raised inside a student's call that ran past its time limit (``seconds`` on the class)."""

    seconds = CALL_LIMIT_S


_waiting: dict[int, int] = {}  # thread id -> how many waiting_for_model blocks it is inside


@contextlib.contextmanager
def waiting_for_model() -> Iterator[None]:
    """Inside the block this thread waits for a real model (a checker's request through ``client``): the time
    is not charged to the student's call - a reply that takes a minute in a busy class is not a loop."""
    me = threading.get_ident()
    _waiting[me] = _waiting.get(me, 0) + 1
    try:
        yield
    finally:
        _waiting[me] -= 1
        if not _waiting[me]:
            del _waiting[me]


def _raise_in(thread_id: int, exc_type: type[BaseException] | None) -> None:
    """Make ``thread_id`` raise ``exc_type`` at its next bytecode (None: cancel one not yet raised)."""
    exc = ctypes.py_object(exc_type) if exc_type is not None else ctypes.py_object()
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), exc)


def within_limit(func: Callable[..., Any], args: tuple = (), kwargs: dict | None = None,
                 seconds: float | None = None) -> Any:
    """``func(*args, **kwargs)`` in this thread, stopped with ``CallTimedOut`` after ``seconds``
    (default ``CALL_LIMIT_S``, read at the call).

    Returns:
        what ``func`` returned.
    Raises:
        whatever ``func`` raised; a subclass of ``CallTimedOut`` (its ``seconds`` set) when it
        ran too long.  Nothing is left pending for the code after the call.
    """
    seconds = CALL_LIMIT_S if seconds is None else seconds
    timed_out = type("CallTimedOut", (CallTimedOut,), {"seconds": seconds})
    target = threading.get_ident()
    lock = threading.Lock()
    running = [True]
    finished = threading.Event()

    def watch() -> None:
        charged, last = 0.0, time.monotonic()
        while charged < seconds:  # the student's own time: waits for the model (waiting_for_model) are not charged
            if finished.wait(TICK_S):
                return
            now = time.monotonic()
            if not _waiting.get(target):
                charged += now - last
            last = now
        while True:
            with lock:
                if not running[0]:
                    return
                _raise_in(target, timed_out)
            if finished.wait(RETRY_S):
                return

    watcher = threading.Thread(target=watch, name="course-check-time-limit", daemon=True)
    watcher.start()
    try:
        return func(*args, **(kwargs or {}))
    finally:
        while True:  # the stop may land here too: repeat until nothing is running and nothing is pending
            try:
                with lock:
                    running[0] = False
                    _raise_in(target, None)
                break
            except CallTimedOut:
                continue
        finished.set()


class _Bounded(io.TextIOBase):
    """A text stream that passes ``limit`` characters to ``underlying`` and counts the rest (shared budget)."""

    def __init__(self, underlying: TextIO, budget: list[int]):
        self.underlying = underlying
        self.budget = budget  # [characters left, characters dropped], shared by stdout and stderr

    def write(self, text: str) -> int:
        text = str(text)
        left = self.budget[0]
        shown = text[:max(left, 0)]
        if shown:
            self.underlying.write(shown)
        self.budget[0] -= len(shown)
        self.budget[1] += len(text) - len(shown)
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(Exception):
            self.underlying.flush()

    def writable(self) -> bool:
        return True


def real_stdout() -> TextIO:
    """The stream a checker's own line goes to: under ``bounded_output``, the one it wraps."""
    return getattr(sys.stdout, "underlying", sys.stdout)


@contextlib.contextmanager
def bounded_output(limit: int | None = None) -> Iterator[list[int]]:
    """Inside the block, the student's ``print`` shows at most ``limit`` characters (default ``OUTPUT_LIMIT``,
    read at the call; stdout and stderr together).

    Yields ``[characters left, characters dropped]``: after the block, ``[1]`` says how much was cut.
    Nested use keeps the outer budget.
    """
    if isinstance(sys.stdout, _Bounded):
        yield sys.stdout.budget
        return
    budget = [OUTPUT_LIMIT if limit is None else limit, 0]
    out, err = _Bounded(sys.stdout, budget), _Bounded(sys.stderr, budget)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield budget
