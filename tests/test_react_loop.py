"""The prompt-based ReAct loops of course_lib.react (notebook 05), driven by scripted replies."""

from __future__ import annotations

import httpx2
import openai
import pytest

from fakes import FakeLLM, no_choices, raw_completion

from course_lib.records import ActionStep, AnswerStep, FinalStep, InvalidStep, RunResult, Step
from course_lib.messages import validate
from course_lib.replies import ReplyError
from course_lib.react import (
    JSON_STOP,
    LINE_STOP,
    ChatBot,
    JsonReAct,
    LineReAct,
    json_system_prompt,
    line_system_prompt,
    run_json_react,
    run_line_react,
    tool_arguments,
)
from course_lib.tables import steps_frame
from course_lib.texts import t
from course_lib.tools import CALCULATOR_TOOL, WEATHER_TOOL, calculate, get_weather
from course_lib.tools.registry import Tool, ToolRegistry, default_registry

A_ACTION = "Thought: 我需要计算\nAction: calculate: 20 * 15\nPAUSE"
A_ANSWER = "Thought: 我知道答案了\nAnswer: 20 * 15 = 300"


def b_action(action="calculate", action_input='"20 * 15"'):
    return f'Thought: 我需要计算\nAction:\n```json\n{{"action": "{action}", "action_input": {action_input}}}\n```\n'


B_ANSWER = "Thought: 我现在知道最终答案了\nFinal Answer: 300"


def all_valid(fake: FakeLLM) -> None:
    """Every request sent was a valid message list without tools keys."""
    for body in fake.requests:
        validate(body["messages"])
        assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(body)


def line(*replies, **options):
    fake = FakeLLM(list(replies))
    options.setdefault("trace", None)
    return fake, LineReAct(fake.client(), "fake-model", **options)


def json_loop(*replies, **options):
    fake = FakeLLM(list(replies))
    options.setdefault("trace", None)
    return fake, JsonReAct(fake.client(), "fake-model", **options)


# --------------------------------------------------------------------------- helpers


def test_tool_arguments_maps_text_to_the_first_required_parameter():
    reg = default_registry()
    assert tool_arguments(reg, "calculate", " 20 * 15 ") == {"expression": "20 * 15"}
    assert tool_arguments(reg, "get_weather", "北京") == {"city": "北京"}
    assert tool_arguments(reg, "get_weather", {"city": "上海", "unit": "celsius"}) == {"city": "上海", "unit": "celsius"}
    assert tool_arguments(reg, "get_weather", '{"city": "广州"}') == {"city": "广州"}
    assert tool_arguments(reg, "nope", "x") == {}


def test_system_prompts_list_the_tools():
    reg = default_registry()
    a, b = line_system_prompt(reg), json_system_prompt(reg)
    for name in reg.names:
        assert name in a and name in b
    assert '"parameters"' in b and "Final Answer" in b and "Action: 工具名: 输入" in a


