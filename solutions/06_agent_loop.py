# notebooks/06_agent_loop.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 06-1
import json


def call_key(name, arguments_json):
    """一个可哈希的键：同一个工具、（解析后）相同的参数，得到的键相等；JSON 不合法时返回 None。"""
    try:
        arguments = json.loads(arguments_json)
    except json.JSONDecodeError:
        return None
    return (name, json.dumps(arguments, ensure_ascii=False, sort_keys=True))


# %% exercise 06-2
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
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
