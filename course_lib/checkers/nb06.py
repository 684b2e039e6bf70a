"""Checkers for notebook 06 (the native agent loop).

06-1 runs the student's ``call_key`` beside the reference solution on pairs of calls
(``first_difference``): the same call written another way, and other calls.  06-2 runs the
student's loop against a ``ScriptedModel`` (which also answers ``stream=True``, with providers'
quirks) in five scenarios
(two parallel calls, a direct answer, a model that never stops with ``max_steps`` 3, 1 and 0, an
answer on the last allowed step): what is checked is how the loop handles tool calls and
``max_steps``, not what a real model decides.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..tools import get_weather
from . import CheckResult, described, exercise, first_difference, report, safely, t
from .reference import solution
from .scripted import ScriptedModel, with_quirks

TOOLS_KEYS = ("tools", "tool_choice", "parallel_tool_calls")
# The forced final message must ask for an answer from what was found (06's own: 「请根据上面的工具结果直接回答」);
# any wording that asks to answer, reply, tell, conclude or sum up will do.
ASKS_FOR_AN_ANSWER = re.compile(r"回答|答案|作答|答复|回复|总结|结论|告诉|说明|给出|汇总|概括|直接|最终"
                                r"|answer|respond|reply|final|summar|conclu|tell", re.IGNORECASE)


# -- 06-1 ---------------------------------------------------------------------------------


def reference_call_key(name: str, arguments_json: str) -> Any:
    """The reference key, ``solutions/06_agent_loop.py``'s ``call_key``: ``(name, canonical JSON)``, or None
    for arguments that are not valid JSON."""
    return solution("06-1", "call_key")(name, arguments_json)


def _kind(key: Any) -> str:
    """``"none"``, ``"unhashable"`` or ``"key"``."""
    if key is None:
        return "none"
    try:
        hash(key)
    except Exception:  # noqa: BLE001 - TypeError, or a student's own __hash__
        return "unhashable"
    return "key"


def _relation(call_key: Any) -> Any:
    """``f(name_a, json_a, name_b, json_b) -> (kind_a, kind_b, equal)``: what ``call_key`` says of two calls."""
    def relation(name_a: str, json_a: str, name_b: str, json_b: str) -> tuple:
        key_a, key_b = call_key(name_a, json_a), call_key(name_b, json_b)
        kinds = (_kind(key_a), _kind(key_b))
        return kinds + ((bool(key_a == key_b),) if kinds == ("key", "key") else (None,))
    return relation


def _dumps(value: Any, order: str, style: int) -> str:
    """``value`` as JSON text with its keys in another ``order`` and one of four spacing ``style``s."""
    def reorder(v: Any) -> Any:
        if isinstance(v, dict):
            keys = list(v)
            keys = keys[::-1] if order == "reversed" else sorted(keys) if order == "sorted" else keys
            return {k: reorder(v[k]) for k in keys}
        return [reorder(x) for x in v] if isinstance(v, list) else v
    options = [{"ensure_ascii": False}, {"ensure_ascii": False, "separators": (",", ":")},
               {"ensure_ascii": False, "indent": 2}, {"ensure_ascii": True, "separators": (" , ", " : ")}][style]
    return json.dumps(reorder(value), **options)


def _call_pairs() -> Any:
    """A hypothesis strategy of ``(name_a, json_a, name_b, json_b)``: one call written two ways, two
    calls that differ (a name, a value, a list's order, a nested key), or broken JSON."""
    from hypothesis import strategies as st

    names = st.sampled_from(["get_weather", "search"])
    leaf = st.one_of(st.none(), st.integers(-2, 2),
                     st.sampled_from(["北京", "上海", "celsius", "", "Beijing", "beijing", "New York", " 北京 "]))
    value = st.recursive(leaf, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["city", "unit", "a"]), inner, max_size=3)),
        max_leaves=6)
    objects = st.dictionaries(st.sampled_from(["city", "unit", "cities", "filter"]), value, max_size=3)
    text = st.tuples(st.sampled_from(["as_is", "reversed", "sorted"]), st.integers(0, 3))

    def pair(parts: tuple) -> tuple:
        name_a, obj_a, fmt_a, name_b, obj_b, fmt_b, same_name, same_obj = parts
        obj_b = obj_a if same_obj else obj_b
        return (name_a, _dumps(obj_a, *fmt_a), name_a if same_name else name_b, _dumps(obj_b, *fmt_b))

    good = st.tuples(names, objects, text, names, objects, text, st.booleans(), st.booleans()).map(pair)
    bad = st.sampled_from(['{"city": 北京}', "", '{"city": "北', "{'city': '北京'}", "{city: 1}", '{"a": 1,}'])
    broken = st.tuples(names, bad, names, objects.map(json.dumps))
    return st.one_of(good, good, broken)


