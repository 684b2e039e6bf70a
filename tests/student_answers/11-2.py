# Exercise 11-2: answers written from the task text alone (notebooks/11_multi_agent.ipynb), without reading the checker.
# The right answers were changed once after the task text was made explicit (issue 54): content of blanks only is no text.
# %% wrong: removes tool_calls with pop() on the caller's own message dicts, so the front desk's conversation is changed
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    messages = [{"role": "system", "content": system}]
    for message in conversation:
        if message["role"] in ("user", "assistant") and message.get("content"):
            message.pop("tool_calls", None)
            messages.append(message)
    return messages
# %% wrong: copies the whole message with dict(m), so an assistant message with text keeps its tool_calls (and any other keys)
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    messages = [{"role": "system", "content": system}]
    for message in conversation:
        if message["role"] in ("user", "assistant") and message.get("content"):
            messages.append(dict(message))
    return messages
# %% wrong: drops every assistant message that has tool_calls, even one with text, instead of keeping its text
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    messages = [{"role": "system", "content": system}]
    for message in conversation:
        if message["role"] not in ("user", "assistant") or message.get("tool_calls"):
            continue
        if message.get("content"):
            messages.append({"role": message["role"], "content": message["content"]})
    return messages
# %% wrong: filters by role only, so assistant messages whose content is None or "" are kept
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    return [{"role": "system", "content": system}] + [
        {"role": m["role"], "content": m.get("content")}
        for m in conversation
        if m["role"] in ("user", "assistant")
    ]
# %% wrong: tests `content is not None`, so a message with content "" is still carried over
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    messages = [{"role": "system", "content": system}]
    for m in conversation:
        if m["role"] in ("user", "assistant") and m.get("content") is not None:
            messages.append({"role": m["role"], "content": m["content"]})
    return messages
# %% wrong: only skips tool messages, so the front desk's own system message is carried over after the specialist's
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    messages = [{"role": "system", "content": system}]
    for m in conversation:
        if m["role"] == "tool" or not m.get("content"):
            continue
        messages.append({"role": m["role"], "content": m["content"]})
    return messages
# %% wrong: collects user messages first and assistant messages after, so the original order of the conversation is lost
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    users = [{"role": "user", "content": m["content"]} for m in conversation
             if m["role"] == "user" and m.get("content")]
    assistants = [{"role": "assistant", "content": m["content"]} for m in conversation
                  if m["role"] == "assistant" and m.get("content")]
    return [{"role": "system", "content": system}] + users + assistants
# %% wrong: overwrites the front desk's list in place (slice assignment, then insert of the specialist's system) and returns it
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    conversation[:] = [{"role": m["role"], "content": m["content"]} for m in conversation
                       if m["role"] in ("user", "assistant") and m.get("content")]
    conversation.insert(0, {"role": "system", "content": system})
    return conversation
# %% right: an explicit loop that builds new two-key dicts
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    messages = [{"role": "system", "content": system}]
    for message in conversation:
        if message.get("role") not in ("user", "assistant"):
            continue  # 前台的 system、tool 消息不带过去
        if not (message.get("content") or "").strip():
            continue  # content 是 None、"" 或只有空白的整条不要
        messages.append({"role": message["role"], "content": message["content"]})  # 只留文字，不带 tool_calls
    return messages
# %% right: one list comprehension with a dict comprehension that keeps only the two keys
KEEP = ("role", "content")


def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    return [{"role": "system", "content": system}] + [
        {key: m[key] for key in KEEP}
        for m in conversation
        if m.get("role") in {"user", "assistant"} and (m.get("content") or "").strip()
    ]
# %% right: filter() with a predicate function, then map() to fresh dicts (the input is never touched)
def _has_text(message):
    return message.get("role") in ("user", "assistant") and bool((message.get("content") or "").strip())


def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    kept = map(lambda m: dict(role=m["role"], content=m["content"]), filter(_has_text, conversation))
    return [dict(role="system", content=system), *kept]
