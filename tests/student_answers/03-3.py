# Exercise 03-3: answers written from the task text alone (notebooks/03_function_calling.ipynb), without reading the checker.
# %% wrong: only the first tool call (tool_calls[0]) gets a tool message; with two parallel calls one id stays unanswered
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        messages.append(message)
        call = message.tool_calls[0]
        args = json.loads(call.function.arguments)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return response.choices[0].message.content
    return message.content
# %% wrong: the assistant message with tool_calls is never appended, so the tool messages answer nothing in the second request
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return response.choices[0].message.content
    return message.content
# %% wrong: the tool messages are appended before the assistant message (order user, tool, tool, assistant)
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        tool_messages = []
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            tool_messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        messages.extend(tool_messages)
        messages.append(message)
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return response.choices[0].message.content
    return message.content
# %% wrong: get_weather(args) passes the whole dict as `city` instead of **args, so every tool message carries an error, not the weather
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        messages.append(message)
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            result = get_weather(args)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": str(result)})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return response.choices[0].message.content
    return message.content
# %% wrong: every tool message copies the id of the first call (tool_calls[0].id), so the second parallel call's id is never answered
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        messages.append(message)
        call_id = message.tool_calls[0].id
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call_id, "content": get_weather(**args)})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return response.choices[0].message.content
    return message.content
# %% wrong: the second request is sent but its reply is dropped: the function returns the first reply's text (None when tools were called)
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        messages.append(message)
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    return message.content
# %% wrong: the tool branch is chosen by finish_reason == "tool_calls" instead of by message.tool_calls, so tool calls that come with another finish_reason are ignored
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if response.choices[0].finish_reason == "tool_calls":
        messages.append(message)
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return response.choices[0].message.content
    return message.content
# %% wrong: the second request types a model name ("gpt-4o-mini") instead of using MODEL
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        messages.append(message)
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        second = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return second.choices[0].message.content
    return message.content
# %% wrong: when no tool is needed the function falls through and returns None instead of the first reply's text
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    answer = None
    if message.tool_calls:
        messages.append(message)
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        answer = response.choices[0].message.content
    return answer
# %% wrong: the second request starts a new list without the user's question (only the assistant message and the tool messages)
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if not message.tool_calls:
        return message.content
    follow_up = [message]
    for call in message.tool_calls:
        args = json.loads(call.function.arguments)
        follow_up.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
    response = client.chat.completions.create(model=MODEL, messages=follow_up, tools=[WEATHER_TOOL], max_tokens=200)
    return response.choices[0].message.content
# %% right: append the SDK assistant message itself, answer every id in a loop, ask again with the same tools
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        messages.append(message)
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            result = get_weather(**args)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": str(result)})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return response.choices[0].message.content
    return message.content
# %% right: early return for the no-tool case; the assistant message is rebuilt as a plain dict and the tool messages come from a comprehension
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def _ask(client, messages):
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    return response.choices[0].message


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    message = _ask(client, messages)
    calls = message.tool_calls or []
    if not calls:
        return message.content

    messages.append({
        "role": "assistant",
        "content": message.content,
        "tool_calls": [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": c.function.arguments},
            }
            for c in calls
        ],
    })
    messages += [
        {
            "role": "tool",
            "tool_call_id": c.id,
            "content": str(get_weather(**json.loads(c.function.arguments))),
        }
        for c in calls
    ]
    return _ask(client, messages).content
# %% right: dispatch through a {name: function} table and keep one request helper with keyword arguments in a dict
import json

from course_lib.tools import WEATHER_TOOL, get_weather

FUNCTIONS = {"get_weather": get_weather}


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    request = {"model": MODEL, "tools": [WEATHER_TOOL], "max_tokens": 200}
    first = client.chat.completions.create(messages=messages, **request).choices[0].message
    if not getattr(first, "tool_calls", None):
        return first.content
    messages.append(first)
    for call in first.tool_calls:
        arguments = json.loads(call.function.arguments)
        output = FUNCTIONS[call.function.name](**arguments)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": f"{output}"})
    second = client.chat.completions.create(messages=messages, **request).choices[0].message
    return second.content
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: decides on finish_reason == "tool_calls" instead of on tool_calls, so a call that comes with "stop"/"length"/no finish_reason is never answered
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    choice = response.choices[0]
    message = choice.message
    if choice.finish_reason == "tool_calls":
        messages.append(message)
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        second = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return second.choices[0].message.content
    return message.content
