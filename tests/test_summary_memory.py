"""Tests for notebook 09's compressed memory in course_lib.summary_memory: compress_messages, SummaryMemory,
ModelSummarizer (through the real openai client against the fake server) and estimate_tokens."""

from __future__ import annotations

import copy

import httpx2
import pytest
from openai.types.chat import ChatCompletionMessage

from course_lib.summary_memory import (CUT_MARK, SUMMARY_PREFIX, SUMMARY_PROMPT, ModelSummarizer, SummaryError,
                                       SummaryMemory, compress_messages, estimate_tokens, is_summary, summary_message,
                                       transcript)
from course_lib.messages import validate
from fakes import FakeLLM

SYSTEM = {"role": "system", "content": "你是一个助手。"}


def user(text):
    return {"role": "user", "content": text}


def assistant(text):
    return {"role": "assistant", "content": text}


def asks(*call_ids):
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": i, "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}
        for i in call_ids]}


def tool(call_id, content="北京 晴 25°C"):
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def conversation():
    """system + 4 turns; turn 2 (in the middle) calls two tools."""
    return [
        SYSTEM,
        user("我叫小明，喜欢篮球"),
        assistant("你好，小明！"),
        user("北京和上海天气怎么样？"),
        asks("call_1", "call_2"),
        tool("call_1", "北京 晴 25°C"),
        tool("call_2", "上海 多云 28°C"),
        assistant("北京晴，上海多云。"),
        user("谢谢"),
        assistant("不客气！"),
        user("我叫什么？"),
    ]


class FakeSummarize:
    """A summarize function that records what it was given and numbers its summaries."""

    def __init__(self, fail=None):
        self.calls = []
        self.fail = fail

    def __call__(self, old):
        self.calls.append(copy.deepcopy(old))
        if self.fail is not None:
            raise self.fail
        return f"摘要{len(self.calls)}：用户叫小明。"


def check_pairs(messages):
    """No orphan tool message, no unanswered call: the list is sendable."""
    validate(messages)


# --- compress_messages ---------------------------------------------------------------------------


def test_old_turns_become_one_summary_and_the_last_turn_stays():
    full = conversation()
    before = copy.deepcopy(full)
    summarize = FakeSummarize()
    result = compress_messages(full, summarize)
    assert full == before, "the input must not be modified"
    assert result == [SYSTEM, {"role": "user", "content": SUMMARY_PREFIX + "摘要1：用户叫小明。"}, user("我叫什么？")]
    assert summarize.calls == [full[1:10]]  # every message between the system message and the last turn
    check_pairs(result)
    result[0]["content"] = "changed"
    assert full[0] == SYSTEM, "the result must not share dicts with the input"


def test_what_summarize_gets_is_a_copy():
    full = conversation()

    def vandal(old):
        old[0]["content"] = "changed"
        old.clear()
        return "摘要"

    compress_messages(full, vandal)
    assert full == conversation()


@pytest.mark.parametrize("keep_turns", [1, 2, 3, 4, 5])
def test_a_tool_call_pair_is_never_split(keep_turns):
    full = conversation()
    summarize = FakeSummarize()
    result = compress_messages(full, summarize, keep_turns=keep_turns)
    assert result[0] == SYSTEM
    check_pairs(result)
    kept = result[2:] if is_summary(result[1]) else result[1:]
    assert kept == full[len(full) - len(kept):] and kept[0]["role"] == "user"
    for old in summarize.calls:  # the pair went to summarize whole, or not at all
        ids = [c["id"] for m in old for c in m.get("tool_calls") or []]
        assert sorted(ids) == sorted(m["tool_call_id"] for m in old if m["role"] == "tool")
    if keep_turns >= 4:  # 4 turns in all: nothing before them
        assert result == full and not summarize.calls


def test_a_tool_turn_in_progress_is_kept_whole():
    full = conversation() + [assistant("你叫小明。"), user("北京明天呢？"), asks("call_3")]  # replies not yet added
    result = compress_messages(full, FakeSummarize())
    assert result[2:] == [user("北京明天呢？"), asks("call_3")]


def test_an_earlier_summary_is_folded_into_the_next():
    summarize = FakeSummarize()
    first = compress_messages(conversation(), summarize)
    second = compress_messages(first + [assistant("你叫小明。"), user("我喜欢什么运动？")], summarize)
    assert summarize.calls[1][0] == first[1], "the earlier summary goes to summarize, first"
    assert summarize.calls[1][1:] == [user("我叫什么？"), assistant("你叫小明。")]
    assert [is_summary(m) for m in second] == [False, True, False]  # still ONE summary message
    assert second[1]["content"] == SUMMARY_PREFIX + "摘要2：用户叫小明。"


