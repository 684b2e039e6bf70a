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
                      A cloud preset takes only its own address here.
``DEEPSEEK_API_KEY`` / ``DASHSCOPE_API_KEY`` / ``OPENAI_API_KEY`` /
``COURSE_CLASS_KEY`` / ``COURSE_API_KEY``
                      the key of the chosen provider (``COURSE_CLASS_KEY`` for
                      ``classroom``, ``COURSE_API_KEY`` for ``custom``); handed
                      to the ``openai`` client, never printed or logged.
``COURSE_EXTRA_BODY`` a JSON object of extra request-body fields sent with
                      every chat request, e.g. ``{"enable_thinking": false}``.

A value written in ``.env`` wins over the same variable exported in the shell
(``course_runtime/settings.py``).  What each line may hold, and what an error
of ``ping`` means, is checked in ``course_runtime/provider_checks.py``; the HTTP
client under ``get_client`` is ``course_runtime/http_client.py``.

``classroom`` is the teacher's server (``python course.py serve``): the
``.env`` lines ``python course.py join`` writes, and this computer's student
token as the key (a ``COURSE_CLASS_KEY`` line wins).  Its requests wait in the
class queue, so they get a long timeout and no automatic retries (a retry
would queue the same work twice).

Base URLs and model ids are those in each provider's public
OpenAI-compatibility documentation (DeepSeek: api.deepseek.com; DashScope:
the ``compatible-mode/v1`` endpoint; Ollama: ``/v1`` on port 11434).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import httpx2
import openai

from course_runtime import local_server
from course_runtime.class_code import joined_token
from course_runtime.http_client import CLASSROOM_TIMEOUT_S, REQUEST_TIMEOUT_S, course_http_client
from course_runtime.provider_checks import (base_url_from_env, check_key_characters, check_key_destination,
                                            explain_error, extra_body_from_env, local_model_problem)
from course_runtime.settings import (PROJECT_ROOT, SOURCE_DOTENV, SOURCE_STUDENT_TOKEN, EnvFileError, ProviderError,
                                     load_env, source_label, source_of)

from .messages import request_kwargs, validate_tools
from .replies import collect_stream, read_reply
from .texts import t

__all__ = ["MAX_RETRIES", "LOCAL_MAX_RETRIES", "Preset", "PRESETS", "Provider", "ProviderError", "get_provider",
           "get_client", "ping"]

# The SDK's own retries (408/409/429/5xx, timeouts, connection errors), with its
# exponential back-off (0.5 s doubling, at most 8 s) or the server's Retry-After
# (honoured up to 120 s); so one call waits at most about
# (MAX_RETRIES + 1) * timeout + MAX_RETRIES * 120 s, never forever.
MAX_RETRIES = 2

