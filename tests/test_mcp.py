"""course_lib.mcp_server and course_lib.mcp_client (notebook 09): a real server process, the real SDK.

Every test starts real subprocesses over stdio (nothing of the SDK is mocked); the servers
other than the course's are small SDK servers written below.  psutil finds each server's pid.
"""

from __future__ import annotations

import _thread
import asyncio
import gc
import json
import signal
import sys
import threading
import time

import psutil
import pytest

from fakes import FakeLLM

from course_lib import mcp_client
from course_runtime import mcp_connection
from course_lib.agent import Agent
from course_lib.mcp_client import McpError, McpTools, close_all, to_openai_tool
from course_lib.messages import validate
from course_lib.tools import default_registry

pytestmark = pytest.mark.timeout(120)

# A small SDK server for what the course server never does: take its time, crash, list a bare tool.
TEST_SERVER = '''
import os, anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name=n, input_schema={"type": "object"})
                                        for n in ("echo", "sleep", "crash")])

async def call_tool(ctx, params):
    arguments = params.arguments or {}
    if params.name == "sleep":
        await anyio.sleep(arguments.get("seconds", 60))
    if params.name == "crash":
        os._exit(1)
    return types.CallToolResult(content=[types.TextContent(type="text", text="echo " + repr(arguments))])

server = Server("test-server", on_list_tools=list_tools, on_call_tool=call_tool)

async def main():
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())

anyio.run(main)
'''


def server_pids() -> set[int]:
    """The pids of this test process's live children (the MCP servers it started)."""
    return {p.pid for p in psutil.Process().children(recursive=True) if p.is_running()
            and p.status() != psutil.STATUS_ZOMBIE}


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def started(make):
    """``make()``, and the pid of the one server process it started."""
    before = server_pids()
    made = make()
    new = server_pids() - before
    assert len(new) == 1, new
    return made, new.pop()


@pytest.fixture(scope="module")
def _course_server():
    held: dict = {}
    yield held
    if held:
        held["tools"].close()


@pytest.fixture
def course_tools(_course_server):
    """One course server for the tests that only call it (started again if a test closed it)."""
    if not _course_server or _course_server["tools"].closed:
        _course_server["tools"] = McpTools()
    return _course_server["tools"]


@pytest.fixture
def test_server(tmp_path):
    path = tmp_path / "test_server.py"
    path.write_text(TEST_SERVER, encoding="utf-8")
    return [str(path)]


# --------------------------------------------------------------------------- the course server


def test_the_server_lists_the_course_tools_with_their_own_schemas(course_tools):
    registry = default_registry()
    assert course_tools.names == registry.names
    for tool in course_tools.tools:
        course = registry.get(tool.name).schema["function"]
        assert tool.input_schema == course["parameters"]
        assert tool.description == course["description"]
    assert course_tools.schemas() == registry.schemas()  # the request's tools: the same as notebook 04's
    assert json.dumps(course_tools.schemas(), ensure_ascii=False) == json.dumps(registry.schemas(), ensure_ascii=False)


def test_the_course_tools_say_they_are_read_only_so_nothing_waits_for_approval(course_tools):
    # Notebook 09's Agent over McpTools() runs without waiting: every course tool is read-only, on the wire.
    listed = next(e for e in course_tools.log if e["method"] == "tools/list" and e["kind"] == "result")
    assert all(tool["annotations"] == {"readOnlyHint": True} for tool in listed["message"]["result"]["tools"])
    assert course_tools.approval_names() == []


@pytest.mark.parametrize("name, arguments", [
    ("get_weather", {"city": "北京"}),
    ("get_weather", {"city": "上海", "unit": "fahrenheit"}),
    ("calculate", {"expression": "(3 + 4) * 2"}),
    ("query_by_product_name", {"product_name": "球"}),
    ("search_knowledge", {"query": "世界上最长的河流是什么？"}),
    # failures: the tool's own ToolFailure, arguments that do not fit, an unknown tool
    ("calculate", {"expression": "1 / 0"}),
    ("get_weather", {"city": ""}),
    ("get_weather", {"town": "北京"}),
    ("no_such_tool", {}),
])
def test_a_call_answers_what_the_course_registry_answers(course_tools, name, arguments):
    text, ok = course_tools.call(name, arguments)
    assert (text, ok) == default_registry().call(name, arguments)
    assert ok is (not text.startswith("错误："))


