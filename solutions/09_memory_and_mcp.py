# notebooks/09_memory_and_mcp.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 09-1
def compress(messages, summarize):
    """返回新列表：system 消息、一条摘要消息（代替最后一轮之前的所有消息）、原样的最后一轮。"""
    system, rest = messages[:1], messages[1:]
    starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
    last = starts[-1] if starts else 0
    old = rest[:last]
    if not old:  # 只有一轮：没有可以压缩的旧轮次
        return list(messages)
    summary = {"role": "user", "content": "这是到目前为止的对话摘要：\n" + summarize(old)}
    return system + [summary] + rest[last:]


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
