"""One approval gate for every loop (issue 30, parts 1 and 4), on scripted replies through the real openai client.

Every loop of the course - the native ``Agent``, the ReAct loops ``LineReAct`` / ``JsonReAct``,
the chat box (``ChatSession`` / ``ChatBox``) and the debugger driving any of them - asks the
same ``approval.ApprovalGate`` before a tool marked ``needs_approval`` runs.  These tests give
each of them a model that asks for a write and count the writes.  Also here: decisions belong
to one call of one turn (not to an id string a server reuses), an edited argument that is not
JSON-native is converted or refused without losing the held turn, and a forced ``tool_choice``
applies until a tool has run, then returns to ``"auto"``.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from fakes import ORDER_SCHEMA, FakeLLM, raw_completion, shop

from course_lib.agent import Agent
from course_lib.approval import approve, edit, reject
from course_lib.messages import validate
from course_lib.react import JsonReAct, LineReAct
from course_lib.records import ActionStep, WaitingStep, stop_reason_text
from course_lib.texts import t
from course_lib.tools import WEATHER_TOOL, get_weather

ORDER = {"product_id": "001", "quantity": 2}


# What each protocol's model writes when it wants the write, and when it answers.
WRITE = {
    "native": {"tool_calls": [("place_order", ORDER)]},
    "A": "Thought: 顾客要买两个。\nAction: place_order: " + json.dumps(ORDER) + "\nPAUSE",
    "B": 'Thought: 下单。\nAction:\n```json\n{"action": "place_order", "action_input": ' + json.dumps(ORDER) + "}\n```",
}
ANSWER = {"native": "已下单。", "A": "Thought: 好了。\nAnswer: 已下单。", "B": "Final Answer: 已下单。"}
LOOPS = {"native": Agent, "A": LineReAct, "B": JsonReAct}


def make_loop(protocol, *replies, **options):
    written, registry = shop()
    fake = FakeLLM(list(replies))
    loop = LOOPS[protocol](fake.client(), "fake-model", registry, trace=None, **options)
    return fake, written, loop


def sent_text(body: dict) -> str:
    return "\n".join(str(m.get("content") or "") for m in body["messages"])


# --------------------------------------------------------------------------- every loop waits


@pytest.mark.parametrize("protocol", ["native", "A", "B"])
def test_every_loop_waits_for_a_decision_before_a_write(protocol):
    fake, written, loop = make_loop(protocol, WRITE[protocol], ANSWER[protocol])
    loop.start("帮我买两个 001")
    step = loop.step()
    assert isinstance(step, WaitingStep) and [c.name for c in loop.waiting] == ["place_order"]
    assert written == []
    with pytest.raises(RuntimeError, match="等待批准"):
        loop.step()  # no decision yet: nothing runs, no request is sent
    assert len(fake.requests) == 1 and written == []
    loop.decide(loop.waiting[0], approve(by="test"))
    finished = loop.step()
    assert written == [ORDER] and len(fake.requests) == 1  # the held turn ran; no new request
    assert finished.number == 1 and [s.kind for s in loop.steps] == [finished.kind]  # it took the waiting step's place
    loop.step()
    assert loop.done and loop.answer == "已下单。"
    for body in fake.requests:
        validate(body["messages"])


# --------------------------------------------------------------------------- run() returns at a waiting call (issue 44)
# LangGraph's invoke returns with "__interrupt__", openai-agents' Runner.run with result.interruptions;
# neither raises.  The course's run() used to raise RuntimeError from inside itself ("call step()").


@pytest.mark.parametrize("decision, writes", [(approve(by="test"), [ORDER]), (reject("不买了"), [])], ids=["approve", "reject"])
@pytest.mark.parametrize("protocol", ["native", "A", "B"])
def test_run_returns_waiting_without_running_the_write_and_run_again_finishes(protocol, decision, writes):
    fake, written, loop = make_loop(protocol, WRITE[protocol], ANSWER[protocol])
    paused = loop.run("帮我买两个 001")  # no decision yet: returns, never raises
    assert paused.stopped_reason == "waiting" and paused.answer is None and not loop.done
    assert [c.name for c in paused.waiting] == ["place_order"] and paused.waiting[0] is loop.waiting[0]
    assert written == [] and len(fake.requests) == 1  # the write did not run
    assert stop_reason_text(paused.stopped_reason) != t("loops.stop_other")  # said in words, like every stopped_reason
    assert "place_order" in paused.table().frame.to_string()
    again = loop.run()  # still no decision: the same answer, no request, no write
    assert again.stopped_reason == "waiting" and written == [] and len(fake.requests) == 1
    loop.decide(paused.waiting[0], decision)
    finished = loop.run()  # the held turn runs (no new request for it), then the run goes on
    assert finished.stopped_reason == "answer" and finished.waiting == [] and loop.done
    assert written == writes and len(fake.requests) == 2
    assert [s.kind for s in finished.steps] == ["tool_calls" if protocol == "native" else "action", "answer"]
    for body in fake.requests:
        validate(body["messages"])


@pytest.mark.parametrize("protocol", ["native", "A", "B"])
def test_a_stop_inside_the_approval_hook_keeps_the_call_waiting(protocol):
    asked = []

    def hook(call):  # a person asked with input(); the student presses the stop button meanwhile
        asked.append(call)
        raise KeyboardInterrupt

    fake, written, loop = make_loop(protocol, WRITE[protocol], ANSWER[protocol], approve=hook)
    with pytest.raises(KeyboardInterrupt, match="审批函数被中断"):
        loop.run("帮我买两个 001")  # the stop still stops the cell ...
    assert [c.name for c in loop.waiting] == ["place_order"] and written == []  # ... and the decision is still pending
    assert isinstance(loop.steps[-1], WaitingStep) and len(fake.requests) == 1
    assert loop.run().stopped_reason == "waiting" and len(asked) == 1  # the hook is not asked again; nothing ran
    loop.decide(loop.waiting[0], approve(by="test"))
    result = loop.run()
    assert result.answer == "已下单。" and written == [ORDER] and len(fake.requests) == 2
    for body in fake.requests:
        validate(body["messages"])


def test_a_stop_inside_the_hook_keeps_earlier_decisions_and_later_calls_wait():
    second = {"product_id": "002", "quantity": 5}

    def hook(call):
        if call.arguments == ORDER:
            return approve(by="policy")
        raise KeyboardInterrupt

    fake, written, loop = make_loop("native", {"tool_calls": [("place_order", ORDER), ("place_order", second),
                                                              ("place_order", {"product_id": "003", "quantity": 1})]},
                                    ANSWER["native"], approve=hook)
    with pytest.raises(KeyboardInterrupt):
        loop.run("买三样")
    assert [c.arguments for c in loop.waiting] == [second, {"product_id": "003", "quantity": 1}] and written == []
    for call in list(loop.waiting):
        loop.decide(call, reject("先问顾客"))
    result = loop.run()
    assert written == [ORDER] and [c.approval for c in result.steps[0].tool_calls] == ["approve", "reject", "reject"]
    validate(loop.messages)


@pytest.mark.parametrize("protocol", ["A", "B"])
def test_react_loops_ask_the_approve_hook_and_a_rejection_is_the_observation(protocol):
    asked = []

    def policy(call):
        asked.append((call.name, call.arguments))
        return reject("数量要先问过顾客")

    fake, written, loop = make_loop(protocol, WRITE[protocol], ANSWER[protocol], approve=policy)
    result = loop.run("帮我买两个 001")
    assert asked == [("place_order", ORDER)] and written == []
    step = result.steps[0]
    assert isinstance(step, ActionStep) and step.approval == "reject" and not step.ok
    assert "用户拒绝了这次 place_order 调用" in step.observation and "数量要先问过顾客" in step.observation
    assert "用户拒绝了这次 place_order 调用" in sent_text(fake.requests[1])  # the model read it


@pytest.mark.parametrize("protocol", ["A", "B"])
def test_react_loops_run_an_edited_call_with_the_persons_arguments(protocol):
    fake, written, loop = make_loop(protocol, WRITE[protocol], ANSWER[protocol],
                                    approve=lambda call: edit({**call.arguments, "quantity": 1}))
    result = loop.run("帮我买两个 001")
    assert written == [{"product_id": "001", "quantity": 1}]
    assert result.steps[0].approval == "edit" and "用户把参数改成了" in result.steps[0].observation


def test_react_read_tools_are_not_asked():
    asked = []
    fake, written, loop = make_loop("A", "Action: get_weather: 北京\nPAUSE", ANSWER["A"],
                                    approve=lambda call: asked.append(call) or approve())
    loop.run("北京天气")
    assert asked == [] and loop.steps[0].approval == ""


# --------------------------------------------------------------------------- one record, one function (issue 46)


@pytest.mark.parametrize("protocol", ["native", "A", "B"])
def test_the_held_turn_is_one_typed_record_for_every_loop(protocol):
    """The gate holds a waiting turn as an approval.HeldTurn (named, frozen fields), whatever the loop."""
    import dataclasses

    from course_lib.approval import HeldTurn

    fake, written, loop = make_loop(protocol, WRITE[protocol], ANSWER[protocol])
    loop.start("帮我买两个 001")
    loop.step()
    held = loop.gate.held
    assert isinstance(held, HeldTurn) and held.number == 1
    assert list(held.calls) == loop.waiting and all(a is b for a, b in zip(held.calls, loop.waiting))
    assert held.fields["requests" if protocol == "native" else "thought"] is not None
    if protocol == "native":
        assert held.turn.calls == list(held.calls) and held.parsed is None and held.reply_text is None
    else:
        assert held.turn is None and held.parsed.kind == "action" and "place_order" in held.reply_text
    with pytest.raises(dataclasses.FrozenInstanceError):
        held.number = 2  # type: ignore[misc]
    loop.decide(loop.waiting[0], approve())
    loop.step()
    assert loop.gate.held is None and written == [ORDER]


@pytest.mark.parametrize("decision", [reject("一单最多一件"), edit({"product_id": "001", "quantity": 1})],
                         ids=["reject", "edit"])
def test_every_loop_applies_a_decision_through_one_function_with_the_same_text(monkeypatch, decision):
    """ApprovalGate.apply_decision reads the decision, runs the call or builds the rejected / edited text,
    once for every loop: the native tool message and both ReAct Observations are the same text."""
    from course_lib.approval import EDITED_NOTE, ApprovalGate, rejected_text

    applied = []
    real = ApprovalGate.apply_decision

    def spy(gate, call, run):
        result = real(gate, call, run)
        applied.append((call.name, result.approval, result.observation))
        return result

    monkeypatch.setattr(ApprovalGate, "apply_decision", spy)
    texts = {}
    for protocol in ("native", "A", "B"):
        fake, written, loop = make_loop(protocol, WRITE[protocol], ANSWER[protocol], approve=lambda call: decision)
        result = loop.run("帮我买两个 001")
        step = result.steps[0]
        texts[protocol] = (step.tool_calls[0].observation if protocol == "native" else step.observation)
        assert written == ([] if decision.action == "reject" else [decision.arguments])
        assert texts[protocol] in sent_text(fake.requests[1])  # what the model read
    assert applied == [("place_order", decision.action, text) for text in texts.values()]
    assert len(set(texts.values())) == 1
    if decision.action == "reject":
        assert texts["native"] == rejected_text("place_order", decision)
    else:
        assert texts["native"].startswith(EDITED_NOTE.format(arguments=json.dumps(decision.arguments)))


def test_the_gate_applies_a_decision_without_a_loop():
    """apply_decision on its own: no decision or approve runs; reject does not run; edit runs and says so."""
    from course_lib.approval import ApprovalGate
    from course_lib.records import ToolResult
    from course_lib.tool_calls import ToolCall

    ran = []

    def run(call):
        ran.append(call.arguments)
        return ToolResult(call, "好了")

    gate = ApprovalGate(["place_order"])
    calls = [ToolCall(f"c{i}", "place_order", dict(ORDER), json.dumps(ORDER)) for i in range(3)]
    read = ToolCall("r", "get_weather", {"city": "北京"}, '{"city": "北京"}')
    gate.ask([*calls, read])
    for call, decision in zip(calls, [approve(), reject(), edit({"product_id": "001", "quantity": 1})]):
        gate.decide(call, decision)
    released = gate.release([*calls, read])
    results = [gate.apply_decision(call, run) for call in released]
    assert [r.approval for r in results] == ["approve", "reject", "edit", ""]
    assert [r.ok for r in results] == [True, False, True, True]
    assert ran == [ORDER, {"product_id": "001", "quantity": 1}, {"city": "北京"}]  # the rejected one never ran
    assert results[1].observation.startswith("没有执行：用户拒绝了这次 place_order 调用。")
    assert results[2].observation == '（用户把参数改成了 {"product_id": "001", "quantity": 1} 后才执行；下面是按用户的参数执行的结果。）\n好了'
    assert results[3].observation == "好了"


# --------------------------------------------------------------------------- decisions belong to a turn


def numbered_call(arguments: dict) -> object:
    """A reply whose one call has the id ``call_0``, as servers that number calls per reply send it."""
    return raw_completion({"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_0", "type": "function", "function": {"name": "place_order", "arguments": json.dumps(arguments)}}]},
        finish_reason="tool_calls")


def test_a_later_write_with_a_reused_id_does_not_inherit_the_earlier_decision():
    written, registry = shop()
    fake = FakeLLM([numbered_call(ORDER), numbered_call({"product_id": "001", "quantity": 20}), "好了。"])
    loop = Agent(fake.client(), "fake-model", registry, trace=None)
    loop.start("买两个，再买二十个")
    loop.step()
    loop.decide(loop.waiting[0], approve())
    loop.step()
    assert written == [ORDER]
    second = loop.step()  # the same id "call_0" again, another order: a person must be asked again
    assert isinstance(second, WaitingStep) and loop.waiting[0].arguments["quantity"] == 20
    assert written == [ORDER]
    loop.decide("call_0", reject("太多了"))  # an id still names a waiting call of this turn
    loop.step()
    assert written == [ORDER] and loop.steps[-1].tool_calls[0].approval == "reject"


def test_a_hook_decision_is_asked_again_for_each_turn_even_with_the_same_id():
    written, registry = shop()
    answers = iter([approve(), None])
    fake = FakeLLM([numbered_call(ORDER), numbered_call(ORDER), "好了。"])
    loop = Agent(fake.client(), "fake-model", registry, trace=None, approve=lambda call: next(answers))
    loop.start("买两次")
    loop.step()
    assert written == [ORDER]
    assert isinstance(loop.step(), WaitingStep) and written == [ORDER]


def test_the_gate_keys_decisions_by_the_call_of_this_turn():
    from course_lib.approval import ApprovalGate, HeldTurn
    from course_lib.tool_calls import ToolCall

    gate = ApprovalGate(["place_order"])
    first = ToolCall("call_0", "place_order", dict(ORDER), json.dumps(ORDER))
    held = HeldTurn(1, {}, (first,))
    assert gate.ask([first], held=held) == [first] and gate.held is held
    gate.decide(first, approve())
    assert gate.waiting == [] and gate.decision(first).action == "approve"
    gate.release([first])
    again = ToolCall("call_0", "place_order", dict(ORDER), json.dumps(ORDER))  # equal, but another turn's call
    assert gate.ask([again]) == [again] and gate.decision(again) is None and gate.decision(first) is None


# --------------------------------------------------------------------------- edited arguments


def test_an_edit_from_a_dataframe_is_converted_to_json_numbers():
    np = pytest.importorskip("numpy")
    fake, written, loop = make_loop("native", WRITE["native"], ANSWER["native"])
    loop.start("帮我买两个 001")
    loop.step()
    loop.decide(loop.waiting[0], edit({"product_id": np.str_("001"), "quantity": np.int64(1)}))
    loop.step()
    assert written == [{"product_id": "001", "quantity": 1}] and type(written[0]["quantity"]) is int
    sent = loop.messages[2]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(sent) == {"product_id": "001", "quantity": 1}
    loop.step()
    validate(fake.requests[-1]["messages"])


def test_a_decimal_edit_is_converted_and_a_value_json_cannot_hold_is_refused_in_chinese():
    assert edit({"quantity": Decimal("3")}).arguments == {"quantity": 3}
    assert edit({"price": Decimal("2.5")}).arguments == {"price": 2.5}
    for bad in ({"quantity": {1, 2}}, {"quantity": float("nan")}, {"when": object()}):
        with pytest.raises(ValueError, match="JSON"):
            edit(bad)


def test_a_refused_edit_keeps_the_held_turn_and_the_other_decisions():
    fake, written, loop = make_loop("native", {"tool_calls": [("place_order", ORDER), ("place_order", {"product_id": "002", "quantity": 5})]},
                                    ANSWER["native"])
    loop.start("买两样")
    loop.step()
    first, second = loop.waiting
    loop.decide(first, approve())
    with pytest.raises(ValueError, match="JSON"):
        loop.decide(second, edit({"product_id": "002", "quantity": {5}}))
    assert loop.waiting == [second] and written == []  # the held turn and the first decision survive
    loop.decide(second, edit({"product_id": "002", "quantity": 1}))
    loop.step()
    assert written == [ORDER, {"product_id": "002", "quantity": 1}]
    assert [c.approval for c in loop.steps[0].tool_calls] == ["approve", "edit"]


def test_an_edit_changed_after_the_decision_does_not_change_what_runs():
    arguments = {"product_id": "001", "quantity": 1}
    decision = edit(arguments)
    arguments["quantity"] = 20
    assert decision.arguments == {"product_id": "001", "quantity": 1}


# --------------------------------------------------------------------------- the chat box


def chat(*replies, **options):
    from test_widgets import StreamingFakeLLM  # answers a streamed request as server-sent events

    from course_lib.widgets import ChatSession

    written, registry = shop()
    fake = StreamingFakeLLM(list(replies))
    session = ChatSession(fake.client(), "fake-model", memory=True, tools=[WEATHER_TOOL, ORDER_SCHEMA],
                          registry=registry, **options)
    return fake, written, session


def test_the_chat_session_waits_for_a_decision_and_never_tells_the_student_to_call_agent_decide():
    fake, written, session = chat(WRITE["native"], "已下单。")
    reply = session.send("帮我买两个 001")
    assert session.error is None and reply == ""
    assert [c.name for c in session.waiting] == ["place_order"] and written == []
    assert "place_order" in session.notice and "agent.decide" not in session.notice
    assert session.send("再说一句") is None and "批准" in session.error  # decide first; nothing is lost
    assert session.waiting and len(fake.requests) == 1
    assert session.decide(approve()) == "已下单。"
    assert written == [ORDER] and session.waiting == []
    assert [m["role"] for m in session.history] == ["system", "user", "assistant", "tool", "assistant"]
    validate(session.history)


def test_the_chat_session_rejects_and_the_model_is_told():
    fake, written, session = chat(WRITE["native"], "好的，没有下单。")
    session.send("帮我买两个 001")
    assert session.decide(reject("不买了")) == "好的，没有下单。"
    assert written == [] and "用户拒绝了" in session.history[3]["content"]
    assert session.decide(approve()) is None and session.error  # nothing waits any more


def test_the_chat_session_passes_a_policy_to_its_agent():
    fake, written, session = chat(WRITE["native"], "已下单。", approve=lambda call: approve(by="policy"))
    assert session.send("帮我买两个 001") == "已下单。" and written == [ORDER]


def test_the_chat_session_keeps_a_call_waiting_after_a_stop_inside_its_approval_hook():
    def hook(call):
        raise KeyboardInterrupt

    fake, written, session = chat(WRITE["native"], "已下单。", approve=hook)
    with pytest.raises(KeyboardInterrupt):
        session.send("帮我买两个 001")
    assert [c.name for c in session.waiting] == ["place_order"] and written == [] and len(fake.requests) == 1
    assert session.decide(approve()) == "已下单。" and written == [ORDER]
    assert [m["role"] for m in session.history] == ["system", "user", "assistant", "tool", "assistant"]
    validate(session.history)


def test_the_chat_box_shows_approve_and_reject_buttons_for_a_write():
    from course_lib.widgets import ChatBox

    fake, written, session = chat(WRITE["native"], "已下单。")
    box = ChatBox(session, stream=False)
    assert box.approval.layout.display == "none"
    box.text.value = "帮我买两个 001"
    box.on_send()
    assert box.approval.layout.display == "flex" and written == []
    assert "place_order" in box.status.value and "agent.decide" not in box.status.value
    assert box.send_button.disabled and not box.approve_button.disabled and not box.reject_button.disabled
    box.on_approve()
    assert written == [ORDER] and box.approval.layout.display == "none" and not box.send_button.disabled
    assert "已下单。" in box.reply.value


def test_the_chat_box_reject_button_runs_nothing():
    from course_lib.widgets import ChatBox

    fake, written, session = chat(WRITE["native"], "好的，没有下单。")
    box = ChatBox(session, stream=True)
    box.text.value = "帮我买两个 001"
    box.on_send()
    box.on_reject()
    assert written == [] and "没有下单" in box.reply.value and box.approval.layout.display == "none"
    box.on_reset()
    assert session.waiting == [] and box.approval.layout.display == "none"


# --------------------------------------------------------------------------- the debugger on ReAct loops


@pytest.mark.parametrize("protocol", ["A", "B"])
def test_the_debugger_buttons_work_for_the_react_loops(protocol):
    from course_lib.debugger import AgentDebugger, DebuggerView

    fake, written, loop = make_loop(protocol, WRITE[protocol], ANSWER[protocol])
    view = DebuggerView(AgentDebugger(loop, "帮我买两个 001"))
    view.on_next()
    assert view.approval.layout.display == "flex" and written == []
    view.edit_box.value = '{"product_id": "001", "quantity": 1}'
    view.on_edit()
    assert written == [{"product_id": "001", "quantity": 1}] and "参数被修改后执行" in view.details.value
    view.on_next()
    assert view.debugger.done and view.debugger.answer == "已下单。"


def test_the_debugger_edit_box_shows_each_turns_call_even_when_the_id_is_reused():
    from course_lib.debugger import AgentDebugger, DebuggerView

    written, registry = shop()
    fake = FakeLLM([numbered_call(ORDER), numbered_call({"product_id": "002", "quantity": 20}), "好了。"])
    view = DebuggerView(AgentDebugger(Agent(fake.client(), "fake-model", registry, trace=None), "买两次"))
    view.on_next()
    view.edit_box.value = '{"product_id": "001", "quantity": 1}'
    view.on_edit()
    view.on_next()  # the second order, again "call_0": the box must show this call, not the last edit
    assert json.loads(view.edit_box.value) == {"product_id": "002", "quantity": 20}
    view.on_edit()
    assert written == [{"product_id": "001", "quantity": 1}, {"product_id": "002", "quantity": 20}]


# --------------------------------------------------------------------------- a forced tool_choice


@pytest.mark.parametrize("choice", ["required", {"type": "function", "function": {"name": "get_weather"}}])
def test_a_forced_tool_choice_applies_until_a_tool_ran_then_returns_to_auto(choice):
    written, registry = shop()
    fake = FakeLLM([{"tool_calls": [("get_weather", {"city": "北京"})]}, {"tool_calls": [("get_weather", {"city": "上海"})]}, "都晴。"])
    loop = Agent(fake.client(), "fake-model", registry, trace=None, tool_choice=choice, max_steps=5)
    result = loop.run("北京和上海的天气")
    assert result.answer == "都晴。"
    assert [body.get("tool_choice") for body in fake.requests] == [choice, "auto", "auto"]


def test_a_forced_tool_choice_can_be_kept_and_auto_or_none_are_never_changed():
    written, registry = shop()
    fake = FakeLLM([{"tool_calls": [("get_weather", {"city": "北京"})]}, "晴。"])
    Agent(fake.client(), "fake-model", registry, trace=None, tool_choice="required", reset_tool_choice=False).run("北京天气")
    assert [body["tool_choice"] for body in fake.requests] == ["required", "required"]
    fake = FakeLLM([{"tool_calls": [("get_weather", {"city": "北京"})]}, "晴。"])
    Agent(fake.client(), "fake-model", registry, trace=None, tool_choice="none").run("北京天气")
    assert [body["tool_choice"] for body in fake.requests] == ["none", "none"]
    fake = FakeLLM([{"tool_calls": [("get_weather", {"city": "北京"})]}, "晴。"])
    Agent(fake.client(), "fake-model", registry, trace=None).run("北京天气")
    assert all("tool_choice" not in body for body in fake.requests)  # None: never sent (notebook 06-08's requests)


def test_a_forced_tool_choice_is_forced_again_in_a_new_run():
    written, registry = shop()
    fake = FakeLLM([{"tool_calls": [("get_weather", {"city": "北京"})]}, "晴。", {"tool_calls": [("get_weather", {"city": "上海"})]}, "晴。"])
    loop = Agent(fake.client(), "fake-model", registry, trace=None, tool_choice="required")
    loop.run("北京天气")
    loop.run("上海天气")
    assert [body["tool_choice"] for body in fake.requests] == ["required", "auto", "required", "auto"]
