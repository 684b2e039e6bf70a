"""Checkers for notebook 09 (compressed memory; tools from an MCP server).

* ``check_compress`` is exercise 09-1: one summary message instead of the oldest turns.
  Its helpers are its own (``_summary_*``).
* ``check_mcp_tool_schema`` is exercise 09-2: a plain function on fixed inputs - the
  tools the course's MCP server lists (``mcp_server.mcp_tool``, the SDK's
  ``mcp.types.Tool``), one tool without parameters and one without a description;
  no server is started.

Every sample handed to student code is built anew at each check (``summary_cases()``,
``mcp_sample_tools()``), and what the answer is compared with is built apart from it, so
an answer that changes its input can neither change the next check nor its own verdict.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from mcp import types

from ..mcp_server import REGISTRY, mcp_tool
from ..memory import is_summary, summary_message
from ..messages import MessageError, content_text, normalize, validate, validate_tools
from ..texts import shorten
from . import CheckResult, described, exercise, first_difference, report, safely, t

SUMMARY_TEXT = "用户叫小明，喜欢篮球；北京晴，25°C。"  # what the checker's summarize returns
SYSTEM_TEXT = "你是一个简洁的中文助手。"


def _summary_call(call_id: str, city: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": f'{{"city": "{city}"}}'}}


def summary_cases() -> list[list[dict]]:
    """The conversations ``check_compress`` hands the student's ``compress``, in order;
    new lists of new dicts at every call (an answer may change what it is given).

    1. ends with a whole tool-call turn (two calls, two tool replies);
    2. a tool-call turn in the middle, ends with a new user message;
    3. starts with an earlier summary message (it must reach ``summarize``: folded in);
    4. one turn only: nothing to compress;
    5. one turn only, with two tool calls, ending at their replies (as ``SummaryMemory``
       calls it after a tool message): nothing to compress, though it is longer than case 6;
    6. two short turns (4 messages): the first is compressed;
    7. the user says the same sentence twice: the last turn is found by its position,
       not by its text (``list.index`` finds the earlier one).
    """
    system = {"role": "system", "content": SYSTEM_TEXT}
    return [copy.deepcopy(case) for case in [
        [system,
         {"role": "user", "content": "我叫小红，想买一双跑鞋，预算 500 元。"},
         {"role": "assistant", "content": "好的小红，我记住了。"},
         {"role": "user", "content": "北京和上海哪里更热？"},
         {"role": "assistant", "content": None, "tool_calls": [_summary_call("call_bj", "北京"), _summary_call("call_sh", "上海")]},
         {"role": "tool", "tool_call_id": "call_bj", "content": "北京：晴，25°C"},
         {"role": "tool", "tool_call_id": "call_sh", "content": "上海：多云，28°C"},
         {"role": "assistant", "content": "上海更热，28°C。"}],
        [system,
         {"role": "user", "content": "你好，我叫小明，我喜欢篮球。"},
         {"role": "assistant", "content": "你好小明！"},
         {"role": "user", "content": "北京天气怎么样？"},
         {"role": "assistant", "content": None, "tool_calls": [_summary_call("call_1", "北京")]},
         {"role": "tool", "tool_call_id": "call_1", "content": "北京：晴，25°C"},
         {"role": "assistant", "content": "北京今天晴，25°C。"},
         {"role": "user", "content": "我叫什么名字？"}],
        [system,
         summary_message("用户叫小明，喜欢篮球。"),
         {"role": "user", "content": "上海呢？"},
         {"role": "assistant", "content": None, "tool_calls": [_summary_call("call_2", "上海")]},
         {"role": "tool", "tool_call_id": "call_2", "content": "上海：多云，28°C"},
         {"role": "assistant", "content": "上海多云，28°C。"},
         {"role": "user", "content": "我喜欢什么运动？"}],
        [system,
         {"role": "user", "content": "你好，我叫小明。"},
         {"role": "assistant", "content": "你好小明！"}],
        [system,
         {"role": "user", "content": "北京和上海哪里更热？"},
         {"role": "assistant", "content": None, "tool_calls": [_summary_call("call_bj", "北京"), _summary_call("call_sh", "上海")]},
         {"role": "tool", "tool_call_id": "call_bj", "content": "北京：晴，25°C"},
         {"role": "tool", "tool_call_id": "call_sh", "content": "上海：多云，28°C"}],
        [system,
         {"role": "user", "content": "你好，我叫小明。"},
         {"role": "assistant", "content": "你好小明！"},
         {"role": "user", "content": "我叫什么名字？"}],
        [system,
         {"role": "user", "content": "北京现在天气怎么样？"},
         {"role": "assistant", "content": None, "tool_calls": [_summary_call("call_bj_1", "北京")]},
         {"role": "tool", "tool_call_id": "call_bj_1", "content": "北京：晴，25°C"},
         {"role": "assistant", "content": "北京现在晴，25°C。"},
         {"role": "user", "content": "北京现在天气怎么样？"},
         {"role": "assistant", "content": None, "tool_calls": [_summary_call("call_bj_2", "北京")]},
         {"role": "tool", "tool_call_id": "call_bj_2", "content": "北京：多云，22°C"},
         {"role": "assistant", "content": "北京转多云了，22°C。"}],
    ]]


class _SummaryRecorder:
    """A ``summarize`` for the checker: keeps a copy of what it was given, returns ``SUMMARY_TEXT``."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def __call__(self, old_messages: Any) -> str:
        self.calls.append(copy.deepcopy(old_messages))
        return SUMMARY_TEXT


