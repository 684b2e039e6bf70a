"""course_runtime/door_witness.py: what the class door keeps of each student's requests for the capstone's check."""

from __future__ import annotations

from course_runtime import door_witness
from course_runtime.door_witness import DoorWitness

RESULT = '[{"product_name": "篮球", "price": 200.0, "stock_quantity": 40}]'


def native_request(result=RESULT):
    return {"messages": [
        {"role": "system", "content": "你是助手"}, {"role": "user", "content": "篮球多少钱？"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "query_by_product_name", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": result}]}


def test_a_native_runs_tool_result_and_tool_name_are_seen_for_that_student_only():
    witness = DoorWitness()
    witness.note("甲", native_request())
    assert witness.saw_text("甲", RESULT) and witness.saw_tool("甲", "query_by_product_name")
    assert not witness.saw_text("乙", RESULT) and not witness.saw_tool("乙", "query_by_product_name")
    assert not witness.saw_text("甲", '[{"product_name": "篮球", "price": 1.0}]')  # made up
    assert not witness.saw_tool("甲", "place_order")
    assert not witness.saw_text("甲", "你是助手")  # the system prompt is the student's own text, not a result


def test_a_react_observation_inside_the_scratchpad_is_seen():
    witness = DoorWitness()
    scratch = f"问题：篮球多少钱？\nThought: 查\nAction: query_by_product_name\nAction Input: 篮球\nObservation: {RESULT}\n"
    witness.note("甲", {"messages": [{"role": "user", "content": scratch}]})
    assert witness.saw_text("甲", RESULT) and witness.saw_text("甲", "  " + RESULT + "\n")


def test_what_is_kept_is_bounded_and_odd_requests_are_ignored(monkeypatch):
    monkeypatch.setattr(door_witness, "MAX_TEXTS", 3)
    witness = DoorWitness()
    for n in range(5):
        witness.note("甲", {"messages": [{"role": "tool", "content": f"结果 {n}" + "x" * 10_000}]})
    assert not witness.saw_text("甲", "结果 0") and witness.saw_text("甲", "结果 4")
    assert all(len(t) <= door_witness.MAX_TEXT_CHARS for t in witness._texts["甲"])
    for odd in (None, [], {"messages": "x"}, {"messages": [1, {"role": "assistant", "tool_calls": [1, {"function": 2}]}]}):
        witness.note("乙", odd)
    assert witness.saw_text("乙", "") and not witness.saw_tool("乙", "x")