def test_chatbot_keeps_the_history_and_nothing_on_failure():
    fake = FakeLLM([httpx2.Response(500, json={"error": {"message": "busy"}}), "你好！", "我记得。"])
    bot = ChatBot(fake.client(), "fake-model", system="sys", max_tokens=10, stop=["X"])
    with pytest.raises(openai.InternalServerError):
        bot("hi")
    assert bot.messages == [{"role": "system", "content": "sys"}]
    assert bot("hi") == "你好！"
    assert bot("还记得吗") == "我记得。"
    assert [m["role"] for m in bot.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert fake.requests[-1]["max_tokens"] == 10 and fake.requests[-1]["stop"] == ["X"]
    assert len(fake.requests[-1]["messages"]) == 4


# --------------------------------------------------------------------------- protocol A


def test_a_action_then_answer():
    fake, loop = line(A_ACTION, A_ANSWER)
    result = loop.run("20 * 15 等于多少")
    assert type(result) is RunResult and result.protocol == "A" and result.title().startswith("协议 A")
    assert result.answer == "20 * 15 = 300" and result.stopped_reason == "answer"
    first, second = fake.requests
    assert first["stop"] == LINE_STOP and first["temperature"] == 0 and first["max_tokens"] > 0
    assert first["messages"][0]["role"] == "system" and "calculate" in first["messages"][0]["content"]
    assert first["messages"][1] == {"role": "user", "content": "Question: 20 * 15 等于多少"}
    assert second["messages"][-1] == {"role": "user", "content": "Observation: 300"}
    assert second["messages"][-2]["role"] == "assistant"
    s1, s2 = result.steps
    assert (s1.kind, s1.thought, s1.action, s1.action_input, s1.observation) == ("action", "我需要计算", "calculate", "20 * 15", "300")
    assert isinstance(s1, ActionStep) and s1.ok is True
    assert isinstance(s2, AnswerStep) and s2.kind == "answer" and s2.text == s2.answer == "20 * 15 = 300"
    assert not hasattr(s2, "observation")  # an answer sends nothing back
    assert result.prompt_tokens == s1.prompt_tokens + s2.prompt_tokens > 0
    assert result.completion_tokens == 14 and result.requests == 2 and result.tool_calls == 1
    all_valid(fake)


@pytest.mark.parametrize(
    "reply",
    [
        "THOUGHT：先算一下\nACTION：calculate：20 * 15",
        "**Thought:** 先算\n**Action:** `calculate`: 20 * 15",
        "Thought: 先算\nAction : calculate : 20 * 15\nPAUSE\nObserv",  # half-written stop word
        "Thought: 先算\nAction: calculate(20 * 15)",
    ],
)
def test_a_reply_variants_run_the_tool(reply):
    fake, loop = line(reply, A_ANSWER)
    result = loop.run("20 * 15 等于多少")
    assert result.steps[0].kind == "action" and result.steps[0].observation == "300"
    assert fake.requests[1]["messages"][-1]["content"] == "Observation: 300"
    all_valid(fake)


def test_a_invented_observation_is_cut_and_not_kept_in_history():
    invented = "Thought: 查一下\nAction: get_weather: 北京\nObservation: 北京 下雪 -5°C\nAnswer: 北京在下雪"
    fake, loop = line(invented, "Answer: 北京晴，25°C")
    result = loop.run("北京天气？")
    assert result.steps[0].kind == "action" and result.steps[0].observation.startswith("北京：晴")
    history = fake.requests[1]["messages"]
    assert "下雪" not in history[2]["content"] and history[2]["role"] == "assistant"
    assert history[3]["content"].startswith("Observation: 北京：晴")
    assert result.answer == "北京晴，25°C"


def test_a_action_and_answer_in_one_reply_the_first_decides():
    fake, loop = line("Action: calculate: 2+3\nAnswer: 5", "Answer: 5")
    result = loop.run("2+3?")
    assert result.steps[0].kind == "action" and len(fake.requests) == 2
    fake, loop = line("Answer: 5\nAction: calculate: 2+3")
    result = loop.run("2+3?")
    assert result.steps[0].kind == "answer" and result.answer == "5" and len(fake.requests) == 1


def test_a_unparseable_reply_gets_the_corrective_observation_and_counts():
    fake, loop = line("20 乘以 15 等于 300。", A_ACTION, A_ANSWER)
    result = loop.run("20 * 15 等于多少")
    assert [s.kind for s in result.steps] == ["invalid", "action", "answer"]
    sent = fake.requests[1]["messages"][-1]["content"]
    assert sent.startswith("Observation: 格式错误") and "Action: 工具名: 输入" in sent and "calculate" in sent
    assert isinstance(result.steps[0], InvalidStep) and result.steps[0].answer is None
    assert result.steps[0].error and result.steps[0].observation in sent
    all_valid(fake)


def test_a_unknown_tool_is_a_corrective_step_naming_the_tools():
    fake, loop = line("Action: wikipedia: 长江", A_ANSWER)
    result = loop.run("长江多长？")
    assert result.steps[0].kind == "invalid" and "wikipedia" in result.steps[0].error
    assert "search_knowledge" in fake.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize("empty", ["", "   ", "Observ"])
def test_a_empty_reply_is_invalid_and_history_stays_valid(empty):
    fake, loop = line(empty, A_ANSWER)
    result = loop.run("20 * 15?")
    assert result.steps[0].kind == "invalid" and result.answer == "20 * 15 = 300"
    roles = [m["role"] for m in fake.requests[1]["messages"]]
    assert roles == ["system", "user", "user"]  # no empty assistant message
    all_valid(fake)


def test_a_tool_that_raises_becomes_an_error_observation():
    def broken(expression: str) -> str:
        raise RuntimeError("disk on fire")

    reg = ToolRegistry([Tool("calculate", broken, CALCULATOR_TOOL)])
    fake, loop = line(A_ACTION, A_ANSWER, registry=reg)
    result = loop.run("20 * 15?")
    assert result.steps[0].observation.startswith("错误：") and "disk on fire" in result.steps[0].observation
    assert result.steps[0].kind == "action" and result.steps[0].ok is False  # the tool did not produce it
    assert fake.requests[1]["messages"][-1]["content"] == f"Observation: {result.steps[0].observation}"
    assert result.stopped_reason == "answer"


def test_a_tool_error_string_is_passed_back():
    fake, loop = line("Action: get_weather: 火星", "Answer: 没有数据")
    result = loop.run("火星天气")
    assert "火星" in result.steps[0].observation
    assert result.steps[0].ok is True  # the tool ran; what it says is its result
    assert fake.requests[1]["messages"][-1]["content"] == f"Observation: {get_weather('火星')}"


def test_a_max_steps_then_one_last_request():
    fake, loop = line(A_ACTION, A_ACTION, "Answer: 300", max_steps=2)
    result = loop.run("20 * 15?")
    assert len(fake.requests) == 3 and [s.kind for s in result.steps] == ["action", "action", "final"]
    assert isinstance(result.steps[-1], FinalStep) and result.steps[-1].reason == "max_steps"
    assert result.steps[-1].text == result.steps[-1].answer == "300"
    last = fake.requests[2]["messages"][-1]["content"]
    assert "步数上限" in last and "Answer:" in last
    assert result.stopped_reason == "max_steps" and result.answer == "300"
    all_valid(fake)


def test_a_max_steps_final_without_answer_label_takes_the_text_but_not_an_action():
    fake, loop = line(A_ACTION, "结果是 300", max_steps=1)
    assert loop.run("q").answer == "结果是 300"
    fake, loop = line(A_ACTION, A_ACTION, max_steps=1)
    result = loop.run("q")
    assert result.answer is None and result.stopped_reason == "max_steps" and isinstance(result.steps[-1], FinalStep)
    assert result.steps[-1].text is None and ("Error", t("loops.final_without_answer")) in result.steps[-1].details()


def test_a_never_answering_model_stops():
    fake = FakeLLM(default=A_ACTION)
    result = run_line_react(fake.client(), "fake-model", "q", max_steps=3, trace=None)
    assert len(fake.requests) == 4 and result.stopped_reason == "max_steps"


def test_a_without_stop_sends_no_stop():
    fake, loop = line(A_ANSWER, stop=None)
    loop.run("q")
    assert "stop" not in fake.requests[0]


def test_a_step_by_step_interface():
    fake, loop = line(A_ACTION, A_ANSWER)
    with pytest.raises(RuntimeError):
        loop.step()
    loop.start("20 * 15?")
    preview = loop.next_request()
    assert preview["messages"][-1]["content"] == "Question: 20 * 15?" and not fake.requests
    record = loop.step()
    assert isinstance(record, Step) and record.number == 1 and not loop.done
    assert fake.requests[0]["messages"] == preview["messages"]
    assert loop.next_request()["messages"][-1]["content"] == "Observation: 300"
    loop.step()
    assert loop.done and loop.result().answer == "20 * 15 = 300"
    with pytest.raises(RuntimeError):
        loop.step()
    loop.start("again")  # start() resets
    assert loop.steps == [] and not loop.done and [m["role"] for m in loop.messages] == ["system"]


def test_a_api_error_records_nothing_and_can_be_retried():
    fake, loop = line(httpx2.Response(500, json={"error": {"message": "busy"}}), A_ANSWER)
    loop.start("q")
    with pytest.raises(openai.InternalServerError):
        loop.step()
    assert loop.steps == [] and loop.messages == [{"role": "system", "content": loop.system}]
    loop.step()
    assert loop.done and fake.requests[1]["messages"][-1]["content"] == "Question: q"


def test_trace_callback_and_frame():
    lines = []
    fake, loop = line(A_ACTION, A_ANSWER, trace=lines.append)
    result = loop.run("q")
    assert lines[0].startswith("[步 1/5] Action calculate: 20 * 15") and "300" in lines[0]
    assert lines[1].startswith("[步 2/5] Answer:")
    frame = steps_frame(result.steps)
    assert list(frame["step"]) == [1, 2] and list(frame["kind"]) == ["action", "answer"]
    first = frame.iloc[0]
    assert first["observation"] == "300" and first["tool"] == "calculate" and first["input"] == "20 * 15"
    assert first["thought"] == "我需要计算" and frame.iloc[1]["answer"] == "20 * 15 = 300"
    assert "prompt_tokens" in frame.columns and "repeated" not in frame.columns  # empty in every ReAct row
    assert isinstance(result, RunResult) and result.tool_calls == 1
    assert "协议 A" in str(result.table())
    assert result.summary()["requests"] == 2


# --------------------------------------------------------------------------- protocol B


def test_b_scratchpad_travels_in_one_user_message():
    fake, loop = json_loop(b_action(), B_ANSWER)
    result = loop.run("20 * 15 等于多少")
    assert result.answer == "300" and result.stopped_reason == "answer" and result.protocol == "B"
    first, second = fake.requests
    assert first["stop"] == JSON_STOP == ["Observation:"]
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert [m["role"] for m in second["messages"]] == ["system", "user"]
    assert '"name": "calculate"' in first["messages"][0]["content"]  # tools listed as JSON
    assert first["messages"][1]["content"] == "Question: 20 * 15 等于多少\n"
    pad = second["messages"][1]["content"]
    assert pad.startswith("Question: 20 * 15 等于多少\nThought: 我需要计算\nAction:\n```json")
    assert pad.endswith("Observation: 300\nThought: ")  # the model continues the scratchpad
    assert result.messages[-1] == {"role": "assistant", "content": B_ANSWER}
    all_valid(fake)


def test_b_dict_input_and_prose_around_an_unfenced_blob():
    reply = '我先查天气。 {"action": "get_weather", "action_input": {"city": "北京"}} 然后回答。'
    fake, loop = json_loop(reply, "Final Answer: 北京晴")
    result = loop.run("北京天气")
    assert result.steps[0].action_input == {"city": "北京"} and result.steps[0].observation.startswith("北京：晴")


def test_b_single_quoted_blob_and_fence_inside_a_string():
    reply = "Action:\n```json\n{'action': 'search_knowledge', 'action_input': '```最长的河流```'}\n```"
    fake, loop = json_loop(reply, B_ANSWER)
    result = loop.run("最长的河流")
    assert result.steps[0].kind == "action" and result.steps[0].action == "search_knowledge"
    assert result.steps[0].action_input == "```最长的河流```"


def test_b_final_answer_as_an_action_blob():
    fake, loop = json_loop('Action:\n```json\n{"action": "Final Answer", "action_input": "300"}\n```')
    assert loop.run("q").answer == "300"


def test_b_invalid_blob_gets_corrective_observation_in_the_scratchpad():
    fake, loop = json_loop('Action:\n```json\n{"action": "calculate", "action_input": "20*15"\n```', b_action(), B_ANSWER)
    result = loop.run("20*15")
    assert [s.kind for s in result.steps] == ["invalid", "action", "answer"]
    pad = fake.requests[1]["messages"][1]["content"]
    assert "Observation: 格式错误" in pad and '"action"' in pad
    all_valid(fake)


def test_b_unknown_tool_and_raising_tool():
    def broken(city: str, unit: str = "celsius") -> str:
        raise ValueError("no network")

    reg = ToolRegistry([Tool("get_weather", broken, WEATHER_TOOL), Tool("calculate", calculate, CALCULATOR_TOOL)])
    fake, loop = json_loop(b_action("wikipedia", '"x"'), b_action("get_weather", '{"city": "北京"}'), B_ANSWER, registry=reg)
    result = loop.run("q")
    assert result.steps[0].kind == "invalid" and "wikipedia" in result.steps[0].error
    assert result.steps[1].observation.startswith("错误：") and "no network" in result.steps[1].observation
    assert result.steps[1].kind == "action" and result.steps[1].ok is False
    assert result.answer == "300"


def test_b_arguments_that_do_not_fit_the_tool_are_not_run():
    fake, loop = json_loop(b_action("get_weather", '{"town": "北京"}'), B_ANSWER)
    result = loop.run("q")
    step = result.steps[0]
    assert isinstance(step, ActionStep) and step.action_input == {"town": "北京"}
    assert step.ok is False and step.observation.startswith("错误：") and "city" in step.observation
    assert "Observation: " + step.observation in fake.requests[1]["messages"][1]["content"]


def test_b_max_steps_final_request_says_final_answer():
    fake = FakeLLM(default=b_action())
    result = run_json_react(fake.client(), "fake-model", "q", max_steps=2, trace=None)
    assert len(fake.requests) == 3 and result.stopped_reason == "max_steps" and result.answer is None
    last_lines = fake.requests[2]["messages"][1]["content"].splitlines()
    assert "Final Answer:" in last_lines[-2] and last_lines[-1] == "Thought: "
    # the label is not doubled: the reply's own "Thought:" was dropped after the prompt's "Thought: "
    assert "Thought: Thought:" not in fake.requests[2]["messages"][1]["content"]
    all_valid(fake)


def test_b_step_interface_messages():
    fake, loop = json_loop(b_action(), B_ANSWER)
    loop.start("q")
    assert [m["role"] for m in loop.messages] == ["system", "user"]
    loop.step()
    assert loop.scratchpad.endswith("Observation: 300\n") and "Observation: 300" in loop.prompt()
    loop.step()
    assert [m["role"] for m in loop.messages] == ["system", "user", "assistant"]


def test_max_steps_must_be_positive():
    with pytest.raises(ValueError):
        LineReAct(FakeLLM().client(), "m", max_steps=0)
    with pytest.raises(ValueError):
        JsonReAct(FakeLLM().client(), "m").start("  ")


@pytest.mark.parametrize("loop_type, action, answer", [(LineReAct, A_ACTION, A_ANSWER), (JsonReAct, b_action(), B_ANSWER)])
def test_a_reply_without_choices_leaves_the_react_run_as_it_was(loop_type, action, answer):
    fake = FakeLLM([action, no_choices(), answer])
    loop = loop_type(fake.client(), "fake-model", trace=None)
    loop.start("20 乘以 15 是多少？")
    loop.step()
    before = (loop.messages, list(loop.steps))
    with pytest.raises(ReplyError):
        loop.step()
    assert (loop.messages, list(loop.steps)) == before and not loop.done
    loop.step()
    assert loop.stopped_reason == "answer" and "300" in loop.answer
    assert fake.requests[2]["messages"] == fake.requests[1]["messages"]


def test_chatbot_stores_nothing_when_the_reply_has_no_choices():
    fake = FakeLLM([no_choices(), "你好"])
    bot = ChatBot(fake.client(), "fake-model", system="sys")
    with pytest.raises(ReplyError):
        bot("在吗")
    assert bot.messages == [{"role": "system", "content": "sys"}]
    assert bot("在吗") == "你好" and len(bot.messages) == 3


def _parts(text):
    return raw_completion({"role": "assistant", "content": [{"type": "thinking", "thinking": "想一想 Action: x"},
                                                            {"type": "text", "text": text}]})


@pytest.mark.parametrize("loop_type, action, answer", [(LineReAct, A_ACTION, A_ANSWER), (JsonReAct, b_action(), B_ANSWER)])
def test_react_reads_content_sent_as_a_list_of_parts(loop_type, action, answer):
    fake = FakeLLM([_parts(action), _parts(answer)])
    result = loop_type(fake.client(), "fake-model", trace=None).run("20 乘以 15 是多少？")
    assert result.stopped_reason == "answer" and "300" in result.answer
    assert [s.kind for s in result.steps] == ["action", "answer"]
    assert result.steps[0].observation == "300"
    assert all(isinstance(m["content"], str) and "想一想" not in m["content"] for m in result.messages)


@pytest.mark.parametrize("loop_type, answer", [(LineReAct, "Thought: 我知道了\nAnswer: …店里有三种篮球：1. 斯伯丁 199 元；2. 李宁"),
                                               (JsonReAct, "Thought: 我知道了\nFinal Answer: …店里有三种篮球：1. 斯伯丁 199 元；2. 李宁")])
def test_a_react_answer_cut_at_max_tokens_is_not_a_success(loop_type, answer):
    lines: list[str] = []
    fake = FakeLLM([{"content": answer, "finish_reason": "length"}])
    result = loop_type(fake.client(), "fake-model", trace=lines.append).run("店里有哪些篮球？")
    assert result.stopped_reason == "length" and result.answer == "…店里有三种篮球：1. 斯伯丁 199 元；2. 李宁"
    assert "max_tokens" in lines[-1]
    assert steps_frame(result.steps)["finish_reason"].tolist() == ["length"]


@pytest.mark.parametrize("loop_type, answer", [(LineReAct, "Answer: 你好！有什么可以帮你的？"),
                                               (JsonReAct, "Final Answer: 你好！有什么可以帮你的？")])
def test_react_ignores_labels_inside_the_thinking(loop_type, answer):
    thinking = "<think>Action: calculate: 1 + 1\nPAUSE 不用算。</think>\n\n"
    fake = FakeLLM([thinking + answer])
    result = loop_type(fake.client(), "fake-model", trace=None).run("你好")
    assert result.stopped_reason == "answer" and result.answer == "你好！有什么可以帮你的？" and result.tool_calls == 0
    assert result.steps[0].reasoning.startswith("Action: calculate")
    assert all("<think>" not in (m["content"] or "") for m in result.messages)
    assert "Action: calculate" in steps_frame(result.steps)["reasoning"].iloc[0]


@pytest.mark.parametrize("loop_type, answer", [(LineReAct, A_ANSWER), (JsonReAct, B_ANSWER)])
def test_react_runs_the_classic_two_line_action_with_its_input(loop_type, answer):
    fake = FakeLLM(["Thought: 我需要计算\nAction: calculate\nAction Input: 20 * 15\nObserv", answer])
    result = loop_type(fake.client(), "fake-model", trace=None).run("20 乘以 15 是多少？")
    assert result.steps[0].kind == "action" and result.steps[0].action_input == "20 * 15"
    assert result.steps[0].observation == "300" and result.stopped_reason == "answer"


def test_line_react_answers_two_labels_on_one_line_with_a_corrective_observation():
    fake = FakeLLM(["Action: calculate Final Answer:", A_ANSWER])
    result = LineReAct(fake.client(), "fake-model", trace=None).run("20 乘以 15 是多少？")
    assert result.steps[0].kind == "invalid" and "两个标签" in result.steps[0].observation
    assert "两个标签" in fake.requests[1]["messages"][-1]["content"] and result.stopped_reason == "answer"


@pytest.mark.parametrize("second", [
    'Thought: 再查广州\nAction:\n```json\n{"action": "get_weather", "action_input": {"city": "广州"}}\n```\n',
    '再查广州\nAction:\n```json\n{"action": "get_weather", "action_input": {"city": "广州"}}\n```\n',
])
def test_b_every_step_in_the_scratchpad_keeps_its_thought_label(second):
    """Step 2's reply continues the prompt's "Thought: ": the scratchpad keeps the label once, whether
    the model repeated it or not (like the hand-written scratchpad of notebook 05)."""
    first = b_action("get_weather", '{"city": "北京"}')
    fake, loop = json_loop(first, second, "Final Answer: 北京晴，广州雷阵雨")
    result = loop.run("北京和广州天气怎么样")
    assert result.answer == "北京晴，广州雷阵雨"
    pad = fake.requests[2]["messages"][1]["content"]
    thoughts = [line for line in pad.splitlines() if line.startswith("Thought:")]
    assert thoughts == ["Thought: 我需要计算", "Thought: 再查广州", "Thought: "]
    assert "Thought: Thought:" not in pad
    # every Observation is followed by a line that starts with the label
    lines = pad.splitlines()
    for i, text in enumerate(lines[:-1]):
        if text.startswith("Observation:"):
            assert lines[i + 1].startswith("Thought:"), lines[i + 1]


@pytest.mark.parametrize("loop_type, answer", [(LineReAct, A_ANSWER), (JsonReAct, B_ANSWER)])
def test_react_runs_the_classic_action_and_input_written_on_one_line(loop_type, answer):
    fake = FakeLLM(["Thought: 我需要查天气\nAction: get_weather Action Input: 北京\nObserv", answer])
    result = loop_type(fake.client(), "fake-model", trace=None).run("北京天气怎么样？")
    first = result.steps[0]
    assert first.kind == "action" and first.action == "get_weather" and first.action_input == "北京"
    assert "北京" in first.observation and "错误" not in first.observation
    assert result.stopped_reason == "answer"
    all_valid(fake)


def test_trace_lines_of_an_invalid_and_a_final_step():
    lines: list[str] = []
    fake, loop = line("20 乘以 15 等于 300。", A_ACTION, "Answer: 300", max_steps=2, trace=lines.append)
    loop.run("20 * 15?")
    assert lines[0].startswith("[步 1/2] 无法解析（") and lines[0].endswith("）→ 发回格式提醒")
    assert lines[1].startswith("[步 2/2] Action calculate: 20 * 15 → Observation: 300")
    assert lines[2] == "[达到 max_steps=2] 最后一次请求的回答：300"


# --------------------------------------------------------------------------- issue 22: quotes and wide spaces


SHOE = "query_by_product_name"


@pytest.mark.parametrize("loop_type, action, answer", [
    (LineReAct, f"Thought: 查一下\nAction: {SHOE}: “跑步鞋”\nPAUSE", A_ANSWER),
    (LineReAct, f"Thought: 查一下\nAction: {SHOE}: 『跑步鞋』\nPAUSE", A_ANSWER),
    (LineReAct, f"Thought: 查一下\nAction: {SHOE}: 「跑步鞋」\nPAUSE", A_ANSWER),
    (LineReAct, f"Thought: 查一下\nAction: {SHOE}: ‘跑步鞋’\nPAUSE", A_ANSWER),
    (LineReAct, f'Thought: 查一下\nAction: {SHOE}: "跑步鞋"\nPAUSE', A_ANSWER),
    (LineReAct, f"Thought: 查一下\nAction: {SHOE}\u3000跑步鞋\nPAUSE", A_ANSWER),
    (LineReAct, f"Thought: 查一下\nAction: {SHOE}\nAction Input:\u3000「跑步鞋」\nObserv", A_ANSWER),
    (JsonReAct, f"Thought: 查一下\nAction:\n```json\n{{\"action\": \"{SHOE}\", \"action_input\": \"“跑步鞋”\"}}\n```", B_ANSWER),
    (JsonReAct, f"Thought: 查一下\nAction:\n```json\n{{\"action\": \"{SHOE}\", \"action_input\": {{\"product_name\": \"「跑步鞋」\"}}}}\n```", B_ANSWER),
    (JsonReAct, f"Thought: 查一下\nAction:\n{{\"action\":\u3000\"{SHOE}\",\u3000\"action_input\":\u3000\"跑步鞋\"}}", B_ANSWER),
    (JsonReAct, f"Thought: 查一下\nAction: “{SHOE}”\nAction Input: 『跑步鞋』\nObserv", B_ANSWER),
])
def test_react_strips_chinese_quotes_and_reads_wide_spaces_around_the_input(loop_type, action, answer):
    """「跑步鞋」 with its quotes is a product the shop does not sell ("[]"): the quotes must not reach the tool."""
    fake = FakeLLM([action, answer])
    result = loop_type(fake.client(), "fake-model", trace=None).run("跑步鞋还有货吗？")
    first = result.steps[0]
    assert first.kind == "action" and first.action == SHOE, first
    assert first.ok and '"product_name": "跑步鞋"' in first.observation and first.observation != "[]"
    all_valid(fake)


def test_react_keeps_quotes_inside_the_input():
    """Only a pair around the WHOLE input is stripped: “长江”和“黄河” keeps its quotes."""
    fake = FakeLLM(["Action: search_knowledge: “长江”和“黄河”\nPAUSE", A_ANSWER])
    result = LineReAct(fake.client(), "fake-model", trace=None).run("长江和黄河哪个长？")
    assert result.steps[0].action_input == "“长江”和“黄河”"


# --------------------------------------------------------------------------- issue 22: Chinese labels


@pytest.mark.parametrize("loop_type, action, answer", [
    (LineReAct, "思考：我需要计算\n行动：calculate: 20 * 15\nPAUSE", "思考：我知道答案了\n答案：20 * 15 = 300"),
    (JsonReAct, '思考：我需要计算\n行动：\n```json\n{"action": "calculate", "action_input": "20 * 15"}\n```', "最终答案: 300"),
])
def test_react_reads_labels_written_in_chinese(loop_type, action, answer):
    """A small model under a Chinese prompt writes 思考/行动/最终答案: read, not burnt as invalid steps."""
    fake = FakeLLM([action, answer])
    result = loop_type(fake.client(), "fake-model", trace=None).run("20 * 15 等于多少")
    first, last = result.steps
    assert first.kind == "action" and first.observation == "300" and first.thought == "我需要计算"
    assert result.stopped_reason == "answer" and result.answer in ("20 * 15 = 300", "300") and result.requests == 2
    written = action.split("\nPAUSE")[0]
    assert any(written in (m["content"] or "") for m in result.messages)  # the history keeps what the model wrote
    all_valid(fake)