def _summary_roles(messages: Any) -> list:
    return [m.get("role") if isinstance(m, dict) else type(m).__name__ for m in messages]


def _summary_repeated_text(messages: list[dict]) -> str | None:
    """The last user message's text when an earlier user message says the same, else None."""
    users = [m.get("content") for m in messages if m.get("role") == "user"]
    return users[-1] if users and users[-1] in users[:-1] else None


def _summary_problem(result: list, messages: list[dict], summarize: _SummaryRecorder) -> str | None:
    """The hint for one case (``None`` when ``result`` is right)."""
    system, rest = messages[0], messages[1:]
    last = max(i for i, m in enumerate(rest) if m["role"] == "user")
    old, want = rest[:last], rest[last:]
    if not isinstance(result, list) or not all(isinstance(m, dict) for m in result):
        return t("check.09.summary.not_list", name=type(result).__name__ if not isinstance(result, list) else _summary_roles(result))
    if not old:  # one turn: nothing to replace
        if summarize.calls or result != messages:
            return t("check.09.summary.nothing_old", n_calls=len(summarize.calls), got=_summary_roles(result))
        return None
    if all(is_summary(m) for m in old) and not summarize.calls and result == messages:
        return None  # only an earlier summary before one turn: "one turn only" read this way is right too
    if not summarize.calls:
        return t("check.09.summary.no_call")
    if len(summarize.calls) > 1:
        return t("check.09.summary.calls", n_calls=len(summarize.calls))
    if system not in result:
        return t("check.09.summary.system_missing")
    if result[0] != system:
        return t("check.09.summary.system_first", role=result[0].get("role"))
    summary = result[1] if len(result) > 1 else {}
    if SUMMARY_TEXT not in content_text(summary.get("content")):
        return t("check.09.summary.summary_message", text=SUMMARY_TEXT, got=shorten(repr(summary or None), 200))
    if summary.get("role") != "user":
        return t("check.09.summary.summary_role", role=summary.get("role"))
    kept = result[2:]
    if kept != want:
        try:
            validate(normalize(kept))
        except (MessageError, TypeError) as exc:
            return t("check.09.summary.split", problem=exc)
        if want[0] not in kept:
            return t("check.09.summary.lost_last", text=want[0]["content"])
        return t("check.09.summary.kept", want=_summary_roles(want), got=_summary_roles(kept))
    given = list(summarize.calls[0]) if isinstance(summarize.calls[0], (list, tuple)) else []
    if given != old:  # exactly the messages between the system message and the last turn
        return t("check.09.summary.old_messages", want=_summary_roles(old), got=_summary_roles(given))
    return None


def _case_problem(compress: Any, messages: list[dict]) -> str | None:
    """Run ``compress`` on one conversation with a recording ``summarize``; the hint, or None."""
    before = copy.deepcopy(messages)
    summarize = _SummaryRecorder()
    result, error = safely(compress, messages, summarize)
    if error:
        return t("check.09.summary.error", error=error)
    try:
        modified = messages != before
    except Exception:  # noqa: BLE001 - something odd was written into the list
        modified = True
    if modified:
        return t("check.09.summary.modified")
    if result is messages:
        return t("check.09.summary.returned_input")
    problem = _summary_problem(result, before, summarize)
    if problem:
        repeated = _summary_repeated_text(before)
        if repeated is not None:
            problem += t("check.09.summary.repeated_user", text=repeated)
    return problem


_USER_TEXTS = ["北京天气怎么样？", "上海呢？", "我叫小明。", "足球多少钱？", "北京天气怎么样？", "买 2 个。"]
_CITIES = ["北京", "上海", "广州"]


