"""The MCP checker of notebook 09 (exercise 09-2, course_lib.checkers.nb09) on right and wrong answers."""

from __future__ import annotations

import copy

import pytest

from notebook_cells import load_solution

from course_lib.checkers import nb09
from course_lib.mcp_client import to_openai_tool
from course_lib.mcp_server import REGISTRY
from course_lib.tools import default_registry


def solution():
    return load_solution("09_memory_and_mcp", "09-2")["to_openai_tool"]


def test_the_reference_solution_and_the_library_pass(capsys):
    assert nb09.check_mcp_tool_schema(solution()).passed is True
    assert "✅" in capsys.readouterr().out
    assert nb09.check_mcp_tool_schema(to_openai_tool).passed is True


def test_the_sample_tools_are_the_course_tools_as_mcp_lists_them():
    tools = nb09.mcp_sample_tools()
    assert [to_openai_tool(tool) for tool in tools[:4]] == default_registry().schemas()
    assert "properties" not in tools[4].input_schema  # a tool without parameters
    assert tools[5].description is None and tools[5].input_schema.get("properties")  # one without a description
    assert "properties" not in tools[6].input_schema and len(tools[6].input_schema) > 1  # other keys to keep
    assert len(tools) == 7


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


# ---- issue 29: wrong answers that used to pass -------------------------------------------------


def _wrapped(tool, parameters, description):
    return {"type": "function", "function": {"name": tool.name, "description": description, "parameters": parameters}}


def passes_none_description(tool):
    """Copies the description as it is: a tool without one gets "description": null."""
    return _wrapped(tool, {"type": "object", "properties": {}, **tool.input_schema}, tool.description)


def leaves_out_a_none_description(tool):
    """Drops the key when there is no description: the shape asks for a string."""
    function = _wrapped(tool, {"type": "object", "properties": {}, **tool.input_schema}, tool.description)["function"]
    return {"type": "function", "function": {k: v for k, v in function.items() if v is not None}}


def fills_properties_in_place(tool):
    """A right result, made by writing into the tool it was given."""
    tool.input_schema.setdefault("properties", {})
    return _wrapped(tool, tool.input_schema, tool.description or "")


def empties_properties_in_place(tool):
    """Wipes the parameters in the given tool: compared with that tool, it looked right."""
    tool.input_schema["properties"] = {}
    tool.input_schema.pop("required", None)
    return _wrapped(tool, tool.input_schema, tool.description or "")


def rewrites_nested_descriptions(tool):
    """Changes every parameter's description inside the given schema (nested dicts)."""
    for spec in tool.input_schema.get("properties", {}).values():
        spec["description"] = "参数"
    return _wrapped(tool, {"type": "object", "properties": {}, **tool.input_schema}, tool.description or "")


def schema_as_is(tool):
    return _wrapped(tool, tool.input_schema, tool.description or "")


def test_a_none_description_fails_with_its_hint(capsys):
    for wrong in (passes_none_description, leaves_out_a_none_description):
        result = nb09.check_mcp_tool_schema(wrong)
        assert result.passed is False and "❌" in capsys.readouterr().out
        assert "get_time" in result.message and "function.description 是 None" in result.message, result.message
        assert "字符串" in result.message, result.message


def test_a_none_description_must_become_the_empty_string():
    """The task says "" (issue 54: a tool's name as its description passed before, and misleads the model)."""
    def names_it(tool):
        return _wrapped(tool, {"type": "object", "properties": {}, **tool.input_schema}, tool.description or tool.name)

    def empties_it(tool):
        return _wrapped(tool, {"type": "object", "properties": {}, **tool.input_schema}, tool.description or "")

    result = nb09.check_mcp_tool_schema(names_it)
    assert result.passed is False and result.hint == "check.09.mcp.description_empty", result.message
    assert nb09.check_mcp_tool_schema(empties_it).passed is True


@pytest.mark.parametrize("text", [str, lambda d: "null" if d is None else d])
def test_a_none_description_written_as_the_word_none_fails(text):
    """str(None) is "None": a string, but the model would read a tool described as "None" (issue 42)."""
    def stringifies(tool):
        return _wrapped(tool, {"type": "object", "properties": {}, **tool.input_schema}, text(tool.description))

    result = nb09.check_mcp_tool_schema(stringifies)
    assert result.passed is False and result.hint == "check.09.mcp.description_str_none", result.message


@pytest.mark.parametrize("wrong", [empties_properties_in_place, rewrites_nested_descriptions])
def test_answers_that_change_their_input_are_compared_with_an_untouched_copy(wrong):
    result = nb09.check_mcp_tool_schema(wrong)
    assert result.passed is False and result.hint == "check.09.mcp.modified", result.message


