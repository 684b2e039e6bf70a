# Exercise 03-2: answers written from the task text alone (notebooks/03_function_calling.ipynb), without reading the checker.
# %% wrong: content is the function's raw return value, so a tool that returns a number gives an int, not a string
import json


def answer_tool_calls(message, functions):
    """`message` 的每个工具调用对应一条 role="tool" 消息，顺序不变。"""
    tool_messages = []
    for call in message.tool_calls:
        args = json.loads(call.function.arguments)
        result = functions[call.function.name](**args)
        tool_messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return tool_messages
# %% wrong: only the first tool call is answered (message.tool_calls[0]); parallel calls get no reply
import json


def answer_tool_calls(message, functions):
    """`message` 的每个工具调用对应一条 role="tool" 消息，顺序不变。"""
    tool_messages = []
    call = message.tool_calls[0]
    args = json.loads(call.function.arguments)
    result = functions[call.function.name](**args)
    tool_messages.append({"role": "tool", "tool_call_id": call.id, "content": str(result)})
    return tool_messages
# %% wrong: tool_call_id is filled with the function name instead of the call's id
import json


def answer_tool_calls(message, functions):
    """`message` 的每个工具调用对应一条 role="tool" 消息，顺序不变。"""
    tool_messages = []
    for call in message.tool_calls:
        name = call.function.name
        args = json.loads(call.function.arguments)
        tool_messages.append({"role": "tool", "tool_call_id": name, "content": str(functions[name](**args))})
    return tool_messages
# %% wrong: results are collected in a dict keyed by tool name, so two calls of the same tool collapse into one message
import json


def answer_tool_calls(message, functions):
    """`message` 的每个工具调用对应一条 role="tool" 消息，顺序不变。"""
    by_name = {}
    for call in message.tool_calls:
        name = call.function.name
        args = json.loads(call.function.arguments)
        by_name[name] = {"role": "tool", "tool_call_id": call.id, "content": str(functions[name](**args))}
    tool_messages = list(by_name.values())
    return tool_messages
# %% wrong: the calls are popped off the end of a copied list, so the tool messages come back in reverse order
import json


def answer_tool_calls(message, functions):
    """`message` 的每个工具调用对应一条 role="tool" 消息，顺序不变。"""
    tool_messages = []
    pending = list(message.tool_calls)
    while pending:
        call = pending.pop()
        args = json.loads(call.function.arguments)
        result = functions[call.function.name](**args)
        tool_messages.append({"role": "tool", "tool_call_id": call.id, "content": str(result)})
    return tool_messages
# %% wrong: `str(result or "")` turns a numeric result 0 (or 0.0) into an empty content instead of "0"
import json


def answer_tool_calls(message, functions):
    """`message` 的每个工具调用对应一条 role="tool" 消息，顺序不变。"""
    tool_messages = []
    for call in message.tool_calls:
        args = json.loads(call.function.arguments)
        result = functions[call.function.name](**args)
        tool_messages.append({"role": "tool", "tool_call_id": call.id, "content": str(result or "")})
    return tool_messages
# %% wrong: the message uses role "function" (the old API) instead of role "tool"
import json


def answer_tool_calls(message, functions):
    """`message` 的每个工具调用对应一条 role="tool" 消息，顺序不变。"""
    tool_messages = []
    for call in message.tool_calls:
        args = json.loads(call.function.arguments)
        result = functions[call.function.name](**args)
        tool_messages.append({"role": "function", "tool_call_id": call.id, "content": str(result)})
    return tool_messages
# %% right: plain loop with attribute access and str() on every result
import json


def answer_tool_calls(message, functions):
    """`message` 的每个工具调用对应一条 role="tool" 消息，顺序不变。"""
    tool_messages = []
    for call in message.tool_calls:
        func = functions[call.function.name]
        args = json.loads(call.function.arguments)
        result = func(**args)
        tool_messages.append({
            "role": "tool",
            "tool_call_id": call.id,
            "content": str(result),
        })
    return tool_messages
# %% right: a list comprehension over a helper; non-string results become JSON text (300 -> "300")
import json


def _run_one(call, functions):
    """运行一个调用，结果一定是字符串。"""
    result = functions[call.function.name](**json.loads(call.function.arguments))
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False)


def answer_tool_calls(message, functions):
    """`message` 的每个工具调用对应一条 role="tool" 消息，顺序不变。"""
    tool_messages = [
        {"role": "tool", "tool_call_id": call.id, "content": _run_one(call, functions)}
        for call in (message.tool_calls or [])
    ]
    return tool_messages
# %% right: map() over the calls with a nested function, the dict() constructor and an f-string conversion
import json


def answer_tool_calls(message, functions):
    """`message` 的每个工具调用对应一条 role="tool" 消息，顺序不变。"""
    def to_message(call):
        name = call.function.name
        arguments = json.loads(call.function.arguments or "{}")
        value = functions[name](**arguments)
        return dict(role="tool", tool_call_id=call.id, content=f"{value}")

    tool_messages = list(map(to_message, message.tool_calls))
    return tool_messages
