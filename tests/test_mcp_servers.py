"""MCP servers as they are (issue 30): noisy stdout, stderr in the system's encoding, a slow start,
a server that dies, tool names and input schemas that a chat API refuses.

Real server processes only (small SDK servers written to tmp_path, or ``python -c``), started
with this Python; the chat requests go through the real ``openai`` client to ``StrictLLM``,
which answers 400 to the tools an OpenAI-style endpoint refuses.
"""

from __future__ import annotations

import re
import sys
import time
import warnings

import pytest

from fakes import StrictLLM

from course_lib.agent import Agent
from course_lib.mcp_client import McpError, McpTools
from course_lib.messages import validate

pytestmark = pytest.mark.timeout(120)

SERVER_HEAD = '''
import sys, anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
'''

SERVER_TAIL = '''
async def call_tool(ctx, params):
    if params.name == "crash":
        import os
        os._exit(1)
    return types.CallToolResult(content=[types.TextContent(type="text", text=params.name + " " + repr(params.arguments))])


server = Server("test-server", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())

anyio.run(main)
'''

# Tools whose names and schemas an OpenAI-style endpoint refuses, next to ones it takes.
POINT = {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]}
WILD_TOOLS = '''
READ_ONLY = types.ToolAnnotations(read_only_hint=True)
OBJECT = {"type": "object", "properties": {"q": {"type": "string"}}}
POINT = %(point)r
SCHEMAS = {
    "notes.search": OBJECT,
    "fs/read": OBJECT,
    "fs_read": OBJECT,
    "a" * 100: OBJECT,
    "union": {"type": "object", "anyOf": [
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        {"type": "object", "properties": {"lat": {"type": "number"}}, "required": ["lat", "lon"]}]},
    "either": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
               "oneOf": [{"required": ["id"]}, {"required": ["name"]}]},
    "with_defs": {"type": "object", "properties": {"point": {"$ref": "#/$defs/Point"}}, "required": ["point"],
                  "$defs": {"Point": POINT}},
    "tree": {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
             "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array",
                                                                               "items": {"$ref": "#/$defs/Node"}}}}}},
    "remote": {"type": "object", "properties": {"p": {"$ref": "https://example.com/point.json"}}},
    "plain": OBJECT,
}


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name=n, input_schema=s, annotations=READ_ONLY)
                                        for n, s in SCHEMAS.items()])
''' % {"point": POINT}

PLAIN_TOOLS = '''
async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name=n, input_schema={"type": "object"}) for n in ("echo", "crash")])
'''

API_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # OpenAI's pattern for a function name


def openai_tools_check(body: dict) -> str | None:
    """What an OpenAI-style endpoint answers (HTTP 400) for tools it refuses: a name outside
    ``^[a-zA-Z0-9_-]{1,64}$``, parameters that are not an object schema at the top, a top-level
    ``anyOf``/``oneOf``/``allOf``/``enum``/``not``, or ``$ref``/``$defs`` (refused by some compatible endpoints; issue 30)."""
    for i, tool in enumerate(body.get("tools") or []):
        function = tool["function"]
        if not API_NAME.match(function["name"]):
            return f"Invalid 'tools[{i}].function.name': string does not match pattern '^[a-zA-Z0-9_-]+$'."
        parameters = function.get("parameters", {})
        if parameters.get("type") != "object" or any(k in parameters for k in ("anyOf", "oneOf", "allOf", "enum", "not")):
            return (f"Invalid schema for function '{function['name']}': schema must be a JSON Schema of 'type: \"object\"' "
                    "and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level.")
        if "$ref" in str(parameters) or "$defs" in str(parameters):
            return f"Invalid schema for function '{function['name']}': $ref is not supported."
    return None


def write_server(tmp_path, tools: str, head: str = "") -> list[str]:
    path = tmp_path / "server.py"
    path.write_text(SERVER_HEAD + head + tools + SERVER_TAIL, encoding="utf-8")
    return [str(path)]


