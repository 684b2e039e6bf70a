"""Reading what the server sent back: one reply, one stream, its usage, or the error.

Used from notebook 01 on (the chat box reads its replies here); the fields it reads
are the anatomy of a response shown in notebook 01.

Every place in the course that looks at a chat completion goes through this
module, so a quirk of some server is handled once, here:

* ``read_reply(response)``   a ``ChatCompletion`` -> ``Reply(message, text, finish_reason, usage)``;
* ``collect_stream(stream)`` the chunks of ``create(..., stream=True)`` -> the same ``Reply``;
* ``read_usage(x)``          ``{"prompt_tokens", "completion_tokens", "total_tokens"}`` or None;
* ``describe_error(exc)``    an exception as one line of text for a widget.
* ``split_thinking(text)``   a leading ``<think>...</think>`` -> ``(thinking, visible)``;
  every ``Reply`` keeps the thinking in ``reasoning``, never in ``message``.
* ``ReplyError``             a 200 response with no reply in it (e.g. ``choices == []``).

Users: ``agent.Agent``, ``react.ChatBot`` (and so both ReAct loops),
``widgets.ChatSession``, ``providers.ping``, ``plots.usage_of`` and the debugger.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

from .messages import content_text, to_dict
from .texts import t

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")

# A reply the server cut off (finish_reason -> what the student is told).  Such a reply is
# never taken silently as a final answer: the loops stop with this finish_reason as their
# stopped_reason, the chat box shows the text as a notice.
# "incomplete" is the course's own value, not the API's: a stream that ended with no finish_reason
# at all (a relay closed the connection) - the text may stop anywhere (collect_stream).
CUT_REPLIES: dict[str, str] = {"length": "replies.cut_length", "content_filter": "replies.cut_content_filter",
                               "incomplete": "replies.cut_incomplete"}
INCOMPLETE = "incomplete"


def cut_text(finish_reason: str | None, refusal: str = "") -> str | None:
    """Why a reply is not a normal answer, in Chinese (texts.py), or None.

    Args:
        finish_reason: the reply's ``finish_reason`` (``CUT_REPLIES`` names the cut ones).
        refusal: the reply's ``message.refusal`` text, ``""`` if none.
    """
    if refusal:
        return t("replies.refused", refusal=refusal)
    key = CUT_REPLIES.get(finish_reason or "")
    return t(key) if key else None

# What a student sees when a reply cannot be read (raised as ReplyError).
NO_CHOICES = "服务器返回了 HTTP 200，但回复里没有任何 choices（没有模型的回答）"
NO_CHOICES_WHY = "原因（服务器给出的信息）：{why}"
NO_CHOICES_HINT = "对话没有被改动，可以重试这一步；如果一直这样，换个说法或换一个服务商。"
# Fields that some servers put next to an empty ``choices`` to say why (Azure content filter, relays).
NO_CHOICES_REASON_KEYS = ("prompt_filter_results", "error", "detail", "message", "msg")


class ReplyError(RuntimeError):
    """The server answered (HTTP 200) but there is no reply in it to read.

    E.g. ``{"choices": [], "prompt_filter_results": [...]}`` from Azure's
    content filter or a relay.  Raised by ``read_reply`` before any loop or
    widget changes its state, so the step can simply be retried.  ``str()``
    is a Chinese sentence for the student; ``body`` is the response as a dict.
    """

    def __init__(self, message: str, body: dict | None = None):
        super().__init__(message)
        self.body = body or {}


def _no_choices(data: dict) -> ReplyError:
    why = {key: data[key] for key in NO_CHOICES_REASON_KEYS if data.get(key)}
    parts = [NO_CHOICES]
    if why:
        text = json.dumps(why, ensure_ascii=False, default=str)
        parts.append(NO_CHOICES_WHY.format(why=text if len(text) <= 300 else text[:300] + "…"))
    parts.append(NO_CHOICES_HINT)
    return ReplyError("。".join(parts), data)


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
            "content": str | None, "tool_calls": [...]?, ...}``) - what the
            history keeps and sends back: provider extras are kept, the
            thinking is not (see ``reasoning``).
        text: the reply text: ``content`` when it is a string, the text parts
            joined when it is a list of parts, else ``""``.
        finish_reason: ``"stop"``, ``"tool_calls"``, ``"length"`` ... or None.
        usage: see ``read_usage`` (None if the server sent none).
        chunks: for a streamed reply, how many chunks arrived; 0 otherwise.
        refusal: the model's refusal (``message.refusal``, OpenAI's structured
            refusal: ``content`` is then null), ``""`` if none.  ``cut`` says so;
            the loops end with ``stopped_reason == "refusal"``.
        reasoning: the model's thinking, kept apart from ``text``: a leading
            ``<think>...</think>`` of ``content``, the ``thinking`` parts of a
            list ``content``, the ``reasoning_content``/``reasoning`` fields;
            ``""`` if none.  It is not in ``message`` (never sent back), and
            ``text`` (what the loops parse and act on) is the visible text only.
    """

    message: dict
    text: str
    finish_reason: str | None
    usage: dict | None
    chunks: int = 0
    reasoning: str = ""
    refusal: str = ""

    @property
    def cut(self) -> str | None:
        """Why the reply is not a normal answer (a ``CUT_REPLIES`` text or the refusal, Chinese), or None."""
        return cut_text(self.finish_reason, self.refusal)

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


THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
# Fields in which servers with a reasoning parser send the thinking (DeepSeek, vLLM, OpenRouter ...).
REASONING_KEYS = ("reasoning_content", "reasoning")
# Models whose chat template opens <think> in the prompt, so the reply starts with the thinking
# and only "</think>" shows (QwQ, DeepSeek-R1 and its distills, Qwen3 "-Thinking-2507" models):
# while such a model streams, nothing is shown before its "</think>".
THINKS_FIRST_RE = re.compile(r"qwq|deepseek-r1|r1-distill|thinking", re.IGNORECASE)
# Models seen sending a "</think>" with no "<think>" before it (learned while streaming): the same.
THINKS_WITHOUT_OPEN_TAG: set[str] = set()


def split_thinking(text: str) -> tuple[str, str]:
    """Split the thinking of a reasoning model off the start of ``text``.

    Reasoning models served without a reasoning parser (Qwen3, DeepSeek-R1
    distills on Ollama or llama-server) start ``content`` with
    ``<think>...</think>``; some chat templates open the tag in the prompt, so
    the reply starts with the thinking and only the ``</think>`` shows.

    Args:
        text: a reply text.
    Returns:
        ``(thinking, visible)``: the text inside the tags (stripped; ``""`` if
        none) and what follows them (leading whitespace removed).  Text
        without a leading ``<think>`` and without ``</think>`` is returned as
        ``("", text)`` unchanged; an unclosed ``<think>`` (a reply cut while
        thinking) is all thinking.
    """
    head = text.lstrip()
    if head.startswith(THINK_OPEN):
        inner = head[len(THINK_OPEN):]
        thinking, closed, rest = inner.partition(THINK_CLOSE)
        return thinking.strip(), rest.lstrip() if closed else ""
    if THINK_CLOSE in text and THINK_OPEN not in text.split(THINK_CLOSE, 1)[0]:
        thinking, _, rest = text.partition(THINK_CLOSE)
        return thinking.strip(), rest.lstrip()
    return "", text


def visible_so_far(text: str, thinks_first: bool = False) -> str:
    """The part of a reply being streamed that may be shown now (the thinking held back).

    Args:
        text: all the ``content`` streamed so far.
        thinks_first: True for a model that starts with its thinking and
            writes only the closing ``</think>`` (see ``THINKS_FIRST_RE``).
    Returns:
        ``""`` while ``text`` is (or may become) a leading ``<think>...``
        that is not closed yet, or (``thinks_first``) while no ``</think>``
        has come; the text after ``</think>`` once it has (also when no
        ``<think>`` opened it); otherwise ``text`` itself, less a trailing
        piece that may be the start of ``</think>``.
    """
    head = text.lstrip()
    if not head or THINK_OPEN.startswith(head):
        return ""
    if head.startswith(THINK_OPEN):
        _, closed, rest = head.partition(THINK_CLOSE)
        return rest.lstrip() if closed else ""
    if THINK_CLOSE in text and THINK_OPEN not in text.split(THINK_CLOSE, 1)[0]:
        return text.partition(THINK_CLOSE)[2].lstrip()
    if thinks_first:
        return ""
    for n in range(min(len(THINK_CLOSE) - 1, len(text)), 0, -1):  # "...</thi": wait for the rest
        if THINK_CLOSE.startswith(text[-n:]):
            return text[:-n]
    return text


