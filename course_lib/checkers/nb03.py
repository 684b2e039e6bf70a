"""Checkers for notebook 03 (single-step function calling).

03-1 and 03-2 check plain data and plain functions.  03-3 checks code that
talks to a model; it gets a ``ScriptedModel`` client (see ``scripted.py``)
whose replies are fixed, because what is being checked is how the code handles
a tool call, not whether a real model decides to make one.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import strategies as st
from openai.types.chat import ChatCompletionMessage

from ..messages import normalize
from ..tools import get_weather
from ..tools.weather import UNITS
from . import CheckResult, described, exercise, first_difference, report, safely, t
from .reference import solution
from .scripted import ScriptedModel, with_quirks

CURRENCIES = {"USD", "EUR", "JPY"}
# What each description must talk about (Chinese or English), so that a description
# copied from another tool, or one that does not say what a parameter is, fails.
# Broad on purpose: any wording that names money or changing it passes; a description of something else fails.
ABOUT_CURRENCY = re.compile(r"币|汇|换|兑|美元|欧元|日元|美金|USD|EUR|JPY|CNY|RMB|currenc|exchang|convert|dollar|euro|"
                            r"\byen\b|money|forex", re.IGNORECASE)
# Whole words only: a lone 「额」 or 「价」 also stands in 额外、汇价、评价 (issue 54: 「额」 let a description of
# something else through).
ABOUT_AMOUNT = re.compile(r"金额|数额|钱|人民币|(?<![美欧日])元|多少|价格|价钱|价值|CNY|RMB|yuan|amount|money|sum|"
                          r"how much|price|cost|value", re.IGNORECASE)
# The amount is in yuan: an amount described only in a foreign currency (「美元金额」) is wrong, and the
# 「元」 of 美元/欧元/日元 must not count as yuan.
FOREIGN = re.compile(r"美元|欧元|日元|美金|USD|EUR|JPY|dollar|euro|\byen\b", re.IGNORECASE)
YUAN = re.compile(r"人民币|(?<![美欧日])元|CNY|RMB|yuan|renminbi", re.IGNORECASE)
LISTS = (list, tuple)  # a JSON array written in Python


@exercise("03-1")
def check_currency_tool(tool: object) -> CheckResult:
    """Exercise 03-1: ``CURRENCY_TOOL`` is a complete schema for ``convert_currency(amount, to_currency)``:
    the right name, a description, ``amount`` ("number", not "integer") and ``to_currency`` (string with
    enum USD/EUR/JPY), both described, both required, nothing else."""
    if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(tool.get("function"), dict):
        return report(False, t("check.03.currency_tool.1", value=described(tool)))
    fn = tool["function"]
    if fn.get("name") != "convert_currency":
        return report(False, t("check.03.currency_tool.2", name=repr(fn.get('name'))))
    description = fn.get("description")
    if not isinstance(description, str) or len(description.strip()) < 4:
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
    if not isinstance(amount, dict) or amount.get("type") != "number":  # "integer" refuses 12.5 yuan (the task says so)
        return report(False, t("check.03.currency_tool.7"))
    if not isinstance(currency, dict) or currency.get("type") != "string":
        return report(False, t("check.03.currency_tool.8"))
    enum = currency.get("enum")
    if not isinstance(enum, LISTS) or not all(isinstance(e, str) for e in enum) or set(enum) != CURRENCIES:
        return report(False, t("check.03.currency_tool.9", sorted_currencies=sorted(CURRENCIES), enum=repr(enum)))
    for name, spec in props.items():
        if not isinstance(spec.get("description"), str) or not spec["description"].strip():
            return report(False, t("check.03.currency_tool.10", name=name))
    if FOREIGN.search(amount["description"]) and not YUAN.search(amount["description"]):
        return report(False, t("check.03.currency_tool.amount_foreign", description=repr(amount['description'])))
    if not ABOUT_AMOUNT.search(amount["description"]):
        return report(False, t("check.03.currency_tool.11", description=repr(amount['description'])))
    if not ABOUT_CURRENCY.search(currency["description"]):
        return report(False, t("check.03.currency_tool.12", description=repr(currency['description'])))
    required = params.get("required")
    if not isinstance(required, LISTS) or not all(isinstance(r, str) for r in required) or set(required) != set(props):
        return report(False, t("check.03.currency_tool.13", required=repr(required)))
    try:
        json.dumps(tool)
    except (TypeError, ValueError) as exc:
        return report(False, t("check.03.currency_tool.14", exc=exc))
    return report(True, t("check.03.currency_tool.15"))


def _call(call_id: str, name: str, arguments: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# Exercise 03-2: the functions a message may call.  Non-commutative arithmetic (argument names
# matter), JSON true/false/null (what eval and ast.literal_eval cannot read), a default argument.
def add(a: float, b: float) -> float:
    return a + b


def subtract(a: float, b: float) -> float:
    return a - b


def multiply(a: float, b: float) -> float:
    return a * b


def lookup(word: str, exact: bool, note: str | None = None) -> str:
    return f"{word}：{'精确' if exact else '模糊'}匹配" + (f"（{note}）" if note is not None else "")


FUNCTIONS = {"get_weather": get_weather, "add": add, "subtract": subtract, "multiply": multiply, "lookup": lookup}
CITIES = ("北京", "上海", "成都", "昆明", "哈尔滨")


def tool_message(calls: list[tuple[str, str, str]]) -> ChatCompletionMessage:
    """The SDK assistant message with one tool call per ``(id, name, arguments JSON)``."""
    return ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": None, "tool_calls": [_call(*call) for call in calls]})


def tool_replies(message: Any, functions: dict) -> list[dict]:
    """The reference of 03-2, ``solutions/03_function_calling.py``'s ``answer_tool_calls``: one
    ``{"role": "tool", "tool_call_id", "content": str(result)}`` per call, in order."""
    return solution("03-2", "answer_tool_calls")(message, functions)


@st.composite
def _calls(draw: Any) -> list[tuple[str, str, str]]:
    """1-4 calls: random ids, tools and arguments, keys in any order, JSON compact or spaced."""
    numbers = st.integers(-50, 50) | st.floats(-100, 100, allow_nan=False).map(lambda x: round(x, 2))
    calls = []
    for k in range(draw(st.integers(1, 4))):
        name = draw(st.sampled_from(sorted(FUNCTIONS)))
        if name == "get_weather":
            args = {"city": draw(st.sampled_from(CITIES))}
            if draw(st.booleans()):
                args["unit"] = draw(st.sampled_from(UNITS))
        elif name == "lookup":
            args = {"word": draw(st.sampled_from(("苹果", "香蕉"))), "exact": draw(st.booleans())}
            if draw(st.booleans()):
                args["note"] = draw(st.sampled_from((None, "备注")))
        else:
            args = {"a": draw(numbers), "b": draw(numbers)}
        if draw(st.booleans()):
            args = dict(reversed(list(args.items())))
        separators = (",", ":") if draw(st.booleans()) else (", ", ": ")
        call_id = f"call_{draw(st.integers(0, 16 ** 6)):06x}{k}"
        calls.append((call_id, name, json.dumps(args, ensure_ascii=False, separators=separators)))
    return calls


MESSAGES = _calls().map(lambda calls: (tool_message(calls), FUNCTIONS))  # argument tuples
# The cases tried first: two tools; three with names in another order and a unit; one; JSON true and null.
ANSWER_EXAMPLES = [(tool_message(calls), FUNCTIONS) for calls in [
    [("call_weather", "get_weather", '{"city": "北京"}'), ("call_add", "add", '{"a": 2, "b": 3}')],
    [("call_7f3a", "multiply", '{"a": 6, "b": 7}'), ("call_9c1e", "get_weather", '{"city": "成都", "unit": "fahrenheit"}'),
     ("call_02bd", "subtract", '{"b": 2, "a": 1.5}')],
    [("tool_call_only_one", "get_weather", '{ "city" : "昆明" }')],
    [("call_x1", "lookup", '{"word": "苹果", "exact": true, "note": null}'),
     ("call_x2", "lookup", '{"exact": false, "word": "香蕉"}')],
]]


def _same_replies(got: Any, want: list[dict]) -> bool:
    return (isinstance(got, LISTS) and len(got) == len(want)
            and all(isinstance(g, dict) and all(g.get(k) == w[k] for k in w) for g, w in zip(got, want)))


@exercise("03-2")
def check_answer_tool_calls(answer_tool_calls: object) -> CheckResult:
    """Exercise 03-2: ``answer_tool_calls(message, functions)`` returns one
    ``{"role": "tool", "tool_call_id", "content": <str>}`` per call of the SDK message,
    in order, after ``json.loads`` of the arguments and running ``functions[name](**args)``.

    Run beside ``tool_replies`` on ``ANSWER_EXAMPLES`` then on generated messages (1-4 calls of
    ``FUNCTIONS``).  A list or tuple of dicts; keys other than the three are not looked at; a
    number's content may be ``str(x)`` or ``json.dumps(x)`` (the same text).
    """
    if not callable(answer_tool_calls):
        return report(False, t("check.03.answer_tool_calls.1", value=described(answer_tool_calls)))
    found = first_difference(answer_tool_calls, tool_replies, MESSAGES, ANSWER_EXAMPLES,
                             same=_same_replies, max_examples=40)
    if found is None:
        return report(True, t("check.03.answer_tool_calls.8"))
    calls = found.args[0].tool_calls
    shown = ", ".join(f"{call.function.name}({call.function.arguments})" for call in calls)
    got, want = found.got, found.want
    if found.error:
        return report(False, t("check.03.answer_tool_calls.2", described=shown, error=found.error))
    if not isinstance(got, LISTS) or len(got) != len(want):
        n = len(got) if isinstance(got, LISTS) else described(got)
        return report(False, t("check.03.answer_tool_calls.3", n_want=len(want), described=shown, n=n))
    for i, (g, w) in enumerate(zip(got, want), 1):
        if not isinstance(g, dict) or g.get("role") != "tool":
            return report(False, t("check.03.answer_tool_calls.4", value=i, g=described(g)))
        if g.get("tool_call_id") != w["tool_call_id"]:
            return report(False, t("check.03.answer_tool_calls.5", value=i, tool_call_id=repr(w["tool_call_id"]),
                                   got=described(g.get("tool_call_id"))))
        if not isinstance(g.get("content"), str):
            return report(False, t("check.03.answer_tool_calls.6", value=i, name=described(g.get("content"))))
        if g["content"] != w["content"]:
            return report(False, t("check.03.answer_tool_calls.7", described=shown, value=i, content=repr(w["content"]),
                                   content2=described(g["content"])))
    return report(False, t("check.03.answer_tool_calls.3", n_want=len(want), described=shown, n=described(got)))


def _role_list(messages: list[dict]) -> list[str]:
    return [m.get("role", "?") for m in messages]


def _sent(script: ScriptedModel, number: int) -> tuple[list[dict] | None, str | None]:
    """The messages of request ``number`` (from 0) as plain dicts, or ``(None, the hint)`` when a strict
    endpoint would refuse one of the requests or a message is not a message at all."""
    problem, error = safely(script.invalid_request)
    if problem or error:
        return None, problem or t("check.03.single_step.20", error=error)
    sent, error = safely(normalize, script.requests[number].get("messages") or [])
    return (None, t("check.03.single_step.20", error=error)) if error else (sent, None)


def _asked(script: ScriptedModel, question: str) -> str | None:
    """The hint when the first request does not end with the user's ``question`` (else None)."""
    sent, problem = _sent(script, 0)
    if problem:
        return problem
    users = [m.get("content") for m in sent if m.get("role") == "user"]
    if not users or users[-1] != question:
        return t("check.03.single_step.19", question=repr(question), got=described(users[-1] if users else None))
    return None


