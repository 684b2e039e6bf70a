"""course_lib.multi_agent (notebook 11): an agent as a tool, and a handoff, on scripted models.

Each agent talks to its own scripted server (``FakeLLM``), so what each one was sent can be read
apart: the inner agent's requests never hold the outer agent's messages.
"""

from __future__ import annotations

import json

import httpx
import pytest

from fakes import FakeLLM, shop

from course_lib.agent import REJECTED_TEXT, Agent
from course_lib.approval import approve, reject
from course_lib.messages import ToolSchemaError, validate
from course_lib.multi_agent import (INNER_EMPTY_QUESTION, TRANSFERRED, HandoffResult, Specialist, agent_as_tool,
                                    chosen_specialist, cost_rows, run_with_handoff, specialist_messages, transfer_tool)
from course_lib.records import WaitingStep
from course_lib.tools import WEATHER_TOOL, get_weather
from course_lib.tools.failure import ToolFailure
from course_lib.tools.registry import Tool, ToolRegistry

OUTER_SYSTEM = "你是前台（外层系统提示）。"
QUESTION = "帮我问问天气专家：北京今天天气怎么样？"


def weather_registry() -> ToolRegistry:
    return ToolRegistry([Tool("get_weather", get_weather, WEATHER_TOOL)])


def all_valid(*fakes: FakeLLM) -> None:
    for fake in fakes:
        assert fake.invalid_request() is None


def outer_with_expert(inner: FakeLLM, outer: FakeLLM, **inner_options):
    expert = agent_as_tool(lambda: Agent(inner.client(), "inner-model", inner_options.pop("registry", weather_registry()),
                                         system="你是天气专家。", trace=None, max_steps=3, **inner_options),
                           "ask_weather_expert", "问天气专家：城市的天气、气温、湿度。")
    front = Agent(outer.client(), "outer-model", ToolRegistry([expert]), system=OUTER_SYSTEM, trace=None, max_steps=3)
    return expert, front


# ------------------------------------------------------------------------------- agent as a tool

def test_the_outer_agent_sees_only_the_inner_answer_and_the_inner_agent_never_sees_the_outer_messages():
    inner = FakeLLM([{"tool_calls": [("get_weather", {"city": "北京"})]}, "北京：晴，25°C。"])
    outer = FakeLLM([{"tool_calls": [("ask_weather_expert", {"question": "北京今天天气怎么样？"})]},
                     "专家说：北京晴，25°C。"])
    expert, front = outer_with_expert(inner, outer)
    result = front.run(QUESTION)
    assert result.answer == "专家说：北京晴，25°C。"
    tool_message = next(m for m in result.messages if m["role"] == "tool")
    assert tool_message["content"] == "北京：晴，25°C。"  # only the answer: no get_weather call, no tool result
    assert "get_weather" not in json.dumps(outer.requests, ensure_ascii=False)
    inner_text = json.dumps(inner.requests, ensure_ascii=False)
    assert OUTER_SYSTEM not in inner_text and QUESTION not in inner_text and "ask_weather_expert" not in inner_text
    assert inner.requests[0]["messages"] == [{"role": "system", "content": "你是天气专家。"},
                                             {"role": "user", "content": "北京今天天气怎么样？"}]
    all_valid(inner, outer)


def test_every_inner_run_is_kept_with_its_tokens_and_seconds():
    inner = FakeLLM(["北京晴。", "上海多云。"])
    outer = FakeLLM([{"tool_calls": [("ask_weather_expert", {"question": "北京？"}),
                                     ("ask_weather_expert", {"question": "上海？"})]}, "北京晴，上海多云。"])
    expert, front = outer_with_expert(inner, outer)
    result = front.run("北京和上海的天气？")
    runs = expert.function.runs
    assert [r.question for r in runs] == ["北京？", "上海？"] and [r.answer for r in runs] == ["北京晴。", "上海多云。"]
    assert all(r.prompt_tokens > 0 and r.completion_tokens > 0 and r.seconds >= 0 and r.requests == 1 for r in runs)
    rows = cost_rows(result, runs)
    assert [r["agent"] for r in rows] == ["front", "inner 1", "inner 2", "total"]
    assert rows[-1]["requests"] == result.requests + 2 == 4
    assert rows[-1]["prompt_tokens"] == result.prompt_tokens + sum(r.prompt_tokens for r in runs)
    assert result.prompt_tokens > 0 and rows[-1]["seconds"] == rows[0]["seconds"]


def test_each_call_builds_a_fresh_inner_agent():
    inner = FakeLLM(["一。", "二。"])
    made = []

    def make():
        made.append(Agent(inner.client(), "m", weather_registry(), system="专家", trace=None))
        return made[-1]

    expert = agent_as_tool(make, "expert", "专家")
    assert expert.function(question="第一个问题") == "一。" and expert.function(question="第二个问题") == "二。"
    assert len(made) == 2 and made[0] is not made[1]
    assert "第一个问题" not in json.dumps(inner.requests[1], ensure_ascii=False)  # no memory between calls


