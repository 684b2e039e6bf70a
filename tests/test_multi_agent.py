"""course_lib.multi_agent (notebook 11): an agent as a tool, and a handoff, on scripted models.

Each agent talks to its own scripted server (``FakeLLM``), so what each one was sent can be read
apart: the inner agent's requests never hold the outer agent's messages.
"""

from __future__ import annotations

import json

import httpx2
import pytest

from fakes import FakeLLM, shop

from course_lib.agent import REJECTED_TEXT, Agent
from course_lib.approval import approve, reject
from course_lib.messages import ToolSchemaError, validate
from course_lib.multi_agent import (INNER_EMPTY_QUESTION, TRANSFERRED, HandoffResult, Specialist, agent_as_tool,
                                    chosen_specialist, cost_rows, run_with_handoff, specialist_messages, transfer_tool)
from course_lib.react import JsonReAct, LineReAct
from course_lib.records import WaitingStep
from course_lib.tools import WEATHER_TOOL, get_weather
from course_lib.tools.failure import ToolFailure, ToolWaiting
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
    inner = FakeLLM([httpx2.Response(500, json={"error": {"message": "boom"}})])
    outer = FakeLLM([{"tool_calls": [("ask_weather_expert", {"question": "北京？"})]}, "抱歉，专家没有回答。"])
    expert, front = outer_with_expert(inner, outer)
    result = front.run(QUESTION)
    assert result.answer == "抱歉，专家没有回答。"
    call = result.steps[0].tool_calls[0]
    assert call.ok is False and call.observation.startswith("错误：ask_weather_expert 没有给出回答（运行出错：")
    assert expert.function.errors and "500" in expert.function.errors[0]
    all_valid(outer)


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


# ------------------------------------------------------------------------------- an approval inside an agent used as a tool
# Issue 56, item 3: the inner agent's write waits for a person, so the OUTER run waits too (as openai-agents
# surfaces a nested tool's approval in the outer run's interruptions: openai-agents-js issues #243 and #680).
# While it waits, nothing is sent to the outer model: no tool error, no claimed success.

ORDER = {"product_id": "003", "quantity": 2}
INNER_DONE = "已经下单：订单 1，篮球 2 个。"
CLAIMS = ("已经为您下单", "已下单", "下单成功", "等人批准", "没有给出回答")


def orders_expert(inner: FakeLLM, registry: ToolRegistry, name: str = "ask_orders_expert") -> Tool:
    return agent_as_tool(lambda: Agent(inner.client(), "inner-model", registry, system="你是订单专家。", trace=None,
                                       max_steps=4), name, "交给订单专家：用户明确要买时下单。")


def counted_weather(counter: list) -> Tool:
    def weather(city: str) -> str:
        counter.append(city)
        return get_weather(city)
    return Tool("get_weather", weather, WEATHER_TOOL)


def front_desk(outer: FakeLLM, *tools: Tool, **options) -> Agent:
    return Agent(outer.client(), "outer-model", ToolRegistry(list(tools)), system=OUTER_SYSTEM, trace=None,
                 max_steps=3, **options)


def sent(fake: FakeLLM) -> str:
    return json.dumps(fake.requests, ensure_ascii=False)


