"""Human approval in the native loop (approval.py, Agent's approve hook; notebook 08), on scripted replies.

A tool marked ``needs_approval`` writes only after a yes: these tests count the writes.
"""

from __future__ import annotations

import json

import pytest

from fakes import ORDER_SCHEMA, FakeLLM, shop

from course_lib.agent import REJECTED_TEXT, Agent
from course_lib.approval import Decision, approve, by_argument, edit, reject
from course_lib.messages import validate
from course_lib.records import ToolCallsStep, WaitingStep



def order(quantity, product_id="001"):
    return ("place_order", {"product_id": product_id, "quantity": quantity})


def agent(*replies, **options):
    written, registry = shop()
    fake = FakeLLM(list(replies))
    options.setdefault("trace", None)
    return fake, written, Agent(fake.client(), "fake-model", registry, **options)


def valid(loop: Agent, fake: FakeLLM) -> None:
    validate(loop.messages)
    for body in fake.requests:
        validate(body["messages"])


def test_the_registry_names_the_tools_that_need_a_yes():
    _, registry = shop()
    assert registry.approval_names() == ["place_order"]
    fake, _, loop = agent()
    assert loop.approval_tools == ["place_order"]


def test_approved_call_runs_and_the_trace_says_so():
    lines = []
    fake, written, loop = agent({"tool_calls": [order(2)]}, "已下单。", approve=lambda call: approve(), trace=lines.append)
    result = loop.run("买两个")
    assert written == [{"product_id": "001", "quantity": 2}]
    assert result.answer == "已下单。" and result.steps[0].tool_calls[0].approval == "approve"
    assert any("（已批准）" in line for line in lines)
    valid(loop, fake)


def test_rejected_call_never_runs_and_the_model_is_told():
    fake, written, loop = agent({"tool_calls": [order(100)]}, "好的，没有下单。",
                                approve=lambda call: reject("数量太大"))
    result = loop.run("买一百个")
    assert written == []
    tool_message = result.messages[3]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == result.messages[2]["tool_calls"][0]["id"]
    assert tool_message["content"].startswith(REJECTED_TEXT.split("{")[0]) and "数量太大" in tool_message["content"]
    call = result.steps[0].tool_calls[0]
    assert call.approval == "reject" and not call.ok
    # The model read the rejection in its next request, and the list it got was valid.
    assert fake.requests[1]["messages"][-1] == tool_message
    valid(loop, fake)


def test_edited_call_runs_with_the_persons_arguments_and_the_assistant_message_matches():
    fake, written, loop = agent({"tool_calls": [order(100)]}, "已按 3 个下单。",
                                approve=lambda call: edit({**call.arguments, "quantity": 3}))
    result = loop.run("买一百个")
    assert written == [{"product_id": "001", "quantity": 3}]
    sent = json.loads(result.messages[2]["tool_calls"][0]["function"]["arguments"])
    assert sent == {"product_id": "001", "quantity": 3}
    assert "用户把参数改成了" in result.messages[3]["content"] and result.steps[0].tool_calls[0].approval == "edit"
    valid(loop, fake)


def test_without_a_decision_the_loop_waits_and_nothing_runs_until_decide():
    fake, written, loop = agent({"tool_calls": [("get_weather", {"city": "北京"}), order(5)]}, "下好了。")
    loop.start("北京天气，顺便买 5 个")
    step = loop.step()
    assert isinstance(step, WaitingStep) and [c.name for c in step.waiting] == ["place_order"]
    assert [c.name for c in loop.waiting] == ["place_order"]
    # Nothing of the reply entered messages, nothing ran (not even the read tool of the same reply).
    assert [m["role"] for m in loop.messages] == ["system", "user"] and written == []
    with pytest.raises(RuntimeError, match="等待批准"):
        loop.step()
    loop.decide(loop.waiting[0], approve(by="test"))
    assert loop.waiting == []
    finished = loop.step()
    assert isinstance(finished, ToolCallsStep) and finished.number == 1
    assert written == [{"product_id": "001", "quantity": 5}]
    assert len(fake.requests) == 1  # finishing the turn sent no request
    assert [s.kind for s in loop.steps] == ["tool_calls"]  # the finished turn took the waiting step's place
    loop.step()
    assert loop.done and loop.answer == "下好了。"
    valid(loop, fake)
    assert loop.result().prompt_tokens == sum(s.prompt_tokens or 0 for s in loop.steps)


def test_a_policy_approves_small_orders_and_asks_a_person_about_the_rest():
    fake, written, loop = agent({"tool_calls": [order(2), order(50, "002")]}, "好的。", approve=by_argument("quantity", 3))
    loop.start("买东西")
    step = loop.step()
    assert isinstance(step, WaitingStep) and [c.arguments["quantity"] for c in loop.waiting] == [50]
    loop.decide(loop.waiting[0].id, reject("太多了"))
    loop.step()
    assert written == [{"product_id": "001", "quantity": 2}]
    assert [c.approval for c in loop.steps[0].tool_calls] == ["approve", "reject"]
    loop.step()
    valid(loop, fake)


@pytest.mark.parametrize("quantity", ["100", None, 2.5, True, 0, -1, 4])
def test_by_argument_never_approves_what_is_not_a_small_number(quantity):
    from course_lib.tool_calls import ToolCall

    policy = by_argument("quantity", 3)
    call = ToolCall("c1", "place_order", {"product_id": "001", "quantity": quantity}, "{}")
    assert policy(call) is None
    assert by_argument("quantity", 3, over=lambda c: reject("x"))(call).action == "reject"


