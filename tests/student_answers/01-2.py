# Exercise 01-2: answers written from the task text alone (notebooks/01_chat_call.ipynb), without reading the checker.
# %% wrong: reads completion_tokens instead of total_tokens
def summarize(response):
    return {
        "finish_reason": response.choices[0].finish_reason,
        "total_tokens": response.usage.completion_tokens,
    }
# %% wrong: finish_reason hard-coded to "stop" instead of taken from the response
def summarize(response):
    return {"finish_reason": "stop", "total_tokens": response.usage.total_tokens}
# %% wrong: looks for finish_reason on the message (it lives on the choice), falls back to None
def summarize(response):
    message = response.choices[0].message
    return {
        "finish_reason": getattr(message, "finish_reason", None),
        "total_tokens": response.usage.total_tokens,
    }
# %% wrong: different key names than the task asks for
def summarize(response):
    return {
        "reason": response.choices[0].finish_reason,
        "tokens": response.usage.total_tokens,
    }
# %% wrong: total_tokens returned as a string via str()
def summarize(response):
    return {
        "finish_reason": str(response.choices[0].finish_reason),
        "total_tokens": str(response.usage.total_tokens),
    }
# %% wrong: counts only the prompt tokens as the total
def summarize(response):
    usage = response.usage
    return {"finish_reason": response.choices[0].finish_reason, "total_tokens": usage.prompt_tokens}
# %% wrong: ignores the given response and makes a new request to read the values
def summarize(response):
    fresh = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "你好"}], max_tokens=20
    )
    return {"finish_reason": fresh.choices[0].finish_reason, "total_tokens": fresh.usage.total_tokens}
# %% right: attribute access, straight from the response
def summarize(response):
    return {
        "finish_reason": response.choices[0].finish_reason,
        "total_tokens": response.usage.total_tokens,
    }
# %% right: dict access on model_dump()
def summarize(response):
    data = response.model_dump()
    result = {}
    result["finish_reason"] = data["choices"][0]["finish_reason"]
    result["total_tokens"] = data["usage"]["total_tokens"]
    return result
# %% right: dict() constructor with intermediate variables
def summarize(response):
    choice = response.choices[0]
    usage = response.usage
    return dict(finish_reason=choice.finish_reason, total_tokens=usage.total_tokens)
