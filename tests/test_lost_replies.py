"""Replies and tool calls that used to be lost, and runs that died or got stuck (issue 22, parts 2 and 4).

Every case goes through the real ``openai`` client and the fake server: a reply split over
several choices, a refusal, the legacy ``function_call``, arguments encoded twice, namespaced
tool names, a stream with no ``finish_reason``; a tool interrupted by the student, a huge
tool result, a tool that returns nothing.
"""

from __future__ import annotations

import json

import httpx2
import pytest

from fakes import FakeLLM, StrictLLM, raw_completion, sse_response

from course_lib.agent import Agent
from course_lib.messages import MAX_TOOL_RESULT_CHARS, validate
from course_lib.react import JsonReAct, LineReAct
from course_lib.records import ToolCallsStep
from course_lib.replies import INCOMPLETE, collect_stream, read_reply
from course_lib.texts import t
from course_lib.tools import CALCULATOR_TOOL, WEATHER_TOOL, calculate, get_weather
from course_lib.tools.registry import Tool, ToolRegistry
from course_lib.widgets import ChatSession

USER = [{"role": "user", "content": "北京天气怎么样？"}]
HEAD = {"id": "chatcmpl-x", "object": "chat.completion", "created": 0, "model": "fake-model"}


def completion(*choices: dict) -> httpx2.Response:
    """A 200 answer with these choices (each ``{"message": ..., "finish_reason": ...}``), numbered in order."""
    numbered = [{"index": k, **c} for k, c in enumerate(choices)]
    return httpx2.Response(200, json={**HEAD, "choices": numbered,
                                     "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}})


def wire_call(name: str, arguments: str, call_id: str = "call_1") -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def stream_chunks(*chunks: dict) -> httpx2.Response:
    """An event stream of whole chunks (``{"choices": [...]}``), as given: no finish chunk is added."""
    body = "".join(f"data: {json.dumps({**HEAD, 'object': 'chat.completion.chunk', **c}, ensure_ascii=False)}\n\n"
                   for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


def counting_registry(seen: list) -> ToolRegistry:
    def weather(city: str, unit: str = "celsius") -> str:
        seen.append(city)
        return get_weather(city, unit)
    return ToolRegistry([Tool("get_weather", weather, WEATHER_TOOL), Tool("calculate", calculate, CALCULATOR_TOOL)])


def run_native(*replies, registry=None, **options):
    fake = FakeLLM(list(replies))
    options.setdefault("trace", None)
    loop = Agent(fake.client(), "fake-model", registry, **options)
    return fake, loop, loop.run("北京天气怎么样？")


def ask(fake: FakeLLM, **kwargs):
    return fake.client().chat.completions.create(model="fake-model", messages=USER, **kwargs)


# --------------------------------------------------------------------------- a reply split over several choices


def test_calls_in_a_second_choice_are_run_not_lost():
    seen: list = []
    split = completion({"message": {"role": "assistant", "content": "我先查一下。"}, "finish_reason": "stop"},
                       {"message": {"role": "assistant", "content": None,
                                    "tool_calls": [wire_call("get_weather", '{"city": "北京"}')]},
                        "finish_reason": "tool_calls"})
    fake, loop, result = run_native(split, "北京晴。", registry=counting_registry(seen))
    assert seen == ["北京"]  # the call was run, not dropped
    assert result.answer == "北京晴。" and result.stopped_reason == "answer"  # the preamble is not the answer
    assert isinstance(result.steps[0], ToolCallsStep)
    validate(fake.requests[-1]["messages"], strict=True)


def test_calls_spread_over_three_choices_are_all_read():
    reply = read_reply(ask(FakeLLM([completion(
        {"message": {"role": "assistant", "content": "好的"}, "finish_reason": "stop"},
        {"message": {"role": "assistant", "tool_calls": [wire_call("get_weather", '{"city": "北京"}', "a")]}},
        {"message": {"role": "assistant", "tool_calls": [wire_call("get_weather", '{"city": "上海"}', "b")]}},
    )])))
    assert [c["id"] for c in reply.message["tool_calls"]] == ["a", "b"]
    assert reply.text == "好的" and reply.finish_reason == "tool_calls"


def test_streamed_calls_in_choice_index_1_are_collected():
    stream = stream_chunks(
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "我先查一下。"}, "finish_reason": None}]},
        {"choices": [{"index": 1, "delta": {"tool_calls": [{"index": 0, "id": "call_9", "type": "function",
                                                             "function": {"name": "get_weather", "arguments": ""}}]},
                      "finish_reason": None}]},
        {"choices": [{"index": 1, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "北京"}'}}]},
                      "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"choices": [{"index": 1, "delta": {}, "finish_reason": "tool_calls"}]},
    )
    reply = collect_stream(ask(FakeLLM([stream]), stream=True))
    assert reply.text == "我先查一下。"
    assert reply.message["tool_calls"] == [wire_call("get_weather", '{"city": "北京"}', "call_9")]
    assert reply.finish_reason == "tool_calls"


def test_chat_box_with_tools_runs_a_call_streamed_in_another_choice():
    seen: list = []
    stream = stream_chunks(
        {"choices": [{"index": 0, "delta": {"content": "稍等"}, "finish_reason": "stop"}]},
        {"choices": [{"index": 1, "delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                                             "function": {"name": "get_weather",
                                                                          "arguments": '{"city": "北京"}'}}]},
                      "finish_reason": "tool_calls"}]},
    )
    fake = FakeLLM([stream, sse_response([{"content": "北京晴。"}])])
    session = ChatSession(fake.client(), "fake-model", tools=[WEATHER_TOOL], registry=counting_registry(seen))
    assert session.send("北京天气？", on_token=lambda piece: None) == "北京晴。"
    assert seen == ["北京"] and session.error is None


