"""Which model the course talks to: provider presets, ``.env`` and the client.

Taught in notebooks 00 (presets, .env, ping) and 01 (get_client).

All presets live in ``PRESETS`` below; a retired model id is changed in one
line there.  A ``.env`` file at the project root (read with python-dotenv)
picks one; ``.env.example`` lists every setting.

``.env`` settings
-----------------
``COURSE_PROVIDER``   one of ``local`` (default), ``deepseek``, ``dashscope``,
                      ``openai``, ``ollama``, ``custom``.
``COURSE_MODEL``      override the preset's model id.
``COURSE_BASE_URL``   override the preset's base URL (required for ``custom``).
``DEEPSEEK_API_KEY`` / ``DASHSCOPE_API_KEY`` / ``OPENAI_API_KEY`` /
``COURSE_API_KEY``    the key of the chosen provider (``COURSE_API_KEY`` for
                      ``custom``).  Keys are read here and handed to the
                      ``openai`` client; they are never printed or logged.

Base URLs and model ids are those in each provider's public
OpenAI-compatibility documentation (DeepSeek: api.deepseek.com; DashScope:
the ``compatible-mode/v1`` endpoint; Ollama: ``/v1`` on port 11434).
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import openai

from . import local_server
from .replies import read_reply, read_usage
from .settings import PROJECT_ROOT, load_env

REQUEST_TIMEOUT_S = 120.0  # one request; a 1.5B model on 2 cores can take a while
# The SDK's own retries (408/409/429/5xx, timeouts, connection errors), with its
# exponential back-off (0.5 s doubling, at most 8 s) or the server's Retry-After
# (honoured up to 120 s); so one call waits at most about
# (MAX_RETRIES + 1) * timeout + MAX_RETRIES * 120 s, never forever.
MAX_RETRIES = 2
# llama-server queues requests itself and a retry after a timeout only doubles
# the wait; a dead server is restarted by _RestartingTransport instead.
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
    """The resolved provider: preset plus ``.env`` overrides.  ``repr`` never shows the key."""

    preset: Preset
    base_url: str
    model: str
    api_key: str = field(repr=False, default="")

    @property
    def name(self) -> str:
        return self.preset.name

    @property
    def is_local(self) -> bool:
        return self.preset.name == "local"

    def describe(self) -> dict:
        """Return ``{provider, model, base_url, api_key}`` for display; the key only as set / not needed."""
        if not self.preset.key_env:
            key = "not needed"
        else:
            key = f"set ({self.preset.key_env})" if self.api_key else f"MISSING ({self.preset.key_env})"
        return {"provider": self.name, "model": self.model, "base_url": self.base_url, "api_key": key}


def get_provider(name: str | None = None) -> Provider:
    """Resolve the active provider from ``.env`` / the environment.

    Args:
        name: a key of ``PRESETS``; default ``$COURSE_PROVIDER`` or ``local``.
    Returns:
        A ``Provider``.
    Raises:
        ProviderError: unknown provider name, missing key, or missing
            ``COURSE_BASE_URL``/``COURSE_MODEL`` for ``custom``.
    """
    load_env()
    name = (name or os.environ.get("COURSE_PROVIDER") or "local").strip().lower()
    if name not in PRESETS:
        raise ProviderError(f"COURSE_PROVIDER={name!r} is unknown; choose one of: {', '.join(PRESETS)}.")
    preset = PRESETS[name]
    base_url = os.environ.get("COURSE_BASE_URL") or preset.base_url
    if preset.name == "local" and not os.environ.get("COURSE_BASE_URL"):
        base_url = local_server.base_url()
    model = os.environ.get("COURSE_MODEL") or preset.model
    if not base_url:
        raise ProviderError(f"Provider {name!r} needs COURSE_BASE_URL in .env, e.g. COURSE_BASE_URL=http://host:port/v1")
    if not model:
        raise ProviderError(f"Provider {name!r} needs COURSE_MODEL in .env (the model id the server expects).")
    # Stripped: a key pasted with a trailing space or newline breaks the HTTP header.
    api_key = os.environ.get(preset.key_env, "").strip() if preset.key_env else ""
    if preset.key_env and preset.key_required and not api_key:
        raise ProviderError(
            f"Provider {preset.label} needs an API key: add {preset.key_env}=<your key> to the .env file "
            f"at {PROJECT_ROOT} (see .env.example), or set COURSE_PROVIDER=local to use the offline model."
        )
    return Provider(preset, base_url.rstrip("/"), model, api_key)


class _RestartingTransport(httpx.HTTPTransport):
    """For the local provider only: if the server is gone, start it again once, then retry."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return super().handle_request(request)
        except httpx.ConnectError:
            local_server.ensure_server()
            return super().handle_request(request)


