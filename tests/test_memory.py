"""Tests for course_lib.memory: trimming by whole turns, never splitting tool calls."""

from __future__ import annotations

import random

import pytest
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageFunctionToolCall
from openai.types.chat.chat_completion_message_function_tool_call import Function

from course_lib.memory import ShortTermMemory, trim_messages
from course_lib.messages import validate

SYSTEM = {"role": "system", "content": "你是一个助手。"}


def user(text):
    return {"role": "user", "content": text}


def assistant(text):
    return {"role": "assistant", "content": text}


def call(call_id, name="get_weather", arguments='{"city": "北京"}'):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def asks(*call_ids):
    return {"role": "assistant", "content": None, "tool_calls": [call(i) for i in call_ids]}


def tool(call_id, content="晴 25°C"):
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def conversation():
    """system + 4 turns; turn 2 has an assistant tool_calls message with 2 tool replies."""
    return [
        SYSTEM,
        user("我叫小明"),
        assistant("你好，小明！"),
        user("北京和上海天气怎么样？"),
        asks("call_1", "call_2"),
        tool("call_1", "北京 晴 25°C"),
        tool("call_2", "上海 多云 28°C"),
        assistant("北京晴，上海多云。"),
        user("谢谢"),
        assistant("不客气！"),
        user("我叫什么？"),
        assistant("你叫小明。"),
    ]


def check_window(result, full, in_progress=False):
    """Assert the structural guarantees of a trimmed list; return the window without system."""
    assert result[0] == full[0] and result[0]["role"] == "system", "system message must stay first"
    window = result[1:]
    # the window is a suffix of the original conversation (no reordering, nothing invented)
    assert window == full[len(full) - len(window):]
    assert window, "the latest turn is always kept"
    assert window[0]["role"] == "user", "the window must start at a user message (a turn boundary)"
    # no orphan tool message: each answers a call of an earlier assistant message in the window
    asked: set[str] = set()
    answered: set[str] = set()
    for msg in window:
        if msg["role"] == "assistant":
            asked.update(c["id"] for c in msg.get("tool_calls") or [])
        if msg["role"] == "tool":
            assert msg["tool_call_id"] in asked, f"orphan tool message {msg['tool_call_id']}"
            answered.add(msg["tool_call_id"])
    # every call in the window is answered in the window, except the in-progress final turn
    unanswered = asked - answered
    if in_progress:
        last_calls = {c["id"] for c in window[-1].get("tool_calls") or []}
        assert unanswered == last_calls
    else:
        assert not unanswered, f"tool calls {unanswered} lost their replies"
        validate(result)  # and the message layer agrees the list is sendable
    return window


def test_short_list_is_returned_unchanged_as_copy():
    msgs = conversation()
    result = trim_messages(msgs, 100)
    assert result == msgs
    result[1]["content"] = "changed"
    assert msgs[1]["content"] == "我叫小明", "trim_messages must not share dicts with its input"


def test_system_is_kept_outside_the_count():
    result = trim_messages(conversation(), 2)
    assert result[0] == SYSTEM
    assert result[1:] == [user("我叫什么？"), assistant("你叫小明。")]


def test_oldest_turns_dropped_whole():
    full = conversation()
    # 5 non-system slots: the last two turns take 4, the tool turn (5 messages) does not fit too
    assert trim_messages(full, 5)[1:] == full[-4:]
    # 9 slots: the tool turn (5) + the last two turns (4) fit exactly, turn 1 is dropped whole
    assert trim_messages(full, 9)[1:] == full[3:]
    # 10 slots would allow turn 1's assistant reply alone, but never half a turn
    assert trim_messages(full, 10)[1:] == full[3:]
    assert trim_messages(full, 11)[1:] == full[1:]


@pytest.mark.parametrize("in_progress", [False, True])
def test_tool_turn_never_split_for_every_bound(in_progress):
    full = conversation()
    if in_progress:
        # a new turn whose tool calls were appended but not yet answered
        full = full + [user("广州呢？"), asks("call_3")]
    n = len(full) - 1
    for max_messages in range(1, n + 2):
        result = trim_messages(full, max_messages)
        window = check_window(result, full, in_progress=in_progress)
        latest_turn = 2  # user + assistant, in both variants
        assert len(window) <= max(max_messages, latest_turn)
        if in_progress:
            assert window[-2:] == full[-2:], "the in-progress turn must be kept whole"


def test_tool_turn_as_latest_turn_with_small_bound_kept_whole():
    full = [SYSTEM, user("你好"), assistant("在的"), user("北京和上海天气？"),
            asks("c1", "c2"), tool("c1"), tool("c2"), assistant("都不错。")]
    for max_messages in range(1, 6):
        result = trim_messages(full, max_messages)
        assert result == [SYSTEM] + full[3:], f"max_messages={max_messages}"


