"""The message layer: one place that turns any message list into a valid request.

Taught in notebooks 02 (validate), 03 (the tool-call chain) and 04 (request_kwargs).

Every loop and notebook in the course builds its requests through
``request_kwargs()``, which normalizes, validates and cleans the messages.
The rules follow the OpenAI Chat Completions API reference (the format
every provider in ``providers.PRESETS`` accepts):

* an assistant message may carry ``tool_calls``; each call has ``id``,
  ``type="function"`` and ``function={name, arguments}`` where
  ``arguments`` is a JSON *string*;
* every such ``id`` must be answered by exactly one message
  ``{"role": "tool", "tool_call_id": id, "content": "<string>"}`` before the
  next user or assistant message;
* ``tools``, ``tool_choice`` and ``parallel_tool_calls`` belong in a request
  only when tools are offered;
* a tool's ``function.name`` matches ``^[a-zA-Z0-9_-]{1,64}$`` (OpenAI's
  rule; a Chinese name, a space or a dot is answered with 400):
  ``validate_tools``, called by ``request_kwargs`` and, for a request written
  with the raw SDK, by ``http_client.CourseHttpClient``.

One rule is the course's own: a ``system`` or ``developer`` message further
down the list ("从现在起只用英文回答" added mid-conversation) is merged into
the first one, its text after a blank line (``merge_instructions``).  The
course's chat template (``chat_template.jinja``) shows the model one system
block, and some providers refuse a system message after the first turn; sent
as it was, the later instruction would never reach the model.  The template
merges the same way, so a request written with the raw SDK reads the same.
"""

from __future__ import annotations

import copy
import json
import re
import uuid
from typing import Any, Iterable

from course_runtime.control_tokens import neutralise_request
from course_runtime.request_rules import apply_request_rules
from .texts import t


class MessageError(ValueError):
    """A message list that the API would reject; ``index`` names the offending message."""

    def __init__(self, index: int, problem: str):
        super().__init__(t("messages.at_index", index=index, problem=problem))
        self.index = index


class ToolSchemaError(ValueError):
    """A ``tools`` list that the API would reject; ``index`` names the offending schema (None: the list itself)."""

    def __init__(self, index: int | None, problem: str):
        super().__init__(problem if index is None else t("messages.tools_at_index", index=index, problem=problem))
        self.index = index


ROLES = ("system", "developer", "user", "assistant", "tool")  # the roles the Chat Completions API accepts
INSTRUCTION_ROLES = ("system", "developer")  # the roles of "the system message" (merge_instructions)
# OpenAI's rule for a function name (API reference, chat/create: tools[].function.name).
TOOL_NAME_RE = re.compile(r"[a-zA-Z0-9_-]{1,64}")
TOOL_NAME_MAX = 64


def validate_tools(tools: Any) -> None:
    """Check the ``tools`` of a request before it is sent.

    Args:
        tools: the list of tool schemas, each
            ``{"type": "function", "function": {"name", "description", "parameters"}}``.
    Returns:
        None when every schema can be sent.
    Raises:
        ToolSchemaError: ``tools`` is not a list (e.g. one schema without the
            brackets), a schema is not a dict with a ``function`` dict, or a
            ``function.name`` does not match ``^[a-zA-Z0-9_-]{1,64}$``; the
            message names ``tools[i]``, the name and why (empty, too long, or
            the first character the API does not take).
    """
    if not isinstance(tools, (list, tuple)):
        raise ToolSchemaError(None, t("messages.tools_not_a_list", kind=type(tools).__name__))
    for i, schema in enumerate(tools):
        function = schema.get("function") if isinstance(schema, dict) else None
        if not isinstance(function, dict):
            raise ToolSchemaError(i, t("messages.tool_not_a_schema", kind=type(schema).__name__))
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise ToolSchemaError(i, t("messages.tool_name_missing", name=repr(name)))
        if TOOL_NAME_RE.fullmatch(name):
            continue
        if len(name) > TOOL_NAME_MAX and TOOL_NAME_RE.fullmatch(name[:TOOL_NAME_MAX]):
            raise ToolSchemaError(i, t("messages.tool_name_too_long", name=repr(name), length=len(name),
                                       most=TOOL_NAME_MAX))
        char = next(c for c in name if not TOOL_NAME_RE.fullmatch(c))
        raise ToolSchemaError(i, t("messages.tool_name_bad_char", name=repr(name), char=repr(char)))


