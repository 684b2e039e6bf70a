"""The native function-calling loop of course_lib.agent (notebook 06), driven by scripted replies."""

from __future__ import annotations

import httpx2
import openai
import pytest

from fakes import FILTERED, FakeLLM, lone_surrogate_completion, no_choices, raw_completion

from course_lib.agent import (
    DEFAULT_SYSTEM,
    Agent,
    run_agent,
)
from course_lib.records import AnswerStep, EmptyStep, FinalStep, InvalidStep, RunResult, Step, ToolCallsStep, ToolResult
from course_lib.messages import validate
from course_lib.replies import ReplyError
from course_lib.tables import steps_frame
from course_lib.tools import CALCULATOR_TOOL, PRODUCT_TOOL, WEATHER_TOOL, calculate, get_weather
from course_lib.tools.registry import Tool, ToolRegistry

TOOLS_KEYS = {"tools", "tool_choice", "parallel_tool_calls"}


def calls(*pairs):
    return {"tool_calls": list(pairs)}


def weather(city):
    return ("get_weather", {"city": city})


def agent(*replies, default=None, **options):
    fake = FakeLLM(list(replies), default=default)
    options.setdefault("trace", None)
    return fake, Agent(fake.client(), "fake-model", **options)


def all_valid(fake: FakeLLM) -> None:
    for body in fake.requests:
        validate(body["messages"])


def counting_registry():
    seen = []

    def counted(city: str, unit: str = "celsius") -> str:
        seen.append(city)
        return get_weather(city, unit)

    return seen, ToolRegistry([Tool("get_weather", counted, WEATHER_TOOL), Tool("calculate", calculate, CALCULATOR_TOOL)])


# --------------------------------------------------------------------------- the basic loop


def test_parallel_calls_one_tool_reply_per_id_then_answer():
    fake, loop = agent(calls(weather("北京"), weather("上海")), "北京晴，上海多云。")
    result = loop.run("北京和上海天气怎么样？")
    assert type(result) is RunResult and result.protocol == "native"  # one result class for every loop
    assert result.title().startswith("北京和上海天气怎么样？") and "stopped_reason=answer" in result.title()
    assert result.answer == "北京晴，上海多云。" and result.stopped_reason == "answer"
    first, second = fake.requests
    assert first["messages"][0] == {"role": "system", "content": DEFAULT_SYSTEM}
    assert {t["function"]["name"] for t in first["tools"]} >= {"get_weather", "calculate"}
    assert first["parallel_tool_calls"] is True and first["max_tokens"] > 0 and first["temperature"] == 0
    msgs = second["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool", "tool"]
    ids = [c["id"] for c in msgs[2]["tool_calls"]]
    assert [m["tool_call_id"] for m in msgs[3:]] == ids and len(set(ids)) == 2
    assert msgs[3]["content"].startswith("北京：晴") and msgs[4]["content"].startswith("上海：多云")
    assert [s.kind for s in result.steps] == ["tool_calls", "answer"]
    assert result.tool_calls == 2 and result.requests == 2
    assert result.prompt_tokens == sum(s.prompt_tokens for s in result.steps) and result.completion_tokens == 14
    assert result.messages[-1] == {"role": "assistant", "content": "北京晴，上海多云。"}
    assert result.seconds >= 0
    all_valid(fake)


def test_sequential_chain_uses_the_first_result():
    fake, loop = agent(calls(("query_by_product_name", {"product_name": "篮球"})),
                       calls(("calculate", {"expression": "200 * 2"})), "两个篮球 400 元。")
    result = loop.run("两个篮球多少钱？")
    assert [s.kind for s in result.steps] == ["tool_calls", "tool_calls", "answer"]
    assert '"price": 200.0' in result.steps[0].tool_calls[0].observation
    assert result.steps[1].tool_calls[0].observation == "400"
    assert [m["role"] for m in fake.requests[2]["messages"]] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    all_valid(fake)


