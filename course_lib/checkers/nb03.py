"""Checkers for notebook 03 (single-step function calling).

03-1 and 03-2 check plain data and plain functions.  03-3 checks code that
talks to a model; it gets a ``ScriptedModel`` client (see ``scripted.py``)
whose replies are fixed, because what is being checked is how the code handles
a tool call, not whether a real model decides to make one.
"""

from __future__ import annotations

import json
import re

from openai.types.chat import ChatCompletionMessage

from ..messages import normalize
from ..tools import get_weather
from . import CheckResult, exercise, report, safely, t
from .scripted import ScriptedModel

CURRENCIES = {"USD", "EUR", "JPY"}
# What each description must talk about (Chinese or English), so that a description
# copied from another tool, or one that does not say what a parameter is, fails.
ABOUT_CURRENCY = re.compile(r"货币|币种|汇率|换算|兑换|外币|美元|欧元|日元|USD|EUR|JPY|currenc|exchange|dollar|euro|yen",
                            re.IGNORECASE)
ABOUT_AMOUNT = re.compile(r"金额|钱|数额|人民币|元|CNY|RMB|yuan|amount|money|sum", re.IGNORECASE)


@exercise("03-1")
def check_currency_tool(tool: object) -> CheckResult:
    """Exercise 03-1: ``CURRENCY_TOOL`` is a complete schema for ``convert_currency(amount, to_currency)``:
    the right name, a description, ``amount`` (number) and ``to_currency`` (string with
    enum USD/EUR/JPY), both described, both required, nothing else."""
    if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(tool.get("function"), dict):
        return report(False, t("check.03.currency_tool.1"))
    fn = tool["function"]
    if fn.get("name") != "convert_currency":
        return report(False, t("check.03.currency_tool.2", name=repr(fn.get('name'))))
    description = fn.get("description")
    if not isinstance(description, str) or len(description.strip()) < 8:
        return report(False, t("check.03.currency_tool.3"))
    if not ABOUT_CURRENCY.search(description):
        return report(False, t("check.03.currency_tool.4", description=repr(description)))
    params = fn.get("parameters")
    if not isinstance(params, dict) or params.get("type") != "object":
        return report(False, t("check.03.currency_tool.5"))
    props = params.get("properties")
    if not isinstance(props, dict) or set(props) != {"amount", "to_currency"}:
        got = sorted(props) if isinstance(props, dict) else props
        return report(False, t("check.03.currency_tool.6", got=got))
    amount, currency = props["amount"], props["to_currency"]
    if not isinstance(amount, dict) or amount.get("type") not in {"number", "integer"}:
        return report(False, t("check.03.currency_tool.7"))
    if not isinstance(currency, dict) or currency.get("type") != "string":
        return report(False, t("check.03.currency_tool.8"))
    enum = currency.get("enum")
    if not isinstance(enum, list) or set(enum) != CURRENCIES:
        return report(False, t("check.03.currency_tool.9", sorted_currencies=sorted(CURRENCIES), enum=repr(enum)))
    for name, spec in props.items():
        if not isinstance(spec.get("description"), str) or not spec["description"].strip():
            return report(False, t("check.03.currency_tool.10", name=name))
    if not ABOUT_AMOUNT.search(amount["description"]):
        return report(False, t("check.03.currency_tool.11", description=repr(amount['description'])))
    if not ABOUT_CURRENCY.search(currency["description"]):
        return report(False, t("check.03.currency_tool.12", description=repr(currency['description'])))
    required = params.get("required")
    if not isinstance(required, list) or set(required) != {"amount", "to_currency"}:
        return report(False, t("check.03.currency_tool.13", required=repr(required)))
    try:
        json.dumps(tool)
    except (TypeError, ValueError) as exc:
        return report(False, t("check.03.currency_tool.14", exc=exc))
    return report(True, t("check.03.currency_tool.15"))