def _one_call(single_step: Any, start: int) -> str | None:
    """Scenario 1 of 03-3 (one call, then an answer) with ``with_quirks(..., start)``: the hint, or None."""
    question, city, final = "上海天气怎么样？", "上海", "上海现在多云，28°C。"
    script = ScriptedModel(with_quirks([{"tool_calls": [("get_weather", {"city": city})]}, final], start))
    answer, error = safely(single_step, script.client(), question)
    if error:
        return t("check.03.single_step.2", error=error)
    if not script.requests:
        return t("check.03.single_step.3")
    first = script.requests[0]
    names = [((tool.get("function") or {}).get("name")) for tool in first.get("tools") or [] if isinstance(tool, dict)]
    if "get_weather" not in names:
        return t("check.03.single_step.4")
    problem = _asked(script, question)
    if problem:
        return problem
    if len(script.requests) != 2:
        return t("check.03.single_step.5", n_requests=len(script.requests))
    sent, problem = _sent(script, 1)  # what a strict endpoint would refuse (no "type", arguments not a string)
    if problem:
        return problem
    roles = _role_list(sent)
    if roles[-3:] != ["user", "assistant", "tool"]:
        return t("check.03.single_step.6", roles=roles)
    call_id = ScriptedModel.call_id(1)
    calls = sent[-2].get("tool_calls") or []
    if [c.get("id") for c in calls if isinstance(c, dict)] != [call_id]:
        return t("check.03.single_step.7")
    tool = sent[-1]
    if tool.get("tool_call_id") != call_id:
        return t("check.03.single_step.8", call_id=repr(call_id))
    if tool.get("content") != get_weather(city):
        return t("check.03.single_step.9", get_weather_value=repr(get_weather(city)),
                 content=described(tool.get("content")))
    problem = script.refused_request()
    if problem:
        return problem
    if answer != final:
        return t("check.03.single_step.10", answer=described(answer))
    return None


