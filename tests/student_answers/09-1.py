# Exercise 09-1: answers written from the task text alone (notebooks/09_memory_and_mcp.ipynb), without reading the checker.
# %% wrong: keeps a fixed tail of the last two messages instead of the whole last round, so a round with tool calls is cut apart
def compress(messages, summarize):
    """system 消息 + 一条摘要消息（代替最后一轮之前的所有消息）+ 原样的最后一轮。"""
    if len(messages) <= 3:
        return list(messages)
    old = messages[1:-2]
    summary = summarize(old)
    return [messages[0], {"role": "user", "content": "之前对话的摘要：" + summary}] + messages[-2:]
# %% wrong: passes the system message to summarize too (messages[:start] instead of messages[1:start])
def compress(messages, summarize):
    """system 消息 + 一条摘要消息（代替最后一轮之前的所有消息）+ 原样的最后一轮。"""
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    if start <= 1:
        return list(messages)
    summary = summarize(messages[:start])
    return [messages[0], {"role": "user", "content": f"之前对话的摘要：{summary}"}] + messages[start:]
# %% wrong: the summary message gets role "system" instead of "user"
def compress(messages, summarize):
    """system 消息 + 一条摘要消息（代替最后一轮之前的所有消息）+ 原样的最后一轮。"""
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    if start <= 1:
        return list(messages)
    summary = summarize(messages[1:start])
    return [messages[0], {"role": "system", "content": f"之前对话的摘要：{summary}"}] + messages[start:]
# %% wrong: replaces the old messages in place with slice assignment, so the caller's list is modified (and returned as the same object)
def compress(messages, summarize):
    """system 消息 + 一条摘要消息（代替最后一轮之前的所有消息）+ 原样的最后一轮。"""
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    if start <= 1:
        return list(messages)
    summary = summarize(messages[1:start])
    messages[1:start] = [{"role": "user", "content": "之前对话的摘要：" + summary}]
    return messages
# %% wrong: the "only one round" test is len(messages) <= 2, so a single round with tool calls still calls summarize([]) and adds an empty summary
def compress(messages, summarize):
    """system 消息 + 一条摘要消息（代替最后一轮之前的所有消息）+ 原样的最后一轮。"""
    if len(messages) <= 2:
        return list(messages)
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    summary = summarize(messages[1:start])
    return [messages[0], {"role": "user", "content": "之前对话的摘要：" + summary}] + messages[start:]
# %% wrong: with only one round it returns the very same list object instead of a new list
def compress(messages, summarize):
    """system 消息 + 一条摘要消息（代替最后一轮之前的所有消息）+ 原样的最后一轮。"""
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    if start <= 1:
        return messages
    summary = summarize(messages[1:start])
    return [messages[0], {"role": "user", "content": "之前对话的摘要：" + summary}] + messages[start:]
# %% wrong: list.index finds the FIRST user message, not the last, so the "last round" is really the whole conversation
def compress(messages, summarize):
    """system 消息 + 一条摘要消息（代替最后一轮之前的所有消息）+ 原样的最后一轮。"""
    roles = [m["role"] for m in messages]
    start = roles.index("user")
    if start <= 1:
        return list(messages)
    summary = summarize(messages[1:start])
    return [messages[0], {"role": "user", "content": "之前对话的摘要：" + summary}] + messages[start:]
# %% wrong: off-by-one when counting back from the end - the last user message itself goes into the summary and the kept round starts after it
def compress(messages, summarize):
    """system 消息 + 一条摘要消息（代替最后一轮之前的所有消息）+ 原样的最后一轮。"""
    roles_from_end = [m["role"] for m in reversed(messages)]
    start = len(messages) - roles_from_end.index("user")
    if start <= 2:
        return list(messages)
    summary = summarize(messages[1:start])
    return [messages[0], {"role": "user", "content": "之前对话的摘要：" + summary}] + messages[start:]
# %% wrong: summarizes each old message separately (summarize called once per message) and adds several summary messages
def compress(messages, summarize):
    """system 消息 + 一条摘要消息（代替最后一轮之前的所有消息）+ 原样的最后一轮。"""
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    if start <= 1:
        return list(messages)
    summaries = [{"role": "user", "content": "摘要：" + summarize([m])} for m in messages[1:start]]
    return [messages[0]] + summaries + messages[start:]
# %% right: max() over the indexes of user messages, slices for the old part and the last round
def compress(messages, summarize):
    """system 消息 + 一条摘要消息（代替最后一轮之前的所有消息）+ 原样的最后一轮。"""
    start = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=0)
    if start <= 1:  # 只有一轮（或没有 user 消息）：没有可以压缩的
        return list(messages)
    summary = summarize(messages[1:start])
    return [messages[0], {"role": "user", "content": f"（之前对话的摘要）{summary}"}] + messages[start:]
# %% right: a backwards while loop finds the last user message (works for dicts and message objects), result built with append/extend
def _role(message):
    return message.get("role") if isinstance(message, dict) else getattr(message, "role", None)


def compress(messages, summarize):
    """system 消息 + 一条摘要消息（代替最后一轮之前的所有消息）+ 原样的最后一轮。"""
    last_user = len(messages) - 1
    while last_user > 0 and _role(messages[last_user]) != "user":
        last_user -= 1
    old = messages[1:last_user]
    if not old:
        return messages[:]
    text = summarize(list(old))
    new_messages = [messages[0]]
    new_messages.append({"role": "user", "content": "以下是之前对话的摘要，供你参考：\n" + str(text)})
    new_messages.extend(messages[last_user:])
    return new_messages
