"""The checkers of notebook 03 (course_lib.checkers.nb03) on typical right and wrong answers."""

from __future__ import annotations

import json

import pytest

from course_lib.checkers import nb03
from course_lib.tools import WEATHER_TOOL, get_weather


def _currency_tool(**changes):
    tool = {
        "type": "function",
        "function": {
            "name": "convert_currency",
            "description": "Convert an amount of Chinese yuan into USD, EUR or JPY.",
            "parameters": {
                "type": "object",
                "properties": {
                    "amount": {"type": "number", "description": "yuan"},
                    "to_currency": {"type": "string", "enum": ["USD", "EUR", "JPY"], "description": "target currency code"},
                },
                "required": ["amount", "to_currency"],
            },
        },
    }
    params = tool["function"]["parameters"]
    for key, value in changes.items():
        if key == "no_enum":
            del params["properties"]["to_currency"]["enum"]
        elif key == "required":
            params["required"] = value
        elif key == "extra":
            params["properties"]["rate"] = {"type": "number", "description": "x"}
        elif key == "name":
            tool["function"]["name"] = value
        elif key == "no_param_description":
            del params["properties"]["amount"]["description"]
        elif key == "description":
            tool["function"]["description"] = value
        elif key in ("amount_description", "currency_description"):
            params["properties"]["amount" if key == "amount_description" else "to_currency"]["description"] = value
    return tool


@pytest.mark.parametrize(
    "changes",
    [{"no_enum": True}, {"required": ["amount"]}, {"extra": True}, {"name": "currency"}, {"no_param_description": True}],
)
def test_currency_tool_checker_rejects_each_missing_part(changes):
    assert nb03.check_currency_tool(_currency_tool()).passed is True
    assert nb03.check_currency_tool(_currency_tool(**changes)).passed is False


@pytest.mark.parametrize("changes", [
    {"description": "查询一个中国城市现在的天气（天气状况、气温、湿度）。"},   # copied from another tool
    {"description": "这是一个非常有用的工具，请在需要的时候调用它。"},          # long but says nothing
    {"amount_description": "一个数字，例如 100"},                              # does not say what the number is
    {"currency_description": "城市名，例如 北京"},                             # describes something else
])
def test_currency_tool_checker_rejects_a_wrong_description(changes, capsys):
    assert nb03.check_currency_tool(_currency_tool(**changes)).passed is False
    assert "description" in capsys.readouterr().out
    chinese = _currency_tool(description="把人民币金额换算成美元、欧元或日元。",
                             amount_description="人民币金额（元），例如 100", currency_description="目标货币代码")
    assert nb03.check_currency_tool(chinese).passed is True


def test_answer_tool_calls_checker_fails_a_list_written_for_one_input():
    def hard_coded(message, functions):
        return [{"role": "tool", "tool_call_id": "call_weather", "content": get_weather("北京")},
                {"role": "tool", "tool_call_id": "call_add", "content": "5"}]

    def positional(message, functions):  # right for the first input only: the argument names are ignored
        calls = message.tool_calls
        return [{"role": "tool", "tool_call_id": c.id,
                 "content": str(functions[c.function.name](*json.loads(c.function.arguments).values()))} for c in calls]

    assert nb03.check_answer_tool_calls(hard_coded).passed is False
    assert nb03.check_answer_tool_calls(positional).passed is False


def test_answer_tool_calls_checker():
    def good(message, functions):
        return [
            {"role": "tool", "tool_call_id": c.id, "content": str(functions[c.function.name](**json.loads(c.function.arguments)))}
            for c in message.tool_calls
        ]

    def not_a_string(message, functions):
        return [
            {"role": "tool", "tool_call_id": c.id, "content": functions[c.function.name](**json.loads(c.function.arguments))}
            for c in message.tool_calls
        ]

    def only_first(message, functions):
        return good(message, functions)[:1]

    assert nb03.check_answer_tool_calls(good).passed is True
    assert nb03.check_answer_tool_calls(not_a_string).passed is False
    assert nb03.check_answer_tool_calls(only_first).passed is False


def _single_step(answer_all=True, append_assistant=True):
    from course_lib.tools import WEATHER_TOOL

    def single_step(client, question):
        messages = [{"role": "user", "content": question}]
        message = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER_TOOL]).choices[0].message
        if not message.tool_calls:
            return message.content
        if append_assistant:
            messages.append(message)
        calls = message.tool_calls if answer_all else message.tool_calls[:1]
        for call in calls:
            content = get_weather(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        return client.chat.completions.create(model="m", messages=messages, tools=[WEATHER_TOOL]).choices[0].message.content

    return single_step


def test_single_step_checker():
    assert nb03.check_single_step(_single_step()).passed is True
    assert nb03.check_single_step(_single_step(append_assistant=False)).passed is False
    assert nb03.check_single_step(_single_step(answer_all=False)).passed is False


def _single_step_by_hand(call_dict):
    """single_step that writes the assistant message by hand, each call built by ``call_dict(call)``."""

    def single_step(client, question):
        messages = [{"role": "user", "content": question}]
        message = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER_TOOL]).choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append({"role": "assistant", "content": None,
                         "tool_calls": [call_dict(c) for c in message.tool_calls]})
        for call in message.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": get_weather(**json.loads(call.function.arguments))})
        return client.chat.completions.create(model="m", messages=messages, tools=[WEATHER_TOOL]).choices[0].message.content

    return single_step


def test_single_step_checker_accepts_a_hand_written_assistant_message():
    good = _single_step_by_hand(lambda c: {"id": c.id, "type": "function",
                                           "function": {"name": c.function.name, "arguments": c.function.arguments}})
    assert nb03.check_single_step(good).passed is True


@pytest.mark.parametrize("flaw", ["no type", "arguments as a dict"])
def test_single_step_checker_fails_a_call_a_real_endpoint_refuses(flaw, capsys):
    """A real endpoint answers 400 to a tool call without "type" or with "arguments" as an object."""
    if flaw == "no type":
        bad = _single_step_by_hand(lambda c: {"id": c.id, "function": {"name": c.function.name,
                                                                       "arguments": c.function.arguments}})
    else:
        bad = _single_step_by_hand(lambda c: {"id": c.id, "type": "function",
                                              "function": {"name": c.function.name,
                                                           "arguments": json.loads(c.function.arguments)}})
    assert nb03.check_single_step(bad).passed is False
    out = capsys.readouterr().out
    assert ("type" in out) if flaw == "no type" else ("arguments" in out and "字符串" in out)