def test_a_failed_call_is_is_error_on_the_wire(course_tools):
    text, ok = course_tools.call("calculate", {"expression": "1 / 0"})
    assert ok is False and text == "错误：除数不能为零"
    answer = course_tools.log[-1]["message"]["result"]
    assert answer["isError"] is True and answer["content"] == [{"type": "text", "text": text}]


def test_arguments_that_are_not_an_object_never_reach_the_server(course_tools):
    sent = len(course_tools.log)
    text, ok = course_tools.call("get_weather", ["北京"])
    assert ok is False and text.startswith("错误：") and "list" in text
    assert len(course_tools.log) == sent


def test_the_log_holds_every_json_rpc_message(course_tools):
    """MCP 2026-07-28: server/discover instead of a handshake, and every request carries its own version."""
    course_tools.call("get_weather", {"city": "北京"})
    log = course_tools.log
    assert [(e["direction"], e["kind"], e["method"]) for e in log[:4]] == [
        ("→", "request", "server/discover"), ("←", "result", "server/discover"),
        ("→", "request", "tools/list"), ("←", "result", "tools/list"),
    ]
    assert course_tools.protocol_version == "2026-07-28"
    assert log[1]["message"]["result"]["supportedVersions"] == ["2026-07-28"]
    assert not [e for e in log if e["kind"] == "notification"], "the 2026-07-28 protocol has no notifications/initialized"
    requests = [e for e in log if e["kind"] == "request"]
    assert all(e["message"]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
               for e in requests)
    assert log[0]["message"]["jsonrpc"] == "2.0" and log[0]["id"] == log[1]["id"]
    call = log[-2]["message"]["params"]
    assert (call["name"], call["arguments"]) == ("get_weather", {"city": "北京"})
    assert (log[-1]["kind"], log[-1]["method"], log[-1]["id"]) == ("result", "tools/call", log[-2]["id"])
    frame = course_tools.log_frame()
    assert list(frame.columns) == ["direction", "id", "kind", "method", "content"]
    assert len(frame) == len(log) and list(frame["id"][:2]) == [log[0]["id"]] * 2
    assert "北京：晴" in frame["content"].iloc[-1]


OLDER_SERVER = r'''
import json, sys
# An MCP server of the handshake era (revision 2025-06-18), written without the SDK: it knows
# initialize, tools/list and tools/call, and answers any other method "Method not found" (-32601),
# as the TypeScript SDK's servers of that time did.
def send(message):
    sys.stdout.write(json.dumps(message) + "\n"); sys.stdout.flush()
TOOL = {"name": "echo", "description": "Echo the text.", "inputSchema": {"type": "object",
        "properties": {"text": {"type": "string"}}, "required": ["text"]}, "annotations": {"readOnlyHint": True}}
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue  # notifications/initialized
    method, ident = message["method"], message["id"]
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
              "serverInfo": {"name": "older", "version": "1.0"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [TOOL]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text",
              "text": message["params"]["arguments"]["text"]}], "isError": False}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}})
'''


def test_an_older_server_gets_the_initialize_handshake(tmp_path):
    server = tmp_path / "旧的 服务器.py"
    server.write_text(OLDER_SERVER, encoding="utf-8")
    with McpTools(command=sys.executable, args=[str(server)], start_timeout_s=30) as older:
        assert older.protocol_version == "2025-06-18" and older.names == ["echo"]
        assert older.call("echo", {"text": "你好"}) == ("你好", True)
        methods = [(e["kind"], e["method"]) for e in older.log]
    assert methods[:5] == [("request", "server/discover"), ("error", "server/discover"),
                           ("request", "initialize"), ("result", "initialize"),
                           ("notification", "notifications/initialized")]