def test_a_failed_inner_run_is_a_tool_result_the_outer_model_reads():
    inner = FakeLLM([httpx.Response(500, json={"error": {"message": "boom"}})])
    outer = FakeLLM([{"tool_calls": [("ask_weather_expert", {"question": "北京？"})]}, "抱歉，专家没有回答。"])
    expert, front = outer_with_expert(inner, outer)
    result = front.run(QUESTION)
    assert result.answer == "抱歉，专家没有回答。"
    call = result.steps[0].tool_calls[0]
    assert call.ok is False and call.observation.startswith("错误：ask_weather_expert 没有给出回答（运行出错：")
    assert expert.function.errors and "500" in expert.function.errors[0]
    all_valid(outer)


def test_an_inner_run_that_waits_for_approval_says_so_and_runs_nothing():
    written, registry = shop()
    inner = FakeLLM([{"tool_calls": [("place_order", {"product_id": "001", "quantity": 2})]}])
    expert = agent_as_tool(lambda: Agent(inner.client(), "m", registry, system="订单专家", trace=None),
                           "ask_orders", "下单")
    answer = expert.function(question="买两个足球")
    assert isinstance(answer, ToolFailure) and "等人批准" in answer and written == []
    assert expert.function.runs[0].stopped_reason == "waiting"


def test_an_inner_run_that_hits_max_steps_without_an_answer_says_so():
    inner = FakeLLM([{"tool_calls": [("get_weather", {"city": "北京"})]}, {"content": ""}])
    expert = agent_as_tool(lambda: Agent(inner.client(), "m", weather_registry(), trace=None, max_steps=1),
                           "ask_weather", "天气")
    answer = expert.function(question="北京？")
    assert isinstance(answer, ToolFailure) and "步数上限" in answer


def test_empty_question_and_bad_names():
    expert = agent_as_tool(lambda: pytest.fail("no agent for an empty question"), "expert", "专家")
    assert expert.function(question="  ") == INNER_EMPTY_QUESTION and isinstance(expert.function(question=" "), ToolFailure)
    assert ToolRegistry([expert]).call("expert", {})[1] is False  # a missing question never reaches the agent
    with pytest.raises(ToolSchemaError):
        agent_as_tool(Agent, "天气专家", "中文名字 API 不收")
    with pytest.raises(ToolSchemaError):
        transfer_tool("订单", "中文名字 API 不收")


# ------------------------------------------------------------------------------- handoff

SPECIALIST_SYSTEMS = {"weather": "你是天气专家。", "shop": "你是商品专家。", "orders": "你是订单专家。"}


def specialists(fake: FakeLLM, orders_registry: ToolRegistry | None = None, **options) -> list[Specialist]:
    registries = {"weather": weather_registry(), "shop": weather_registry(), "orders": orders_registry or weather_registry()}
    return [Specialist(name, f"转接给{name}", lambda name=name: Agent(fake.client(), "s", registries[name],
                                                                   system=SPECIALIST_SYSTEMS[name], trace=None, **options))
            for name in SPECIALIST_SYSTEMS]


