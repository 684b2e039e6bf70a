"""Issue 30, part 3: what course_lib.memory and course_lib.summary_memory promise about the lists it gives back.

* SummaryMemory never makes its list longer by compressing: a summary that is not shorter than
  the turns it would replace is not used (the turns stay, and a ``SummaryWarning`` says why);
  compress_messages stays exercise 09-1's algorithm and always replaces;
* the summary and the next user message never reach the model as two user messages in a row
  (strict chat templates refuse that: "Conversation roles must alternate user/assistant/...");
* a system message further down the list is kept by trimming and compression and reaches the
  model (merged into the first one), never dropped without a word.

Requests go through the real openai client to the course's fake server (tests/fakes.py);
"reaches the model" is checked on the course's own chat template (course_runtime/chat_template.jinja,
rendered with jinja2 as llama-server's --jinja renders it)."""

from __future__ import annotations

import copy
import warnings

import jinja2
import pytest

from course_lib import memory
from course_runtime.local_server import TEMPLATE_PATH
from course_lib import summary_memory
from course_lib.memory import SUMMARY_PREFIX, ShortTermMemory, is_summary, summary_message, trim_messages
from course_lib.summary_memory import SummaryMemory, compress_messages, estimate_tokens
from fakes import FakeLLM, StrictLLM

SYSTEM = {"role": "system", "content": "你是一个跑步教练。"}
LATER = {"role": "system", "content": "从现在起只用英文回答。"}


def user(text):
    return {"role": "user", "content": text}


def assistant(text):
    return {"role": "assistant", "content": text}


def asks(call_id):
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}]}


def tool(call_id, content="北京 晴 25°C"):
    return {"role": "tool", "tool_call_id": call_id, "content": content}


class Summarize:
    """A summarize function that returns ``text`` and keeps a copy of what it was given."""

    def __init__(self, text="用户叫小明。"):
        self.text = text
        self.calls = []

    def __call__(self, old):
        self.calls.append(copy.deepcopy(old))
        return self.text


LONG = "用户先和助手打了个招呼，助手也很有礼貌地回了一句问候，然后用户说想聊一聊跑步，助手说可以，接着双方又寒暄了好几句。"


