"""MCP tools that may change something wait for a person (issue 30), and a write that times out says so.

A real SDK server process (written to tmp_path) marks its tools with the specification's
``ToolAnnotations`` (revision 2025-11-25, server/tools): ``readOnlyHint`` true, ``destructiveHint``
true, or nothing at all.  Only a tool that says it is read-only runs without a person's decision.
"""

from __future__ import annotations

import sys

import pytest

from fakes import FakeLLM

from course_lib.agent import Agent
from course_lib.approval import Decision
from course_lib.mcp_client import McpError, McpTools
from course_lib.messages import validate

pytestmark = pytest.mark.timeout(120)

APPROVAL_SERVER = '''
import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

OBJECT = {"type": "object", "properties": {"seconds": {"type": "number"}}}
TOOLS = [
    types.Tool(name="read_note", input_schema=OBJECT, annotations=types.ToolAnnotations(read_only_hint=True)),
    types.Tool(name="delete_note", input_schema=OBJECT, annotations=types.ToolAnnotations(destructive_hint=True)),
    types.Tool(name="add_note", input_schema=OBJECT),  # says nothing: it may write
    types.Tool(name="append_note", input_schema=OBJECT,
               annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False)),
    types.Tool(name="titled", input_schema=OBJECT, annotations=types.ToolAnnotations(title="只有标题")),
]


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    await anyio.sleep((params.arguments or {}).get("seconds", 0))
    return types.CallToolResult(content=[types.TextContent(type="text", text=params.name + " 完成")])


server = Server("approval-server", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())

anyio.run(main)
'''


@pytest.fixture
def server(tmp_path):
    path = tmp_path / "approval_server.py"
    path.write_text(APPROVAL_SERVER, encoding="utf-8")
    return [str(path)]


def calls_sent(tools: McpTools) -> list[str]:
    """The names of the tools/call requests that reached the server."""
    return [e["message"]["params"]["name"] for e in tools.log if e["method"] == "tools/call" and e["kind"] == "request"]


def test_only_tools_that_say_they_are_read_only_run_without_approval(server):
    with McpTools(sys.executable, server) as tools:
        assert tools.approval_names() == ["delete_note", "add_note", "append_note", "titled"]


def test_the_agent_waits_before_a_destructive_mcp_tool_runs(server):
    fake = FakeLLM([{"tool_calls": [("delete_note", {})]}, "好的，没有删除。"])
    with McpTools(sys.executable, server) as tools:
        agent = Agent(fake.client(), "fake-model", registry=tools, tools=tools.schemas(), trace=None)
        agent.start("把笔记删掉")
        agent.step()
        assert [c.name for c in agent.waiting] == ["delete_note"]
        assert calls_sent(tools) == []  # nothing reached the server
        agent.decide(agent.waiting[0], Decision("reject", reason="不要删"))
        result = agent.run()
        assert result.answer == "好的，没有删除。" and calls_sent(tools) == []
        validate(agent.messages)


def test_a_read_only_mcp_tool_runs_at_once(server):
    fake = FakeLLM([{"tool_calls": [("read_note", {})]}, "笔记在这里。"])
    with McpTools(sys.executable, server) as tools:
        agent = Agent(fake.client(), "fake-model", registry=tools, tools=tools.schemas(), trace=None)
        assert agent.run("读一下笔记").answer == "笔记在这里。"
        assert calls_sent(tools) == ["read_note"]


def test_a_write_that_times_out_may_still_complete_and_says_how_to_check(server):
    with McpTools(sys.executable, server, timeout_s=1) as tools:
        with pytest.raises(McpError) as caught:
            tools.call("add_note", {"seconds": 30})
        message = str(caught.value)
        assert "超时" in message and "add_note" in message
        assert "可能还在执行" in message and "只读" in message  # it may still complete; check before calling again
        with pytest.raises(McpError) as read_only:
            tools.call("read_note", {"seconds": 30})
        assert "超时" in str(read_only.value) and "可能还在执行" not in str(read_only.value)