@exercise("06-1")
def check_call_key(call_key: object) -> CheckResult:
    """Exercise 06-1: ``call_key(name, arguments_json)``.

    Run beside a reference on the pairs the exercise names and on about 60 generated pairs: a value
    that can go into a ``set`` (hashable); equal keys for the same tool with the same parsed arguments
    (spacing, key order and ``\\u`` escapes ignored, also inside nested objects; lists keep their
    order); different keys otherwise (another tool, another value); a key (not None) for any valid
    JSON object; None for text that is not valid JSON.
    """
    if not callable(call_key):
        return report(False, t("check.06.call_key.1"))
    examples = [
        ("get_weather", '{"city": "北京", "unit": "celsius"}', "get_weather", '{"unit":"celsius","city":"北京"}'),
        ("get_weather", '{"city": "北京"}', "get_weather", '{ "city" : "北京" }'),
        ("get_weather_many", '{"cities": ["北京", "上海"], "unit": "celsius"}',
         "get_weather_many", '{"unit": "celsius", "cities": ["北京", "上海"]}'),
        ("search", '{"filter": {"max_price": 200, "kind": "球"}, "limit": 3}',
         "search", '{"limit": 3, "filter": {"kind": "球", "max_price": 200}}'),
        ("get_weather", '{"city": "北京"}', "get_weather", '{"city": "上海"}'),
        ("get_weather", '{"city": "北京"}', "get_weather", '{"city": "北京", "unit": "fahrenheit"}'),
        ("get_weather", '{"city": "Beijing"}', "get_weather", '{"city": "beijing"}'),  # values keep their case
        ("get_weather", '{"city": "New York"}', "get_weather", '{"city": "NewYork"}'),  # ... and their spaces
        ("get_weather", '{"city": "北京"}', "query_by_product_name", '{"city": "北京"}'),
        ("get_weather_many", '{"cities": ["北京", "上海"]}', "get_weather_many", '{"cities": ["上海", "北京"]}'),
        ("get_weather", '{"city": 北京}', "get_weather", '{"city": "北京"}'),
        ("get_weather", "", "get_weather", '{"city": "北京"}'),
    ]
    found = first_difference(_relation(call_key), _relation(reference_call_key), inputs=_call_pairs(),
                             examples=examples)
    if found is None:
        return report(True, t("check.06.call_key.7"))
    if found.error:
        return report(False, t("check.06.call_key.2", value=found.error))
    name_a, json_a, name_b, json_b = found.args
    key_a, _ = safely(call_key, name_a, json_a)
    key_b, _ = safely(call_key, name_b, json_b)
    got, want = found.got, found.want
    for key, kind, wanted, arguments in ((key_a, got[0], want[0], json_a), (key_b, got[1], want[1], json_b)):
        if kind == "unhashable":
            return report(False, t("check.06.call_key.3", name=type(key).__name__))
        if wanted == "none" and kind != "none":
            return report(False, t("check.06.call_key.6", bad=repr(arguments), value=described(key)))
        if wanted == "key" and kind == "none":
            return report(False, t("check.06.call_key.valid", arguments=repr(arguments)))
    a, b = (name_a, json_a), (name_b, json_b)
    if want[2]:
        return report(False, t("check.06.call_key.4", a=a, b=b, ka=described(key_a), kb=described(key_b)))
    return report(False, t("check.06.call_key.5", a=a, b=b, ka=described(key_a)))


