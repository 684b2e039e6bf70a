"""The class door: each student reaches the class model with their own token, in fair turns, within bounds.

Not taught in a notebook: ``python course.py serve`` runs it inside the
teacher's progress service (``progress_service.make_app``, port 8767), and the
students' notebooks talk to it through the ``classroom`` provider, whose
``COURSE_BASE_URL`` (``http://<teacher>:8767/v1``, written by ``python course.py
join``) points here.  Behind it are the model servers (``upstreams``): by
default the class model server, the teacher's llama-server on 127.0.0.1:8766
(``classroom``); with ``serve --upstream`` also, or instead, other
OpenAI-compatible servers (another llama-server, vLLM or Ollama on a GPU box, a
paid provider).  Their keys stay on the teacher's computer: the door adds them.

Names: the *class model server* is llama-server on 8766; the *class door* is
this, on 8767, beside the progress page.

Who may pass: a student whose token has joined the class (``Authorization:
Bearer <student token>``, the token ``class_code.student_token`` keeps per OS
user, tied to the student's name by ``/api/join``).  Anything else gets 401
with a Chinese sentence that says to run ``python course.py join``.

What passes (``door_rules``): only the fields the lessons send, each within
its bounds (``n`` 1, ``max_tokens`` at most ``MAX_TOKENS``, small
``top_logprobs``, bounded schemas and tools); any other field - llama-server's
own ``grammar``, ``n_probs``, ``id_slot``, ``cache_prompt``... - is refused with
a Chinese sentence that names it.  A request that passes is sent on byte for
byte (the lessons' requests, and so their replies and the prompt cache, are
unchanged), except the ``model`` name for an upstream that needs its own.
Replies lose what measures another student's prompt (``timings``, cached
token counts: ``door_rules.clean_reply``); what is left of that channel is
the time a reply takes (a prompt whose start a classmate sent a moment ago is
read faster), said in docs/classroom.md.

* ``POST /v1/chat/completions`` - in turns (``fair_share.FairShare``), streamed or not;
* ``POST /tokenize``, ``POST /apply-template`` (notebook 07), ``GET /v1/models`` -
  in turns too (so a flood of them waits like any other request), only to a
  llama-server upstream for the first two.

Every wait has a deadline:

* a turn: ``TURN_WAIT_S`` (then 503, in Chinese); a student who left stops waiting at once;
* an identical request being answered (the memory's single flight, ``reply_memory``): a request
  leads only once it holds a turn, and the others follow it at most ``FOLLOW_S`` before asking the
  model themselves;
* a slow reader: a stream is read from the model server into a buffer of at most
  ``STREAM_BUFFER_BYTES``; the turn ends when the model has finished, whether or not the student
  has read it all; a student who takes none of it for ``SLOW_READER_S`` is cut off;
* the model server: ``UPSTREAM_TIMEOUT_S`` for a whole reply, a connection in 5 s.

Usage is counted as it passes (``door_rules.ReplyStream``): the prompt is billed from an estimate
when the request is sent and from the server's own ``usage`` when it comes, the completion chunk by
chunk, so a stream cut before its last chunk still counts.  A refused request counts as a refusal
on the teacher's page (``StudentUse.refused``).

Several model servers (``upstreams.UpstreamPool``): a request goes to the least busy healthy one; a
server that does not answer the connection is marked down and the request goes to the next one
(nothing had started there, so nothing is lost or sent twice); a server down comes back when its
health check passes.  The turns' capacity is the healthy servers' slots together.

The numbers: ``bench/fairness.py`` (``python -m bench.fairness``) runs 8 and 16
simulated students, one of whom loops, straight to llama-server and through
this door; ``bench/results/fairness.md`` has the table.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from typing import Any, Callable

from . import door_rules
from .door_witness import DoorWitness
from .fair_share import DEFAULT_BUDGET, FairShare, TooManyWaiting, MAX_WAITING
from .progress_store import token_hash
from .reply_memory import Remembered, ReplyCache, stream_complete
from .teacher_guard import is_loopback
from .texts import t
from .web_requests import BadRequest, RateLimit, address, bearer, parse_json, read_body

MAX_MODEL_BODY = 256 * 1024  # bytes of one request (a full 8,192-token context is about 40 KB of text, 50 KB escaped)
MAX_BODY_DEPTH = 32  # nesting of a request's JSON (a tool's schema in a message list is about 10 deep)
MAX_TOKENS = 8192  # max_tokens / max_completion_tokens at most: the class model server's context per slot
MAX_REPLY_BYTES = 8 * 1024 * 1024  # a plain reply read from a model server (an agent's reply is a few KB)
GONE_CHECK_S = 0.5  # how often a waiting request looks whether its student is still connected
TURN_WAIT_S = 300.0  # a request waits at most this long for its turn (then 503)
FOLLOW_S = 30.0  # a request waits at most this long for an identical one being answered
STREAM_BUFFER_BYTES = 4 * 1024 * 1024  # a stream's bytes read ahead of a slow student (a whole reply is < 2 MB)
SLOW_READER_S = 30.0  # a stream whose student kept the model waiting this long in all is cut off
KEEPALIVE_S = 2.0  # how long an idle connection to llama-server is kept for the next request
UPSTREAM_TIMEOUT_S = 600.0  # as the student's own client waits (http_client.CLASSROOM_TIMEOUT_S)
REFUSALS_PER_MINUTE = 30  # refused requests of one student a minute; more are answered 429 before being read
REPLY_HEADER = "X-Course-Reply"  # "memory" or "model" on every chat reply that passed the door


class Gone(Exception):
    """The student went away (the stop button, or their client's time-out) before the work finished."""


async def while_there(request: Any, work: Any, deadline_s: float | None = None) -> Any:
    """``await work`` while the student is still connected (and at most ``deadline_s``), and return what it returns.

    Starlette does not cancel a handler whose client left, so a request waiting for its turn (or for
    llama-server, which sends a plain reply's headers only at its end) would otherwise keep its place.
    Raises:
        Gone: the student left first (``work`` is cancelled).  asyncio.TimeoutError: ``deadline_s`` passed
        first (``work`` is cancelled).  Whatever ``work`` raised.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    ends = None if deadline_s is None else loop.time() + deadline_s
    while True:
        timeout = GONE_CHECK_S if ends is None else max(0.0, min(GONE_CHECK_S, ends - loop.time()))
        done, _ = await asyncio.wait({task}, timeout=timeout)
        if done:
            return task.result()
        over = ends is not None and loop.time() >= ends
        if over or await request.is_disconnected():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            if not task.cancelled():
                return task.result()  # it finished just before the cancel: as if nothing happened
            raise asyncio.TimeoutError() if over else Gone()


def refuse(status: int, message: str, kind: str):
    """The OpenAI error shape, so the SDK's exception carries the sentence (``e.body["error"]["message"]``)."""
    from starlette.responses import JSONResponse

    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status_code=status)


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