def test_an_inner_approval_stops_the_outer_run_and_the_person_sees_the_inner_call():
    written, registry = shop()
    inner = FakeLLM([{"tool_calls": [("place_order", ORDER)]}, INNER_DONE])
    outer = FakeLLM([{"tool_calls": [("ask_orders_expert", {"question": "买 2 个篮球（编号 003）"})]},
                     "订单专家说：已经下单了，订单 1。"])
    expert = orders_expert(inner, registry)
    front = front_desk(outer, expert)
    paused = front.run("帮我买 2 个篮球")
    # The outer run waits, as for a call of its own; the person sees the inner place_order with its arguments.
    assert paused.stopped_reason == "waiting" and paused.answer is None and not front.done
    [call] = front.waiting
    assert call.name == "place_order" and call.arguments == ORDER and paused.waiting == [call]
    assert isinstance(paused.steps[-1], WaitingStep) and [c.name for c in paused.steps[-1].waiting] == ["place_order"]
    inner_agent = front.gate.waiting_tool.source  # which outer call, which inner agent
    assert front.gate.waiting_tool.call.name == "ask_orders_expert" and inner_agent.waiting == [call]
    assert call is inner_agent.waiting[0] is expert.function.runs[0].waiting[0]  # the inner agent's own object
    # Nothing ran, nothing was sent: one request each, and the outer list holds no half-answered turn.
    assert written == [] and len(outer.requests) == 1 and len(inner.requests) == 1
    assert [m["role"] for m in front.messages] == ["system", "user"]
    validate(front.messages)
    assert not any(claim in sent(outer) for claim in CLAIMS)  # the outer model was told nothing: no success, no error
    assert front.run().stopped_reason == "waiting" and len(outer.requests) == 1  # still no decision: nothing happens
    front.decide(call, approve())
    result = front.run()
    assert written == [ORDER] and result.stopped_reason == "answer" and result.answer == "订单专家说：已经下单了，订单 1。"
    assert len(outer.requests) == 2 and len(inner.requests) == 2
    validate(result.messages)
    tool_message = next(m for m in result.messages if m["role"] == "tool")
    assert tool_message["content"] == INNER_DONE  # the inner answer is the ask_ call's result
    assert result.steps[0].tool_calls[0].ok and result.steps[0].number == 1 and len(result.steps) == 2
    assert not any(claim in sent(outer) for claim in CLAIMS[3:])  # never a tool error about the waiting
    [run] = expert.function.runs  # the resumed run replaced the waiting one: its tokens counted once
    assert run.stopped_reason == "answer" and run.requests == 2 and run.prompt_tokens > 0
    assert cost_rows(result, expert.function.runs)[-1]["requests"] == 4
    all_valid(inner, outer)


def test_a_rejected_inner_call_never_runs_and_the_inner_agent_reads_the_rejection():
    written, registry = shop()
    inner = FakeLLM([{"tool_calls": [("place_order", ORDER)]}, "好的，这次没有下单。"])
    outer = FakeLLM([{"tool_calls": [("ask_orders_expert", {"question": "买 2 个篮球"})]}, "没有下单。"])
    front = front_desk(outer, orders_expert(inner, registry))
    [call] = front.run("帮我买 2 个篮球").waiting
    front.decide(call, reject("不买了"))
    result = front.run()
    assert written == [] and result.answer == "没有下单。" and result.stopped_reason == "answer"
    assert "用户拒绝了这次 place_order 调用" in sent(inner) and "不买了" in sent(inner)  # notebook 08's rejection text
    assert next(m for m in result.messages if m["role"] == "tool")["content"] == "好的，这次没有下单。"
    validate(result.messages)
    all_valid(inner, outer)


def test_the_old_tool_failure_for_a_waiting_inner_run_is_gone():
    written, registry = shop()
    inner = FakeLLM([{"tool_calls": [("place_order", ORDER)]}])
    expert = orders_expert(inner, registry)
    with pytest.raises(ToolWaiting) as caught:  # not a ToolFailure the outer model would read and talk over
        expert.function(question="买两个篮球")
    assert [c.name for c in caught.value.calls] == ["place_order"] and written == []
    assert expert.function.runs[0].stopped_reason == "waiting" and "ask_orders_expert" in str(caught.value)