class RequestLog:
    """Append one JSON line per chat request to a file (``COURSE_REQUEST_LOG``; used by ``bench/``).

    Each line is ``{"at": unix time (s), "seconds": wall time of the HTTP
    exchange (s), "status": HTTP status, "stream": bool, "prompt_tokens",
    "completion_tokens", "finish_reason", "content": the reply text,
    "timings": llama-server's own ``timings`` object or None}``.  Token counts
    come from the response's ``usage``; a streamed reply is logged when its
    headers arrive, with no tokens or text (reading it here would consume
    the stream).  Nothing from the request (and so no key) is written.
    """

    def __init__(self, path: str | os.PathLike | None = None, on_line: Any = None):
        """``path``: the file to append to (None = none); ``on_line``: also called with each line dict."""
        self.path = Path(path) if path is not None else None
        self.on_line = on_line

    def on_request(self, request: httpx.Request) -> None:
        request.extensions["course_started"] = time.perf_counter()

    @staticmethod
    def line_of(response: httpx.Response) -> dict | None:
        """The log line of one response (see the class docstring), or None for other endpoints."""
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
        usage = read_usage(body) or {}
        choice = (body.get("choices") or [{}])[0] or {}
        return {
            "at": round(time.time(), 3),
            "seconds": round(time.perf_counter() - started, 3),
            "status": response.status_code,
            "stream": stream,
            "prompt_tokens": usage.get("prompt_tokens"),
            "completion_tokens": usage.get("completion_tokens"),
            "finish_reason": choice.get("finish_reason"),
            "content": (choice.get("message") or {}).get("content"),
            "timings": body.get("timings"),
        }

    def on_response(self, response: httpx.Response) -> None:
        line = self.line_of(response)
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


def get_client(provider: Provider | None = None, **client_kwargs) -> openai.OpenAI:
    """Return an ``openai.OpenAI`` client for the active provider.

    For the local provider this starts the course's llama-server if needed
    (and again later if it died mid-lesson).

    Args:
        provider: from ``get_provider()``; default the active one.
        **client_kwargs: passed to ``openai.OpenAI`` (e.g. ``http_client``
            for tests, ``timeout``, ``max_retries``).
    With ``COURSE_REQUEST_LOG=<file>`` set, every chat request is also
    logged to that file (``RequestLog``; the benchmark uses it).
    Returns:
        A client with ``timeout=REQUEST_TIMEOUT_S`` and ``max_retries=MAX_RETRIES``
        (``LOCAL_MAX_RETRIES`` for the local server) unless overridden.
    Raises:
        ProviderError: see ``get_provider``; LocalModelError if the local server cannot start.
    """
    provider = provider or get_provider()
    log = os.environ.get("COURSE_REQUEST_LOG")
    hooks = RequestLog(log).hooks() if log else {}
    if provider.is_local and "http_client" not in client_kwargs and not os.environ.get("COURSE_BASE_URL"):
        local_server.ensure_server()
        client_kwargs["http_client"] = httpx.Client(
            transport=_RestartingTransport(), timeout=REQUEST_TIMEOUT_S, event_hooks=hooks
        )
        client_kwargs.setdefault("max_retries", LOCAL_MAX_RETRIES)
    elif hooks and "http_client" not in client_kwargs:
        client_kwargs["http_client"] = httpx.Client(timeout=REQUEST_TIMEOUT_S, event_hooks=hooks)
    client_kwargs.setdefault("timeout", REQUEST_TIMEOUT_S)
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