@exercise("03-3")
def check_single_step(single_step: object) -> CheckResult:
    """Exercise 03-3: ``single_step(client, question)`` runs one round of the lifecycle:
    request with tools -> if tool_calls: append the assistant message, one tool reply per id,
    second request -> return the final text; without tool_calls return the text at once.

    Runs against three scripted conversations (one call, three times: with ``finish_reason``
    "stop" and a text beside the call, "length", null; two parallel calls, one with ``unit``; no
    call, sent with ``tool_calls: []`` and without - ``scripted.with_quirks``), each with its own question,
    which the first request must end with;
    every request must be one a strict endpoint accepts as sent (``ScriptedModel.invalid_request``);
    each tool message's content is ``get_weather(**arguments)``.  Looping until no more tool
    calls is fine (the script has none).
    """
    if not callable(single_step):
        return report(False, t("check.03.single_step.1", value=described(single_step)))

    # 1) one tool call, then an answer - sent as three providers send it: finish_reason "stop" with a
    #    text beside the call, "length", or null (scripted.with_quirks); the answer comes with tool_calls: []
    for start in (0, 2, 3):
        problem = _one_call(single_step, start)
        if problem:
            return report(False, problem)

    # 2) two parallel calls, one with a unit: every id needs its own reply, every argument counts
    question, final = "北京（华氏度）和上海天气怎么样？", "北京晴，上海多云。"
    arguments = [{"city": "北京", "unit": "fahrenheit"}, {"city": "上海"}]
    script = ScriptedModel(with_quirks([{"tool_calls": [("get_weather", args) for args in arguments]}, final], 1))
    answer, error = safely(single_step, script.client(), question)
    if error:
        return report(False, t("check.03.single_step.11", error=error))
    problem = _asked(script, question) if script.requests else t("check.03.single_step.3")
    if problem:
        return report(False, problem)
    if len(script.requests) != 2:
        return report(False, t("check.03.single_step.12", n_requests=len(script.requests)))
    sent, problem = _sent(script, 1)
    if problem:
        return report(False, problem)
    tools = [m for m in sent if m.get("role") == "tool"]
    want_ids = [ScriptedModel.call_id(1, k) for k in range(len(arguments))]
    if [m.get("tool_call_id") for m in tools] != want_ids:
        return report(False, t("check.03.single_step.13", want_ids=want_ids, value=[m.get('tool_call_id') for m in tools]))
    want = [get_weather(**args) for args in arguments]
    if [m.get("content") for m in tools] != want:
        return report(False, t("check.03.single_step.14", want=want, got=[m.get("content") for m in tools]))
    problem = script.refused_request()
    if problem:
        return report(False, problem)
    if answer != final:
        return report(False, t("check.03.single_step.15", answer=described(answer)))

    # 3) no tool needed: the text comes with "tool_calls": [] (some providers) and without tool_calls (OpenAI)
    question, final = "你好，在吗", "你好！我在。"
    for start in (0, 1):
        script = ScriptedModel(with_quirks([final], start))
        answer, error = safely(single_step, script.client(), question)
        if error:
            return report(False, t("check.03.single_step.16", error=error))
        problem = _asked(script, question) if script.requests else None
        if problem:
            return report(False, problem)
        if len(script.requests) != 1 or answer != final:
            return report(False, t("check.03.single_step.17", n_requests=len(script.requests), answer=described(answer)))
        problem = script.refused_request()
        if problem:
            return report(False, problem)
    return report(True, t("check.03.single_step.18"))