def test_a_plain_answer_needs_one_request():
    fake, loop = agent("你好！")
    result = loop.run("你好")
    assert result.answer == "你好！" and result.requests == 1 and result.tool_calls == 0


def test_no_system_prompt_and_custom_tools():
    fake, loop = agent("ok", system=None, tools=[WEATHER_TOOL], parallel_tool_calls=None, tool_choice="auto")
    loop.run("hi")
    body = fake.requests[0]
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert [t["function"]["name"] for t in body["tools"]] == ["get_weather"]
    assert body["tool_choice"] == "auto" and "parallel_tool_calls" not in body


# --------------------------------------------------------------------------- max_steps


def test_a_model_that_never_stops_is_stopped_by_max_steps_without_tools_keys():
    cities = iter(["北京", "上海", "广州", "深圳", "杭州", "成都"])
    fake = FakeLLM()
    fake.when_done = None
    for _ in range(3):
        fake.add(calls(weather(next(cities))))
    fake.add("我没有找到永远不下雨的城市。")
    loop = Agent(fake.client(), "fake-model", max_steps=3, trace=None)
    result = loop.run("找一个永远不会下雨的城市")
    assert len(fake.requests) == 4 and result.requests == 4
    for body in fake.requests[:3]:
        assert "tools" in body and body["parallel_tool_calls"] is True
    final = fake.requests[3]
    assert not TOOLS_KEYS & set(final)  # left out entirely, not null/empty
    last = final["messages"][-1]
    assert last["role"] == "user" and "3 步" in last["content"] and "不能再调用工具" in last["content"]
    assert result.stopped_reason == "max_steps" and result.answer == "我没有找到永远不下雨的城市。"
    assert [type(s) for s in result.steps] == [ToolCallsStep] * 3 + [FinalStep]
    assert result.steps[-1].kind == "final" and result.steps[-1].reason == "max_steps"
    assert result.steps[-1].text == result.steps[-1].answer == "我没有找到永远不下雨的城市。"
    assert result.messages[-1] == {"role": "assistant", "content": "我没有找到永远不下雨的城市。"}
    all_valid(fake)


def test_max_steps_one_and_empty_final_reply():
    fake, loop = agent(calls(weather("北京")), "", max_steps=1)
    result = loop.run("q")
    assert result.stopped_reason == "max_steps" and result.answer is None
    assert result.messages[-1]["role"] == "user"  # no empty assistant message is stored
    all_valid(fake)


def test_forced_final_reply_with_a_json_call_in_text_is_just_text():
    text = '```json\n{"name": "get_weather", "arguments": {"city": "上海"}}\n```'
    fake, loop = agent(calls(weather("北京")), text, max_steps=1)
    result = loop.run("q")
    assert result.answer == text and isinstance(result.steps[-1], FinalStep)
    assert result.steps[-1].calls == 0 and result.tool_calls == 1  # only the first step's call ran


def test_lowering_max_steps_mid_run_is_obeyed_before_the_next_request():
    fake, loop = agent(calls(weather("北京")), calls(weather("上海")), "done", max_steps=5)
    loop.start("q")
    loop.step()
    loop.step()
    loop.max_steps = 1
    assert "tools" in loop.next_request()  # next_request never changes the state
    loop.step()
    assert loop.done and not TOOLS_KEYS & set(fake.requests[2]) and loop.stopped_reason == "max_steps"


def test_invalid_limits():
    with pytest.raises(ValueError):
        Agent(FakeLLM().client(), "m", max_steps=0)
    with pytest.raises(ValueError):
        Agent(FakeLLM().client(), "m", max_repeats=0)


# --------------------------------------------------------------------------- repeated calls