def _conversations() -> Any:
    """A hypothesis strategy of ``(messages,)``: a system message, perhaps an earlier summary
    message, then 1 to 4 turns; a turn is a user message, 0 to 2 rounds of tool calls (1 or 2
    calls, each answered by a tool message) and, except perhaps in the last turn, an assistant
    answer.  User sentences repeat on purpose (the last turn is found by position)."""
    from hypothesis import strategies as st

    turn = st.tuples(st.sampled_from(_USER_TEXTS), st.lists(st.integers(min_value=1, max_value=2), max_size=2),
                     st.booleans())

    def build(parts: tuple) -> tuple:
        earlier, turns = parts
        messages: list[dict] = [{"role": "system", "content": SYSTEM_TEXT}]
        if earlier:
            messages.append(summary_message("用户叫小明，喜欢篮球。"))
        n = 0
        for k, (text, rounds, answered) in enumerate(turns):
            messages.append({"role": "user", "content": text})
            for calls in rounds:
                ids = [f"call_{(n := n + 1)}" for _ in range(calls)]
                messages.append({"role": "assistant", "content": None,
                                 "tool_calls": [_summary_call(i, _CITIES[j % 3]) for j, i in enumerate(ids)]})
                messages += [{"role": "tool", "tool_call_id": i, "content": f"{_CITIES[j % 3]}：晴，25°C"}
                             for j, i in enumerate(ids)]
            if answered or k < len(turns) - 1:
                messages.append({"role": "assistant", "content": f"回答 {k + 1}。"})
        return (messages,)

    return st.tuples(st.booleans(), st.lists(turn, min_size=1, max_size=4)).map(build)


@exercise("09-1")
def check_compress(compress: object) -> CheckResult:
    """Exercise 09-1: ``compress(messages, summarize) -> list[dict]``.

    ``messages`` starts with a system message; ``summarize(old_messages) -> str``
    writes a summary.  ``compress`` returns a NEW list: the system message, then
    ONE summary message ``{"role": "user", "content": <text containing what
    summarize returned>}``, then the last turn (from the last user message on)
    unchanged.  ``summarize`` is called once, with exactly the messages between the
    system message and the last turn (an earlier summary message included, the
    system message not).  With only one turn (tool calls or not) there is nothing
    to replace: the same messages come back in a new list (not the input list
    itself) and ``summarize`` is not called.  The input list must not be modified.

    Runs ``compress`` on the conversations of ``summary_cases()``, then on generated
    ones (``_conversations``), each with a recording ``summarize``; the first wrong
    case gives the hint.
    """
    if not callable(compress):
        return report(False, t("check.09.summary.not_function"))
    cases = summary_cases()
    found = first_difference(lambda messages: _case_problem(compress, messages), lambda messages: None,
                             inputs=_conversations(), examples=[(case,) for case in cases],
                             same=lambda got, want: got is None)
    if found is not None:
        return report(False, found.got if found.got else t("check.09.summary.error", error=found.error))
    return report(True, t("check.09.summary.passed", n_cases=len(cases)))


# ---------------------------------------------------------------- 09-2: an MCP tool as a chat request's tool

