"""Which model the course talks to: provider presets, ``.env`` and the client.

Taught in notebooks 00 (presets, .env, ping) and 01 (get_client).

All presets live in ``PRESETS`` below; a retired model id is changed in one
line there.  A ``.env`` file at the project root (read with python-dotenv)
picks one; ``.env.example`` lists every setting.

``.env`` settings
-----------------
``COURSE_PROVIDER``   one of ``local`` (default), ``classroom``, ``deepseek``,
                      ``dashscope``, ``openai``, ``ollama``, ``custom``.
``COURSE_MODEL``      override the preset's model id.
``COURSE_BASE_URL``   override the preset's base URL (required for ``custom``).
``DEEPSEEK_API_KEY`` / ``DASHSCOPE_API_KEY`` / ``OPENAI_API_KEY`` /
``COURSE_CLASS_KEY`` / ``COURSE_API_KEY``
                      the key of the chosen provider (``COURSE_CLASS_KEY`` for
                      ``classroom``, ``COURSE_API_KEY`` for ``custom``).  Keys are read here and handed to the
                      ``openai`` client; they are never printed or logged.
``COURSE_EXTRA_BODY`` a JSON object of extra request-body fields sent with
                      every chat request, e.g. ``{"enable_thinking": false}``.

A value written in ``.env`` wins over the same variable exported in the
shell (see ``settings``); the summary and every key error say which of the
two the key came from, never the key.

Per-provider request rules
--------------------------
Some endpoints refuse a request that others accept.  ``REQUEST_RULES`` is the
one table of such rules (which model ids / which provider, what to change in
the body); ``apply_request_rules`` applies it, and it is applied twice, with
the same result: by ``messages.request_kwargs`` (so the kwargs a loop shows
are what is sent) and by the HTTP client of ``get_client`` (so a request
written by hand with the raw SDK in a notebook is fixed the same way).  A
relay that rejects ``stream_options`` is remembered per base URL
(``stream_usage_unavailable``); the streamed request is sent again without it.

The classroom
-------------
``classroom`` is the teacher's server (``bash course.sh serve``, see
``classroom``): three ``.env`` lines (provider, ``COURSE_BASE_URL``,
``COURSE_CLASS_KEY``) and nothing to install but the Python packages.  Its
requests wait in the server's queue behind the class's, so they get a long
timeout (``CLASSROOM_TIMEOUT_S``) and no automatic retries (a retry would
queue the same work twice); what goes wrong - the server unreachable, the key
missing or refused, the queue too long - is raised as the SDK's own error
type with a Chinese message that says what to do (``CourseHttpClient``),
never with the key in it.  A LAN address never goes through an environment
proxy.

The student's machine
---------------------
A loopback base URL (``localhost``, ``127.0.0.1``, ``::1``: the local server,
Ollama) never goes through a proxy from ``HTTP_PROXY``/``HTTPS_PROXY``/
``ALL_PROXY``; for a remote provider such a proxy is used, and a failure
names the variable (``proxy_variable``).

Base URLs and model ids are those in each provider's public
OpenAI-compatibility documentation (DeepSeek: api.deepseek.com; DashScope:
the ``compatible-mode/v1`` endpoint; Ollama: ``/v1`` on port 11434).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import openai

from . import local_server
from .replies import read_reply, read_usage
from .settings import PROJECT_ROOT, SOURCE_DOTENV, load_env, source_label, source_of
from .texts import t

REQUEST_TIMEOUT_S = 120.0  # one request; a 1.5B model on 2 cores can take a while
# One request to the class server: it may wait behind the whole class's requests first
# (bench/results/classroom.md: the longest wait measured, and when a class needs a bigger machine).
CLASSROOM_TIMEOUT_S = 600.0
# The SDK's own retries (408/409/429/5xx, timeouts, connection errors), with its
# exponential back-off (0.5 s doubling, at most 8 s) or the server's Retry-After
# (honoured up to 120 s); so one call waits at most about
# (MAX_RETRIES + 1) * timeout + MAX_RETRIES * 120 s, never forever.
MAX_RETRIES = 2
# llama-server queues requests itself and a retry after a timeout only doubles
# the wait; a dead server is restarted by _RestartingTransport instead.  The same
# holds for the class server (nobody restarts it from a student's laptop).
LOCAL_MAX_RETRIES = 0


class ProviderError(RuntimeError):
    """A provider is misconfigured or unreachable; the message says what to set or start."""


@dataclass(frozen=True)
class Preset:
    """One provider's defaults.

    Attributes:
        name: the ``COURSE_PROVIDER`` value.
        label: human-readable name.
        base_url: OpenAI-compatible base URL ("" = taken from elsewhere).
        model: default model id.
        key_env: environment variable holding the API key ("" = no key needed).
        parallel_tool_calls: whether the endpoint accepts ``parallel_tool_calls``.
        key_required: False when a key is optional (``custom``: depends on the server).
    """

    name: str
    label: str
    base_url: str
    model: str
    key_env: str
    parallel_tool_calls: bool = True
    key_required: bool = True


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in [
        Preset("local", "course llama-server (embedded)", "", local_server.MODEL_ALIAS, ""),
        # The teacher's server (bash course.sh serve): same model; URL and key from the teacher's lines.
        Preset("classroom", "classroom server (the teacher's)", "", local_server.MODEL_ALIAS, "COURSE_CLASS_KEY",
               key_required=False),
        Preset("deepseek", "DeepSeek", "https://api.deepseek.com", "deepseek-chat", "DEEPSEEK_API_KEY"),
        Preset(
            "dashscope",
            "Alibaba DashScope (Qwen)",
            "https://dashscope.aliyuncs.com/compatible-mode/v1",
            "qwen-plus",
            "DASHSCOPE_API_KEY",
        ),
        Preset("openai", "OpenAI", "https://api.openai.com/v1", "gpt-4o-mini", "OPENAI_API_KEY"),
        Preset("ollama", "Ollama", "http://localhost:11434/v1", "qwen2.5:3b", "", parallel_tool_calls=False),
        Preset(
            "custom", "OpenAI-compatible URL", "", "", "COURSE_API_KEY", parallel_tool_calls=False, key_required=False
        ),
    ]
}


@dataclass(frozen=True)
class Provider:
    """The resolved provider: preset plus ``.env`` overrides.  ``repr`` never shows the key.

    Attributes:
        preset, base_url, model, api_key: as resolved by ``get_provider``.
        key_source: where the key came from: ``".env"``, ``"environment"`` (the
            environment) or None (no key).  Shown instead of the key.
        extra_body: extra request-body fields sent with every chat request
            (``COURSE_EXTRA_BODY`` and/or ``get_provider(extra_body=...)``).
    """

    preset: Preset
    base_url: str
    model: str
    api_key: str = field(repr=False, default="")
    key_source: str | None = None
    extra_body: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.preset.name

    @property
    def is_local(self) -> bool:
        """True for the embedded llama-server on this machine (the one ``clear_prompt_cache`` may reset)."""
        return self.preset.name == "local" and self.base_url == local_server.base_url()

    @property
    def is_classroom(self) -> bool:
        """True for the teacher's class server (``COURSE_PROVIDER=classroom``)."""
        return self.preset.name == "classroom"

    def where(self) -> str:
        """``"<label>（<base_url>）"``: how messages name this endpoint."""
        return t("providers.where", label=self.preset.label, url=self.base_url)

    def describe(self) -> dict:
        """Return ``{provider, model, base_url, api_key}`` for display.

        The key only as 不需要 / 已设置（VAR，来自 .env 或 环境变量）/ 缺少（VAR）, never the key.
        """
        if not self.preset.key_env:
            key = t("providers.describe_key_not_needed")
        elif self.api_key:
            key = t("providers.describe_key_set", key_env=self.preset.key_env,
                    source=source_label(self.key_source or source_of(self.preset.key_env) or SOURCE_DOTENV))
        else:
            key = t("providers.describe_key_missing", key_env=self.preset.key_env)
        return {"provider": self.name, "model": self.model, "base_url": self.base_url, "api_key": key}


