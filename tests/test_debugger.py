"""The step-through debugger: AgentDebugger logic and DebuggerView handlers, on a fake server.

The buttons are clicked programmatically (``Button.click()`` runs the same
handlers a browser click runs) and the state is checked.
"""

from __future__ import annotations

import httpx2
import pytest

from fakes import FILTERED, FakeLLM, no_choices

from course_lib.agent import Agent
from course_lib.debugger import FIELD_COLOURS, AgentDebugger, DebuggerView, debugger_view, details_html
from course_lib.records import Detail, FinalStep
from course_lib.react import JsonReAct, LineReAct

ACTION = "Thought: 我需要计算\nAction: calculate: 20 * 15\nPAUSE"
ANSWER = "Thought: 我知道答案了\nAnswer: 300"


def line_debugger(*replies, max_steps=None):
    fake = FakeLLM(list(replies))
    loop = LineReAct(fake.client(), "fake-model", trace=print)
    return fake, AgentDebugger(loop, "20 * 15 等于多少？", max_steps=max_steps)


# --------------------------------------------------------------------------- logic, ReAct (notebook 05)


def test_one_step_is_one_model_call_with_its_tool():
    fake, dbg = line_debugger(ACTION, ANSWER)
    assert [m["role"] for m in dbg.messages] == ["system"] and dbg.steps == [] and not dbg.done
    info = dbg.step()
    assert len(fake.requests) == 1 and info.model_calls == 1
    assert [m["role"] for m in dbg.messages] == ["system", "user", "assistant"]
    assert dbg.highlight == info.new_indices == [1, 2]
    assert dict(info.details) == {"Thought": "我需要计算", "Action": "calculate", "Action Input": "20 * 15", "Observation": "300"}
    assert info.prompt_tokens > 0 and info.completion_tokens == 7 and dbg.total_tokens == info.prompt_tokens + 7
    assert info.log.startswith("[步 1/")  # the loop's trace line is captured, not printed into the void
    assert not dbg.done and dbg.stop_text() == ""


def test_steps_until_the_answer_then_stops():
    fake, dbg = line_debugger(ACTION, ANSWER)
    dbg.step()
    info = dbg.step()
    assert fake.requests[1]["messages"][-1] == {"role": "user", "content": "Observation: 300"}
    assert dbg.done and dbg.stopped_reason == "answer" and "最终答案" in dbg.stop_text()
    assert dbg.answer == "300" and ("Answer", "300") in info.details
    assert dbg.step() is None and len(fake.requests) == 2  # nothing more is sent


def test_max_steps_is_the_loops_limit_and_editable():
    fake, dbg = line_debugger(ACTION, ACTION, "Answer: 300", max_steps=4)
    assert dbg.limit_name == "max_steps" and dbg.loop.max_steps == 4 == dbg.max_steps
    dbg.max_steps = 1
    assert dbg.loop.max_steps == 1
    dbg.max_steps = 0
    assert dbg.loop.max_steps == 1  # never below 1
    dbg.step()
    info = dbg.step()  # the limit's last request
    assert info.step.kind == "final" and dbg.done and dbg.stopped_reason == "max_steps"
    assert info.details[:2] == [("Thought", "我需要计算"), ("Error", "最后一次请求也没有给出答案")]  # an Action is no answer
    assert "max_steps" in dbg.stop_text()


def test_run_to_end_and_reset():
    fake, dbg = line_debugger(ACTION, ANSWER, ACTION)
    seen = []
    assert dbg.run_to_end(on_step=seen.append) == 2 and [s.number for s in seen] == [1, 2] and dbg.done
    dbg.reset()
    assert dbg.steps == [] and not dbg.done and dbg.total_tokens == 0 and [m["role"] for m in dbg.messages] == ["system"]
    dbg.step()
    assert fake.requests[2]["messages"][1]["content"] == "Question: 20 * 15 等于多少？"


def test_an_api_error_is_kept_and_the_step_can_be_retried():
    fake, dbg = line_debugger(httpx2.Response(500, json={"error": {"message": "server busy"}}), ACTION)
    assert dbg.step() is None and "server busy" in dbg.error and dbg.steps == []
    assert dbg.step() is not None and dbg.error is None and len(dbg.steps) == 1


def test_json_protocol_highlights_the_rewritten_scratchpad():
    fake = FakeLLM(['Thought: 算一下\nAction:\n```json\n{"action": "calculate", "action_input": "2+3"}\n```', "Final Answer: 5"])
    dbg = AgentDebugger(JsonReAct(fake.client(), "fake-model", trace=None), "2+3=?")
    assert [m["role"] for m in dbg.messages] == ["system", "user"]
    dbg.step()
    dbg.step()
    assert [m["role"] for m in dbg.messages] == ["system", "user", "assistant"]
    assert dbg.highlight == [1, 2]  # the one user message changed (scratchpad), the reply is new
    assert "Observation: 5" in dbg.messages[1]["content"]


def test_a_loop_without_the_interface_is_refused():
    with pytest.raises(TypeError, match="start"):
        AgentDebugger(object(), "q")


