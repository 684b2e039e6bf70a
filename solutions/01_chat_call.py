# notebooks/01_chat_call.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 01-1
def ask(question):
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": "你是一个简洁的中文助手。"},
            {"role": "user", "content": question},
        ],
        max_tokens=100,
        temperature=0,
    )
    return response.choices[0].message.content

# %% exercise 01-2
def summarize(response):
    return {
        "finish_reason": response.choices[0].finish_reason,
        "total_tokens": response.usage.total_tokens,
    }
