"""The number check (course_lib/number_check.py) and how the native loop uses it (notebook 06, section 5)."""

from __future__ import annotations

import pytest

from fakes import FakeLLM

from course_lib.agent import RECHECK_MAX_TOKENS, Agent
from course_lib.debugger import AgentDebugger
from course_lib.messages import validate
from course_lib.number_check import (check_calls, has_number, invented_numbers, numbers_in, read_numbers,
                                     ungrounded_numbers, without_tool)
from course_lib.records import InvalidStep, ToolCallsStep, ToolResult
from course_lib.tables import steps_frame
from course_lib.tool_calls import ToolCall
from course_lib.tools import CALCULATOR_TOOL, WEATHER_TOOL
from course_lib.tools.registry import Tool, ToolRegistry, default_registry

QUESTION = "买 3 个足球一共多少钱？"
INVENTED = {"tool_calls": [("calculate", {"expression": "3 * 40"})], "usage": {"prompt_tokens": 50, "completion_tokens": 7}}
LOOK_UP = {"tool_calls": [("query_by_product_name", {"product_name": "足球"})],
           "usage": {"prompt_tokens": 45, "completion_tokens": 9}}
GROUNDED = {"tool_calls": [("calculate", {"expression": "3 * 120"})]}


def names(body: dict) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def test_a_number_is_grounded_only_by_a_user_message_or_a_tool_result():
    messages = [{"role": "system", "content": "价格 40 元"},
                {"role": "user", "content": QUESTION},
                {"role": "tool", "tool_call_id": "c1", "content": '[{"product_name": "足球", "price": 120.0}]'},
                {"role": "tool", "tool_call_id": "c2", "content": "错误：算式里的 55 …"}]
    assert ungrounded_numbers("3 * 120", messages) == []             # 3 asked, 120 looked up (120.0 == 120)
    assert ungrounded_numbers("3 * 40", messages) == ["40"]          # 40 only in the system prompt
    # A tool result that is not a result (its id in ``failed``: the tool did not run) is no source; 2 is not free.
    assert ungrounded_numbers("55 + 55 + 2", messages, failed={"c2"}) == ["55", "2"]
    # Which results failed is said by their ids, never guessed from the text ("错误" alone proves nothing).
    assert ungrounded_numbers("55 + 55 + 2", messages) == ["2"]
    assert ungrounded_numbers("3 * 120", messages, failed={"c2"}) == []
    assert ungrounded_numbers("3 * 120", messages, failed={"c1"}) == ["120"]
    assert ungrounded_numbers("(1 + 0) * 3", messages) == []           # 0 and 1 are free
    assert ungrounded_numbers("2 + 2", messages, free={"2"}) == []


def test_chinese_numerals_and_discounts_of_the_user_count():
    assert numbers_in("打八折以后 360 元") == {"8", "0.8", "360"}
    assert numbers_in("八五折") >= {"0.85"} and "2" in numbers_in("两个篮球")
    user = [{"role": "user", "content": "一件商品原价 360 元，打八折以后是多少钱？"}]
    assert ungrounded_numbers("360 * 0.8", user) == []
    assert ungrounded_numbers("360 * 0.7", user) == ["0.7"]


def test_only_readable_calculate_calls_are_checked():
    messages = [{"role": "user", "content": "北京天气"}]
    assert invented_numbers(ToolCall("c", "calculate", {"expression": "25 * 3"}, "{}"), messages) == ["25", "3"]
    assert invented_numbers(ToolCall("c", "get_weather", {"city": "99"}, "{}"), messages) == []
    assert invented_numbers(ToolCall("c", "calculate", None, "{", error="bad JSON"), messages) == []
    tools = [WEATHER_TOOL, CALCULATOR_TOOL]
    assert without_tool(tools) == [WEATHER_TOOL] and tools == [WEATHER_TOOL, CALCULATOR_TOOL]


def test_a_reply_with_invented_numbers_is_dropped_and_the_request_sent_again_without_calculate():
    fake = FakeLLM([INVENTED, LOOK_UP, GROUNDED, "一共 360 元。"])
    lines: list[str] = []
    result = Agent(fake.client(), "fake-model", default_registry(), max_steps=4, trace=lines.append).run(QUESTION)

    assert [("calculate" in names(body)) for body in fake.requests] == [True, False, True, True]
    assert fake.requests[1]["messages"] == fake.requests[0]["messages"]      # the dropped reply left no trace
    assert fake.requests[1]["max_tokens"] == RECHECK_MAX_TOKENS < fake.requests[0]["max_tokens"]
    assert "3 * 40" not in str(result.messages) and validate(result.messages) is None
    assert result.answer == "一共 360 元。" and len(result.steps) == 3 and result.requests == 4

    first = result.steps[0]
    assert first.requests == 2 and [c.arguments_text for c in first.dropped] == ['{"expression": "3 * 40"}']
    assert "40" in first.dropped[0].observation and first.tool_calls[0].name == "query_by_product_name"
    assert (first.prompt_tokens, first.completion_tokens) == (95, 16)            # both requests counted
    assert "3 * 40" in lines[0] and "calculate" in lines[1] and "query_by_product_name" in lines[2]

    assert isinstance(first, ToolCallsStep)
    assert first.dropped[0].ok is False and first.dropped[0].missing_numbers == ["40"]

    table = steps_frame(result.steps)
    assert list(table["kind"][:2]) == ["dropped", "tool_calls"] and table["prompt_tokens"].iloc[0] == 95
    assert table["input"].iloc[0] == '{"expression": "3 * 40"}' and table["tool"].iloc[1] == "query_by_product_name"


