"""The class door's memory of deterministic replies (``ReplyCache``).

Used by the class door (``class_door``); runs in uvicorn's event loop.

The memory (``ReplyCache``; on by default, ``serve --no-reply-memory`` turns it off):

* **What it remembers.**  The reply to a ``POST /v1/chat/completions`` whose
  body sets ``"temperature"`` to the number 0 and ``n`` absent or 1 - at
  temperature 0 the model picks the likeliest token each time, so a
  classmate who runs the same cell unchanged sends the very same body (the
  agent's next request carries the tool-call ids of the reply it got, so
  when everyone gets the same reply the whole conversation stays the same).
  Absent or above 0 is sampling: never remembered.  Only a complete 200
  reply: a plain one's body, or a stream's every byte when it ended with
  ``data: [DONE]``; an error status, a reply cut by the student leaving or
  the server breaking off, a connection failure are never kept.
* **The key.**  SHA-256 of the path and the body as JSON written one way
  (``json.loads``, then ``json.dumps(separators=(",", ":"), ensure_ascii=False)``,
  keys in the order sent: llama-server keeps that order - a schema's properties
  are the order the model writes its fields in): spaces do not matter, anything else
  does (the model, every message, the seed, ``stream``, ``max_tokens``...).
* **A hit** is answered at once in the same shape (the same bytes and
  content type; a stream as the same server-sent events), skips the turns
  (it costs no model time) and is counted apart (``StudentUse.cached``, the
  teacher's "从记忆回答" column): no tokens, no busy time.  Every chat reply
  carries ``X-Course-Reply: memory`` or ``X-Course-Reply: model``.
* **Single flight.**  While the model answers a request, an identical one
  waits for that answer (without a turn; it still notices when its student
  leaves) and is then answered from memory.  When the first did not end in
  a kept reply (an error, its student left, the server broke off), each
  waiter goes to the model itself, in the usual turns.
* **Bounded.**  In memory only, least recently used first out, at most
  ``MEMORY_BYTES`` bytes of replies and ``MEMORY_ENTRIES`` replies; gone when
  ``serve`` stops.
* **What a student can learn.**  A reply is only ever given for a request
  that means the very same (the canonical body is equal), so a student
  gets nothing they could not have got from the model; what they can tell,
  from the speed or the header, is that someone sent that very request
  before.  The memory holds replies and hashes only, no token, no key, no
  student's name.
* **Why turn it off**: a teacher measuring the model (``bench.fairness``
  replays the same bodies for every student: it would measure the memory),
  or wanting every request to reach the model.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

MEMORY_BYTES = 64 * 1024 * 1024  # replies the door remembers, in bytes (an agent's reply is a few KB)
MEMORY_ENTRIES = 20_000  # and in number


@dataclass(frozen=True)
class Remembered:
    """One reply the door remembers: ``content`` (the body's bytes, a stream's every byte) and the headers it
    is answered with (``content-type``, ``cache-control``: what the door passes on anyway)."""

    content: bytes
    headers: dict[str, str]


class ReplyCache:
    """The door's memory of deterministic replies (the module docstring: what, when, what a student learns).

    In memory, least recently used first out.  Runs in one asyncio event loop (uvicorn's).  Args:
        max_bytes: the replies' bytes kept at most (default ``MEMORY_BYTES``); a reply bigger than that is
            never kept.  max_entries: replies kept at most (``MEMORY_ENTRIES``).
    """

    def __init__(self, max_bytes: int = MEMORY_BYTES, max_entries: int = MEMORY_ENTRIES):
        if max_bytes < 1 or max_entries < 1:
            raise ValueError("max_bytes and max_entries must be at least 1")
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self._replies: OrderedDict[str, Remembered] = OrderedDict()
        self._pending: dict[str, asyncio.Future] = {}
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._replies)

    @staticmethod
    def key_of(path: str, body: Any) -> str | None:
        """The memory's key for a request to ``path`` with the parsed JSON ``body``, or None (never remembered).

        A key (SHA-256, 64 hex digits, of the path and the body written again as JSON: keys in the order sent,
        no spaces, UTF-8) only for a JSON object whose ``temperature`` is the number 0 (not ``false``, not
        ``"0"``) and whose ``n`` is absent or 1: any other request samples, or asks for several choices.
        """
        if not isinstance(body, dict):
            return None
        temperature, n = body.get("temperature"), body.get("n", 1)
        if type(temperature) not in (int, float) or temperature != 0 or type(n) is not int or n != 1:
            return None
        try:
            canonical = json.dumps(body, separators=(",", ":"), ensure_ascii=False)  # keys in the order sent
        except (ValueError, RecursionError):
            return None
        data = path.encode("utf-8") + b"\n" + canonical.encode("utf-8", errors="surrogatepass")
        return hashlib.sha256(data).hexdigest()

    def get(self, key: str) -> Remembered | None:
        """The reply kept for ``key`` (now the most recently used), or None."""
        found = self._replies.get(key)
        if found is not None:
            self._replies.move_to_end(key)
        return found

    def put(self, key: str, reply: Remembered) -> bool:
        """Keep ``reply`` for ``key``, the least recently used going first when over a bound.  Returns False
        (nothing kept) for a reply bigger than ``max_bytes``."""
        if len(reply.content) > self.max_bytes:
            return False
        old = self._replies.pop(key, None)
        if old is not None:
            self.bytes -= len(old.content)
        self._replies[key] = reply
        self.bytes += len(reply.content)
        while self.bytes > self.max_bytes or len(self._replies) > self.max_entries:
            _, dropped = self._replies.popitem(last=False)
            self.bytes -= len(dropped.content)
        return True

    def pending(self, key: str) -> asyncio.Future | None:
        """The future of the request with ``key`` the model is answering now (done when it ended), or None."""
        return self._pending.get(key)

    def lead(self, key: str) -> Callable[[], None]:
        """Mark the request with ``key`` as being answered by the model; returns ``done()``, to call (once is
        enough, more is harmless) however it ends: the requests waiting for it then look in the memory."""
        future = asyncio.get_running_loop().create_future()
        self._pending[key] = future

        def done() -> None:
            if self._pending.get(key) is future:
                del self._pending[key]
            if not future.done():
                future.set_result(None)

        return done


def stream_complete(content: bytes) -> bool:
    """Whether a stream's bytes end as a finished OpenAI-style stream: the last event is ``data: [DONE]``."""
    return content.rstrip().endswith(b"data: [DONE]")

