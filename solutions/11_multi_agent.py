# notebooks/11_multi_agent.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 11-1
def or_query(words):
    """把一串词变成安全的 FTS5 查询：每个词放进双引号，用 OR 连起来。"""
    quoted = []
    for word in words:
        quoted.append('"' + word.replace('"', '""') + '"')  # 词里的一个 " 写成两个
    return " OR ".join(quoted)  # 没有词时 join 给出 ""


# %% exercise 11-2
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    messages = [{"role": "system", "content": system}]
    for message in conversation:
        if message["role"] in ("user", "assistant") and (message.get("content") or "").strip():  # 只有空白也不算文字
            messages.append({"role": message["role"], "content": message["content"]})  # 只留文字，不带 tool_calls
    return messages


# %% exercise 11-3
def chosen_specialist(tool_calls, names):
    """前台的回复转接给哪位专家：第一个 transfer_to_<names 里的名字> 的调用；没有就返回 None。"""
    for call in tool_calls or []:  # 没有调用时，message.tool_calls 是 None
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        if name.startswith("transfer_to_") and name[len("transfer_to_"):] in names:
            return name[len("transfer_to_"):]
    return None