class Turn:
    """One request's turn at the model: ``end(usage)`` once (more is harmless) gives it back and bills it."""

    def __init__(self, share: FairShare, name: str):
        self.share, self.name, self.ended = share, name, False

    def end(self, usage: tuple[int, int] | None = None) -> None:
        if not self.ended:
            self.ended = True
            self.share.release(self.name, *(usage or (0, 0)))

    def give_back(self) -> None:
        """End it unused: nothing was sent to the model (``FairShare.give_back``)."""
        if not self.ended:
            self.ended = True
            self.share.give_back(self.name)


class ClassDoor:
    """The door (the module docstring): its routes, its turns, its memory, its model servers.

    Args:
        pool: the model servers (``upstreams.UpstreamPool``).
        student_of: token hash -> the student's name, or None (not joined); may block (run in a thread).
        budget: tokens per student per minute (0 = none; ``fair_share``).
        reply_memory: remember temperature-0 replies (``reply_memory.ReplyCache``).
    Attributes ``share`` (``FairShare``), ``memory`` (``ReplyCache`` or None), ``pool``, ``witness``
    (``door_witness.DoorWitness``: the texts and tool names of each student's requests).
    """

    def __init__(self, pool: Any, student_of: Callable[[str], str | None], *, budget: int = DEFAULT_BUDGET,
                 reply_memory: bool = True):
        self.pool = pool
        self.share = FairShare(max(1, pool.capacity()), budget)
        self.memory = ReplyCache() if reply_memory else None
        self.witness = DoorWitness()  # what each student's requests carried (the capstone exam checks it)
        self.student_of = student_of
        self._names: dict[str, str] = {}  # token hash -> name (a joined token keeps its name)
        self._names_generation = 0  # forget_names() moves it: a lookup begun before is not kept
        self._refusals = RateLimit(REFUSALS_PER_MINUTE, clock=time.monotonic)  # refused requests, per name
        self._reading: dict[str, int] = {}  # name -> their requests being read and screened now
        self._http: Any = None
        self._watch: asyncio.Task | None = None
        self._Relayed = _relayed_class()

    # ------------------------------------------------------------------ the parts every handler shares

    def routes(self) -> list:
        from starlette.routing import Route

        return [
            Route("/v1/chat/completions", self.chat, methods=["POST"]),
            Route("/v1/models", self.models, methods=["GET"]),
            Route("/tokenize", self.tokenize, methods=["POST"]),
            Route("/apply-template", self.apply_template, methods=["POST"]),
        ]

    def seen(self, name: str) -> int:
        """The requests of ``name`` the door has passed since it started: those a model answered and those
        answered from memory (``exam_desk`` compares a capstone submission's claimed requests with it)."""
        use = self.share.students.get(name)
        return 0 if use is None else use.requests + use.cached

    def snapshot(self) -> dict[str, Any]:
        """The door's counts for the page and ``/api/class``: ``{"budget", "slots", "reply_memory" (on or off),
        "students": [...] (``FairShare.snapshot``), "upstreams": [...] (``UpstreamPool.snapshot``)}``."""
        return {"budget": self.share.budget, "slots": self.share.capacity, "reply_memory": self.memory is not None,
                "students": self.share.snapshot(), "upstreams": self.pool.snapshot()}

    def metrics_source(self) -> tuple[str | None, str | None]:
        """``(root, key)`` of the first llama-server behind the door (its ``/metrics`` on the page), or (None, None)."""
        for upstream in self.pool.upstreams:
            if upstream.kind == "llama-server":
                return upstream.root, upstream.key
        return None, None

    def _client(self) -> Any:
        """The door's one HTTP client (made in the running event loop), and the health watch of the pool."""
        if self._http is None:
            import httpx2

            from .upstreams import make_client

            # A kept-alive connection is dropped after KEEPALIVE_S, before llama-server's own 5 s
            # (cpp-httplib's CPPHTTPLIB_KEEPALIVE_TIMEOUT_SECOND) closes it under a request being sent.
            self._http = make_client(self.pool.upstreams, timeout=httpx2.Timeout(UPSTREAM_TIMEOUT_S, connect=5.0),
                                     limits=httpx2.Limits(max_connections=None, max_keepalive_connections=32,
                                                         keepalive_expiry=KEEPALIVE_S))
            self._watch = asyncio.ensure_future(self._watch_pool())
        return self._http

    def forget_names(self) -> None:
        """Look every token up again (``teacher_actions``: a name released, renamed or merged)."""
        self._names_generation += 1
        self._names.clear()

    async def _watch_pool(self) -> None:
        """The pool's health checks, and the turns' capacity kept to the healthy servers' slots (so requests
        waiting for a turn start as soon as a server comes back, not at the next request)."""
        watch = asyncio.ensure_future(self.pool.watch(self._http))
        try:
            while not watch.done():
                self.share.set_capacity(max(1, self.pool.capacity()))
                await asyncio.sleep(1.0)
        finally:
            watch.cancel()

    async def who(self, request: Any) -> str | None:
        from starlette.concurrency import run_in_threadpool

        digest = token_hash(bearer(request))
        if digest is None:
            return None
        if digest not in self._names:
            generation = self._names_generation
            name = await run_in_threadpool(self.student_of, digest)
            if name is None:
                return None
            if generation != self._names_generation:
                return name  # a teacher's action came meanwhile: answer this once, keep nothing
            self._names[digest] = name
        return self._names[digest]

    async def _screened(self, request: Any, path: str) -> tuple[str, bytes, Any] | Any:
        """``(name, body, parsed)`` of a request that may pass, or the response that refuses it.

        Before a byte of the body is read: at most ``MAX_WAITING`` requests of one student being read at
        once, and a student refused ``REFUSALS_PER_MINUTE`` times in the last minute is answered 429 at
        once (reading, parsing and screening a refused body is the door's work, not the model's).
        """
        name = await self.who(request)
        if name is None:
            return refuse(401, t("class_door.not_joined"), "authentication_error")
        if self._refusals.full(name) or self._reading.get(name, 0) >= MAX_WAITING:
            return refuse(429, t("class_door.too_many_refused", most=REFUSALS_PER_MINUTE), "rate_limit_error")
        self._reading[name] = self._reading.get(name, 0) + 1
        try:
            body = await read_body(request, MAX_MODEL_BODY)
            parsed = await parse_json(body, MAX_BODY_DEPTH)
            reason = door_rules.screen_request(path, parsed, max_tokens=MAX_TOKENS)
            if reason is not None:
                raise BadRequest(400, reason)
        except BadRequest as exc:
            self.share.count_refused(name)
            self._refusals.take(name)
            message = t("class_door.not_json") if exc.message == t("progress_service.not_json") else exc.message
            return refuse(exc.status, message, "invalid_request_error")
        finally:
            self._reading[name] -= 1
        return name, body, parsed

    async def _take_turn(self, request: Any, name: str) -> Turn | Any:
        """``name``'s turn (a ``Turn``), or the response that ends the request (gone, too many waiting, too long)."""
        from starlette.responses import Response

        self.share.set_capacity(max(1, self.pool.capacity()))
        try:
            here = address(request)  # one computer's names share PER_ADDRESS turns; the teacher's own computer does not
            await while_there(request, self.share.acquire(name, "" if is_loopback(here) else here), TURN_WAIT_S)
        except Gone:
            return Response(status_code=499)  # the student stopped the cell while waiting: nothing was sent
        except TooManyWaiting:
            return refuse(429, t("class_door.too_many_waiting", most=MAX_WAITING), "rate_limit_error")
        except asyncio.TimeoutError:
            return refuse(503, t("class_door.turn_too_long", seconds=int(TURN_WAIT_S)), "api_error")
        return Turn(self.share, name)

    async def _send(self, request: Any, path: str, body: bytes, parsed: Any, method: str = "POST",
                    kind: str | None = None) -> tuple[Any, Any] | Any:
        """Send to the least busy healthy model server, the next one when a server does not take the connection.

        Returns ``(upstream, response)`` (a streamed ``httpx2.Response``; the caller reads and closes it, and calls
        ``pool.finished(upstream)``), or the refusal (no server, or gone: ``Gone`` is raised).
        """
        import httpx2

        http = self._client()
        tried: list = []
        while True:
            upstream = self.pool.pick(kind_needed=kind, exclude=tried)
            if upstream is None:
                if kind is not None and not any(u.kind == kind for u in self.pool.upstreams):
                    return refuse(501, t("class_door.no_tokenizer"), "api_error")
                return refuse(502, t("class_door.model_unreachable"), "api_error")
            content = body
            if path == "/v1/chat/completions":
                content = upstream.chat_body(body)
                if upstream.kind != "llama-server" and isinstance(parsed, dict) \
                        and parsed.get("max_tokens") is None and parsed.get("max_completion_tokens") is None:
                    # llama-server stops at a slot's context; a provider's own default may be far longer
                    content = json.dumps({**json.loads(content), "max_tokens": MAX_TOKENS},
                                         ensure_ascii=False).encode("utf-8")
            headers = {"Content-Type": "application/json", **upstream.headers()}
            url = upstream.url(path)
            for attempt in (1, 2):
                sent = http.build_request(method, url, content=content if method == "POST" else None, headers=headers)
                self.pool.started(upstream)
                try:
                    return upstream, await while_there(request, http.send(sent, stream=True))
                except httpx2.RemoteProtocolError:  # closed before any answer: a kept-alive connection it had
                    self.pool.finished(upstream)   # just closed (once more), or the server went (the next one)
                    if attempt == 1:
                        continue
                except (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.WriteError):
                    self.pool.finished(upstream)
                except BaseException:
                    self.pool.finished(upstream)
                    raise
                break
            self.pool.failed(upstream)  # not picked again until its health check passes
            tried.append(upstream)

    # ------------------------------------------------------------------ the routes

    async def chat(self, request: Any) -> Any:
        """``POST /v1/chat/completions``: screened, remembered, in turns, to a model server, cleaned, counted."""
        from starlette.responses import Response

        screened = await self._screened(request, "/v1/chat/completions")
        if not isinstance(screened, tuple):
            return screened
        name, body, parsed = screened
        self.witness.note(name, parsed)
        memory = self.memory
        key = memory.key_of("/v1/chat/completions", parsed) if memory is not None else None
        turn: Turn | None = None
        done: Callable[[], None] | None = None
        followed = False  # waited for a leader once already: never twice
        for look in (1, 2):
            if key is not None:
                found = memory.get(key)
                pending = memory.pending(key) if found is None else None
                if pending is not None and turn is None:  # an identical request is being answered: follow it a while
                    followed = True
                    try:
                        await while_there(request, asyncio.shield(pending), FOLLOW_S)
                    except Gone:
                        return Response(status_code=499)
                    except asyncio.TimeoutError:
                        pass  # it takes too long: ask the model ourselves
                    found = memory.get(key)
                if found is not None:
                    if turn is not None:
                        turn.give_back()
                    self.share.count_memory(name)
                    return Response(found.content, status_code=200, headers={**found.headers, REPLY_HEADER: "memory"})
            if turn is None:
                taken = await self._take_turn(request, name)
                if not isinstance(taken, Turn):
                    return taken
                turn = taken
            if key is None:
                break
            if memory.get(key) is not None:
                continue  # answered while this request waited for its turn: the loop's top answers from memory
            if memory.pending(key) is None:
                done = memory.lead(key)  # a leader holds a turn: its followers never wait on a request that waits
                break
            if look == 1 and not followed and memory.get(key) is None:
                turn.give_back()  # another request began leading while we waited for the turn: follow it instead
                turn = None
        if key is not None and done is None and (found := memory.get(key)) is not None:
            if turn is not None:
                turn.give_back()  # answered while this request waited for its second turn
            self.share.count_memory(name)
            return Response(found.content, status_code=200, headers={**found.headers, REPLY_HEADER: "memory"})
        if turn is None:  # followed twice without a reply: into the turns once more, without leading
            taken = await self._take_turn(request, name)
            if not isinstance(taken, Turn):
                return taken
            turn = taken
        handed = False
        try:
            response = await self._answer(request, turn, body, parsed, key, done)
            handed = isinstance(response, self._Relayed)
            return response
        finally:
            if not handed:
                turn.end()  # harmless when already ended with its usage
                if done is not None:
                    done()

    async def _answer(self, request: Any, turn: Turn, body: bytes, parsed: Any, key: str | None,
                      done: Callable[[], None] | None) -> Any:
        """The model server's reply to ``body`` in ``turn``: read whole (a plain reply) or relayed (a stream)."""
        import httpx2
        from starlette.responses import Response

        estimate = door_rules.estimate_prompt_tokens(parsed)
        try:
            sent = await self._send(request, "/v1/chat/completions", body, parsed)
        except Gone:
            turn.end((estimate, 0))
            return Response(status_code=499)
        except httpx2.HTTPError:  # a plain reply longer than UPSTREAM_TIMEOUT_S, a server gone mid-way
            turn.end((estimate, 0))
            return refuse(502, t("class_door.model_unreachable"), "api_error")
        if not isinstance(sent, tuple):
            return sent
        upstream, answer = sent
        streamed = isinstance(parsed, dict) and parsed.get("stream") is True
        if not streamed or answer.status_code != 200:
            try:
                content = await while_there(request, _read_bounded(answer, MAX_REPLY_BYTES))
            except Gone:
                turn.end((estimate, 0))
                return Response(status_code=499)
            except (httpx2.HTTPError, door_rules.ReplyTooBig):
                turn.end((estimate, 0))
                return refuse(502, t("class_door.model_unreachable"), "api_error")
            finally:
                await answer.aclose()
                self.pool.finished(upstream)
            try:
                usage = door_rules.usage_of(json.loads(content))
            except ValueError:
                usage = None
            turn.end(usage or (estimate, 0))
            content = door_rules.clean_reply_bytes(content)
            headers = _passed_headers(answer)
            if key is not None and answer.status_code == 200 and not streamed:
                self.memory.put(key, Remembered(content, _kept_headers(headers)))
            return Response(content, status_code=answer.status_code, headers={**headers, REPLY_HEADER: "model"})
        return self._relay(turn, upstream, answer, estimate, key, done)

    def _relay(self, turn: Turn, upstream: Any, answer: Any, estimate: int, key: str | None,
               done: Callable[[], None] | None) -> Any:
        """A stream passed on through a bounded buffer: the turn ends when the model has finished."""
        import httpx2

        reader = door_rules.ReplyStream(estimate)
        buffer: deque[bytes] = deque()
        state = {"buffered": 0, "finished": False}
        more, room = asyncio.Event(), asyncio.Event()
        kept: bytearray | None = bytearray() if key is not None else None
        headers = _passed_headers(answer)

        def put(piece: bytes) -> None:
            nonlocal kept
            if not piece:
                return
            buffer.append(piece)
            state["buffered"] += len(piece)
            more.set()
            if kept is not None:
                kept += piece
                if len(kept) > self.memory.max_bytes:
                    kept = None  # too big to remember

        async def pump() -> None:
            whole = False
            loop = asyncio.get_running_loop()
            slow = 0.0  # seconds the model waited for this student to read, all waits together
            try:
                async for piece in answer.aiter_raw():
                    put(reader.feed(piece))
                    while state["buffered"] > STREAM_BUFFER_BYTES:  # the student reads slower than the model
                        room.clear()
                        began = loop.time()
                        try:
                            await asyncio.wait_for(room.wait(), max(0.0, SLOW_READER_S - slow))
                        finally:
                            slow += loop.time() - began
                put(reader.flush())
                whole = True
            except (httpx2.HTTPError, door_rules.ReplyTooBig, asyncio.TimeoutError):
                pass  # the server broke off, or the student stopped reading: the stream ends early
            finally:
                turn.end(reader.counted())  # first: nothing below may keep the turn, the slot or the followers
                self.pool.finished(upstream)
                state["finished"] = True
                more.set()
                if whole and kept is not None and stream_complete(bytes(kept)):
                    self.memory.put(key, Remembered(bytes(kept), _kept_headers(headers)))
                if done is not None:
                    done()
                try:
                    await answer.aclose()
                except Exception:  # noqa: BLE001 - the connection is going anyway
                    pass

        task = asyncio.ensure_future(pump())

        async def relay():
            while True:
                while buffer:
                    piece = buffer.popleft()
                    state["buffered"] -= len(piece)
                    room.set()
                    yield piece
                if state["finished"]:
                    return
                more.clear()
                await more.wait()

        stream = relay()

        async def ended() -> None:  # however the response ended: sent, the student gone, or never begun
            await stream.aclose()
            if not task.done():
                task.cancel()  # the student left: the connection to the model server closes, it stops
            await asyncio.gather(task, return_exceptions=True)

        return self._Relayed(stream, ended, status_code=200, headers={**headers, REPLY_HEADER: "model"})

    async def _plain(self, request: Any, path: str, method: str = "GET", kind: str | None = None) -> Any:
        """A request with no generation (``/tokenize``, ``/apply-template``, ``/v1/models``), in a turn."""
        import httpx2
        from starlette.responses import Response

        if method == "POST":
            screened = await self._screened(request, path)
            if not isinstance(screened, tuple):
                return screened
            name, body, parsed = screened
        else:
            name, body, parsed = await self.who(request), b"", None
            if name is None:
                return refuse(401, t("class_door.not_joined"), "authentication_error")
        turn = await self._take_turn(request, name)
        if not isinstance(turn, Turn):
            return turn
        try:
            sent = await self._send(request, path, body, parsed, method, kind)
            if not isinstance(sent, tuple):
                return sent
            upstream, answer = sent
            try:
                content = await while_there(request, _read_bounded(answer, MAX_REPLY_BYTES))
            finally:
                await answer.aclose()
                self.pool.finished(upstream)
        except Gone:
            return Response(status_code=499)
        except (httpx2.HTTPError, door_rules.ReplyTooBig):
            return refuse(502, t("class_door.model_unreachable"), "api_error")
        finally:
            turn.end()
        return Response(content, status_code=answer.status_code, headers=_passed_headers(answer))

    async def models(self, request: Any) -> Any:
        """``GET /v1/models``: the first model server's list."""
        return await self._plain(request, "/v1/models")

    async def tokenize(self, request: Any) -> Any:
        """``POST /tokenize`` (notebook 07): llama-server's tokenizer."""
        return await self._plain(request, "/tokenize", "POST", "llama-server")

    async def apply_template(self, request: Any) -> Any:
        """``POST /apply-template`` (notebook 07): llama-server's chat template applied."""
        return await self._plain(request, "/apply-template", "POST", "llama-server")


async def _read_bounded(answer: Any, most: int) -> bytes:
    """A streamed ``httpx2.Response``'s body, at most ``most`` bytes (``door_rules.ReplyTooBig`` past that)."""
    data = bytearray()
    async for piece in answer.aiter_raw():
        data += piece
        if len(data) > most:
            raise door_rules.ReplyTooBig(most)
    return bytes(data)


def _passed_headers(response: Any) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k.lower() in ("content-type", "cache-control", "x-request-id")}


def _kept_headers(headers: dict[str, str]) -> dict[str, str]:  # what a remembered reply is answered with
    return {k: v for k, v in headers.items() if k.lower() in ("content-type", "cache-control")}