def test_nothing_to_compress_returns_a_copy_without_calling_summarize():
    summarize = FakeSummarize()
    one_turn = [SYSTEM, user("你好"), assistant("你好！")]
    assert compress_messages(one_turn, summarize) == one_turn
    only_summary = [SYSTEM, summary_message("用户叫小明。"), user("我叫什么？")]
    assert compress_messages(only_summary, summarize) == only_summary  # re-summarizing a summary gains nothing
    assert compress_messages([], summarize) == []
    assert not summarize.calls


def test_no_system_message_and_sdk_messages():
    sdk = ChatCompletionMessage(role="assistant", content="你好，小明！")
    result = compress_messages([user("我叫小明"), sdk, user("我叫什么？")], FakeSummarize())
    assert [m["role"] for m in result] == ["user", "user"] and is_summary(result[0])


@pytest.mark.parametrize("failure", [RuntimeError("服务器断开了"), httpx2.ConnectError("refused")])
def test_a_failed_summary_raises_a_clear_error_and_changes_nothing(failure):
    full = conversation()
    with pytest.raises(SummaryError, match="没有替换任何消息") as caught:
        compress_messages(full, FakeSummarize(fail=failure))
    assert caught.value.__cause__ is failure
    assert type(failure).__name__ in str(caught.value)
    assert full == conversation()


@pytest.mark.parametrize("bad", ["", "   ", None, 42])
def test_a_summary_without_text_is_refused(bad):
    with pytest.raises(SummaryError, match="不是空白的文字"):
        compress_messages(conversation(), lambda old: bad)


def test_bad_arguments():
    with pytest.raises(TypeError, match="summarize 必须是一个函数"):
        compress_messages(conversation(), "摘要")
    with pytest.raises(ValueError, match="keep_turns 至少是 1"):
        compress_messages(conversation(), FakeSummarize(), keep_turns=0)
    with pytest.raises(TypeError, match="keep_turns 必须是整数"):
        compress_messages(conversation(), FakeSummarize(), keep_turns=1.5)


# --- SummaryMemory --------------------------------------------------------------------------------


def turns():
    """Six turns, the third with a tool call, as (messages of the turn)."""
    return [
        [user("我叫小明，喜欢篮球"), assistant("你好，小明！")],
        [user("我想买一双篮球鞋，预算 500 元"), assistant("好的，500 元以内有很多选择。")],
        [user("北京天气怎么样？"), asks("call_1"), tool("call_1"), assistant("北京晴，25°C。")],
        [user("那上海呢？"), asks("call_2"), tool("call_2", "上海 多云 28°C"), assistant("上海多云，28°C。")],
        [user("推荐一个牌子"), assistant("可以看看李宁和安踏。")],
        [user("我叫什么？预算多少？"), assistant("你叫小明，预算 500 元。")],
    ]


def test_memory_stays_under_the_budget_and_keeps_system_and_pairs():
    summarize = FakeSummarize()
    memory = SummaryMemory(60, summarize, system=SYSTEM["content"])
    everything = 0
    for turn in turns():
        for message in turn:
            memory.add(message)
            everything += 1
            messages = memory.messages
            assert messages[0] == SYSTEM
            latest = max(i for i, m in enumerate(messages) if m["role"] == "user")
            if message["role"] != "assistant":  # a request would be sent now
                assert memory.tokens() <= memory.budget_tokens or not any(
                    not is_summary(m) for m in messages[1:latest]), "over the budget only when nothing old is left"
            if messages[-1]["role"] != "assistant" or not messages[-1].get("tool_calls"):
                check_pairs(messages)
    assert memory.summaries == [f"摘要{n}：用户叫小明。" for n in range(1, len(summarize.calls) + 1)]
    assert len(memory.summaries) >= 2
    assert len(summarize.calls) <= len(turns()), "at most one summary per turn"
    assert sum(is_summary(m) for m in memory.messages) == 1
    assert memory.dropped + len(memory) - 1 == everything  # every message is kept or summarized, once
    assert memory.messages[-1] == turns()[-1][1]
    # the summary and the question after it go as one user message (merge_summary)
    assert memory.messages[-2]["content"] == SUMMARY_PREFIX + memory.summaries[-1] + "\n\n" + turns()[-1][0]["content"]
    # every summary after the first folded the one before it in
    for old in summarize.calls[1:]:
        assert is_summary(old[0])


