"""Reading the model's tool calls safely, and answering them.

Taught in notebook 04 (section 4); the loop of notebook 06 is built on it.

The assistant message of a chat completion can ask for tools in
``message.tool_calls``; each call is ``{"id", "type": "function",
"function": {"name", "arguments"}}`` where ``arguments`` should be a JSON
*string* (OpenAI Chat Completions API reference).  Real servers bend that:

* ``arguments`` arrives as an already-parsed object (some OpenAI-compatible
  servers), as ``""``, as whitespace or as null (a tool without parameters),
  or as broken JSON (small models);
* a call has no ``id``, an empty one, or the same id as another call;
* there are no ``tool_calls`` at all and the call is written as text in
  ``content`` instead (```json {"name": ..., "arguments": ...}``` or a bare
  object) - the course's 1.5B model does this now and then;
* ``content`` is ``""`` or whitespace next to real ``tool_calls``.

``read_assistant(message, tool_names)`` handles all of these once and returns
an ``AssistantTurn``: the cleaned assistant message to append to ``messages``,
the calls as ``ToolCall`` objects, the reply text, and an ``error`` when the
content looked like a tool call that could not be read.  ``run_call(call,
registry)`` answers one call with a ``records.ToolResult`` (its ``ok`` says
whether the tool really ran); ``execute(calls, registry)`` answers them all
with one ``role="tool"`` message per call, in order.  Neither ever raises, so
the loop always goes on.  Tool names are matched by ``tools.registry.lookup_tool``.

Why unreadable arguments are stored as ``"{}"``: llama-server (llama.cpp,
``--jinja``) parses every ``arguments`` string in the history and answers
HTTP 500 "Failed to parse tool call arguments as JSON" for broken JSON or
``""`` (measured on the course server).  So the stored message always carries
valid JSON, and the tool reply quotes what the model actually sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterable

from .json_scan import JsonCandidate, scan_objects
from .messages import content_text, has_text, new_call_id, to_dict, tool_content
from .records import ToolCall, ToolResult  # the call and its answer, beside the step records
from .texts import shorten, t
from .tools.failure import ToolFailure
from .tools.registry import available_text, lookup_tool, unknown_tool_text, unquote_values

# How much of a model's broken arguments is quoted back in an error (characters).
QUOTE_CHARS = 200

# A "name" key and an "arguments"/"parameters" key, double- or single-quoted:
# used only to decide whether text that failed to parse *looked like* a tool call.
_NAME_KEY_RE = re.compile(r"""["']name["']\s*:""")
_ARGS_KEY_RE = re.compile(r"""["'](?:arguments|parameters)["']\s*:""")
_MISSING = object()


@dataclass
class AssistantTurn:
    """What ``read_assistant`` found in one assistant message.

    Attributes:
        message: the assistant message to append to ``messages``: a plain dict,
            call ids fixed, ``arguments`` strings, content ``None`` when there
            are tool calls and no real text.
        calls: the tool calls to run (empty: the model answered in text, or ``error``).
        text: the reply text, or None if empty/whitespace (also None when
            the text was recovered into calls).
        error: set when the content looked like a tool call that could not
            be used (broken JSON, or a tool name that is not registered); it
            is a message for the model (Chinese, naming the available tools).
            Send it as a corrective user message; do not treat the content
            as the final answer.
    """

    message: dict
    calls: list[ToolCall]
    text: str | None
    error: str | None


def _kind(value: Any) -> str:
    """A Chinese name for a JSON value's type, for error messages."""
    if isinstance(value, bool):
        return "布尔值"
    if isinstance(value, (int, float)):
        return "数字"
    if isinstance(value, str):
        return "字符串"
    if isinstance(value, (list, tuple)):
        return "数组"
    return type(value).__name__


def read_arguments(arguments: Any) -> tuple[dict | None, str, str | None]:
    """Read tool-call ``arguments`` in any form a server sends them.

    Args:
        arguments: a JSON string (the API's form), an already-parsed dict
            (some servers), ``""``, whitespace, ``"null"`` or None (= no arguments),
            or the object's JSON encoded twice (a JSON string whose value is the
            object's JSON text, as some relays send): decoded once more.
    Returns:
        ``(arguments, text, None)`` with a dict and the JSON text to store in the
        message, or ``(None, "{}", error)`` where ``error`` says in Chinese what was
        wrong: malformed JSON (with line/column and the text received, shortened
        to ``QUOTE_CHARS``), or JSON that is not an object (a list, number,
        string ...).  Never raises.
    """
    if arguments is None:
        return {}, "{}", None
    if isinstance(arguments, dict):
        return dict(arguments), json.dumps(arguments, ensure_ascii=False), None
    if not isinstance(arguments, str):
        return None, "{}", f"参数必须是 JSON 对象（{{...}}），收到的是{_kind(arguments)}：{shorten(repr(arguments), QUOTE_CHARS)}"
    if not arguments.strip():
        return {}, "{}", None
    text: str | None = arguments
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError as exc:
        try:  # raw newlines/tabs inside strings: readable, but stored re-encoded
            value = json.loads(arguments, strict=False)
            text = None
        except json.JSONDecodeError:
            return None, "{}", (
                f"参数不是合法的 JSON（{exc.msg}，第 {exc.lineno} 行第 {exc.colno} 列）。"
                f"收到的参数：{shorten(arguments, QUOTE_CHARS)}"
            )
    if value is None:  # the JSON text "null": no arguments
        return {}, "{}", None
    if isinstance(value, str) and value.strip().startswith("{"):  # encoded twice: a JSON string holding the object
        try:
            inner = json.loads(value)
        except json.JSONDecodeError:
            inner = None
        if isinstance(inner, dict):
            return inner, json.dumps(inner, ensure_ascii=False), None
    if not isinstance(value, dict):
        return None, "{}", f"参数必须是 JSON 对象（{{...}}），收到的是{_kind(value)}：{shorten(arguments, QUOTE_CHARS)}"
    return value, text or json.dumps(value, ensure_ascii=False), None


def _names(tool_names: Any) -> list[str]:
    """Tool names from a list, a dict (its keys) or a ToolRegistry (its ``names``)."""
    if tool_names is None:
        return []
    if hasattr(tool_names, "names") and not isinstance(tool_names, (str, Mapping)):
        tool_names = tool_names.names
    if isinstance(tool_names, str):
        return [tool_names]
    return [str(n) for n in tool_names]


def _call_shape(obj: dict, names: list[str]) -> tuple[str, Any] | None:
    """``(name, arguments)`` if ``obj`` is written like a tool call, else None.

    Accepted: ``{"name": ..., "arguments": ...}``, ``{"name": ..., "parameters": ...}``,
    the OpenAI shape ``{"type": "function", "function": {...}}``, and
    ``{"name": <registered tool>}`` alone.  Other objects with a "name" key
    (``{"name": "张三", "age": 18}``) are data, not calls.
    """
    if isinstance(obj.get("function"), dict) and "name" in obj["function"]:
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    args = obj.get("arguments", obj.get("parameters", _MISSING))
    if args is _MISSING:
        if lookup_tool(name, names) is None:
            return None
        args = None
    return name.strip(), args


def find_text_calls(text: str, tool_names: Iterable[str]) -> tuple[list[tuple[str, Any]], list[str]]:
    """Find tool calls written as JSON text in a reply.

    Every ``{`` is a candidate (``json_scan.scan_objects``: the brace matcher
    understands strings; objects are read as JSON, then without trailing
    commas, then as Python literals - never ``eval``).  Fences and prose
    around the objects do not matter; objects inside a recognised call are
    not scanned again.

    Args:
        text: the reply content.
        tool_names: the registered tool names (used for ``{"name": <tool>}`` alone).
    Returns:
        ``(calls, broken)``: ``calls`` is a list of ``(name, arguments)`` in
        text order (``arguments`` as written: dict, str or None); ``broken``
        lists a description (Chinese) of each piece of text that has a
        ``"name"`` and an ``"arguments"``/``"parameters"`` key but could not
        be read as JSON.
    """
    names = _names(tool_names)
    calls: list[tuple[int, str, Any]] = []
    broken: list[JsonCandidate] = []

    def is_call(candidate: JsonCandidate) -> bool:
        shape = _call_shape(candidate.value, names) if isinstance(candidate.value, dict) else None
        if shape is not None:
            calls.append((candidate.start, *shape))
        return shape is not None

    for candidate in scan_objects(text, skip_nested=is_call):
        snippet = candidate.snippet(text)
        if candidate.error and _NAME_KEY_RE.search(snippet) and _ARGS_KEY_RE.search(snippet):
            broken.append(candidate)
    # A broken outer piece that contains a readable call (e.g. an unclosed wrapper) is not reported.
    problems = [b.error for b in broken if not any(b.start <= c[0] < b.end for c in calls)]
    return [(name, args) for _, name, args in calls], problems


def _error_broken(detail: str, names: list[str]) -> str:
    return (
        f"你的回复看起来是想调用工具，但写在回复正文里的 JSON 无法解析：{detail}。"
        "如果需要调用工具，请直接发起工具调用（tool_calls），不要把 JSON 写在正文里；"
        f"如果不需要工具，请直接用文字回答。可用的工具：{available_text(names)}"
    )


def _error_unknown(unknown: list[str], names: list[str]) -> str:
    return f"你的回复正文里写了工具调用，但{unknown_tool_text(', '.join(unknown), names)}。请只调用这些工具，或者直接用文字回答。"


def _make_call(call_id: str, name: str, arguments: Any, recovered: bool) -> tuple[ToolCall, dict]:
    value, text, error = read_arguments(arguments)
    call = ToolCall(call_id, name, value, text, error, recovered)
    wire = {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}
    return call, wire


def read_assistant(message: Any, tool_names: Iterable[str] = ()) -> AssistantTurn:
    """Read one assistant message (``response.choices[0].message``) into an ``AssistantTurn``.

    Args:
        message: an SDK ``ChatCompletionMessage`` or the equivalent dict.
        tool_names: the names of the tools offered in the request (a list, a
            dict of tools, or a ``ToolRegistry``).  Empty = no tools were
            offered, so text is never read as a tool call.
    Returns:
        An ``AssistantTurn``:

        * with ``tool_calls``: one ``ToolCall`` per call; a missing, empty or
          duplicate ``id`` is replaced by one fresh id used in both the
          message and the ``ToolCall``; ``arguments`` read by
          ``read_arguments`` (unreadable ones stored as ``"{}"`` with
          ``error`` set); a name matching a registered tool up to case/width
          takes the registry's spelling; whitespace-only content becomes None.
        * without ``tool_calls`` but with ``tool_names``: calls written as
          JSON in ``content`` (see ``find_text_calls``) are recovered when all
          their names are registered (``recovered=True``, fresh ids; the
          message then has ``tool_calls`` and ``content`` None).  Quotes
          around a whole argument value are taken off
          (``tools.registry.unquote_values``: ``"“跑步鞋”"`` -> ``"跑步鞋"``).  Broken
          JSON or an unknown name sets ``error`` instead, with no calls.
        * otherwise: a text reply, ``calls == []``.

        Fields the course does not know (e.g. ``reasoning_content``) stay in ``message``.
    Raises:
        TypeError: ``message`` is neither a dict nor an SDK message.
    """
    names = _names(tool_names)
    msg = to_dict(message)
    msg["role"] = "assistant"
    raw_calls = msg.pop("tool_calls", None) or []
    content = msg.get("content")
    text = content_text(content)
    text = text if text.strip() else None  # whitespace only: no text

    if raw_calls:
        calls, wire_calls, seen = [], [], set()
        for raw in raw_calls:
            raw = raw if isinstance(raw, dict) else {}
            fn = raw.get("function") if isinstance(raw.get("function"), dict) else {}
            name = fn.get("name") if isinstance(fn.get("name"), str) else ""
            name = (lookup_tool(name, names) if names and name else None) or name
            call_id = raw.get("id")
            if not isinstance(call_id, str) or not call_id.strip() or call_id in seen:
                call_id = new_call_id()
            seen.add(call_id)
            call, wire = _make_call(call_id, name, fn.get("arguments"), recovered=False)
            # Keep per-call extras a provider may need back; "index" belongs to streaming only.
            wire.update({k: v for k, v in raw.items() if k not in {"id", "type", "function", "index"} and v is not None})
            calls.append(call)
            wire_calls.append(wire)
        msg["tool_calls"] = wire_calls
        if not has_text(content):
            msg["content"] = None
        return AssistantTurn(msg, calls, text, None)

    if not names or text is None:
        return AssistantTurn(msg, [], text, None)

    found, broken = find_text_calls(text, names)
    if broken:
        return AssistantTurn(msg, [], text, _error_broken(broken[0], names))
    if not found:
        return AssistantTurn(msg, [], text, None)
    unknown = [name for name, _ in found if lookup_tool(name, names) is None]
    if unknown:
        return AssistantTurn(msg, [], text, _error_unknown(list(dict.fromkeys(unknown)), names))
    calls, wire_calls = [], []
    for name, args in found:
        # A model that writes its call as text also writes "“跑步鞋”" for 跑步鞋: the quotes are not the value.
        call, wire = _make_call(new_call_id(), lookup_tool(name, names), unquote_values(args), recovered=True)
        calls.append(call)
        wire_calls.append(wire)
    msg["content"] = None
    msg["tool_calls"] = wire_calls
    return AssistantTurn(msg, calls, None, None)


def _registry_names(registry: Any) -> list[str]:
    if isinstance(registry, Mapping):
        return [str(k) for k in registry]
    return _names(getattr(registry, "names", []))


def _unreadable(call: ToolCall, registry: Any) -> str:
    names = _registry_names(registry)
    if call.name not in names:
        return "错误：" + unknown_tool_text(call.name, names)
    tool = registry.get(call.name) if hasattr(registry, "get") else None
    params = tool.describe_parameters() if hasattr(tool, "describe_parameters") else ""
    return (
        f"错误：工具 {call.name} 的参数无法读取，工具没有运行。{call.error}。"
        f"请重新调用 {call.name}，参数必须是一个 JSON 对象。" + (f"参数：{params}" if params else "")
    )


def run_call(call: ToolCall, registry: Any) -> ToolResult:
    """Run one call; never raises.  (A call that does not run - it waits, was rejected, repeats
    an earlier one - is answered with ``records.ToolResult.not_run`` instead.)  Only a tool's
    ``tools.failure.ToolWaiting`` passes through (a person must decide first: the loops hold the
    turn), as ``KeyboardInterrupt`` does.

    Args:
        call: from ``read_assistant``.
        registry: a ``tools.registry.ToolRegistry`` (its ``call`` checks the name
            and the arguments against the schema and catches exceptions), or a
            plain dict ``{name: function}``.
    Returns:
        A ``records.ToolResult``: ``observation`` is the tool's result as text
        (``messages.tool_content``) with ``ok`` True; or, with ``ok`` False, a
        ``"错误：..."`` string that says why the tool did not run: unreadable
        arguments (what the parameters are), an unknown name (the available
        tools), arguments that do not fit, a tool that raised.
    """
    if call.error is not None:
        return ToolResult(call, _unreadable(call, registry), ok=False)
    try:
        if hasattr(registry, "call"):  # a ToolRegistry or McpTools: call(name, arguments) -> (text, ok)
            result, ok = registry.call(call.name, call.arguments)
        elif isinstance(registry, Mapping):  # a plain {name: function} dict
            function = registry.get(call.name)
            if function is None:
                return ToolResult(call, "错误：" + unknown_tool_text(call.name, _registry_names(registry)), ok=False)
            result = function(**call.arguments)
            ok = not isinstance(result, ToolFailure)
        else:
            raise TypeError(t("loops.bad_registry", name=type(registry).__name__))
        text = tool_content(result)
    except Exception as exc:  # noqa: BLE001 - the loop must always get a reply
        text, ok = f"错误：工具 {call.name} 出错：{type(exc).__name__}: {exc}", False
    return ToolResult(call, text, ok=ok)


def execute(calls: list[ToolCall], registry: Any) -> list[dict]:
    """Run ``calls`` and return their tool messages, one per call, in the same order.

    Args:
        calls: from ``read_assistant``.
        registry: as for ``run_call``.
    Returns:
        ``[{"role": "tool", "tool_call_id": call.id, "content": <str>}, ...]``
        (``run_call(call, registry).message()`` for each call).  Never raises, but for a
        tool's ``tools.failure.ToolWaiting`` (as ``run_call``): this loop-less helper cannot wait.
    """
    return [run_call(call, registry).message() for call in calls]
