"""The model servers behind the class door: one or more OpenAI-compatible upstreams, the least busy first.

Not taught in a notebook: ``python course.py serve`` builds an ``UpstreamPool``
(``classroom.upstream_pool``): its own llama-server first (label 「本机
llama-server」, unless ``--no-local-model``), then every ``--upstream SPEC``
in the order given, and the class door (``progress_service``) sends each
student request to ``pool.pick()``.

What an upstream is (``Upstream``):

* ``root``: where it answers, without the OpenAI path prefix -
  ``http://127.0.0.1:8766`` (llama-server), ``http://gpu-box:8000`` (vLLM),
  ``http://laptop:11434`` (Ollama), ``https://api.example.com`` (a paid
  provider).  Chat requests go to ``root + "/v1/chat/completions"``
  (``Upstream.url``).  A base URL that ends in ``/v1`` (how providers write
  it) is accepted and the ``/v1`` dropped.  No user name, password, query or
  fragment: a secret in a URL would be shown wherever the URL is.
* ``key``: the upstream's API key, sent as ``Authorization: Bearer``.  It is
  in no ``repr``, ``str``, ``snapshot`` or log line (``field(repr=False)``);
  on the command line only the *name* of the environment variable or
  ``.env`` line that holds it is written (``key_env=NAME``), so it never
  appears in a process list.
* ``slots``: requests it answers at once (llama-server's ``--parallel``,
  vLLM's batch, a provider's concurrency you are allowed).
* ``kind``: ``"llama-server"`` or ``"openai-compatible"``.  Only llama-server
  has ``/tokenize``, ``/apply-template`` (notebook 07) and ``/metrics``
  (the teacher's page): ``pick(kind_needed="llama-server")`` finds one.
* ``model``: the model name put into each chat body (``chat_body``) for an
  upstream that needs its own name (vLLM's served model, a provider's);
  None passes the student's body unchanged (llama-server answers any name).

How the pool chooses (``UpstreamPool``):

* ``pick()``: of the healthy upstreams (and of the kind asked for), the one
  with the smallest ``in_flight / slots``; ties go to the one given first.
  ``started``/``finished`` count the requests in flight.
* ``failed(u)``: the door could not reach ``u`` (connection refused or reset
  before any byte of an answer): it is down, never picked, until a health
  check passes again (``check``: ``GET /health`` for llama-server, ``GET
  /v1/models`` with the key for the others, ``CHECK_TIMEOUT_S`` each;
  ``watch`` re-checks the down ones every few seconds, the healthy ones
  less often).
* ``capacity()``: the slots of the healthy upstreams, for the door's turns.
* ``snapshot()``: what the teacher's page shows: label, ``host:port``, kind,
  model name, healthy, in flight, slots, served, failures, the last check's
  problem (``"HTTP 401"``, ``"timeout"``, ``"connection"``) - no key, no path.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .texts import t

LLAMA_SERVER = "llama-server"
OPENAI_COMPATIBLE = "openai-compatible"
KINDS = (LLAMA_SERVER, OPENAI_COMPATIBLE)
API_PREFIX = "/v1"  # what every OpenAI-compatible server serves its routes under
CHECK_TIMEOUT_S = 4.0  # one health check's deadline (connect and answer)
WATCH_EVERY_S = 5.0  # how often ``watch`` re-checks the upstreams that are down
HEALTHY_EVERY = 6  # ... and every this many rounds the healthy ones too (30 s by default)
SPEC_OPTIONS = ("slots", "key_env", "model", "kind", "label")


class UpstreamError(ValueError):
    """An upstream written wrongly (``--upstream``, or an ``Upstream`` built in code); the message is Chinese."""


def normalise_root(url: str) -> str:
    """The root an upstream is reached at: ``url`` without a trailing ``/`` or ``/v1``.

    Args:
        url: ``http(s)://host[:port][/prefix][/v1][/]``.
    Returns:
        E.g. ``"https://api.example.com"`` for ``"https://api.example.com/v1/"``.
    Raises:
        UpstreamError: not http/https, no host, a bad port, or a user name, password, query or
            fragment in it (a secret in a URL would be shown wherever the URL is).
    """
    text = (url or "").strip()
    try:
        parts = urlsplit(text)
        port_ok = parts.port is None or 0 < parts.port < 65536
    except ValueError:
        raise UpstreamError(t("upstreams.bad_url", url=_shown(text))) from None
    if (parts.scheme not in ("http", "https") or not parts.hostname or not port_ok or parts.username is not None
            or parts.password is not None or parts.query or parts.fragment or "@" in parts.netloc):
        raise UpstreamError(t("upstreams.bad_url", url=_shown(text)))
    path = parts.path.rstrip("/")
    if path.endswith(API_PREFIX):
        path = path[: -len(API_PREFIX)]
    return f"{parts.scheme}://{parts.netloc}{path}"


def _shown(url: str) -> str:
    """``url`` as an error message may show it: a user name or password, a query and a fragment masked."""
    head, at, rest = url.rpartition("@")
    if at:
        scheme, sep, _ = head.partition("://")
        url = f"{scheme}{sep}***@{rest}" if sep else f"***@{rest}"
    for mark in ("?", "#"):
        if mark in url:
            url = url.split(mark, 1)[0] + mark + "***"
    return url


@dataclass(frozen=True)
class Upstream:
    """One model server the door may send a request to (see the module docstring).

    Args:
        label: what the teacher sees ("本机 llama-server", or the host).
        root: e.g. ``http://127.0.0.1:8766``; a trailing ``/v1`` is dropped (``normalise_root``).
        key: its API key ("" = none); never shown (not in ``repr``, not compared).
        slots: requests it answers at once (>= 1).
        kind: ``"llama-server"`` or ``"openai-compatible"``.
        model: the model name put into each chat body, or None (the body's own).
    Raises:
        UpstreamError: a bad root, ``slots`` < 1, an unknown kind.
    """

    label: str
    root: str
    key: str = field(default="", repr=False, compare=False)
    slots: int = 1
    kind: str = OPENAI_COMPATIBLE
    model: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", normalise_root(self.root))
        if isinstance(self.slots, bool) or not isinstance(self.slots, int) or self.slots < 1:
            raise UpstreamError(t("upstreams.bad_slots", value=self.slots))
        if self.kind not in KINDS:
            raise UpstreamError(t("upstreams.bad_kind", value=self.kind, kinds=" / ".join(KINDS)))

    @property
    def host(self) -> str:
        """``host:port`` (the scheme's port when none is written): what the teacher may see of the URL."""
        parts = urlsplit(self.root)
        host = parts.hostname or ""
        if ":" in host:  # IPv6
            host = f"[{host}]"
        return f"{host}:{parts.port or (443 if parts.scheme == 'https' else 80)}"

    def url(self, path: str) -> str:
        """The full URL of ``path`` (``"/v1/chat/completions"``, ``"/health"``) on this upstream."""
        return self.root + (path if path.startswith("/") else "/" + path)

    def headers(self) -> dict[str, str]:
        """``{"Authorization": "Bearer <key>"}``, or ``{}`` for an upstream without a key."""
        return {"Authorization": f"Bearer {self.key}"} if self.key else {}

    def chat_body(self, body: bytes) -> bytes:
        """A chat request's body as this upstream needs it: ``model`` replaced when it has one.

        Args:
            body: the student's JSON body (UTF-8).
        Returns:
            ``body`` itself when ``model`` is None or the body is not a JSON object (the upstream
            answers that as it would); else the same object with ``"model"`` set, as compact JSON.
        """
        if self.model is None:
            return body
        try:
            data = json.loads(body)
        except ValueError:
            return body
        if not isinstance(data, dict):
            return body
        data["model"] = self.model
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def parse_upstream(spec: str, env: Mapping[str, str]) -> Upstream:
    """One ``--upstream`` of ``serve``: ``URL[,slots=N][,key_env=NAME][,model=NAME][,kind=KIND][,label=TEXT]``.

    Args:
        spec: e.g. ``"http://gpu:8000,slots=16,key_env=VLLM_KEY,model=Qwen/Qwen2.5-7B-Instruct"``.
            Defaults: 1 slot, no key, the body's model, ``kind=openai-compatible``, the host's name as label.
        env: where ``key_env`` is looked up (``os.environ`` after ``settings.load_env``: ``.env`` lines too).
    Returns:
        The ``Upstream``.
    Raises:
        UpstreamError: a bad URL, an unknown or repeated option, ``slots`` not a whole number >= 1,
            an unknown kind, ``key_env`` naming a variable that is not set (the message names the
            variable, never a value).
    """
    url, *options = [part.strip() for part in (spec or "").split(",")]
    values: dict[str, str] = {}
    for position, option in enumerate(options, 1):
        name, sep, value = option.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or name not in SPEC_OPTIONS or name in values or not value:
            # only the option's name is shown: what follows "=" (or a bare item) may be a key written by mistake
            raise UpstreamError(t("upstreams.bad_option", url=_shown(url), position=position,
                                  option=f"{name}=" if sep and name else "…"))
        values[name] = value
    root = normalise_root(url)
    try:
        slots = int(values.get("slots", "1"))
    except ValueError:
        raise UpstreamError(t("upstreams.bad_slots", value=values["slots"])) from None
    key = ""
    if "key_env" in values:
        key = (env.get(values["key_env"]) or "").strip()
        if not key:
            raise UpstreamError(t("upstreams.missing_env", name=values["key_env"]))
    label = values.get("label") or urlsplit(root).hostname
    return Upstream(label=label, root=root, key=key, slots=slots, kind=values.get("kind", OPENAI_COMPATIBLE),
                    model=values.get("model"))


@dataclass
class _State:
    healthy: bool = True
    in_flight: int = 0
    served: int = 0
    failures: int = 0
    problem: str | None = None  # the last check's or failure's short reason
    down_since: float | None = None
    checked_at: float | None = None


class UpstreamPool:
    """The door's upstreams: which is healthy, how busy each is, which to send the next request to.

    Every upstream starts healthy (``serve`` has waited for its own server, and checks the others
    once before it prints the ready message); ``failed`` or a failing ``check`` marks one down.
    Used from the door's event loop (no locks: the counters change between awaits only).

    Args:
        upstreams: in the order of preference for ties (``classroom.upstream_pool``: the local server first).
        clock: seconds, for ``down_for_s`` in the snapshot (tests move it).
    Raises:
        UpstreamError: two upstreams with the same root.
    """

    def __init__(self, upstreams: Iterable[Upstream], clock: Callable[[], float] = time.monotonic):
        self.upstreams: list[Upstream] = list(upstreams)
        self.clock = clock
        roots = [u.root for u in self.upstreams]
        for root in roots:
            if roots.count(root) > 1:
                raise UpstreamError(t("upstreams.duplicate", host=Upstream(label="", root=root).host))
        self._state: dict[int, _State] = {id(u): _State() for u in self.upstreams}
        self._rounds = 0

    def __repr__(self) -> str:
        inside = ", ".join(f"{u.label} {u.host} {u.kind}" for u in self.upstreams)
        return f"UpstreamPool([{inside}])"

    __str__ = __repr__

    def _of(self, upstream: Upstream) -> _State:
        try:
            return self._state[id(upstream)]
        except KeyError:
            raise ValueError(f"not an upstream of this pool: {upstream!r}") from None

    def healthy(self, upstream: Upstream) -> bool:
        """Whether ``upstream`` may be picked now."""
        return self._of(upstream).healthy

    def in_flight(self, upstream: Upstream | None = None) -> int:
        """Requests being answered by ``upstream`` (None: by all)."""
        if upstream is None:
            return sum(s.in_flight for s in self._state.values())
        return self._of(upstream).in_flight

    def capacity(self) -> int:
        """Requests the healthy upstreams answer at once: the sum of their ``slots`` (0 when none is healthy)."""
        return sum(u.slots for u in self.upstreams if self._of(u).healthy)

    def pick(self, kind_needed: str | None = None, exclude: Iterable[Upstream] = ()) -> Upstream | None:
        """The upstream the next request goes to.

        Args:
            kind_needed: only this kind (``"llama-server"`` for ``/tokenize``, ``/apply-template``,
                ``/metrics``); None: any.
            exclude: upstreams not to pick (e.g. one that just failed this request).
        Returns:
            The healthy one with the smallest ``in_flight / slots`` (ties: the first given), or None
            when no healthy upstream fits.  A full one is still returned: the door's turns keep the
            total within ``capacity()``.
        """
        skip = {id(u) for u in exclude}
        fits = [u for u in self.upstreams
                if self._of(u).healthy and id(u) not in skip and (kind_needed is None or u.kind == kind_needed)]
        if not fits:
            return None
        return min(fits, key=lambda u: self._of(u).in_flight / u.slots)

    def started(self, upstream: Upstream) -> None:
        """A request was sent to ``upstream``."""
        self._of(upstream).in_flight += 1

    def finished(self, upstream: Upstream) -> None:
        """A request ``started`` on ``upstream`` ended (answered, failed or cut): call it once for each."""
        state = self._of(upstream)
        state.in_flight = max(0, state.in_flight - 1)
        state.served += 1

    def failed(self, upstream: Upstream, problem: str = "connection") -> None:
        """``upstream`` could not be reached (refused, or reset before any byte of an answer): it is down
        until a ``check`` passes.  ``finished`` is still called for the request."""
        self._mark(upstream, False, problem)
        self._of(upstream).failures += 1

    def _mark(self, upstream: Upstream, healthy: bool, problem: str | None) -> None:
        state = self._of(upstream)
        if state.healthy and not healthy:
            state.down_since = self.clock()
        if healthy:
            state.down_since = None
        state.healthy, state.problem = healthy, problem

    async def check_one(self, client: Any, upstream: Upstream) -> bool:
        """Ask ``upstream`` whether it answers and mark it healthy or down.

        ``GET /health`` for llama-server (200 = ready; 503 while its model loads = down), ``GET
        /v1/models`` with the key for the others (200 = the key is accepted).  At most
        ``CHECK_TIMEOUT_S`` seconds.

        Args:
            client: an ``httpx2.AsyncClient`` (the door's, so the same proxy rules apply).
        Returns:
            Whether it is healthy now.
        """
        path = "/health" if upstream.kind == LLAMA_SERVER else API_PREFIX + "/models"
        problem: str | None = None
        try:
            answer = await asyncio.wait_for(
                client.get(upstream.url(path), headers=upstream.headers(), timeout=CHECK_TIMEOUT_S),
                CHECK_TIMEOUT_S + 1.0)
            if answer.status_code != 200:
                problem = f"HTTP {answer.status_code}"
        except (asyncio.TimeoutError, TimeoutError):
            problem = "timeout"
        except Exception as exc:  # noqa: BLE001 - httpx2's errors, a refused or reset connection, a bad TLS
            problem = "timeout" if "Timeout" in type(exc).__name__ else "connection"
        self._mark(upstream, problem is None, problem)
        self._of(upstream).checked_at = self.clock()
        return problem is None

    async def check(self, client: Any, only_down: bool = False) -> list[bool]:
        """Check every upstream at once (``check_one``); ``only_down``: only those that are down.

        Returns:
            Whether each upstream (all of them, in order) is healthy afterwards.
        """
        chosen = [u for u in self.upstreams if not (only_down and self._of(u).healthy)]
        await asyncio.gather(*(self.check_one(client, u) for u in chosen))
        return [self._of(u).healthy for u in self.upstreams]

    async def watch(self, client: Any, every_s: float = WATCH_EVERY_S) -> None:
        """Run until cancelled: every ``every_s`` seconds check the upstreams that are down, and every
        ``HEALTHY_EVERY``-th time all of them (a healthy one that stopped answering is found even
        while no request fails on it)."""
        while True:
            self._rounds += 1
            await self.check(client, only_down=self._rounds % HEALTHY_EVERY != 0)
            await asyncio.sleep(every_s)

    def snapshot(self) -> list[dict[str, Any]]:
        """One dict per upstream, in order, for the teacher's page (no key, no URL path).

        Keys: ``label``, ``host`` (``host:port``), ``kind``, ``model`` (None: the body's),
        ``healthy``, ``in_flight``, ``slots``, ``served``, ``failures``, ``problem`` (None, or
        ``"HTTP <code>"`` / ``"timeout"`` / ``"connection"``), ``down_for_s`` (None while healthy).
        """
        now = self.clock()
        rows = []
        for u in self.upstreams:
            state = self._of(u)
            rows.append({"label": u.label, "host": u.host, "kind": u.kind, "model": u.model,
                         "healthy": state.healthy, "in_flight": state.in_flight, "slots": u.slots,
                         "served": state.served, "failures": state.failures, "problem": state.problem,
                         "down_for_s": None if state.down_since is None else round(now - state.down_since, 1)})
        return rows


def make_client(upstreams: Iterable[Upstream], timeout: Any = CHECK_TIMEOUT_S, limits: Any = None) -> Any:
    """An ``httpx2.AsyncClient`` for these upstreams: a LAN or loopback one is reached directly, any
    other through the environment's proxy when one is set (``HTTPS_PROXY``...; a paid provider behind
    a school's proxy), as the course's own clients do (``http_client.is_local_network``).

    Args:
        upstreams: the pool's upstreams.  timeout: the client's default deadline (seconds, or an
            ``httpx2.Timeout``).  limits: an ``httpx2.Limits`` for every connection (None: httpx2's own).
    Returns:
        The client (use it in ``async with``).
    """
    import httpx2

    from .http_client import is_local_network

    kept = {} if limits is None else {"limits": limits}
    direct = {f"all://{urlsplit(u.root).netloc}": httpx2.AsyncHTTPTransport(**kept)
              for u in upstreams if is_local_network(u.root)}
    return httpx2.AsyncClient(trust_env=True, mounts=direct, timeout=timeout, **kept)