# --------------------------------------------------------------------------- a refusal


REFUSAL = "I'm sorry, I can't help with that."


def refused() -> httpx2.Response:
    return raw_completion({"role": "assistant", "content": None, "refusal": REFUSAL})


def test_native_loop_shows_a_refusal_and_stops_with_its_own_reason():
    lines: list[str] = []
    fake, loop, result = run_native(refused(), trace=lines.append)
    assert result.stopped_reason == "refusal" and result.answer == REFUSAL
    assert len(fake.requests) == 1  # the model was not told its reply was empty
    assert any(REFUSAL in line for line in lines)
    assert REFUSAL in result.steps[-1].cut
    assert loop.messages[-1] == {"role": "assistant", "content": REFUSAL}
    validate(loop.messages, strict=True)


def test_react_loop_and_chat_box_show_a_refusal():
    fake = FakeLLM([refused()])
    result = LineReAct(fake.client(), "fake-model", trace=None).run("怎么开锁？")
    assert result.stopped_reason == "refusal" and result.answer == REFUSAL and len(fake.requests) == 1
    session = ChatSession(FakeLLM([refused()]).client(), "fake-model")
    assert session.send("怎么开锁？") == REFUSAL
    assert REFUSAL in session.notice and session.history[-1]["content"] == REFUSAL


def test_streamed_refusal_is_read():
    stream = sse_response([{"role": "assistant", "refusal": "I'm sorry, "}, {"refusal": "I can't."}])
    reply = collect_stream(ask(FakeLLM([stream]), stream=True))
    assert reply.refusal == "I'm sorry, I can't." and reply.text == "" and "I can't." in reply.cut


# --------------------------------------------------------------------------- the legacy function_call


def test_legacy_function_call_runs_as_one_tool_call():
    seen: list = []
    legacy = raw_completion({"role": "assistant", "content": None,
                             "function_call": {"name": "get_weather", "arguments": '{"city": "北京"}'}},
                            finish_reason="function_call")
    fake, loop, result = run_native(legacy, "北京晴。", registry=counting_registry(seen))
    assert seen == ["北京"] and result.answer == "北京晴。"
    sent = fake.requests[1]["messages"]
    assert sent[-2]["tool_calls"][0]["function"]["name"] == "get_weather" and sent[-2]["tool_calls"][0]["id"]
    assert sent[-1]["role"] == "tool" and sent[-1]["tool_call_id"] == sent[-2]["tool_calls"][0]["id"]
    validate(sent, strict=True)


def test_streamed_legacy_function_call_is_collected():
    stream = sse_response([{"role": "assistant", "function_call": {"name": "calculate", "arguments": ""}},
                           {"function_call": {"arguments": '{"expression": '}},
                           {"function_call": {"arguments": '"2 + 3"}'}}], finish_reason="function_call")
    reply = collect_stream(ask(FakeLLM([stream]), stream=True))
    assert reply.finish_reason == "tool_calls"
    assert reply.message["tool_calls"][0]["function"] == {"name": "calculate", "arguments": '{"expression": "2 + 3"}'}
    assert "function_call" not in reply.message


