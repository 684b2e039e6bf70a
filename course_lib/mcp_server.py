"""The course's four tools served by an MCP server: a separate process that speaks JSON-RPC on stdio.

Taught in notebook 09 (part 2: MCP).

Run it (it then waits for JSON-RPC messages on stdin, one per line, and answers on stdout)::

    python -m course_lib.mcp_server

A client - ``mcp_client.McpTools``, or the SDK by hand in notebook 09 - starts
this command as a subprocess and talks to it through its stdin/stdout.  The
server ends when its stdin closes, so it never outlives its client.

What it serves is exactly what notebook 04's ``ToolRegistry`` holds
(``tools.registry.default_registry``): get_weather, calculate,
query_by_product_name, search_knowledge.  ``tools/list`` answers each tool's
``name``, ``description`` and, as ``inputSchema``, the SAME ``parameters``
schema that notebook 03 put into a request's ``tools``; its ``annotations``
say ``readOnlyHint: true`` (none of the four changes anything), so a client
that asks a person before a tool that may write (``McpTools.approval_names``)
runs them at once.  ``tools/call`` runs the tool through ``ToolRegistry.call``
- the same checks, the same texts - and answers one text item; a call that gave no result (an unknown tool,
arguments that do not fit, the tool's ``ToolFailure``, an exception) comes
back with ``isError: true`` and the Chinese "错误：..." sentence, so the model
can read it, as in every loop of the course.

Built with the low-level ``Server`` of the official MCP Python SDK (package
``mcp``, https://github.com/modelcontextprotocol/python-sdk): its ``MCPServer``
(formerly FastMCP) would write each schema from the Python function's
signature instead of using the course's own.  The messages and their fields
are the MCP specification's, revision 2025-11-25:
https://modelcontextprotocol.io/specification/2025-11-25/server/tools
"""

from __future__ import annotations

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from .tools.registry import Tool, default_registry

SERVER_NAME = "course-tools"
REGISTRY = default_registry()


def mcp_tool(tool: Tool) -> types.Tool:
    """One course ``Tool`` as MCP describes a tool: name, description, inputSchema (= its ``parameters``),
    and ``annotations.readOnlyHint``: true unless the tool is marked ``needs_approval`` (it writes).

    ``ToolAnnotations``: MCP specification 2025-11-25, server/tools; ``readOnlyHint`` defaults to false.
    """
    return types.Tool(name=tool.name, description=tool.schema["function"].get("description"),
                      input_schema=tool.parameters,
                      annotations=types.ToolAnnotations(read_only_hint=not tool.needs_approval))


async def list_tools(ctx, params) -> types.ListToolsResult:
    """``tools/list``: every tool of the registry, in its order."""
    return types.ListToolsResult(tools=[mcp_tool(REGISTRY.get(name)) for name in REGISTRY.names])


async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    """``tools/call``: run the tool; its text as one text item, ``isError`` when it gave no result."""
    text, ok = REGISTRY.call(params.name, params.arguments or {})
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=not ok)


server = Server(SERVER_NAME, version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve() -> None:
    """Serve one client on this process's stdin/stdout until stdin closes."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(serve)