@pytest.fixture
def wild(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tools = McpTools(sys.executable, write_server(tmp_path, WILD_TOOLS))
    with tools:
        yield tools, [str(w.message) for w in caught]


# --------------------------------------------------------------------------- stdout, stderr, start, death


def test_a_server_that_prints_to_stdout_still_works_with_one_notice(tmp_path, caplog):
    noise = 'print("服务器启动了 v1.0"); print("loading...", flush=True)\n'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with McpTools(sys.executable, write_server(tmp_path, PLAIN_TOOLS, head=noise)) as tools:
            assert tools.call("echo", {"x": 1}) == ("echo {'x': 1}", True)
            assert tools.call("echo", {}) == ("echo {}", True)
    notices = [str(w.message) for w in caught]
    assert len(notices) == 1, notices
    assert "stdout" in notices[0] and "服务器启动了 v1.0" in notices[0] and "stderr" in notices[0]
    assert not [r for r in caplog.records if r.exc_info], "an SDK traceback reached the cell"
    assert [e["kind"] for e in tools.log].count("unreadable") == 2  # both lines are in the log


def test_stderr_in_the_systems_own_encoding_is_readable(tmp_path):
    # Chinese Windows writes a program's stderr in GBK (code page 936), not UTF-8.
    # The bytes are written from hex, so that the command line (which the error also shows) does not hold the text.
    gbk = "找不到配置文件 config.json".encode("gbk").hex()
    script = f"import sys; sys.stderr.buffer.write(bytes.fromhex('{gbk}')); sys.exit(2)"
    with pytest.raises(McpError) as caught:
        McpTools(sys.executable, ["-c", script])
    assert "找不到配置文件 config.json" in str(caught.value)


def test_a_slow_start_names_the_setting_and_shows_the_last_stderr_lines():
    script = "import sys, time; print('正在加载索引……', file=sys.stderr, flush=True); time.sleep(60)"
    began = time.monotonic()
    with pytest.raises(McpError) as caught:
        McpTools(sys.executable, ["-c", script], start_timeout_s=1)
    assert time.monotonic() - began < 10
    message = str(caught.value)
    assert "start_timeout_s" in message and "正在加载索引" in message


def test_a_dead_servers_error_says_how_to_go_on(tmp_path):
    with McpTools(sys.executable, write_server(tmp_path, PLAIN_TOOLS), timeout_s=10) as tools:
        with pytest.raises(McpError) as first:
            tools.call("crash", {})
        assert "已经退出" in str(first.value) and "McpTools(" in str(first.value)
        began = time.monotonic()
        with pytest.raises(McpError) as again:  # the next call too, and quickly
            tools.call("echo", {})
        assert time.monotonic() - began < 5 and "McpTools(" in str(again.value)


# --------------------------------------------------------------------------- names and schemas


def test_tool_names_with_dots_and_slashes_are_mapped_to_api_names_and_back(wild):
    tools, _ = wild
    names = tools.names
    assert all(API_NAME.match(n) for n in names)
    assert "notes_search" in names and "fs_read" in names and "plain" in names
    assert len(set(names)) == len(names)  # "fs/read" does not take the name of "fs_read"
    assert [s["function"]["name"] for s in tools.schemas()] == names
    text, ok = tools.call("notes_search", {"q": "作业"})
    assert (text, ok) == ("notes.search {'q': '作业'}", True)  # the server got its own name
    sent = [e["message"]["params"]["name"] for e in tools.log if e["method"] == "tools/call" and e["kind"] == "request"]
    assert sent == ["notes.search"]
    assert tools.call("fs_read", {}) == ("fs_read {}", True)
    renamed = next(n for n in names if n.startswith("fs_read") and n != "fs_read")
    assert tools.call(renamed, {}) == ("fs/read {}", True)
    assert tools.call("a" * 64, {}) == ("a" * 100 + " {}", True)


def test_schemas_the_api_refuses_are_normalized_or_left_out_with_a_notice(wild):
    tools, notices = wild
    schemas = {s["function"]["name"]: s["function"]["parameters"] for s in tools.schemas()}
    assert schemas["union"] == {"type": "object", "properties": {"city": {"type": "string"}, "lat": {"type": "number"}}}
    assert schemas["either"] == {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
    assert schemas["with_defs"] == {"type": "object", "properties": {"point": POINT}, "required": ["point"]}
    assert schemas["plain"] == {"type": "object", "properties": {"q": {"type": "string"}}}  # untouched
    assert "tree" not in schemas and "remote" not in schemas  # a recursive $ref; a $ref to another document
    assert len(notices) == 2 and any("tree" in n for n in notices) and any("remote" in n for n in notices)
    assert all("$ref" in n for n in notices)
    assert "tree" not in tools.names and set(tools.left_out) == {"tree", "remote"}
    text, ok = tools.call("tree", {})
    assert ok is False and "$ref" in text and "递归" in text  # says why, without asking the server


def test_the_agent_runs_over_a_wild_server_without_a_400(wild):
    tools, _ = wild
    fake = StrictLLM(openai_tools_check, [{"tool_calls": [("notes_search", {"q": "作业"})]}, "找到了。"])
    agent = Agent(fake.client(), "fake-model", registry=tools, tools=tools.schemas(), trace=None)
    result = agent.run("找一下作业的笔记")
    assert fake.rejected == [] and result.answer == "找到了。"
    validate(agent.messages)
    assert agent.messages[-2]["content"] == "notes.search {'q': '作业'}"