def _dump(obj: Any) -> Any:
    """``model_dump`` of an SDK object: JSON types, None fields dropped, no serializer warnings.

    Some servers send ``arguments`` as an object where the SDK declares a str;
    pydantic would then print a ``PydanticSerializationUnexpectedValue`` warning
    at every dump, so warnings are switched off (pydantic v2 only).
    """
    try:
        return obj.model_dump(mode="json", exclude_none=True, warnings=False)
    except (TypeError, ValueError):  # pydantic v1: no ``warnings`` argument
        return obj.model_dump(exclude_none=True)


def sendable_text(text: str) -> str:
    """``text`` with what cannot be encoded as UTF-8 repaired: U+FFFD for a lone surrogate.

    A reply cut inside an emoji's UTF-16 pair (JSON ``"\\ud83d"``) gives a
    lone surrogate; left in the history, every later request would fail
    locally with ``UnicodeEncodeError ... surrogates not allowed``.  A pair
    written as two escapes becomes its character.

    Args:
        text: any str.
    Returns:
        ``text`` itself when it encodes (the usual case), else the repaired copy.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _plain(value: Any) -> Any:
    """Deep-copy ``value`` with every SDK object inside it turned into plain dicts/lists,
    and every string made sendable (``sendable_text``)."""
    if isinstance(value, str):
        return sendable_text(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if callable(getattr(value, "model_dump", None)) and not isinstance(value, type):
        return _plain(_dump(value))
    return copy.deepcopy(value)


def to_dict(message: Any) -> dict:
    """Return ``message`` as a plain, JSON-serializable dict.

    Args:
        message: a dict, or an openai SDK object (``ChatCompletionMessage``,
            a pydantic model) - converted with its own ``model_dump``,
            dropping fields that are None.  SDK objects *inside* a dict are
            converted too, e.g. the common
            ``{"role": "assistant", "content": None, "tool_calls": msg.tool_calls}``.
    Returns:
        A new dict (the input is never modified).  ``tool_calls[*].function.arguments``
        stays exactly as given; fields the course does not know (provider
        extras such as ``reasoning_content``) are kept.
    Raises:
        TypeError: for anything else.
    """
    if isinstance(message, dict) or (callable(getattr(message, "model_dump", None)) and not isinstance(message, type)):
        return _plain(message)
    raise TypeError(t("messages.not_a_message", name=type(message).__name__))


def normalize(messages: Iterable[Any]) -> list[dict]:
    """Apply ``to_dict`` to every message; returns a new list.

    Raises:
        TypeError: naming the index of an item that is neither a dict nor an SDK message.
    """
    out = []
    for i, message in enumerate(messages):
        try:
            out.append(to_dict(message))
        except TypeError as exc:
            raise TypeError(t("messages.at_index", index=i, problem=exc)) from None
    return out


def content_text(content: Any) -> str:
    """The text of a ``content`` field, whatever its shape.

    Args:
        content: a string, None, or a list of parts (``[{"type": "text",
            "text": "..."}, ...]``; some servers send content that way, in a
            reply or in a stream delta).
    Returns:
        The string itself, the ``text`` parts joined (other part types are
        not text and are left out), or ``""``.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"] for part in content
            if isinstance(part, dict) and part.get("type", "text") == "text" and isinstance(part.get("text"), str)
        )
    return ""


def has_text(content: Any) -> bool:
    """True if ``content`` holds non-whitespace text (a string or a list of text parts)."""
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        return any(has_text(p.get("text") if isinstance(p, dict) else p) for p in content)
    return content is not None and not isinstance(content, str)