@pytest.mark.parametrize("order", [("get_weather", "ask_orders_expert"), ("ask_orders_expert", "get_weather")])
def test_the_other_calls_of_the_outer_turn_run_once_and_the_turn_finishes_in_order(order):
    written, registry = shop()
    cities: list = []
    inner = FakeLLM([{"tool_calls": [("place_order", ORDER)]}, INNER_DONE])
    arguments = {"get_weather": {"city": "北京"}, "ask_orders_expert": {"question": "买 2 个篮球"}}
    outer = FakeLLM([{"tool_calls": [(name, arguments[name]) for name in order]}, "北京晴；已经下单。"])
    front = front_desk(outer, orders_expert(inner, registry), counted_weather(cities))
    front.run("北京天气，再帮我买 2 个篮球")
    assert [c.name for c in front.waiting] == ["place_order"] and len(outer.requests) == 1
    # A call before the waiting one has run; one after it waits with the turn (as the gate holds a turn).
    assert cities == (["北京"] if order[0] == "get_weather" else []) and written == []
    assert [m["role"] for m in front.messages] == ["system", "user"]
    front.decide(front.waiting[0], approve())
    result = front.run()
    assert cities == ["北京"] and written == [ORDER] and result.answer == "北京晴；已经下单。"
    calls = [m for m in result.messages if m.get("tool_calls")]
    tools = [m for m in result.messages if m["role"] == "tool"]
    assert len(calls) == 1 and [m["tool_call_id"] for m in tools] == [c["id"] for c in calls[0]["tool_calls"]]
    assert tools[order.index("ask_orders_expert")]["content"] == INNER_DONE
    assert "北京" in tools[order.index("get_weather")]["content"]
    validate(result.messages)
    all_valid(inner, outer)


def test_an_outer_call_approved_in_the_same_turn_runs_once():
    written, registry = shop()
    inner = FakeLLM([{"tool_calls": [("place_order", ORDER)]}, INNER_DONE])
    outer = FakeLLM([{"tool_calls": [("place_order", {"product_id": "001", "quantity": 1}),
                                     ("ask_orders_expert", {"question": "买 2 个篮球"})]}, "两单都好了。"])
    front = front_desk(outer, registry.get("place_order"), orders_expert(inner, registry))
    front.run("买一个 001，再问订单专家买 2 个篮球")
    [own] = front.waiting
    front.decide(own, approve())
    assert front.run().stopped_reason == "waiting" and written == [{"product_id": "001", "quantity": 1}]
    [nested] = front.waiting
    assert nested.arguments == ORDER
    front.decide(nested, approve())
    result = front.run()
    assert written == [{"product_id": "001", "quantity": 1}, ORDER] and result.answer == "两单都好了。"
    assert [r.approval for r in result.steps[0].tool_calls] == ["approve", ""]
    validate(result.messages)
    all_valid(inner, outer)


def test_the_inner_agent_waits_again_and_so_does_the_outer_one():
    written, registry = shop()
    second = {"product_id": "001", "quantity": 1}
    inner = FakeLLM([{"tool_calls": [("place_order", ORDER)]}, {"tool_calls": [("place_order", second)]}, "两单都好了。"])
    outer = FakeLLM([{"tool_calls": [("ask_orders_expert", {"question": "买篮球和足球"})]}, "好了。"])
    expert = orders_expert(inner, registry)
    front = front_desk(outer, expert)
    front.run("买篮球和足球")
    front.decide(front.waiting[0], approve())
    again = front.run()
    assert again.stopped_reason == "waiting" and [c.arguments for c in again.waiting] == [second]
    assert written == [ORDER] and len(outer.requests) == 1 and [m["role"] for m in front.messages] == ["system", "user"]
    front.decide(again.waiting[0], approve())
    result = front.run()
    assert written == [ORDER, second] and result.answer == "好了。" and len(outer.requests) == 2
    assert len(expert.function.runs) == 1 and expert.function.runs[0].requests == 3
    validate(result.messages)
    all_valid(inner, outer)


def test_an_agent_inside_an_agent_inside_an_agent_waits_at_the_top():
    written, registry = shop()
    inner = FakeLLM([{"tool_calls": [("place_order", ORDER)]}, INNER_DONE])
    middle = FakeLLM([{"tool_calls": [("ask_orders_expert", {"question": "买 2 个篮球"})]}, "经理：" + INNER_DONE])
    outer = FakeLLM([{"tool_calls": [("ask_manager", {"question": "买 2 个篮球"})]}, "好了。"])
    manager = agent_as_tool(lambda: front_desk(middle, orders_expert(inner, registry)), "ask_manager", "经理")
    front = front_desk(outer, manager)
    [call] = front.run("买 2 个篮球").waiting
    assert call.name == "place_order" and front.gate.waiting_tool.call.name == "ask_manager"
    front.decide(call, approve())
    result = front.run()
    assert written == [ORDER] and result.answer == "好了。"
    assert next(m for m in result.messages if m["role"] == "tool")["content"] == "经理：" + INNER_DONE
    all_valid(inner, middle, outer)


