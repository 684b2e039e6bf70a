# Exercise 01-1: answers written from the task text alone (notebooks/01_chat_call.ipynb), without reading the checker.
# %% wrong: returns the whole response object instead of the answer text
def ask(question):
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": question}],
    )
    return response
# %% wrong: returns the message object (choices[0].message), not its .content string
def ask(question):
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": question}],
    )
    return response.choices[0].message
# %% wrong: model name typed in instead of using MODEL
def ask(question):
    response = client.chat.completions.create(
        model="deepseek-chat",
        messages=[
            {"role": "system", "content": "你是一个简洁的助手。"},
            {"role": "user", "content": question},
        ],
    )
    return response.choices[0].message.content
# %% wrong: the question is wrapped in a prompt template, so the last user message is not exactly question
def ask(question):
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": f"请用中文简短回答：{question}"}],
    )
    return response.choices[0].message.content
# %% wrong: system message placed after the user message, so the last message is not the user one
def ask(question):
    messages = [
        {"role": "user", "content": question},
        {"role": "system", "content": "回答不超过两句话。"},
    ]
    response = client.chat.completions.create(model=MODEL, messages=messages)
    return response.choices[0].message.content
# %% wrong: sends two requests (a connectivity "ping" first, then the question), the task asks for exactly one
def ask(question):
    client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "ping"}], max_tokens=5)
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": question}],
    )
    return response.choices[0].message.content
# %% wrong: prints the answer but returns nothing (None)
def ask(question):
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": question}],
    )
    print(response.choices[0].message.content)
# %% wrong: streams but returns the stream object instead of the joined text
def ask(question):
    stream = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": question}],
        stream=True,
    )
    return stream
# %% right: system message + user message, attribute access, max_tokens set
def ask(question):
    messages = [
        {"role": "system", "content": "你是一个乐于助人的助手，回答简洁。"},
        {"role": "user", "content": question},
    ]
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=300)
    return response.choices[0].message.content
# %% right: one streamed request, text joined from the deltas
def ask(question):
    stream = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": question}],
        stream=True,
    )
    parts = []
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            parts.append(chunk.choices[0].delta.content)
    return "".join(parts)
# %% right: dict access on the dumped response, only a user message
def ask(question):
    response = client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": question}],
    )
    data = response.model_dump()
    return data["choices"][0]["message"]["content"] or ""