def test_the_course_server_answers_the_older_handshake_too():
    import anyio
    from mcp import Client

    from course_runtime.mcp_connection import server_parameters

    async def both():
        async with Client(server_parameters(), mode="legacy") as older:
            names = [tool.name for tool in (await older.list_tools()).tools]
            return older.protocol_version, names, (await older.call_tool("get_weather", {"city": "北京"})).content[0].text

    version, names, text = anyio.run(both)
    assert version == "2025-11-25" and "get_weather" in names and text.startswith("北京：晴")


def test_the_agent_runs_a_tool_through_mcp(course_tools):
    fake = FakeLLM([{"tool_calls": [("get_weather", {"city": "北京"})]}, "北京今天晴，25°C。"])
    agent = Agent(fake.client(), "fake-model", registry=course_tools, tools=course_tools.schemas(), trace=None)
    result = agent.run("北京天气怎么样？")
    assert result.answer == "北京今天晴，25°C。" and result.stopped_reason == "answer"
    validate(agent.messages)
    for body in fake.requests:
        validate(body["messages"])
        assert body["tools"] == default_registry().schemas()
    tool_message = agent.messages[-2]
    assert tool_message["role"] == "tool" and tool_message["content"] == "北京：晴，25°C，湿度40%"
    assert tool_message["tool_call_id"] == agent.messages[-3]["tool_calls"][0]["id"]
    assert course_tools.log[-2]["message"]["params"]["name"] == "get_weather"


def test_to_openai_tool_wraps_the_input_schema():
    tool = {"name": "list_cities", "description": "列出城市", "inputSchema": {"type": "object"}}
    assert to_openai_tool(tool) == {"type": "function", "function": {
        "name": "list_cities", "description": "列出城市", "parameters": {"type": "object", "properties": {}}}}
    bare = to_openai_tool({"name": "ping", "inputSchema": {"type": "object", "required": []}})
    assert bare["function"]["description"] == ""
    assert bare["function"]["parameters"] == {"type": "object", "properties": {}, "required": []}


# --------------------------------------------------------------------------- cleanup


def test_close_stops_the_server_process():
    tools, pid = started(McpTools)
    assert alive(pid)
    began = time.monotonic()
    tools.close()
    assert not alive(pid) and time.monotonic() - began < 10
    assert tools.closed
    tools.close()  # again: nothing happens
    with pytest.raises(McpError, match="已经关闭"):
        tools.call("get_weather", {"city": "北京"})
    assert tools.names  # what was listed stays readable


def test_the_end_of_a_with_block_stops_it():
    before = server_pids()
    with McpTools() as tools:
        pid = (server_pids() - before).pop()
        assert tools.call("calculate", {"expression": "2 + 3"}) == ("5", True)
    assert not alive(pid)


def test_starting_the_same_server_again_stops_the_one_before():
    # What re-running the cell `tools = McpTools()` does, even when Out[...] still holds the old one.
    first, first_pid = started(McpTools)
    second, second_pid = started(McpTools)
    assert not alive(first_pid) and first.closed and alive(second_pid)
    with pytest.raises(McpError, match="同一个服务器"):
        first.call("get_weather", {"city": "北京"})
    assert second.call("calculate", {"expression": "1 + 1"}) == ("2", True)
    second.close()
    assert not alive(second_pid)


def test_an_unclosed_one_stops_when_nothing_refers_to_it(test_server):
    tools, pid = started(lambda: McpTools(sys.executable, test_server))
    del tools
    gc.collect()
    assert not alive(pid)


def test_close_all_stops_every_open_one(test_server):
    a, pid_a = started(McpTools)
    b, pid_b = started(lambda: McpTools(sys.executable, test_server))  # another server: both stay open
    assert alive(pid_a) and alive(pid_b)
    close_all()
    assert not alive(pid_a) and not alive(pid_b) and a.closed and b.closed
    assert not mcp_connection.open_connections()