def test_a_mutating_answer_cannot_change_what_the_next_check_sees():
    registry_schemas = copy.deepcopy([REGISTRY.get(name).parameters for name in REGISTRY.names])
    samples = [tool.model_dump() for tool in nb09.mcp_sample_tools()]
    assert nb09.check_mcp_tool_schema(schema_as_is).passed is False
    for mutating in (fills_properties_in_place, empties_properties_in_place, rewrites_nested_descriptions):
        nb09.check_mcp_tool_schema(mutating)
        assert [tool.model_dump() for tool in nb09.mcp_sample_tools()] == samples, mutating.__name__
        assert nb09.check_mcp_tool_schema(schema_as_is).passed is False, mutating.__name__
    assert [REGISTRY.get(name).parameters for name in REGISTRY.names] == registry_schemas
    assert nb09.check_mcp_tool_schema(solution()).passed is True


def test_every_call_builds_new_sample_tools():
    first, second = nb09.mcp_sample_tools(), nb09.mcp_sample_tools()
    for a, b, name in zip(first, second, REGISTRY.names):
        assert a is not b and a.input_schema is not b.input_schema
        assert a.input_schema["properties"] is not REGISTRY.get(name).parameters["properties"]
    assert first[4] is not second[4] and first[4].input_schema is not second[4].input_schema


# ---- issue 42: generated tools; a schema made anew or changed in place fails; odd returns --------


def fills_properties_in_place_right_shape(tool):
    """A right result, made by writing into the schema of the tool it was given."""
    schema = tool.input_schema
    schema.setdefault("properties", {})
    return _wrapped(tool, schema, tool.description or "")


def schema_made_anew(tool):
    """Keeps properties and required, loses every other key of the schema."""
    schema = {"type": "object", "properties": tool.input_schema.get("properties", {})}
    if "required" in tool.input_schema:
        schema["required"] = tool.input_schema["required"]
    return _wrapped(tool, schema, tool.description or "")


def replaced_when_empty(tool):
    """A tool without properties gets a new minimal schema instead of its own plus properties."""
    schema = tool.input_schema if "properties" in tool.input_schema else {"type": "object", "properties": {}}
    return _wrapped(tool, dict(schema), tool.description or "")


def drops_required(tool):
    schema = {k: v for k, v in tool.input_schema.items() if k != "required"}
    return _wrapped(tool, {"type": "object", "properties": {}, **schema}, tool.description or "")


def properties_always_emptied(tool):
    return _wrapped(tool, {**tool.input_schema, "properties": {}}, tool.description or "")


class _BadRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


def _generator(tool):
    yield tool.name


@pytest.mark.parametrize("wrong", [fills_properties_in_place_right_shape, schema_made_anew, replaced_when_empty,
                                   drops_required, properties_always_emptied])
def test_wrong_answers_of_issue_42_fail(wrong, capsys):
    result = nb09.check_mcp_tool_schema(wrong)
    assert result.passed is False and "❌" in capsys.readouterr().out, (wrong.__name__, result.message)


def test_changing_the_given_tool_gets_its_hint():
    assert nb09.check_mcp_tool_schema(fills_properties_in_place_right_shape).hint == "check.09.mcp.modified"


def copies_then_fills(tool):
    import copy as _copy
    schema = _copy.deepcopy(tool.input_schema)
    if "properties" not in schema:
        schema["properties"] = {}
    return {"function": {"parameters": schema, "name": tool.name,
                         "description": "" if tool.description is None else tool.description}, "type": "function"}


def by_model_dump(tool):
    data = tool.model_dump(by_alias=True)
    return {"type": "function", "function": {"name": data["name"], "description": data["description"] or "",
                                             "parameters": {"properties": {}, **data["inputSchema"]}}}


@pytest.mark.parametrize("right_style", [copies_then_fills, by_model_dump])
def test_other_right_styles_pass(right_style):
    result = nb09.check_mcp_tool_schema(right_style)
    assert result.passed is True, result.message


@pytest.mark.parametrize("odd", [lambda tool: _BadRepr(), _generator, lambda tool: 3,
                                 lambda tool: {"type": "function", "function": {"name": _BadRepr()}}])
def test_odd_returns_fail_without_raising(odd, capsys):
    result = nb09.check_mcp_tool_schema(odd)
    out = capsys.readouterr().out
    assert result.passed is False and "❌" in out and "Traceback" not in out


def test_an_empty_required_list_added_passes():
    """Notebook 03's own template writes "required": []; added to a schema without "required" it changes nothing."""
    def adds_empty_required(tool):
        params = dict(tool.input_schema)
        params.setdefault("properties", {})
        params.setdefault("required", [])
        return _wrapped(tool, params, tool.description or "")

    assert nb09.check_mcp_tool_schema(adds_empty_required).passed is True


def test_a_required_list_that_is_not_empty_still_has_to_match():
    def requires_more(tool):
        params = {"type": "object", "properties": {}, **tool.input_schema}
        params["required"] = sorted(params["properties"])[:1] or ["x"]
        return _wrapped(tool, params, tool.description or "")

    assert nb09.check_mcp_tool_schema(requires_more).passed is False