def test_memory_under_the_budget_does_not_summarize():
    summarize = FakeSummarize()
    memory = SummaryMemory(10_000, summarize, system=SYSTEM)
    for turn in turns():
        memory.extend(turn)
    assert not summarize.calls and memory.dropped == 0
    assert memory.messages == [SYSTEM] + [m for turn in turns() for m in turn]


def test_a_failed_summary_loses_nothing_and_is_tried_again():
    summarize = FakeSummarize(fail=RuntimeError("超时"))
    memory = SummaryMemory(30, summarize, system=SYSTEM)
    memory.extend(turns()[0])
    before = memory.messages
    with pytest.raises(SummaryError, match="什么也没丢"):
        memory.add(turns()[1][0])
    assert memory.messages == before + [turns()[1][0]], "the message is added, nothing is replaced"
    assert memory.summaries == [] and memory.dropped == 0
    summarize.fail = None
    memory.add(turns()[1][1])  # an assistant reply: no request follows it, so no summary either
    assert memory.summaries == [] and memory.tokens() > memory.budget_tokens
    memory.add(turns()[2][0])  # the next user message tries again
    assert memory.messages == [SYSTEM, user(SUMMARY_PREFIX + "摘要2：用户叫小明。\n\n北京天气怎么样？")]
    assert summarize.calls[1] == turns()[0] + turns()[1] and memory.dropped == 4


def test_count_tokens_and_keep_turns_are_the_callers():
    memory = SummaryMemory(5, FakeSummarize(), keep_turns=2, count_tokens=len)  # a budget of 5 messages
    for turn in turns()[:3]:
        memory.extend(turn)
    assert [m["role"] for m in memory.messages] == ["user", "assistant", "user", "assistant", "tool", "assistant"]
    # the summary, merged with the first kept user message, then the rest of the 2 kept turns
    assert memory.messages[0] == user(SUMMARY_PREFIX + "摘要1：用户叫小明。\n\n" + turns()[1][0]["content"])
    assert memory.messages[1:] == turns()[1][1:] + turns()[2]


def test_note_usage_counts_the_real_size_of_what_was_sent():
    memory = SummaryMemory(500, FakeSummarize(), system=SYSTEM)
    memory.add(user("你好，我叫小明，喜欢篮球。"))
    assert memory.tokens() == estimate_tokens(memory.messages)
    memory.note_usage(300)  # e.g. tool schemas the estimate does not see
    memory.add(assistant("你好，小明！篮球很好玩。"))
    assert memory.tokens() == 300 + estimate_tokens([assistant("你好，小明！篮球很好玩。")])
    memory.add(user("x" * 900))  # the real count takes it over the budget: summarized
    assert memory.summaries and memory.tokens() == estimate_tokens(memory.messages)  # the record is stale now
    with pytest.raises(ValueError):
        memory.note_usage(0)


def test_memory_list_is_a_copy_clear_and_system():
    memory = SummaryMemory(100, FakeSummarize())
    memory.add({"role": "system", "content": "新的"})
    memory.add(user("hi"))
    memory.messages[1]["content"] = "changed"
    assert memory.messages == [{"role": "system", "content": "新的"}, user("hi")]
    assert repr(memory) == "SummaryMemory(budget_tokens=100, tokens=11, messages=1, system=yes, summaries=0, dropped=0)"
    memory.clear()
    assert memory.messages == [{"role": "system", "content": "新的"}] and len(memory) == 0


def test_memory_bad_arguments():
    with pytest.raises(ValueError, match="budget_tokens 至少是 1"):
        SummaryMemory(0, FakeSummarize())
    with pytest.raises(TypeError, match="budget_tokens 必须是整数"):
        SummaryMemory(True, FakeSummarize())
    with pytest.raises(TypeError, match="summarize"):
        SummaryMemory(100, None)


# --- estimate_tokens -------------------------------------------------------------------------------


def test_estimate_tokens_rule():
    assert estimate_tokens([user("你好")]) == 4 + 2  # CJK: 1 per character
    assert estimate_tokens([user("hello world")]) == 4 + 3  # 11 letters and spaces / 4, rounded up
    # a tool call: its name and arguments, 'get_weather{"city": "北京"}' = 2 CJK + 8 ASCII punctuation
    # (1 each) + 15 letters and spaces (/ 4, rounded up); test_memory_tokens.py has the rest of the rule
    assert estimate_tokens([asks("c1")]) == 4 + 2 + 8 + 4
    assert estimate_tokens([ChatCompletionMessage(role="assistant", content="好")]) == 5
    assert estimate_tokens([]) == 0


