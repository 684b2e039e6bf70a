# Exercise 05-2: answers written from the task text alone (notebooks/05_react.ipynb), without reading the checker.
# %% wrong: adds its own "Observation: " in front of corrective_observation, whose default prefix already is "Observation: " (the message starts "Observation: Observation: ")
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    if parsed.kind == "action":
        return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)
    if parsed.kind == "invalid":
        return "Observation: " + corrective_observation(parsed, "A", registry.names)
    return None
# %% wrong: the corrective message restates protocol "B" (the JSON format) instead of protocol "A"
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    if parsed.kind == "action":
        return f"Observation: {run_tool(registry, parsed.action, parsed.action_input)}"
    if parsed.kind == "invalid":
        return corrective_observation(parsed, "B", registry.names)
    return None
# %% wrong: passes the protocol-A text input straight to registry.call, which wants an arguments dict, so the tool never runs and the Observation is an error
from course_lib.react_parser import corrective_observation


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    if parsed.kind == "action":
        result, ok = registry.call(parsed.action, parsed.action_input)
        return f"Observation: {result}"
    if parsed.kind == "invalid":
        return corrective_observation(parsed, "A", registry.names)
    return None
# %% wrong: no space after the colon: returns "Observation:<结果>" instead of "Observation: <结果>"
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    if parsed.kind == "action":
        return "Observation:" + run_tool(registry, parsed.action, parsed.action_input)
    if parsed.kind == "invalid":
        return corrective_observation(parsed, "A", registry.names)
    return None
# %% wrong: for kind "answer" it returns the answer text instead of None, so the loop never learns that it is done
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    if parsed.kind == "action":
        return f"Observation: {run_tool(registry, parsed.action, parsed.action_input)}"
    if parsed.kind == "invalid":
        return corrective_observation(parsed, "A", registry.names)
    return parsed.answer
# %% wrong: an if/else on "action" only: every other kind, "answer" included, gets the corrective message instead of None
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    if parsed.kind == "action":
        return f"Observation: {run_tool(registry, parsed.action, parsed.action_input)}"
    else:
        return corrective_observation(parsed, "A", registry.names)
# %% wrong: the corrective message is built with a hard-coded list of the four default tool names instead of registry.names
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation

TOOL_NAMES = ["get_weather", "calculate", "query_by_product_name", "search_knowledge"]


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    if parsed.kind == "action":
        return f"Observation: {run_tool(registry, parsed.action, parsed.action_input)}"
    if parsed.kind == "invalid":
        return corrective_observation(parsed, "A", TOOL_NAMES)
    return None
# %% wrong: for kind "answer" it returns an empty string "" instead of None
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    message = ""
    if parsed.kind == "action":
        message = "Observation: " + run_tool(registry, parsed.action, parsed.action_input)
    elif parsed.kind == "invalid":
        message = corrective_observation(parsed, "A", registry.names)
    return message
# %% right: if / elif with run_tool and corrective_observation, explicit None for the answer
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    if parsed.kind == "answer":
        return None
    if parsed.kind == "action":
        result = run_tool(registry, parsed.action, parsed.action_input)
        return f"Observation: {result}"
    if parsed.kind == "invalid":
        return corrective_observation(parsed, "A", registry.names)
    return None
# %% right: match statement; the tool runs through registry.call with tool_arguments, and the corrective text is built with prefix="" and the label added by hand
from course_lib.react import tool_arguments
from course_lib.react_parser import corrective_observation


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    match parsed.kind:
        case "action":
            arguments = tool_arguments(registry, parsed.action, parsed.action_input)
            text, _ok = registry.call(parsed.action, arguments)
            return "Observation: " + text
        case "invalid":
            return "Observation: " + corrective_observation(parsed, "A", registry.names, prefix="")
        case _:
            return None
# %% right: a dispatch table of small functions keyed by kind; .get returns None for "answer"
import course_lib.react as react
import course_lib.react_parser as react_parser


def _observe(parsed, registry):
    return "Observation: %s" % react.run_tool(registry, parsed.action, parsed.action_input)


def _correct(parsed, registry):
    return react_parser.corrective_observation(parsed, "A", list(registry.names))


HANDLERS = {"action": _observe, "invalid": _correct}


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    handler = HANDLERS.get(parsed.kind)
    return handler(parsed, registry) if handler else None