# --------------------------------------------------------------------------- logic, the native loop agent.Agent (notebook 06)


def agent_debugger(*replies, max_steps=5, question="北京和上海天气怎么样？"):
    fake = FakeLLM(list(replies))
    return fake, AgentDebugger(Agent(fake.client(), "fake-model", max_steps=max_steps), question)


def test_native_loop_shows_tool_calls_and_results():
    fake, dbg = agent_debugger(
        {"tool_calls": [("get_weather", {"city": "北京"}), ("get_weather", {"city": "上海"})]},
        "北京晴，上海多云。",
    )
    assert dbg.limit_name == "max_steps" and dbg.max_steps == 5
    assert [m["role"] for m in dbg.messages] == ["system", "user"]
    info = dbg.step()
    assert len(fake.requests) == 1 and info.model_calls == 1 and "tools" in fake.requests[0]
    assert [m["role"] for m in dbg.messages] == ["system", "user", "assistant", "tool", "tool"]
    assert dbg.highlight == [2, 3, 4]
    assert [label for label, _ in info.details] == ["tool_call", "→ 结果", "tool_call", "→ 结果"]
    assert info.details[0][1].startswith('get_weather({"city": "北京"})') and "北京" in info.details[1][1]
    assert info.prompt_tokens > 0 and info.completion_tokens == 7
    assert info.log.startswith("[步 1/5] 调用工具 get_weather")
    info = dbg.step()
    assert dbg.done and dbg.stopped_reason == "answer" and dbg.answer == "北京晴，上海多云。"
    # the native answer row is labelled "Answer" (as in the ReAct loops; it was "content")
    assert info.details == [("Answer", "北京晴，上海多云。")] and dbg.highlight == [5]
    assert [d.field for d in info.details] == ["answer"]


def test_native_loop_stopped_by_max_steps_says_why():
    call = {"tool_calls": [("get_weather", {"city": "火星"})]}
    fake, dbg = agent_debugger(call, call, "我查不到永远不下雨的城市。", max_steps=2, question="找一个永远不会下雨的城市")
    dbg.step()
    info = dbg.step()  # the second request: the limit is reached, a user message is appended
    labels = [label for label, _ in info.details]
    assert "下一步" in labels and dbg.messages[-1]["role"] == "user" and not dbg.done
    assert info.details[-1].field == "next" and dbg.messages[-1]["content"] in info.details[-1][1]
    assert "与第 1 步的调用相同" in dict(info.details)["→ 结果"]  # the repeat was not run again
    info = dbg.step()
    assert "tools" not in fake.requests[2] and "tool_choice" not in fake.requests[2]
    assert dbg.done and dbg.stopped_reason == "max_steps" and "max_steps" in dbg.stop_text()
    assert isinstance(info.step, FinalStep) and info.step.reason == "max_steps"
    assert info.details == [("Answer", "我查不到永远不下雨的城市。"), ("说明", "达到上限后的最后一次请求：不再运行任何工具，这次的回答就是最终答案")]
    assert dbg.step() is None and len(fake.requests) == 3


def test_native_loop_max_steps_edited_between_steps():
    call = {"tool_calls": [("get_weather", {"city": "北京"})]}
    fake, dbg = agent_debugger(call, "北京晴。", max_steps=5)
    dbg.step()
    dbg.max_steps = 1  # the teacher lowers the limit in the middle of a run
    assert dbg.loop.max_steps == 1
    dbg.step()  # ... and the loop obeys it at its next check
    assert dbg.done and len(fake.requests) == 2


def test_a_loop_needs_start_step_and_result():
    class NoResult:
        done = False

        def start(self, question):
            pass

        def step(self):
            pass

    with pytest.raises(TypeError, match="result"):
        AgentDebugger(NoResult(), "q")


def test_native_loop_shows_the_corrective_message_of_an_unusable_reply():
    fake, dbg = agent_debugger("", "好的。")
    info = dbg.step()
    assert info.step.kind == "empty" and dbg.messages[-1] == {"role": "user", "content": info.step.observation}
    assert ("纠正消息", info.step.observation) in info.details
    assert {d.field for d in info.details} >= {"correction"}


def test_each_row_is_coloured_by_its_field_never_by_its_label():
    rows = [Detail("thought", "思路", "x"), Detail("result", "Thought", "y"), Detail("no_such_field", "z", "w")]
    page = details_html(rows)
    assert page.index(FIELD_COLOURS["thought"]) < page.index(FIELD_COLOURS["result"]) < page.index("#f3f4f6")
    assert rows[0] == ("思路", "x") and rows[0].field == "thought"


# --------------------------------------------------------------------------- the view