def _take_reasoning(message: dict) -> str:
    """Make ``message["content"]`` the visible text only; return the thinking taken out of it.

    The thinking comes from the thinking parts of a list ``content``, a
    leading ``<think>...</think>``, and the ``reasoning_content`` /
    ``reasoning`` fields (removed from the message).  It is never sent back:
    the history keeps only the visible text (DeepSeek refuses a request that
    sends ``reasoning_content`` back, and the thinking of one turn is not
    meant for the next).
    """
    thoughts = []
    for key in REASONING_KEYS:
        value = message.pop(key, None)
        if isinstance(value, str) and value.strip():
            thoughts.append(value.strip())
    content = message.get("content")
    was_list = isinstance(content, list)
    if was_list:
        thoughts.append(thinking_text(content))
        content = content_text(content)
    if isinstance(content, str):
        thinking, visible = split_thinking(content)
        thoughts.append(thinking)
        if thinking or was_list:
            message["content"] = visible or None
    return "\n".join(t for t in thoughts if t)


def thinking_text(content: Any) -> str:
    """The thinking parts of a list ``content`` (Mistral reasoning models), joined; ``""`` otherwise.

    A part is ``{"type": "thinking", "thinking": str | [{"type": "text", "text": str}, ...]}``
    (a ``"text"`` field is read too).
    """
    if not isinstance(content, list):
        return ""
    out = []
    for part in content:
        if isinstance(part, dict) and part.get("type") in ("thinking", "reasoning"):
            inner = part.get("thinking", part.get("text"))
            out.append(inner if isinstance(inner, str) else content_text(inner))
    return "".join(out)


def _new_call() -> dict:
    return {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}


def _add_call_piece(part: dict, calls: list[dict], by_index: dict[tuple, dict], choice: int = 0) -> None:
    """Add one streamed ``delta.tool_calls[k]`` piece to the calls assembled so far.

    OpenAI sends a call's ``id`` and ``function.name`` once, in its first
    piece; DeepSeek and DashScope repeat the whole ``id`` in every piece, some
    gateways repeat the name, and Gemini sends pieces with no ``index``.  So:
    the first non-empty id is the id (a repeat is not appended); a name equal
    to the name so far is a repeat; a piece without an index belongs to the
    last call unless it carries a different id (then it starts a new call).
    ``choice`` is the index of the choice the piece came in: calls are told
    apart by ``(choice, index)``.
    """
    index = part.get("index")
    piece_id = part.get("id") or ""
    if index is None:
        last = calls[-1] if calls else None
        if last is None or (piece_id and last["id"] and piece_id != last["id"]):
            last = _new_call()
            calls.append(last)
        call = last
    else:
        call = by_index.get((choice, index))
        if call is None:
            call = by_index[(choice, index)] = _new_call()
            calls.append(call)
    if piece_id and not call["id"]:
        call["id"] = piece_id
    fn = part.get("function") or {}
    name = fn.get("name")
    if name and name != call["function"]["name"]:
        call["function"]["name"] += name
    args = fn.get("arguments")
    if isinstance(args, str):
        call["function"]["arguments"] += args
    elif args is not None:  # a server that sends an object at once
        call["function"]["arguments"] = json.dumps(args, ensure_ascii=False)


def _legacy_call(message: dict, finish_reason: str | None) -> str | None:
    """Turn the legacy ``function_call`` shape into one tool call, in place; returns the finish_reason.

    Older servers answer ``{"function_call": {"name", "arguments"}, "tool_calls": null}`` with
    ``finish_reason "function_call"`` (OpenAI's API before tool calls).  The call becomes
    ``tool_calls[0]`` with an empty ``id`` (``tool_calls.read_assistant`` gives it a fresh one)
    and the finish_reason ``"tool_calls"``, so every loop runs it like any other call.
    """
    legacy = message.pop("function_call", None)
    if isinstance(legacy, dict) and legacy.get("name") and not message.get("tool_calls"):
        message["tool_calls"] = [{"id": "", "type": "function",
                                  "function": {"name": legacy["name"], "arguments": legacy.get("arguments") or ""}}]
        return "tool_calls" if finish_reason in (None, "function_call", "stop") else finish_reason
    return finish_reason


