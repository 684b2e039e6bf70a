# Exercise 02-1: answers written from the task text alone (notebooks/02_memory.ipynb), without reading the checker.
# %% wrong: sends only the newest user message, not the whole messages list (the model has no memory)
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(
        model=MODEL, messages=[messages[-1]], max_tokens=100
    )
    reply = response.choices[0].message.content
    messages.append({"role": "assistant", "content": reply})
    return reply
# %% wrong: forgets to append the assistant reply to messages
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)
    return response.choices[0].message.content
# %% wrong: builds a new list (messages + [...]) so the caller's list is never appended to
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages = messages + [{"role": "user", "content": user_text}]
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)
    reply = response.choices[0].message.content
    messages = messages + [{"role": "assistant", "content": reply}]
    return reply
# %% wrong: the reply is appended with role "user" instead of "assistant"
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)
    reply = response.choices[0].message.content
    messages.append({"role": "user", "content": reply})
    return reply
# %% wrong: no max_tokens in the request (the task says to remember it)
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model=MODEL, messages=messages)
    reply = response.choices[0].message.content
    messages.append({"role": "assistant", "content": reply})
    return reply
# %% wrong: sends the list before appending the user text, so the request lacks the new question
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    response = client.chat.completions.create(model=MODEL, messages=messages or [{"role": "user", "content": user_text}], max_tokens=100)
    messages.append({"role": "user", "content": user_text})
    reply = response.choices[0].message.content
    messages.append({"role": "assistant", "content": reply})
    return reply
# %% wrong: model name typed in instead of MODEL
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model="gpt-4o-mini", messages=messages, max_tokens=100)
    reply = response.choices[0].message.content
    messages.append({"role": "assistant", "content": reply})
    return reply
# %% wrong: returns the whole response instead of the reply text
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)
    messages.append({"role": "assistant", "content": response.choices[0].message.content})
    return response
# %% right: the obvious four steps with attribute access
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)
    reply = response.choices[0].message.content
    messages.append({"role": "assistant", "content": reply})
    return reply
# %% right: in-place += and dict access on model_dump(), larger max_tokens
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages += [{"role": "user", "content": user_text}]
    data = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200).model_dump()
    text = data["choices"][0]["message"]["content"] or ""
    messages += [{"role": "assistant", "content": text}]
    return text
# %% right: one streamed request, the joined text appended as the assistant message
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    stream = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100, stream=True)
    text = ""
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            text += chunk.choices[0].delta.content
    messages.append({"role": "assistant", "content": text})
    return text
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: sends only the newest user message instead of the WHOLE messages list, so the model never sees earlier turns
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    user_msg = {"role": "user", "content": user_text}
    messages.append(user_msg)
    response = client.chat.completions.create(model=MODEL, messages=[user_msg], max_tokens=100)
    reply = response.choices[0].message.content
    messages.append({"role": "assistant", "content": reply})
    return reply
# %% wrong: never appends the assistant's answer to messages, so the history only holds user turns
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)
    return response.choices[0].message.content
# %% wrong: forgets max_tokens on the request (the task says remember max_tokens)
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model=MODEL, messages=messages)
    reply = response.choices[0].message.content
    messages.append({"role": "assistant", "content": reply})
    return reply
# %% wrong: rebinds messages to a new list (messages = messages + [...]) so the caller's list is never appended to
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages = messages + [{"role": "user", "content": user_text}]
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)
    reply = response.choices[0].message.content
    messages = messages + [{"role": "assistant", "content": reply}]
    return reply
# %% wrong: sends the request before appending the user text, so the request lacks the current question
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    response = client.chat.completions.create(model=MODEL, messages=messages + [], max_tokens=100)
    reply = response.choices[0].message.content
    messages.append({"role": "user", "content": user_text})
    messages.append({"role": "assistant", "content": reply})
    return reply
# %% wrong: appends the model's reply with role "user" instead of "assistant"
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)
    reply = response.choices[0].message.content
    messages.append({"role": "user", "content": reply})
    return reply
# %% wrong: sends messages plus the new user turn, but only the assistant reply is stored back, so the user turn is missing from the history
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    response = client.chat.completions.create(
        model=MODEL, messages=messages + [{"role": "user", "content": user_text}], max_tokens=100
    )
    reply = response.choices[0].message.content
    messages.append({"role": "assistant", "content": reply})
    return reply
# %% wrong: returns the whole message object instead of the reply text
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)
    message = response.choices[0].message
    messages.append({"role": "assistant", "content": message.content})
    return message
# %% wrong: types a model name in instead of using MODEL
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model="gpt-4o-mini", messages=messages, max_tokens=100)
    reply = response.choices[0].message.content
    messages.append({"role": "assistant", "content": reply})
    return reply
# %% right: streaming request, text assembled from the chunks, history appended with extend
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages.append({"role": "user", "content": user_text})
    stream = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=150, stream=True)
    parts = []
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            parts.append(chunk.choices[0].delta.content)
    text = "".join(parts)
    messages.extend([{"role": "assistant", "content": text}])
    return text
# %% right: keyword-built request dict, reply read through model_dump() dict access
def chat_turn(messages, user_text):
    """追加用户的消息，把整个列表发出去，再追加模型的回复，返回回复的文字。"""
    messages += [dict(role="user", content=user_text)]
    request = {"model": MODEL, "messages": messages, "max_tokens": 120}
    data = client.chat.completions.create(**request).model_dump()
    answer = data["choices"][0]["message"]["content"] or ""
    messages.insert(len(messages), dict(role="assistant", content=answer))
    return answer