# The longest tool result a model reads, in characters.  A look-up that returns a whole table
# would otherwise fill the context (the local server has 8,192 tokens per slot; a Chinese
# character is about one token) and the request dies with the server's 400.  The longest result
# in the notebook series is 768 characters (bench/results/reference_replies.json).
MAX_TOOL_RESULT_CHARS = 4000


def tool_content(result: Any, max_chars: int = MAX_TOOL_RESULT_CHARS) -> str:
    """Turn a tool's return value into the string a ``role="tool"`` message carries.

    The course's one tool-result converter: ``tool_calls.execute``,
    ``ToolRegistry.call`` and ``to_wire`` all use it, so the same value always
    becomes the same text, in every loop.

    Args:
        result: whatever the tool returned.
        max_chars: the longest text returned (``MAX_TOOL_RESULT_CHARS``); a longer
            one is cut to fit and ends with a note that says how many characters
            were cut (``tools.result_cut``), so the model and the student see it.
    Returns:
        * a str: unchanged (never JSON-encoded twice);
        * None or ``""``: a sentence saying the tool returned nothing
          (``tools.no_result``; an empty tool message is refused by strict servers);
        * dict, list, tuple, bool, int, float: JSON, Chinese kept readable
          (``True`` -> ``"true"``, ``(1, 2)`` -> ``"[1, 2]"``, ``300`` -> ``"300"``;
          values JSON cannot hold inside them, e.g. a date, go through ``str()``);
        * anything else: ``str(result)``.
    """
    if isinstance(result, str):
        text = str(result)  # a str subclass (a tool's ToolFailure) as a plain str
    elif isinstance(result, (dict, list, tuple, bool, int, float)):
        text = json.dumps(result, ensure_ascii=False, default=str)
    else:
        text = "" if result is None else str(result)
    if not text.strip():
        return t("tools.no_result")
    if len(text) > max_chars:  # cut so that the whole, note included, fits: cutting twice changes nothing
        kept = max(max_chars - len(t("tools.result_cut", kept=max_chars, cut=len(text))), 0)
        return text[:kept] + t("tools.result_cut", kept=kept, cut=len(text) - kept)
    return text


def arguments_text(arguments: Any) -> str:
    """Return tool-call ``arguments`` as the JSON string the API expects.

    A string is kept as it is (``""``/whitespace become ``"{}"``); None becomes
    ``"{}"``; an already-parsed object (some servers send one) is dumped.
    """
    if arguments is None:
        return "{}"
    if isinstance(arguments, str):
        return arguments if arguments.strip() else "{}"
    return json.dumps(arguments, ensure_ascii=False)


def new_call_id() -> str:
    """Return a fresh tool-call id in the usual ``call_`` form."""
    return "call_" + uuid.uuid4().hex[:24]


