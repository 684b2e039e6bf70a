"""Checkers for notebook 06 (the native agent loop).

06-1 checks a plain function.  06-2 runs the student's loop against a
``ScriptedModel`` (see ``scripted.py``): what is checked is how the loop
handles tool calls and ``max_steps``, not what a real model decides.
"""

from __future__ import annotations

from ..tools import get_weather
from . import CheckResult, report, safely
from .scripted import ScriptedModel

TOOLS_KEYS = ("tools", "tool_choice", "parallel_tool_calls")


def check_call_key(call_key: object) -> CheckResult:
    """Exercise 06-1: ``call_key(name, arguments_json)`` is hashable, equal for the same tool with
    the same parsed arguments (spacing and key order ignored), different otherwise, None for bad JSON."""
    if not callable(call_key):
        return report(False, "call_key 应该是一个函数")
    same = [
        (("get_weather", '{"city": "北京", "unit": "celsius"}'), ("get_weather", '{"unit":"celsius","city":"北京"}')),
        (("get_weather", '{"city": "北京"}'), ("get_weather", '{ "city" : "北京" }')),
        (("calculate", '{"expression": "20 * 15"}'), ("calculate", '{"expression":"20 * 15"}')),
    ]
    different = [
        (("get_weather", '{"city": "北京"}'), ("get_weather", '{"city": "上海"}')),
        (("get_weather", '{"city": "北京"}'), ("get_weather", '{"city": "北京", "unit": "fahrenheit"}')),
        (("get_weather", '{"city": "北京"}'), ("query_by_product_name", '{"city": "北京"}')),
    ]
    for a, b in same:
        ka, error_a = safely(call_key, *a)
        kb, error_b = safely(call_key, *b)
        if error_a or error_b:
            return report(False, f"call_key 出错：{error_a or error_b}")
        try:
            hash(ka)
        except TypeError:
            return report(False, f"call_key 的返回值要能放进 set（可哈希），{type(ka).__name__} 不行；试试元组和字符串")
        if ka is None or ka != kb:
            return report(False, f"{a} 和 {b} 是同一个调用（只是空格或键的顺序不同），key 应该相等：{ka!r} != {kb!r}")
    for a, b in different:
        ka, _ = safely(call_key, *a)
        kb, _ = safely(call_key, *b)
        if ka == kb:
            return report(False, f"{a} 和 {b} 不是同一个调用，key 却相等：{ka!r}")
    for bad in ['{"city": 北京}', "", '{"city": "北']:
        got, error = safely(call_key, "get_weather", bad)
        if error or got is not None:
            return report(False, f"参数 {bad!r} 不是合法的 JSON，应该返回 None，实际是 {error or repr(got)}")
    return report(True, "相同的调用得到相同的 key，不同的调用得到不同的 key")


def _roles(messages: list) -> list:
    return [m.get("role") for m in messages]


def check_agent_loop(agent_loop: object) -> CheckResult:
    """Exercise 06-2: ``agent_loop(client, question, max_steps=3)`` loops while there are tool_calls
    (one tool reply per id), returns the text answer, and after ``max_steps`` requests with tools
    appends a user message and sends one request without any tools key."""
    if not callable(agent_loop):
        return report(False, "agent_loop 应该是一个函数")

    # Scenario 1: two parallel calls, then a text answer.
    script = ScriptedModel([{"tool_calls": [("get_weather", {"city": "北京"}), ("get_weather", {"city": "上海"})]},
                            "北京晴，上海多云。"])
    answer, error = safely(agent_loop, script.client(), "北京和上海天气怎么样？", max_steps=3)
    if error:
        return report(False, f"agent_loop 出错：{error}")
    if len(script.requests) != 2:
        return report(False, f"模型先调用两个工具、再回答文字：应该正好 2 次请求，实际是 {len(script.requests)} 次")
    first, second = script.requests
    if "tools" not in first:
        return report(False, "请求里要带 tools=[WEATHER_TOOL]")
    msgs = second.get("messages") or []
    ids = [ScriptedModel.call_id(1, 0), ScriptedModel.call_id(1, 1)]
    tool_msgs = [m for m in msgs if m.get("role") == "tool"]
    if [m.get("tool_call_id") for m in tool_msgs] != ids:
        return report(False, f"两个调用各需要一条 tool 消息，tool_call_id 依次是 {ids}；实际是 {[m.get('tool_call_id') for m in tool_msgs]}")
    if [m.get("content") for m in tool_msgs] != [get_weather("北京"), get_weather("上海")]:
        return report(False, "tool 消息的 content 应该是 get_weather 的结果（字符串）")
    assistant = next((m for m in msgs if m.get("role") == "assistant"), {})
    if len(assistant.get("tool_calls") or []) != 2:
        return report(False, "tool 消息前面要先加上那条带 tool_calls 的 assistant 消息")
    if answer != "北京晴，上海多云。":
        return report(False, f"没有 tool_calls 的回答就是最终答案，应该返回它的文字；实际返回 {answer!r}")

    # Scenario 2: a model that never stops calling tools.
    script = ScriptedModel([{"tool_calls": [("get_weather", {"city": c})]} for c in ("北京", "上海", "广州", "深圳", "杭州")])
    script.replies.insert(3, "我没有找到永远不下雨的城市。")  # the reply to the 4th request
    answer, error = safely(agent_loop, script.client(), "找一个永远不会下雨的城市", max_steps=3)
    if error:
        return report(False, f"模型一直调用工具时 agent_loop 出错：{error}")
    sent_none = [k for r in script.requests for k in TOOLS_KEYS if k in r and r[k] is None]
    if sent_none:
        # tools=None is not "no tools": the SDK sends "tools": null (source text 000 writes it so)
        return report(False, f"有请求把 {sorted(set(sent_none))} 写成了 None：SDK 会照样发出 \"tools\": null。"
                             "不带工具的请求里整个参数都不要写（连 None 也不要传）")
    with_tools = [r for r in script.requests if any(k in r for k in TOOLS_KEYS)]
    if len(with_tools) != 3:
        return report(False, f"max_steps=3：带 tools 的请求应该正好 3 次，实际是 {len(with_tools)} 次（循环要继续，但不能超过上限）")
    if len(script.requests) != 4:
        return report(False, f"3 次带 tools 的请求之后，还要再发 1 次不带 tools 的请求：应该共 4 次，实际是 {len(script.requests)} 次")
    final = script.requests[3]
    present = [k for k in TOOLS_KEYS if k in final]
    if present:
        return report(False, f"最后一次请求里不能有 {present}（连 None 也不要传，整个参数都不写）")
    last = (final.get("messages") or [{}])[-1]
    if last.get("role") != "user":
        return report(False, "最后一次请求之前，要先加一条 user 消息，要求模型根据已有结果直接回答")
    tool_ids = [m.get("tool_call_id") for m in final.get("messages", []) if m.get("role") == "tool"]
    if tool_ids != [ScriptedModel.call_id(n) for n in (1, 2, 3)]:
        return report(False, f"三次调用都要有 tool 回复，实际的 tool_call_id 是 {tool_ids}")
    if answer != "我没有找到永远不下雨的城市。":
        return report(False, f"应该返回最后那次（不带 tools 的）请求的回答，实际返回 {answer!r}")
    return report(True, "循环、每个 id 的回复、max_steps 和不带 tools 的收尾请求都对")