def extra_body_from_env() -> dict:
    """``COURSE_EXTRA_BODY`` read as a JSON object ({} when unset or blank).

    Raises:
        ProviderError: the value is not JSON, or not a JSON object; the message
            shows an example and where the setting came from (.env / 环境变量).
    """
    raw = os.environ.get("COURSE_EXTRA_BODY", "").strip()
    if not raw:
        return {}
    source = source_label(source_of("COURSE_EXTRA_BODY") or SOURCE_DOTENV)
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise ProviderError(t("providers.extra_body_invalid", source=source, problem=exc)) from None
    if not isinstance(value, dict):
        problem = t("providers.extra_body_not_object", kind=type(value).__name__)
        raise ProviderError(t("providers.extra_body_invalid", source=source, problem=problem))
    return value


def get_provider(name: str | None = None, extra_body: dict | None = None) -> Provider:
    """Resolve the active provider from ``.env`` / the environment (``.env`` wins).

    ``.env`` is read again on every call, so after editing it re-running the
    set-up cell is enough (no kernel restart).

    Args:
        name: a key of ``PRESETS``; default ``$COURSE_PROVIDER`` or ``local``.
        extra_body: extra request-body fields for every chat request (a
            teacher's way to add e.g. ``{"enable_thinking": False}`` in code);
            merged over ``COURSE_EXTRA_BODY``.
    Returns:
        A ``Provider``.
    Raises:
        ProviderError: unknown provider name, missing key, missing
            ``COURSE_BASE_URL``/``COURSE_MODEL`` for ``custom``, or a
            ``COURSE_EXTRA_BODY`` that is not a JSON object.
    """
    load_env()
    name = (name or os.environ.get("COURSE_PROVIDER") or "local").strip().lower()
    if name not in PRESETS:
        raise ProviderError(t("providers.unknown_provider", name=name, choices=", ".join(PRESETS)))
    preset = PRESETS[name]
    base_url = os.environ.get("COURSE_BASE_URL") or preset.base_url
    if preset.name == "local" and not os.environ.get("COURSE_BASE_URL"):
        base_url = local_server.base_url()
    model = os.environ.get("COURSE_MODEL") or preset.model
    if not base_url:
        raise ProviderError(t("providers.classroom_needs_lines" if name == "classroom" else "providers.needs_base_url",
                              name=name, root=PROJECT_ROOT))
    if not model:
        raise ProviderError(t("providers.needs_model", name=name))
    # Stripped: a key pasted with a trailing space or newline breaks the HTTP header.
    api_key = os.environ.get(preset.key_env, "").strip() if preset.key_env else ""
    if preset.key_env and preset.key_required and not api_key:
        raise ProviderError(t("providers.key_missing", label=preset.label, root=PROJECT_ROOT, key_env=preset.key_env))
    body = {**extra_body_from_env(), **(extra_body or {})}
    source = source_of(preset.key_env) if api_key else None
    return Provider(preset, base_url.rstrip("/"), model, api_key, key_source=source, extra_body=body)


