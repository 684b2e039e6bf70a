"""Bounded memory by trimming: keep the most recent whole turns (notebook 02).

Taught in notebook 02.  Notebook 09's summaries build on it in
``summary_memory.py``.

Notebook 02 shows that "memory" is nothing more than the message list we send
every time, and that it costs prompt tokens on every call.  The simplest cure
is to keep only the most recent messages.  Doing that naively (``messages[-n:]``)
breaks the conversation in two ways the API rejects or the model misreads:

* it can drop the system message;
* it can cut between an assistant message that has ``tool_calls`` and the
  ``role="tool"`` messages that answer it, leaving an orphan tool reply at the
  start of the window (the API answers with a 400 error).

So this module trims by **turns**.  A turn starts at a ``user`` message and runs
up to (not including) the next ``user`` message; it therefore contains the
assistant reply, any assistant ``tool_calls`` message and all of its tool
replies.  Only whole turns are dropped, oldest first.

``trim_messages`` is the pure function (handy to demonstrate in a notebook);
``ShortTermMemory`` is a small class that keeps a list and calls it after
every ``add``; ``MessageMemory`` is what both memories share (the system
message kept apart, the list, ``add``).

Trimming forgets: a name given in the first turn is gone once that turn is
dropped.  Notebook 09 keeps it in a shorter form instead (``summary_memory``);
the one piece of that a memory's list must know is here: a summary message
(``summary_message``) and the user message after it are sent as one user
message (``merge_summary``), because strict chat templates refuse two user
messages in a row.  A system message further down a list is merged into the
first one by ``trim_messages`` (as every request does: ``messages.merge_instructions``),
so it is never dropped with its turn.
"""

from __future__ import annotations

from typing import Any, Iterable

from .messages import INSTRUCTION_ROLES, content_text, split_instructions, to_dict
from .texts import t

# Roles treated as "the system message" when they come first in a list.
_INSTRUCTION_ROLES = set(INSTRUCTION_ROLES)


def _check_bound(max_messages: Any) -> int:
    """Return ``max_messages`` if it is a usable bound, else raise."""
    if isinstance(max_messages, bool) or not isinstance(max_messages, int):
        raise TypeError(t("loops.max_messages_type", name=type(max_messages).__name__))
    if max_messages < 1:
        raise ValueError(t("loops.max_messages_low", max_messages=max_messages))
    return max_messages


def turn_starts(messages: list[dict]) -> list[int]:
    """Return the indices where a turn starts (every ``role == "user"`` message).

    Args:
        messages: non-system messages as dicts.
    Returns:
        Ascending list of indices; empty if there is no user message.
    """
    return [i for i, m in enumerate(messages) if m.get("role") == "user"]


def _cut_index(messages: list[dict], max_messages: int) -> int:
    """Return the index where the kept window starts.

    The window may only start at a turn boundary (a user message) or at 0
    (keep everything).  We take the earliest boundary whose suffix fits into
    ``max_messages``; if even the latest turn alone is too long, we keep that
    latest turn whole (exceeding the bound) rather than breaking it.
    """
    if len(messages) <= max_messages:
        return 0
    starts = turn_starts(messages)
    for start in starts:
        if len(messages) - start <= max_messages:
            return start
    # No boundary gives a short enough window: keep the latest turn whole.
    # (Without any user message there is no safe place to cut at all.)
    return starts[-1] if starts else 0


def _split_system(messages: list[dict]) -> tuple[dict | None, list[dict]]:
    """Split off the system message: ``(system or None, the other messages in order)``.

    A system/developer message further down the list is merged into the first
    one (its text after a blank line): left in place it would be dropped with
    its turn.  With no system message first, the first one found leads.  The
    same split as every request's (``messages.split_instructions``).
    """
    return split_instructions(messages)


def _as_system(system: str | dict | Any | None) -> dict | None:
    """A system message given as text, dict or SDK object, as a dict (None stays None)."""
    if system is None:
        return None
    if isinstance(system, str):
        return {"role": "system", "content": system}
    return to_dict(system)


