"""The checkers of notebook 03 (course_lib.checkers.nb03) on typical right and wrong answers."""

from __future__ import annotations

import copy
import json

import pytest

from course_lib.checkers import nb03
from course_lib.checkers.scripted import ScriptedModel
from course_lib.tools import WEATHER_TOOL, get_weather
from fakes import sdk_message


class BrokenRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


ODD = [None, 5, "text", BrokenRepr(), (x for x in [1])]


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


# ---------------------------------------------------------------------------------------------- 03-1, more


def _edit(tool, path, value):
    """``tool`` with the value at ``path`` (keys from the top; a last key "-" deletes) replaced."""
    tool = copy.deepcopy(tool)
    node = tool
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return tool


DELETE = object()
P = ("function", "parameters")
PROPS = P + ("properties",)


@pytest.mark.parametrize("path,value", [
    (P + ("required",), ["to_currency", "amount"]),                                   # another order
    (P + ("required",), ("amount", "to_currency")),                                   # a tuple
    (PROPS + ("to_currency", "enum"), ("JPY", "USD", "EUR")),                         # a tuple, another order
    (PROPS + ("amount", "minimum"), 0),                                                # more JSON Schema
    (P + ("additionalProperties",), False),
    (("function", "description"), "人民币换算外币"),                                     # short but clear
    (("function", "description"), "把人民币换成外国的钱"),                               # other words
    (("function", "description"), "Converts RMB to foreign money (dollars, euros, yen)."),
    (PROPS + ("amount", "description"), "要换多少人民币"),
    (PROPS + ("amount", "description"), "How much to convert, in CNY"),
    (PROPS + ("to_currency", "description"), "换成哪种钱：USD、EUR 或 JPY"),
    (PROPS + ("to_currency", "description"), "the target currency"),
], ids=["required_order", "required_tuple", "enum_tuple", "minimum", "no_additional", "short",
        "other_words", "english", "amount_words", "amount_english", "currency_words", "currency_english"])
def test_currency_tool_accepts_every_valid_style(path, value):
    assert nb03.check_currency_tool(_edit(_currency_tool(), path, value)).passed is True


@pytest.mark.parametrize("path,value", [
    (P + ("required",), []),                                                           # the template's own value
    (P + ("required",), DELETE),
    (P + ("required",), ["amount", "currency"]),
    (PROPS + ("amount", "type"), "string"),
    (PROPS + ("amount", "type"), "float"),
    (PROPS + ("to_currency", "type"), DELETE),
    (PROPS + ("to_currency", "enum"), ["usd", "eur", "jpy"]),
    (PROPS + ("to_currency", "enum"), ["USD", "EUR", "JPY", "CNY"]),
    (PROPS + ("to_currency", "enum"), ["USD", "EUR"]),
    (PROPS + ("to_currency", "enum"), "USD, EUR, JPY"),
    (("function", "description"), ""),
    (("function", "description"), "None"),                                              # str(None)
    (("function", "description"), DELETE),
    (PROPS + ("amount", "description"), "None"),
    (PROPS + ("to_currency", "description"), ""),
    (P + ("type",), DELETE),
    (("type",), DELETE),
    (("function", "name"), "convert_currency "),
    (("function", "name"), "ConvertCurrency"),
    (PROPS, {}),                                                                        # the template's own value
    (PROPS + ("amount",), "number"),
    (PROPS + ("to_currency", "enum"), {"USD", "EUR", "JPY"}),                          # not JSON
], ids=["required_empty", "required_missing", "required_misspelt", "amount_string", "amount_float", "no_type",
        "enum_lower", "enum_extra", "enum_short", "enum_str", "no_description", "description_none",
        "description_missing", "amount_none", "currency_empty", "params_no_object", "no_function_type",
        "name_space", "name_camel", "no_props", "prop_not_dict", "enum_set"])
def test_currency_tool_rejects_each_broken_part(path, value, capsys):
    assert nb03.check_currency_tool(_edit(_currency_tool(), path, value)).passed is False
    assert "❌" in capsys.readouterr().out


@pytest.mark.parametrize("value", ODD + [json.dumps(_currency_tool()), [_currency_tool()]], ids=lambda v: type(v).__name__)
def test_currency_tool_odd_values_fail_without_raising(value):
    assert nb03.check_currency_tool(value).passed is False


