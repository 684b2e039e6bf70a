"""course_lib.records: what a loop run leaves behind, and how each record shows itself.

``Step.rows()`` gives the step tables (``tables.steps_frame``) their rows, ``Step.details()``
gives the debugger its ``(label, text)`` rows; both are tested here for every kind of step.
"""

from __future__ import annotations

import pytest

from course_lib.records import (
    STEP_COLUMNS,
    STOP_REASONS,
    ActionStep,
    AnswerStep,
    Detail,
    EmptyStep,
    FinalStep,
    InvalidStep,
    RunResult,
    Step,
    ToolCall,
    ToolCallsStep,
    ToolResult,
    WaitingStep,
    stop_reason_text,
)
from course_lib.replies import cut_text
from course_lib.texts import t

TOKENS = {"prompt_tokens": 90, "completion_tokens": 12}


def weather(call_id="c1", city="北京", observation="北京：晴", recovered=False, **fields):
    call = ToolCall(call_id, "get_weather", {"city": city}, f'{{"city": "{city}"}}', recovered=recovered)
    return ToolResult(call, observation, **fields)


def dropped_calculation():
    return ToolResult.not_run(ToolCall("d1", "calculate", {"expression": "3 * 40"}, '{"expression": "3 * 40"}'), "没有运行：40 …",
                              missing_numbers=["40"])


# One valid record of each kind (the fields each kind must have).
def one_of_each() -> list[Step]:
    return [ToolCallsStep(1, tool_calls=[weather()]), ActionStep(1, action="calculate", observation="300"),
            AnswerStep(1, text="晴"), InvalidStep(1, observation="格式错误"), EmptyStep(1, observation="你的回复是空的。"),
            FinalStep(1, reason="max_steps"), WaitingStep(1, waiting=[ToolResult.not_run(weather().call)])]


def row(step: Step, i: int = 0) -> dict:
    return step.rows()[i]


def only(row: dict) -> dict:
    """The columns of a row that hold something."""
    return {k: v for k, v in row.items() if v not in (None, "")}


# --------------------------------------------------------------------------- the kinds


def test_every_kind_is_a_class_with_its_word():
    kinds = {ToolCallsStep: "tool_calls", ActionStep: "action", AnswerStep: "answer", InvalidStep: "invalid",
             EmptyStep: "empty", FinalStep: "final", WaitingStep: "waiting"}
    for step in one_of_each():
        assert step.kind == kinds[type(step)] == type(step).kind and isinstance(step, Step)
    assert len(one_of_each()) == len(kinds)
    assert issubclass(EmptyStep, InvalidStep)


def test_answer_calls_and_cut_of_each_kind():
    tool_calls, action, answer, invalid, empty, final, waiting = one_of_each()
    assert answer.answer == "晴" and FinalStep(1, text="晴", reason="max_steps").answer == "晴"
    assert final.answer is None
    for step in (action, invalid, empty, tool_calls, waiting):
        assert step.answer is None
    assert ToolCallsStep(1, tool_calls=[weather(), weather("c2", "上海")]).calls == 2
    assert action.calls == 1 and answer.calls == invalid.calls == final.calls == 0 and waiting.calls == 1
    cut = AnswerStep(1, text="晴", finish_reason="length")
    assert cut.cut == cut_text("length") and "max_tokens" in cut.cut
    assert AnswerStep(1, text="晴", finish_reason="stop").cut is None and answer.cut is None


