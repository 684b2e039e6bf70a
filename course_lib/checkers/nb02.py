"""Checkers for notebook 02 (memory = the message list)."""

from __future__ import annotations

import contextlib
import copy
from typing import Any, Iterator

from ..messages import MessageError, normalize, validate
from . import CheckResult, exercise, recording, report, safely, t

NAME_QUESTION = "我叫什么名字？"


@contextlib.contextmanager
def sent_messages(client: Any) -> Iterator[tuple[list, Any]]:
    """Like ``checkers.recording``, but also keeps a copy of ``messages`` as it was at the
    moment of each request (``recording`` keeps the kwargs themselves, and student code
    goes on appending to that same list afterwards).

    Yields ``(snapshots, recording)``: ``snapshots[i]`` is a list of plain dicts, the
    messages of request i; ``recording`` is the ``checkers.Recording``.
    """
    snapshots: list = []
    with recording(client) as seen:
        completions = client.chat.completions
        recorded_create = completions.create

        def create(*args: Any, **kwargs: Any) -> Any:
            try:
                snapshots.append(normalize(kwargs.get("messages") or []))
            except TypeError:  # not messages at all; the API call below will say so
                snapshots.append(copy.deepcopy(list(kwargs.get("messages") or [])))
            return recorded_create(*args, **kwargs)

        completions.create = create
        try:
            yield snapshots, seen
        finally:
            completions.create = recorded_create


@exercise("02-1")
def check_chat_turn(chat_turn: object, client: object) -> CheckResult:
    """Exercise 02-1: ``chat_turn(messages, user_text)`` appends the user message, sends the
    WHOLE list in one request, appends the assistant reply and returns its text.

    Calls it twice on a fresh ``[system]`` list through ``client`` (recorded) and checks
    what was sent in the second request and what the list holds afterwards.
    """
    if not callable(chat_turn):
        return report(False, t("check.02.chat_turn.1"))
    messages = [{"role": "system", "content": "你是一个简洁的助手，每次只用一句话回答。"}]
    with sent_messages(client) as (snapshots, seen):
        _, error = safely(chat_turn, messages, "你好，我叫小红。")
        if error is None:
            answer, error = safely(chat_turn, messages, NAME_QUESTION)
    if error:
        return report(False, t("check.02.chat_turn.2", error=error))
    if len(seen.requests) != 2:
        return report(False, t("check.02.chat_turn.3", n_requests=len(seen.requests)))
    sent = snapshots[1]
    roles = [m.get("role") for m in sent]
    if roles != ["system", "user", "assistant", "user"]:
        return report(
            False,
            t("check.02.chat_turn.4", roles=roles),
        )
    if "小红" not in str(sent[1].get("content")) or sent[3].get("content") != NAME_QUESTION:
        return report(False, t("check.02.chat_turn.5"))
    held, error = safely(normalize, messages)
    if error:
        return report(False, t("check.02.chat_turn.6", error=error))
    held_roles = [m.get("role") for m in held]
    if held_roles != ["system", "user", "assistant", "user", "assistant"]:
        return report(
            False,
            t("check.02.chat_turn.7", held_roles=held_roles),
        )
    expected = seen.responses[1].choices[0].message.content
    if held[-1].get("content") != expected:
        return report(False, t("check.02.chat_turn.8"))
    if answer != expected:
        return report(False, t("check.02.chat_turn.9"))
    return report(True, t("check.02.chat_turn.10", answer=repr(answer)))


def sample_conversation() -> list[dict]:
    """A hand-made conversation: system + 4 turns, two of which call get_weather.

    Roles: system | user assistant | user assistant(tool_calls) tool assistant |
    user assistant(tool_calls) tool assistant | user assistant.
    """

    def call(call_id: str, city: str) -> dict:
        return {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": f'{{"city": "{city}"}}'}}

    return [
        {"role": "system", "content": "你是一个简洁的中文助手。"},
        {"role": "user", "content": "你好，我叫小明。"},
        {"role": "assistant", "content": "你好小明！有什么可以帮你？"},
        {"role": "user", "content": "北京天气怎么样？"},
        {"role": "assistant", "content": None, "tool_calls": [call("call_bj", "北京")]},
        {"role": "tool", "tool_call_id": "call_bj", "content": "北京：晴，25°C，湿度40%"},
        {"role": "assistant", "content": "北京今天晴，25°C。"},
        {"role": "user", "content": "上海呢？"},
        {"role": "assistant", "content": None, "tool_calls": [call("call_sh", "上海")]},
        {"role": "tool", "tool_call_id": "call_sh", "content": "上海：多云，28°C，湿度65%"},
        {"role": "assistant", "content": "上海多云，28°C。"},
        {"role": "user", "content": "谢谢！"},
        {"role": "assistant", "content": "不客气！"},
    ]


def _expected_last_turns(messages: list[dict], n_turns: int) -> list[dict]:
    system, rest = messages[:1], messages[1:]
    starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
    start = starts[-n_turns] if n_turns <= len(starts) else 0
    return system + rest[start:]


@exercise("02-2")
def check_keep_last_turns(keep_last_turns: object) -> CheckResult:
    """Exercise 02-2: ``keep_last_turns(messages, n_turns)`` returns the system message plus
    the last ``n_turns`` whole turns (a turn starts at a user message), as a valid list,
    without changing the input list."""
    if not callable(keep_last_turns):
        return report(False, t("check.02.keep_last_turns.1"))
    conversation = sample_conversation()
    for n_turns in (1, 2, 3, 4, 10):
        before = copy.deepcopy(conversation)
        got, error = safely(keep_last_turns, conversation, n_turns)
        if error:
            return report(False, t("check.02.keep_last_turns.2", n_turns=n_turns, error=error))
        if conversation != before:
            return report(False, t("check.02.keep_last_turns.3"))
        if not isinstance(got, list):
            return report(False, t("check.02.keep_last_turns.4", name=type(got).__name__))
        want = _expected_last_turns(conversation, n_turns)
        got_roles = [m.get("role") if isinstance(m, dict) else type(m).__name__ for m in got]
        if got != want:
            hint = ""
            if not got or got_roles[0] != "system":
                hint = t("check.02.keep_last_turns.hint_system")
            elif len(got) > 1 and got_roles[1] != "user":
                hint = t("check.02.keep_last_turns.hint_user")
            return report(
                False,
                t("check.02.keep_last_turns.5", n_turns=n_turns, n_want=len(want), value=[m['role'] for m in want], n_got=len(got), got_roles=got_roles, hint=hint),
            )
        try:
            validate(normalize(got))
        except MessageError as exc:  # pragma: no cover - equal to ``want``, which is valid
            return report(False, t("check.02.keep_last_turns.6", exc=exc))
    return report(True, t("check.02.keep_last_turns.7"))