# --------------------------------------------------------------------------- arguments encoded twice, namespaced names


def test_double_encoded_arguments_are_decoded_once_more():
    seen: list = []
    twice = json.dumps(json.dumps({"city": "杭州"}, ensure_ascii=False), ensure_ascii=False)
    fake, loop, result = run_native({"tool_calls": [wire_call("get_weather", twice)]}, "杭州晴。",
                                    registry=counting_registry(seen))
    assert seen == ["杭州"]
    assert result.steps[0].tool_calls[0].ok and result.steps[0].tool_calls[0].arguments == {"city": "杭州"}


def test_double_encoded_calculation_runs():
    twice = json.dumps(json.dumps({"expression": "(25 + 3) * 3"}))
    fake, loop, result = run_native({"tool_calls": [wire_call("calculate", twice)]}, "84。", check_numbers=False)
    assert result.steps[0].tool_calls[0].observation == "84"
    # a JSON string that is not an object's JSON is still refused, with the reason
    fake, loop, result = run_native({"tool_calls": [wire_call("calculate", json.dumps("2+3"))]}, "好。",
                                    check_numbers=False)
    assert not result.steps[0].tool_calls[0].ok


@pytest.mark.parametrize("written, runs", [("functions.get_weather", True), ("default_api.get_weather", True),
                                           ("tools.Get_Weather", True), ("functions.send_email", False)])
def test_namespaced_tool_names(written, runs):
    seen: list = []
    fake, loop, result = run_native({"tool_calls": [wire_call(written, '{"city": "北京"}')]}, "北京晴。",
                                    registry=counting_registry(seen))
    call = result.steps[0].tool_calls[0]
    assert (seen == ["北京"]) is runs and call.ok is runs
    if runs:
        assert fake.requests[1]["messages"][-2]["tool_calls"][0]["function"]["name"] == "get_weather"
    else:  # an unknown name after the prefix is still an unknown tool
        assert "不存在" in call.observation and "get_weather" in call.observation


def test_react_actions_with_a_namespace_run_the_tool():
    fake = FakeLLM(["Thought: 查天气\nAction: functions.get_weather: 北京\nPAUSE", "Answer: 北京晴。"])
    result = LineReAct(fake.client(), "fake-model", trace=None).run("北京天气？")
    assert result.steps[0].ok and "北京" in result.steps[0].observation
    fake = FakeLLM(['Action: {"action": "default_api.get_weather", "action_input": "北京"}', "Final Answer: 北京晴。"])
    result = JsonReAct(fake.client(), "fake-model", trace=None).run("北京天气？")
    assert result.steps[0].ok and "北京" in result.steps[0].observation
    fake = FakeLLM(["Action: functions.send_email: 老师", "Answer: 好。"])
    result = LineReAct(fake.client(), "fake-model", trace=None).run("发邮件")
    assert "不存在" in result.steps[0].observation  # still an unknown tool


# --------------------------------------------------------------------------- a stream with no finish_reason


def test_stream_cut_without_finish_reason_is_incomplete_not_an_answer():
    stream = sse_response([{"role": "assistant", "content": "北京今天"}, {"content": "晴，气温"}], finish_reason=None)
    reply = collect_stream(ask(FakeLLM([stream]), stream=True))
    assert reply.finish_reason == INCOMPLETE and reply.cut == t("replies.cut_incomplete")
    session = ChatSession(FakeLLM([sse_response([{"content": "北京今天晴，气温"}], finish_reason=None)]).client(),
                          "fake-model")
    assert session.send("北京天气？", on_token=lambda piece: None) == "北京今天晴，气温"
    assert session.notice == t("replies.cut_incomplete")


