"""The class model's door: each student reaches it with their own token, in fair turns.

Not taught in a notebook: ``python course.py serve`` runs it inside the
teacher's progress service (``progress_service.make_app``, port 8767), and the
students' notebooks talk to it through the ``classroom`` provider, whose
``COURSE_BASE_URL`` (``http://<teacher>:8767/v1``, written by ``python course.py
join``) points here.  llama-server itself listens on the teacher's computer
only (127.0.0.1:8766); the class key stays there: this door adds it to every
request it passes on.

Who may pass: a student whose token has joined the class (``Authorization:
Bearer <student token>``, the token ``class_code.student_token`` keeps per OS
user, tied to the student's name by ``/api/join``).  Anything else gets 401
with a Chinese sentence that says to run ``python course.py join``.

What it passes on, byte for byte (so the replies are the ones the lessons
describe, and the prompt cache works as before):

* ``POST /v1/chat/completions`` - in turns (``FairShare``), streamed or not;
* ``GET /v1/models``, ``POST /tokenize``, ``POST /apply-template`` - at once
  (no generation: notebook 07 uses the last two).

The turns (``FairShare``):

* **One request in flight per student.**  A student's second request waits
  until their first has its answer (a looping cell holds one turn, never the
  four slots).  At most ``MAX_WAITING`` requests of one student wait at
  once; one more is answered 429.
* **The quietest student goes first.**  Requests are passed on while fewer
  than ``capacity`` (the server's slots) are being answered; when a turn
  frees, of the students waiting, the one who used the fewest tokens in the
  last minute goes next (ties: the one who has waited longest).
* **A student who keeps the model busy lets the others go first.**  A
  student counts as *busy* when, in the last ``WINDOW_S`` seconds (or since
  their first request, when that is shorter, but at least ``FIRST_LOOK_S``), they had a
  request waiting or being answered more than ``BUSY_FRACTION`` of the time
  and more than ``BUSY_TIMES_MEDIAN`` times as long as the median of the other
  students who used the model in that minute - a cell in a ``while True``, or
  notebook 10's evaluation run again, not an agent's few quick steps - or,
  when the teacher set a token budget, used more tokens than it (``budget``:
  tokens per student per minute, ``usage.prompt_tokens +
  usage.completion_tokens`` as the server reports them, the way providers
  bill; ``serve --budget N`` or the teacher's page; 0, the default, means
  none).  While other students are working (used the model in the last
  minute), each request of a busy student first waits ``YIELD_S`` seconds,
  then still goes after anyone else waiting.  Nothing fails; a student alone
  is never held back.  Why a pause and not only the order: on a CPU the
  requests answered together share its cores, so a looping student who merely
  waits their turn still takes every idle moment and slows every request
  that arrives while theirs is being answered (``bench/results/fairness.md``
  measured the order alone too).
* The teacher's page shows, per student: requests, prompt and completion
  tokens, tokens in the last minute, how much of the last minute they kept
  the model busy, how often they let others go first, and whether they are
  waiting or being answered now (``FairShare.snapshot``); kept in memory
  while ``serve`` runs.

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
  (``json.loads``, then ``json.dumps(sort_keys=True, separators=(",", ":"),
  ensure_ascii=False)``): key order and spaces do not matter, anything else
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

The numbers: ``bench/fairness.py`` (``python -m bench.fairness``) runs 8 and 16
simulated students, one of whom loops, straight to llama-server and through
this door; ``bench/results/fairness.md`` has the table.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import re
import statistics
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any, Callable

from .texts import t

MAX_WAITING = 8  # requests of one student waiting at once (a notebook sends one at a time)
WINDOW_S = 60.0  # "the last minute" of every count
DEFAULT_BUDGET = 0  # tokens per student per minute; 0 = no budget (the busy rule alone)
BUSY_FRACTION = 0.5  # waiting or answered more than half of the last minute ...
BUSY_TIMES_MEDIAN = 2  # ... and more than twice as long as the other students' median
YIELD_S = 10.0  # how long each request of a busy student waits while others are working
FIRST_LOOK_S = 20.0  # a newcomer's busy part is taken over at least this long
MAX_MODEL_BODY = 4 * 1024 * 1024  # bytes of one request (a full 8192-token context is about 40 KB of text)
GONE_CHECK_S = 0.5  # how often a waiting request looks whether its student is still connected
KEEPALIVE_S = 2.0  # how long an idle connection to llama-server is kept for the next request
UPSTREAM_TIMEOUT_S = 600.0  # as the student's own client waits (http_client.CLASSROOM_TIMEOUT_S)
MEMORY_BYTES = 64 * 1024 * 1024  # replies the door remembers, in bytes (an agent's reply is a few KB)
MEMORY_ENTRIES = 20_000  # and in number
REPLY_HEADER = "X-Course-Reply"  # "memory" or "model" on every chat reply that passed the door
_TOKEN = re.compile(r"[0-9a-f]{32}")


class TooManyWaiting(Exception):
    """A student already has ``MAX_WAITING`` requests waiting (answered 429)."""


@dataclass
class StudentUse:
    """One student's use of the class model since ``serve`` started (``FairShare``)."""

    name: str
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    in_flight: int = 0
    waiting: int = 0
    yielded: int = 0  # requests that waited YIELD_S (busy while others were working)
    cached: int = 0  # requests answered from the door's memory (ReplyCache): no model time, no tokens
    last_at: float | None = None  # when a request of theirs last arrived or ended (clock)
    first_at: float | None = None  # when their first request arrived (clock)
    busy_since: float | None = None  # since when they have had a request waiting or answered (None: not now)
    busy: deque = field(default_factory=deque)  # (start, end) of their busy stretches in the last WINDOW_S
    recent: deque = field(default_factory=deque)  # (clock, tokens) of the last WINDOW_S