# %% wrong: tests "tool_calls is not None", so an empty list [] (no call) still triggers a second request and its text is returned instead of the first answer
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls is not None:
        messages.append(message)
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
    return message.content
# %% wrong: answers only the first call (tool_calls[0]); with two parallel calls the second id gets no tool message
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        call = message.tool_calls[0]
        args = json.loads(call.function.arguments)
        messages.append(message)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        second = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return second.choices[0].message.content
    return message.content
# %% wrong: every tool message carries the first call's id (tool_calls[0].id), so the second parallel call's id is never answered
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        messages.append(message)
        call_id = message.tool_calls[0].id
        for call in message.tool_calls:
            result = get_weather(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
        second = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return second.choices[0].message.content
    return message.content
# %% wrong: the assistant message with the tool calls is never appended, the tool messages follow the user message directly
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        second = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return second.choices[0].message.content
    return message.content
# %% wrong: the assistant message is appended after the tool messages instead of before them
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        tool_messages = []
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            tool_messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        messages.extend(tool_messages)
        messages.append(message)
        second = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return second.choices[0].message.content
    return message.content
# %% wrong: the raw arguments JSON string is passed to get_weather as the city, so each tool message says there is no such city's data
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        messages.append(message)
        for call in message.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(call.function.arguments)})
        second = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return second.choices[0].message.content
    return message.content
# %% wrong: returns the tool's result text instead of the text of the second answer (no second request is made)
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        messages.append(message)
        results = []
        for call in message.tool_calls:
            result = get_weather(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
            results.append(result)
        return "\n".join(results)
    return message.content
# %% wrong: the second request sends a fresh list without the user's question (only the assistant and tool messages)
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        follow_up = [message]
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            follow_up.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        second = client.chat.completions.create(model=MODEL, messages=follow_up, tools=[WEATHER_TOOL], max_tokens=200)
        return second.choices[0].message.content
    return message.content
# %% wrong: the second request hard-codes a model id ("gpt-4o-mini") instead of using MODEL
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if message.tool_calls:
        messages.append(message)
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        second = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        return second.choices[0].message.content
    return message.content
# %% wrong: len(message.tool_calls) > 0 handles [] but raises TypeError when a reply without calls has tool_calls None
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    if len(message.tool_calls) > 0:
        messages.append(message)
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    return response.choices[0].message.content
# %% right: the assistant message rebuilt as a plain dict (role, content, tool_calls with id/type/function), one tool reply per id
import json

from course_lib.tools import WEATHER_TOOL, get_weather


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    calls = message.tool_calls or []
    if not calls:
        return message.content
    messages.append({
        "role": "assistant",
        "content": message.content,
        "tool_calls": [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": c.function.arguments},
            }
            for c in calls
        ],
    })
    for c in calls:
        arguments = json.loads(c.function.arguments or "{}")
        messages.append({"role": "tool", "tool_call_id": c.id, "content": str(get_weather(**arguments))})
    final = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    return final.choices[0].message.content
# %% right: dispatch table by tool name, the SDK message object appended as is, len() test on tool_calls
import json

from course_lib.tools import WEATHER_TOOL, get_weather

_FUNCTIONS = {"get_weather": get_weather}


def _answer(call):
    func = _FUNCTIONS.get(call.function.name)
    if func is None:
        return f"错误：没有叫 {call.function.name} 的工具"
    try:
        return str(func(**json.loads(call.function.arguments)))
    except (json.JSONDecodeError, TypeError) as exc:
        return f"错误：参数有问题：{exc}"


def single_step(client, question):
    """做一轮 function calling；返回最终回答的文字。"""
    messages = [{"role": "user", "content": question}]
    first = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    reply = first.choices[0].message
    if len(reply.tool_calls or ()) == 0:
        return reply.content
    messages.append(reply)
    messages.extend({"role": "tool", "tool_call_id": call.id, "content": _answer(call)} for call in reply.tool_calls)
    second = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    return second.choices[0].message.content
