"""What an MCP tool answers reaches the model (issue 30): every kind of content item, and ``structuredContent``.

A real SDK server process (written to tmp_path, started with this Python) answers with the
content items of the MCP specification, revision 2025-11-25, server/tools "Tool Result":
text, image, audio, resource_link, resource (embedded text or blob), and structuredContent.
"""

from __future__ import annotations

import base64
import json
import sys

import pytest

from fakes import FakeLLM

from course_lib.agent import Agent
from course_lib.mcp_client import McpTools
from course_lib.messages import validate
from course_lib.texts import t

pytestmark = pytest.mark.timeout(120)

PNG_BYTES = 1234  # the size of the "image" the server sends

RESULTS_SERVER = '''
import base64, anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

NAMES = ["embedded_text", "embedded_blob", "link", "structured_only", "text_and_structured",
         "image", "audio", "nothing"]
READ_ONLY = types.ToolAnnotations(read_only_hint=True)


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name=n, input_schema={"type": "object"}, annotations=READ_ONLY)
                                        for n in NAMES])


async def call_tool(ctx, params):
    name = params.name
    content, structured = [], None
    if name == "embedded_text":
        content = [types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
            uri="note://notes/1", mime_type="text/plain", text="第一条笔记：周五交作业"))]
    elif name == "embedded_blob":
        content = [types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
            uri="file:///tmp/report.pdf", mime_type="application/pdf", blob=base64.b64encode(bytes(300)).decode()))]
    elif name == "link":
        content = [types.ResourceLink(type="resource_link", uri="file:///data/orders.csv", name="orders.csv",
                                      description="本月的订单", mime_type="text/csv")]
    elif name == "structured_only":
        structured = {"city": "北京", "temperature": 25}
    elif name == "text_and_structured":
        structured = {"city": "北京", "temperature": 25}
        content = [types.TextContent(type="text", text='{"city": "北京", "temperature": 25}')]
    elif name == "image":
        content = [types.ImageContent(type="image", mime_type="image/png",
                                      data=base64.b64encode(bytes(%(png)d)).decode())]
    elif name == "audio":
        content = [types.AudioContent(type="audio", mime_type="audio/wav", data=base64.b64encode(bytes(10)).decode())]
    return types.CallToolResult(content=content, structured_content=structured)


server = Server("results-server", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())

anyio.run(main)
''' % {"png": PNG_BYTES}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    path = tmp_path_factory.mktemp("mcp") / "results_server.py"
    path.write_text(RESULTS_SERVER, encoding="utf-8")
    with McpTools(sys.executable, [str(path)]) as tools:
        yield tools


def test_an_embedded_text_resource_reaches_the_model_as_its_text_and_uri(results):
    text, ok = results.call("embedded_text", {})
    assert ok is True
    assert "第一条笔记：周五交作业" in text and "note://notes/1" in text


def test_an_embedded_binary_resource_is_a_placeholder_with_uri_type_and_size(results):
    text, ok = results.call("embedded_blob", {})
    assert ok is True
    assert "file:///tmp/report.pdf" in text and "application/pdf" in text and "300" in text


def test_a_resource_link_reaches_the_model_with_its_uri(results):
    text, ok = results.call("link", {})
    assert ok is True
    assert "file:///data/orders.csv" in text and "orders.csv" in text and "本月的订单" in text


def test_only_structured_content_reaches_the_model_as_json(results):
    text, ok = results.call("structured_only", {})
    assert ok is True
    assert json.loads(text) == {"city": "北京", "temperature": 25}


def test_structured_content_next_to_its_text_is_not_said_twice(results):
    # The spec: a tool that returns structuredContent SHOULD also return it serialized in a text item.
    text, ok = results.call("text_and_structured", {})
    assert (text, ok) == ('{"city": "北京", "temperature": 25}', True)


def test_an_image_is_a_placeholder_naming_its_type_and_size(results):
    text, ok = results.call("image", {})
    assert ok is True
    assert "image/png" in text and str(PNG_BYTES) in text and "图片" in text
    assert base64.b64encode(bytes(PNG_BYTES)).decode()[:20] not in text  # not the base64 itself


def test_audio_is_a_placeholder_too(results):
    text, ok = results.call("audio", {})
    assert ok is True and "audio/wav" in text and "10" in text


def test_no_content_at_all_still_says_the_tool_returned_nothing(results):
    assert results.call("nothing", {}) == (t("tools.no_result"), True)


def test_the_agent_hands_the_resource_to_the_model(results):
    fake = FakeLLM([{"tool_calls": [("embedded_text", {}), ("structured_only", {})]}, "周五交作业。"])
    agent = Agent(fake.client(), "fake-model", registry=results, tools=results.schemas(), trace=None)
    assert agent.run("我的笔记里写了什么？").answer == "周五交作业。"
    validate(fake.requests[-1]["messages"])
    tool_messages = [m for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    assert "第一条笔记" in tool_messages[0]["content"] and "note://notes/1" in tool_messages[0]["content"]
    assert json.loads(tool_messages[1]["content"])["temperature"] == 25