def test_each_kind_must_have_its_own_fields():
    """A record without what its kind needs fails where it is made (a loop's bug), in Chinese."""
    for make in (lambda: ToolCallsStep(1), lambda: ActionStep(1), lambda: AnswerStep(1), lambda: InvalidStep(1),
                 lambda: FinalStep(1, text="晴"), lambda: WaitingStep(1)):
        with pytest.raises(TypeError):
            make()
    for make, field in ((lambda: ToolCallsStep(1, tool_calls=[]), "tool_calls"),
                        (lambda: ToolCallsStep(1, tool_calls=["get_weather"]), "tool_calls"),
                        (lambda: WaitingStep(1, waiting=[]), "waiting"),
                        (lambda: ActionStep(1, action="", observation="300"), "action"),
                        (lambda: AnswerStep(1, text=None), "text"),
                        (lambda: InvalidStep(1, observation=" "), "observation"),
                        (lambda: FinalStep(1, reason="answer"), "reason"),
                        (lambda: AnswerStep(0, text="晴"), "number")):
        with pytest.raises(ValueError, match=field) as caught:
            make()
        assert "步" in str(caught.value)  # the course's language


def test_a_result_holds_its_call_and_one_that_did_not_run_says_so():
    call = ToolCall("c9", "get_weather", {"city": "北京"}, '{"city": "北京"}', recovered=True)
    ran = ToolResult(call, "北京：晴")
    assert (ran.call, ran.id, ran.name, ran.arguments, ran.arguments_text, ran.recovered, ran.ok) == (
        call, "c9", "get_weather", {"city": "北京"}, '{"city": "北京"}', True, True)
    waiting = ToolResult.not_run(call)
    assert (waiting.ok, waiting.observation, waiting.message()) == (False, "", {"role": "tool", "tool_call_id": "c9", "content": ""})
    repeat = ToolResult.not_run(call, "北京：晴\n（重复）", ok=True, repeated=True, first_step=1)
    assert (repeat.ok, repeat.repeated, repeat.first_step, repeat.interrupted, repeat.approval) == (True, True, 1, False, "")


def test_tool_result_message_and_call_text():
    result = weather(ok=False)
    assert result.message() == {"role": "tool", "tool_call_id": "c1", "content": "北京：晴"}
    assert result.call_text == 'get_weather({"city": "北京"})'
    assert (weather().ok, weather().repeated, weather().first_step, weather().missing_numbers) == (True, False, None, [])


# --------------------------------------------------------------------------- rows(): the step tables


def test_rows_have_the_step_columns_in_order():
    for step in one_of_each():
        for r in step.rows():
            assert list(r) == STEP_COLUMNS


def test_rows_of_a_tool_calls_step_one_per_call_reasoning_and_tokens_on_the_first_only():
    step = ToolCallsStep(2, reasoning="查两个城市", finish_reason="tool_calls", **TOKENS,
                         tool_calls=[weather(), weather("c2", "北京", "北京：晴\n（注意）", repeated=True, first_step=1)])
    first, second = step.rows()
    assert only(first) == {"step": 2, "kind": "tool_calls", "reasoning": "查两个城市", "tool": "get_weather",
                           "input": '{"city": "北京"}', "observation": "北京：晴", "repeated": False,
                           "finish_reason": "tool_calls", "prompt_tokens": 90, "completion_tokens": 12}
    assert only(second) == {"step": 2, "kind": "tool_calls", "tool": "get_weather", "input": '{"city": "北京"}',
                            "observation": "北京：晴\n（注意）", "repeated": True, "finish_reason": "tool_calls"}
    assert second["prompt_tokens"] is None and second["reasoning"] is None  # each request counted once


def test_rows_put_the_dropped_calls_first_and_the_tokens_on_them():
    step = ToolCallsStep(1, reasoning="先算", dropped=[dropped_calculation()], requests=2, tool_calls=[weather()], **TOKENS)
    dropped, ran = step.rows()
    assert only(dropped) == {"step": 1, "kind": "dropped", "reasoning": "先算", "tool": "calculate",
                             "input": '{"expression": "3 * 40"}', "observation": "没有运行：40 …",
                             "prompt_tokens": 90, "completion_tokens": 12}
    assert only(ran) == {"step": 1, "kind": "tool_calls", "tool": "get_weather", "input": '{"city": "北京"}',
                         "observation": "北京：晴", "repeated": False}
    # a dropped reply followed by an unusable one: the dropped row, then the step's own row
    invalid = InvalidStep(1, dropped=[dropped_calculation()], error="读不出来", observation="请重写", **TOKENS)
    assert [r["kind"] for r in invalid.rows()] == ["dropped", "invalid"]
    assert invalid.rows()[1]["observation"] == "请重写" and invalid.rows()[1]["prompt_tokens"] is None