def _messages(request: dict) -> list[dict]:
    """The request's messages (dicts: the script keeps the JSON bodies)."""
    messages = request.get("messages")
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


DEFAULT_MAX_STEPS = 3  # the exercise's signature: agent_loop(client, question, max_steps=3)


def _runaway(agent_loop: Any, max_steps: int | None, cities: list[str]) -> str | None:
    """A model that never stops calling tools: the hint for the first thing the loop gets wrong, or None.

    ``max_steps`` None: the function is called without it, and its default must be the signature's 3.

    Wants ``max_steps`` requests with tools (each call answered), then one without any tools key
    after a user message asking for an answer, and that request's answer returned.
    """
    default = max_steps is None
    max_steps = DEFAULT_MAX_STEPS if default else max_steps
    final_text = f"我没有找到永远不下雨的城市（{max_steps}）。"
    # Every step's calls come as providers send them (scripted.with_quirks: "tool_calls", "length", null, "stop").
    script = ScriptedModel(with_quirks([{"tool_calls": [("get_weather", {"city": c})]} for c in cities[:max_steps]], 1))
    script.add(final_text, *({"tool_calls": [("get_weather", {"city": c})]} for c in cities))
    limit = {} if default else {"max_steps": max_steps}
    answer, error = safely(agent_loop, script.client(), "找一个永远不会下雨的城市", **limit)
    if error:
        return t("check.06.agent_loop.9", error=error)
    if default and len([r for r in script.requests if r.get("tools")]) != max_steps:
        return t("check.06.agent_loop.default", n_with_tools=len([r for r in script.requests if r.get("tools")]))
    sent_none = [k for r in script.requests for k in TOOLS_KEYS if k in r and r[k] is None]
    if sent_none:
        # tools=None is not "no tools": the SDK sends "tools": null (source text 000 writes it so)
        return t("check.06.agent_loop.10", sorted_set_sent_none=sorted(set(sent_none)))
    with_tools = [r for r in script.requests if r.get("tools")]
    if len(with_tools) != max_steps:
        return t("check.06.agent_loop.11", max_steps=max_steps, n_with_tools=len(with_tools))
    if len(script.requests) != max_steps + 1:
        return t("check.06.agent_loop.12", max_steps=max_steps, n_want=max_steps + 1, n_requests=len(script.requests))
    final = script.requests[max_steps]
    present = [k for k in TOOLS_KEYS if k in final]
    if present:
        return t("check.06.agent_loop.13", present=present)
    problem = script.invalid_request() or script.refused_request()
    if problem:
        return problem
    last = (_messages(final) or [{}])[-1]
    if last.get("role") != "user":
        return t("check.06.agent_loop.14")
    text = last.get("content") if isinstance(last.get("content"), str) else ""
    if not ASKS_FOR_AN_ANSWER.search(text) or text.strip() == "找一个永远不会下雨的城市":
        return t("check.06.agent_loop.18", content=described(last.get("content")))
    tool_ids = [m.get("tool_call_id") for m in _messages(final) if m.get("role") == "tool"]
    if tool_ids != [ScriptedModel.call_id(n) for n in range(1, max_steps + 1)]:
        return t("check.06.agent_loop.15", max_steps=max_steps, tool_ids=tool_ids)
    if answer != final_text:
        return t("check.06.agent_loop.16", answer=described(answer))
    return None


