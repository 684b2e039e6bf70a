"""The request log: one JSON line per chat request, for the bench and the tests.

Used by ``bench/`` (the series, the classroom load test) and ``tests/``; not
taught in a notebook.  ``http_client.course_http_client`` (under
``providers.get_client``) adds its hooks when ``COURSE_REQUEST_LOG=<file>`` is set.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Callable

import httpx2


class RequestLog:
    """Append one JSON line per chat request to a file (``COURSE_REQUEST_LOG``; used by ``bench/`` and the tests).

    Each line is ``{"at": unix time (s), "seconds": wall time of the HTTP
    exchange (s), "status": HTTP status, "stream": bool, "prompt_tokens",
    "completion_tokens", "finish_reason", "content": the reply text,
    "tool_calls": [{"name", "arguments"}] or None, "timings": llama-server's own
    ``timings`` object or None, "request": the JSON body that was sent}``,
    and ``"replayed": true`` when ``request_replay`` answered it from the
    first pass's record instead of the network (the key is absent otherwise).
    Token counts come from the response's ``usage``.  A streamed reply is
    logged when the stream is closed, with the text and calls put together
    from its chunks by ``read_stream`` (the lessons pass ``replies.collect_stream``)
    - nothing is read that the caller does not read itself.  The body holds no key (that travels in a
    header, which is never written).
    """

    def __init__(self, path: str | os.PathLike | None = None, on_line: Any = None, *,
                 read_stream: Callable[[list[dict]], Any]):
        """A log that writes to ``path`` and/or hands each line to ``on_line``.

        Args:
            path: the file to append to (None = none).  on_line: also called with each line dict.
            read_stream: turns a streamed reply's chunks (dicts) into a reply with ``.message``
                (a dict), ``.usage`` and ``.finish_reason`` (``replies.collect_stream`` does; passed in
                because the reply reader is a lesson, course_lib/replies.py, and this package never imports it).
        """
        self.path = Path(path) if path is not None else None
        self.on_line = on_line
        self.read_stream = read_stream

    def on_request(self, request: httpx2.Request) -> None:
        request.extensions["course_started"] = time.perf_counter()

    def line_of(self, response: httpx2.Response, chunks: list[dict] | None = None) -> dict | None:
        """The log line of one response (see the class docstring), or None for other endpoints.

        Args:
            response: a ``/chat/completions`` response (read here unless streamed).
            chunks: for a streamed response, its chunks as dicts (the line then
                describes the reply they add up to).
        """
        if not response.request.url.path.endswith("/chat/completions"):
            return None
        started = response.request.extensions.get("course_started", time.perf_counter())
        stream = "text/event-stream" in response.headers.get("content-type", "")
        body: dict = {}
        if not stream:
            response.read()
            try:
                body = response.json()
            except ValueError:
                body = {}
        try:
            sent = json.loads(response.request.content or b"{}")
        except ValueError:
            sent = None
        if stream:
            reply = self.read_stream(chunks or [])
            usage, message, finish = reply.usage or {}, reply.message, reply.finish_reason
            timings = next((c["timings"] for c in reversed(chunks or []) if c.get("timings")), None)
        else:
            usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
            choice = (body.get("choices") or [{}])[0] or {}
            message, finish, timings = choice.get("message") or {}, choice.get("finish_reason"), body.get("timings")
        calls = [{"name": (c.get("function") or {}).get("name"), "arguments": (c.get("function") or {}).get("arguments")}
                 for c in message.get("tool_calls") or []] or None
        line = {
            "at": round(time.time(), 3),
            "seconds": round(time.perf_counter() - started, 3),
            "status": response.status_code,
            "stream": stream,
            "prompt_tokens": usage.get("prompt_tokens"),
            "completion_tokens": usage.get("completion_tokens"),
            "finish_reason": finish,
            "content": message.get("content"),
            "tool_calls": calls,
            "timings": timings,
            "request": sent,
        }
        if response.extensions.get("course_replayed"):  # answered from the record (request_replay), not sent
            line["replayed"] = True
        return line

    def on_response(self, response: httpx2.Response) -> None:
        streamed = "text/event-stream" in response.headers.get("content-type", "")
        if not streamed:
            self.write(self.line_of(response))
        elif response.is_stream_consumed:  # already in memory (a mock transport's answer): log it now
            self.write(self.line_of(response, sse_chunks(response.content)))
        elif response.request.url.path.endswith("/chat/completions"):
            response.stream = TeeStream(response.stream, lambda data: self.write(self.line_of(response, sse_chunks(data))))

    def write(self, line: dict | None) -> None:
        """Hand ``line`` to ``on_line`` and append it to the file (nothing for None)."""
        if line is None:
            return
        if self.on_line is not None:
            self.on_line(line)
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")

    def hooks(self) -> dict:
        """The ``event_hooks`` argument for ``httpx2.Client``."""
        return {"request": [self.on_request], "response": [self.on_response]}


def sse_chunks(data: bytes) -> list[dict]:
    """The JSON chunks of a server-sent-events body (``data: {...}`` lines; ``[DONE]`` and junk skipped)."""
    chunks = []
    for line in data.decode("utf-8", "replace").splitlines():
        text = line[5:].strip() if line.startswith("data:") else ""
        if text and text != "[DONE]":
            try:
                chunks.append(json.loads(text))
            except ValueError:
                pass
    return chunks


class TeeStream(httpx2.SyncByteStream):
    """A response stream that passes every byte on and, when closed, hands ``done`` all the bytes it saw."""

    def __init__(self, inner: Any, done: Any):
        self.inner, self.done, self.seen = inner, done, bytearray()

    def __iter__(self):
        for part in self.inner:
            self.seen += part
            yield part

    def close(self) -> None:
        self.inner.close()
        self.done(bytes(self.seen))
