"""Checkers for notebook 06 (the native agent loop).

06-1 checks a plain function.  06-2 runs the student's loop against a
``ScriptedModel`` (see ``scripted.py``): what is checked is how the loop
handles tool calls and ``max_steps``, not what a real model decides.
"""

from __future__ import annotations

import re

from ..tools import get_weather
from . import CheckResult, exercise, report, safely, t
from .scripted import ScriptedModel

TOOLS_KEYS = ("tools", "tool_choice", "parallel_tool_calls")
# The forced final message must ask for an answer from what was found (06's own: 「请根据上面的工具结果直接回答」).
ASKS_FOR_AN_ANSWER = re.compile(r"回答|答案|作答|答复|回复|总结|结论|answer|respond|reply", re.IGNORECASE)


@exercise("06-1")
def check_call_key(call_key: object) -> CheckResult:
    """Exercise 06-1: ``call_key(name, arguments_json)`` is hashable, equal for the same tool with
    the same parsed arguments (spacing and key order ignored, also inside nested objects; lists
    keep their order), different otherwise, None for bad JSON."""
    if not callable(call_key):
        return report(False, t("check.06.call_key.1"))
    same = [
        (("get_weather", '{"city": "北京", "unit": "celsius"}'), ("get_weather", '{"unit":"celsius","city":"北京"}')),
        (("get_weather", '{"city": "北京"}'), ("get_weather", '{ "city" : "北京" }')),
        (("calculate", '{"expression": "20 * 15"}'), ("calculate", '{"expression":"20 * 15"}')),
        # a list and a nested object as arguments: tuples or frozensets of the items break on them
        (("get_weather_many", '{"cities": ["北京", "上海"], "unit": "celsius"}'),
         ("get_weather_many", '{"unit": "celsius", "cities": ["北京", "上海"]}')),
        (("search", '{"filter": {"max_price": 200, "kind": "球"}, "limit": 3}'),
         ("search", '{"limit": 3, "filter": {"kind": "球", "max_price": 200}}')),
    ]
    different = [
        (("get_weather", '{"city": "北京"}'), ("get_weather", '{"city": "上海"}')),
        (("get_weather", '{"city": "北京"}'), ("get_weather", '{"city": "北京", "unit": "fahrenheit"}')),
        (("get_weather", '{"city": "北京"}'), ("query_by_product_name", '{"city": "北京"}')),
        (("get_weather_many", '{"cities": ["北京", "上海"]}'), ("get_weather_many", '{"cities": ["上海", "北京"]}')),
    ]
    for a, b in same:
        ka, error_a = safely(call_key, *a)
        kb, error_b = safely(call_key, *b)
        if error_a or error_b:
            return report(False, t("check.06.call_key.2", value=error_a or error_b))
        try:
            hash(ka)
        except TypeError:
            return report(False, t("check.06.call_key.3", name=type(ka).__name__))
        if ka is None or ka != kb:
            return report(False, t("check.06.call_key.4", a=a, b=b, ka=repr(ka), kb=repr(kb)))
    for a, b in different:
        ka, _ = safely(call_key, *a)
        kb, _ = safely(call_key, *b)
        if ka == kb:
            return report(False, t("check.06.call_key.5", a=a, b=b, ka=repr(ka)))
    for bad in ['{"city": 北京}', "", '{"city": "北']:
        got, error = safely(call_key, "get_weather", bad)
        if error or got is not None:
            return report(False, t("check.06.call_key.6", bad=repr(bad), value=error or repr(got)))
    return report(True, t("check.06.call_key.7"))


def _roles(messages: list) -> list:
    return [m.get("role") for m in messages]


