"""Answer a chat request again with the reply recorded for it: the notebook tests' second pass.

Used only by the tests and the bench (``bench/series.py``); never in class.
Nothing here happens unless ``COURSE_REPLAY_DIR`` is set: without it
``providers.get_client`` builds exactly the client it always built.

The notebook tests run each notebook top to bottom, then every code cell once
more in the same kernel (does a cell survive a re-run?).  On a deterministic
model (greedy decoding) a cell that rebuilds its own state sends the same
request the second time and would get the same reply, so the second pass is
answered from what the first pass received; a request that differs goes to
the model.

What it stores, and where
-------------------------
With ``COURSE_REPLAY_DIR=<folder>`` set when ``get_client`` builds a client,
the local server's transport (the provider the notebook tests run on) is
wrapped in ``ReplayTransport``; a client of any other provider is left as it
is, and its second pass goes to the model.  For each
chat request (``POST .../chat/completions``) it reads ``COURSE_REPLAY`` from
``os.environ`` at the moment the request is sent (so a client built earlier
follows a switch made later):

``record``  the answer is stored in the folder, once the caller has read it to
            the end and only for a 2xx status: ``<key>.<n>.body``, the
            response's bytes as the server sent them (a stream's server-sent
            events included), and ``<key>.<n>.json``, its status, headers
            and the body's length and SHA-256, written last and whole
            (a temporary file, then ``os.replace``): the mark that the
            answer is complete.
            ``key`` is ``request_key``: the SHA-256 of the method, the URL and
            the canonical JSON body (keys sorted, no spaces); ``n`` counts the
            same request 0, 1, 2, ... in the order the answers were read.
``replay``  the n-th request with a stored key in this process gets the n-th
            stored answer, as an ``httpx2.Response`` whose body is read as the
            network's is (lazily: the openai SDK and ``request_log`` read a
            stream exactly as a live one); a request that was not stored, or
            is sent more often than it was, goes to the network (and is not
            stored).  A replayed response has
            ``response.extensions["course_replayed"] = True``, and its
            ``request_log`` line says ``"replayed": true``.  A torn answer
            (the recording stopped mid-write: no ``.json``, a ``.json`` cut
            short, or a body whose length or hash is not the one the
            ``.json`` names) is never replayed: that request goes to the
            network, and the next one gets answer ``n + 1``.
else        (unset, ``off``): the request goes to the network, nothing is stored.

Other requests (``/health``, the slot erase of ``clear_prompt_cache``) always
go to the network.  A transport handed to ``get_client`` (a test's
``httpx2.MockTransport``) is never wrapped, and a raw ``openai.OpenAI`` client
(notebook 01 builds one) does not come here at all: only the network's answers
are recorded.  ``bench/series.py`` makes the folder: a temporary one per
notebook, deleted when the notebook has run.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any, Callable

import httpx2

DIR_ENV = "COURSE_REPLAY_DIR"  # the folder of the recorded answers
MODE_ENV = "COURSE_REPLAY"  # record | replay | off, read per request
RECORD, REPLAY, OFF = "record", "replay", "off"
CHAT_PATH = "/chat/completions"
# Response headers that described the connection, not the body (the body is stored de-chunked).
_DROPPED_HEADERS = {"transfer-encoding", "connection", "keep-alive"}

_served: dict[tuple[str, str], int] = {}  # (folder, key) -> answers replayed so far in this process
_lock = threading.Lock()


def folder() -> Path | None:
    """The folder ``COURSE_REPLAY_DIR`` names, or None when it is unset or blank."""
    value = os.environ.get(DIR_ENV, "").strip()
    return Path(value) if value else None


def mode() -> str:
    """``COURSE_REPLAY`` now: ``"record"``, ``"replay"`` or ``"off"`` (unset and anything else)."""
    value = os.environ.get(MODE_ENV, "").strip().lower()
    return value if value in (RECORD, REPLAY) else OFF


def request_key(request: httpx2.Request) -> str:
    """SHA-256 (hex) of the method, the URL and the canonical JSON body (the raw body if it is not JSON)."""
    body = request.read()
    try:
        text = json.dumps(json.loads(body), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        canonical = text.encode("utf-8")
    except ValueError:
        canonical = body
    return hashlib.sha256(f"{request.method} {request.url}\n".encode("utf-8") + canonical).hexdigest()


def _is_chat(request: httpx2.Request) -> bool:
    return request.method == "POST" and request.url.path.rstrip("/").endswith(CHAT_PATH)


def save(where: Path, key: str, response: httpx2.Response, body: bytes) -> Path | None:
    """Store one answer as the next ``<key>.<n>``; returns the ``.json`` path.

    The body first, then the ``.json`` with the body's ``length`` and ``sha256``, written whole or not
    at all (a temporary ``.json.tmp``, then ``os.replace``): a recording stopped at any point leaves an
    answer ``stored`` does not hand out.

    Returns:
        The ``.json`` path; None when the answer could not be stored (an ``OSError``: a full disk,
        the folder gone).  The caller has its answer either way; what was written of this one stays
        torn, so the second pass sends that request to the network, in its place.
    """
    temporary = None
    try:
        where.mkdir(parents=True, exist_ok=True)
        n = 0
        while True:
            try:
                with (where / f"{key}.{n}.body").open("xb") as fh:  # claims n, also against another thread
                    fh.write(body)
                break
            except FileExistsError:
                n += 1
        headers = [[name.decode("latin-1"), value.decode("latin-1")] for name, value in response.headers.raw
                   if name.decode("latin-1").lower() not in _DROPPED_HEADERS]
        reason = response.extensions.get("reason_phrase", b"")
        meta = {"status": response.status_code, "headers": headers,
                "reason_phrase": reason.decode("latin-1") if isinstance(reason, bytes) else str(reason),
                "length": len(body), "sha256": hashlib.sha256(body).hexdigest()}
        path = where / f"{key}.{n}.json"  # written last: an answer counts once its .json is there
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, path)
        return path
    except OSError:
        if temporary is not None:
            try:
                temporary.unlink()
            except OSError:
                pass
        return None


def _complete(meta: Any, body: bytes) -> bool:
    """True when ``meta`` is a whole ``.json`` of ``save`` and ``body`` is all of the body it describes."""
    return (isinstance(meta, dict) and isinstance(meta.get("status"), int) and isinstance(meta.get("headers"), list)
            and meta.get("length") == len(body) and meta.get("sha256") == hashlib.sha256(body).hexdigest())


def stored(where: Path, key: str, n: int) -> tuple[dict, bytes] | None:
    """The n-th stored answer to ``key``: ``(meta, body)``; None when there is none, or it is torn
    (no ``.json`` or no body, a ``.json`` that does not parse, a body of another length or hash)."""
    try:
        meta = json.loads((where / f"{key}.{n}.json").read_text(encoding="utf-8"))
        body = (where / f"{key}.{n}.body").read_bytes()
    except (OSError, ValueError):  # missing, or cut short (JSONDecodeError and UnicodeDecodeError are ValueErrors)
        return None
    return (meta, body) if _complete(meta, body) else None


def take(where: Path, key: str, request: httpx2.Request) -> httpx2.Response | None:
    """The next stored answer to ``key`` in this process, as a response to ``request``; None when none is left.

    A torn n-th answer (``stored`` gives None, but its body or ``.json`` is there) counts as taken: this
    request goes to the network and the next one gets answer ``n + 1``, as in the recording.
    """
    with _lock:
        n = _served.get((str(where), key), 0)
        found = stored(where, key, n)
        if found is None:
            if (where / f"{key}.{n}.body").exists() or (where / f"{key}.{n}.json").exists():
                _served[(str(where), key)] = n + 1
            return None
        _served[(str(where), key)] = n + 1
    meta, body = found
    extensions = {"course_replayed": True, "http_version": b"HTTP/1.1",
                  "reason_phrase": meta.get("reason_phrase", "").encode("latin-1")}
    return httpx2.Response(meta["status"], headers=[tuple(pair) for pair in meta["headers"]], stream=StoredStream(body),
                          request=request, extensions=extensions)


class StoredStream(httpx2.SyncByteStream):
    """A stored body, handed out when read (as a network stream is), not in advance."""

    def __init__(self, body: bytes):
        self.body = body

    def __iter__(self):
        yield self.body


class RecordingStream(httpx2.SyncByteStream):
    """Passes the network's bytes on; when closed after the last byte was read, hands all of them to ``done``.

    The openai SDK stops reading a stream at its ``data: [DONE]`` event, so
    bytes that end with that event count as read to the end.  A stream the
    caller closes before (it stopped reading half-way) is not stored.
    """

    def __init__(self, inner: Any, done: Callable[[bytes], Any]):
        self.inner, self.done, self.seen, self.complete = inner, done, bytearray(), False

    def __iter__(self):
        for part in self.inner:
            self.seen += part
            yield part
        self.complete = True

    def close(self) -> None:
        self.inner.close()
        seen, self.seen = bytes(self.seen), bytearray()  # handed on once
        if self.complete or seen.rstrip().endswith(b"data: [DONE]"):
            self.complete = False
            self.done(seen)


class ReplayTransport(httpx2.BaseTransport):
    """Wraps the network transport: records or replays chat answers as ``COURSE_REPLAY`` says (module docstring)."""

    def __init__(self, inner: httpx2.BaseTransport):
        self.inner = inner

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        where, now = folder(), mode()
        if where is None or now == OFF or not _is_chat(request):
            return self.inner.handle_request(request)
        key = request_key(request)
        if now == REPLAY:
            answer = take(where, key, request)
            if answer is not None:
                return answer
            return self.inner.handle_request(request)
        response = self.inner.handle_request(request)
        if not 200 <= response.status_code < 300:
            return response
        if response.is_stream_consumed:  # read in advance (a mock transport's answer): stored now
            save(where, key, response, response.content)
        else:
            response.stream = RecordingStream(response.stream, lambda body: save(where, key, response, body))
        return response

    def close(self) -> None:
        self.inner.close()


def wrap(transport: httpx2.BaseTransport) -> httpx2.BaseTransport:
    """``ReplayTransport(transport)`` when ``COURSE_REPLAY_DIR`` is set, else ``transport`` itself."""
    return ReplayTransport(transport) if folder() is not None else transport