# --- ModelSummarizer, through the openai client and the fake server ---------------------------------


def test_model_summarizer_request_and_reply():
    fake = FakeLLM(["用户叫小明，喜欢篮球；北京晴，上海多云。"])
    summarize = ModelSummarizer(fake.client(), "fake-model", max_tokens=120)
    old = [summary_message("用户叫小明。")] + conversation()[3:8]
    assert summarize(old) == "用户叫小明，喜欢篮球；北京晴，上海多云。"
    (body,) = fake.requests
    assert body["max_tokens"] == 120 and body["temperature"] == 0
    assert body["messages"][0] == {"role": "system", "content": SUMMARY_PROMPT}
    sent = body["messages"][1]["content"]
    assert "之前的摘要：用户叫小明。" in sent and "用户：北京和上海天气怎么样？" in sent
    assert '助手调用工具：get_weather({"city": "北京"})' in sent and "工具结果：上海 多云 28°C" in sent
    assert SUMMARY_PREFIX.strip() not in sent
    assert len(summarize.replies) == 1 and summarize.replies[0].usage["prompt_tokens"] > 0
    assert repr(summarize) == "ModelSummarizer(model='fake-model', max_tokens=120, summaries=1)"


def test_transcript_leaves_the_system_message_out():
    assert transcript([SYSTEM, user("你好"), assistant("你好！")]) == "用户：你好\n助手：你好！"


def test_a_cut_summary_is_kept_and_marked():
    fake = FakeLLM([{"content": "用户叫小明，喜欢", "finish_reason": "length"}])
    assert ModelSummarizer(fake.client(), "m")(conversation()[1:3]) == "用户叫小明，喜欢" + CUT_MARK


@pytest.mark.parametrize("reply", [{"content": ""}, {"content": "   "}, {"content": "部分", "finish_reason": "content_filter"}])
def test_no_usable_summary_raises(reply):
    fake = FakeLLM([reply])
    with pytest.raises(SummaryError, match="没有写出可用的摘要"):
        ModelSummarizer(fake.client(), "m")(conversation()[1:3])


def test_memory_with_a_model_keeps_the_first_fact_and_loses_nothing_on_errors():
    fake = FakeLLM([
        "你好，小明！",                                                    # turn 1
        httpx2.Response(500, json={"error": {"message": "server busy"}}),  # the first summary fails
        "小明喜欢篮球。",                                                  # tried again
        "你喜欢篮球。",                                                    # turn 2
    ])
    client = fake.client()
    memory = SummaryMemory(40, ModelSummarizer(client, "fake-model"), system=SYSTEM)

    def send():
        response = client.chat.completions.create(model="fake-model", messages=memory.messages)
        memory.note_usage(response.usage.prompt_tokens)
        memory.add(response.choices[0].message)
        return response.choices[0].message.content

    memory.add(user("我叫小明，喜欢篮球，请记住。"))
    assert send() == "你好，小明！"
    with pytest.raises(SummaryError, match="InternalServerError"):
        memory.add(user("我喜欢什么运动？"))  # over the budget: the summary request gets a 500
    assert [m["content"] for m in memory.messages[1:]] == ["我叫小明，喜欢篮球，请记住。", "你好，小明！", "我喜欢什么运动？"]
    assert memory.compress() is True  # tried again by hand
    assert send() == "你喜欢篮球。"
    assert fake.requests[-1]["messages"] == [SYSTEM, user(SUMMARY_PREFIX + "小明喜欢篮球。\n\n我喜欢什么运动？")]
    assert memory.summaries == ["小明喜欢篮球。"] and memory.dropped == 2
    assert len(fake.requests) == 4  # a summary alone before the latest turn is not summarized again


def test_both_memories_share_the_message_list_of_message_memory():
    from course_lib.memory import MessageMemory, ShortTermMemory
    from course_lib.summary_memory import SummaryMemory

    for memory in (ShortTermMemory(4, system="旧"), SummaryMemory(10_000, lambda old: "摘要", system="旧")):
        assert isinstance(memory, MessageMemory)
        memory.add({"role": "user", "content": "你好"})
        memory.add({"role": "system", "content": "新"})  # replaces the system message, is not appended
        memory.extend([{"role": "assistant", "content": "你好！"}])
        assert memory.messages == [{"role": "system", "content": "新"}, {"role": "user", "content": "你好"},
                                   {"role": "assistant", "content": "你好！"}]
        assert len(memory) == 2
        memory.clear()
        assert memory.messages == [{"role": "system", "content": "新"}] and len(memory) == 0
