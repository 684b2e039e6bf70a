"""The shared request layer of the teacher's web service: reading, parsing and refusing what a client sends.

Every handler of ``progress_service`` (results, joining, the teacher's routes) and of the class door
(``class_door``) reads its request through these functions, so each limit is written once:

* ``read_body``: at most ``most`` bytes (a ``Content-Length`` above it is refused before a byte is read;
  a chunked body is counted as it arrives), 413 with a Chinese sentence.
* ``parse_json``: nesting counted before parsing (``json_depth``, at most ``MAX_DEPTH`` unless told),
  UTF-8 only, a lone surrogate refused; bodies above ``OFF_LOOP_BYTES`` are decoded, counted and
  parsed in a worker thread, so one big body never holds up the event loop that every other
  student's request runs on.
* ``bearer``, ``address``: who sent it (the socket's address: no ``X-Forwarded-For`` is believed).
* ``RateLimit``: at most ``limit`` units per key in a sliding window, checked and counted in one step.
* ``BadRequest``: a refusal with a status and a Chinese ``message``, answered as ``{"error": message}``
  (``error_response``) - or in the OpenAI error shape by the door.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable

from .texts import t

MAX_BODY = 64 * 1024  # bytes of one request body to the progress service
MAX_DEPTH = 10  # nesting of a request's JSON (a post of results is 3 deep)
OFF_LOOP_BYTES = 64 * 1024  # a body bigger than this is parsed in a worker thread


class BadRequest(Exception):
    """A request the service refuses: ``status`` and a Chinese ``message`` (sent as ``{"error": ...}``)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message



def json_depth(text: str) -> int:
    """How deep the brackets of JSON ``text`` nest (strings skipped), found without parsing it.

    ``json.loads`` meets a body of 30,000 ``[`` with a ``RecursionError``; this is counted first.  One pass
    over the characters, in time linear in the text whatever it holds (a regular expression for the
    strings took time growing with the square of a string never closed: 64 KB of ``\\"`` stalled the
    event loop for seconds).
    """
    depth = deepest = 0
    inside = escaped = False
    for char in text:
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif char in "]}":
            depth -= 1
    return deepest



class RateLimit:
    """At most ``limit`` units per key (an address, a token) in any ``window_s`` seconds.

    ``take`` checks and counts in one step under a lock, before the request's body is even read, so
    200 requests at once get no more than ``limit`` between them; one key's use never holds up another's.
    """

    def __init__(self, limit: int, window_s: float = 60.0, clock: Callable[[], float] = time.time):
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self._lock = threading.Lock()
        self._taken: dict[str, list[tuple[float, int]]] = {}

    def take(self, key: str, units: int = 1) -> bool:
        """Count ``units`` for ``key`` and return True, or return False (nothing counted) when over the limit."""
        with self._lock:
            now = self.clock()
            if len(self._taken) > 10_000:  # many keys: forget the ones whose minute is over
                self._taken = {k: v for k, v in self._taken.items() if now - v[-1][0] < self.window_s}
            recent = [(at, n) for at, n in self._taken.get(key, ()) if now - at < self.window_s]
            self._taken[key] = recent
            if sum(n for _, n in recent) + units > self.limit:
                return False
            recent.append((now, units))
            return True

    def full(self, key: str) -> bool:
        """Whether ``key`` has used all ``limit`` units of the window (nothing counted)."""
        with self._lock:
            now = self.clock()
            return sum(n for at, n in self._taken.get(key, ()) if now - at < self.window_s) >= self.limit

    def give_back(self, key: str, units: int = 1) -> None:
        """Uncount the last ``take(key, units)`` (a right class code or teacher key is not a guess)."""
        with self._lock:
            recent = self._taken.get(key, [])
            for i in range(len(recent) - 1, -1, -1):
                if recent[i][1] == units:
                    del recent[i]
                    return



def error_response(exc: BadRequest):
    """``{"error": exc.message}`` with ``exc.status`` (Starlette ``JSONResponse``)."""
    from starlette.responses import JSONResponse

    return JSONResponse({"error": exc.message}, status_code=exc.status)


def address(request: Any) -> str:
    """The client's IP address as the socket says (``""`` when unknown)."""
    return request.client.host if request.client else ""


def bearer(request: Any) -> str:
    """The request's ``Authorization: Bearer`` value, stripped (``""`` when none)."""
    value = request.headers.get("authorization", "")
    return value[7:].strip() if value[:7].lower() == "bearer " else ""


async def read_body(request: Any, most: int) -> bytes:
    """The request's body, at most ``most`` bytes.

    Raises:
        BadRequest: 413 when it is bigger (by its ``Content-Length`` before anything is read, or as it
            arrives); 400 when the client went away before the whole body came (``READ_DEADLINE_S``).
    """
    from starlette.requests import ClientDisconnect

    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > most):
        raise BadRequest(413, t("progress_service.too_big", most=most))
    data = bytearray()
    try:
        async for chunk in request.stream():
            data += chunk
            if len(data) > most:
                raise BadRequest(413, t("progress_service.too_big", most=most))
    except ClientDisconnect:  # gone, or closed at READ_DEADLINE_S: nobody reads the answer
        raise BadRequest(400, t("progress_service.not_json")) from None
    return bytes(data)


def _parse(data: bytes, depth: int) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(400, t("progress_service.not_json")) from None
    if json_depth(text) > depth:
        raise BadRequest(400, t("progress_service.too_deep", most=depth))
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise BadRequest(400, t("progress_service.not_json")) from None
    try:  # "\ud800" is valid JSON, but no UTF-8 (nor SQLite, nor a hash) takes it
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest(400, t("progress_service.not_text")) from None
    return value


async def parse_json(data: bytes, depth: int = MAX_DEPTH) -> Any:
    """``data`` parsed as JSON nested at most ``depth`` deep; in a worker thread above ``OFF_LOOP_BYTES``.

    Raises:
        BadRequest (400): not UTF-8, too deep, not JSON, or a string UTF-8 cannot hold.
    """
    if len(data) <= OFF_LOOP_BYTES:
        return _parse(data, depth)
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(_parse, data, depth)


async def body_json(request: Any, most: int = MAX_BODY, depth: int = MAX_DEPTH) -> Any:
    """``read_body`` then ``parse_json`` (the errors of both)."""
    return await parse_json(await read_body(request, most), depth)


async def run_blocking(function: Callable, *args: Any) -> Any:
    """``function(*args)`` in Starlette's thread pool: SQLite and the model servers' ``/metrics`` never hold up
    the event loop every student's request runs on."""
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(function, *args)
