# Exercise 04-2: answers written from the task text alone (notebooks/04_sports_equipment.ipynb), without reading the checker.
# %% wrong: catches the unknown name and the bad JSON, but not TypeError, so a wrong parameter name still raises
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    if name not in functions:
        return f"错误：没有工具 {name}。可用的工具：{', '.join(functions)}"
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError as e:
        return f"错误：arguments 不是合法的 JSON：{e}"
    return str(functions[name](**args))
# %% wrong: one broad `except Exception` returns "错误：" + the exception text, so an unknown tool gives "错误：'foo'" without listing the available tool names
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    try:
        name = call["function"]["name"]
        args = json.loads(call["function"]["arguments"])
        return str(functions[name](**args))
    except Exception as e:
        return f"错误：{e}"
# %% wrong: looks the tool up with functions.get, so an unknown name becomes "None is not callable" and lands in the TypeError branch: the message never lists the available tools
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    try:
        args = json.loads(call["function"]["arguments"])
    except ValueError:
        return "错误：参数不是合法的 JSON，请重新生成。"
    function = functions.get(name)
    try:
        return str(function(**args))
    except TypeError as e:
        return f"错误：参数不对：{e}"
# %% wrong: the error strings start with "调用失败" / "Error" instead of with 错误
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    if name not in functions:
        return f"调用失败，错误：工具 {name} 不存在。可用的工具：{', '.join(functions)}"
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError as e:
        return f"Error: invalid JSON arguments ({e})"
    try:
        return str(functions[name](**args))
    except TypeError as e:
        return f"调用失败，错误：参数名不对（{e}）"
# %% wrong: normal case returns the function's raw value (a number stays a number) instead of a string
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    if name not in functions:
        return "错误：工具 " + name + " 不存在，可用的工具有：" + "、".join(functions.keys())
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError:
        return "错误：arguments 不是合法的 JSON"
    try:
        return functions[name](**args)
    except TypeError as e:
        return "错误：参数不对：" + str(e)
# %% wrong: the JSON is parsed outside any try (as in the given cell): arguments that are not valid JSON still raise JSONDecodeError
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    args = json.loads(call["function"]["arguments"])
    if name not in functions:
        return f"错误：工具 {name} 不存在。可用的工具：{', '.join(functions)}"
    try:
        return str(functions[name](**args))
    except TypeError as e:
        return f"错误：参数不对：{e}"
# %% wrong: the normal result is passed through json.dumps, so a string result comes back quoted and with \uXXXX escapes instead of the function's own text
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    if name not in functions:
        return f"错误：工具 {name} 不存在。可用的工具：{list(functions)}"
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError:
        return "错误：arguments 不是合法的 JSON"
    try:
        return json.dumps(functions[name](**args))  # 保证返回的是字符串
    except TypeError as e:
        return f"错误：参数不对：{e}"
# %% right: three guarded steps (look-up, json.loads, call), each with its own 错误 message; the unknown-name message lists the names
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    if name not in functions:
        available = ", ".join(functions)
        return f"错误：工具 {name} 不存在。可用的工具：{available}"
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError as e:
        return f"错误：arguments 不是合法的 JSON（{e}），请重新生成参数。"
    if not isinstance(args, dict):
        return f"错误：arguments 必须是 JSON 对象，收到的是 {type(args).__name__}"
    try:
        result = functions[name](**args)
    except TypeError as e:
        return f"错误：工具 {name} 的参数不对：{e}"
    except Exception as e:
        return f"错误：工具 {name} 运行出错：{type(e).__name__}: {e}"
    return str(result)
# %% right: EAFP style with try/except KeyError, (ValueError, TypeError) for the JSON and a catch-all around the call; names listed sorted
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    function_part = call.get("function") or {}
    name = function_part.get("name")
    try:
        function = functions[name]
    except (KeyError, TypeError):
        names = "、".join(sorted(functions))
        return "错误：没有叫 " + repr(name) + " 的工具。可用的工具：" + names

    raw = function_part.get("arguments")
    try:
        args = json.loads(raw)
    except (ValueError, TypeError) as e:
        return "错误：参数不是合法的 JSON：" + str(e)

    try:
        return str(function(**args))
    except TypeError as e:
        return "错误：参数名不对或缺少参数：" + str(e)
    except Exception as e:  # 工具内部的其它异常也不能让对话中断
        return "错误：工具运行失败：" + f"{type(e).__name__}: {e}"
