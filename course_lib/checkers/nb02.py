"""Checkers for notebook 02 (memory = the message list)."""

from __future__ import annotations

import contextlib
import copy
from typing import Any, Iterator

from ..messages import MessageError, normalize, validate
from . import CheckResult, recording, report, safely

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


def check_chat_turn(chat_turn: object, client: object) -> CheckResult:
    """Exercise 02-1: ``chat_turn(messages, user_text)`` appends the user message, sends the
    WHOLE list in one request, appends the assistant reply and returns its text.

    Calls it twice on a fresh ``[system]`` list through ``client`` (recorded) and checks
    what was sent in the second request and what the list holds afterwards.
    """
    if not callable(chat_turn):
        return report(False, "chat_turn 应该是一个函数")
    messages = [{"role": "system", "content": "你是一个简洁的助手，每次只用一句话回答。"}]
    with sent_messages(client) as (snapshots, seen):
        _, error = safely(chat_turn, messages, "你好，我叫小红。")
        if error is None:
            answer, error = safely(chat_turn, messages, NAME_QUESTION)
    if error:
        return report(False, f"调用 chat_turn 时出错：{error}")
    if len(seen.requests) != 2:
        return report(False, f"调用 chat_turn 两次应该正好发出 2 次请求，实际发出了 {len(seen.requests)} 次")
    sent = snapshots[1]
    roles = [m.get("role") for m in sent]
    if roles != ["system", "user", "assistant", "user"]:
        return report(
            False,
            f"第二次请求应该带上整段历史 [system, user, assistant, user]，实际发送的角色是 {roles}。"
            "提示：先把用户消息 append 进 messages，再把整个 messages 发出去。",
        )
    if "小红" not in str(sent[1].get("content")) or sent[3].get("content") != NAME_QUESTION:
        return report(False, "第二次请求里的两条 user 消息应该分别是第一句话和「我叫什么名字？」")
    held, error = safely(normalize, messages)
    if error:
        return report(False, f"messages 里有无法识别的消息：{error}")
    held_roles = [m.get("role") for m in held]
    if held_roles != ["system", "user", "assistant", "user", "assistant"]:
        return report(
            False,
            f"两轮以后 messages 应该是 [system, user, assistant, user, assistant]，实际是 {held_roles}。"
            "提示：别忘了把模型的回答也 append 进 messages。",
        )
    expected = seen.responses[1].choices[0].message.content
    if held[-1].get("content") != expected:
        return report(False, "messages 最后一条应该是模型这一次的回答")
    if answer != expected:
        return report(False, "chat_turn 应该返回回答的文本 response.choices[0].message.content")
    return report(True, f"两轮对话都发出了完整的历史；模型对「我叫什么名字？」的回答：{answer!r}")


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


def check_keep_last_turns(keep_last_turns: object) -> CheckResult:
    """Exercise 02-2: ``keep_last_turns(messages, n_turns)`` returns the system message plus
    the last ``n_turns`` whole turns (a turn starts at a user message), as a valid list,
    without changing the input list."""
    if not callable(keep_last_turns):
        return report(False, "keep_last_turns 应该是一个函数")
    conversation = sample_conversation()
    for n_turns in (1, 2, 3, 4, 10):
        before = copy.deepcopy(conversation)
        got, error = safely(keep_last_turns, conversation, n_turns)
        if error:
            return report(False, f"keep_last_turns(conversation, {n_turns}) 出错：{error}")
        if conversation != before:
            return report(False, "keep_last_turns 不应该修改传进来的列表：返回一个新列表")
        if not isinstance(got, list):
            return report(False, f"keep_last_turns 应该返回一个列表，实际返回了 {type(got).__name__}")
        want = _expected_last_turns(conversation, n_turns)
        got_roles = [m.get("role") if isinstance(m, dict) else type(m).__name__ for m in got]
        if got != want:
            hint = ""
            if not got or got_roles[0] != "system":
                hint = "system 消息丢了：它必须一直留在第一条。"
            elif len(got) > 1 and got_roles[1] != "user":
                hint = "保留的部分必须从一条 user 消息开始（轮次的边界），不能从 tool 或 assistant 开始。"
            return report(
                False,
                f"n_turns={n_turns} 时应该保留 {len(want)} 条（角色 {[m['role'] for m in want]}），"
                f"实际返回 {len(got)} 条（角色 {got_roles}）。{hint}",
            )
        try:
            validate(normalize(got))
        except MessageError as exc:  # pragma: no cover - equal to ``want``, which is valid
            return report(False, f"返回的列表发给 API 会被拒绝：{exc}")
    return report(True, "system 一直保留，只按整轮删除，tool_calls 和它的 tool 回复从不分开")