def mcp_sample_tools() -> list[types.Tool]:
    """What 09-2 converts, new objects at every call (an answer may change what it is given):
    the course server's four tools as ``tools/list`` gives them (their schemas copied, so
    nothing reaches the server's ``REGISTRY``), then a tool whose inputSchema has no
    ``properties`` (allowed by MCP, refused by some chat APIs), then a tool without a
    description (``None``: MCP allows it, a chat request's description is a string).  One more
    tool without ``properties`` has other keys, which must stay (a schema made anew loses them)."""
    course = [mcp_tool(REGISTRY.get(name)) for name in REGISTRY.names]
    return [types.Tool(name=tool.name, description=tool.description, input_schema=copy.deepcopy(tool.input_schema))
            for tool in course] + [
        types.Tool(name="list_cities", description="列出有天气数据的城市。", input_schema={"type": "object"}),
        types.Tool(name="get_time", description=None,
                   input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        types.Tool(name="server_status", description="服务器状态。",
                   input_schema={"type": "object", "additionalProperties": False, "title": "server_statusArguments"}),
    ]


def _parameters_problem(parameters: Any, tool: types.Tool) -> str | None:
    """Why ``parameters`` is not ``tool``'s inputSchema as an object schema with ``properties``, or None."""
    if not isinstance(parameters, dict):
        return t("check.09.mcp.parameters_not_dict", name=tool.name, kind=type(parameters).__name__)
    if parameters.get("type") != "object" or not isinstance(parameters.get("properties"), dict):
        return t("check.09.mcp.no_properties", name=tool.name, parameters=json.dumps(parameters, ensure_ascii=False))
    wanted = {"type": "object", "properties": {}, **tool.input_schema}
    if "required" not in tool.input_schema and parameters.get("required") == []:
        # "required": [] (notebook 03's template) says what a missing "required" says: nothing is required.
        parameters = {k: v for k, v in parameters.items() if k != "required"}
    if parameters != wanted:
        return t("check.09.mcp.parameters_differ", name=tool.name)
    return None


def _tool_problem(to_openai_tool: Any, given: types.Tool) -> str | None:
    """Why ``to_openai_tool(given)`` is wrong (or changed ``given``), or None; compared with a copy
    of ``given`` made before the call."""
    tool = given.model_copy(deep=True)
    got, error = safely(to_openai_tool, given)
    if error:
        return t("check.09.mcp.error", name=tool.name, error=error)
    if given.model_dump() != tool.model_dump():
        return t("check.09.mcp.modified", name=tool.name)
    if not isinstance(got, dict):
        return t("check.09.mcp.not_dict", name=tool.name, kind=described(got))
    if got.get("type") != "function" or not isinstance(got.get("function"), dict):
        return t("check.09.mcp.no_wrapper", name=tool.name, keys=sorted(map(str, got)))
    function = got["function"]
    if function.get("name") != tool.name:
        return t("check.09.mcp.name", name=tool.name, got=described(function.get("name")))
    if tool.description is None:
        if not isinstance(function.get("description"), str):
            return t("check.09.mcp.description_none", name=tool.name, got=repr(function.get("description"))
                     if function.get("description") is None else described(function.get("description")))
        if function["description"].strip().lower() in ("none", "null"):  # str(None) or json.dumps(None)
            return t("check.09.mcp.description_str_none", name=tool.name, got=repr(function["description"]))
        if function["description"] != "":  # the task: None becomes "" (a made-up text misleads the model)
            return t("check.09.mcp.description_empty", name=tool.name, got=repr(function["description"]))
    elif function.get("description") != tool.description:
        return t("check.09.mcp.description", name=tool.name)
    if "parameters" not in function:
        return t("check.09.mcp.no_parameters", name=tool.name, keys=sorted(map(str, function)))
    problem = _parameters_problem(function["parameters"], tool)
    if problem:
        return problem
    try:
        json.dumps(got)
        validate_tools([got])
    except (TypeError, ValueError) as exc:  # not JSON; a name the API refuses (messages.ToolSchemaError)
        return t("check.09.mcp.not_sendable", name=tool.name, error=exc)
    return None


def _generated_tools() -> Any:
    """A hypothesis strategy of ``(tool,)``: a name the API accepts, a description (text or None) and an object schema with or without ``properties`` and ``required``, sometimes with
    other keys (``title``, ``additionalProperties``, ``$schema``) that must travel unchanged."""
    from hypothesis import strategies as st

    name = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
    spec = st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "number", "boolean"])},
                                 optional={"description": st.sampled_from(["城市名", "数量", ""])})
    properties = st.dictionaries(name, spec, max_size=3)
    extra = st.fixed_dictionaries({}, optional={"title": st.sampled_from(["args", "参数"]),
                                                "additionalProperties": st.booleans(),
                                                "$schema": st.just("http://json-schema.org/draft-07/schema#")})

    def schema(parts: tuple) -> Any:
        props, has_props, more = parts
        body = {"type": "object", **more}
        if has_props:
            body["properties"] = props
            return st.lists(st.sampled_from(sorted(props) or ["x"]), unique=True, max_size=len(props)).map(
                lambda required: {**body, "required": required} if required and props else body)
        return st.just(body)

    schemas = st.tuples(properties, st.booleans(), extra).flatmap(schema)
    description = st.one_of(st.none(), st.sampled_from(["查询天气。", "列出城市。", "下单。"]))
    return st.tuples(name, description, schemas).map(
        lambda p: (types.Tool(name=p[0], description=p[1], input_schema=p[2]),))


@exercise("09-2")
def check_mcp_tool_schema(to_openai_tool: object) -> CheckResult:
    """Exercise 09-2: ``to_openai_tool(mcp_tool)`` turns one MCP tool (``name``, ``description``,
    ``input_schema``) into a chat request's tool:
    ``{"type": "function", "function": {"name", "description", "parameters": input_schema}}``,
    with ``{"type": "object", "properties": {}}`` as the least a tool without parameters gets
    (every other key of the schema kept), ``""`` as the description of a tool whose description
    is None (as the task says), and the given tool left unchanged.

    First the ``mcp_sample_tools()``, then generated tools (``_generated_tools``); each answer is
    compared with a copy of its tool made before the call, so changing the given tool is seen
    and changes no verdict.
    """
    if not callable(to_openai_tool):
        return report(False, t("check.09.mcp.not_callable"))
    tools = mcp_sample_tools()
    found = first_difference(lambda tool: _tool_problem(to_openai_tool, tool), lambda tool: None,
                             inputs=_generated_tools(), examples=[(tool,) for tool in tools],
                             same=lambda got, want: got is None)
    if found is not None:
        return report(False, found.got if found.got else t("check.09.mcp.error", name="?", error=found.error))
    return report(True, t("check.09.mcp.passed", n_tools=len(tools)))