def test_two_waiting_specialists_in_one_outer_turn_wait_one_after_the_other():
    written, registry = shop()
    second = {"product_id": "001", "quantity": 1}
    inner = FakeLLM([{"tool_calls": [("place_order", ORDER)]}, "篮球好了。",
                     {"tool_calls": [("place_order", second)]}, "足球好了。"])
    outer = FakeLLM([{"tool_calls": [("ask_orders_expert", {"question": "买篮球"}),
                                     ("ask_orders_expert", {"question": "买足球"})]}, "都好了。"])
    expert = orders_expert(inner, registry)
    front = front_desk(outer, expert)
    [first] = front.run("买篮球和足球").waiting
    front.decide(first, approve())
    [then] = front.run().waiting
    assert then.arguments == second and written == [ORDER] and front.gate.waiting_tool.call.arguments == {"question": "买足球"}
    front.decide(then, approve())
    result = front.run()
    assert written == [ORDER, second] and result.answer == "都好了。" and len(outer.requests) == 2
    assert [m["content"] for m in result.messages if m["role"] == "tool"] == ["篮球好了。", "足球好了。"]
    assert [r.answer for r in expert.function.runs] == ["篮球好了。", "足球好了。"]
    validate(result.messages)
    all_valid(inner, outer)


REACT_ASK = {
    "A": (LineReAct, "Thought: 交给订单专家。\nAction: ask_orders_expert: 买 2 个篮球\nPAUSE", "Answer: 处理好了。"),
    "B": (JsonReAct, 'Thought: 交给订单专家。\nAction:\n```json\n{"action": "ask_orders_expert", '
                     '"action_input": {"question": "买 2 个篮球"}}\n```', "Final Answer: 处理好了。"),
}


@pytest.mark.parametrize("protocol", list(REACT_ASK))
@pytest.mark.parametrize("decision, writes", [(approve(), [ORDER]), (reject("不买了"), [])], ids=["approve", "reject"])
def test_a_react_loop_waits_for_the_inner_approval_too(decision, writes, protocol):
    written, registry = shop()
    inner = FakeLLM([{"tool_calls": [("place_order", ORDER)]}, "处理好了。"])
    kind, action, answer = REACT_ASK[protocol]
    outer = FakeLLM([action, answer])
    loop = kind(outer.client(), "outer-model", ToolRegistry([orders_expert(inner, registry)]), trace=None)
    paused = loop.run("帮我买 2 个篮球")
    assert paused.stopped_reason == "waiting" and [c.arguments for c in loop.waiting] == [ORDER]
    assert written == [] and len(outer.requests) == 1 and isinstance(loop.steps[-1], WaitingStep)
    loop.decide(loop.waiting[0], decision)
    result = loop.run()
    assert written == writes and result.answer == "处理好了。" and len(outer.requests) == 2
    assert result.steps[0].ok and result.steps[0].observation == "处理好了。"
    assert "Observation: 处理好了。" in outer.requests[1]["messages"][-1]["content"]


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


# Issue 56, item 3: a small model writes its transfer as text.  read_assistant recovers a known name; an unknown
# name or broken JSON is a failed transfer (answer None), never the front desk's answer.
TEXT_TRANSFERS = {
    "unknown name": ('<tool_call>\n{"name": "transfer_to_sales", "arguments": {}}\n</tool_call>', ["transfer_to_sales"]),
    "broken JSON": ('<tool_call>\n{"name": "transfer_to_shop", "arguments": {}\n</tool_call>', ["transfer_to_shop"]),
    "unknown bare object": ('{"name": "transfer_to_billing", "arguments": {"reason": "退款"}}', ["transfer_to_billing"]),
    "another tool": ('{"name": "get_weather", "arguments": {"city": "北京"}}', ["get_weather"]),
    "a tag, no name": ("<tool_call>\n找销售\n</tool_call>", ["<tool_call> 找销售 </tool_call>"]),
}


