"""Per-provider request rules: what to change in a request so that an endpoint accepts it.

Not opened in class: notebooks 00 (the presets) and 01 (the request a notebook sends is the
request on the wire) name what it does.

Some endpoints refuse a request that others accept.  ``REQUEST_RULES`` is the
one table of such rules (which model ids / which provider, what to change in
the body); ``apply_request_rules`` applies it, and it is applied twice, with
the same result: by ``messages.request_kwargs`` (so the kwargs a loop shows
are what is sent) and by ``http_client.CourseHttpClient`` under every client of
``providers.get_client`` (so a request written by hand with the raw SDK in a
notebook is fixed the same way).  A relay that rejects ``stream_options`` is
remembered per base URL (``stream_usage_unavailable``); the streamed request is
sent again without it.

A "provider" here is anything with ``preset.name``, ``base_url`` and
``extra_body`` (a ``providers.Provider``; an ``openai.OpenAI`` client has
``base_url``), or None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


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
        drop: fields the endpoint refuses whatever their value; left out.
        body: fields added unless the request already has them.
    """

    name: str
    why: str
    models: str = ""
    providers: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    rename: dict = field(default_factory=dict)
    only_default: dict = field(default_factory=dict)
    drop: tuple[str, ...] = ()
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
        "chat/create: max_tokens 'not compatible with o-series models'; reasoning guide), and 400 "
        "'Unsupported parameter: stop' to stop sequences (chat/create: stop 'not supported with latest "
        "reasoning models').  The ReAct loops' parsers cut a model-written Observation themselves, so "
        "leaving stop out loses nothing.  Any endpoint serving them (OpenAI, Azure, relays) has the same "
        "limits, so the rule is by model id only.",
        models=r"(?:gpt-5|o1|o3|o4-mini)(?![a-z0-9])",
        rename={"max_tokens": "max_completion_tokens"},
        only_default={"temperature": 1},
        drop=("stop",),
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


def endpoint_of(provider: Any) -> tuple[str, str, dict]:
    """``(provider name, base URL, extra_body)`` of a Provider, an openai client or None."""
    if provider is None:
        return "", "", {}
    name = getattr(getattr(provider, "preset", None), "name", "") or ""
    base_url = str(getattr(provider, "base_url", "") or "").rstrip("/")
    return name, base_url, dict(getattr(provider, "extra_body", None) or {})


def remember_no_stream_options(base_url: str) -> None:
    """Remember that the server at ``base_url`` answered 400 to ``stream_options`` (never sent there again)."""
    _NO_STREAM_OPTIONS.add(base_url.rstrip("/"))


def stream_usage_unavailable(provider_or_url: Any) -> bool:
    """True if that endpoint rejected ``stream_options`` before (so streamed replies carry no usage).

    Args:
        provider_or_url: a ``Provider``, an ``openai.OpenAI`` client, or a base URL string.
    """
    url = provider_or_url if isinstance(provider_or_url, str) else endpoint_of(provider_or_url)[1]
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
    name, base_url, extra = endpoint_of(provider)
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
        for key in rule.drop:
            out.pop(key, None)
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