# --------------------------------------------------------------------------- per-provider request rules


@dataclass(frozen=True)
class RequestRule:
    """One per-provider / per-model fix of the request body (a row of ``REQUEST_RULES``).

    A rule applies when the model id (any ``vendor/`` prefix removed, as
    relays write ``openai/gpt-5-mini``) starts with a match of ``models``,
    and - if ``providers`` or ``hosts`` are given - the provider is one of
    ``providers`` or the base URL's host ends with one of ``hosts`` (a
    ``custom`` URL pointing at the same service).

    Attributes:
        name: a short id.  why: what the endpoint does and where that is documented.
        models: regular expression (case-insensitive, matched at the start).
        providers: preset names.  hosts: base-URL host suffixes.
        rename: field -> the field the endpoint takes instead (value kept).
        only_default: field -> the only value the endpoint accepts; any other
            value is left out (the endpoint then uses its default).
        body: fields added unless the request already has them.
    """

    name: str
    why: str
    models: str = ""
    providers: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    rename: dict = field(default_factory=dict)
    only_default: dict = field(default_factory=dict)
    body: dict = field(default_factory=dict)

    def matches(self, model: str, provider_name: str = "", host: str = "") -> bool:
        """True if this rule applies to ``model`` on that provider / host."""
        bare = (model or "").rsplit("/", 1)[-1]
        if not re.match(self.models, bare, re.IGNORECASE):
            return False
        if not (self.providers or self.hosts):
            return True
        return provider_name in self.providers or any(host == h or host.endswith("." + h) for h in self.hosts)