def validate(messages: list[dict], strict: bool = False) -> None:
    """Check a message list before it is sent (SDK objects in it are read via ``to_dict``).

    Args:
        messages: the list.
        strict: also check what ``to_wire`` would repair, i.e. that the list can be
            sent exactly as it is: every tool call has ``"type": "function"`` and its
            ``arguments`` as a JSON string, every tool message's ``content`` is text.
            The checkers use it on the requests a student's code sent: a strict
            endpoint (OpenAI) answers 400 to those shapes.
    Raises:
        MessageError: naming the index of the first message that breaks a rule:
            unknown role; assistant message with neither content nor tool_calls;
            tool message whose ``tool_call_id`` is not among the calls of the
            nearest earlier assistant message (or answers one twice); assistant
            tool_calls not all answered before the next user/assistant message;
            with ``strict``, the shapes above.
    """
    pending: dict[str, int] = {}  # call id -> index of the assistant message asking
    answered: set[str] = set()
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            msg = to_dict(msg)
        role = msg.get("role")
        if role not in ROLES:
            raise MessageError(i, t("messages.unknown_role", role=repr(role)))
        if role in {"user", "assistant", "system", "developer"} and pending:
            ids = ", ".join(sorted(pending))
            raise MessageError(
                pending[next(iter(pending))],
                t("messages.unanswered_before", ids=ids, i=i, role=role),
            )
        if role == "assistant":
            calls = msg.get("tool_calls") or []
            if not calls and not has_text(msg.get("content")):
                raise MessageError(i, t("messages.empty_assistant"))
            answered = set()
            for call in calls:
                call_id = call.get("id") if isinstance(call, dict) else None
                if not call_id:
                    raise MessageError(i, t("messages.call_without_id"))
                if call_id in pending:
                    raise MessageError(i, t("messages.duplicate_call_id", call_id=repr(call_id)))
                if strict:
                    _check_wire_call(i, call)
                pending[call_id] = i
        elif role == "tool":
            call_id = msg.get("tool_call_id")
            if strict and not isinstance(msg.get("content"), (str, list)):
                raise MessageError(i, t("messages.tool_content_not_text", name=type(msg.get("content")).__name__))
            if call_id in answered:
                raise MessageError(i, t("messages.answered_twice", call_id=repr(call_id)))
            if call_id not in pending:
                raise MessageError(
                    i,
                    t("messages.unmatched_tool_reply", call_id=repr(call_id)),
                )
            del pending[call_id]
            answered.add(call_id)
    if pending:
        ids = ", ".join(sorted(pending))
        raise MessageError(pending[next(iter(pending))], t("messages.unanswered", ids=ids))


def _check_wire_call(index: int, call: dict) -> None:
    """``validate(strict=True)``: one tool call must already have the shape the API takes."""
    if call.get("type") != "function":
        raise MessageError(index, t("messages.call_without_type", call_id=repr(call.get("id")), type=repr(call.get("type"))))
    arguments = (call.get("function") or {}).get("arguments")
    if not isinstance(arguments, str):
        raise MessageError(index, t("messages.arguments_not_string", call_id=repr(call.get("id")),
                                    name=type(arguments).__name__))


def _wire_call(call: dict) -> dict:
    fn = call.get("function") or {}
    out = {k: v for k, v in call.items() if k not in {"function", "index"} and v is not None}
    out["type"] = "function"
    out["function"] = {"name": fn.get("name", ""), "arguments": arguments_text(fn.get("arguments"))}
    return out


def to_wire(messages: Iterable[Any]) -> list[dict]:
    """Normalize, validate and clean messages into what is sent on the wire.

    * no key anywhere has the value None (``tool_calls: null`` and friends dropped);
    * an assistant message with tool_calls always carries ``content``
      (None only then; whitespace-only text counts as none);
    * a tool message is exactly ``{role, tool_call_id, content}`` with string content;
    * ``arguments`` is always a string.

    * one system message at most, first (``merge_instructions``): a later
      ``system``/``developer`` message is merged into the first one, so the
      model reads it.

    Returns:
        A new list of dicts.
    Raises:
        MessageError: see ``validate`` (checked on the list as given, before the merge).
    """
    wire = []
    for msg in normalize(messages):
        role = msg.get("role")
        if role == "tool":
            msg = {"role": "tool", "tool_call_id": msg.get("tool_call_id"), "content": tool_content(msg.get("content"))}
        else:
            msg = {k: v for k, v in msg.items() if v is not None}
            if role == "assistant" and msg.get("tool_calls"):
                msg["tool_calls"] = [_wire_call(c) for c in msg["tool_calls"]]
                msg["content"] = msg.get("content") if has_text(msg.get("content")) else None
            elif role == "assistant":
                msg.pop("tool_calls", None)
        wire.append(msg)
    validate(wire)
    return merge_instructions(wire)


