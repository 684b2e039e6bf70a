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
from . import CheckResult, report, safely
from .scripted import ScriptedModel

CURRENCIES = {"USD", "EUR", "JPY"}
# What each description must talk about (Chinese or English), so that a description
# copied from another tool, or one that does not say what a parameter is, fails.
ABOUT_CURRENCY = re.compile(r"货币|币种|汇率|换算|兑换|外币|美元|欧元|日元|USD|EUR|JPY|currenc|exchange|dollar|euro|yen",
                            re.IGNORECASE)
ABOUT_AMOUNT = re.compile(r"金额|钱|数额|人民币|元|CNY|RMB|yuan|amount|money|sum", re.IGNORECASE)


def check_currency_tool(tool: object) -> CheckResult:
    """Exercise 03-1: ``CURRENCY_TOOL`` is a complete schema for ``convert_currency(amount, to_currency)``:
    the right name, a description, ``amount`` (number) and ``to_currency`` (string with
    enum USD/EUR/JPY), both described, both required, nothing else."""
    if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(tool.get("function"), dict):
        return report(False, 'CURRENCY_TOOL 的外层应该是 {"type": "function", "function": {...}}')
    fn = tool["function"]
    if fn.get("name") != "convert_currency":
        return report(False, f"name 应该和 Python 函数同名：'convert_currency'，现在是 {fn.get('name')!r}")
    description = fn.get("description")
    if not isinstance(description, str) or len(description.strip()) < 8:
        return report(False, "description 要写清楚这个工具做什么、什么时候用（至少一句话）")
    if not ABOUT_CURRENCY.search(description):
        return report(False, f"description 要说这个工具做什么：把人民币换算成别的货币。现在写的是 {description!r}，"
                             "模型读了它不会想到用这个工具换算货币")
    params = fn.get("parameters")
    if not isinstance(params, dict) or params.get("type") != "object":
        return report(False, 'parameters 应该是 {"type": "object", "properties": {...}, "required": [...]}')
    props = params.get("properties")
    if not isinstance(props, dict) or set(props) != {"amount", "to_currency"}:
        got = sorted(props) if isinstance(props, dict) else props
        return report(False, f"properties 应该正好有 amount 和 to_currency 两个参数（和函数的参数同名），现在是 {got}")
    amount, currency = props["amount"], props["to_currency"]
    if not isinstance(amount, dict) or amount.get("type") not in {"number", "integer"}:
        return report(False, 'amount 是金额，类型应该是 "number"')
    if not isinstance(currency, dict) or currency.get("type") != "string":
        return report(False, 'to_currency 的类型应该是 "string"')
    enum = currency.get("enum")
    if not isinstance(enum, list) or set(enum) != CURRENCIES:
        return report(False, f"to_currency 只能取函数认识的三个值，用 enum 列出来：{sorted(CURRENCIES)}，现在是 {enum!r}")
    for name, spec in props.items():
        if not isinstance(spec.get("description"), str) or not spec["description"].strip():
            return report(False, f"参数 {name} 还缺一个 description：告诉模型该填什么（单位、例子）")
    if not ABOUT_AMOUNT.search(amount["description"]):
        return report(False, f"amount 的 description 要说清楚它是什么：多少人民币（单位：元），现在是 {amount['description']!r}")
    if not ABOUT_CURRENCY.search(currency["description"]):
        return report(False, f"to_currency 的 description 要说清楚它是什么：要换成的目标货币，现在是 {currency['description']!r}")
    required = params.get("required")
    if not isinstance(required, list) or set(required) != {"amount", "to_currency"}:
        return report(False, f"两个参数都是必填的：required 应该是 ['amount', 'to_currency']，现在是 {required!r}")
    try:
        json.dumps(tool)
    except (TypeError, ValueError) as exc:
        return report(False, f"工具定义必须能转成 JSON：{exc}")
    return report(True, "五个部分都写全了：name、description、properties、enum、required")


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


def check_answer_tool_calls(answer_tool_calls: object) -> CheckResult:
    """Exercise 03-2: ``answer_tool_calls(message, functions)`` returns one
    ``{"role": "tool", "tool_call_id", "content": <str>}`` per call of the SDK message,
    in order, after ``json.loads`` of the arguments and running ``functions[name](**args)``.

    Tried on three messages (1-3 calls, different ids, tools and argument types)."""
    if not callable(answer_tool_calls):
        return report(False, "answer_tool_calls 应该是一个函数")
    for calls, functions, contents in _answer_cases():
        message = ChatCompletionMessage.model_validate(
            {"role": "assistant", "content": None, "tool_calls": [_call(*call) for call in calls]}
        )
        described = ", ".join(f"{name}({arguments})" for _, name, arguments in calls)
        got, error = safely(answer_tool_calls, message, functions)
        if error:
            return report(False, f"对调用 {described}，answer_tool_calls 出错：{error}")
        want = [{"role": "tool", "tool_call_id": call[0], "content": content} for call, content in zip(calls, contents)]
        if not isinstance(got, list) or len(got) != len(want):
            n = len(got) if isinstance(got, list) else type(got).__name__
            return report(False, f"{len(want)} 个 tool_call（{described}）应该得到 {len(want)} 条 tool 消息（每个 id 一条），实际得到 {n}")
        for i, (g, w) in enumerate(zip(got, want)):
            if not isinstance(g, dict) or g.get("role") != "tool":
                return report(False, f"第 {i + 1} 条应该是 role='tool' 的字典，实际是 {g!r}")
            if g.get("tool_call_id") != w["tool_call_id"]:
                return report(False, f"第 {i + 1} 条的 tool_call_id 应该是 {w['tool_call_id']!r}（照抄对应调用的 id）")
            if not isinstance(g.get("content"), str):
                return report(False, f"第 {i + 1} 条的 content 必须是字符串，实际是 {type(g.get('content')).__name__}：用 str(result)")
            if g["content"] != w["content"]:
                return report(False, f"对调用 {described}，第 {i + 1} 条的 content 应该是 {w['content']!r}，实际是 {g['content']!r}")
    return report(True, "三组不同的调用里，每个 tool_call_id 都有一条字符串内容的 tool 回复，顺序也对")


