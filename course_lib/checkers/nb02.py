"""Checkers for notebook 02 (memory = the message list).

02-1 watches ``chat_turn`` (``nb01.watched``, streamed answers included) for two turns on
the notebook's model, then one more turn on a longer conversation that the checker answers
itself (no request reaches the model), so a window of the last few messages or a reply
written into the code fails.  02-2 runs ``keep_last_turns`` beside the reference on
generated conversations (with tool calls, and sometimes a last question still unanswered).
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

from hypothesis import strategies as st

from ..messages import normalize
from . import CheckResult, described, exercise, first_difference, report, request_problem, safely, t
from .reference import solution
from .nb01 import answered_with, reply_text, watched

SYSTEM = {"role": "system", "content": "你是一个简洁的助手，每次只用一句话回答。"}
FIRST_TEXT = "你好，我叫小红。"
NAME_QUESTION = "我叫什么名字？"
# The checker's own turn: a longer conversation (more than a window of a few messages) and another question.
LONG_TEXTS = ["你好，我叫小明。", "今天星期几？", "讲个笑话吧。", "再讲一个。"]
LONG_QUESTION = "我的名字是什么？请再说一次。"


def _pairs(messages: list[dict]) -> list[tuple[Any, Any]]:
    return [(m.get("role"), m.get("content")) for m in messages]


def _turn(chat_turn: Any, client: Any, messages: list, text: str, answer: Any = None) -> tuple[Any, Any]:
    """One ``chat_turn(messages, text)``, watched: ``(what it returned, None)`` or ``(None, the hint)``.

    Checked in order: no exception; one request; ``max_tokens`` (or ``max_completion_tokens``)
    given; the request sent everything ``messages`` held plus the user message (roles, then
    contents); ``messages`` afterwards holds that plus the assistant reply; the reply text returned.
    """
    before, error = safely(normalize, messages)
    if error:
        return None, t("check.02.chat_turn.6", error=error)
    with watched(client, answer) as seen:
        got, error = safely(chat_turn, messages, text)
    if error:
        return None, t("check.02.chat_turn.2", error=error)
    if len(seen.requests) != 1:
        return None, t("check.02.chat_turn.3", n_requests=len(seen.requests))
    request = seen.requests[0]
    refused = request_problem(request)  # the notebook's MODEL, sampling values and message keys a provider accepts
    if refused:
        return None, refused
    limit = request.get("max_tokens", request.get("max_completion_tokens"))
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
        return None, t("check.02.chat_turn.11", value=described(limit))
    sent, error = safely(normalize, request.get("messages") or [])
    if error:
        return None, t("check.02.chat_turn.6", error=error)
    want_sent = _pairs(before) + [("user", text)]
    if [role for role, _ in _pairs(sent)] != [role for role, _ in want_sent]:
        return None, t("check.02.chat_turn.4", want=[role for role, _ in want_sent], roles=[m.get("role") for m in sent])
    if _pairs(sent) != want_sent:
        return None, t("check.02.chat_turn.5", text=repr(text))
    reply = reply_text(seen.responses[0])
    held, error = safely(normalize, messages)
    if error:
        return None, t("check.02.chat_turn.6", error=error)
    want_held = want_sent + [("assistant", reply)]
    if [role for role, _ in _pairs(held)] != [role for role, _ in want_held]:
        return None, t("check.02.chat_turn.7", want=[role for role, _ in want_held],
                       held_roles=[m.get("role") for m in held])
    if (held[-1].get("content") or "").strip() != reply.strip():
        return None, t("check.02.chat_turn.8", reply=repr(reply), content=described(held[-1].get("content")))
    if not (isinstance(got, str) and got.strip() == reply.strip()):
        return None, t("check.02.chat_turn.9", reply=repr(reply), got=described(got))
    return got, None


@exercise("02-1")
def check_chat_turn(chat_turn: object, client: object) -> CheckResult:
    """Exercise 02-1: ``chat_turn(messages, user_text) -> str`` appends the user message, sends the
    WHOLE list in one request (with ``max_tokens``), appends the assistant reply and returns its text.

    Two turns on a fresh ``[system]`` list through ``client`` (2 requests to its model), then one
    turn on a system + 4-turn conversation answered by the checker (``nb01.answered_with``).
    The reply may be appended as a dict or as the SDK message; a streamed reply counts as its text.
    """
    if not callable(chat_turn):
        return report(False, t("check.02.chat_turn.1", value=described(chat_turn)))
    messages = [dict(SYSTEM)]
    for text in (FIRST_TEXT, NAME_QUESTION):
        answer, problem = _turn(chat_turn, client, messages, text)
        if problem:
            return report(False, problem)
    long = [dict(SYSTEM)]
    for number, text in enumerate(LONG_TEXTS, 1):
        long += [{"role": "user", "content": text}, {"role": "assistant", "content": f"（第 {number} 个回答）"}]
    _, problem = _turn(chat_turn, client, long, LONG_QUESTION, answered_with(f"（检查用的回答）一共 {len(long) + 1} 条消息"))
    if problem:
        return report(False, problem)
    return report(True, t("check.02.chat_turn.10", answer=repr(answer)))


# --- 02-2 ---------------------------------------------------------------------------------------

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


def last_turns(messages: list[dict], n_turns: int) -> list[dict]:
    """The reference of 02-2, ``solutions/02_memory.py``'s ``keep_last_turns``: the first message plus
    everything from the ``n_turns``-th last user message on."""
    return solution("02-2", "keep_last_turns")(messages, n_turns)


def _conversation(turns: list[tuple[int, ...]], open_question: bool) -> list[dict]:
    """system + one turn per item (its tool rounds: calls per round), + a last user message when ``open_question``."""
    ids = itertools.count(1)
    messages = [{"role": "system", "content": "你是一个简洁的中文助手。"}]
    for number, rounds in enumerate(turns, 1):
        messages.append({"role": "user", "content": f"问题 {number}"})
        for calls in rounds:
            call_ids = [f"call_{next(ids)}" for _ in range(calls)]
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": i, "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}
                for i in call_ids]})
            messages += [{"role": "tool", "tool_call_id": i, "content": "北京：晴"} for i in call_ids]
        messages.append({"role": "assistant", "content": f"回答 {number}"})
    if open_question:
        messages.append({"role": "user", "content": f"问题 {len(turns) + 1}"})
    return messages


CONVERSATIONS = st.builds(_conversation, st.lists(st.lists(st.integers(1, 2), max_size=2).map(tuple), max_size=5),
                          st.booleans())
TRIM_EXAMPLES = [(sample_conversation(), n) for n in (1, 2, 3, 4, 10)]


def _as_list(value: Any) -> list | None:
    return list(value) if isinstance(value, (list, tuple)) else None


def _roles(messages: list) -> list:
    return [m.get("role") if isinstance(m, dict) else type(m).__name__ for m in messages]


@exercise("02-2")
def check_keep_last_turns(keep_last_turns: object) -> CheckResult:
    """Exercise 02-2: ``keep_last_turns(messages, n_turns) -> list`` (a tuple will do): a NEW list with
    the first (system) message and the last ``n_turns`` whole turns (a turn starts at a user message);
    everything when there are fewer turns.  The input list is left as it was.

    First on the sample conversation (n = 1, 2, 3, 4, 10): no exception, input unchanged, not the
    input object itself; then beside ``last_turns`` on generated conversations (0-5 turns with
    0-2 tool rounds each, sometimes a last unanswered question) and n from 1 to 7.
    """
    if not callable(keep_last_turns):
        return report(False, t("check.02.keep_last_turns.1", value=described(keep_last_turns)))
    for conversation, n_turns in TRIM_EXAMPLES:
        conversation = copy.deepcopy(conversation)
        got, error = safely(keep_last_turns, conversation, n_turns)
        if error:
            return report(False, t("check.02.keep_last_turns.2", n_turns=n_turns, error=error))
        if conversation != sample_conversation():
            return report(False, t("check.02.keep_last_turns.3"))
        if _as_list(got) is None:
            return report(False, t("check.02.keep_last_turns.4", value=described(got)))
        if got is conversation:
            return report(False, t("check.02.keep_last_turns.8", n_turns=n_turns))
    found = first_difference(keep_last_turns, last_turns, st.tuples(CONVERSATIONS, st.integers(1, 7)), TRIM_EXAMPLES,
                             same=lambda got, want: _as_list(got) == want, max_examples=50)
    if found is None:
        return report(True, t("check.02.keep_last_turns.7"))
    conversation, n_turns = found.args
    if found.error:
        return report(False, t("check.02.keep_last_turns.2", n_turns=n_turns, error=found.error))
    got = _as_list(found.got)
    if got is None:
        return report(False, t("check.02.keep_last_turns.4", value=described(found.got)))
    got_roles = _roles(got)
    if not got or got_roles[0] != "system":
        return report(False, t("check.02.keep_last_turns.hint_system"))
    if len(got) > 1 and got_roles[1] != "user" and len(found.want) > 1 and found.want[1]["role"] == "user":
        return report(False, t("check.02.keep_last_turns.hint_user"))
    if got_roles == _roles(found.want):
        return report(False, t("check.02.keep_last_turns.9", n_turns=n_turns, want=described(found.want[1:2]),
                               got=described(got[1:2])))
    return report(False, t("check.02.keep_last_turns.5", roles=_roles(conversation), n_turns=n_turns,
                           n_want=len(found.want), value=_roles(found.want), n_got=len(got), got_roles=got_roles))