def test_repeated_identical_call_is_answered_from_the_first_result_not_rerun():
    seen, reg = counting_registry()
    fake, loop = agent(calls(weather("北京")), calls(("get_weather", '{ "city":"北京" }')), "北京晴。", registry=reg)
    result = loop.run("北京天气")
    assert seen == ["北京"]  # the tool ran once
    repeat = result.steps[1].tool_calls[0]
    assert repeat.repeated and repeat.first_step == 1
    assert repeat.observation.startswith("北京：晴") and "与第 1 步的调用相同" in repeat.observation
    assert fake.requests[2]["messages"][-1]["content"] == repeat.observation
    assert result.stopped_reason == "answer"


def test_same_tool_different_arguments_is_not_a_repeat():
    seen, reg = counting_registry()
    fake, loop = agent(calls(weather("北京")), calls(("get_weather", {"city": "北京", "unit": "fahrenheit"})), "ok", registry=reg)
    result = loop.run("q")
    assert seen == ["北京", "北京"] and not result.steps[1].tool_calls[0].repeated


def test_a_run_that_keeps_repeating_ends_with_the_forced_answer():
    seen, reg = counting_registry()
    lines = []
    fake, loop = agent(default=calls(weather("北京")), registry=reg, max_steps=10, max_repeats=2, trace=lines.append)
    fake.add(calls(weather("北京")), calls(weather("北京")), calls(weather("北京")))
    fake.when_done = None
    fake.add("北京晴，25°C。")
    result = loop.run("北京天气")
    assert seen == ["北京"] and len(fake.requests) == 4
    assert result.stopped_reason == "repeated_calls" and result.answer == "北京晴，25°C。"
    final = fake.requests[3]
    assert not TOOLS_KEYS & set(final) and "重复" in final["messages"][-1]["content"]
    assert any(line.startswith("[停止：连续重复调用]") for line in lines)
    all_valid(fake)


