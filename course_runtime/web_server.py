"""The teacher's web service as a running server: uvicorn in a background thread, guarded against slow clients.

``ProgressService(app, host, port).start()`` runs the Starlette app of ``progress_service.make_app``
(the progress page, joining, the class door) with two guards uvicorn lacks (``guarded_protocol``):
a request's headers and body must have arrived ``READ_DEADLINE_S`` after its connection opened (or its
last answer went), and one address holds at most ``MAX_CONNECTIONS_PER_ADDRESS`` connections.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from .texts import t

READ_DEADLINE_S = 10.0  # a connection's request (headers and body) must have arrived by then
MAX_CONNECTIONS_PER_ADDRESS = 64  # open connections from one address; more are closed at once


def guarded_protocol(read_deadline_s: float = READ_DEADLINE_S, per_address: int = MAX_CONNECTIONS_PER_ADDRESS):
    """uvicorn's h11 protocol with two guards against a slowloris (half-open requests that hold a file handle each).

    uvicorn's own timers do not cover it: ``timeout_keep_alive`` starts only after a response, so a
    connection that sends half its headers (or half its body), or nothing, stays open for ever; and
    ``limit_concurrency`` answers 503 to the next *request*, it does not close connections.  So:

    * a deadline: each request (headers and body) must have arrived ``read_deadline_s`` after the
      connection opened or the last answer went out, else the connection is closed.  The time the
      app takes to answer does not count.
    * at most ``per_address`` open connections from one client address: one more is closed at once.

    A class (one per call, its counts shared by the connections of one service) for ``uvicorn.Config(http=...)``.
    """
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    open_from: dict[str, int] = {}  # client address -> open connections (the event loop's thread only)

    class GuardedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _counted: str | None = None

        def connection_made(self, transport):  # type: ignore[override]
            super().connection_made(transport)
            host = self.client[0] if self.client else ""
            if open_from.get(host, 0) >= per_address:
                transport.close()  # its file handle is freed now, not at the deadline
                return
            open_from[host] = open_from.get(host, 0) + 1
            self._counted = host
            self._arm()

        def connection_lost(self, exc):
            self._disarm()
            if self._counted is not None:
                left = open_from.get(self._counted, 1) - 1
                if left > 0:
                    open_from[self._counted] = left
                else:
                    open_from.pop(self._counted, None)
                self._counted = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
                self._disarm()  # the whole request is in (or the connection is ending)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
                self._arm()  # the next request has READ_DEADLINE_S too

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(read_deadline_s, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

    return GuardedH11Protocol


def _more_file_handles(wanted: int = 4096) -> None:
    """Raise this process's soft limit on open files towards ``wanted`` (macOS starts at 256); POSIX only, quietly."""
    try:
        import resource
    except ImportError:  # Windows
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        pass


class ProgressService:
    """The service in a background thread of the teacher's command: ``start()``, ``stop()``.

    Args:
        app: from ``make_app``.  host, port: where uvicorn listens.
        read_deadline_s, per_address: the guards against half-open connections (``guarded_protocol``).
    """

    def __init__(self, app: Any, host: str, port: int, *, read_deadline_s: float = READ_DEADLINE_S,
                 per_address: int = MAX_CONNECTIONS_PER_ADDRESS):
        import uvicorn

        _more_file_handles()
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                lifespan="off", http=guarded_protocol(read_deadline_s, per_address),
                                proxy_headers=False,  # the client's address is the socket's: no X-Forwarded-For
                                h11_max_incomplete_event_size=16 * 1024)  # headers: 16 KiB at most
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="progress-service", daemon=True)

    def start(self, timeout: float = 10.0) -> "ProgressService":
        """Start listening; wait until it does.

        Raises:
            OSError: it did not start in ``timeout`` s (the port is taken, for one).
        """
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise OSError(t("progress_service.not_started", port=self.server.config.port))
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)