def caught_warnings(call, *args, **kwargs):
    """(result of call, the warnings it gave)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call(*args, **kwargs)
    return result, caught


# --- 1. compressing never makes the list longer -------------------------------------------------------


@pytest.mark.parametrize("length", [1, 5, 10, 20, 40, 80, 160])
def test_summary_memory_never_makes_its_list_longer(length):
    mem = SummaryMemory(10_000, Summarize("摘" * length), system=SYSTEM)
    mem.extend([user("我叫小明"), assistant("你好，小明！"), user("北京天气？"), asks("c1"), tool("c1"),
                assistant("北京晴。"), user("谢谢")])
    before = estimate_tokens(mem.messages)
    caught_warnings(mem.compress)
    assert estimate_tokens(mem.messages) <= before
    assert mem.messages[0] == SYSTEM and mem.messages[-1]["content"].endswith("谢谢")


def test_compress_messages_is_exercise_09_1s_algorithm_and_always_replaces():
    """The pure function stays what exercise 09-1 asks for (course_lib/checkers/nb09.py checks it against
    the exercise): it does not weigh the summary.  The memory does (the tests below)."""
    full = [SYSTEM, user("你好"), assistant("你好！"), user("下周六我要跑半程马拉松，比赛前一天晚上吃什么比较好？")]
    result, caught = caught_warnings(compress_messages, full, Summarize(LONG))
    assert result == [SYSTEM, summary_message(LONG), full[-1]] and not caught


def test_summary_memory_keeps_the_turns_says_why_and_does_not_ask_again_in_the_same_turn():
    summarize = Summarize(LONG)
    mem = SummaryMemory(30, summarize, system=SYSTEM)
    mem.extend([user("你好"), assistant("你好！")])
    question = user("下周六我要跑半程马拉松，比赛前一天晚上吃什么、几点睡觉比较好？")
    _, caught = caught_warnings(mem.add, question)  # over the budget: a summary is asked for, and is longer
    assert len(summarize.calls) == 1
    assert mem.messages == [SYSTEM, user("你好"), assistant("你好！"), question], "nothing replaced"
    assert mem.summaries == [] and mem.dropped == 0
    assert len(mem.skipped) == 1 and "没有替换" in mem.skipped[0]
    assert [w.category for w in caught] == [summary_memory.SummaryWarning]
    # the same turn goes on (a tool call and its reply): the same old messages, so no second request
    _, caught = caught_warnings(mem.extend, [asks("c1"), tool("c1")])
    assert len(summarize.calls) == 1 and not caught
    # a new turn: more old messages, so it is worth asking again
    summarize.text = "用户叫小明。"
    mem.extend([assistant("清淡一点，早点睡。"), user("谢谢")])
    assert len(summarize.calls) == 2 and mem.summaries == ["用户叫小明。"]
    assert mem.dropped == 6


# --- 2. never two user messages in a row -----------------------------------------------------------------


def alternating(body):
    """What a strict chat template answers (Mistral's, Gemma's, Llama 2's raise this): system only first,
    then user and assistant turns in turn; tool replies belong to the assistant turn that asked."""
    roles = [m["role"] for m in body["messages"]]
    if "system" in roles[1:]:
        return "System message must be at the beginning."
    turns = [r for r in roles if r not in ("system", "tool")]
    if any(a == b for a, b in zip(turns, turns[1:])):
        return "Conversation roles must alternate user/assistant/user/assistant/..."
    return None


def talk(mem, client, turns):
    """09's loop (cell 5): add the user message, send memory.messages, note usage, add the reply."""
    for text in turns:
        mem.add(user(text))
        response = client.chat.completions.create(model="fake-model", messages=mem.messages, max_tokens=60)
        mem.note_usage(response.usage.prompt_tokens)
        mem.add(response.choices[0].message)


TURNS = ["你好，我叫小明，下周六我要去杭州跑半程马拉松。", "比赛前一天晚上吃什么比较好？", "跑鞋要不要比赛前换一双新的？",
         "比赛当天早上几点起床合适？", "对了，我叫什么名字？我要去哪个城市比赛？"]


def test_the_summary_and_the_next_question_are_not_two_user_messages_in_a_row():
    fake = StrictLLM(alternating, default="好的。")
    summarize = Summarize("小明下周六去杭州跑半程马拉松。")
    mem = SummaryMemory(60, summarize, system=SYSTEM)
    talk(mem, fake.client(), TURNS)
    assert summarize.calls, "the case must summarize"
    assert fake.rejected == []
    sent = fake.requests[-1]["messages"]
    assert sent[1]["role"] == "user" and sent[1]["content"].startswith(SUMMARY_PREFIX + summarize.text)


def test_the_merged_message_says_the_summary_first_and_summarize_still_sees_the_question_apart():
    summarize = Summarize("小明要去杭州。")
    mem = SummaryMemory(1, summarize, system=SYSTEM)  # every user message summarizes what came before
    mem.extend([user("我叫小明，下周六我要去杭州跑半程马拉松，请记住。"), assistant("好的，小明，我记住了：下周六，杭州，半程马拉松。"),
                user("吃什么好？")])
    assert mem.messages == [SYSTEM, user(SUMMARY_PREFIX + "小明要去杭州。\n\n吃什么好？")]
    assert is_summary(mem.messages[1])
    mem.extend([assistant("清淡的"), user("几点起床？")])
    assert summarize.calls[1] == [summary_message("小明要去杭州。"), user("吃什么好？"), assistant("清淡的")]
    assert len(mem) == 2, "the memory holds the summary and the question apart; only the list to send merges them"


def test_merge_summary_keeps_content_parts_and_leaves_other_lists_alone():
    parts = [{"type": "text", "text": "这张图里是什么？"}]
    merged = memory.merge_summary([summary_message("用户叫小明。"), {"role": "user", "content": parts}])
    assert merged == [{"role": "user", "content": [{"type": "text", "text": SUMMARY_PREFIX + "用户叫小明。\n\n"}] + parts}]
    plain = [user("a"), user("b"), assistant("c")]  # two user messages the caller wrote: not the summary's doing
    assert memory.merge_summary(plain) == plain
    assert memory.merge_summary([summary_message("s"), assistant("好的")]) == [summary_message("s"), assistant("好的")]


# --- 3. a later system message is kept and reaches the model ------------------------------------------


def rendered(messages):
    """The prompt the course's chat template makes of ``messages`` (what the model reads)."""
    template = jinja2.Environment().from_string(TEMPLATE_PATH.read_text(encoding="utf-8"))
    return template.render(messages=messages, add_generation_prompt=True)


def conversation_with_a_later_system():
    return [SYSTEM, user("我叫小明"), assistant("你好，小明！"), LATER, user("北京天气怎么样？"), asks("c1"), tool("c1"),
            assistant("Sunny, 25°C."), user("谢谢")]


def test_trimming_keeps_a_later_system_message_and_the_model_reads_it():
    full = conversation_with_a_later_system()
    for max_messages in range(1, len(full) + 1):
        result = trim_messages(full, max_messages)
        assert [m["role"] for m in result].count("system") == 1 and result[0]["role"] == "system"
        assert result[0]["content"] == SYSTEM["content"] + "\n\n" + LATER["content"]
        assert LATER["content"] in rendered(result), f"max_messages={max_messages}: the model never reads it"
    assert trim_messages(full, 1)[1:] == [user("谢谢")]


def test_compression_keeps_a_later_system_message_out_of_the_summary_and_in_front():
    summarize = Summarize()
    result = compress_messages(conversation_with_a_later_system(), summarize)
    assert result == [{"role": "system", "content": SYSTEM["content"] + "\n\n" + LATER["content"]},
                      summary_message("用户叫小明。"), user("谢谢")]
    assert all(m["role"] != "system" for m in summarize.calls[0]), "the summary would leave it out"
    assert LATER["content"] in rendered(result)


def test_a_later_system_message_without_a_first_one_goes_first():
    full = [user("我叫小明，下周六我要去杭州跑半程马拉松。"), assistant("你好，小明！祝你比赛顺利，记得提前适应场地。"), LATER, user("谢谢")]
    assert trim_messages(full, 1) == [LATER, user("谢谢")]
    result = compress_messages(full, Summarize())
    assert result[0] == LATER and is_summary(result[1])


def test_the_memories_send_what_they_were_given():
    """A system message given to a memory replaces the one it holds (documented): the model reads the new one."""
    for mem in (ShortTermMemory(2, system=SYSTEM), SummaryMemory(10_000, Summarize(), system=SYSTEM)):
        mem.extend([user("我叫小明"), assistant("你好！"), LATER, user("谢谢")])
        assert LATER["content"] in rendered(mem.messages)


def test_a_later_system_message_reaches_the_model_through_the_client():
    fake = FakeLLM(["Sunny."])
    fake.client().chat.completions.create(model="fake-model", messages=trim_messages(conversation_with_a_later_system(), 2))
    (body,) = fake.requests
    assert alternating(body) is None
    assert LATER["content"] in rendered(body["messages"])
