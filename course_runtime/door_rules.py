"""What the class door lets through to llama-server, and what it takes out of the replies.

Standard library only; no web framework.  The door (``class_door.py``) parses a
student's JSON body, asks ``screen_request`` whether it may pass, and runs each reply through
``clean_reply_bytes`` (a plain reply) or a ``ReplyStream`` (a streamed one).

Why: llama-server reads far more fields than the OpenAI API (``tools/server/server-task.cpp``,
``params_from_json_cmpl``: ``grammar``, ``n_probs``, ``id_slot``, ``cache_prompt``, ``samplers``,
``logit_bias``, ``n_cmpl``/``n``, ``response_fields``, ``lora``, ``timings_per_token``...), and its
replies tell how much of a prompt it found in its cache, i.e. how many leading tokens of a classmate's
private prompt a student guessed (a prompt-cache side channel, like vLLM's CVE-2025-46570).

**Requests: an allowlist** (``CHAT_FIELDS``, ``TOKENIZE_FIELDS``, ``APPLY_TEMPLATE_FIELDS``).  Only the
fields the course sends, each with a type and a cap; anything else is refused with one Chinese sentence
(``door_rules.*`` in ``texts.py``) naming the field (a path such as ``messages[2].content``).  The survey
behind it (``tests/test_door_rules.py`` repeats it on every run): every keyword passed to
``chat.completions.create`` / ``messages.request_kwargs`` in ``notebooks/*.ipynb``, ``course_lib``,
``solutions``, ``bench``, ``tests/student_answers`` - ``model``, ``messages``, ``max_tokens``,
``temperature``, ``seed``, ``stop``, ``stream``, ``stream_options``, ``tools``, ``tool_choice``,
``parallel_tool_calls``, ``response_format`` - and what the ``openai`` SDK puts in the body for them
(``stream_options: {"include_usage": true}``; ``response_format`` as ``{"type": "json_schema",
"json_schema": {"name", "strict", "schema"}}``; ``tool_choice`` as a string or ``{"type": "function",
"function": {"name"}}``; an SDK reply message sent back keeps its ``reasoning_content``).  Besides:
``max_completion_tokens`` (``request_rules.REQUEST_RULES`` renames ``max_tokens`` to it), ``top_p``
(``course_lib.checkers.request_problem`` checks it), ``enable_thinking`` (``REQUEST_RULES``' body and the
``COURSE_EXTRA_BODY`` example).  ``n`` may only be absent or 1 (``n: 4`` is four generations for one turn
in ``params_from_json_cmpl``).  ``logprobs`` / ``top_logprobs`` are not sent by any lesson and are refused.
``/tokenize``: ``content`` (notebook 07's ``count_tokens``); ``/apply-template``: ``messages``, ``tools``
(notebook 07's ``raw_prompt``).

JSON schemas (``response_format``'s and each tool's ``parameters``; llama-server turns both into a
grammar, ``common/json-schema-to-grammar.cpp``) are bounded in bytes and depth, and so are the repetition
counts that the grammar expands (``minItems``, ``maxLength``...; a ``pattern``'s ``{n}``).  The whole body
is walked first, iteratively (no recursion), for depth and number of values, so hostile input (100 000
levels, a million-item list, NaN, ``True`` where a number is expected - ``True`` is an ``int`` in Python)
gives a sentence, never an exception or a hang.

**Replies: what measures another student's prompt is removed** (``clean_reply``), from llama-server's
``tools/server/server-task.cpp`` (``to_json_oaicompat_chat``, ``to_json_oaicompat_chat_stream``, the
partial ``to_json_oaicompat_chat``, ``usage_json_oaicompat``, ``result_timings::to_json``,
``result_prompt_progress::to_json``) and the strings of the installed ``libllama-server-impl.so``:

* ``timings`` - ``cache_n`` is the number of prompt tokens found in the cache; ``prompt_n`` (those that
  were not) and ``prompt_ms`` / ``prompt_per_token_ms`` / ``prompt_per_second`` measure it too;
* ``usage.prompt_tokens_details`` - ``cached_tokens`` is ``n_prompt_tokens_cache``;
* ``prompt_progress`` - ``{total, cache, processed, time_ms}`` (sent with ``return_progress``, refused
  anyway);
* ``__verbose`` - the whole native result (``tokens_cached``, ``timings``, ``id_slot``, the prompt),
  sent when the server runs with verbosity > 9;
* ``tokens_cached``, ``id_slot`` - the native (non-OpenAI) reply's fields, should one ever pass.

Everything the lessons read stays: ``id``, ``object``, ``created``, ``model``, ``system_fingerprint``,
``choices`` (``message`` / ``delta``: ``role``, ``content``, ``reasoning_content``, ``tool_calls``;
``finish_reason``, ``index``), ``usage.prompt_tokens`` / ``completion_tokens`` / ``total_tokens`` /
``completion_tokens_details``.  Not removed, because it cannot be: the time a reply takes (a cached
prefix answers sooner).

**Streams** (``ReplyStream``): the same cleaning per ``data: {...}`` event, and the usage counted as it
passes, so a stream cut before its last chunk is still billed.

Public API::

    screen_request(path, body, *, max_tokens) -> str | None   # None: pass; else the Chinese refusal
    clean_reply(data: dict) -> dict                           # a new dict, cache measures removed
    clean_reply_bytes(content: bytes) -> bytes                # the same bytes if nothing to remove / not JSON
    usage_of(data) -> (prompt, completion) | None             # read before cleaning
    estimate_prompt_tokens(body) -> int                       # >= 1, generous
    ReplyStream(estimated_prompt=0, max_line=MAX_EVENT_BYTES)  # .feed(piece) -> bytes, .flush() -> bytes,
                                                              # .counted() -> (prompt, completion), .usage,
                                                              # .completion_tokens_so_far; raises ReplyTooBig
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable

from .texts import t

# ---------------------------------------------------------------------------
# Caps
# ---------------------------------------------------------------------------
MAX_BODY_DEPTH = 24          # levels of dicts/lists in a whole body (a lesson's deepest: about 12)
MAX_BODY_VALUES = 20_000     # values (dicts, lists, scalars) in a whole body (a lesson's: a few hundred)
MAX_TEXT_CHARS = 200_000     # one message's text, one /tokenize content (an 8192-token slot is ~40 KB)
MAX_SHORT_CHARS = 256        # model, ids, names, stop strings, schema names
MAX_TOOL_NAME_CHARS = 64     # OpenAI's limit for a function name
MAX_DESCRIPTION_CHARS = 4096
MAX_ARGUMENTS_CHARS = 32_768  # one tool call's arguments (JSON text)
MAX_MESSAGES = 512
MAX_CONTENT_PARTS = 64
MAX_TOOLS = 64
MAX_TOOL_CALLS = 32
MAX_STOP = 4                 # OpenAI's limit; the course sends at most 2 (react.LINE_STOP)
MAX_SCHEMA_BYTES = 16 * 1024  # one JSON schema, written as compact JSON (the course's largest: ~220 bytes)
MAX_SCHEMA_DEPTH = 10        # levels inside one schema (the course's deepest: 5)
MAX_TOOLS_BYTES = 64 * 1024  # all tools together
MAX_SCHEMA_REPEAT = 256      # minItems, maxLength... and a pattern's {n}: the grammar writes each repeat out
MAX_TOP_P = 1
MAX_TEMPERATURE = 2
MAX_EVENT_BYTES = 1024 * 1024  # one line of a streamed reply
INT64 = 2 ** 63

ROLES = ("system", "developer", "user", "assistant", "tool")  # course_lib.messages.ROLES
REPEAT_KEYWORDS = ("minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties",
                   "minContains", "maxContains")


class _Refused(Exception):
    """Internal: carries the sentence of the first rule a body breaks."""

    def __init__(self, sentence: str):
        super().__init__(sentence)
        self.sentence = sentence


_KIND_KEYS = {"null": "door_rules.kind_null", "bool": "door_rules.kind_bool", "int": "door_rules.kind_int",
              "number": "door_rules.kind_number", "string": "door_rules.kind_string", "list": "door_rules.kind_list",
              "object": "door_rules.kind_object", "other": "door_rules.kind_other"}


def _kind_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return "other"


def _kind(value: Any) -> str:
    """The JSON kind of ``value`` in the student's words (``door_rules.kind_*``)."""
    return t(_KIND_KEYS[_kind_name(value)])


