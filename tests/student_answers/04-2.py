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
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: catches JSONDecodeError and an unknown name but not TypeError, so a wrong parameter name still raises
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    if name not in functions:
        return f"错误：没有叫 {name} 的工具。可用的工具：{', '.join(functions)}"
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError as exc:
        return f"错误：arguments 不是合法的 JSON：{exc}"
    return str(functions[name](**args))
# %% wrong: the unknown-tool message starts with 错误 but does not list the available tool names
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    if name not in functions:
        return f"错误：工具 {name} 不存在，请换一个工具。"
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError:
        return "错误：arguments 不是合法的 JSON"
    try:
        return str(functions[name](**args))
    except TypeError as exc:
        return f"错误：参数不对：{exc}"
# %% wrong: functions.get(name) gives None for a made-up name; calling None is caught as a TypeError, so the message never lists the tools
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError:
        return "错误：arguments 不是合法的 JSON，请重新生成参数"
    func = functions.get(name)
    try:
        return str(func(**args))
    except TypeError as exc:
        return f"错误：调用 {name} 失败，参数不对：{exc}"
# %% wrong: every error message starts with English "Error:" instead of 错误
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    if name not in functions:
        return f"Error: unknown tool {name!r}; available tools: {', '.join(functions)}"
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError as exc:
        return f"Error: arguments is not valid JSON ({exc})"
    try:
        return str(functions[name](**args))
    except TypeError as exc:
        return f"Error: wrong arguments for {name}: {exc}"
# %% wrong: the unknown-tool message is "未知工具 ... 错误" - it mentions 错误 but does not start with it
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    if name not in functions:
        return f"未知工具「{name}」（错误）。可用的工具有：{'、'.join(functions)}"
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError:
        return "错误：arguments 不是合法的 JSON"
    try:
        return str(functions[name](**args))
    except TypeError as exc:
        return f"错误：参数名不对：{exc}"
# %% wrong: the normal result is passed through json.dumps, so a string result comes back wrapped in quotes (and escaped) instead of as it is
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    if name not in functions:
        return f"错误：没有工具 {name}，可用的工具：{', '.join(functions)}"
    try:
        args = json.loads(call["function"]["arguments"])
        result = functions[name](**args)
    except json.JSONDecodeError:
        return "错误：arguments 不是合法的 JSON"
    except TypeError as exc:
        return f"错误：参数不对：{exc}"
    return json.dumps(result)
# %% wrong: only the three named errors are caught; any other exception the tool itself raises (ValueError, ZeroDivisionError...) still escapes, though it must never raise
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    function = call["function"]
    if function["name"] not in functions:
        return f"错误：工具 {function['name']} 不存在。可用：{', '.join(sorted(functions))}"
    try:
        args = json.loads(function["arguments"])
    except json.JSONDecodeError:
        return "错误：arguments 不是合法的 JSON"
    try:
        result = functions[function["name"]](**args)
    except TypeError as exc:
        return f"错误：参数不对（{exc}）"
    return str(result)
# %% wrong: writes the parsed arguments back into the caller's call dict (call["function"]["arguments"] becomes a dict), mutating the input
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    fn = call["function"]
    if fn["name"] not in functions:
        return f"错误：没有这个工具：{fn['name']}。可用的工具：{', '.join(functions)}"
    try:
        if isinstance(fn["arguments"], str):
            fn["arguments"] = json.loads(fn["arguments"])
    except json.JSONDecodeError:
        return "错误：arguments 不是合法的 JSON"
    try:
        return str(functions[fn["name"]](**fn["arguments"]))
    except Exception as exc:
        return f"错误：{type(exc).__name__}: {exc}"
# %% wrong: valid JSON that is not an object (e.g. "[1, 2]" or "null") crashes in args.items() outside any try, so it raises AttributeError
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    func = functions.get(name)
    if func is None:
        return f"错误：模型请求的工具 {name} 不存在；可用的工具：{list(functions)}"
    try:
        args = json.loads(call["function"]["arguments"])
    except ValueError:
        return "错误：arguments 不是合法的 JSON"
    shown = ", ".join(f"{key}={value!r}" for key, value in args.items())
    try:
        return str(func(**args))
    except TypeError as exc:
        return f"错误：{name}({shown}) 的参数不对：{exc}"
# %% right: one try around everything - name checked first, then JSONDecodeError, TypeError and a catch-all for the tool's own failures
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    available = "、".join(functions) or "（无）"
    try:
        name = call["function"]["name"]
        raw = call["function"]["arguments"]
        if name not in functions:
            return f"错误：没有名为「{name}」的工具。可用的工具：{available}"
        args = json.loads(raw)
        if not isinstance(args, dict):
            return "错误：arguments 必须是一个 JSON 对象，例如 {\"city\": \"北京\"}"
        result = functions[name](**args)
    except json.JSONDecodeError as exc:
        return f"错误：arguments 不是合法的 JSON（{exc.msg}），请重新生成"
    except TypeError as exc:
        return f"错误：参数不对：{exc}。请按工具说明书里的参数名重新调用"
    except Exception as exc:  # the tool itself failed: still never raise at the model
        return f"错误：工具 {name} 运行时出错：{type(exc).__name__}: {exc}"
    return result if isinstance(result, str) else str(result)
# %% right: guard-clause style with inspect.signature().bind to check the argument names before calling
import inspect
import json


def _fail(text):
    return "错误：" + text


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    spec = call.get("function") or {}
    name = spec.get("name")
    func = functions.get(name) if isinstance(name, str) else None
    if func is None:
        return _fail(f"未知的工具 {name!r}。可用的工具：{', '.join(sorted(functions))}")
    try:
        args = json.loads(spec.get("arguments"))
    except (TypeError, ValueError) as exc:
        return _fail(f"无法把 arguments 解析成 JSON：{exc}")
    if not isinstance(args, dict):
        return _fail("arguments 应该是 JSON 对象")
    try:
        inspect.signature(func).bind(**args)
    except TypeError as exc:
        return _fail(f"{name} 的参数不对：{exc}")
    except ValueError:
        pass  # a builtin without a signature: let the call decide
    try:
        return str(func(**args))
    except Exception as exc:
        return _fail(f"{name} 执行失败：{exc!r}")
