# notebooks/02_memory.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 02-1
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)
    reply = response.choices[0].message.content
    messages.append({"role": "assistant", "content": reply})
    return reply


# %% exercise 02-2
def keep_last_turns(messages, n_turns):
    """返回 system 消息加上最后 n_turns 个完整的轮次（一轮从一条 user 消息开始）。"""
    system, rest = messages[:1], messages[1:]
    starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
    if n_turns >= len(starts):
        return system + rest
    return system + rest[starts[-n_turns]:]