def read_reply(response: Any) -> Reply:
    """Read a (non-streamed) chat completion.

    Args:
        response: the ``ChatCompletion`` returned by ``client.chat.completions.create``
            (or the equivalent dict).
    Returns:
        A ``Reply`` for ``choices[0]``.  A ``content`` sent as a list of parts
        becomes its text in ``message["content"]`` and ``text`` (None / ``""``
        when it has none); its thinking parts go to ``reasoning``.  Shapes some
        servers send are read as the same reply:

        * one reply split over several choices (a gateway puts the text in
          ``choices[0]`` and the ``tool_calls`` in ``choices[1]``): when
          ``choices[0]`` has no calls, the calls of the other choices are its
          calls (the course never asks for ``n > 1``, so other choices are
          not alternatives here);
        * the legacy ``function_call`` (``_legacy_call``): one tool call;
        * a refusal (``message.refusal``, ``content`` null): ``Reply.refusal``.
    Raises:
        TypeError: ``response`` is neither a dict nor an SDK object.
        ReplyError: the response has no choices (``choices`` empty, null or
            missing - e.g. a content filter); the message says why when the
            body does.
    """
    data = to_dict(response)
    choices = [c for c in data.get("choices") or [] if isinstance(c, dict)]
    if not choices:
        raise _no_choices(data)
    choice = choices[0]
    message = dict(choice.get("message") or {})
    message.setdefault("role", "assistant")
    finish_reason = choice.get("finish_reason")
    # One reply split over several choices: the calls of the others are this reply's calls.
    others = [c for c in choices[1:] if isinstance(c.get("message"), dict) and c["message"].get("tool_calls")]
    if others and not message.get("tool_calls"):
        message["tool_calls"] = [call for c in others for call in c["message"]["tool_calls"]]
        finish_reason = others[0].get("finish_reason") or "tool_calls"
    finish_reason = _legacy_call(message, finish_reason)
    refusal = message.get("refusal") if isinstance(message.get("refusal"), str) else ""
    reasoning = _take_reasoning(message)
    return Reply(message, _text(message), finish_reason, read_usage(data), reasoning=reasoning, refusal=refusal.strip())


