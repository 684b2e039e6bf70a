"""Chat-template control tokens written inside content: made harmless before a request is sent.

Not opened in class: docs/robustness.md says what it does and what was measured.

llama-server renders the chat template, then tokenizes the whole prompt with special-token
parsing on (llama.cpp tools/server/server-context.cpp: ``tokenize_input_prompts(vocab, mctx,
prompt, true, true)``, the last argument ``parse_special``); vLLM and Ollama tokenize a rendered
template the same way.  So a user message, a tool result (an MCP server's answer, a web page), a
note or a summary whose text holds ``<|im_end|>\\n<|im_start|>system\\n...`` becomes *real* turn
markers: the model reads a forged system turn.  Measured on the course server (tests/test_control_tokens.py):
five messages whose seven texts (contents, a tool call's arguments, a tool description) each hold
one forged turn rendered to 13 ``<|im_start|>`` tokens instead of 6, 19 ``<|im_end|>`` instead of 5.

``neutralise`` puts one ZERO WIDTH SPACE (U+200B, ``INVISIBLE``) right after the ``<`` of each
marker, so the tokenizer no longer sees the special token (Qwen2.5: ``<``, U+200B, ``|``, ``im``,
``_start``, ``|``, ``>``), while a person reads the same text.  Text without a marker is returned
unchanged, byte for byte: the course compares every request body with a recorded reference, and
none of the recorded bodies holds a marker.  ``neutralise_request`` applies it to every string of a
chat request that reaches the template; ``http_client.CourseHttpClient`` calls it on every chat
request of ``providers.get_client``'s clients, and ``messages.request_kwargs`` on the kwargs it
builds (the same result twice: ``neutralise`` is idempotent).

Markers (``MARKER_RE``):

* ``<|word|>``: ChatML (``<|im_start|>``, ``<|im_end|>``, ``<|endoftext|>``, Qwen2.5's
  ``<|fim_prefix|>`` ...), Llama 3 (``<|start_header_id|>``, ``<|eot_id|>``), Phi-3
  (``<|end|>``), gpt-oss (``<|channel|>``): any run of up to 64 characters without blank space,
  ``<``, ``>`` or ``|`` between ``<|`` and ``|>``;
* ``<｜word｜>`` with FULLWIDTH VERTICAL LINE (U+FF5C): DeepSeek V3 / R1 (``<｜User｜>``,
  ``<｜end▁of▁sentence｜>``);
* ``<tool_call>`` and ``</tool_call>`` (``TOOL_TAG_RE``), in every role but the assistant's:
  Qwen2.5 has them as added tokens that the tokenizer always matches (measured: one token each,
  151657 and 151658), so a forged call inside a tool result reached the model as the real tool-call
  tokens.  An assistant message keeps them: they are the model's own way of writing a call
  (Qwen's own template, Ollama), and ``course_lib/tool_calls.py`` reads such text back.
  ``<tool_response>`` is not a token in Qwen2.5 (four tokens, measured) and is left alone: the
  course model writes it in its own replies, and the recorded bodies hold it.

Not covered: other families' markers that are not ``<|...|>`` (Gemma's ``<start_of_turn>``,
Mistral's ``[INST]``); the course meets neither.  A raw ``httpx2`` call that is not a chat request
(notebook 07's ``/apply-template``) is not changed.
"""

from __future__ import annotations

import re
from typing import Any

INVISIBLE = "\u200b"  # ZERO WIDTH SPACE: one token in Qwen2.5's vocabulary (id 15692), invisible when printed

# A "<" that opens a turn marker (lookahead: only the "<" itself is matched; the text after it is kept).
MARKER_RE = re.compile(r"<(?=\|[^\s<>|]{1,64}\|>|\uff5c[^\s<>\uff5c]{1,64}\uff5c>)")
# A "<" that opens Qwen2.5's tool-call tags (neutralised outside assistant messages).
TOOL_TAG_RE = re.compile(r"<(?=/?tool_call>)")


