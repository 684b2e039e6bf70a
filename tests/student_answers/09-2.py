# Exercise 09-2: answers written from the task text alone (notebooks/09_memory_and_mcp.ipynb), without reading the checker.
# %% wrong: description None is passed through as None instead of being replaced by ""
def to_openai_tool(mcp_tool):
    """一个 MCP 工具 → chat 请求 tools 里的一项。"""
    parameters = dict(mcp_tool.input_schema)
    if "properties" not in parameters:
        parameters["properties"] = {}
    return {
        "type": "function",
        "function": {
            "name": mcp_tool.name,
            "description": mcp_tool.description,
            "parameters": parameters,
        },
    }
# %% wrong: mutates the caller's mcp_tool.input_schema (setdefault on the original dict, no copy)
def to_openai_tool(mcp_tool):
    """一个 MCP 工具 → chat 请求 tools 里的一项。"""
    parameters = mcp_tool.input_schema
    parameters.setdefault("properties", {})
    return {
        "type": "function",
        "function": {
            "name": mcp_tool.name,
            "description": mcp_tool.description or "",
            "parameters": parameters,
        },
    }
# %% wrong: a schema without properties is replaced wholesale by {"type": "object", "properties": {}}, losing required/title and other keys
def to_openai_tool(mcp_tool):
    """一个 MCP 工具 → chat 请求 tools 里的一项。"""
    schema = mcp_tool.input_schema
    if "properties" in schema:
        parameters = schema
    else:
        parameters = {"type": "object", "properties": {}}
    return {
        "type": "function",
        "function": {
            "name": mcp_tool.name,
            "description": mcp_tool.description or "",
            "parameters": parameters,
        },
    }
# %% wrong: description converted with str(), so None becomes the string "None" instead of ""
def to_openai_tool(mcp_tool):
    """一个 MCP 工具 → chat 请求 tools 里的一项。"""
    parameters = dict(mcp_tool.input_schema)
    if "properties" not in parameters:
        parameters["properties"] = {}
    return {
        "type": "function",
        "function": {
            "name": mcp_tool.name,
            "description": str(mcp_tool.description),
            "parameters": parameters,
        },
    }
# %% wrong: only patches the exact example schema {"type": "object"}; a schema with title/required but no properties is left without properties
def to_openai_tool(mcp_tool):
    """一个 MCP 工具 → chat 请求 tools 里的一项。"""
    schema = mcp_tool.input_schema
    if schema == {"type": "object"}:
        schema = {"type": "object", "properties": {}}
    return {
        "type": "function",
        "function": {
            "name": mcp_tool.name,
            "description": mcp_tool.description or "",
            "parameters": schema,
        },
    }
# %% wrong: the empty properties is merged last ({**schema, "properties": {}}), so a tool's real properties are overwritten with {}
def to_openai_tool(mcp_tool):
    """一个 MCP 工具 → chat 请求 tools 里的一项。"""
    parameters = {**mcp_tool.input_schema, "properties": {}}
    return {
        "type": "function",
        "function": {
            "name": mcp_tool.name,
            "description": mcp_tool.description or "",
            "parameters": parameters,
        },
    }
# %% wrong: a missing description falls back to the tool name instead of the empty string the task asks for
def to_openai_tool(mcp_tool):
    """一个 MCP 工具 → chat 请求 tools 里的一项。"""
    parameters = dict(mcp_tool.input_schema)
    parameters.setdefault("properties", {})
    description = mcp_tool.description if mcp_tool.description is not None else mcp_tool.name
    return {
        "type": "function",
        "function": {
            "name": mcp_tool.name,
            "description": description,
            "parameters": parameters,
        },
    }
# %% wrong: the fields are put at the top level next to "type" instead of inside a "function" object
def to_openai_tool(mcp_tool):
    """一个 MCP 工具 → chat 请求 tools 里的一项。"""
    parameters = dict(mcp_tool.input_schema)
    parameters.setdefault("properties", {})
    return {
        "type": "function",
        "name": mcp_tool.name,
        "description": mcp_tool.description or "",
        "parameters": parameters,
    }
# %% right: copy with dict(), setdefault for properties, `or ""` for the description
def to_openai_tool(mcp_tool):
    """一个 MCP 工具 → chat 请求 tools 里的一项。"""
    parameters = dict(mcp_tool.input_schema)  # 复制一份，不动原来的 input_schema
    parameters.setdefault("properties", {})
    return {
        "type": "function",
        "function": {
            "name": mcp_tool.name,
            "description": mcp_tool.description or "",
            "parameters": parameters,
        },
    }
# %% right: dict unpacking with the default first ({"properties": {}, **schema}) and an explicit None test
def to_openai_tool(mcp_tool):
    """一个 MCP 工具 → chat 请求 tools 里的一项。"""
    description = "" if mcp_tool.description is None else mcp_tool.description
    parameters = {"properties": {}, **mcp_tool.input_schema}  # 新字典；已有的 properties 覆盖默认的 {}
    function = {"name": mcp_tool.name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}
# %% right: deep copy with copy.deepcopy and an explicit `in` test
import copy


def to_openai_tool(mcp_tool):
    """一个 MCP 工具 → chat 请求 tools 里的一项。"""
    parameters = copy.deepcopy(mcp_tool.input_schema)
    if "properties" not in parameters:
        parameters["properties"] = {}
    description = mcp_tool.description
    if description is None:
        description = ""
    return dict(type="function", function=dict(name=mcp_tool.name, description=description, parameters=parameters))
