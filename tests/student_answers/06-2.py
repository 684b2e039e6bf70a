# Exercise 06-2: answers written from the task text alone (notebooks/06_agent_loop.ipynb), without reading the checker.
# %% wrong: off-by-one - range(max_steps + 1) sends max_steps + 1 requests with tools before the final one
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    for step in range(max_steps + 1):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请不要再调用工具，直接根据上面的信息回答。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: the final request after the step limit still passes tools=[WEATHER_TOOL], so the model can keep calling tools
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
    messages.append({"role": "user", "content": "步数用完了，请直接回答，不要再调用工具。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    return response.choices[0].message.content
# %% wrong: when the steps run out it sends the final tool-less request without first adding the user message asking for a direct answer
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
    # 不带 tools，模型就只能直接回答了
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: decides on finish_reason == "tool_calls" instead of on whether the reply has tool_calls
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        choice = response.choices[0]
        message = choice.message
        if choice.finish_reason != "tool_calls":
            return message.content
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请直接回答，不要再调用工具。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: answers only the first tool call of each reply (tool_calls[0]), so a reply with several calls leaves calls without a tool message
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
        call = message.tool_calls[0]
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [call.model_dump()]})
        args = json.loads(call.function.arguments)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请直接回答，不要再调用工具。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: when max_steps runs out it just returns the last reply's content (None) instead of making the extra tool-less request
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    message = None
    for _ in range(max_steps):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
        if not message.tool_calls:
            break
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    return message.content
# %% wrong: forgets to append the assistant message with its tool_calls, so the tool messages answer calls the history never shows
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    steps = 0
    while steps < max_steps:
        steps += 1
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请直接回答，不要再调用工具。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: the final request counts as one of the max_steps, so only max_steps - 1 requests with tools are sent
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps - 1):  # 最后一次留给不带工具的请求
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请直接回答，不要再调用工具。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: a model name is typed in ("gpt-4o-mini") instead of using the course's MODEL
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        response = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请直接回答，不要再调用工具。"})
    response = client.chat.completions.create(model="gpt-4o-mini", messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% right: for loop over range(max_steps) with early return, then one extra user message and a request without tools
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
    messages.append({"role": "user", "content": "工具调用次数已经用完了。请不要再调用工具，根据上面已有的信息直接回答。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% right: while loop with an explicit request counter, hand-built tool_calls dicts and tolerant argument parsing
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def _run_weather(arguments_text):
    """解析参数并运行 get_weather；参数读不出来时把错误告诉模型。"""
    try:
        args = json.loads(arguments_text or "{}")
    except json.JSONDecodeError as exc:
        return f"错误：参数不是合法的 JSON（{exc}）"
    if not isinstance(args, dict):
        return "错误：参数应该是一个 JSON 对象"
    return str(get_weather(args.get("city", ""), args.get("unit") or "celsius"))


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    requests_with_tools = 0
    while requests_with_tools < max_steps:
        response = client.chat.completions.create(
            model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        requests_with_tools += 1
        message = response.choices[0].message
        calls = message.tool_calls or []
        if len(calls) == 0:
            return message.content
        messages.append({
            "role": "assistant",
            "content": message.content,
            "tool_calls": [
                {"id": c.id, "type": "function",
                 "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for c in calls
            ],
        })
        for c in calls:
            messages.append({"role": "tool", "tool_call_id": c.id, "content": _run_weather(c.function.arguments)})

    # 步数用完：要求直接回答，这次请求不带 tools
    messages.append({"role": "user", "content": "请停止调用工具，直接用已经查到的信息回答我的问题。"})
    final = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return final.choices[0].message.content
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: off-by-one, range(max_steps + 1) lets the loop send max_steps + 1 requests with tools
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    for step in range(max_steps + 1):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请不要再调用工具，直接回答。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: decides on finish_reason == "tool_calls" instead of whether tool_calls has content (the script's calls may come with finish_reason "stop")
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        choice = response.choices[0]
        message = choice.message
        if choice.finish_reason != "tool_calls":
            return message.content
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请不要再调用工具，直接回答。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: tests "tool_calls is not None", so an answer with tool_calls == [] is treated as a tool step instead of the final text
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
        if message.tool_calls is None:
            return message.content
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请不要再调用工具，直接回答。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: the final request after the steps run out still passes tools=[WEATHER_TOOL] (it must be sent without tools)
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
    messages.append({"role": "user", "content": "请不要再调用工具，直接回答。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    return response.choices[0].message.content
# %% wrong: the final request passes tools=None, which still sends a tools parameter (the task says the request must not carry tools)
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    tools = [WEATHER_TOOL]
    step = 0
    while True:
        if step == max_steps:
            messages.append({"role": "user", "content": "请不要再调用工具，直接回答。"})
            tools = None
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=tools, max_tokens=200)
        message = response.choices[0].message
        if not message.tool_calls or tools is None:
            return message.content
        step += 1
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
# %% wrong: when the steps run out it sends the final no-tools request without first adding the user message asking for a direct answer
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
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: runs only the first tool call of each answer, so a parallel second call gets no tool message
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
        call = message.tool_calls[0]
        args = json.loads(call.function.arguments)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请不要再调用工具，直接回答。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: keeps the starter's first request outside the loop and loops range(max_steps - 1), so max_steps=0 still sends one request with tools
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    for _ in range(max_steps - 1):
        if not message.tool_calls:
            return message.content
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
    if not message.tool_calls:
        return message.content
    messages.append({"role": "assistant", "content": message.content,
                     "tool_calls": [c.model_dump() for c in message.tool_calls]})
    for call in message.tool_calls:
        args = json.loads(call.function.arguments)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请不要再调用工具，直接回答。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: appends only the tool messages and never the assistant message carrying tool_calls
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
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请不要再调用工具，直接回答。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% wrong: when max_steps is used up it just returns the last message's content (None) instead of asking once more without tools
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    message = None
    for _ in range(max_steps):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
        if not message.tool_calls:
            break
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    return message.content if message is not None else None
# %% wrong: types a model name into the requests instead of using MODEL
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        response = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    messages.append({"role": "user", "content": "请不要再调用工具，直接回答。"})
    response = client.chat.completions.create(model="gpt-4o-mini", messages=messages, max_tokens=200)
    return response.choices[0].message.content
# %% right: while loop with a step counter, tool_calls rebuilt by hand as plain dicts, request kwargs built in a dict
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    steps_used = 0
    while steps_used < max_steps:
        request = {"model": MODEL, "messages": messages, "tools": [WEATHER_TOOL], "max_tokens": 200}
        reply = client.chat.completions.create(**request).choices[0].message
        steps_used += 1
        calls = list(reply.tool_calls or [])
        if len(calls) == 0:
            return reply.content
        messages.append({
            "role": "assistant",
            "content": reply.content,
            "tool_calls": [
                {"id": c.id, "type": "function",
                 "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for c in calls
            ],
        })
        for c in calls:
            result = get_weather(**json.loads(c.function.arguments or "{}"))
            messages.append({"role": "tool", "tool_call_id": c.id, "content": str(result)})
    messages.append({"role": "user", "content": "工具次数已经用完了。请根据上面已有的信息直接回答，不要再调用工具。"})
    final = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=300)
    return final.choices[0].message.content
# %% right: for/else loop with a helper that runs one round of tool calls
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def _run_calls(messages, message):
    messages.append({"role": "assistant", "content": message.content,
                     "tool_calls": [call.model_dump() for call in message.tool_calls]})
    for call in message.tool_calls:
        arguments = json.loads(call.function.arguments)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**arguments)})


def agent_loop(client, question, max_steps=3):
    """使用 get_weather 工具的 agent 循环；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    for _step in range(max_steps):
        message = client.chat.completions.create(
            model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200
        ).choices[0].message
        if message.tool_calls:
            _run_calls(messages, message)
        else:
            return message.content
    else:
        messages.append({"role": "user", "content": "请直接给出最终回答。"})
        message = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200).choices[0].message
        return message.content
