"""Fair turns at the class model: who the class door lets through next (``FairShare``).

Used by the class door (``class_door``); runs in uvicorn's event loop.

The turns (``FairShare``):

* **One request in flight per student.**  A student's second request waits
  until their first has its answer (a looping cell holds one turn, never the
  four slots).  At most ``MAX_WAITING`` requests of one student wait at
  once; one more is answered 429.
* **At most ``PER_ADDRESS`` requests per computer.**  The names that ask from
  one address (``acquire``'s ``address``; the door passes "" for the
  teacher's own computer) have at most ``PER_ADDRESS`` requests answered at
  once: names cost little to make, a computer does not.
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

The numbers: ``bench/fairness.py`` (``python -m bench.fairness``) runs 8 and 16
simulated students, one of whom loops, straight to llama-server and through
this door; ``bench/results/fairness.md`` has the table.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

MAX_WAITING = 8  # requests of one student waiting at once (a notebook sends one at a time)
WINDOW_S = 60.0  # "the last minute" of every count
DEFAULT_BUDGET = 0  # tokens per student per minute; 0 = no budget (the busy rule alone)
BUSY_FRACTION = 0.5  # waiting or answered more than half of the last minute ...
BUSY_TIMES_MEDIAN = 2  # ... and more than twice as long as the other students' median
YIELD_S = 10.0  # how long each request of a busy student waits while others are working
FIRST_LOOK_S = 20.0  # a newcomer's busy part is taken over at least this long
PER_ADDRESS = 2  # requests answered at once for the names of one computer (two students may share a laptop)


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
    address: str = ""  # the computer its request being answered came from ("" when none or not told)
    waiting: int = 0
    yielded: int = 0  # requests that waited YIELD_S (busy while others were working)
    cached: int = 0  # requests answered from the door's memory (ReplyCache): no model time, no tokens
    refused: int = 0  # requests the door refused (a field the lessons do not send, a body too big...)
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

    def set_capacity(self, capacity: int) -> None:
        """Requests passed on at once from now (the healthy model servers' slots); waiting ones start if room came."""
        capacity = max(1, int(capacity))
        if capacity != self.capacity:
            self.capacity = capacity
            try:
                self._dispatch()
            except RuntimeError:  # no running event loop (a caller outside the door): the next request dispatches
                pass

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

    async def acquire(self, name: str, address: str = "") -> None:
        """Wait for ``name``'s turn (see the module docstring), asked from ``address`` (the client's IP address:
        the names of one computer have at most ``PER_ADDRESS`` requests answered at once; "" = not counted).

        Raises:
            TooManyWaiting: ``name`` already has ``MAX_WAITING`` requests waiting.
            asyncio.CancelledError: the request was cancelled while waiting (nothing is held then).
        """
        use = self.use(name)
        if use.waiting >= MAX_WAITING:
            raise TooManyWaiting(name)
        turn = asyncio.get_running_loop().create_future()
        entry = [next(self._arrivals), name, turn, False, self.clock(), address]
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
        if not use.in_flight:
            use.address = ""
        use.prompt_tokens += prompt_tokens
        use.completion_tokens += completion_tokens
        if prompt_tokens or completion_tokens:
            use.recent.append((self.clock(), prompt_tokens + completion_tokens))
        self._mark(use)
        self._dispatch()

    def give_back(self, name: str) -> None:
        """End ``name``'s turn unused (the reply came from the door's memory after all): not a request to the model."""
        use = self.use(name)
        use.requests = max(0, use.requests - 1)
        self.release(name)

    def count_refused(self, name: str) -> None:
        """Count a request of ``name`` the door refused before it reached the model (no turn, no tokens)."""
        use = self.use(name)
        use.refused += 1
        use.last_at = self.clock()

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
            from_address: dict[str, int] = {}
            for use in self.students.values():
                if use.in_flight and use.address:
                    from_address[use.address] = from_address.get(use.address, 0) + use.in_flight
            for entry in self._queue:
                name = entry[1]
                if self.use(name).in_flight or entry[2].done():
                    continue  # one at a time per student (a cancelled entry is removed by acquire)
                if entry[5] and from_address.get(entry[5], 0) >= PER_ADDRESS:
                    continue  # one computer's names already have PER_ADDRESS requests answered

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
            use.address = entry[5]
            use.requests += 1
            entry[2].set_result(None)

    def _wake_in(self, seconds: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(max(0.01, seconds), self._dispatch)

    def snapshot(self) -> list[dict[str, Any]]:
        """Each student's use for the teacher's page, most tokens first: name, requests, prompt_tokens,
        completion_tokens, last_minute (tokens), busy_percent (of the last minute), busy (``is_busy``),
        yielded, in_flight, waiting, cached (answered from memory; not in requests), refused (by the door)."""
        rows = [{"name": u.name, "requests": u.requests, "prompt_tokens": u.prompt_tokens,
                 "completion_tokens": u.completion_tokens, "last_minute": self.last_minute(u.name),
                 "busy_percent": round(100 * self.busy_fraction(u.name)), "busy": self.is_busy(u.name),
                 "yielded": u.yielded, "in_flight": u.in_flight, "waiting": u.waiting, "cached": u.cached,
                 "refused": u.refused}
                for u in self.students.values()]
        return sorted(rows, key=lambda r: (-(r["prompt_tokens"] + r["completion_tokens"]), r["name"]))
