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
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: keeps messages whose content is only whitespace ("  ") because it tests plain truthiness instead of stripping
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    result = [{"role": "system", "content": system}]
    for m in conversation:
        if m["role"] in ("user", "assistant") and m.get("content"):
            result.append({"role": m["role"], "content": m["content"]})
    return result
# %% wrong: pops tool_calls off the original dicts, so the caller's conversation is changed (the input must be left as it was)
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    result = [{"role": "system", "content": system}]
    for m in conversation:
        if m.get("role") not in ("user", "assistant"):
            continue
        m.pop("tool_calls", None)
        content = m.get("content")
        if content is None or not str(content).strip():
            continue
        result.append(m)
    return result
# %% wrong: copies the list with .copy() and deletes tool_calls from the dicts in it; the dicts are shared, so the front desk's messages lose their tool_calls
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    conv = conversation.copy()
    for m in conv:
        if "tool_calls" in m:
            del m["tool_calls"]
    kept = [m for m in conv
            if m["role"] in ("user", "assistant") and (m.get("content") or "").strip()]
    return [{"role": "system", "content": system}] + [{"role": m["role"], "content": m["content"]} for m in kept]
# %% wrong: only strips the tool_calls key, so other keys (name, refusal, ...) survive although each message may keep only role and content
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    result = [{"role": "system", "content": system}]
    for m in conversation:
        if m.get("role") in ("user", "assistant") and (m.get("content") or "").strip():
            result.append({k: v for k, v in m.items() if k != "tool_calls"})
    return result
# %% wrong: drops every assistant message that has tool_calls, even when it also carries text that should be kept
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    result = [{"role": "system", "content": system}]
    for m in conversation:
        if m.get("role") not in ("user", "assistant") or m.get("tool_calls"):
            continue
        if (m.get("content") or "").strip():
            result.append({"role": m["role"], "content": m["content"]})
    return result
# %% wrong: filters out only tool messages, so the front desk's own system message is carried over to the specialist
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    result = [{"role": "system", "content": system}]
    for m in conversation:
        if m.get("role") == "tool":
            continue
        if (m.get("content") or "").strip():
            result.append({"role": m["role"], "content": m["content"]})
    return result
# %% wrong: calls .strip() on content without a None check, so an assistant message with content None (tool-call only) crashes
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    result = [{"role": "system", "content": system}]
    for m in conversation:
        if m["role"] in ("user", "assistant") and m["content"].strip():
            result.append({"role": m["role"], "content": m["content"]})
    return result
# %% wrong: assumes the front-desk system message is always conversation[0] and skips it by slicing, so a conversation without it loses its first user message
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    result = [{"role": "system", "content": system}]
    for m in conversation[1:]:
        if m.get("role") in ("user", "assistant") and (m.get("content") or "").strip():
            result.append({"role": m["role"], "content": m["content"]})
    return result
# %% wrong: collects user messages first and assistant messages after them, so the original order of the conversation is lost
def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    def has_text(m):
        return isinstance(m.get("content"), str) and m["content"].strip() != ""
    users = [{"role": "user", "content": m["content"]} for m in conversation if m.get("role") == "user" and has_text(m)]
    assistants = [{"role": "assistant", "content": m["content"]} for m in conversation
                  if m.get("role") == "assistant" and has_text(m)]
    return [{"role": "system", "content": system}] + users + assistants
# %% right: list comprehension over a filter helper, new dicts built with dict(role=..., content=...)
def _has_text(message):
    content = message.get("content")
    return isinstance(content, str) and bool(content.strip())


def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    kept = [dict(role=m["role"], content=m["content"])
            for m in conversation
            if m.get("role") in {"user", "assistant"} and _has_text(m)]
    return [dict(role="system", content=system), *kept]
# %% right: deep copy first, then an index-based while loop that filters the copy (the input is never touched)
import copy


def specialist_messages(conversation, system):
    """转接以后专家的第一份消息列表：专家自己的 system，加上对话里有文字的 user 和 assistant 消息。"""
    work = copy.deepcopy(conversation)
    out = [{"role": "system", "content": system}]
    i = 0
    while i < len(work):
        msg = work[i]
        i += 1
        role = msg.get("role")
        text = msg.get("content")
        if role != "user" and role != "assistant":
            continue
        if text is None or not isinstance(text, str) or text.strip() == "":
            continue
        out.append({"role": role, "content": text})
    return out