def collect_stream(stream: Any, on_token: Callable[[str], Any] | None = None,
                   on_reset: Callable[[], Any] | None = None) -> Reply:
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
        on_token: called with each non-empty text piece of ``content``, as it
            arrives; a leading ``<think>...</think>`` is held back (never
            passed), see ``visible_so_far``; so is everything before
            ``</think>`` for a model that writes only the closing tag
            (``THINKS_FIRST_RE``, or learned: ``THINKS_WITHOUT_OPEN_TAG``).
            The pieces passed add up to the reply's ``text``.
        on_reset: called (no arguments) when text already passed to
            ``on_token`` turns out to be thinking (a ``</think>`` arrived with no
            ``<think>`` before it, from a model not known to do that): forget
            what was shown; the pieces that follow are the reply.
    Returns:
        A ``Reply``: ``message`` is ``{"role": "assistant", "content": str | None,
        "tool_calls": [...]?, "refusal": str?}`` (``tool_calls`` only when the model
        called a tool; ``arguments`` concatenated exactly as streamed); ``chunks``
        counts the chunks.  As in ``read_reply``: calls streamed in another
        choice (``index`` 1 ...) are this reply's calls, the text is choice 0's;
        legacy ``delta.function_call`` pieces are one tool call; ``delta.refusal``
        pieces are ``refusal``.  A stream that ends with no ``finish_reason`` in
        any chunk (a relay closed the connection) gets ``finish_reason ==
        "incomplete"`` (``INCOMPLETE``, the course's own value): the text may stop
        anywhere, so it is shown and recorded as cut, like ``"length"``.
    Raises:
        Whatever the SDK raises while reading (``openai.APIError`` ...).
    """
    pieces: list[str] = []
    shown = ""  # the visible text already passed to on_token
    model = ""
    thinking: list[str] = []
    refusal: list[str] = []
    calls: list[dict] = []
    by_index: dict[tuple, dict] = {}
    finish: dict[int, str] = {}  # choice index -> its finish_reason
    usage = None
    chunks = 0
    for chunk in stream:
        chunks += 1
        data = to_dict(chunk)
        model = model or str(data.get("model") or "")
        if data.get("usage"):
            usage = read_usage(data)
        for choice in data.get("choices") or []:
            number = choice.get("index") or 0
            delta = choice.get("delta") or {}
            if choice.get("finish_reason"):
                finish[number] = choice["finish_reason"]
            legacy = delta.get("function_call")  # the legacy shape: pieces of one call
            for part in delta.get("tool_calls") or ([{"index": "function_call", "function": legacy}] if legacy else []):
                _add_call_piece(part, calls, by_index, number)
            if number != 0:  # another choice: only its calls belong to this reply
                continue
            for key in REASONING_KEYS:
                if isinstance(delta.get(key), str):
                    thinking.append(delta[key])
            if isinstance(delta.get("refusal"), str):
                refusal.append(delta["refusal"])
            piece = content_text(delta.get("content"))
            thinking.append(thinking_text(delta.get("content")))
            if piece:
                pieces.append(piece)
                if on_token is not None:
                    shown = _pass_on(visible_so_far("".join(pieces), _thinks_first(model)), shown, on_token, on_reset)
    message: dict[str, Any] = {"role": "assistant", "content": "".join(pieces) if pieces else None}
    if calls:
        if len(by_index) == len(calls):  # every call had an index: in (choice, index) order, as the server numbers them
            calls = [by_index[k] for k in sorted(by_index, key=lambda k: (k[0], k[1] if isinstance(k[1], int) else -1))]
        message["tool_calls"] = calls
    finish_reason = finish.get(0)
    called_in = sorted({k[0] for k in by_index})
    if called_in and 0 not in called_in:  # the calls came in another choice: they say how the reply ended
        finish_reason = finish.get(called_in[0]) or "tool_calls"
    if any(k[1] == "function_call" for k in by_index) and finish_reason in (None, "function_call", "stop"):
        finish_reason = "tool_calls"
    if not finish:  # no chunk said how the reply ended: it may stop anywhere
        finish_reason = INCOMPLETE
    streamed_thinking = "".join(thinking).strip()
    joined = "".join(pieces)
    if model and THINK_CLOSE in joined and THINK_OPEN not in joined.split(THINK_CLOSE, 1)[0]:
        THINKS_WITHOUT_OPEN_TAG.add(model)  # next time nothing is shown before its </think>
    reasoning = _take_reasoning(message)
    reasoning = "\n".join(t for t in (streamed_thinking, reasoning) if t)
    text = _text(message)
    if on_token is not None:  # what was held back (a "</thi" that was not a tag, a thinker that did not think)
        _pass_on(text, shown, on_token, on_reset)
    return Reply(message, text, finish_reason, usage, chunks, reasoning=reasoning, refusal="".join(refusal).strip())


def _thinks_first(model: str) -> bool:
    return bool(model) and (model in THINKS_WITHOUT_OPEN_TAG or bool(THINKS_FIRST_RE.search(model)))


def _pass_on(visible: str, shown: str, on_token: Callable[[str], Any], on_reset: Callable[[], Any] | None) -> str:
    """Pass the new part of ``visible`` to ``on_token``; returns what has been shown now."""
    if shown and not visible.startswith(shown):  # what was shown was thinking after all
        if on_reset is not None:
            on_reset()
        shown = ""
    if len(visible) > len(shown):
        on_token(visible[len(shown):])
        shown = visible
    return shown


def describe_error(exc: BaseException) -> str:
    """``"Type: message"`` for a widget, plus the underlying cause when the SDK wraps one.

    ``openai.APIConnectionError`` says only "Connection error."; its ``__cause__``
    (e.g. ``httpx2.ConnectError: [Errno 111] Connection refused``) says what happened.

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
