"""Checkers for notebook 09 (memory and MCP).

09-2 checks a plain function on fixed inputs: the tools the course's MCP
server lists (``mcp_server.mcp_tool``, the SDK's ``mcp.types.Tool``) and one
tool without parameters; no server is started.
"""

from __future__ import annotations

import json
from typing import Any

from mcp import types

from ..mcp_server import REGISTRY, mcp_tool
from ..messages import validate_tools
from ..texts import t
from . import CheckResult, report, safely

# A tool whose inputSchema has no "properties" (allowed by MCP, refused by some chat APIs).
NO_PARAMETERS_TOOL = types.Tool(name="list_cities", description="列出有天气数据的城市。",
                                input_schema={"type": "object"})


def mcp_sample_tools() -> list[types.Tool]:
    """What 09-2 converts: the course server's four tools, as ``tools/list`` gives them, and ``NO_PARAMETERS_TOOL``."""
    return [mcp_tool(REGISTRY.get(name)) for name in REGISTRY.names] + [NO_PARAMETERS_TOOL]


def _parameters_problem(parameters: Any, tool: types.Tool) -> str | None:
    """Why ``parameters`` is not ``tool``'s inputSchema as an object schema with ``properties``, or None."""
    if not isinstance(parameters, dict):
        return t("check.09.mcp.parameters_not_dict", name=tool.name, kind=type(parameters).__name__)
    if parameters.get("type") != "object" or not isinstance(parameters.get("properties"), dict):
        return t("check.09.mcp.no_properties", name=tool.name, parameters=json.dumps(parameters, ensure_ascii=False))
    wanted = {"type": "object", "properties": {}, **tool.input_schema}
    if parameters != wanted:
        return t("check.09.mcp.parameters_differ", name=tool.name)
    return None


def check_mcp_tool_schema(to_openai_tool: object) -> CheckResult:
    """Exercise 09-2: ``to_openai_tool(mcp_tool)`` turns one MCP tool (``name``, ``description``,
    ``input_schema``) into a chat request's tool:
    ``{"type": "function", "function": {"name", "description", "parameters": input_schema}}``,
    with ``{"type": "object", "properties": {}}`` as the least a tool without parameters gets.
    """
    if not callable(to_openai_tool):
        return report(False, t("check.09.mcp.not_callable"))
    tools = mcp_sample_tools()
    for tool in tools:
        got, error = safely(to_openai_tool, tool)
        if error:
            return report(False, t("check.09.mcp.error", name=tool.name, error=error))
        if not isinstance(got, dict):
            return report(False, t("check.09.mcp.not_dict", name=tool.name, kind=type(got).__name__))
        if got.get("type") != "function" or not isinstance(got.get("function"), dict):
            return report(False, t("check.09.mcp.no_wrapper", name=tool.name, keys=sorted(map(str, got))))
        function = got["function"]
        if function.get("name") != tool.name:
            return report(False, t("check.09.mcp.name", name=tool.name, got=repr(function.get("name"))))
        if function.get("description") != tool.description:
            return report(False, t("check.09.mcp.description", name=tool.name))
        if "parameters" not in function:
            return report(False, t("check.09.mcp.no_parameters", name=tool.name, keys=sorted(map(str, function))))
        problem = _parameters_problem(function["parameters"], tool)
        if problem:
            return report(False, problem)
        try:
            json.dumps(got)
            validate_tools([got])
        except (TypeError, ValueError) as exc:  # not JSON; a name the API refuses (messages.ToolSchemaError)
            return report(False, t("check.09.mcp.not_sendable", name=tool.name, error=exc))
    return report(True, t("check.09.mcp.passed", n_tools=len(tools)))