@exercise("06-2")
def check_agent_loop(agent_loop: object) -> CheckResult:
    """Exercise 06-2: ``agent_loop(client, question, max_steps=3)`` against a scripted model.

    Five scenarios: two parallel calls then a text (2 requests; the first with tools and the
    question; one tool reply per id, in order, with ``get_weather``'s result for that call's
    city, after the assistant message; the text returned); a direct answer (1 request, its text
    returned); a model that never stops, with ``max_steps`` 3, 1 and 0 (exactly ``max_steps``
    requests with tools, then a user message asking for an answer and one request without any
    tools key, not even None; its answer returned); and a text on the last allowed step (no
    extra request).  The calls come as providers send them (``scripted.with_quirks``: ``finish_reason``
    "stop", "length", null or "tool_calls", a text beside the calls, ``tool_calls: []`` with a plain
    answer), so a loop must decide on whether ``tool_calls`` holds calls.  Every request must be one
    a strict endpoint accepts as sent, naming the notebook's ``MODEL``; streamed requests
    (``stream=True``) are answered as a real server would.
    """
    if not callable(agent_loop):
        return report(False, t("check.06.agent_loop.1"))

    # Scenario 1: two parallel calls, then a text answer.
    question = "广州和上海天气怎么样？"
    # ... finish_reason "stop" and a text beside the calls; the answer with "tool_calls": [] (scripted.with_quirks)
    script = ScriptedModel(with_quirks([{"tool_calls": [("get_weather", {"city": "广州"}), ("get_weather", {"city": "上海"})]},
                                        "广州多云，上海晴。"]))
    answer, error = safely(agent_loop, script.client(), question, max_steps=3)
    if error:
        return report(False, t("check.06.agent_loop.2", error=error))
    if len(script.requests) != 2:
        return report(False, t("check.06.agent_loop.3", n_requests=len(script.requests)))
    problem = script.invalid_request() or script.refused_request()  # what a strict endpoint would refuse
    if problem:
        return report(False, problem)
    first, second = script.requests
    if not first.get("tools"):
        return report(False, t("check.06.agent_loop.4"))
    if not any(m.get("role") == "user" and question in str(m.get("content")) for m in _messages(first)):
        return report(False, t("check.06.agent_loop.question", question=question))
    msgs = _messages(second)
    ids = [ScriptedModel.call_id(1, 0), ScriptedModel.call_id(1, 1)]
    tool_msgs = [m for m in msgs if m.get("role") == "tool"]
    if [m.get("tool_call_id") for m in tool_msgs] != ids:
        return report(False, t("check.06.agent_loop.5", ids=ids, value=[m.get("tool_call_id") for m in tool_msgs]))
    if [m.get("content") for m in tool_msgs] != [get_weather("广州"), get_weather("上海")]:
        return report(False, t("check.06.agent_loop.6"))
    assistant = next((m for m in msgs if m.get("role") == "assistant"), {})
    if len(assistant.get("tool_calls") or []) != 2:
        return report(False, t("check.06.agent_loop.7"))
    if answer != "广州多云，上海晴。":
        return report(False, t("check.06.agent_loop.8", answer=described(answer)))

    # Scenario 2: no tool needed - the text with "tool_calls": [] (some providers) and without (OpenAI).
    for start in (0, 1):
        script = ScriptedModel(with_quirks(["你好！有什么可以帮你？"], start))
        answer, error = safely(agent_loop, script.client(), "你好", max_steps=3)
        if error:
            return report(False, t("check.06.agent_loop.2", error=error))
        if len(script.requests) != 1 or answer != "你好！有什么可以帮你？":
            return report(False, t("check.06.agent_loop.direct", n_requests=len(script.requests),
                                   answer=described(answer)))

    # Scenarios 3 and 4: a model that never stops calling tools, with three limits (0: no request with tools).
    for max_steps in (3, 1, 0):
        problem = _runaway(agent_loop, max_steps, ["北京", "上海", "广州", "深圳", "杭州"])
        if problem:
            return report(False, problem)

    # Scenario 3 again without max_steps: the signature's default is 3 requests with tools.
    problem = _runaway(agent_loop, None, ["北京", "上海", "广州", "深圳", "杭州"])
    if problem:
        return report(False, problem)

    # Scenario 5: the text comes on the last allowed step: no forced final request.
    script = ScriptedModel(with_quirks([{"tool_calls": [("get_weather", {"city": "深圳"})]}, "深圳有雷阵雨。"], 3))  # null finish_reason
    answer, error = safely(agent_loop, script.client(), "深圳天气怎么样？", max_steps=2)
    if error:
        return report(False, t("check.06.agent_loop.2", error=error))
    if len(script.requests) != 2 or answer != "深圳有雷阵雨。":
        return report(False, t("check.06.agent_loop.last_step", n_requests=len(script.requests),
                               answer=described(answer)))
    return report(True, t("check.06.agent_loop.17"))