def test_a_broken_policy_rejects_the_call_instead_of_running_it():
    def broken(call):
        raise KeyError("quantity")

    fake, written, loop = agent({"tool_calls": [order(1)]}, "没有下单。", approve=broken)
    result = loop.run("买一个")
    assert written == [] and result.steps[0].tool_calls[0].approval == "reject"
    assert "审批函数出错" in result.messages[3]["content"]

    fake, written, loop = agent({"tool_calls": [order(1)]}, "没有下单。", approve=lambda call: True)
    loop.run("买一个")
    assert written == [] and "不是 Decision" in loop.messages[3]["content"]


def test_decide_refuses_what_is_not_waiting_or_not_a_decision():
    fake, written, loop = agent({"tool_calls": [order(1)]})
    loop.start("买一个")
    loop.step()
    with pytest.raises(TypeError):
        loop.decide(loop.waiting[0], "yes")
    with pytest.raises(ValueError):
        loop.decide("call_nope", approve())
    with pytest.raises(ValueError):
        edit("quantity=3")
    with pytest.raises(ValueError):
        Decision("maybe")


def test_start_forgets_a_waiting_turn():
    fake, written, loop = agent({"tool_calls": [order(1)]}, "你好！")
    loop.start("买一个")
    loop.step()
    loop.start("你好")
    assert loop.waiting == [] and loop.step().kind == "answer" and written == []


def test_read_tools_and_other_registries_are_not_asked():
    asked = []
    fake, written, loop = agent({"tool_calls": [("get_weather", {"city": "北京"})]}, "晴。",
                                approve=lambda call: asked.append(call) or approve())
    loop.run("北京天气")
    assert asked == []
    # A registry without approval_names (a plain dict) needs no approval at all.
    fake = FakeLLM([{"tool_calls": [order(1)]}, "好。"])
    done = []
    plain = Agent(fake.client(), "fake-model", {"place_order": lambda product_id, quantity: done.append(quantity) or "ok"},
                  tools=[ORDER_SCHEMA], trace=None)
    plain.run("买一个")
    assert done == [1]


def test_waiting_counts_as_one_step_toward_max_steps():
    fake, written, loop = agent({"tool_calls": [order(1)]}, "只能说到这里。", max_steps=1)
    loop.start("买一个")
    loop.step()
    loop.decide(loop.waiting[0], approve())
    loop.step()
    assert loop.stopping == "max_steps"
    loop.step()
    assert loop.done and loop.stopped_reason == "max_steps" and "tools" not in fake.requests[-1]
    valid(loop, fake)


# --------------------------------------------------------------------------- the debugger's buttons


def debugger_for(*replies):
    from course_lib.debugger import AgentDebugger, DebuggerView

    fake, written, loop = agent(*replies)
    view = DebuggerView(AgentDebugger(loop, "买两个 001"))
    return fake, written, view


def test_buttons_show_only_while_a_call_waits_and_approve_runs_it():
    fake, written, view = debugger_for({"tool_calls": [order(2)]}, "已下单。")
    assert view.approval.layout.display == "none"
    view.on_next()
    assert view.approval.layout.display == "flex" and view.next_button.disabled and not view.approve_button.disabled
    assert json.loads(view.edit_box.value) == {"product_id": "001", "quantity": 2}
    assert "需要批准" in view.status.value and written == []
    view.on_approve()
    assert written == [{"product_id": "001", "quantity": 2}]
    assert view.approval.layout.display == "none" and not view.next_button.disabled
    assert "已批准" in view.details.value
    view.on_next()
    assert view.debugger.done and view.debugger.answer == "已下单。"
    valid(view.debugger.loop, fake)


def test_reject_button_runs_nothing_and_tells_the_model():
    fake, written, view = debugger_for({"tool_calls": [order(2)]}, "好的，没有下单。")
    view.on_next()
    view.on_reject()
    assert written == []
    tool_message = view.debugger.messages[-1]
    assert tool_message["role"] == "tool" and "拒绝" in tool_message["content"]
    view.on_next()
    assert view.debugger.done
    valid(view.debugger.loop, fake)


def test_edit_button_runs_the_edited_arguments_and_refuses_broken_json():
    fake, written, view = debugger_for({"tool_calls": [order(100)]}, "已按 1 个下单。")
    view.on_next()
    view.edit_box.value = '{"product_id": "001", "quantity": '
    view.on_edit()
    assert written == [] and "JSON" in view.status.value and view.debugger.waiting
    view.edit_box.value = "[1]"
    view.on_edit()
    assert written == [] and view.debugger.waiting
    view.edit_box.value = '{"product_id": "001", "quantity": 1}'
    view.on_edit()
    assert written == [{"product_id": "001", "quantity": 1}]
    sent = json.loads(view.debugger.messages[-2]["tool_calls"][0]["function"]["arguments"])
    assert sent["quantity"] == 1


def test_run_to_end_stops_at_a_waiting_call():
    from course_lib.debugger import AgentDebugger

    fake, written, loop = agent({"tool_calls": [order(2)]}, "已下单。")
    debugger = AgentDebugger(loop, "买两个")
    assert debugger.run_to_end() == 1 and debugger.waiting and not debugger.done and written == []
    assert debugger.decide(approve()) is not None and written
    assert debugger.decide(approve()) is None and debugger.error