@pytest.mark.parametrize("text, tried", list(TEXT_TRANSFERS.values()), ids=list(TEXT_TRANSFERS))
def test_a_transfer_written_as_text_that_cannot_be_followed_is_a_failed_transfer(text, tried):
    front = FakeLLM([text])
    team = FakeLLM([])
    lines = []
    handoff = run_with_handoff(front.client(), "m", "你是前台。", specialists(team), "我要退款", trace=lines.append)
    assert handoff.owner == "front" and handoff.answer is None and handoff.agent is None
    assert handoff.ignored == tried and team.requests == []
    validate(handoff.front_messages)
    assert any(tried[0] in line and "写成了文字" in line for line in lines)
    assert any("没有转接，也没有回答" in line for line in lines) and not any("自己回答" in line for line in lines)
    all_valid(front)


def test_a_known_transfer_written_as_text_still_transfers():
    front = FakeLLM(['好的。{"name": "transfer_to_shop", "arguments": {}}'])
    team = FakeLLM(["篮球 200 元。"])
    handoff = run_with_handoff(front.client(), "m", "你是前台。", specialists(team), "篮球多少钱？", trace=None)
    assert handoff.owner == "shop" and handoff.answer == "篮球 200 元。" and handoff.ignored == []
    validate(handoff.front_messages)
    all_valid(front, team)


@pytest.mark.parametrize("answer", ["您好，请问要买什么？", "这个问题我可以帮您转接给商品专家，也可以先告诉我您想买什么。",
                                    "名字（name）和参数（arguments）都不需要，直接告诉我就好。"])
def test_a_plain_answer_that_mentions_words_is_still_the_front_desks_answer(answer):
    front = FakeLLM([answer])
    handoff = run_with_handoff(front.client(), "m", "你是前台。", specialists(FakeLLM([])), "你好", trace=None)
    assert handoff.owner == "front" and handoff.answer == answer and handoff.ignored == []
    validate(handoff.front_messages)


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


def test_the_next_message_goes_to_the_specialist_in_its_own_list():
    """``HandoffResult.send``: the user's next message is appended to the specialist's list and the same
    specialist answers it with the conversation so far; while a call waits, or with no specialist, it refuses."""
    front = FakeLLM([{"tool_calls": [("transfer_to_weather", {})]}])
    team = FakeLLM(["上海湿度 65%。", "北京湿度 40%。"])
    handoff = run_with_handoff(front.client(), "m", "你是前台。", specialists(team), "上海的湿度？", trace=None)
    first_agent = handoff.agent
    assert handoff.send("那北京呢？") is handoff and handoff.agent is first_agent
    assert handoff.answer == "北京湿度 40%。" and len(front.requests) == 1  # the front desk is not asked again
    assert team.requests[1]["messages"] == [{"role": "system", "content": SPECIALIST_SYSTEMS["weather"]},
                                            {"role": "user", "content": "上海的湿度？"},
                                            {"role": "assistant", "content": "上海湿度 65%。"},
                                            {"role": "user", "content": "那北京呢？"}]
    with pytest.raises(ValueError):
        handoff.send("  ")
    all_valid(front, team)
    written, registry = shop()
    waiting = run_with_handoff(FakeLLM([{"tool_calls": [("transfer_to_orders", {})]}]).client(), "m", "你是前台。",
                               specialists(FakeLLM([{"tool_calls": [("place_order", ORDER)]}]), registry), "买 2 个篮球",
                               trace=None)
    with pytest.raises(RuntimeError, match="等人决定"):
        waiting.send("快点")
    alone = run_with_handoff(FakeLLM(["你好！"]).client(), "m", "你是前台。", specialists(FakeLLM([])), "你好", trace=None)
    with pytest.raises(RuntimeError, match="没有转接"):
        alone.send("在吗")
    assert written == []