def trim_messages(messages: Iterable[Any], max_messages: int) -> list[dict]:
    """Return the most recent whole turns of ``messages`` that fit ``max_messages``.

    Args:
        messages: dicts and/or openai SDK message objects, e.g.
            ``[{"role": "system", ...}, {"role": "user", ...}, {"role": "assistant", ...}, ...]``.
            A leading ``system`` (or ``developer``) message is kept outside the
            count: it is always returned first and never trimmed.  A system
            message further down the list is merged into it (its text after a
            blank line; see ``_split_system``), so it is never trimmed either and
            the model reads it.
        max_messages: bound on the number of *non-system* messages kept.
    Returns:
        A new list of plain dicts (copies; the input is not modified):
        the system message (if any) followed by the kept window.  The window
        starts at a user message (a turn boundary) unless nothing had to be
        dropped, so an assistant message with ``tool_calls`` always stays
        together with the tool messages that answer it.

        If the latest turn alone has more than ``max_messages`` messages,
        that whole latest turn is kept anyway: the bound is exceeded rather
        than splitting the turn.  The same happens while a tool-call turn is
        still in progress (the assistant ``tool_calls`` message appended, its
        replies not yet): the latest turn is never cut into.  A list with no
        user message at all cannot be cut safely and is returned whole.
    Raises:
        ValueError: ``max_messages`` is smaller than 1.
        TypeError: ``max_messages`` is not an int, or a message is neither a
            dict nor an SDK message.
    """
    _check_bound(max_messages)
    system, rest = _split_system([to_dict(m) for m in messages])
    kept = rest[_cut_index(rest, max_messages):]
    return ([system] if system is not None else []) + kept


class MessageMemory:
    """What both memories share: the system message kept apart, the list of the other messages, and
    ``add``.  A subclass says what happens after each ``add`` (``_after_add``): ``ShortTermMemory``
    trims, ``SummaryMemory`` summarizes.

    Args:
        system: the system message as text, as a dict (``{"role": "system", "content": ...}``),
            as an SDK object, or None for none.
    Raises:
        TypeError: ``system`` has another type.
    """

    def __init__(self, system: str | dict | Any | None = None):
        self.system: dict | None = None
        self.set_system(system)
        self._messages: list[dict] = []

    def set_system(self, system: str | dict | Any | None) -> None:
        """Set or replace the system message (text, dict, SDK object, or None to remove it)."""
        self.system = _as_system(system)

    def add(self, message: Any) -> None:
        """Append one message, then ``_after_add`` (trim or summarize).

        Args:
            message: a dict or an openai SDK message (``ChatCompletionMessage``);
                stored as a plain dict.  A message with role ``system`` or
                ``developer`` replaces the stored system message instead of
                being appended.
        Raises:
            TypeError: the message is neither a dict nor an SDK message.
            SummaryError: (``SummaryMemory``) the summary failed; the message IS added.
        """
        msg = to_dict(message)
        if msg.get("role") in _INSTRUCTION_ROLES:
            self.set_system(msg)
            return
        self._messages.append(msg)
        self._after_add(msg)

    def _after_add(self, message: dict) -> None:
        """Called after ``message`` was appended; the subclass bounds the list here."""

    def extend(self, messages: Iterable[Any]) -> None:
        """``add`` every message of ``messages`` in order."""
        for message in messages:
            self.add(message)

    @property
    def messages(self) -> list[dict]:
        """A copy of the list to send: the system message first (if any), then the kept conversation,
        a summary message joined with the user message after it (``merge_summary``)."""
        head = [to_dict(self.system)] if self.system is not None else []
        return head + merge_summary(self._messages)

    def clear(self) -> None:
        """Forget the conversation (the system message stays)."""
        self._messages = []

    def __len__(self) -> int:
        """Number of non-system messages held."""
        return len(self._messages)