# ---------------------------------------------------------------------------------------------- 03-2, more

def reference_answers(message, functions):
    out = []
    for call in message.tool_calls:
        result = functions[call.function.name](**json.loads(call.function.arguments))
        out.append({"role": "tool", "tool_call_id": call.id, "content": str(result)})
    return out


def as_tuple(message, functions):
    return tuple(reference_answers(message, functions))


def json_for_non_text(message, functions):
    out = []
    for call in message.tool_calls:
        result = functions[call.function.name](**json.loads(call.function.arguments))
        out.append({"tool_call_id": call.id, "role": "tool", "name": call.function.name,
                    "content": result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)})
    return out


def from_dump(message, functions):
    data = message.model_dump()
    return [{"role": "tool", "tool_call_id": c["id"],
             "content": str(functions[c["function"]["name"]](**json.loads(c["function"]["arguments"])))}
            for c in data["tool_calls"]]


@pytest.mark.parametrize("answer", [reference_answers, as_tuple, json_for_non_text, from_dump], ids=lambda f: f.__name__)
def test_answer_tool_calls_accepts_every_style(answer):
    assert nb03.check_answer_tool_calls(answer).passed is True


def with_eval(message, functions):
    return [{"role": "tool", "tool_call_id": c.id,
             "content": str(functions[c.function.name](**eval(c.function.arguments)))} for c in message.tool_calls]


def literal_eval(message, functions):
    import ast

    return [{"role": "tool", "tool_call_id": c.id,
             "content": str(functions[c.function.name](**ast.literal_eval(c.function.arguments)))}
            for c in message.tool_calls]


def reversed_order(message, functions):
    return reference_answers(message, functions)[::-1]


def last_only(message, functions):
    return reference_answers(message, functions)[-1:]


def id_is_name(message, functions):
    return [{**m, "tool_call_id": c.function.name} for m, c in zip(reference_answers(message, functions),
                                                                    message.tool_calls)]


def dumps_everything(message, functions):
    return [{**m, "content": json.dumps(functions[c.function.name](**json.loads(c.function.arguments)),
                                         ensure_ascii=False)}
            for m, c in zip(reference_answers(message, functions), message.tool_calls)]


def repr_content(message, functions):
    return [{**m, "content": repr(functions[c.function.name](**json.loads(c.function.arguments)))}
            for m, c in zip(reference_answers(message, functions), message.tool_calls)]


def first_argument_only(message, functions):
    out = []
    for call in message.tool_calls:
        args = json.loads(call.function.arguments)
        first = next(iter(args))
        out.append({"role": "tool", "tool_call_id": call.id, "content": str(functions[call.function.name](args[first]))})
    return out


def returns_calls(message, functions):
    return message.tool_calls


def role_assistant(message, functions):
    return [{**m, "role": "assistant"} for m in reference_answers(message, functions)]


@pytest.mark.parametrize("answer", [with_eval, literal_eval, reversed_order, last_only, id_is_name, dumps_everything,
                                    repr_content, first_argument_only, returns_calls, role_assistant],
                         ids=lambda f: f.__name__)
def test_answer_tool_calls_rejects_wrong_answers(answer, capsys):
    assert nb03.check_answer_tool_calls(answer).passed is False
    assert "❌" in capsys.readouterr().out


@pytest.mark.parametrize("value", ODD + [[BrokenRepr()], [None]], ids=lambda v: type(v).__name__)
def test_answer_tool_calls_odd_returns_fail_without_raising(value, capsys):
    assert nb03.check_answer_tool_calls(lambda message, functions: value).passed is False
    assert nb03.check_answer_tool_calls(value).passed is False
    assert "Traceback" not in capsys.readouterr().out


def test_answer_tool_calls_checker_is_quick():
    import time

    start = time.perf_counter()
    nb03.check_answer_tool_calls(reference_answers)
    assert time.perf_counter() - start < 2


# ---------------------------------------------------------------------------------------------- 03-3, more

def _loop(client, question, **changes):
    """The reference single_step, with one of the wrong variants a student writes (``changes``)."""
    messages = [{"role": "user", "content": changes.get("question", question)}]
    if changes.get("system"):
        messages.insert(0, {"role": "system", "content": "你是天气助手。"})
    message = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER_TOOL]).choices[0].message
    while message.tool_calls:
        messages.append(message)
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            result = get_weather(args["city"]) if changes.get("city_only") else get_weather(**args)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        message = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER_TOOL]).choices[0].message
        if not changes.get("loop"):
            break
    return message.content