def test_oversize_single_turn_kept_whole():
    turn = [user("查三个城市"), asks("a", "b", "c"), tool("a"), tool("b"), tool("c"), assistant("好了")]
    result = trim_messages([SYSTEM] + turn, 2)
    assert result == [SYSTEM] + turn
    memory = ShortTermMemory(2, system=SYSTEM["content"])
    memory.extend(turn)
    assert memory.messages == [SYSTEM] + turn
    assert len(memory) == 6  # the bound is exceeded rather than breaking the turn
    # the next user message starts a new turn, and the oversize one can now be dropped
    memory.add(user("谢谢"))
    assert memory.messages == [SYSTEM, user("谢谢")]
    assert memory.dropped == 6


def test_in_progress_tool_turn_not_cut_while_being_built():
    memory = ShortTermMemory(3, system=SYSTEM)
    memory.extend([user("a"), assistant("b"), user("北京和上海？")])
    memory.add(asks("x", "y"))  # replies not yet added: 4 messages > 3
    assert memory.messages[1:] == [user("北京和上海？"), asks("x", "y")]
    memory.add(tool("x"))
    assert memory.messages[1]["role"] == "user"
    memory.add(tool("y"))
    memory.add(assistant("完成"))
    check_window(memory.messages, [SYSTEM, user("北京和上海？"), asks("x", "y"), tool("x"), tool("y"), assistant("完成")])


def test_random_conversations_property():
    rng = random.Random(1234)
    for trial in range(200):
        msgs = [SYSTEM]
        counter = 0
        for _ in range(rng.randint(1, 6)):
            msgs.append(user(f"q{len(msgs)}"))
            for _ in range(rng.randint(0, 2)):  # tool rounds inside the turn
                ids = [f"c{counter + k}" for k in range(rng.randint(1, 3))]
                counter += len(ids)
                msgs.append(asks(*ids))
                msgs.extend(tool(i) for i in ids)
            msgs.append(assistant("a"))
        in_progress = rng.random() < 0.3
        if in_progress:
            msgs.append(user("next"))
            msgs.append(asks(f"p{trial}"))
        for max_messages in range(1, len(msgs) + 1):
            result = trim_messages(msgs, max_messages)
            window = check_window(result, msgs, in_progress=in_progress)
            # maximal: adding the previous whole turn back would exceed the bound
            start = len(msgs) - len(window)
            previous_starts = [i for i in range(1, start) if msgs[i]["role"] == "user"]
            if previous_starts and len(window) <= max_messages:
                assert len(msgs) - previous_starts[-1] > max_messages


def test_sdk_message_objects_are_accepted():
    sdk = ChatCompletionMessage(
        role="assistant",
        content=None,
        tool_calls=[
            ChatCompletionMessageFunctionToolCall(id="call_a", type="function",
                                          function=Function(name="get_weather", arguments='{"city": "北京"}')),
            ChatCompletionMessageFunctionToolCall(id="call_b", type="function",
                                          function=Function(name="get_weather", arguments='{"city": "上海"}')),
        ],
    )
    memory = ShortTermMemory(4, system="sys")
    memory.extend([user("old"), assistant("old reply"), user("北京和上海？"), sdk, tool("call_a"), tool("call_b")])
    msgs = memory.messages
    assert msgs[0] == {"role": "system", "content": "sys"}
    assert all(isinstance(m, dict) for m in msgs)
    assert msgs[1] == user("北京和上海？")
    assert [c["id"] for c in msgs[2]["tool_calls"]] == ["call_a", "call_b"]
    assert msgs[2]["tool_calls"][0]["function"]["arguments"] == '{"city": "北京"}'
    assert memory.dropped == 2
    # the pure function accepts SDK objects too
    assert trim_messages([sdk], 1)[0]["tool_calls"][1]["id"] == "call_b"


def test_messages_property_is_a_copy_and_clear_keeps_system():
    memory = ShortTermMemory(10, system={"role": "system", "content": "s"})
    memory.add(user("hi"))
    memory.messages[1]["content"] = "changed"
    memory.messages.append(user("x"))
    assert memory.messages == [{"role": "system", "content": "s"}, user("hi")]
    assert len(memory) == 1
    memory.clear()
    assert memory.messages == [{"role": "system", "content": "s"}]
    assert len(memory) == 0


def test_no_system_message():
    memory = ShortTermMemory(2)
    memory.extend([user("1"), assistant("1"), user("2"), assistant("2")])
    assert memory.messages == [user("2"), assistant("2")]
    assert trim_messages([user("1"), assistant("1"), user("2")], 1) == [user("2")]


def test_adding_a_system_message_replaces_it():
    memory = ShortTermMemory(2, system="old")
    memory.add({"role": "system", "content": "new"})
    assert memory.messages == [{"role": "system", "content": "new"}]
    assert len(memory) == 0


@pytest.mark.parametrize("bad", [0, -1])
def test_bound_below_one_is_rejected(bad):
    with pytest.raises(ValueError):
        ShortTermMemory(bad)
    with pytest.raises(ValueError):
        trim_messages([user("x")], bad)


def test_bound_must_be_int():
    with pytest.raises(TypeError):
        ShortTermMemory(2.5)
    with pytest.raises(TypeError):
        trim_messages([user("x")], True)
