"""The MCP checker of notebook 09 (exercise 09-2, course_lib.checkers.nb09) on right and wrong answers."""

from __future__ import annotations

import pytest

from notebook_cells import load_solution

from course_lib.checkers import nb09
from course_lib.mcp_client import to_openai_tool
from course_lib.tools import default_registry


def solution():
    return load_solution("09_memory_and_mcp", "09-2")["to_openai_tool"]


def test_the_reference_solution_and_the_library_pass(capsys):
    assert nb09.check_mcp_tool_schema(solution()).passed is True
    assert "✅" in capsys.readouterr().out
    assert nb09.check_mcp_tool_schema(to_openai_tool).passed is True


def test_the_sample_tools_are_the_course_tools_as_mcp_lists_them():
    tools = nb09.mcp_sample_tools()
    assert [to_openai_tool(tool) for tool in tools[:-1]] == default_registry().schemas()
    assert "properties" not in tools[-1].input_schema


def _function(tool, **changes):
    function = {"name": tool.name, "description": tool.description,
                "parameters": {"type": "object", "properties": {}, **tool.input_schema}}
    return {k: v for k, v in {**function, **changes}.items() if v is not ...}


WRONG = {
    # inputSchema left under its MCP name instead of moved to parameters
    "input_schema_kept": lambda tool: {"type": "function",
                                       "function": _function(tool, parameters=..., inputSchema=tool.input_schema)},
    # no {"type": "function", "function": ...} around it
    "no_wrapper": lambda tool: _function(tool),
    "no_type": lambda tool: {"function": _function(tool)},
    "description_dropped": lambda tool: {"type": "function", "function": _function(tool, description=...)},
    "description_empty": lambda tool: {"type": "function", "function": _function(tool, description="")},
    # the schema as it came: a tool without parameters has no "properties"
    "schema_as_is": lambda tool: {"type": "function", "function": _function(tool, parameters=tool.input_schema)},
    "name_changed": lambda tool: {"type": "function", "function": _function(tool, name="mcp_" + tool.name)},
    "parameters_emptied": lambda tool: {"type": "function",
                                        "function": _function(tool, parameters={"type": "object", "properties": {}})},
    "the_sdk_object": lambda tool: tool,
    "its_dump": lambda tool: tool.model_dump(by_alias=True),
    "raises": lambda tool: tool.inputSchema,  # the SDK 1.x spelling: no such attribute in 2.x
    "untouched": lambda tool: None,
}


@pytest.mark.parametrize("variant", sorted(WRONG))
def test_wrong_answers_fail(variant, capsys):
    assert nb09.check_mcp_tool_schema(WRONG[variant]).passed is False
    out = capsys.readouterr().out
    assert "❌" in out


def test_the_hints_name_the_mistake(capsys):
    cases = {"input_schema_kept": "parameters", "no_wrapper": "少了一层", "description_dropped": "description",
             "schema_as_is": "properties", "name_changed": "name", "untouched": "dict"}
    for variant, hint in cases.items():
        nb09.check_mcp_tool_schema(WRONG[variant])
        assert hint in capsys.readouterr().out, variant


def test_not_a_function_and_an_answer_that_is_not_json_fail(capsys):
    assert nb09.check_mcp_tool_schema(None).passed is False

    def keeps_a_pydantic_object(tool):
        answer = to_openai_tool(tool)
        answer["function"]["extra"] = tool  # not JSON
        return answer

    assert nb09.check_mcp_tool_schema(keeps_a_pydantic_object).passed is False
    assert "tools" in capsys.readouterr().out