def test_grounded_calculations_and_other_tools_go_through_with_one_request():
    fake = FakeLLM([{"tool_calls": [("calculate", {"expression": "20 * 15"})]}, "300"])
    result = Agent(fake.client(), "fake-model", default_registry(), trace=None).run("20 * 15 等于多少？")
    assert len(fake.requests) == 2 and all("calculate" in names(body) for body in fake.requests)
    assert result.requests == 2 and not any(s.dropped for s in result.steps)


def test_check_numbers_false_runs_the_invented_calculation():
    fake = FakeLLM([INVENTED, "一共 120 元。"])
    result = Agent(fake.client(), "fake-model", default_registry(), trace=None, check_numbers=False).run(QUESTION)
    assert result.steps[0].tool_calls[0].observation == "120" and len(fake.requests) == 2


def test_with_calculate_as_the_only_tool_the_call_runs_as_asked():
    """Nothing is left to look a number up with: the check does not apply."""
    fake = FakeLLM([INVENTED, "大约 120 元。"])
    registry = ToolRegistry([default_registry().get("calculate")])
    result = Agent(fake.client(), "fake-model", registry, trace=None).run(QUESTION)
    assert len(fake.requests) == 2 and all("tools" in body for body in fake.requests)
    assert result.steps[0].tool_calls[0].observation == "120" and not result.steps[0].dropped


def test_a_calculation_written_as_text_in_the_resent_reply_is_not_run():
    """The re-sent request offered no calculate: a calculate call written as JSON text is not
    recovered and run; it gets the corrective message of an unusable reply instead."""
    text_call = '{"name": "calculate", "arguments": {"expression": "3 * 40"}}'
    fake = FakeLLM([INVENTED, text_call, "我查一下。"], default="一共 360 元。")
    result = Agent(fake.client(), "fake-model", default_registry(), trace=None, max_steps=3).run(QUESTION)
    first = result.steps[0]
    assert first.dropped and isinstance(first, InvalidStep) and first.kind == "invalid"
    assert result.tool_calls == 0  # nothing ran in that step
    assert "3 * 40" not in str([m for m in result.messages if m["role"] == "tool"])
    assert validate(result.messages) is None


def test_numbers_of_any_length_and_digit_written_discounts_and_percentages():
    big = "9" * 400
    assert ungrounded_numbers(f"{big} + 1", [{"role": "tool", "tool_call_id": "c", "content": big}]) == []
    assert ungrounded_numbers(f"{big}0 * 2", []) == [f"{big}0", "2"]
    assert {"0.8", "0.2", "0.85"} <= numbers_in("打8折，再减 20%，或者八五折")


def test_a_named_tool_choice_for_the_removed_tool_is_not_sent_again():
    choice = {"type": "function", "function": {"name": "calculate"}}
    fake = FakeLLM([INVENTED, LOOK_UP, "120 元"])
    Agent(fake.client(), "fake-model", default_registry(), trace=None, tool_choice=choice, max_steps=2).run(QUESTION)
    assert fake.requests[0]["tool_choice"] == choice and "tool_choice" not in fake.requests[1]


def test_the_debugger_shows_the_dropped_call_and_counts_both_requests():
    fake = FakeLLM([INVENTED, LOOK_UP, GROUNDED, "一共 360 元。"])
    debugger = AgentDebugger(Agent(fake.client(), "fake-model", default_registry(), max_steps=4), QUESTION)
    info = debugger.step()
    labels = [label for label, _ in info.details]
    assert info.model_calls == 2 and labels[0] == "丢弃的调用" and "3 * 40" in info.details[0][1]
    assert "tool_call" in labels and "3 * 40" not in str(debugger.messages)


def test_check_calls_drops_the_whole_reply_as_tool_results_that_did_not_run():
    messages = [{"role": "user", "content": QUESTION}]
    calls = [ToolCall("c1", "query_by_product_name", {"product_name": "足球"}, '{"product_name": "足球"}'),
             ToolCall("c2", "calculate", {"expression": "3 * 40"}, '{"expression": "3 * 40"}')]
    dropped = check_calls(calls, messages)
    assert [type(d) for d in dropped] == [ToolResult, ToolResult]
    assert [(d.id, d.name, d.arguments_text, d.ok) for d in dropped] == [
        ("c1", "query_by_product_name", '{"product_name": "足球"}', False), ("c2", "calculate", '{"expression": "3 * 40"}', False)]
    assert dropped[0].missing_numbers == [] and "calculate" in dropped[0].observation   # dropped with the other call
    assert dropped[1].missing_numbers == ["40"] and "40" in dropped[1].observation
    assert check_calls(calls[:1], messages) == []                                        # nothing to check: the reply stands
    grounded = [*messages, {"role": "tool", "tool_call_id": "t1", "content": "价格 40 元"}]
    assert check_calls(calls, grounded) == []
    assert [d.missing_numbers for d in check_calls(calls, grounded, failed={"t1"})] == [[], ["40"]]  # t1 did not run