def _call(call_id: str, name: str, arguments: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# Exercise 03-2 cases: (tool calls as (id, name, arguments JSON), the functions, the contents expected).
# Different ids, tools, argument types and lengths, so a list written for one case fails the others.
def _multiply(a: float, b: float) -> float:
    return a * b


def _subtract(a: float, b: float) -> float:
    return a - b


def _answer_cases() -> list[tuple[list[tuple[str, str, str]], dict, list[str]]]:
    return [
        ([("call_weather", "get_weather", '{"city": "北京"}'), ("call_add", "add", '{"a": 2, "b": 3}')],
         {"get_weather": get_weather, "add": lambda a, b: a + b},
         [get_weather("北京"), "5"]),
        ([("call_7f3a", "multiply", '{"a": 6, "b": 7}'),
          ("call_9c1e", "get_weather", '{"city": "成都", "unit": "fahrenheit"}'),
          ("call_02bd", "subtract", '{"b": 2, "a": 1.5}')],
         {"get_weather": get_weather, "multiply": _multiply, "subtract": _subtract},
         ["42", get_weather("成都", "fahrenheit"), "-0.5"]),
        ([("tool_call_only_one", "get_weather", '{ "city" : "昆明" }')],
         {"get_weather": get_weather},
         [get_weather("昆明")]),
    ]


@exercise("03-2")
def check_answer_tool_calls(answer_tool_calls: object) -> CheckResult:
    """Exercise 03-2: ``answer_tool_calls(message, functions)`` returns one
    ``{"role": "tool", "tool_call_id", "content": <str>}`` per call of the SDK message,
    in order, after ``json.loads`` of the arguments and running ``functions[name](**args)``.

    Tried on three messages (1-3 calls, different ids, tools and argument types)."""
    if not callable(answer_tool_calls):
        return report(False, t("check.03.answer_tool_calls.1"))
    for calls, functions, contents in _answer_cases():
        message = ChatCompletionMessage.model_validate(
            {"role": "assistant", "content": None, "tool_calls": [_call(*call) for call in calls]}
        )
        described = ", ".join(f"{name}({arguments})" for _, name, arguments in calls)
        got, error = safely(answer_tool_calls, message, functions)
        if error:
            return report(False, t("check.03.answer_tool_calls.2", described=described, error=error))
        want = [{"role": "tool", "tool_call_id": call[0], "content": content} for call, content in zip(calls, contents)]
        if not isinstance(got, list) or len(got) != len(want):
            n = len(got) if isinstance(got, list) else type(got).__name__
            return report(False, t("check.03.answer_tool_calls.3", n_want=len(want), described=described, n=n))
        for i, (g, w) in enumerate(zip(got, want)):
            if not isinstance(g, dict) or g.get("role") != "tool":
                return report(False, t("check.03.answer_tool_calls.4", value=i + 1, g=repr(g)))
            if g.get("tool_call_id") != w["tool_call_id"]:
                return report(False, t("check.03.answer_tool_calls.5", value=i + 1, tool_call_id=repr(w['tool_call_id'])))
            if not isinstance(g.get("content"), str):
                return report(False, t("check.03.answer_tool_calls.6", value=i + 1, name=type(g.get('content')).__name__))
            if g["content"] != w["content"]:
                return report(False, t("check.03.answer_tool_calls.7", described=described, value=i + 1, content=repr(w['content']), content2=repr(g['content'])))
    return report(True, t("check.03.answer_tool_calls.8"))


def _role_list(messages: list[dict]) -> list[str]:
    return [m.get("role", "?") for m in messages]


@exercise("03-3")
def check_single_step(single_step: object) -> CheckResult:
    """Exercise 03-3: ``single_step(client, question)`` runs one round of the lifecycle:
    request with tools -> if tool_calls: append the assistant message, one tool reply per id,
    second request -> return the final text; without tool_calls return the text at once.

    Runs against three scripted conversations (one call, two parallel calls, no call);
    every request must be one a strict endpoint accepts as sent (``ScriptedModel.invalid_request``).
    """
    if not callable(single_step):
        return report(False, t("check.03.single_step.1"))

    # 1) one tool call, then an answer
    script = ScriptedModel([{"tool_calls": [("get_weather", {"city": "上海"})]}, "上海现在多云，28°C。"])
    answer, error = safely(single_step, script.client(), "上海天气怎么样？")
    if error:
        return report(False, t("check.03.single_step.2", error=error))
    if not script.requests:
        return report(False, t("check.03.single_step.3"))
    first = script.requests[0]
    names = [((tool.get("function") or {}).get("name")) for tool in first.get("tools") or []]
    if "get_weather" not in names:
        return report(False, t("check.03.single_step.4"))
    if len(script.requests) != 2:
        return report(
            False,
            t("check.03.single_step.5", n_requests=len(script.requests)),
        )
    problem = script.invalid_request()  # what a strict endpoint would refuse (no "type", arguments not a string)
    if problem:
        return report(False, problem)
    sent = normalize(script.requests[1].get("messages") or [])
    roles = _role_list(sent)
    if roles[-3:] != ["user", "assistant", "tool"]:
        return report(False, t("check.03.single_step.6", roles=roles))
    call_id = ScriptedModel.call_id(1)
    calls = sent[-2].get("tool_calls") or []
    if [c.get("id") for c in calls] != [call_id]:
        return report(False, t("check.03.single_step.7"))
    tool = sent[-1]
    if tool.get("tool_call_id") != call_id:
        return report(False, t("check.03.single_step.8", call_id=repr(call_id)))
    if tool.get("content") != get_weather("上海"):
        return report(False, t("check.03.single_step.9", get_weather_value=repr(get_weather('上海')), content=repr(tool.get('content'))))
    if answer != "上海现在多云，28°C。":
        return report(False, t("check.03.single_step.10", answer=repr(answer)))

    # 2) two parallel calls: every id needs its own reply
    script = ScriptedModel(
        [{"tool_calls": [("get_weather", {"city": "北京"}), ("get_weather", {"city": "上海"})]}, "北京晴，上海多云。"]
    )
    answer, error = safely(single_step, script.client(), "北京和上海天气怎么样？")
    if error:
        return report(False, t("check.03.single_step.11", error=error))
    if len(script.requests) != 2:
        return report(False, t("check.03.single_step.12", n_requests=len(script.requests)))
    problem = script.invalid_request()
    if problem:
        return report(False, problem)
    sent = normalize(script.requests[1].get("messages") or [])
    tools = [m for m in sent if m.get("role") == "tool"]
    want_ids = [ScriptedModel.call_id(1, 0), ScriptedModel.call_id(1, 1)]
    if [m.get("tool_call_id") for m in tools] != want_ids:
        return report(False, t("check.03.single_step.13", want_ids=want_ids, value=[m.get('tool_call_id') for m in tools]))
    if [m.get("content") for m in tools] != [get_weather("北京"), get_weather("上海")]:
        return report(False, t("check.03.single_step.14"))
    if answer != "北京晴，上海多云。":
        return report(False, t("check.03.single_step.15", answer=repr(answer)))

    # 3) no tool needed
    script = ScriptedModel(["你好！我在。"])
    answer, error = safely(single_step, script.client(), "你好，在吗")
    if error:
        return report(False, t("check.03.single_step.16", error=error))
    if len(script.requests) != 1 or answer != "你好！我在。":
        return report(False, t("check.03.single_step.17", n_requests=len(script.requests), answer=repr(answer)))
    return report(True, t("check.03.single_step.18"))
