# notebooks/09_memory_and_mcp.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 09-2
def to_openai_tool(mcp_tool):
    """把一个 MCP 工具（tools/list 的一项）变成 chat 请求 tools 里的一项。"""
    parameters = dict(mcp_tool.input_schema or {})  # MCP 的 inputSchema 就是 OpenAI 的 parameters
    parameters.setdefault("type", "object")
    parameters.setdefault("properties", {})  # 没有参数的工具也要有 properties
    return {
        "type": "function",
        "function": {
            "name": mcp_tool.name,
            "description": mcp_tool.description or "",
            "parameters": parameters,
        },
    }