def test_it_works_inside_a_running_event_loop():
    # Jupyter runs an asyncio loop in the main thread: the helper's own loop lives in its thread.
    async def cell():
        assert asyncio.get_running_loop().is_running()
        with McpTools() as tools:
            return tools.call("calculate", {"expression": "6 * 7"})

    assert asyncio.run(cell()) == ("42", True)


# --------------------------------------------------------------------------- errors, quickly


def test_a_command_that_does_not_exist():
    began = time.monotonic()
    with pytest.raises(McpError, match="no-such-mcp-server") as caught:
        McpTools("no-such-mcp-server", [])
    assert "运行不了" in str(caught.value) and time.monotonic() - began < 5
    assert not mcp_connection.open_connections()


def test_a_server_that_exits_at_once_shows_its_stderr():
    before = server_pids()
    began = time.monotonic()
    with pytest.raises(McpError) as caught:
        McpTools(sys.executable, ["-c", "import sys; print('我坏了', file=sys.stderr); sys.exit(3)"])
    assert time.monotonic() - began < 8
    assert "我坏了" in str(caught.value) and "已经退出" in str(caught.value)
    assert server_pids() <= before


def test_a_server_that_never_answers_times_out():
    before = server_pids()
    began = time.monotonic()
    with pytest.raises(McpError, match="超时"):
        McpTools(sys.executable, ["-c", "import time; time.sleep(60)"], start_timeout_s=1)
    assert time.monotonic() - began < 10  # 1 s, then the SDK's shutdown: stdin closed, 2 s, SIGTERM
    assert server_pids() <= before


def test_a_slow_call_times_out_and_the_session_goes_on(test_server):
    tools, pid = started(lambda: McpTools(sys.executable, test_server, timeout_s=1))
    with tools:
        assert tools.schemas()[0]["function"]["parameters"] == {"type": "object", "properties": {}}
        began = time.monotonic()
        with pytest.raises(McpError, match="tools/call.*超时"):
            tools.call("sleep", {"seconds": 30})
        assert time.monotonic() - began < 5
        assert tools.call("echo", {"x": 1}) == ("echo {'x': 1}", True)
    assert not alive(pid)


def test_ctrl_c_during_a_call_stops_the_wait_and_the_session_goes_on(test_server):
    # Python's own Ctrl-C handler, as in a kernel: a process started with SIGINT ignored (a background
    # job of a non-interactive shell) keeps SIG_IGN, and then interrupt_main() does nothing.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _ctrl_c_during_a_call(test_server)
    finally:
        signal.signal(signal.SIGINT, previous)


def _ctrl_c_during_a_call(test_server):
    with McpTools(sys.executable, test_server, timeout_s=30) as tools:
        threading.Timer(0.5, _thread.interrupt_main).start()  # the notebook's stop button
        began = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            tools.call("sleep", {"seconds": 30})
        assert time.monotonic() - began < 5
        assert tools.call("echo", {}) == ("echo {}", True)
        assert any(e["method"] == "notifications/cancelled" for e in tools.log)  # the SDK told the server


def test_a_server_that_dies_during_a_call(test_server):
    tools, pid = started(lambda: McpTools(sys.executable, test_server, timeout_s=10))
    with tools:
        began = time.monotonic()
        with pytest.raises(McpError, match="已经退出"):
            tools.call("crash", {})
        assert time.monotonic() - began < 5 and not alive(pid)
        # The agent still gets a tool message (tool_calls.run_call catches it) and its message list stays valid.
        fake = FakeLLM([{"tool_calls": [("echo", {})]}, "服务器不在了。"])
        # The test server's tools do not say they are read-only; here nobody is asked (approval_tools=[]).
        agent = Agent(fake.client(), "fake-model", registry=tools, tools=tools.schemas(), trace=None, approval_tools=[])
        result = agent.run("试试 echo")
        validate(agent.messages)
        assert "McpError" in agent.messages[-2]["content"] and result.answer == "服务器不在了。"