def _shown(value: Any) -> str:
    """A short, safe picture of a scalar (never of a whole structure)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        text = str(value) if abs(value) < 10 ** 30 else f"{str(value)[:12]}…"
        return text
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 40 else value[:40] + "…", ensure_ascii=False)
    return _kind(value)


def _name(key: Any) -> str:
    """A field name as a sentence shows it: at most 64 characters."""
    text = key if isinstance(key, str) else _shown(key)
    return text if len(text) <= 64 else text[:64] + "…"


def _want(*kinds: str) -> str:
    return t("door_rules.or").join(t(_KIND_KEYS[k]) for k in kinds)


def _type(field: str, value: Any, *kinds: str) -> _Refused:
    got = _kind(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        got = f" {_shown(value)}" if _kind_name(value) in ("null", "bool") else f"{got} {_shown(value)}"
    return _Refused(t("door_rules.type", field=field, want=_want(*kinds), got=got))


# ---------------------------------------------------------------------------
# Scalars
# ---------------------------------------------------------------------------
def _text(value: Any, field: str, most: int = MAX_TEXT_CHARS, nullable: bool = False) -> None:
    if value is None and nullable:
        return
    if not isinstance(value, str):
        raise _type(field, value, "string", *(("null",) if nullable else ()))
    if len(value) > most:
        raise _Refused(t("door_rules.too_long", field=field, most=most, count=len(value)))


def _flag(value: Any, field: str, nullable: bool = True) -> None:
    if value is None and nullable:
        return
    if not isinstance(value, bool):
        raise _type(field, value, "bool")


def _number(value: Any, field: str, low: float, high: float) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _type(field, value, "number")
    if (isinstance(value, float) and not math.isfinite(value)) or not low <= value <= high:
        raise _Refused(t("door_rules.range", field=field, low=low, high=high, value=_shown(value)))


def _integer(value: Any, field: str, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _type(field, value, "int")
    if not low <= value <= high:
        raise _Refused(t("door_rules.range", field=field, low=low, high=high, value=_shown(value)))


def _one_of(value: Any, field: str, allowed: tuple) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise _Refused(t("door_rules.one_of", field=field, allowed=", ".join(allowed), value=_shown(value)))


def _object(value: Any, field: str, allowed: dict[str, Callable[[Any, str], None]],
            required: tuple[str, ...] = ()) -> None:
    """``value`` must be a dict whose keys are all in ``allowed``; each checked by its function."""
    if not isinstance(value, dict):
        raise _type(field, value, "object")
    for key, item in value.items():
        where = f"{field}.{_name(key)}" if field else _name(key)
        check = allowed.get(key) if isinstance(key, str) else None
        if check is None:
            raise _Refused(t("door_rules.unknown_field", field=where, allowed=", ".join(allowed)))
        check(item, where)
    for key in required:
        if key not in value:
            raise _Refused(t("door_rules.missing", field=f"{field}.{key}" if field else key))


def _list(value: Any, field: str, most: int, each: Callable[[Any, str], None]) -> None:
    if not isinstance(value, list):
        raise _type(field, value, "list")
    if len(value) > most:
        raise _Refused(t("door_rules.too_many", field=field, most=most, count=len(value)))
    for i, item in enumerate(value):
        each(item, f"{field}[{i}]")


def _nullable(check: Callable[[Any, str], None]) -> Callable[[Any, str], None]:
    def checked(value: Any, field: str) -> None:
        if value is not None:
            check(value, field)
    return checked


# ---------------------------------------------------------------------------
# Whole-body walk, JSON schemas
# ---------------------------------------------------------------------------
def _walk(body: Any, most_depth: int, most_values: int, field: str = "") -> None:
    """Bound depth and size of ``body`` iteratively; JSON types only, str keys, finite floats.

    The field named in a refusal is the top-level key under which the problem lies.
    """
    stack: list[tuple[Any, int, str]] = [(body, 1, field)]
    seen = 0
    while stack:
        value, depth, where = stack.pop()
        seen += 1
        if seen > most_values:
            raise _Refused(t("door_rules.too_big", field=where or "body", most=most_values))
        if depth > most_depth:
            raise _Refused(t("door_rules.too_deep", field=where or "body", most=most_depth))
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise _type(where or "body", key, "string")
                stack.append((item, depth + 1, where or _name(key)))
        elif isinstance(value, list):
            stack.extend((item, depth + 1, where) for item in value)
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise _Refused(t("door_rules.not_finite", field=where or "body", value=_shown(value)))
        elif not (value is None or isinstance(value, (str, int))):
            raise _type(where or "body", value, "object", "list", "string", "number", "bool", "null")


_REPEAT = re.compile(r"\{\s*(\d+)\s*(?:,\s*(\d*)\s*)?\}")


def _pattern_too_big(pattern: str) -> bool:
    """A ``pattern`` longer than ``MAX_SHORT_CHARS`` or with an ``{n}`` / ``{n,m}`` above ``MAX_SCHEMA_REPEAT``."""
    if len(pattern) > MAX_SHORT_CHARS:
        return True
    return any(n and (len(n) > 9 or int(n) > MAX_SCHEMA_REPEAT) for pair in _REPEAT.findall(pattern) for n in pair)


def _schema(value: Any, field: str) -> None:
    """A JSON schema llama-server turns into a grammar: bounded bytes, depth, repeat counts."""
    if not isinstance(value, dict):
        raise _type(field, value, "object")
    _walk(value, MAX_SCHEMA_DEPTH, MAX_SCHEMA_BYTES, field)
    size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > MAX_SCHEMA_BYTES:
        raise _Refused(t("door_rules.schema_big", field=field, most=MAX_SCHEMA_BYTES, count=size))
    stack: list[tuple[Any, str]] = [(value, field)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            for key, item in node.items():
                inner = f"{where}.{_name(key)}"
                if key in REPEAT_KEYWORDS and isinstance(item, (int, float)) and not isinstance(item, bool) \
                        and item > MAX_SCHEMA_REPEAT:
                    raise _Refused(t("door_rules.repeat", field=inner, most=MAX_SCHEMA_REPEAT, value=_shown(item)))
                if key == "pattern" and isinstance(item, str) and _pattern_too_big(item):
                    raise _Refused(t("door_rules.repeat", field=inner, most=MAX_SCHEMA_REPEAT, value=_shown(item)))
                stack.append((item, inner))
        elif isinstance(node, list):
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(node))


# ---------------------------------------------------------------------------
# Messages, tools, formats
# ---------------------------------------------------------------------------
def _text_part(value: Any, field: str) -> None:
    _object(value, field, {"type": lambda v, f: _one_of(v, f, ("text",)), "text": _text}, required=("type", "text"))


def _content(value: Any, field: str) -> None:
    if value is None or isinstance(value, str):
        _text(value, field, nullable=True)
    elif isinstance(value, list):
        _list(value, field, MAX_CONTENT_PARTS, _text_part)
    else:
        raise _type(field, value, "string", "list", "null")


def _call_function(value: Any, field: str) -> None:
    _object(value, field, {"name": lambda v, f: _text(v, f, MAX_TOOL_NAME_CHARS),
                           "arguments": lambda v, f: _text(v, f, MAX_ARGUMENTS_CHARS)})


def _tool_call(value: Any, field: str) -> None:
    _object(value, field, {
        "id": lambda v, f: _text(v, f, MAX_SHORT_CHARS),
        "type": lambda v, f: _one_of(v, f, ("function",)),
        "function": _call_function,
        "index": lambda v, f: _integer(v, f, 0, MAX_TOOL_CALLS),
    })


MESSAGE_FIELDS: dict[str, Callable[[Any, str], None]] = {
    "role": lambda v, f: _one_of(v, f, ROLES),
    "content": _content,
    "name": lambda v, f: _text(v, f, MAX_SHORT_CHARS, nullable=True),
    "tool_calls": _nullable(lambda v, f: _list(v, f, MAX_TOOL_CALLS, _tool_call)),
    "tool_call_id": lambda v, f: _text(v, f, MAX_SHORT_CHARS, nullable=True),
    "reasoning_content": lambda v, f: _text(v, f, nullable=True),
    "refusal": lambda v, f: _text(v, f, nullable=True),
}


def _message(value: Any, field: str) -> None:
    _object(value, field, MESSAGE_FIELDS, required=("role",))


def _messages(value: Any, field: str) -> None:
    _list(value, field, MAX_MESSAGES, _message)


def _tool_function(value: Any, field: str) -> None:
    _object(value, field, {
        "name": lambda v, f: _text(v, f, MAX_TOOL_NAME_CHARS),
        "description": lambda v, f: _text(v, f, MAX_DESCRIPTION_CHARS, nullable=True),
        "parameters": _schema,
        "strict": _flag,
    }, required=("name",))


def _tool(value: Any, field: str) -> None:
    _object(value, field, {"type": lambda v, f: _one_of(v, f, ("function",)), "function": _tool_function},
            required=("type", "function"))


def _tools(value: Any, field: str) -> None:
    if value is None:
        return
    _list(value, field, MAX_TOOLS, _tool)
    size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    if size > MAX_TOOLS_BYTES:
        raise _Refused(t("door_rules.schema_big", field=field, most=MAX_TOOLS_BYTES, count=size))


def _tool_choice(value: Any, field: str) -> None:
    if value is None:
        return
    if isinstance(value, dict):
        _object(value, field, {
            "type": lambda v, f: _one_of(v, f, ("function",)),
            "function": lambda v, f: _object(v, f, {"name": lambda v2, f2: _text(v2, f2, MAX_TOOL_NAME_CHARS)},
                                             required=("name",)),
        }, required=("type", "function"))
    else:
        _one_of(value, field, ("none", "auto", "required"))


def _json_schema_format(value: Any, field: str) -> None:
    _object(value, field, {
        "name": lambda v, f: _text(v, f, MAX_TOOL_NAME_CHARS),
        "description": lambda v, f: _text(v, f, MAX_DESCRIPTION_CHARS, nullable=True),
        "strict": _flag,
        "schema": _schema,
    }, required=("name",))


def _response_format(value: Any, field: str) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        raise _type(field, value, "object")
    _one_of(value.get("type"), f"{field}.type", ("text", "json_object", "json_schema"))
    allowed: dict[str, Callable[[Any, str], None]] = {"type": lambda v, f: None}
    if value["type"] == "json_schema":
        allowed["json_schema"] = _json_schema_format
        _object(value, field, allowed, required=("json_schema",))
    else:
        _object(value, field, allowed)


def _stop(value: Any, field: str) -> None:
    if value is None or isinstance(value, str):
        _text(value, field, MAX_SHORT_CHARS, nullable=True)
    else:
        _list(value, field, MAX_STOP, lambda v, f: _text(v, f, MAX_SHORT_CHARS))


def _n(value: Any, field: str) -> None:
    if value is None or (type(value) is int and value == 1):
        return
    raise _Refused(t("door_rules.n", value=_shown(value)))


def _stream_options(value: Any, field: str) -> None:
    if value is not None:
        _object(value, field, {"include_usage": _flag})


def _chat_fields(max_tokens: int) -> dict[str, Callable[[Any, str], None]]:
    def token_cap(value: Any, field: str) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= max_tokens:
            raise _Refused(t("door_rules.max_tokens", field=field, most=max_tokens, value=_shown(value)))

    return {
        "model": lambda v, f: _text(v, f, MAX_SHORT_CHARS),
        "messages": _messages,
        "max_tokens": token_cap,
        "max_completion_tokens": token_cap,
        "temperature": lambda v, f: _number(v, f, 0, MAX_TEMPERATURE),
        "top_p": lambda v, f: _number(v, f, 0, MAX_TOP_P),
        "seed": _nullable(lambda v, f: _integer(v, f, -INT64, INT64 - 1)),
        "n": _n,
        "stop": _stop,
        "stream": _flag,
        "stream_options": _stream_options,
        "tools": _tools,
        "tool_choice": _tool_choice,
        "parallel_tool_calls": _flag,
        "response_format": _response_format,
        "enable_thinking": _flag,
    }


CHAT_FIELDS: tuple[str, ...] = tuple(_chat_fields(1))
"""The fields a ``POST /v1/chat/completions`` body may have (each is type- and size-checked)."""
TOKENIZE_FIELDS: tuple[str, ...] = ("content",)
"""The fields of a ``POST /tokenize`` body (notebook 07: ``{"content": text}``)."""
APPLY_TEMPLATE_FIELDS: tuple[str, ...] = ("messages", "tools")
"""The fields of a ``POST /apply-template`` body (notebook 07: ``{"messages": ..., "tools": [...]}``)."""


def screen_request(path: str, body: Any, *, max_tokens: int) -> str | None:
    """Whether a student's parsed JSON ``body`` for ``path`` may be passed on to llama-server.

    Args:
        path: ``"/v1/chat/completions"``, ``"/tokenize"`` or ``"/apply-template"`` (any other path is
            refused: the door has no rules for it).
        body: what ``json.loads`` gave (anything: a hostile body is refused, never raises).
        max_tokens: the cap of ``max_tokens`` / ``max_completion_tokens`` in tokens, the server's
            context per slot (``--ctx-size`` / ``--parallel``).
    Returns:
        None when the body may pass; else one Chinese sentence (``door_rules.*``) naming the first
        field that breaks a rule and what is allowed there.  Nothing raises: an unforeseen failure of
        a check refuses the body (``door_rules.unreadable``).
    """
    try:
        if not isinstance(body, dict):
            return t("door_rules.not_object", got=_kind(body))
        if path == "/v1/chat/completions":
            fields = _chat_fields(max_tokens)
            required: tuple[str, ...] = ("model", "messages")
        elif path == "/tokenize":
            fields, required = {"content": _text}, ("content",)
        elif path == "/apply-template":
            fields, required = {"messages": _messages, "tools": _tools}, ("messages",)
        else:
            return t("door_rules.path", path=_shown(path))
        # Names first (cheap, and the sentence a student needs), then the shape of everything.
        for key in body:
            if key not in fields:
                return t("door_rules.unknown_field", field=_name(key), allowed=", ".join(fields))
        _walk(body, MAX_BODY_DEPTH, MAX_BODY_VALUES)
        _object(body, "", fields, required)
        return None
    except _Refused as refused:
        return refused.sentence
    except Exception:  # noqa: BLE001 - a gate fails closed
        return t("door_rules.unreadable")


# ---------------------------------------------------------------------------
# Replies
# ---------------------------------------------------------------------------
REMOVED_TOP = ("timings", "prompt_progress", "__verbose", "tokens_cached", "id_slot")
"""Top-level reply fields removed by ``clean_reply`` (see the module docstring for why)."""
REMOVED_USAGE = ("prompt_tokens_details",)
"""Fields of ``usage`` removed by ``clean_reply`` (``cached_tokens``)."""


def _needs_cleaning(data: dict) -> bool:
    usage = data.get("usage")
    return any(k in data for k in REMOVED_TOP) or (
        isinstance(usage, dict) and any(k in usage for k in REMOVED_USAGE))


def clean_reply(data: dict) -> dict:
    """A chat reply or stream chunk without what measures the prompt cache.

    Args:
        data: a parsed llama-server reply (``chat.completion``) or chunk (``chat.completion.chunk``);
            anything that is not a dict is returned as it is.
    Returns:
        A new dict (``data`` is not changed) without ``REMOVED_TOP`` and ``usage``'s
        ``REMOVED_USAGE``; every other field, at any depth, is the same object as in ``data``.
    """
    if not isinstance(data, dict):
        return data
    out = {k: v for k, v in data.items() if k not in REMOVED_TOP}
    usage = out.get("usage")
    if isinstance(usage, dict):
        out["usage"] = {k: v for k, v in usage.items() if k not in REMOVED_USAGE}
    return out


def _dumps(data: Any) -> bytes:
    # llama-server writes compact JSON with non-ASCII characters as they are (nlohmann::json::dump()).
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def clean_reply_bytes(content: bytes) -> bytes:
    """``clean_reply`` on a non-streamed reply's body.

    Returns ``content`` itself when it is not a JSON object or has nothing to remove (so the bytes stay
    byte for byte); else the cleaned object as compact UTF-8 JSON.
    """
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):
        return content
    if not isinstance(data, dict) or not _needs_cleaning(data):
        return content
    return _dumps(clean_reply(data))


def usage_of(data: Any) -> tuple[int, int] | None:
    """``(prompt_tokens, completion_tokens)`` of one reply or chunk, read BEFORE cleaning, or None.

    From ``usage`` when it has an int ``prompt_tokens``; else from llama-server's ``timings``
    (``cache_n + prompt_n`` prompt tokens, ``predicted_n`` generated; ``result_timings::to_json`` in
    ``tools/server/server-task.cpp``) - the rule the door bills by.
    """
    if not isinstance(data, dict):
        return None
    usage = data.get("usage")
    if isinstance(usage, dict) and _count(usage.get("prompt_tokens")) is not None:
        return _count(usage["prompt_tokens"]), _count(usage.get("completion_tokens")) or 0
    timings = data.get("timings")
    if isinstance(timings, dict) and _count(timings.get("predicted_n")) is not None:
        return (_count(timings.get("cache_n")) or 0) + (_count(timings.get("prompt_n")) or 0), \
            _count(timings["predicted_n"])
    return None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _is_token_chunk(data: dict) -> bool:
    choices = data.get("choices")
    if not isinstance(choices, list):
        return False
    for choice in choices:
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if isinstance(delta, dict) and any(delta.get(k) for k in ("content", "reasoning_content", "tool_calls")):
            return True
    return False


def estimate_prompt_tokens(body: Any) -> int:
    """A deliberately generous estimate of a chat request's prompt tokens (int >= 1).

    Counted: the UTF-8 bytes of the text the template renders - each message's ``content`` (a string or
    its text parts), ``reasoning_content``, ``name``, ``tool_call_id``, its tool calls' names and
    arguments - plus the tools as compact JSON.  Each ASCII digit is one token (Qwen2's pre-tokenizer
    splits numbers into single digits); every other 3 bytes are one token, rounded up (a Chinese
    character is 3 bytes and at most one token; English runs about 4 characters a token), plus 4
    tokens per message for the template's ``<|im_start|>role\\n ... <|im_end|>\\n``.  Used to bill a
    stream cut before its usage arrived; a body of any other shape gives 1.
    """
    if not isinstance(body, dict):
        return 1
    texts: list[str] = []
    messages = body.get("messages")
    messages = messages if isinstance(messages, list) else []
    for message in messages:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
        for key in ("reasoning_content", "name", "tool_call_id", "role"):
            if isinstance(message.get(key), str):
                texts.append(message[key])
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                texts.extend(v for v in (function.get("name"), function.get("arguments")) if isinstance(v, str))
    tools = body.get("tools")
    if isinstance(tools, list) and tools:
        try:
            texts.append(json.dumps(tools, ensure_ascii=False, separators=(",", ":")))
        except (TypeError, ValueError, RecursionError):
            pass
    digits = other = 0
    for text in texts:
        raw = text.encode("utf-8", "replace")
        d = sum(raw.count(c) for c in b"0123456789")
        digits += d
        other += len(raw) - d
    return max(1, digits + -(-other // 3) + 4 * len(messages))


class ReplyTooBig(ValueError):
    """A streamed reply's line is longer than ``ReplyStream.max_line`` bytes (the stream should be cut)."""