def test_repeat_inside_one_parallel_message_and_broken_call_still_count_as_repeating():
    seen, reg = counting_registry()
    broken = {"id": "bad", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "'}}
    fake, loop = agent(calls(weather("北京"), weather("北京")),
                       {"tool_calls": [{"id": "a1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}, broken]},
                       {"tool_calls": [{"id": "a2", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}, {**broken, "id": "bad2"}]},
                       "北京晴。", registry=reg, max_repeats=2)
    result = loop.run("q")
    assert seen == ["北京"]
    assert [c.repeated for c in result.steps[0].tool_calls] == [False, True]
    assert result.stopped_reason == "repeated_calls" and result.requests == 4
    all_valid(fake)


# --------------------------------------------------------------------------- bad calls


def test_a_tool_that_raises_comes_back_as_an_error_string():
    def broken(product_name: str) -> str:
        raise ConnectionError("database locked")

    reg = ToolRegistry([Tool("query_by_product_name", broken, PRODUCT_TOOL)])
    fake, loop = agent(calls(("query_by_product_name", {"product_name": "球"})), "抱歉，查询失败。", registry=reg)
    result = loop.run("卖什么球？")
    content = fake.requests[1]["messages"][-1]["content"]
    assert content.startswith("错误：") and "database locked" in content
    assert result.steps[0].tool_calls[0].ok is False and result.steps[0].tool_calls[0].observation == content
    assert result.stopped_reason == "answer"


def test_unknown_tool_name_is_answered_with_the_available_tools():
    fake, loop = agent(calls(("search_web", {"q": "x"})), "好的。")
    result = loop.run("q")
    content = fake.requests[1]["messages"][-1]["content"]
    assert "search_web" in content and "get_weather" in content and content.startswith("错误")
    assert result.steps[0].tool_calls[0].name == "search_web"
    assert result.steps[0].tool_calls[0].ok is False and result.steps[0].tool_calls[0].observation == content
    all_valid(fake)


def test_a_tool_that_ran_is_ok_and_its_repeat_keeps_the_first_ok():
    fake, loop = agent(calls(weather("北京"), ("search_web", {"q": "x"})),
                       calls(weather("北京"), ("search_web", {"q": "x"})), "好的。")
    result = loop.run("q")
    ran, unknown = result.steps[0].tool_calls
    assert ran.ok is True and unknown.ok is False
    again, unknown_again = result.steps[1].tool_calls
    assert again.repeated and again.ok is True
    assert unknown_again.repeated and unknown_again.ok is False and unknown_again.first_step == 1


def test_malformed_arguments_are_not_run_and_stored_as_valid_json():
    seen, reg = counting_registry()
    fake, loop = agent(calls(("get_weather", '{"city": 北京}')), calls(weather("北京")), "晴。", registry=reg)
    result = loop.run("q")
    bad = result.steps[0].tool_calls[0]
    assert bad.arguments is None and bad.ok is False and bad.arguments_text == "{}"
    assert "无法读取" in bad.observation and seen == ["北京"]
    assistant = fake.requests[1]["messages"][2]
    assert assistant["tool_calls"][0]["function"]["arguments"] == "{}"
    assert not result.steps[1].tool_calls[0].repeated  # an unreadable call is never reused
    all_valid(fake)


def test_problem_reply_gets_a_corrective_message_and_is_never_the_answer():
    broken_text = '```json\n{"name": "get_weather", "arguments": {"city": 北京}}\n```'
    fake, loop = agent(broken_text, calls(weather("北京")), "北京晴。")
    result = loop.run("北京天气")
    assert [s.kind for s in result.steps] == ["invalid", "tool_calls", "answer"]
    assert [type(s) for s in result.steps] == [InvalidStep, ToolCallsStep, AnswerStep]
    assert result.steps[0].error == result.steps[0].observation and result.steps[0].answer is None
    msgs = fake.requests[1]["messages"]
    assert msgs[-2] == {"role": "assistant", "content": broken_text}
    assert msgs[-1]["role"] == "user" and msgs[-1]["content"] == result.steps[0].observation
    assert "tools" in fake.requests[1]
    assert result.answer == "北京晴。"
    all_valid(fake)


def test_problem_replies_count_towards_max_steps():
    broken_text = '{"name": "get_weather", "arguments": {"city": 北京}}'
    fake, loop = agent(broken_text, broken_text, "我无法完成。", max_steps=2)
    result = loop.run("q")
    assert result.stopped_reason == "max_steps" and result.answer == "我无法完成。"
    assert not TOOLS_KEYS & set(fake.requests[2])


def test_call_written_in_content_is_recovered_and_run():
    text = '```json\n{"name": "get_weather", "arguments": {"city": "上海"}}\n```'
    fake, loop = agent(text, "上海多云。")
    result = loop.run("上海天气")
    call = result.steps[0].tool_calls[0]
    assert call.recovered and call.observation.startswith("上海：多云")
    assert fake.requests[1]["messages"][2]["tool_calls"][0]["function"]["name"] == "get_weather"
    all_valid(fake)


def test_empty_reply_gets_a_reminder():
    fake, loop = agent("", "好的。")
    result = loop.run("q")
    assert result.steps[0].kind == "empty" and isinstance(result.steps[0], EmptyStep)
    assert fake.requests[1]["messages"][-1] == {"role": "user", "content": result.steps[0].observation}
    assert [m["role"] for m in fake.requests[1]["messages"]] == ["system", "user", "user"]
    all_valid(fake)


def test_missing_and_duplicate_ids_are_fixed():
    dup = {"tool_calls": [
        {"id": "x", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}},
        {"id": "x", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "上海"}'}},
        {"id": "", "type": "function", "function": {"name": "calculate", "arguments": '{"expression": "1+1"}'}},
    ]}
    fake, loop = agent(dup, "ok")
    result = loop.run("q")
    ids = [c.id for c in result.steps[0].tool_calls]
    assert len(set(ids)) == 3 and ids[0] == "x"
    all_valid(fake)


# --------------------------------------------------------------------------- interface and trace


def test_step_interface_and_api_error_retry():
    fake, loop = agent(httpx2.Response(500, json={"error": {"message": "busy"}}), calls(weather("北京")), "晴")
    with pytest.raises(RuntimeError):
        loop.step()
    loop.start("q")
    preview = loop.next_request()
    assert "tools" in preview and preview["messages"][-1] == {"role": "user", "content": "q"}
    with pytest.raises(openai.InternalServerError):
        loop.step()
    assert loop.steps == [] and len(loop.messages) == 2
    record = loop.step()
    assert isinstance(record, Step) and record.kind == "tool_calls" and not loop.done
    loop.step()
    assert loop.done and loop.result().answer == "晴"
    with pytest.raises(RuntimeError):
        loop.step()


def test_start_with_a_message_list():
    fake, loop = agent("ok")
    loop.start([{"role": "system", "content": "s"}, {"role": "user", "content": "第一个问题"}])
    assert loop.question == "第一个问题"
    loop.run()
    assert fake.requests[0]["messages"][0] == {"role": "system", "content": "s"}
    with pytest.raises(ValueError):
        loop.start([{"role": "system", "content": "s"}])


def test_trace_lines_and_chain_table():
    lines = []
    fake, loop = agent(calls(weather("北京"), weather("上海")), "北京晴。", trace=lines.append)
    result = loop.run("q")
    assert lines[0].startswith('[步 1/5] 调用工具 get_weather 参数 {"city": "北京"} 结果 北京：晴')
    assert lines[1].startswith("[步 1/5] 调用工具 get_weather 参数 {\"city\": \"上海\"}")
    assert lines[2] == "[步 2/5] 回答：北京晴。"
    frame = steps_frame(result.steps)
    assert list(frame["tool"]) == ["get_weather", "get_weather", ""]
    assert list(frame["input"]) == ['{"city": "北京"}', '{"city": "上海"}', ""]
    assert frame["observation"][0].startswith("北京：晴") and list(frame["answer"]) == ["", "", "北京晴。"]
    assert frame["prompt_tokens"].notna().sum() == 2  # each request counted once
    assert isinstance(result, RunResult) and result.protocol == "native"
    assert all(isinstance(c, ToolResult) and c.ok for c in result.steps[0].tool_calls)
    assert "stopped_reason=answer" in str(result.table())
    assert "tool_call_id" in str(result.show_messages())
    assert result.summary()["tool_calls"] == 2


def test_run_agent_shortcut():
    fake = FakeLLM([calls(("calculate", {"expression": "20 * 15"})), "300"])
    result = run_agent(fake.client(), "fake-model", "20 * 15?", trace=None, max_steps=2)
    assert result.answer == "300" and result.steps[0].tool_calls[0].observation == "300"


def test_a_reply_without_choices_is_a_clear_error_and_the_step_can_be_retried():
    fake, a = agent(calls(weather("北京")), no_choices(prompt_filter_results=FILTERED), "北京晴。")
    a.start("北京天气怎么样？")
    a.step()
    before = ([dict(m) for m in a.messages], list(a.steps))
    with pytest.raises(ReplyError) as caught:
        a.step()
    assert "choices" in str(caught.value) and "prompt_filter_results" in str(caught.value)
    assert ([dict(m) for m in a.messages], list(a.steps)) == before and not a.done
    a.step()  # the retry goes on where the run was
    assert a.answer == "北京晴。" and a.stopped_reason == "answer" and len(a.steps) == 2
    assert fake.requests[2]["messages"] == fake.requests[1]["messages"]


def test_an_answer_sent_as_a_list_of_parts_is_its_text():
    parts = [{"type": "thinking", "thinking": "也许该调用 get_weather"}, {"type": "text", "text": "你好！"}]
    fake, a = agent(raw_completion({"role": "assistant", "content": parts}))
    result = a.run("你好")
    assert result.answer == "你好！" and result.stopped_reason == "answer"
    assert result.messages[-1] == {"role": "assistant", "content": "你好！"}


@pytest.mark.parametrize("finish_reason", ["length", "content_filter"])
def test_a_cut_reply_is_not_silently_the_final_answer(finish_reason):
    lines: list[str] = []
    fake, a = agent({"content": "…店里有三种篮球：1. 斯伯丁 199 元；2. 李宁", "finish_reason": finish_reason}, trace=lines.append)
    result = a.run("店里有哪些篮球？")
    assert result.stopped_reason == finish_reason != "answer" and result.answer == "…店里有三种篮球：1. 斯伯丁 199 元；2. 李宁"
    assert result.summary()["stopped_reason"] == finish_reason
    assert result.steps[0].cut and "截断" in lines[-1] and finish_reason in lines[-1]
    frame = steps_frame(result.steps)
    assert frame["finish_reason"].tolist() == [finish_reason]


def test_a_normal_answer_still_stops_with_answer():
    fake, a = agent("北京晴。")
    result = a.run("北京天气？")
    assert result.stopped_reason == "answer" and result.steps[0].cut is None
    assert steps_frame(result.steps)["finish_reason"].tolist() == ["stop"]


THINKING_HELLO = "<think>我可以调用 {\"name\": \"get_weather\", \"arguments\": {\"city\": \"北京\"}}，但没有必要。</think>\n\n你好！有什么可以帮你的？"


def test_a_tool_call_inside_the_thinking_is_not_run():
    fake, a = agent(THINKING_HELLO)
    result = a.run("你好")
    assert result.answer == "你好！有什么可以帮你的？" and result.stopped_reason == "answer"
    assert result.tool_calls == 0 and len(fake.requests) == 1
    assert result.steps[0].reasoning.startswith("我可以调用") and "<think>" not in result.steps[0].reply
    assert result.messages[-1] == {"role": "assistant", "content": "你好！有什么可以帮你的？"}
    assert steps_frame(result.steps)["reasoning"].iloc[0].startswith("我可以调用")


def test_reasoning_content_is_shown_but_not_sent_back():
    fake, a = agent(raw_completion({"role": "assistant", "content": None, "reasoning_content": "查一下天气",
                                    "tool_calls": [{"id": "c1", "type": "function",
                                                    "function": {"name": "get_weather", "arguments": '{"city": "北京"}'}}]},
                                   finish_reason="tool_calls"), "北京晴。")
    result = a.run("北京天气？")
    assert result.steps[0].reasoning == "查一下天气" and result.answer == "北京晴。"
    assert all("reasoning_content" not in m for m in fake.requests[1]["messages"])


def test_the_next_request_goes_out_after_half_an_emoji():
    fake, a = agent(calls(weather("北京")), "北京晴。")
    a.start([{"role": "user", "content": "北京天气\ud83d"}])
    a.run()
    assert a.answer == "北京晴。" and fake.requests[0]["messages"][-1]["content"] == "北京天气\ufffd"


# --------------------------------------------------------------------------- the public hooks


def test_the_send_hook_sends_every_request_of_a_step():
    """Agent.send(request) -> replies.Reply is where every request goes (the chat box streams there);
    the re-sent request of the number check too."""
    sent = []

    class Watched(Agent):
        def send(self, request):
            sent.append(request)
            return super().send(request)

    fake = FakeLLM([calls(("calculate", {"expression": "3 * 40"})), calls(("query_by_product_name", {"product_name": "足球"})),
                    "一共 360 元。"])
    result = Watched(fake.client(), "fake-model", trace=None, max_steps=3).run("买 3 个足球多少钱？")
    assert sent == fake.requests and len(sent) == 3 and result.steps[0].requests == 2
    assert [("calculate" in {t["function"]["name"] for t in r["tools"]}) for r in sent[:2]] == [True, False]


def test_the_answer_call_hook_answers_each_call():
    """Agent.answer_call(call, step) -> ToolResult answers one call; what it returns is what the model reads."""
    asked = []

    class Stubbed(Agent):
        def answer_call(self, call, step):
            asked.append((call.name, call.arguments, step))
            if call.name == "calculate":
                return ToolResult.not_run(call, "不许计算")
            return super().answer_call(call, step)

    fake = FakeLLM([calls(weather("北京"), ("calculate", {"expression": "1 + 1"})), calls(weather("北京")), "好。"])
    result = Stubbed(fake.client(), "fake-model", trace=None).run("q")
    assert asked == [("get_weather", {"city": "北京"}, 1), ("calculate", {"expression": "1 + 1"}, 1),
                     ("get_weather", {"city": "北京"}, 2)]
    first = result.steps[0].tool_calls
    assert [c.ok for c in first] == [True, False] and fake.requests[1]["messages"][-1]["content"] == "不许计算"
    assert result.steps[1].tool_calls[0].repeated  # the base answer_call still reuses identical calls


def test_recheck_max_tokens_is_a_parameter():
    fake = FakeLLM([calls(("calculate", {"expression": "3 * 40"})), "我不知道价格。"])
    Agent(fake.client(), "fake-model", trace=None, max_tokens=300, recheck_max_tokens=40).run("买 3 个足球多少钱？")
    assert [r["max_tokens"] for r in fake.requests] == [300, 40]
    fake = FakeLLM([calls(("calculate", {"expression": "3 * 40"})), "我不知道价格。"])
    Agent(fake.client(), "fake-model", trace=None, max_tokens=300, recheck_max_tokens=10_000).run("买 3 个足球多少钱？")
    assert [r["max_tokens"] for r in fake.requests] == [300, 300]


def test_every_kind_of_trace_line():
    lines: list[str] = []
    fake, loop = agent(calls(("calculate", {"expression": "3 * 40"})), calls(weather("北京")), calls(weather("北京")),
                       '{"name": "get_weather", "arguments": {"city": 北京}}', "北京晴。", max_steps=3, trace=lines.append)
    loop.run("北京天气，再买 3 个足球")
    assert lines[0] == '[步 1/3] 数字检查：calculate 参数 {"expression": "3 * 40"}（没有运行：40 既不在用户的消息里，也不在工具结果里）'
    assert lines[1] == "[步 1/3] 整条回答（1 个调用）都丢弃了，没有进入 messages；同一个请求去掉 calculate 再发一次"
    assert lines[2].startswith('[步 1/3] 调用工具 get_weather 参数 {"city": "北京"} 结果 北京：晴')
    assert lines[3] == '[步 2/3] 调用工具 get_weather 参数 {"city": "北京"} 重复调用：没有重新执行，返回第 1 步的结果'
    assert lines[4].startswith("[步 3/3] 回复无法使用（") and lines[4].endswith("）→ 发送纠正消息")
    assert lines[5] == "[停止：达到 max_steps=3] 不带 tools 再请求一次 → 回答：北京晴。"
    assert len(lines) == 6


def test_numbers_in_a_tools_failure_do_not_ground_a_calculation():
    # The calculator refuses a long expression with "错误：表达式太长（最多 200 个字符）": a ToolFailure,
    # so its 200 is no result a later calculation may use (the number check drops "200 * 2").
    fake, loop = agent(calls(("calculate", {"expression": "1+" * 150 + "1"})),
                       calls(("calculate", {"expression": "200 * 2"})),
                       "我算不了。", default=None, max_steps=4)
    result = loop.run("帮我算一下")
    first = result.steps[0].tool_calls[0]
    assert first.ok is False and "最多 200 个字符" in first.observation
    assert [c.arguments_text for c in result.steps[1].dropped] == ['{"expression": "200 * 2"}']
    assert "200" in result.steps[1].dropped[0].missing_numbers