def test_view_buttons_drive_the_debugger():
    fake, dbg = line_debugger(ACTION, ANSWER, ACTION, ANSWER)
    view = debugger_view(dbg)
    assert isinstance(view, DebuggerView) and "course-debugger" in view.widget._dom_classes
    assert view.max_steps.description == "max_steps" and view.max_steps.value == dbg.loop.max_steps
    assert "还没有开始" in view.details.value and view.chain.value.count("<tr") >= 2

    rows_before = view.chain.value.count("<tr")
    view.next_button.click()
    assert len(dbg.steps) == 1 and view.chain.value.count("<tr") > rows_before
    assert "#fde68a" in view.chain.value  # the new rows are highlighted
    assert "Thought" in view.details.value and "calculate" in view.details.value and "Observation" in view.details.value
    assert "第 <b>1</b> 步" in view.status.value and "tokens" in view.status.value
    assert "[步 1/" in view.log.value

    view.run_button.click()
    assert dbg.done and "已结束" in view.status.value and "最终答案" in view.status.value
    assert view.next_button.disabled and view.run_button.disabled and not view.reset_button.disabled

    view.reset_button.click()
    assert dbg.steps == [] and not view.next_button.disabled and "还没有开始" in view.details.value
    view.max_steps.value = 2
    assert dbg.loop.max_steps == 2 and "max_steps=2" in view.status.value
    view.max_steps.value = 0
    assert view.max_steps.value == 2 and dbg.loop.max_steps == 2  # refused, put back
    view.run_button.click()
    assert dbg.done and len(fake.requests) == 4


def test_view_shows_errors_instead_of_dying():
    fake, dbg = line_debugger(httpx2.ConnectError("connection refused"), ACTION)
    view = DebuggerView(dbg)
    view.next_button.click()
    assert "⚠️" in view.status.value and "refused" in view.status.value and not view.next_button.disabled
    view.next_button.click()
    assert "⚠️" not in view.status.value and len(dbg.steps) == 1


def test_view_shows_busy_state_while_waiting():
    seen = []

    class Probe(FakeLLM):
        def __call__(self, request):
            seen.append((view.status.value, view.next_button.disabled, view.reset_button.disabled))
            return super().__call__(request)

    fake = Probe([ACTION])
    view = debugger_view(AgentDebugger(LineReAct(fake.client(), "fake-model", trace=None), "20*15?"))
    view.next_button.click()
    status, next_disabled, reset_disabled = seen[0]
    assert "⏳ 第 1 步：等待模型" in status and next_disabled and reset_disabled
    assert not view.next_button.disabled


def test_plain_text_and_display_bundle():
    fake, dbg = line_debugger(ACTION)
    view = DebuggerView(dbg)
    view.next_button.click()
    text = str(view)
    assert text.startswith("AgentDebugger: 20 * 15 等于多少？ | steps=1") and "<- new" in text
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and bundle["text/plain"] == text


def test_view_on_the_native_loop():
    fake, dbg = agent_debugger({"tool_calls": [("get_weather", {"city": "北京"})]}, "北京晴。", max_steps=3)
    view = DebuggerView(dbg)
    assert view.max_steps.description == "max_steps" and view.max_steps.value == 3
    view.next_button.click()
    assert "tool_call" in view.details.value and "get_weather" in view.details.value and "→ 结果" in view.details.value
    assert "get_weather" in view.chain.value and "[步 1/3] 调用工具 get_weather" in view.log.value
    view.next_button.click()
    assert "已结束" in view.status.value and "stopped_reason=&#x27;answer&#x27;" in view.status.value


def test_the_debugger_shows_a_cut_answer():
    fake, dbg = line_debugger({"content": "Answer: …店里有三种篮球：1. 斯伯丁 199 元；2. 李宁", "finish_reason": "length"})
    info = dbg.step()
    assert dbg.done and dbg.stopped_reason == "length" and "截断" in dbg.stop_text()
    assert dict(info.details)["⚠️ 截断"].startswith("回复被截断了")


def test_the_debugger_shows_a_cut_native_answer():
    fake = FakeLLM([{"content": "…店里有三种篮球：1. 斯伯丁 199 元；2. 李宁", "finish_reason": "length"}])
    dbg = AgentDebugger(Agent(fake.client(), "fake-model", trace=print), "店里有哪些篮球？")
    info = dbg.step()
    assert dbg.stopped_reason == "length" and "max_tokens" in dict(info.details)["⚠️ 截断"]


def test_the_debugger_shows_the_thinking_apart():
    fake, dbg = line_debugger("<think>Action: calculate: 1+1 不对</think>\n" + ACTION, ANSWER)
    info = dbg.step()
    details = dict(info.details)
    assert details["思考（reasoning）"] == "Action: calculate: 1+1 不对" and details["Action Input"] == "20 * 15"
    assert list(details)[0] == "思考（reasoning）"


def test_a_reply_without_choices_is_shown_and_the_step_can_be_retried():
    fake, dbg = line_debugger(ACTION, no_choices(prompt_filter_results=FILTERED), ANSWER)
    dbg.step()
    messages = [dict(m) for m in dbg.messages]
    assert dbg.step() is None and dbg.error.startswith("ReplyError: 服务器返回了") and "prompt_filter_results" in dbg.error
    assert [dict(m) for m in dbg.messages] == messages and len(dbg.steps) == 1
    assert dbg.step() is not None and dbg.done and dbg.answer == "300"