REQUEST_RULES: list[RequestRule] = [
    RequestRule(
        "openai-reasoning",
        "OpenAI reasoning models (gpt-5*, o1, o3, o4-mini) answer 400 to max_tokens (they take "
        "max_completion_tokens) and to any temperature but the default 1 (OpenAI API reference, "
        "chat/create: max_tokens 'not compatible with o-series models'; reasoning guide).  Any endpoint "
        "serving them (OpenAI, Azure, relays) has the same limits, so the rule is by model id only.",
        models=r"(?:gpt-5|o1|o3|o4-mini)(?![a-z0-9])",
        rename={"max_tokens": "max_completion_tokens"},
        only_default={"temperature": 1},
    ),
    RequestRule(
        "dashscope-qwen3",
        "DashScope's Qwen3 models think by default and answer 400 'parameter.enable_thinking must be set "
        "to false for non-streaming calls' unless the body says enable_thinking: false (DashScope "
        "OpenAI-compatible mode docs, deep thinking).",
        models=r"qwen3",
        providers=("dashscope",),
        hosts=("dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com"),
        body={"enable_thinking": False},
    ),
]

# Base URLs (no trailing slash) whose server answered 400 to ``stream_options``: it is not sent there again.
_NO_STREAM_OPTIONS: set[str] = set()


def _endpoint(provider: Any) -> tuple[str, str, dict]:
    """``(provider name, base URL, extra_body)`` of a Provider, an openai client or None."""
    if provider is None:
        return "", "", {}
    name = getattr(getattr(provider, "preset", None), "name", "") or ""
    base_url = str(getattr(provider, "base_url", "") or "").rstrip("/")
    return name, base_url, dict(getattr(provider, "extra_body", None) or {})


def stream_usage_unavailable(provider_or_url: Any) -> bool:
    """True if that endpoint rejected ``stream_options`` before (so streamed replies carry no usage).

    Args:
        provider_or_url: a ``Provider``, an ``openai.OpenAI`` client, or a base URL string.
    """
    url = provider_or_url if isinstance(provider_or_url, str) else _endpoint(provider_or_url)[1]
    return url.rstrip("/") in _NO_STREAM_OPTIONS


def apply_request_rules(request: dict, provider: Any = None, as_kwargs: bool = True) -> dict:
    """Apply ``REQUEST_RULES``, the provider's ``extra_body`` and remembered quirks to one request.

    Args:
        request: the kwargs of ``client.chat.completions.create`` (``as_kwargs=True``)
            or the JSON body on the wire (``as_kwargs=False``); needs ``model``.
        provider: a ``Provider``, anything with ``base_url`` (an openai client),
            or None (then only the rules that go by model id alone apply).
        as_kwargs: True = extra body fields go into ``request["extra_body"]``
            (the SDK merges it into the body); False = into the body itself.
    Returns:
        A new dict; ``request`` is not changed.  Applying it twice gives the
        same result.  Fields the request sets itself always win over the
        ``body`` of a rule and over ``extra_body``.
    """
    out = dict(request)
    name, base_url, extra = _endpoint(provider)
    host = (urlsplit(base_url).hostname or "").lower()
    added: dict = {}
    for rule in REQUEST_RULES:
        if not rule.matches(str(out.get("model") or ""), name, host):
            continue
        for old, new in rule.rename.items():
            if old in out:
                value = out.pop(old)
                out.setdefault(new, value)
        for key, default in rule.only_default.items():
            if key in out and out[key] != default:
                del out[key]
        added.update(rule.body)
    added.update(extra)  # the teacher's fields win over a rule's
    if base_url and base_url in _NO_STREAM_OPTIONS:
        out.pop("stream_options", None)
    if added:
        if as_kwargs:
            target = dict(out.get("extra_body") or {})
            out["extra_body"] = target
        else:
            target = out
        for key, value in added.items():
            target.setdefault(key, value)
    return out


# --------------------------------------------------------------------------- the student's machine


