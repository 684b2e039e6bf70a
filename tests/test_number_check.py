"""The number check (course_lib/number_check.py) and how the native loop uses it (notebook 06, section 5)."""

from __future__ import annotations

from fakes import FakeLLM

from course_lib.agent import RECHECK_MAX_TOKENS, Agent
from course_lib.debugger import AgentDebugger
from course_lib.messages import validate
from course_lib.number_check import invented_numbers, numbers_in, ungrounded_numbers, without_tool
from course_lib.tables import agent_steps_frame
from course_lib.tool_calls import ToolCall
from course_lib.tools import CALCULATOR_TOOL, WEATHER_TOOL
from course_lib.tools.registry import ToolRegistry, default_registry

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
    assert ungrounded_numbers("55 + 55 + 2", messages) == ["55", "2"]  # an error is no source; 2 is not free
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

    table = agent_steps_frame(result.steps)
    assert list(table["kind"][:2]) == ["dropped", "tool_calls"] and table["prompt_tokens"].iloc[0] == 95


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
    assert first.dropped and not first.tool_calls and first.kind == "invalid"
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
