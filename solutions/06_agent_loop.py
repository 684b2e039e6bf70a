# Reference solutions for notebooks/06_agent_loop.ipynb. Try the exercises yourself first!

# %% exercise 06-1
import json


def call_key(name, arguments_json):
    """A hashable key: equal for the same tool with the same (parsed) arguments; None for invalid JSON."""
    try:
        arguments = json.loads(arguments_json)
    except json.JSONDecodeError:
        return None
    return (name, json.dumps(arguments, ensure_ascii=False, sort_keys=True))


# %% exercise 06-2
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """The agent loop with the get_weather tool; returns the final answer text."""
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "已经达到步数上限，不能再调用工具了。请根据上面的结果直接回答。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