def is_loopback(url: str) -> bool:
    """True if ``url``'s host is this machine (``localhost``, ``127.x.x.x``, ``::1``)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_local_network(url: str) -> bool:
    """True if ``url``'s host is this machine or on the local network: loopback, a private
    (RFC 1918 / RFC 4193) or link-local address, or a ``.local`` (mDNS) name - the class
    server's address.  A proxy from the environment would not reach such a host."""
    if is_loopback(url):
        return True
    host = (urlsplit(url).hostname or "").lower()
    if host.endswith(".local"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_private or ip.is_link_local


def proxy_variable(url: str) -> str | None:
    """The environment variable whose proxy a request to ``url`` goes through, or None.

    Follows what httpx does with ``trust_env``: ``https_proxy``/``http_proxy``
    for the URL's scheme, else ``all_proxy`` (lower or upper case), unless
    ``no_proxy`` covers the host; loopback and LAN URLs never use one here (see
    ``get_client``).  Returns the variable's name, never its value (a proxy URL
    can hold a password).
    """
    parts = urlsplit(url)
    if is_local_network(url) or urllib.request.proxy_bypass_environment(parts.hostname or ""):
        return None
    for base in (f"{parts.scheme}_proxy", "all_proxy"):
        for var in (base, base.upper()):
            if os.environ.get(var, "").strip():
                return var
    return None


def _socks_variable() -> tuple[str, str] | None:
    """``(variable, scheme)`` of a SOCKS proxy set in the environment, or None."""
    for base in ("all_proxy", "https_proxy", "http_proxy"):
        for var in (base, base.upper()):
            value = os.environ.get(var, "").strip().lower()
            if value.startswith("socks"):
                return var, value.split(":", 1)[0]
    return None


def _stream_options_rejected(request: httpx.Request, response: httpx.Response) -> bool:
    """True for a 400 that names ``stream_options`` in answer to a request that sent it."""
    if response.status_code != 400 or b'"stream_options"' not in (request.content or b""):
        return False
    response.read()
    return "stream_options" in response.text


class CourseHttpClient(httpx.Client):
    """The HTTP client under every client from ``get_client``.

    On each chat request it applies ``apply_request_rules`` to the JSON body
    (so a request written with the raw SDK is fixed the same way as one from
    ``request_kwargs``); when the server answers 400 to ``stream_options``
    it remembers that for this base URL and sends the request again without
    it; a connection failure through an environment proxy names the variable.

    Args:
        provider: the ``Provider`` whose rules and ``extra_body`` apply.
        **kwargs: for ``httpx.Client``.
    """

    def __init__(self, provider: Provider, **kwargs: Any):
        self.course_provider = provider
        super().__init__(**kwargs)

    def _with_rules(self, request: httpx.Request) -> httpx.Request:
        if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
            return request
        try:
            body = json.loads(request.read() or b"{}")
        except ValueError:
            return request
        if not isinstance(body, dict):
            return request
        new = apply_request_rules(body, self.course_provider, as_kwargs=False)
        if new == body:
            return request
        headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
        return httpx.Request(request.method, request.url, headers=headers,
                             content=json.dumps(new, ensure_ascii=False).encode("utf-8"), extensions=request.extensions)

    def send(self, request: httpx.Request, **kwargs: Any) -> httpx.Response:  # noqa: D102 - see the class
        request = self._with_rules(request)
        try:
            response = super().send(request, **kwargs)
            if _stream_options_rejected(request, response):
                response.close()
                _NO_STREAM_OPTIONS.add(self.course_provider.base_url.rstrip("/"))
                response = super().send(self._with_rules(request), **kwargs)
        except (httpx.ProxyError, httpx.ConnectError, httpx.ConnectTimeout) as exc:
            if self.course_provider.is_classroom:
                raise classroom_error(self.course_provider, request, exc) from exc
            var = proxy_variable(str(request.url)) if self.trust_env else None
            if var is None:
                raise
            note = t("providers.proxy_used", var=var, host=request.url.host)
            raise type(exc)(f"{exc}（{note}）", request=request) from exc
        except httpx.TimeoutException as exc:
            if self.course_provider.is_classroom:
                raise classroom_error(self.course_provider, request, exc) from exc
            raise
        if self.course_provider.is_classroom and response.status_code in (401, 503):
            raise classroom_error(self.course_provider, request, response)
        return response


def classroom_error(provider: Provider, request: httpx.Request,
                    problem: httpx.Response | BaseException) -> openai.APIError:
    """The SDK's own error for what went wrong between a student and the class server, with a Chinese message.

    Raised from ``CourseHttpClient.send``; the SDK passes an ``openai.APIError``
    on unchanged (it neither wraps nor retries it), so ``except
    openai.AuthenticationError`` and friends still work, and the message is
    what the student reads.  The key is never in it: only the variable's
    name and where it came from.

    Args:
        provider: the classroom provider.  request: the request that failed.
        problem: a 401 or 503 response, or the httpx exception (connection
            failed, timed out).
    Returns:
        ``openai.AuthenticationError`` (401: key missing or refused),
        ``openai.InternalServerError`` (503: the server is still loading the model),
        ``openai.APITimeoutError`` (no answer within the timeout: the class queue)
        or ``openai.APIConnectionError`` (the server cannot be reached).
    """
    url = provider.base_url
    if isinstance(problem, httpx.Response):
        problem.read()
        try:
            body = problem.json()
        except ValueError:
            body = None
        if problem.status_code == 401:
            key_env = provider.preset.key_env
            if provider.api_key:
                source = source_label(provider.key_source or source_of(key_env) or SOURCE_DOTENV)
                text = t("providers.classroom_key_rejected", url=url, key_env=key_env, source=source)
            else:
                text = t("providers.classroom_key_missing", url=url, key_env=key_env, root=PROJECT_ROOT)
            return openai.AuthenticationError(text, response=problem, body=body)
        return openai.InternalServerError(t("providers.classroom_loading", url=url), response=problem, body=body)
    if isinstance(problem, httpx.TimeoutException) and not isinstance(problem, httpx.ConnectTimeout):
        timeout = request.extensions.get("timeout", {}).get("read") or CLASSROOM_TIMEOUT_S
        error = openai.APITimeoutError(request=request)
        error.message = t("providers.classroom_timeout", url=url, seconds=timeout)
        error.args = (error.message,)
        return error
    return openai.APIConnectionError(message=t("providers.classroom_unreachable", url=url), request=request)


class _RestartingTransport(httpx.HTTPTransport):
    """For the local provider only: if the server is gone, start it again once, then retry."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return super().handle_request(request)
        except httpx.ConnectError:
            local_server.ensure_server()
            return super().handle_request(request)


class RequestLog:
    """Append one JSON line per chat request to a file (``COURSE_REQUEST_LOG``; used by ``bench/`` and the tests).

    Each line is ``{"at": unix time (s), "seconds": wall time of the HTTP
    exchange (s), "status": HTTP status, "stream": bool, "prompt_tokens",
    "completion_tokens", "finish_reason", "content": the reply text,
    "tool_calls": [{"name", "arguments"}] or None, "timings": llama-server's own
    ``timings`` object or None, "request": the JSON body that was sent}``.
    Token counts come from the response's ``usage``.  A streamed reply is
    logged when the stream is closed, with the text and calls put together
    from its chunks (``replies.collect_stream``) - nothing is read that the
    caller does not read itself.  The body holds no key (that travels in a
    header, which is never written).
    """

    def __init__(self, path: str | os.PathLike | None = None, on_line: Any = None):
        """``path``: the file to append to (None = none); ``on_line``: also called with each line dict."""
        self.path = Path(path) if path is not None else None
        self.on_line = on_line

    def on_request(self, request: httpx.Request) -> None:
        request.extensions["course_started"] = time.perf_counter()

    @staticmethod
    def line_of(response: httpx.Response, chunks: list[dict] | None = None) -> dict | None:
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
            from .replies import collect_stream  # providers imports replies already; here only for streams

            reply = collect_stream(chunks or [])
            usage, message, finish = reply.usage or {}, reply.message, reply.finish_reason
            timings = next((c["timings"] for c in reversed(chunks or []) if c.get("timings")), None)
        else:
            usage = read_usage(body) or {}
            choice = (body.get("choices") or [{}])[0] or {}
            message, finish, timings = choice.get("message") or {}, choice.get("finish_reason"), body.get("timings")
        calls = [{"name": (c.get("function") or {}).get("name"), "arguments": (c.get("function") or {}).get("arguments")}
                 for c in message.get("tool_calls") or []] or None
        return {
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

    def on_response(self, response: httpx.Response) -> None:
        streamed = "text/event-stream" in response.headers.get("content-type", "")
        if not streamed:
            self.write(self.line_of(response))
        elif response.is_stream_consumed:  # already in memory (a mock transport's answer): log it now
            self.write(self.line_of(response, _sse_chunks(response.content)))
        elif response.request.url.path.endswith("/chat/completions"):
            response.stream = _TeeStream(response.stream, lambda data: self.write(self.line_of(response, _sse_chunks(data))))

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
        """The ``event_hooks`` argument for ``httpx.Client``."""
        return {"request": [self.on_request], "response": [self.on_response]}


def _sse_chunks(data: bytes) -> list[dict]:
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


class _TeeStream(httpx.SyncByteStream):
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


def get_client(provider: Provider | None = None, transport: httpx.BaseTransport | None = None,
               **client_kwargs) -> openai.OpenAI:
    """Return an ``openai.OpenAI`` client for the active provider.

    For the local provider this starts the course's llama-server if needed
    (and again later if it died mid-lesson).  The HTTP client is a
    ``CourseHttpClient``: every chat request gets ``REQUEST_RULES`` and the
    provider's ``extra_body``; a loopback base URL never goes through an
    environment proxy (``trust_env=False``), a remote one does.

    Args:
        provider: from ``get_provider()``; default the active one.
        transport: an ``httpx`` transport to use instead of the network
            (tests: ``httpx.MockTransport``); the rules still apply.
        **client_kwargs: passed to ``openai.OpenAI`` (e.g. ``timeout``,
            ``max_retries``; an ``http_client`` given here is used as it is,
            without the rules).
    With ``COURSE_REQUEST_LOG=<file>`` set, every chat request is also
    logged to that file (``RequestLog``; the benchmark uses it).
    Returns:
        A client with ``timeout=REQUEST_TIMEOUT_S`` and ``max_retries=MAX_RETRIES``
        (``LOCAL_MAX_RETRIES`` for the local server) unless overridden.
    Raises:
        ProviderError: see ``get_provider``; a SOCKS proxy in the environment
            without the ``socksio`` package (names the variable and the fix).
        LocalModelError: the local server cannot start.
    """
    provider = provider or get_provider()
    log = os.environ.get("COURSE_REQUEST_LOG")
    hooks = RequestLog(log).hooks() if log else {}
    timeout = CLASSROOM_TIMEOUT_S if provider.is_classroom else REQUEST_TIMEOUT_S
    if provider.is_classroom:
        client_kwargs.setdefault("max_retries", LOCAL_MAX_RETRIES)
    if "http_client" not in client_kwargs:
        if provider.is_local and transport is None:
            local_server.ensure_server()
            transport = _RestartingTransport()
            client_kwargs.setdefault("max_retries", LOCAL_MAX_RETRIES)
        try:
            client_kwargs["http_client"] = CourseHttpClient(
                provider, transport=transport, timeout=timeout, event_hooks=hooks,
                trust_env=not is_local_network(provider.base_url), follow_redirects=True,
            )
        except ImportError as exc:  # httpx builds a SOCKS proxy only with socksio installed
            socks = _socks_variable()
            if socks is None:
                raise
            raise ProviderError(t("providers.socks_missing", var=socks[0], scheme=socks[1])) from exc
    client_kwargs.setdefault("timeout", timeout)
    client_kwargs.setdefault("max_retries", MAX_RETRIES)
    # Servers without keys (llama-server, Ollama) accept any placeholder.
    return openai.OpenAI(base_url=provider.base_url, api_key=provider.api_key or "not-needed", **client_kwargs)


# sk-..., sk-proj-..., sk-ant-... (OpenAI, DeepSeek, DashScope, Anthropic) and "Bearer <token>".
_KEY_SHAPE_RE = re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-*.]{8,}|(?<=Bearer )[A-Za-z0-9_\-.]{8,}")


def _redact(text: str, provider: Provider) -> str:
    """``text`` with the provider's key and anything shaped like an API key replaced by ``***``."""
    if provider.api_key and len(provider.api_key) >= 4:
        text = text.replace(provider.api_key, "***")
    return _KEY_SHAPE_RE.sub("***", text)


def _timeout_seconds(client: openai.OpenAI) -> float:
    timeout = getattr(client, "timeout", REQUEST_TIMEOUT_S)
    if hasattr(timeout, "read"):  # an httpx Timeout object
        timeout = timeout.read or timeout.connect
    return float(timeout) if isinstance(timeout, (int, float)) else REQUEST_TIMEOUT_S

def _proxy_note(provider: Provider) -> str:
    var = proxy_variable(provider.base_url)
    return t("providers.proxy_used", var=var, host=urlsplit(provider.base_url).hostname) if var else ""


def ping(client: openai.OpenAI | None = None, provider: Provider | None = None) -> str:
    """Send a one-word request and return the reply text, to prove the endpoint works.

    The request is built by ``messages.request_kwargs`` (so ``REQUEST_RULES``
    apply) and read by ``replies.read_reply``.

    Raises:
        ProviderError: one message naming the provider and URL (never the key)
            and what to do, when the endpoint is unreachable, times out,
            rejects the key (saying whether the key came from .env or the
            environment), does not know the model, keeps answering 429/5xx
            after the SDK's retries, or (local) the server could not be
            restarted; when an environment proxy was used, it is named.
    """
    from .messages import request_kwargs  # messages imports nothing from here; kept local for clarity

    provider = provider or get_provider()
    client = client or get_client(provider)
    kwargs = request_kwargs(provider.model, [{"role": "user", "content": "Reply with the single word: pong"}],
                            provider=provider, max_tokens=5, temperature=0)
    try:
        resp = client.chat.completions.create(**kwargs)
    except openai.APIError as exc:
        raise ProviderError(_what_to_do(exc, provider, client)) from None
    except local_server.LocalModelError as exc:
        raise ProviderError(t("providers.local_restart_failed", url=provider.base_url, error=exc)) from None
    return read_reply(resp).text


def _what_to_do(exc: openai.APIError, provider: Provider, client: openai.OpenAI) -> str:
    """The sentence ``ping`` raises for ``exc``: what went wrong at which endpoint, and what to do."""
    where = provider.where()
    retries = getattr(client, "max_retries", MAX_RETRIES)
    if provider.is_classroom and isinstance(exc, (openai.AuthenticationError, openai.APIConnectionError,
                                                  openai.InternalServerError)):
        return exc.message  # CourseHttpClient said it already (classroom_error)
    if isinstance(exc, openai.AuthenticationError):
        key_env = provider.preset.key_env or "COURSE_API_KEY"
        source = provider.key_source or source_of(key_env) or SOURCE_DOTENV
        fix_key = "providers.auth_fix_dotenv" if source == SOURCE_DOTENV else "providers.auth_fix_environment"
        fix = t(fix_key, key_env=key_env, root=PROJECT_ROOT)
        return t("providers.auth_rejected", where=where, key_env=key_env, source=source_label(source), fix=fix)
    if isinstance(exc, openai.NotFoundError):
        return t("providers.model_unknown", where=where, model=provider.model)
    if isinstance(exc, openai.APITimeoutError):
        text = t("providers.timeout", where=where, seconds=_timeout_seconds(client), tries=retries + 1)
        return " ".join(x for x in (text, _proxy_note(provider)) if x)
    if isinstance(exc, openai.APIConnectionError):
        hint = t("providers.unreachable_local") if provider.is_local else _proxy_note(provider)
        return " ".join(x for x in (t("providers.unreachable", where=where), hint) if x)
    if isinstance(exc, openai.APIStatusError):
        detail = " ".join(str(getattr(exc, "message", "") or "").split())
        detail = _redact(re.sub(r"^Error code: \d+\s*-?\s*", "", detail)[:200], provider).rstrip(".。")
        detail = f"{detail}。" if detail else ""
        if exc.status_code == 429:
            todo = t("providers.status_429")
        elif exc.status_code >= 500:
            todo = " ".join(x for x in (t("providers.status_5xx"), _proxy_note(provider)) if x)
        elif exc.status_code == 403 and provider.preset.key_env:
            todo = t("providers.status_403", key_env=provider.preset.key_env, model=provider.model)
        else:
            todo = t("providers.status_other")
        retried = exc.status_code in (408, 409, 429) or exc.status_code >= 500  # the statuses the SDK retries
        after = t("providers.after_retries", n=retries) if retried and retries else ""
        return t("providers.status", where=where, status=exc.status_code, after=after, detail=detail, todo=todo)
    return _redact(str(exc), provider)


def main() -> int:
    """``python -m course_lib.providers``: print the active provider and ping it."""
    try:
        provider = get_provider()
        for key, value in provider.describe().items():
            print(f"{key:>9}: {value}")
        print(t("providers.ping_line", reply=ping(provider=provider)))
    except (ProviderError, local_server.LocalModelError) as exc:
        print(t("providers.error_line", error=exc))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