def ping(client: openai.OpenAI | None = None, provider: Provider | None = None) -> str:
    """Send a one-word request and return the reply text, to prove the endpoint works.

    Raises:
        ProviderError: one message naming the provider and URL (never the key)
            and what to do, when the endpoint is unreachable, times out,
            rejects the key, does not know the model, keeps answering 429/5xx
            after the SDK's retries, or (local) the server could not be restarted.
    """
    provider = provider or get_provider()
    client = client or get_client(provider)
    where = f"{provider.preset.label} at {provider.base_url}"
    retries = getattr(client, "max_retries", MAX_RETRIES)
    try:
        resp = client.chat.completions.create(
            model=provider.model,
            messages=[{"role": "user", "content": "Reply with the single word: pong"}],
            max_tokens=5,
            temperature=0,
        )
    except openai.AuthenticationError:
        raise ProviderError(f"{where} rejected the API key; check {provider.preset.key_env} in .env.") from None
    except openai.NotFoundError:
        raise ProviderError(f"{where} does not know model {provider.model!r}; set COURSE_MODEL in .env.") from None
    except openai.APITimeoutError:
        raise ProviderError(
            f"{where} did not answer within {_timeout_seconds(client):g} s (tried {retries + 1} time(s)). "
            "The server may be busy or overloaded: try again in a minute, ask for fewer tokens (max_tokens), "
            "or pass a larger timeout to get_client(timeout=...)."
        ) from None
    except openai.APIConnectionError:
        hint = " Check it with: python -m course_lib.local_server status" if provider.is_local else ""
        raise ProviderError(
            f"Cannot reach {where}. Is the server running and the URL right? "
            f"Change COURSE_PROVIDER or COURSE_BASE_URL in .env.{hint}"
        ) from None
    except openai.APIStatusError as exc:
        detail = " ".join(str(getattr(exc, "message", "") or "").split())
        detail = _redact(re.sub(r"^Error code: \d+\s*-?\s*", "", detail)[:200], provider).rstrip(".")
        detail = f"{detail}. " if detail else ""
        if exc.status_code == 429:
            todo = "You are sending too fast or your quota/balance is used up: wait a minute, or check your account."
        elif exc.status_code >= 500:
            todo = "The provider has a problem right now: try again later, or switch COURSE_PROVIDER in .env."
        elif exc.status_code == 403 and provider.preset.key_env:
            todo = f"Check that the key in {provider.preset.key_env} may use model {provider.model!r} (COURSE_MODEL)."
        else:
            todo = "Check COURSE_MODEL / COURSE_BASE_URL in .env and the provider's documentation."
        retried = exc.status_code in (408, 409, 429) or exc.status_code >= 500  # the statuses the SDK retries
        after = f" (after {retries} retr{'y' if retries == 1 else 'ies'})" if retried else ""
        raise ProviderError(f"{where} answered HTTP {exc.status_code}{after}: {detail}{todo}") from None
    except local_server.LocalModelError as exc:
        raise ProviderError(f"The local model server at {provider.base_url} stopped and could not be restarted: {exc}") from None
    return read_reply(resp).text


def main() -> int:
    """``python -m course_lib.providers``: print the active provider and ping it."""
    try:
        provider = get_provider()
        for key, value in provider.describe().items():
            print(f"{key:>9}: {value}")
        print(f"     ping: {ping(provider=provider)!r}")
    except (ProviderError, local_server.LocalModelError) as exc:
        print(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
