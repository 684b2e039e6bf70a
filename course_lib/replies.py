"""Reading what the server sent back: one reply, one stream, its usage, or the error.

Used from notebook 01 on (the chat box reads its replies here); the fields it reads
are the anatomy of a response shown in notebook 01.

Every place in the course that looks at a chat completion goes through this
module, so a quirk of some server is handled once, here:

* ``read_reply(response)``   a ``ChatCompletion`` -> ``Reply(message, text, finish_reason, usage)``;
* ``collect_stream(stream)`` the chunks of ``create(..., stream=True)`` -> the same ``Reply``;
* ``read_usage(x)``          ``{"prompt_tokens", "completion_tokens", "total_tokens"}`` or None;
* ``describe_error(exc)``    an exception as one line of text for a widget.

Users: ``agent.Agent``, ``react.ChatBot`` (and so both ReAct loops),
``widgets.ChatSession``, ``providers.ping``, ``plots.usage_of`` and the debugger.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from .messages import to_dict

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


def _int_or_none(value: Any) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


def read_usage(source: Any) -> dict | None:
    """The token counts of one response, as the server reported them.

    Args:
        source: an SDK ``ChatCompletion`` or stream chunk, its ``usage``
            object, or the equivalent dicts (anything with a ``usage`` field,
            or the usage itself).
    Returns:
        ``{"prompt_tokens": int | None, "completion_tokens": int | None,
        "total_tokens": int | None}`` (tokens), or None when the server sent
        no usage at all.  Counts are never estimated.
    """
    if source is None:
        return None
    if not isinstance(source, dict):
        if callable(getattr(source, "model_dump", None)):
            source = to_dict(source)
        else:  # a plain object with attributes (e.g. a SimpleNamespace)
            source = {key: getattr(source, key) for key in ("usage", *USAGE_KEYS) if getattr(source, key, None) is not None}
    if any(key in source for key in USAGE_KEYS):  # the usage itself
        return {key: _int_or_none(source.get(key)) for key in USAGE_KEYS}
    usage = source.get("usage")
    return read_usage(usage) if usage else None


@dataclass
class Reply:
    """One model reply, read once.

    Attributes:
        message: ``choices[0].message`` as a plain dict (``{"role": "assistant",
            "content": str | None, "tool_calls": [...]?, ...}``); provider
            extras are kept.
        text: the reply text: ``content`` when it is a string, else ``""``.
        finish_reason: ``"stop"``, ``"tool_calls"``, ``"length"`` ... or None.
        usage: see ``read_usage`` (None if the server sent none).
        chunks: for a streamed reply, how many chunks arrived; 0 otherwise.
    """

    message: dict
    text: str
    finish_reason: str | None
    usage: dict | None
    chunks: int = 0

    @property
    def prompt_tokens(self) -> int | None:
        """``usage.prompt_tokens`` (tokens), or None."""
        return (self.usage or {}).get("prompt_tokens")

    @property
    def completion_tokens(self) -> int | None:
        """``usage.completion_tokens`` (tokens), or None."""
        return (self.usage or {}).get("completion_tokens")


def _text(message: dict) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def read_reply(response: Any) -> Reply:
    """Read a (non-streamed) chat completion.

    Args:
        response: the ``ChatCompletion`` returned by ``client.chat.completions.create``
            (or the equivalent dict).
    Returns:
        A ``Reply`` for ``choices[0]``.
    Raises:
        TypeError: ``response`` is neither a dict nor an SDK object.
        IndexError: the response has no choices.
    """
    data = to_dict(response)
    choice = (data.get("choices") or [])[0]
    message = dict(choice.get("message") or {})
    message.setdefault("role", "assistant")
    return Reply(message, _text(message), choice.get("finish_reason"), read_usage(data))


def collect_stream(stream: Any, on_token: Callable[[str], Any] | None = None) -> Reply:
    """Read a streamed chat completion (``create(..., stream=True)``) into one ``Reply``.

    The chunks follow the OpenAI streaming format: ``chunk.choices[0].delta``
    carries pieces of ``content`` and of ``tool_calls`` (each piece names its
    call by ``index``; ``id``, ``function.name`` and ``function.arguments``
    arrive in pieces that are concatenated), ``finish_reason`` comes on the
    last choice chunk, and with ``stream_options={"include_usage": True}`` a
    final chunk with ``choices == []`` carries ``usage``.

    Args:
        stream: the iterator returned by ``client.chat.completions.create(stream=True)``
            (SDK chunk objects or equivalent dicts).
        on_token: called with each non-empty text piece of ``content``, as it arrives.
    Returns:
        A ``Reply``: ``message`` is ``{"role": "assistant", "content": str | None,
        "tool_calls": [...]?}`` (``tool_calls`` only when the model called a tool;
        ``arguments`` concatenated exactly as streamed); ``chunks`` counts the chunks.
    Raises:
        Whatever the SDK raises while reading (``openai.APIError`` ...).
    """
    pieces: list[str] = []
    calls: dict[int, dict] = {}
    finish_reason = None
    usage = None
    chunks = 0
    for chunk in stream:
        chunks += 1
        data = to_dict(chunk)
        if data.get("usage"):
            usage = read_usage(data)
        for choice in data.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            piece = delta.get("content")
            if isinstance(piece, str) and piece:
                pieces.append(piece)
                if on_token is not None:
                    on_token(piece)
            for part in delta.get("tool_calls") or []:
                call = calls.setdefault(
                    part.get("index", len(calls)), {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
                )
                if part.get("id"):
                    call["id"] += part["id"]
                fn = part.get("function") or {}
                if fn.get("name"):
                    call["function"]["name"] += fn["name"]
                args = fn.get("arguments")
                if isinstance(args, str):
                    call["function"]["arguments"] += args
                elif args is not None:  # a server that sends an object at once
                    call["function"]["arguments"] = json.dumps(args, ensure_ascii=False)
            if choice.get("finish_reason"):
                finish_reason = choice["finish_reason"]
    message: dict[str, Any] = {"role": "assistant", "content": "".join(pieces) if pieces else None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return Reply(message, _text(message), finish_reason, usage, chunks)


def describe_error(exc: BaseException) -> str:
    """``"Type: message"`` for a widget, plus the underlying cause when the SDK wraps one.

    ``openai.APIConnectionError`` says only "Connection error."; its ``__cause__``
    (e.g. ``httpx.ConnectError: [Errno 111] Connection refused``) says what happened.

    Args:
        exc: any exception.
    Returns:
        One line, e.g. ``"APIConnectionError: Connection error.（原因：ConnectError: ...）"``.
    """
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__ or exc.__context__
    if cause is not None and str(cause) and str(cause) not in text:
        text += f"（原因：{type(cause).__name__}: {cause}）"
    return text