def test_a_failed_tool_result_grounds_no_number_in_the_loop():
    """The native loop passes the ids of its tool results with ok False to the number check: the error
    text of an unknown tool (here its name holds a 40) grounds nothing."""
    unknown = {"tool_calls": [("price40", {"product_name": "足球"})]}
    fake = FakeLLM([unknown, INVENTED, LOOK_UP, "一共 360 元。"])
    result = Agent(fake.client(), "fake-model", default_registry(), max_steps=4, trace=None).run(QUESTION)
    first, second = result.steps[0], result.steps[1]
    assert first.tool_calls[0].ok is False and "40" in first.tool_calls[0].observation
    assert {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": first.tool_calls[0].observation} in result.messages
    assert [d.missing_numbers for d in second.dropped] == [["40"]] and second.requests == 2
    assert [("calculate" in names(body)) for body in fake.requests] == [True, True, False, True]
    assert result.answer == "一共 360 元。"
    # The same tool result from a tool that ran would ground the 40: the calculation runs as asked.
    registry = default_registry()
    registry.add(Tool("price40", lambda product_name: "错误：价格表第 40 行", {
        "type": "function", "function": {"name": "price40", "description": "价格",
                                         "parameters": {"type": "object", "properties": {"product_name": {"type": "string"}},
                                                        "required": ["product_name"]}}}))
    fake = FakeLLM([unknown, INVENTED, "一共 120 元。"])
    result = Agent(fake.client(), "fake-model", registry, max_steps=4, trace=None).run(QUESTION)
    assert result.steps[0].tool_calls[0].ok is True and not result.steps[1].dropped
    assert result.steps[1].tool_calls[0].observation == "120" and len(fake.requests) == 3


# --------------------------------------------------------------------------- issue 22: thousands separators

BUDGET = "预算 2,000 元，买 3 个 40 元的篮球还剩多少"


@pytest.mark.parametrize("text, number", [
    ("预算 2,000 元", "2000"), ("预算 2，000 元", "2000"), ("预算２，０００元", "2000"),
    ("人口 12,345,678", "12345678"), ("海拔 8,848.86 米", "8848.86"), ("３００元", "300"),
])
def test_a_number_with_thousands_separators_is_one_number(text, number):
    assert number in numbers_in(text) and read_numbers(text) == [number]
    assert has_number(text, number)


@pytest.mark.parametrize("text, numbers", [
    ("1,2,3", ["1", "2", "3"]),          # groups of one digit: a list
    ("3, 40", ["3", "40"]),              # a space after the comma: a list
    ("买 3，40 元的", ["3", "40"]),
    ("12,34", ["12", "34"]),
    ("1,2345", ["1", "2345"]),           # a group of four digits is no thousands group
    ("1234,567", ["1234", "567"]),       # nor is a first group of four
    ("2,000,00", ["2000", "00"]),
])
def test_lists_and_other_groups_are_not_merged(text, numbers):
    assert read_numbers(text) == numbers


def test_a_budget_written_with_a_thousands_comma_grounds_the_calculation():
    """2,000 was read as 2 and 0: the model's right calculation was dropped as using an invented 2000."""
    call = {"tool_calls": [("calculate", {"expression": "2000 - 3 * 40"})]}
    fake = FakeLLM([call, "还剩 1880 元。"])
    result = Agent(fake.client(), "fake-model", default_registry(), trace=None).run(BUDGET)
    first = result.steps[0]
    assert not first.dropped and first.tool_calls[0].observation == "1880"
    assert len(fake.requests) == 2 and "calculate" in names(fake.requests[1])
    assert ungrounded_numbers("2000 - 3 * 40", [{"role": "user", "content": "预算２，０００元，买 3 个 40 元的"}]) == []



def test_a_long_run_of_digits_is_read_in_linear_time():
    """A student's submission may hold 60,000 digits in a row: the percent pattern once tried it from every digit
    (82 s on the course's 2-core machine); now it starts a number only where no digit or point comes before."""
    import time

    from course_lib.number_check import numbers_in

    started = time.monotonic()
    found = numbers_in("9" * 60_000 + "%")
    assert time.monotonic() - started < 5  # quadratic took 82 s; linear takes milliseconds
    assert len(found) == 2  # the run, and the run as a percentage
    assert numbers_in("打 8 折，20% 和 1.5%") >= {"0.8", "0.2", "0.015", "20", "1.5"}