@exercise("06-2")
def check_agent_loop(agent_loop: object) -> CheckResult:
    """Exercise 06-2: ``agent_loop(client, question, max_steps=3)`` loops while there are tool_calls
    (one tool reply per id), returns the text answer, and after ``max_steps`` requests with tools
    appends a user message that asks for an answer from the results and sends one request
    without any tools key.  Every request must be one a strict endpoint accepts as sent."""
    if not callable(agent_loop):
        return report(False, t("check.06.agent_loop.1"))

    # Scenario 1: two parallel calls, then a text answer.
    script = ScriptedModel([{"tool_calls": [("get_weather", {"city": "北京"}), ("get_weather", {"city": "上海"})]},
                            "北京晴，上海多云。"])
    answer, error = safely(agent_loop, script.client(), "北京和上海天气怎么样？", max_steps=3)
    if error:
        return report(False, t("check.06.agent_loop.2", error=error))
    if len(script.requests) != 2:
        return report(False, t("check.06.agent_loop.3", n_requests=len(script.requests)))
    problem = script.invalid_request()  # what a strict endpoint would refuse (no "type", arguments not a string)
    if problem:
        return report(False, problem)
    first, second = script.requests
    if "tools" not in first:
        return report(False, t("check.06.agent_loop.4"))
    msgs = second.get("messages") or []
    ids = [ScriptedModel.call_id(1, 0), ScriptedModel.call_id(1, 1)]
    tool_msgs = [m for m in msgs if m.get("role") == "tool"]
    if [m.get("tool_call_id") for m in tool_msgs] != ids:
        return report(False, t("check.06.agent_loop.5", ids=ids, value=[m.get('tool_call_id') for m in tool_msgs]))
    if [m.get("content") for m in tool_msgs] != [get_weather("北京"), get_weather("上海")]:
        return report(False, t("check.06.agent_loop.6"))
    assistant = next((m for m in msgs if m.get("role") == "assistant"), {})
    if len(assistant.get("tool_calls") or []) != 2:
        return report(False, t("check.06.agent_loop.7"))
    if answer != "北京晴，上海多云。":
        return report(False, t("check.06.agent_loop.8", answer=repr(answer)))

    # Scenario 2: a model that never stops calling tools.
    script = ScriptedModel([{"tool_calls": [("get_weather", {"city": c})]} for c in ("北京", "上海", "广州", "深圳", "杭州")])
    script.replies.insert(3, "我没有找到永远不下雨的城市。")  # the reply to the 4th request
    answer, error = safely(agent_loop, script.client(), "找一个永远不会下雨的城市", max_steps=3)
    if error:
        return report(False, t("check.06.agent_loop.9", error=error))
    sent_none = [k for r in script.requests for k in TOOLS_KEYS if k in r and r[k] is None]
    if sent_none:
        # tools=None is not "no tools": the SDK sends "tools": null (source text 000 writes it so)
        return report(False, t("check.06.agent_loop.10", sorted_set_sent_none=sorted(set(sent_none))))
    with_tools = [r for r in script.requests if any(k in r for k in TOOLS_KEYS)]
    if len(with_tools) != 3:
        return report(False, t("check.06.agent_loop.11", n_with_tools=len(with_tools)))
    if len(script.requests) != 4:
        return report(False, t("check.06.agent_loop.12", n_requests=len(script.requests)))
    final = script.requests[3]
    present = [k for k in TOOLS_KEYS if k in final]
    if present:
        return report(False, t("check.06.agent_loop.13", present=present))
    problem = script.invalid_request()
    if problem:
        return report(False, problem)
    last = (final.get("messages") or [{}])[-1]
    if last.get("role") != "user":
        return report(False, t("check.06.agent_loop.14"))
    text = last.get("content") if isinstance(last.get("content"), str) else ""
    if not ASKS_FOR_AN_ANSWER.search(text) or text.strip() == "找一个永远不会下雨的城市":
        return report(False, t("check.06.agent_loop.18", content=repr(last.get("content"))))
    tool_ids = [m.get("tool_call_id") for m in final.get("messages", []) if m.get("role") == "tool"]
    if tool_ids != [ScriptedModel.call_id(n) for n in (1, 2, 3)]:
        return report(False, t("check.06.agent_loop.15", tool_ids=tool_ids))
    if answer != "我没有找到永远不下雨的城市。":
        return report(False, t("check.06.agent_loop.16", answer=repr(answer)))
    return report(True, t("check.06.agent_loop.17"))