def split_instructions(messages: list[dict]) -> tuple[dict | None, list[dict]]:
    """Split off the system message: ``(system or None, the other messages in order)``.

    Args:
        messages: plain dicts (``to_dict``).
    Returns:
        The first ``system``/``developer`` message (``INSTRUCTION_ROLES``) wherever it stands,
        with the text of every later one appended after a blank line (``content_text``: text
        parts of a list content are joined), its role and other keys kept; and the other
        messages, in order.  ``(None, messages)`` when there is none.  The dicts are not copied.

    Why: the course's chat template (``chat_template.jinja``, the local server's
    ``--chat-template-file``) makes one system block of ``messages[0]``; a system message
    further down was never shown to the model.  ``memory.trim_messages`` and
    ``summary_memory.compress_messages`` split the same way, so a later system message
    is neither dropped with its turn nor hidden.
    """
    instructions = [m for m in messages if m.get("role") in INSTRUCTION_ROLES]
    rest = [m for m in messages if m.get("role") not in INSTRUCTION_ROLES]
    if len(instructions) <= 1:
        return (instructions[0] if instructions else None), rest
    text = "\n\n".join(content_text(m.get("content")) for m in instructions)
    return {**instructions[0], "content": text}, rest


def merge_instructions(messages: list[dict]) -> list[dict]:
    """``messages`` with at most one system message, first (``split_instructions``).

    ``[system A, user, assistant, system B, user]`` becomes
    ``[system "A\\n\\nB", user, assistant, user]``; a list whose only system message is
    already first comes back unchanged (the same list).  The course's chat template renders
    both lists to the same prompt (tests/test_messages.py).

    Args:
        messages: plain dicts, already valid (``validate``).
    Returns:
        ``messages`` itself, or a new list.
    """
    if not any(m.get("role") in INSTRUCTION_ROLES for m in messages[1:]):
        return messages
    system, rest = split_instructions(messages)
    return [system, *rest]


def request_kwargs(
    model: str,
    messages: Iterable[Any],
    tools: list[dict] | None = None,
    tool_choice: Any = None,
    parallel_tool_calls: bool | None = None,
    provider: Any = None,
    **extra: Any,
) -> dict:
    """Build the keyword arguments for ``client.chat.completions.create``.

    Args:
        model: model id.
        messages: dicts and/or SDK messages.
        tools: tool schemas; when empty or None, ``tools``, ``tool_choice`` and
            ``parallel_tool_calls`` are left out of the request entirely.
        tool_choice: ``"auto"``, ``"none"``, ``"required"`` or a named tool.
        parallel_tool_calls: sent only with tools, and only when the provider
            preset says the endpoint supports it (``provider.preset.parallel_tool_calls``).
        provider: a ``providers.Provider`` or None (None = assume supported).
        **extra: other request fields (``temperature``, ``max_tokens``, ``stop``,
            ``extra_body`` ...); None values are dropped.
    Returns:
        A dict ready for ``create(**kwargs)``; its ``messages`` are ``to_wire``'s (a later
        system message merged into the first), with ``request_rules.REQUEST_RULES``
        applied (e.g. ``max_completion_tokens`` instead of ``max_tokens`` for
        OpenAI reasoning models; the provider's ``extra_body``); without a
        provider only the rules that go by model id apply.  Chat-template markers
        inside messages and tools are broken (``control_tokens.neutralise_request``,
        as ``CourseHttpClient`` does again on the wire, with the same result).
    Raises:
        MessageError: the messages are not valid for the API.
        ToolSchemaError: a tool schema the API would refuse (``validate_tools``).
    """
    kwargs: dict[str, Any] = {"model": model, "messages": to_wire(messages)}
    if tools:
        validate_tools(tools)
        kwargs["tools"] = tools
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        supported = getattr(getattr(provider, "preset", None), "parallel_tool_calls", True)
        if parallel_tool_calls is not None and supported:
            kwargs["parallel_tool_calls"] = parallel_tool_calls
    kwargs.update({k: v for k, v in extra.items() if v is not None})

    return neutralise_request(apply_request_rules(kwargs, provider))
