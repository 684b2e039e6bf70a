# Exercise 02-2: answers written from the task text alone (notebooks/02_memory.ipynb), without reading the checker.
# %% wrong: still counts messages, only with a bigger factor (3 per turn) and no system message
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    return messages[-3 * n_turns:]
# %% wrong: keeps only the last n_turns user messages and drops the assistant/tool replies
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    users = [m for m in messages if m["role"] == "user"]
    return [messages[0]] + users[-n_turns:]
# %% wrong: starts a turn at each assistant message, so a tool-calling turn is counted twice and cut in half
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    starts = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
    if len(starts) <= n_turns:
        return list(messages)
    start = starts[-n_turns] - 1  # the user message just before
    return [messages[0]] + messages[start:]
# %% wrong: forgets to put the system message back in front
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    user_idx = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if len(user_idx) <= n_turns:
        return messages[1:]
    return messages[user_idx[-n_turns]:]
# %% wrong: when there are not enough turns it indexes past the start of the list (IndexError)
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    user_idx = [i for i, m in enumerate(messages) if m["role"] == "user"]
    start = user_idx[-n_turns]
    return [messages[0]] + messages[start:]
# %% wrong: off by one: keeps n_turns + 1 turns (slices from one user message too early)
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    user_idx = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if len(user_idx) <= n_turns + 1:
        return list(messages)
    return [messages[0]] + messages[user_idx[-(n_turns + 1)]:]
# %% wrong: edits the caller's list in place with del (returns the same, mutated list, not a new one)
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    user_idx = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if len(user_idx) > n_turns:
        del messages[1:user_idx[-n_turns]]
    return messages
# %% wrong: drops the tool messages (keeps only user/assistant), so the kept turns are not complete
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    chat = [m for m in messages[1:] if m["role"] in ("user", "assistant")]
    user_idx = [i for i, m in enumerate(chat) if m["role"] == "user"]
    if len(user_idx) <= n_turns:
        return [messages[0]] + chat
    return [messages[0]] + chat[user_idx[-n_turns]:]
# %% right: walk backwards counting user messages, then slice
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    system, rest = messages[0], messages[1:]
    if n_turns <= 0:
        return [system]
    start = 0
    seen = 0
    for i in range(len(rest) - 1, -1, -1):
        if rest[i]["role"] == "user":
            seen += 1
            if seen == n_turns:
                start = i
                break
    return [system] + rest[start:]
# %% right: group the messages into turns, keep the last n_turns groups, flatten
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    turns = []
    for m in messages[1:]:
        if m["role"] == "user" or not turns:
            turns.append([])
        turns[-1].append(m)
    kept = turns[-n_turns:] if n_turns > 0 else []
    return [messages[0]] + [m for turn in kept for m in turn]
# %% right: comprehension of user indices with .get, explicit branch for the "not enough turns" case
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    user_idx = [i for i, m in enumerate(messages) if i > 0 and m.get("role") == "user"]
    if n_turns <= 0:
        return [messages[0]]
    if len(user_idx) <= n_turns:
        return list(messages)
    return [messages[0]] + messages[user_idx[len(user_idx) - n_turns]:]