@pytest.mark.parametrize("name", list(SPECIALIST_SYSTEMS))
def test_handoff_to_each_specialist_gives_it_the_conversation_text_only(name):
    front = FakeLLM([{"content": "我帮你转接。", "tool_calls": [(f"transfer_to_{name}", {})]}])
    team = FakeLLM(["专家的回答。"])
    conversation = [{"role": "system", "content": "前台的旧系统提示"},
                    {"role": "user", "content": "你好"},
                    {"role": "assistant", "content": None, "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
                    {"role": "tool", "tool_call_id": "c1", "content": "工具结果"},
                    {"role": "assistant", "content": "你好！"},
                    {"role": "user", "content": "我的问题"}]
    before = json.dumps(conversation)
    lines = []
    handoff = run_with_handoff(front.client(), "front-model", "你是前台。", specialists(team), conversation,
                               trace=lines.append)
    assert json.dumps(conversation) == before  # the caller's list is not changed
    assert handoff.owner == name and handoff.answer == "专家的回答。" and handoff.result.stopped_reason == "answer"
    assert team.requests[0]["messages"] == [{"role": "system", "content": SPECIALIST_SYSTEMS[name]},
                                            {"role": "user", "content": "你好"},
                                            {"role": "assistant", "content": "你好！"},
                                            {"role": "user", "content": "我的问题"}]
    assert handoff.messages[-1] == {"role": "assistant", "content": "专家的回答。"}  # the specialist owns the list now
    sent = front.requests[0]
    assert sent["tool_choice"] == "auto" and [t["function"]["name"] for t in sent["tools"]] == [
        "transfer_to_weather", "transfer_to_shop", "transfer_to_orders"]
    assert sent["messages"][0] == {"role": "system", "content": "你是前台。"} and "前台的旧系统提示" not in json.dumps(sent, ensure_ascii=False)
    assert handoff.front_messages[-1]["content"] == TRANSFERRED.format(name=name)
    validate(handoff.front_messages)
    assert any(f"转接给 {name}" in line for line in lines)
    all_valid(front, team)


def test_no_transfer_the_front_desk_answers():
    front = FakeLLM(["你好！有什么可以帮你？"])
    team = FakeLLM([])
    handoff = run_with_handoff(front.client(), "m", "你是前台。", specialists(team), "你好", trace=None)
    assert handoff.owner == "front" and handoff.answer == "你好！有什么可以帮你？" and handoff.agent is None
    assert team.requests == [] and handoff.messages[-1]["content"] == "你好！有什么可以帮你？"
    with pytest.raises(RuntimeError, match="没有转接"):
        handoff.run()
    all_valid(front)


def test_an_unknown_transfer_starts_nobody_and_keeps_the_list_valid():
    front = FakeLLM([{"tool_calls": [("transfer_to_billing", {})]}])
    team = FakeLLM([])
    lines = []
    handoff = run_with_handoff(front.client(), "m", "你是前台。", specialists(team), "退款", trace=lines.append)
    assert handoff.owner == "front" and handoff.answer is None and handoff.ignored == ["transfer_to_billing"]
    assert team.requests == []
    validate(handoff.front_messages)
    assert "没有这位专家" in handoff.front_messages[-1]["content"] and "transfer_to_weather" in handoff.front_messages[-1]["content"]
    assert any("transfer_to_billing" in line for line in lines) and any("没有转接，也没有回答" in line for line in lines)


def test_two_transfers_the_first_known_one_wins():
    front = FakeLLM([{"tool_calls": [("transfer_to_nobody", {}), ("transfer_to_shop", {}), ("transfer_to_weather", {}),
                                     ("transfer_to_shop", {})]}])
    team = FakeLLM(["商品专家回答。"])
    handoff = run_with_handoff(front.client(), "m", "你是前台。", specialists(team), "篮球多少钱？", trace=None)
    assert handoff.owner == "shop" and handoff.answer == "商品专家回答。" and len(team.requests) == 1
    assert handoff.ignored == ["transfer_to_nobody", "transfer_to_weather", "transfer_to_shop"]
    tool_messages = [m for m in handoff.front_messages if m["role"] == "tool"]
    assert [m["content"] == TRANSFERRED.format(name="shop") for m in tool_messages] == [False, True, False, False]
    validate(handoff.front_messages)


def test_bad_specialists_and_empty_questions_are_refused_before_any_request():
    front = FakeLLM([])
    with pytest.raises(ValueError):
        run_with_handoff(front.client(), "m", "前台", [], "你好", trace=None)
    team = specialists(front)
    with pytest.raises(ValueError):
        run_with_handoff(front.client(), "m", "前台", team + team[:1], "你好", trace=None)
    with pytest.raises(ValueError):
        run_with_handoff(front.client(), "m", "前台", team, "   ", trace=None)
    assert front.requests == []


@pytest.mark.parametrize("decision, runs", [(approve(), 1), (reject("不买了"), 0)])
def test_approval_still_holds_across_the_handoff(decision, runs):
    written, registry = shop()
    front = FakeLLM([{"tool_calls": [("transfer_to_orders", {})]}])
    team = FakeLLM([{"tool_calls": [("place_order", {"product_id": "003", "quantity": 2})]}, "处理好了。"])
    handoff = run_with_handoff(front.client(), "m", "你是前台。", specialists(team, registry), "帮我买 2 个篮球", trace=None)
    assert handoff.owner == "orders" and handoff.result.stopped_reason == "waiting" and handoff.answer is None
    assert written == [] and isinstance(handoff.result.steps[-1], WaitingStep)
    [call] = handoff.waiting
    assert call.name == "place_order"
    handoff.decide(call, decision)
    assert handoff.run() is handoff
    assert handoff.answer == "处理好了。" and handoff.result.stopped_reason == "answer"
    assert len(written) == runs and len(team.requests) == 2  # the held turn finished without a new request for it
    tool_message = next(m for m in handoff.messages if m["role"] == "tool")
    if not runs:
        assert tool_message["content"].startswith(REJECTED_TEXT.format(name="place_order", reason="")[:10])
    all_valid(front, team)


def test_specialist_messages_and_chosen_specialist_directly():
    conversation = [{"role": "user", "content": "a"},
                    {"role": "assistant", "content": "我查一下", "tool_calls": [
                        {"id": "c", "type": "function", "function": {"name": "x", "arguments": "{}"}}]},
                    {"role": "tool", "tool_call_id": "c", "content": "r"}]
    assert specialist_messages(conversation, "S") == [{"role": "system", "content": "S"}, {"role": "user", "content": "a"},
                                                      {"role": "assistant", "content": "我查一下"}]
    assert specialist_messages(conversation, None)[0] == {"role": "user", "content": "a"}
    calls = [{"function": {"name": "get_weather"}}, {"function": {"name": "transfer_to_shop_vip"}}]
    assert chosen_specialist(calls, ["shop", "shop_vip"]) == "shop_vip"
    assert chosen_specialist(None, ["shop"]) is None and chosen_specialist([], ["shop"]) is None
    assert isinstance(HandoffResult("front", []).messages, list)