def neutralise(text: str, tool_tags: bool = True) -> str:
    """The text with every chat-template marker broken by one invisible character.

    Args:
        text: any message text.
        tool_tags: also neutralise ``<tool_call>`` / ``</tool_call>`` (False for assistant messages).
    Returns:
        ``text`` itself when it holds no marker (so byte for byte the same); else a new str
        with ``INVISIBLE`` (U+200B) inserted right after the ``<`` of each marker: the same
        characters otherwise.  Idempotent: ``neutralise(neutralise(t)) == neutralise(t)``.
    Raises:
        TypeError: ``text`` is not a str.
    """
    if not isinstance(text, str):
        raise TypeError(f"neutralise() takes a str, not {type(text).__name__}")
    if "<" not in text:
        return text
    new = MARKER_RE.sub("<" + INVISIBLE, text)
    if tool_tags:
        new = TOOL_TAG_RE.sub("<" + INVISIBLE, new)
    return text if new == text else new


def _content(content: Any, tool_tags: bool) -> Any:
    """A message's ``content``: a str, or a list whose text parts (``{"type": "text", "text": ...}``) are neutralised."""
    if isinstance(content, str):
        return neutralise(content, tool_tags)
    if not isinstance(content, list):
        return content
    parts = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
            text = neutralise(part["text"], tool_tags)
            if text is not part["text"]:
                part = {**part, "text": text}
        parts.append(part)
    return parts if any(new is not old for new, old in zip(parts, content)) else content


def _call(call: Any) -> Any:
    """An assistant tool call with its ``function.name`` and ``function.arguments`` strings neutralised."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return call
    new = {key: neutralise(value, tool_tags=False) if key in ("name", "arguments") and isinstance(value, str)
           else value for key, value in function.items()}
    if all(new[key] is function[key] for key in function):
        return call
    return {**call, "function": new}


def neutralise_message(message: Any) -> Any:
    """One chat message with every text the template renders neutralised.

    Args:
        message: a dict ``{"role", "content", ...}`` (anything else is returned as it is).
    Returns:
        ``message`` itself when nothing changed; else a new dict (``message`` is not changed)
        whose ``content`` (a str, or the text parts of a list), ``reasoning_content`` and, for an
        assistant, each ``tool_calls[].function.name`` / ``.arguments`` are neutralised;
        ``<tool_call>`` tags only outside assistant messages.  ``role``, ids and image parts are
        never touched.
    """
    if not isinstance(message, dict):
        return message
    tool_tags = message.get("role") != "assistant"
    new = dict(message)
    if "content" in new:
        new["content"] = _content(new["content"], tool_tags)
    if isinstance(new.get("reasoning_content"), str):
        new["reasoning_content"] = neutralise(new["reasoning_content"], tool_tags=False)
    if isinstance(new.get("tool_calls"), list):
        calls = [_call(call) for call in new["tool_calls"]]
        if any(c is not old for c, old in zip(calls, new["tool_calls"])):
            new["tool_calls"] = calls
    return message if all(new[key] is message[key] for key in message) else new


def _strings(value: Any) -> Any:
    """``value`` (JSON) with every string value neutralised (dict keys kept); the same object when nothing changed."""
    if isinstance(value, str):
        return neutralise(value)
    if isinstance(value, dict):
        new = {key: _strings(item) for key, item in value.items()}
        return value if all(new[key] is value[key] for key in value) else new
    if isinstance(value, list):
        items = [_strings(item) for item in value]
        return value if all(a is b for a, b in zip(items, value)) else items
    return value


def neutralise_request(request: dict) -> dict:
    """A chat request (JSON body or ``create`` kwargs) with no chat-template marker left in what the template renders.

    Args:
        request: ``{"messages": [...], "tools": [...], ...}``; other fields are kept as they are.
    Returns:
        ``request`` itself when nothing changed (so a caller can skip re-encoding the body);
        else a new dict whose ``messages`` are ``neutralise_message``'s and whose ``tools`` have
        every string value neutralised (descriptions, which an MCP server writes, included; keys
        and the tool's structure kept).  ``request`` is not changed.
    """
    new = dict(request)
    if isinstance(new.get("messages"), list):
        messages = [neutralise_message(m) for m in new["messages"]]
        if any(m is not old for m, old in zip(messages, new["messages"])):
            new["messages"] = messages
    if isinstance(new.get("tools"), list):
        new["tools"] = _strings(new["tools"])
    return request if all(new[key] is request[key] for key in request) else new