def test_rows_of_the_other_kinds_one_each():
    assert only(row(ActionStep(1, thought="算一下", action="calculate", action_input="20 * 15", observation="300",
                               reasoning="想", **TOKENS))) == {
        "step": 1, "kind": "action", "reasoning": "想", "thought": "算一下", "tool": "calculate", "input": "20 * 15",
        "observation": "300", "prompt_tokens": 90, "completion_tokens": 12}
    assert row(ActionStep(1, action="get_weather", action_input={"city": "北京"}, observation="晴"))["input"] == '{"city": "北京"}'
    assert only(row(AnswerStep(2, text="300", thought="知道了", finish_reason="stop"))) == {
        "step": 2, "kind": "answer", "thought": "知道了", "answer": "300", "finish_reason": "stop"}
    assert only(row(InvalidStep(3, error="没有 Action", observation="格式错误：…", thought="嗯"))) == {
        "step": 3, "kind": "invalid", "thought": "嗯", "observation": "格式错误：…"}
    assert only(row(EmptyStep(1, error="回复是空的。", observation="你的回复是空的。"))) == {
        "step": 1, "kind": "empty", "observation": "你的回复是空的。"}
    assert only(row(FinalStep(4, text="晴", thought="最后", reason="max_steps"))) == {
        "step": 4, "kind": "final", "thought": "最后", "answer": "晴"}
    assert only(row(FinalStep(4, reason="repeated_calls"))) == {"step": 4, "kind": "final"}


# --------------------------------------------------------------------------- details(): the debugger


def fields(details: list[Detail]) -> list[tuple[str, str, str]]:
    return [(d.field, d[0], d[1]) for d in details]


def test_detail_is_a_label_text_pair_with_a_field():
    detail = Detail("result", "→ 结果", "300")
    assert detail == ("→ 结果", "300") and tuple(detail) == ("→ 结果", "300") and detail.field == "result"
    label, text = detail
    assert (label, text) == ("→ 结果", "300")


def test_details_of_a_tool_calls_step():
    step = ToolCallsStep(2, reply="我查一下", tool_calls=[weather(), weather("c2", observation="北京：晴", repeated=True, first_step=1)])
    assert fields(step.details()) == [
        ("tool_call", "tool_call", 'get_weather({"city": "北京"})  [id=c1]'),
        ("result", t("debugger.label_result"), "北京：晴"),
        ("tool_call", "tool_call", 'get_weather({"city": "北京"})  [id=c2]'),
        ("result", t("debugger.label_result"), t("debugger.repeated_note", first_step=1) + "北京：晴"),
        ("content", "content", "我查一下"),  # the text written next to the calls
    ]
    recovered = ToolCallsStep(1, reply='{"name": "get_weather", "arguments": {"city": "北京"}}',
                              tool_calls=[weather(recovered=True)])
    assert [d.field for d in recovered.details()] == ["tool_call", "result"]  # the text WAS the call


def test_details_of_a_dropped_reply_come_first_with_a_note():
    step = ToolCallsStep(1, reasoning="先算", dropped=[weather("d0", observation="没有运行：整条回答都丢弃了", ok=False),
                                                     dropped_calculation()], requests=2, tool_calls=[weather()])
    assert fields(step.details())[:4] == [
        ("reasoning", t("debugger.label_reasoning"), "先算"),
        ("dropped", t("debugger.label_dropped"), 'get_weather({"city": "北京"})  没有运行：整条回答都丢弃了'),
        ("dropped", t("debugger.label_dropped"), 'calculate({"expression": "3 * 40"})  没有运行：40 …'),
        ("note", t("debugger.label_note"), t("debugger.resent_note", tool="calculate")),  # names the calculate call
    ]
    assert [d.field for d in step.details()[4:]] == ["tool_call", "result"]