def _role_list(messages: list[dict]) -> list[str]:
    return [m.get("role", "?") for m in messages]


def check_single_step(single_step: object) -> CheckResult:
    """Exercise 03-3: ``single_step(client, question)`` runs one round of the lifecycle:
    request with tools -> if tool_calls: append the assistant message, one tool reply per id,
    second request -> return the final text; without tool_calls return the text at once.

    Runs against three scripted conversations (one call, two parallel calls, no call).
    """
    if not callable(single_step):
        return report(False, "single_step 应该是一个函数")

    # 1) one tool call, then an answer
    script = ScriptedModel([{"tool_calls": [("get_weather", {"city": "上海"})]}, "上海现在多云，28°C。"])
    answer, error = safely(single_step, script.client(), "上海天气怎么样？")
    if error:
        return report(False, f"single_step 出错：{error}")
    if not script.requests:
        return report(False, "single_step 没有发出任何请求")
    first = script.requests[0]
    names = [((t.get("function") or {}).get("name")) for t in first.get("tools") or []]
    if "get_weather" not in names:
        return report(False, "第一次请求要带上 tools=[WEATHER_TOOL]，模型才知道有 get_weather 可以用")
    if len(script.requests) != 2:
        return report(
            False,
            f"模型要求调用工具时，应该一共发 2 次请求（提问 + 带着工具结果再问），实际发了 {len(script.requests)} 次",
        )
    sent = normalize(script.requests[1].get("messages") or [])
    roles = _role_list(sent)
    if roles[-3:] != ["user", "assistant", "tool"]:
        return report(False, f"第二次请求的 messages 应该以 [user, assistant(tool_calls), tool] 结尾，实际是 {roles}")
    call_id = ScriptedModel.call_id(1)
    calls = sent[-2].get("tool_calls") or []
    if [c.get("id") for c in calls] != [call_id]:
        return report(False, "第二次请求里要带上模型那条带 tool_calls 的 assistant 消息（原样 append）")
    tool = sent[-1]
    if tool.get("tool_call_id") != call_id:
        return report(False, f"tool 消息的 tool_call_id 应该是 {call_id!r}（对应的调用 id）")
    if tool.get("content") != get_weather("上海"):
        return report(False, f"tool 消息的 content 应该是 get_weather('上海') 的结果 {get_weather('上海')!r}，实际是 {tool.get('content')!r}")
    if answer != "上海现在多云，28°C。":
        return report(False, f"single_step 应该返回第二次回答的文本，实际返回了 {answer!r}")

    # 2) two parallel calls: every id needs its own reply
    script = ScriptedModel(
        [{"tool_calls": [("get_weather", {"city": "北京"}), ("get_weather", {"city": "上海"})]}, "北京晴，上海多云。"]
    )
    answer, error = safely(single_step, script.client(), "北京和上海天气怎么样？")
    if error:
        return report(False, f"两个并行调用时 single_step 出错：{error}")
    if len(script.requests) != 2:
        return report(False, f"两个并行调用也只需要 2 次请求，实际发了 {len(script.requests)} 次")
    sent = normalize(script.requests[1].get("messages") or [])
    tools = [m for m in sent if m.get("role") == "tool"]
    want_ids = [ScriptedModel.call_id(1, 0), ScriptedModel.call_id(1, 1)]
    if [t.get("tool_call_id") for t in tools] != want_ids:
        return report(False, f"两个调用要有两条 tool 消息，tool_call_id 依次是 {want_ids}，实际是 {[t.get('tool_call_id') for t in tools]}")
    if [t.get("content") for t in tools] != [get_weather("北京"), get_weather("上海")]:
        return report(False, "两条 tool 消息的内容应该分别是北京和上海的天气")
    if answer != "北京晴，上海多云。":
        return report(False, f"single_step 应该返回最终回答的文本，实际返回了 {answer!r}")

    # 3) no tool needed
    script = ScriptedModel(["你好！我在。"])
    answer, error = safely(single_step, script.client(), "你好，在吗")
    if error:
        return report(False, f"不需要工具时 single_step 出错：{error}")
    if len(script.requests) != 1 or answer != "你好！我在。":
        return report(False, f"不需要工具时应该只发 1 次请求并直接返回回答；实际发了 {len(script.requests)} 次，返回 {answer!r}")
    return report(True, "一次调用、两个并行调用、不需要工具，三种情况都处理对了")