class FairShare:
    """Turns at the class model (see the module docstring): ``await acquire(name)``, then ``release(name, usage)``.

    Runs in one asyncio event loop (uvicorn's).  Args:
        capacity: requests passed on at once (the server's slots; more would only wait in its own queue,
            first come first served).
        budget: tokens per student per ``WINDOW_S`` above which a student counts as busy (0 = none); the
            teacher may change it while it runs.
        clock: seconds (tests move it).
    """

    def __init__(self, capacity: int, budget: int = DEFAULT_BUDGET, clock: Callable[[], float] = time.monotonic):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity, self.clock = capacity, clock
        self._budget = max(0, int(budget))
        self.students: dict[str, StudentUse] = {}
        self._queue: list[list] = []  # [arrival, name, its turn (a future), has yielded, when it came (clock)]
        self._arrivals = itertools.count()
        self._timer: asyncio.TimerHandle | None = None

    @property
    def budget(self) -> int:
        return self._budget

    @budget.setter
    def budget(self, tokens: int) -> None:
        self._budget = max(0, int(tokens))
        self._dispatch()

    def use(self, name: str) -> StudentUse:
        return self.students.setdefault(name, StudentUse(name))

    def in_flight(self) -> int:
        return sum(s.in_flight for s in self.students.values())

    def last_minute(self, name: str) -> int:
        """Tokens ``name`` used in the last ``WINDOW_S`` seconds."""
        use = self.use(name)
        now = self.clock()
        while use.recent and now - use.recent[0][0] >= WINDOW_S:
            use.recent.popleft()
        return sum(tokens for _, tokens in use.recent)

    def busy_fraction(self, name: str) -> float:
        """The part (0-1) of the last ``WINDOW_S`` seconds in which ``name`` had a request waiting or answered;
        of the time since their first request when that is shorter, but at least ``FIRST_LOOK_S`` (a student
        who starts with a loop is seen sooner, one request of a newcomer is not a loop)."""
        use = self.use(name)
        now = self.clock()
        start = now - WINDOW_S
        while use.busy and use.busy[0][1] <= start:
            use.busy.popleft()
        spans = list(use.busy) + ([(use.busy_since, now)] if use.busy_since is not None else [])
        seen = WINDOW_S if use.first_at is None else min(WINDOW_S, max(FIRST_LOOK_S, now - use.first_at))
        return sum(max(0.0, end - max(begin, start)) for begin, end in spans) / seen

    def is_busy(self, name: str) -> bool:
        """Whether ``name`` keeps the model busy (the module docstring's rule: time, or the teacher's budget)."""
        if self._budget and self.last_minute(name) > self._budget:
            return True
        mine = self.busy_fraction(name)
        if mine <= BUSY_FRACTION:
            return False
        others = [x for x in (self.busy_fraction(n) for n in list(self.students) if n != name) if x > 0]
        return bool(others) and mine > BUSY_TIMES_MEDIAN * statistics.median(others)

    def others_working(self, name: str) -> bool:
        """Whether another student is being answered, waiting, or used the model in the last ``WINDOW_S``."""
        now = self.clock()
        return any(u.in_flight or u.waiting or (u.last_at is not None and now - u.last_at < WINDOW_S)
                   for n, u in self.students.items() if n != name)

    def _mark(self, use: StudentUse) -> None:
        """Open or close ``use``'s busy stretch after its counts changed."""
        now = self.clock()
        use.last_at = now
        if use.first_at is None:
            use.first_at = now
        if use.in_flight or use.waiting:
            if use.busy_since is None:
                use.busy_since = now
        elif use.busy_since is not None:
            use.busy.append((use.busy_since, now))
            use.busy_since = None

    async def acquire(self, name: str) -> None:
        """Wait for ``name``'s turn (see the module docstring).

        Raises:
            TooManyWaiting: ``name`` already has ``MAX_WAITING`` requests waiting.
            asyncio.CancelledError: the request was cancelled while waiting (nothing is held then).
        """
        use = self.use(name)
        if use.waiting >= MAX_WAITING:
            raise TooManyWaiting(name)
        turn = asyncio.get_running_loop().create_future()
        entry = [next(self._arrivals), name, turn, False, self.clock()]
        self._queue.append(entry)
        use.waiting += 1
        self._mark(use)
        self._dispatch()
        try:
            await turn
        except asyncio.CancelledError:
            if entry in self._queue:
                self._queue.remove(entry)
                use.waiting -= 1
                self._mark(use)
                self._dispatch()
            elif turn.done() and not turn.cancelled():
                self.release(name)  # given the turn just as it was cancelled: give it back
            raise

    def release(self, name: str, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        """End ``name``'s turn and count what it used (``usage``'s two counts; 0 when unknown)."""
        use = self.use(name)
        use.in_flight = max(0, use.in_flight - 1)
        use.prompt_tokens += prompt_tokens
        use.completion_tokens += completion_tokens
        if prompt_tokens or completion_tokens:
            use.recent.append((self.clock(), prompt_tokens + completion_tokens))
        self._mark(use)
        self._dispatch()

    def count_memory(self, name: str) -> None:
        """Count a request of ``name`` answered from the door's memory: no turn, no tokens, no busy time."""
        self.use(name).cached += 1

    def _dispatch(self) -> None:
        """Pass on waiting requests while there is room: one per student, the quietest first, and a request
        of a busy student only after ``YIELD_S`` while others are working (module docstring).

        Called whenever something changes (a request arrives, a turn ends, the budget changes), and by a
        timer when a yielding request's ``YIELD_S`` is over.
        """
        while self.in_flight() < self.capacity:
            ready, later = [], []
            now = self.clock()
            for entry in self._queue:
                name = entry[1]
                if self.use(name).in_flight or entry[2].done():
                    continue  # one at a time per student (a cancelled entry is removed by acquire)
                if now - entry[4] < YIELD_S and self.is_busy(name) and self.others_working(name):
                    if not entry[3]:
                        entry[3] = True
                        self.use(name).yielded += 1
                    later.append(entry[4] + YIELD_S - now)
                    continue
                ready.append(entry)
            if not ready:
                if later:
                    self._wake_in(min(later))
                return
            entry = min(ready, key=lambda e: (self.last_minute(e[1]), e[0]))
            self._queue.remove(entry)
            use = self.use(entry[1])
            use.waiting -= 1
            use.in_flight += 1
            use.requests += 1
            entry[2].set_result(None)

    def _wake_in(self, seconds: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(max(0.01, seconds), self._dispatch)

    def snapshot(self) -> list[dict[str, Any]]:
        """Each student's use for the teacher's page, most tokens first: name, requests, prompt_tokens,
        completion_tokens, last_minute (tokens), busy_percent (of the last minute), busy (``is_busy``),
        yielded, in_flight, waiting, cached (answered from memory; not in requests)."""
        rows = [{"name": u.name, "requests": u.requests, "prompt_tokens": u.prompt_tokens,
                 "completion_tokens": u.completion_tokens, "last_minute": self.last_minute(u.name),
                 "busy_percent": round(100 * self.busy_fraction(u.name)), "busy": self.is_busy(u.name),
                 "yielded": u.yielded, "in_flight": u.in_flight, "waiting": u.waiting, "cached": u.cached}
                for u in self.students.values()]
        return sorted(rows, key=lambda r: (-(r["prompt_tokens"] + r["completion_tokens"]), r["name"]))


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

        A key (SHA-256, 64 hex digits, of the path and the body written as canonical JSON: sorted keys, no
        spaces, UTF-8) only for a JSON object whose ``temperature`` is the number 0 (not ``false``, not
        ``"0"``) and whose ``n`` is absent or 1: any other request samples, or asks for several choices.
        """
        if not isinstance(body, dict):
            return None
        temperature, n = body.get("temperature"), body.get("n", 1)
        if type(temperature) not in (int, float) or temperature != 0 or type(n) is not int or n != 1:
            return None
        try:
            canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
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


def usage_of(data: Any) -> tuple[int, int] | None:
    """``(prompt_tokens, completion_tokens)`` of one llama-server reply or stream chunk, or None.

    From ``usage`` (a reply; a stream's last chunk with ``stream_options.include_usage``), else from
    llama-server's own ``timings`` (every stream's last chunk): ``cache_n + prompt_n`` prompt tokens,
    ``predicted_n`` generated.
    """
    if not isinstance(data, dict):
        return None
    usage = data.get("usage")
    if isinstance(usage, dict) and isinstance(usage.get("prompt_tokens"), int):
        return usage["prompt_tokens"], int(usage.get("completion_tokens") or 0)
    timings = data.get("timings")
    if isinstance(timings, dict) and isinstance(timings.get("predicted_n"), int):
        return int(timings.get("cache_n") or 0) + int(timings.get("prompt_n") or 0), timings["predicted_n"]
    return None


class StreamUsage:
    """Reads the usage out of server-sent events as they pass (``feed`` each piece; ``usage`` at the end)."""

    def __init__(self) -> None:
        self._rest = b""
        self.usage: tuple[int, int] | None = None

    def feed(self, piece: bytes) -> None:
        lines = (self._rest + piece).split(b"\n")
        self._rest = lines.pop()[-MAX_MODEL_BODY:]
        for line in lines:
            if line.startswith(b"data:") and (b'"usage"' in line or b'"timings"' in line):
                try:
                    found = usage_of(json.loads(line[5:]))
                except ValueError:
                    continue
                if found is not None:
                    self.usage = found


def _relayed_class():
    from starlette.responses import StreamingResponse

    class Relayed(StreamingResponse):
        """A ``StreamingResponse`` that calls ``ended()`` however it ends.  Starlette runs a background task
        only after a stream that was sent to the end; a student who stops the cell mid-stream (the client
        disconnects) would otherwise keep the turn until the generator is garbage-collected."""

        def __init__(self, content: Any, ended: Callable, **kwargs: Any):
            super().__init__(content, **kwargs)
            self.ended = ended

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            try:
                await super().__call__(scope, receive, send)
            finally:
                await self.ended()

    return Relayed


def token_hash(raw: str) -> str | None:
    """SHA-256 (hex) of a well-formed student token (32 hex digits), else None - what the store keeps."""
    return hashlib.sha256(raw.encode("ascii")).hexdigest() if _TOKEN.fullmatch(raw) else None


def routes(share: FairShare, model_root: str, class_key: str, student_of: Callable[[str], str | None],
           read_body: Callable, bearer: Callable, refused_body: type[Exception],
           memory: ReplyCache | None = None) -> list:
    """The door's Starlette routes (mounted by ``progress_service.make_app``).

    Args:
        share: the turns.  model_root: llama-server as this machine reaches it (``http://127.0.0.1:8766``).
        class_key: what llama-server wants (added here; never sent to a student).
        student_of: token hash -> the student's name, or None (not joined); may block (run in a thread).
        read_body: ``await read_body(request, most)`` -> bytes, raising ``refused_body`` (with ``status`` and a
            Chinese ``message``: ``progress_service.BadRequest``) for a body too big or broken off.
        bearer: the request's ``Authorization: Bearer`` value ("" when none).
        memory: the replies the door remembers (``ReplyCache``, the module docstring); None: every request goes
            to the model.
    """
    import httpx
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    # A kept-alive connection is dropped after KEEPALIVE_S, before llama-server's own 5 s (cpp-httplib's
    # CPPHTTPLIB_KEEPALIVE_TIMEOUT_SECOND) closes it under a request being sent; one that breaks anyway before
    # any answer came is tried once more (send_once).
    upstream = httpx.AsyncClient(base_url=model_root, trust_env=False,
                                 timeout=httpx.Timeout(UPSTREAM_TIMEOUT_S, connect=5.0),
                                 limits=httpx.Limits(max_connections=None, max_keepalive_connections=32,
                                                     keepalive_expiry=KEEPALIVE_S))

    async def send_once(sent: httpx.Request) -> httpx.Response:
        """``upstream.send(sent, stream=True)``, again once when the connection broke before any answer came
        (a kept-alive connection the server had just closed).  A chat request changes nothing on the server,
        so sending it a second time costs at most the work already done."""
        try:
            return await upstream.send(sent, stream=True)
        except (httpx.RemoteProtocolError, httpx.ConnectError, httpx.WriteError):
            return await upstream.send(sent, stream=True)
    _Relayed = _relayed_class()
    names: dict[str, str] = {}  # token hash -> name (a joined token keeps its name)

    def refuse(status: int, message: str, kind: str) -> JSONResponse:
        # The OpenAI error shape, so the SDK's exception carries the sentence (``e.body["error"]["message"]``).
        return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status_code=status)

    async def who(request: Request) -> str | None:
        digest = token_hash(bearer(request))
        if digest is None:
            return None
        if digest not in names:
            name = await run_in_threadpool(student_of, digest)
            if name is None:
                return None
            names[digest] = name
        return names[digest]

    def passed_headers(response: httpx.Response) -> dict[str, str]:
        return {k: v for k, v in response.headers.items()
                if k.lower() in ("content-type", "cache-control", "x-request-id")}

    def from_model(headers: dict[str, str]) -> dict[str, str]:
        return {**headers, REPLY_HEADER: "model"}

    def kept_headers(headers: dict[str, str]) -> dict[str, str]:  # what a remembered reply is answered with
        return {k: v for k, v in headers.items() if k.lower() in ("content-type", "cache-control")}

    async def body_of(request: Request) -> bytes | JSONResponse:
        try:
            return await read_body(request, MAX_MODEL_BODY)
        except refused_body as exc:
            return refuse(exc.status, exc.message, "invalid_request_error")

    class Gone(Exception):
        """The student went away (the stop button, or their client's time-out) before ``work`` finished."""

    async def while_there(request: Request, work) -> Any:
        """``await work`` while the student is still connected, and return what it returns.

        Starlette does not cancel a handler whose client left, so a request waiting for its turn (or for
        llama-server, which sends a plain reply's headers only at its end) would otherwise keep its place,
        and the student's next request would wait behind it.
        Raises:
            Gone: the student left first (``work`` is cancelled); whatever ``work`` raised.
        """
        task = asyncio.ensure_future(work)
        while True:
            done, _ = await asyncio.wait({task}, timeout=GONE_CHECK_S)
            if done:
                return task.result()
            if await request.is_disconnected():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                if task.cancelled():
                    raise Gone()
                return task.result()  # it finished just before the cancel: as if the student were still there

    async def chat(request: Request) -> Response:
        name = await who(request)
        if name is None:
            return refuse(401, t("class_gateway.not_joined"), "authentication_error")
        body = await body_of(request)
        if isinstance(body, Response):
            return body
        try:
            parsed = json.loads(body)
            streamed = parsed.get("stream") is True
        except (ValueError, AttributeError, RecursionError):
            return refuse(400, t("class_gateway.not_json"), "invalid_request_error")
        key = memory.key_of("/v1/chat/completions", parsed) if memory is not None else None
        done: Callable[[], None] | None = None  # this request leads: the identical ones wait for it
        if key is not None:
            found = memory.get(key)
            if found is None:
                pending = memory.pending(key)
                if pending is None:
                    done = memory.lead(key)
                else:  # an identical request is being answered: wait for it, without a turn
                    try:
                        await while_there(request, asyncio.shield(pending))
                    except Gone:
                        return Response(status_code=499)
                    found = memory.get(key)  # None: it ended without a kept reply; ask the model ourselves
            if found is not None:
                share.count_memory(name)
                return Response(found.content, status_code=200, headers={**found.headers, REPLY_HEADER: "memory"})
        handed = False  # True once the stream's own end calls done()
        try:
            response = await ask_model(request, name, body, streamed, key, done)
            handed = isinstance(response, _Relayed)
            return response
        finally:
            if done is not None and not handed:
                done()

    async def ask_model(request: Request, name: str, body: bytes, streamed: bool, key: str | None,
                        done: Callable[[], None] | None) -> Response:
        """Pass ``body`` on to llama-server in ``name``'s turn; keep a complete 200 reply under ``key`` (not
        None: remembered).  A streamed answer calls ``done`` (when given) as the stream ends."""
        try:
            await while_there(request, share.acquire(name))
        except Gone:
            return Response(status_code=499)  # the student stopped the cell while waiting: nothing was sent
        except TooManyWaiting:
            return refuse(429, t("class_gateway.too_many_waiting", most=MAX_WAITING), "rate_limit_error")
        released = False

        def release(usage: tuple[int, int] | None) -> None:
            nonlocal released
            if not released:
                released = True
                share.release(name, *(usage or (0, 0)))

        try:
            sent = upstream.build_request("POST", "/v1/chat/completions", content=body,
                                          headers={"Content-Type": "application/json",
                                                   "Authorization": "Bearer " + class_key})
            answer = await while_there(request, send_once(sent))
        except Gone:  # gone while llama-server worked: the connection closed, it stops (and frees the slot)
            release(None)
            return Response(status_code=499)
        except httpx.HTTPError:
            release(None)
            return refuse(502, t("class_gateway.model_unreachable"), "api_error")
        except BaseException:
            release(None)
            raise
        if not streamed or answer.status_code != 200:
            try:
                content = await while_there(request, answer.aread())
            except Gone:
                release(None)
                return Response(status_code=499)
            except httpx.HTTPError:
                release(None)
                return refuse(502, t("class_gateway.model_unreachable"), "api_error")
            finally:
                await answer.aclose()
            try:
                release(usage_of(json.loads(content)))
            except ValueError:
                release(None)
            else:
                if key is not None and answer.status_code == 200 and not streamed:
                    memory.put(key, Remembered(content, kept_headers(passed_headers(answer))))
            return Response(content, status_code=answer.status_code, headers=from_model(passed_headers(answer)))
        seen = StreamUsage()
        kept: bytearray | None = bytearray() if key is not None else None

        def finish() -> None:
            if done is not None:
                done()

        async def relay():
            nonlocal kept
            broken = False  # the server broke off mid-stream
            try:
                async for piece in answer.aiter_raw():
                    seen.feed(piece)
                    if kept is not None:
                        kept += piece
                        if len(kept) > memory.max_bytes:
                            kept = None  # too big to remember
                    yield piece
            except httpx.HTTPError:
                broken = True
                return  # the server broke off: the student's client sees the stream end early
            finally:
                await answer.aclose()
                release(seen.usage)
                # Whole when its bytes end the stream: a client that closes at once after `data: [DONE]`
                # gets this generator closed before the loop above sees the end (Starlette stops sending
                # when the client has gone), and its reply is as whole as any.
                if not broken and kept is not None and stream_complete(bytes(kept)):
                    memory.put(key, Remembered(bytes(kept), kept_headers(passed_headers(answer))))
                finish()

        stream = relay()

        async def ended() -> None:  # however the response ended: sent, the student gone, or never begun
            await stream.aclose()
            await answer.aclose()
            release(seen.usage)
            finish()

        return _Relayed(stream, ended, status_code=200, headers=from_model(passed_headers(answer)))

    def passthrough(method: str, path: str):
        async def handler(request: Request) -> Response:
            if await who(request) is None:
                return refuse(401, t("class_gateway.not_joined"), "authentication_error")
            body = b""
            if method == "POST":
                body = await body_of(request)
                if isinstance(body, Response):
                    return body
            try:
                answer = await upstream.request(method, path, content=body or None,
                                                headers={"Content-Type": "application/json",
                                                         "Authorization": "Bearer " + class_key})
            except httpx.HTTPError:
                return refuse(502, t("class_gateway.model_unreachable"), "api_error")
            return Response(answer.content, status_code=answer.status_code, headers=passed_headers(answer))
        return handler

    return [
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/v1/models", passthrough("GET", "/v1/models"), methods=["GET"]),
        Route("/tokenize", passthrough("POST", "/tokenize"), methods=["POST"]),
        Route("/apply-template", passthrough("POST", "/apply-template"), methods=["POST"]),
    ]