class ReplyStream:
    """Cleans a streamed chat reply (server-sent events) as it passes, and counts its tokens.

    ``feed`` each raw piece as it arrives (split anywhere: inside a line or a UTF-8 character) and
    forward what it returns; call ``flush`` when the stream ends.  A complete ``data: {...}`` line is
    passed through ``clean_reply`` (its usage read first); ``data: [DONE]``, comments, blank lines and
    lines that are not JSON objects pass unchanged, as does a JSON line with nothing to remove.

    Attributes:
        max_line: the longest line in bytes (``MAX_EVENT_BYTES``); a longer one raises ``ReplyTooBig``.
        estimated_prompt: the prompt tokens to bill before the exact figure arrives
            (``estimate_prompt_tokens`` of the request).
        completion_tokens_so_far: chunks whose choices carry a non-empty ``content``,
            ``reasoning_content`` or ``tool_calls`` delta.  llama-server sends one chunk per generated
            token (``server_task_result_cmpl_partial::to_json_oaicompat_chat``: one chunk per message
            diff of the token), so this is the tokens generated so far, give or take a token whose
            text the chat parser holds back or splits into two diffs.
        usage: ``(prompt_tokens, completion_tokens)`` exact from the last chunk carrying ``usage`` or
            ``timings`` (``usage_of``), else None.
    """

    def __init__(self, estimated_prompt: int = 0, max_line: int = MAX_EVENT_BYTES):
        self.estimated_prompt = int(estimated_prompt)
        self.max_line = max_line
        self.completion_tokens_so_far = 0
        self.usage: tuple[int, int] | None = None
        self._rest = b""

    def counted(self) -> tuple[int, int]:
        """``(prompt, completion)`` tokens: ``usage`` when seen, else (the estimate, chunks so far)."""
        if self.usage is not None:
            return self.usage
        return self.estimated_prompt, self.completion_tokens_so_far

    def feed(self, piece: bytes) -> bytes:
        """Take one raw piece; return the bytes to forward now (complete lines, cleaned).

        Raises:
            ReplyTooBig: a line (complete, or still open) is longer than ``max_line`` bytes.
        """
        data = self._rest + piece
        end = data.rfind(b"\n")
        if end < 0:
            self._rest = data
            if len(data) > self.max_line:
                raise ReplyTooBig(f"a streamed line is longer than {self.max_line} bytes")
            return b""
        self._rest = data[end + 1:]
        if len(self._rest) > self.max_line:
            raise ReplyTooBig(f"a streamed line is longer than {self.max_line} bytes")
        return b"".join(self._line(line + b"\n") for line in data[:end].split(b"\n"))

    def flush(self) -> bytes:
        """The rest: a last line without its newline, handled like any line (the stream ended)."""
        rest, self._rest = self._rest, b""
        return self._line(rest) if rest else b""

    def _line(self, line: bytes) -> bytes:
        if len(line) > self.max_line + 2:
            raise ReplyTooBig(f"a streamed line is longer than {self.max_line} bytes")
        if not line.startswith(b"data:"):
            return line
        body = line.rstrip(b"\r\n")
        ending = line[len(body):]
        start = 6 if body.startswith(b"data: ") else 5
        payload = body[start:]
        if not payload.lstrip().startswith(b"{"):
            return line  # [DONE], or not JSON
        try:
            data = json.loads(payload)
        except (ValueError, RecursionError):
            return line
        if not isinstance(data, dict):
            return line
        found = usage_of(data)
        if found is not None:
            self.usage = found
        if _is_token_chunk(data):
            self.completion_tokens_so_far += 1
        if not _needs_cleaning(data):
            return line
        return body[:start] + _dumps(clean_reply(data)) + ending