@pytest.mark.parametrize("changes", [{}, {"system": True}, {"loop": True}], ids=["plain", "system", "loop"])
def test_single_step_accepts_every_style(changes):
    assert nb03.check_single_step(lambda client, question: _loop(client, question, **changes)).passed is True


@pytest.mark.parametrize("changes", [{"question": "上海天气怎么样？"}, {"city_only": True}],
                         ids=["hard_coded_question", "unit_ignored"])
def test_single_step_rejects_wrong_answers(changes):
    assert nb03.check_single_step(lambda client, question: _loop(client, question, **changes)).passed is False


def test_single_step_rejects_a_second_request_without_tools_needed():
    def single_step(client, question):
        messages = [{"role": "user", "content": question}]
        first = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER_TOOL]).choices[0].message
        return _loop(client, question) if first.tool_calls else _loop(client, question)
    assert nb03.check_single_step(single_step).passed is False


@pytest.mark.parametrize("value", ODD, ids=lambda v: type(v).__name__)
def test_single_step_odd_returns_fail_without_raising(value, capsys):
    def single_step(client, question):
        _loop(client, question)
        return value

    assert nb03.check_single_step(single_step).passed is False
    assert nb03.check_single_step(value).passed is False
    assert "Traceback" not in capsys.readouterr().out


@pytest.mark.parametrize("description", ["美元金额", "要换算的欧元数", "amount in US dollars", "日元的数目"])
def test_an_amount_described_in_a_foreign_currency_fails(description):
    """The 「元」 of 美元/欧元/日元 is not yuan: the amount is in RMB (issue 42)."""
    result = nb03.check_currency_tool(_currency_tool(amount_description=description))
    assert result.passed is False and result.hint == "check.03.currency_tool.amount_foreign", result.message


@pytest.mark.parametrize("description", ["人民币金额（元），例如 100", "多少元人民币，不是美元", "amount in CNY", "金额（元）"])
def test_an_amount_in_yuan_passes_even_when_it_names_a_foreign_currency(description):
    assert nb03.check_currency_tool(_currency_tool(amount_description=description)).passed is True


@pytest.mark.parametrize("description", ["汇率的额外说明", "评价", "换算后的结果"])
def test_03_1_an_amount_description_about_something_else_fails(description):
    """Issue 54: one character (「额」, 「价」) was enough; an amount must be described as an amount of money."""
    tool = copy.deepcopy(nb03_solution_tool())
    tool["function"]["parameters"]["properties"]["amount"]["description"] = description
    result = nb03.check_currency_tool(tool)
    assert result.passed is False and result.hint == "check.03.currency_tool.11", result.message


def nb03_solution_tool():
    from notebook_cells import load_solution
    return load_solution("03_function_calling", "03-1")["CURRENCY_TOOL"]


SINGLE_STEP = '''
import json
from course_lib.tools import WEATHER_TOOL, get_weather

def single_step(client, question):
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if CONDITION:
        messages.append(message)
        for call in message.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": get_weather(**json.loads(call.function.arguments))})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    return response.choices[0].message.content
'''


@pytest.mark.parametrize("condition,passes", [
    ("message.tool_calls", True),
    ('response.choices[0].finish_reason == "tool_calls"', False),  # providers send "stop" or "length" with calls
    ("message.tool_calls is not None", False),  # ... and tool_calls: [] with a plain text
])
def test_03_3_the_scripted_model_sends_calls_as_providers_do(condition, passes):
    namespace = {"MODEL": "fake-model"}
    exec(SINGLE_STEP.replace("CONDITION", condition), namespace)
    assert nb03.check_single_step(namespace["single_step"]).passed is passes


def test_03_1_an_integer_amount_refuses_cents():
    """The task says "number": an "integer" amount makes a strict API refuse 12.5 yuan (held-out answers, issue 54)."""
    result = nb03.check_currency_tool(_edit(_currency_tool(), PROPS + ("amount", "type"), "integer"))
    assert result.passed is False and result.hint == "check.03.currency_tool.7", result.message