class ShortTermMemory(MessageMemory):
    """A conversation's message list with a bound on its size.

    The system message is kept OUTSIDE the count: it is always the first
    message of ``messages`` and is never trimmed.  ``max_messages`` bounds the
    number of non-system messages.  After every ``add``/``extend`` the oldest
    whole turns are dropped (see ``trim_messages``): a turn is never split, so
    an assistant message with ``tool_calls`` always stays with its tool
    replies.  If the latest turn alone is longer than ``max_messages`` it is
    kept whole and the bound is exceeded until the next user message starts a
    new turn.

    Example::

        memory = ShortTermMemory(max_messages=6, system="你是一个乐于助人的助手。")
        memory.add({"role": "user", "content": "我叫小明"})
        memory.add(response.choices[0].message)   # SDK objects are fine
        client.chat.completions.create(model=..., messages=memory.messages)

    Args:
        max_messages: bound on the non-system messages (int >= 1).
        system: the system message as text, as a dict
            (``{"role": "system", "content": ...}``) or None for none.
    Raises:
        ValueError: ``max_messages`` < 1.
        TypeError: ``max_messages`` is not an int, or ``system`` has another type.
    """

    def __init__(self, max_messages: int, system: str | dict | None = None):
        self.max_messages = _check_bound(max_messages)
        super().__init__(system)
        self.dropped = 0  # how many messages trimming has removed so far

    def _after_add(self, message: dict) -> None:
        """Trim: drop the oldest whole turns beyond ``max_messages`` (see ``trim_messages``)."""
        cut = _cut_index(self._messages, self.max_messages)
        if cut:
            self.dropped += cut
            self._messages = self._messages[cut:]

    def __repr__(self) -> str:
        return (
            f"ShortTermMemory(max_messages={self.max_messages}, messages={len(self)}, "
            f"system={'yes' if self.system else 'no'}, dropped={self.dropped})"
        )


# ---------------------------------------------------------------------------
# The summary message (notebook 09, summary_memory.py, makes it): the one piece of it that the
# list a memory sends must know, so that a summary and the next user message go as one message.
# ---------------------------------------------------------------------------

# Sent TO the model, so it stays here (not in texts.py).  The summary goes in as a USER
# message starting with SUMMARY_PREFIX, as LangChain's SummarizationMiddleware does (one
# HumanMessage "Here is a summary of the conversation to date: ...").  Not as a second
# system message: every request merges a later system message into the first one
# (messages.merge_instructions, as the course's chat template does), which would move the
# summary out of the place of the turns it replaces, and some providers refuse a system
# message in the middle of a conversation.
SUMMARY_PREFIX = "这是到目前为止的对话摘要：\n"


def summary_message(text: str) -> dict:
    """The message that stands for the replaced turns: ``{"role": "user", "content": SUMMARY_PREFIX + text}``."""
    return {"role": "user", "content": SUMMARY_PREFIX + text}


def is_summary(message: dict) -> bool:
    """True if ``message`` (a dict) is a summary message made by ``summary_message``."""
    content = message.get("content")
    return message.get("role") == "user" and isinstance(content, str) and content.startswith(SUMMARY_PREFIX)


def merge_summary(messages: Iterable[Any]) -> list[dict]:
    """The messages with a summary message and the user message right after it made into one user message.

    The kept turns after a summary start with a user message, so the summary
    (a user message, see ``SUMMARY_PREFIX``) and that message would be two user
    messages in a row - which strict chat templates refuse ("Conversation
    roles must alternate user/assistant/user/assistant/...": the templates of
    Mistral, Gemma and Llama 2 raise it).  The merged message is the summary,
    a blank line, then the user's own text; content given as a list of parts
    gets the summary as a text part in front.  Two user messages in a row that
    the caller wrote are left as they are.

    Args:
        messages: dicts and/or openai SDK messages.
    Returns:
        A new list of plain dicts (the input is not modified).
    Raises:
        TypeError: an item is neither a dict nor an SDK message.
    """
    merged: list[dict] = []
    for message in messages:
        msg = to_dict(message)
        if merged and is_summary(merged[-1]) and msg.get("role") == "user":
            msg = {**msg, "content": _after_summary(merged.pop()["content"], msg.get("content"))}
        merged.append(msg)
    return merged


def _after_summary(summary: str, content: Any) -> str | list:
    """``content`` of a user message with the summary text in front of it (``merge_summary``)."""
    if isinstance(content, list):
        return [{"type": "text", "text": summary + "\n\n"}] + content
    text = content_text(content)
    return f"{summary}\n\n{text}" if text else summary