def test_details_of_a_react_action_and_answer():
    action = ActionStep(1, thought="我需要计算", action="calculate", action_input="20 * 15", observation="300")
    assert fields(action.details()) == [("thought", "Thought", "我需要计算"), ("action", "Action", "calculate"),
                                        ("input", "Action Input", "20 * 15"), ("observation", "Observation", "300")]
    blob = ActionStep(1, action="get_weather", action_input={"city": "北京"}, observation="北京：晴")
    assert ("Action Input", '{"city": "北京"}') in blob.details() and "Thought" not in dict(blob.details())
    assert fields(AnswerStep(2, thought="知道了", text="300").details()) == [("thought", "Thought", "知道了"),
                                                                          ("answer", "Answer", "300")]
    assert fields(AnswerStep(2, text="你好").details()) == [("answer", "Answer", "你好")]  # the native answer row


def test_details_of_invalid_empty_and_final_steps():
    invalid = InvalidStep(1, thought="嗯", error="没有找到 Action 行", observation="格式错误：…")
    assert fields(invalid.details()) == [("thought", "Thought", "嗯"), ("error", "Error", "没有找到 Action 行"),
                                         ("correction", t("debugger.label_correction"), "格式错误：…")]
    empty = EmptyStep(1, error="回复是空的。", observation="你的回复是空的。")
    assert [d.field for d in empty.details()] == ["error", "correction"]
    final = FinalStep(3, text="晴", reason="max_steps")
    assert fields(final.details()) == [("answer", "Answer", "晴"), ("note", t("debugger.label_note"), t("debugger.final_request"))]
    none = FinalStep(3, thought="我还要查", reason="max_steps")
    assert fields(none.details())[:2] == [("thought", "Thought", "我还要查"), ("error", "Error", t("loops.final_without_answer"))]


def test_details_of_a_cut_reply_end_with_why_and_a_step_with_nothing_shows_its_reply():
    cut = AnswerStep(1, text="店里有：1. 斯伯丁", finish_reason="length")
    assert fields(cut.details())[-1] == ("cut", t("debugger.label_cut"), cut_text("length"))
    assert fields(AnswerStep(1, text="").details()) == [("content", "content", t("debugger.empty_reply"))]
    assert fields(AnswerStep(1, reply="嗯", text="").details()) == [("content", "content", "嗯")]


# --------------------------------------------------------------------------- the run


def test_run_result_counts_requests_and_calls_of_every_kind():
    steps = [ToolCallsStep(1, requests=2, dropped=[dropped_calculation()], tool_calls=[weather(), weather("c2")]),
             ActionStep(2, action="calculate", observation="300"), InvalidStep(3, observation="格式错误"),
             FinalStep(4, text="晴", reason="max_steps")]
    result = RunResult("q", "native", "晴", "max_steps", steps, [], prompt_tokens=10, completion_tokens=5, seconds=1.26)
    assert result.requests == 5 and result.tool_calls == 3  # the dropped call never ran
    assert result.summary() == {"answer": "晴", "stopped_reason": "max_steps", "requests": 5, "tool_calls": 3,
                                "prompt_tokens": 10, "completion_tokens": 5, "seconds": 1.3}


@pytest.mark.parametrize("reason", sorted(STOP_REASONS))
def test_every_stop_reason_has_its_words(reason):
    assert stop_reason_text(reason) == t(STOP_REASONS[reason]) != t("loops.stop_other")


def test_an_unknown_stop_reason_gets_a_generic_sentence():
    assert stop_reason_text(None) == stop_reason_text("running") == t("loops.stop_other")


def test_an_invalid_step_says_its_error_once():
    from course_lib.records import InvalidStep

    same = InvalidStep(1, error="读不懂", observation="读不懂")
    assert [row.field for row in same.details()] == ["correction"]
    other = InvalidStep(1, thought="想", error="没有 Action", observation="格式错误：没有 Action……")
    assert [row.field for row in other.details()] == ["thought", "error", "correction"]