def test_streamed_tool_call_without_finish_reason_is_incomplete():
    stream = sse_response([{"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                            "function": {"name": "get_weather", "arguments": '{"city": "北'}}]}],
                          finish_reason=None)
    reply = collect_stream(ask(FakeLLM([stream]), stream=True))
    assert reply.finish_reason == INCOMPLETE and reply.cut


# --------------------------------------------------------------------------- a tool the student interrupts


def interrupting_registry(ran: list) -> ToolRegistry:
    def slow(city: str, unit: str = "celsius") -> str:
        ran.append(city)
        if city == "北京":
            raise KeyboardInterrupt  # the notebook's stop button while the tool runs
        return get_weather(city, unit)
    return ToolRegistry([Tool("get_weather", slow, WEATHER_TOOL)])


def test_interrupted_tool_leaves_a_valid_list_and_the_next_step_works():
    ran: list = []
    fake = FakeLLM([{"tool_calls": [("get_weather", {"city": "北京"}), ("get_weather", {"city": "上海"})]}, "好的。"])
    loop = Agent(fake.client(), "fake-model", interrupting_registry(ran), trace=None)
    loop.start("北京和上海天气？")
    with pytest.raises(KeyboardInterrupt):
        loop.step()
    assert ran == ["北京"]  # the call after the interrupted one did not run
    validate(loop.messages, strict=True)  # every call has its tool message
    answers = [m for m in loop.messages if m["role"] == "tool"]
    assert len(answers) == 2 and all("中断" in m["content"] for m in answers)
    step = loop.steps[-1]
    assert all(r.interrupted and not r.ok for r in step.tool_calls)
    assert loop.step().answer == "好的。"  # the next step works
    validate(fake.requests[-1]["messages"], strict=True)


def test_interrupted_react_tool_is_answered_and_the_next_step_works():
    ran: list = []
    fake = FakeLLM(["Action: get_weather: 北京\nPAUSE", "Answer: 好的。"])
    loop = LineReAct(fake.client(), "fake-model", interrupting_registry(ran), trace=None)
    loop.start("北京天气？")
    with pytest.raises(KeyboardInterrupt):
        loop.step()
    step = loop.steps[-1]
    assert not step.ok and "中断" in step.observation  # the Observation says so, like any failed tool
    assert loop.step().answer == "好的。"
    sent = fake.requests[-1]["messages"]
    assert sent[-1]["content"].startswith("Observation:") and "中断" in sent[-1]["content"]
    validate(sent, strict=True)


# --------------------------------------------------------------------------- a huge result, no result


def huge_registry(size: int = 300_000) -> ToolRegistry:
    schema = {"type": "function", "function": {"name": "dump", "description": "everything",
                                                "parameters": {"type": "object", "properties": {}}}}
    return ToolRegistry([Tool("dump", lambda: "货" * size, schema)])


def test_huge_tool_result_is_cut_before_sending_in_both_loops():
    fake, loop, result = run_native({"tool_calls": [("dump", {})]}, "好的。", registry=huge_registry())
    sent = fake.requests[1]["messages"][-1]["content"]
    assert len(sent) <= MAX_TOOL_RESULT_CHARS and sent.startswith("货" * 100)
    kept = sent.index("…")
    assert sent.endswith(t("tools.result_cut", kept=kept, cut=300_000 - kept))  # says how much was cut
    fake = FakeLLM(["Action: dump: \nPAUSE", "Answer: 好的。"])
    LineReAct(fake.client(), "fake-model", huge_registry(), trace=None).run("全部列出来")
    observation = fake.requests[1]["messages"][-1]["content"]
    assert len(observation) <= MAX_TOOL_RESULT_CHARS + len("Observation: ") and "截掉" in observation


def test_huge_structured_result_is_cut_too():
    schema = {"type": "function", "function": {"name": "rows", "parameters": {"type": "object", "properties": {}}}}
    registry = ToolRegistry([Tool("rows", lambda: [{"id": k, "名称": "足球"} for k in range(20_000)], schema)])
    fake, loop, result = run_native({"tool_calls": [("rows", {})]}, "好的。", registry=registry)
    assert len(fake.requests[1]["messages"][-1]["content"]) <= MAX_TOOL_RESULT_CHARS


def no_empty_tool_message(body: dict) -> str | None:
    """A strict server: an empty tool message is refused (as some providers do)."""
    empty = [m for m in body.get("messages", []) if m.get("role") == "tool" and not (m.get("content") or "").strip()]
    return "Invalid 'messages': tool message content must be non-empty" if empty else None


@pytest.mark.parametrize("returned", [None, "", "   "])
def test_tool_that_returns_nothing_gets_a_clear_text_result(returned):
    schema = {"type": "function", "function": {"name": "nothing", "parameters": {"type": "object", "properties": {}}}}
    registry = ToolRegistry([Tool("nothing", lambda: returned, schema)])
    fake = StrictLLM(no_empty_tool_message, [{"tool_calls": [("nothing", {})]}, "好的。"])
    result = Agent(fake.client(), "fake-model", registry, trace=None).run("试试")
    assert fake.rejected == [] and result.answer == "好的。"
    assert fake.requests[1]["messages"][-1]["content"] == t("tools.no_result")