# llama-server queues requests itself and a retry after a timeout only doubles
# the wait; a dead server is restarted by http_client.RestartingTransport instead.  The same
# holds for the class server (nobody restarts it from a student's laptop).
LOCAL_MAX_RETRIES = 0


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
        # The teacher's server (python course.py serve): same model; URL and key from the teacher's lines.
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
        elif self.api_key and self.key_source == SOURCE_STUDENT_TOKEN:
            key = t("providers.describe_student_token")
        elif self.api_key:
            key = t("providers.describe_key_set", key_env=self.preset.key_env,
                    source=source_label(self.key_source or source_of(self.preset.key_env) or SOURCE_DOTENV))
        else:
            key = t("providers.describe_key_missing", key_env=self.preset.key_env)
        return {"provider": self.name, "model": self.model, "base_url": self.base_url, "api_key": key}


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
        ProviderError: a ``.env`` that is not UTF-8 (``settings.read_env_text``),
            unknown provider name, missing key, a key with a character no key
            has (``check_key_characters``), missing
            ``COURSE_BASE_URL``/``COURSE_MODEL`` for ``custom``, a
            ``COURSE_BASE_URL`` without ``http://`` (``base_url_from_env``), a
            ``COURSE_EXTRA_BODY`` that is not a JSON object, a cloud preset's
            key bound for a ``COURSE_BASE_URL`` that is not its own address
            (``check_key_destination``), or ``local`` in an
            environment that cannot run it (a client-only install: ``local_model_problem``).
    Warns:
        UserWarning: once per value, when ``/chat/completions`` was cut off
            ``COURSE_BASE_URL``.
    """
    try:
        load_env()
    except EnvFileError as exc:
        raise ProviderError(str(exc)) from None
    name = (name or os.environ.get("COURSE_PROVIDER") or "local").strip().lower()
    if name not in PRESETS:
        raise ProviderError(t("providers.unknown_provider", name=name, choices=", ".join(PRESETS)))
    preset = PRESETS[name]
    env_url = base_url_from_env()
    if env_url:
        check_key_destination(preset, env_url, name)  # a cloud key only to its own address, before anything else
    base_url = env_url or preset.base_url
    if preset.name == "local" and not env_url:
        problem = local_model_problem()
        if problem:  # a client-only install: say so, rather than try to start a server it does not have
            raise ProviderError(problem)
        base_url = local_server.base_url()
    model = os.environ.get("COURSE_MODEL", "").strip() or preset.model  # "m " would be another model id
    if not base_url:
        raise ProviderError(t("providers.classroom_needs_lines" if name == "classroom" else "providers.needs_base_url",
                              name=name, root=PROJECT_ROOT))
    if not model:
        raise ProviderError(t("providers.needs_model", name=name))
    # Stripped: a key pasted with a trailing space or newline breaks the HTTP header.
    api_key = os.environ.get(preset.key_env, "").strip() if preset.key_env else ""
    source = source_of(preset.key_env) if api_key else None
    if preset.name == "classroom" and not api_key:  # the student's own token, as join handed it to the teacher
        api_key = joined_token() or ""
        source = SOURCE_STUDENT_TOKEN if api_key else None
    if preset.key_env and preset.key_required and not api_key:
        raise ProviderError(t("providers.key_missing", label=preset.label, root=PROJECT_ROOT, key_env=preset.key_env))
    check_key_characters(api_key, preset.key_env)
    body = {**extra_body_from_env(), **(extra_body or {})}
    return Provider(preset, base_url.rstrip("/"), model, api_key, key_source=source, extra_body=body)


def get_client(provider: Provider | None = None, transport: httpx2.BaseTransport | None = None,
               **client_kwargs) -> openai.OpenAI:
    """Return an ``openai.OpenAI`` client for the active provider.

    What it decides: the provider (``get_provider``), the time-out of one
    request and how often the SDK retries; the HTTP client under it is the
    course's (``course_runtime/http_client.py``: the request rules, proxies,
    the class server's errors, the local server started on demand).

    Args:
        provider: from ``get_provider()``; default the active one.
        transport: an ``httpx2`` transport to use instead of the network
            (tests: ``httpx2.MockTransport``); the rules still apply.
        **client_kwargs: passed to ``openai.OpenAI`` (e.g. ``timeout``,
            ``max_retries``; an ``http_client`` given here is used as it is,
            without the rules).
    Returns:
        A client with ``timeout=REQUEST_TIMEOUT_S`` (``CLASSROOM_TIMEOUT_S`` for
        the class server) and ``max_retries=MAX_RETRIES`` (``LOCAL_MAX_RETRIES``
        for the local and the class server) unless overridden.
    Raises:
        ProviderError: see ``get_provider``; a SOCKS proxy without ``socksio``.
        LocalModelError: the local server cannot start.
    """
    provider = provider or get_provider()
    local = provider.is_local  # asked before the server starts: starting it may move its port
    timeout = CLASSROOM_TIMEOUT_S if provider.is_classroom else REQUEST_TIMEOUT_S
    # The local and the class server queue requests themselves: a retry would queue the same work again.
    queued = provider.is_classroom or (local and transport is None and "http_client" not in client_kwargs)
    if "http_client" not in client_kwargs:
        client_kwargs["http_client"] = course_http_client(provider, transport, timeout=timeout,
                                                          check_tools=validate_tools, read_stream=collect_stream)
    client_kwargs.setdefault("timeout", timeout)
    client_kwargs.setdefault("max_retries", LOCAL_MAX_RETRIES if queued else MAX_RETRIES)
    # Starting the local server may have moved it to another port (local_server.ensure_server): ask again.
    base_url = local_server.base_url() if local and transport is None else provider.base_url
    # Servers without keys (llama-server, Ollama) accept any placeholder.
    return openai.OpenAI(base_url=base_url, api_key=provider.api_key or "not-needed", **client_kwargs)


def ping(client: openai.OpenAI | None = None, provider: Provider | None = None) -> str:
    """Send a one-word request and return the reply text, to prove the endpoint works.

    The request is built by ``messages.request_kwargs`` (so ``REQUEST_RULES``
    apply) and read by ``replies.read_reply``.

    Raises:
        ProviderError: one message naming the provider and URL (never the key)
            and what to do (``provider_checks.explain_error``): unreachable,
            timed out, key rejected, model unknown, 429/5xx after the SDK's
            retries, a proxy in the way, or (local) the server could not be
            restarted.
    """
    provider = provider or get_provider()
    client = client or get_client(provider)
    kwargs = request_kwargs(provider.model, [{"role": "user", "content": "Reply with the single word: pong"}],
                            provider=provider, max_tokens=5, temperature=0)
    try:
        resp = client.chat.completions.create(**kwargs)
    except openai.APIError as exc:
        raise ProviderError(explain_error(exc, provider, client)) from None
    except local_server.LocalModelError as exc:
        raise ProviderError(t("providers.local_restart_failed", url=provider.base_url, error=exc)) from None
    return read_reply(resp).text


def main() -> int:
    """``python -m course_lib.providers``: print the active provider and ping it."""
    try:
        provider = get_provider()
        client = get_client(provider)  # starts the local server first: it may have moved to another port
        provider = replace(provider, base_url=str(client.base_url).rstrip("/"))
        for key, value in provider.describe().items():
            print(f"{key:>9}: {value}")
        print(t("providers.ping_line", reply=ping(client, provider=provider)))
    except (ProviderError, local_server.LocalModelError) as exc:
        print(t("providers.error_line", error=exc))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
