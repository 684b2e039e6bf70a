# Exercise 05-3: answers written from the task text alone (notebooks/05_react.ipynb), without reading the checker.
# %% wrong: the stop sequence is missing: the request has max_tokens but no stop=["Observation:"]
from course_lib.react import json_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools import default_registry

registry = default_registry()


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": json_system_prompt(registry)},
            {"role": "user", "content": f"Question: {question}\n{scratchpad}"},
        ],
        max_tokens=256,
    )
    return parse_json_protocol(response.choices[0].message.content, registry.names)
# %% wrong: sends tools=registry.schemas() as well, although protocol B describes the tools in the prompt and must not send tools
from course_lib.react import json_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools import default_registry

registry = default_registry()


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": json_system_prompt(registry)},
            {"role": "user", "content": f"Question: {question}\n{scratchpad}"},
        ],
        tools=registry.schemas(),
        stop=["Observation:"],
        max_tokens=256,
    )
    return parse_json_protocol(response.choices[0].message.content, registry.names)
# %% wrong: no max_tokens in the request (only stop)
from course_lib.react import json_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools import default_registry

registry = default_registry()


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": json_system_prompt(registry)},
            {"role": "user", "content": f"Question: {question}\n{scratchpad}"},
        ],
        stop=["Observation:"],
    )
    return parse_json_protocol(response.choices[0].message.content, registry.names)
# %% wrong: the user message drops the "Question: " label: it is f"{question}\n{scratchpad}"
from course_lib.react import json_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools import default_registry

registry = default_registry()


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": json_system_prompt(registry)},
            {"role": "user", "content": f"{question}\n{scratchpad}"},
        ],
        stop=["Observation:"],
        max_tokens=256,
    )
    return parse_json_protocol(response.choices[0].message.content, registry.names)
# %% wrong: the scratchpad is sent as a separate third message instead of being part of the one user message
from course_lib.react import json_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools import default_registry

registry = default_registry()


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    messages = [
        {"role": "system", "content": json_system_prompt(registry)},
        {"role": "user", "content": f"Question: {question}"},
    ]
    if scratchpad:
        messages.append({"role": "assistant", "content": scratchpad})
    response = client.chat.completions.create(model=MODEL, messages=messages, stop=["Observation:"], max_tokens=256)
    return parse_json_protocol(response.choices[0].message.content, registry.names)
# %% wrong: the system prompt is protocol A's line_system_prompt, not json_system_prompt
from course_lib.react import line_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools import default_registry

registry = default_registry()


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": line_system_prompt(registry)},
            {"role": "user", "content": f"Question: {question}\n{scratchpad}"},
        ],
        stop=["Observation:"],
        max_tokens=256,
    )
    return parse_json_protocol(response.choices[0].message.content, registry.names)
# %% wrong: the request is right but the raw reply text is returned, not the parse_json_protocol result
from course_lib.react import json_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools import default_registry

registry = default_registry()


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": json_system_prompt(registry)},
            {"role": "user", "content": f"Question: {question}\n{scratchpad}"},
        ],
        stop=["Observation:"],
        max_tokens=256,
    )
    return response.choices[0].message.content
# %% wrong: retries once when the reply cannot be parsed, so a bad reply makes it send two requests instead of exactly one
from course_lib.react import json_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools import default_registry

registry = default_registry()


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    messages = [
        {"role": "system", "content": json_system_prompt(registry)},
        {"role": "user", "content": f"Question: {question}\n{scratchpad}"},
    ]
    for _attempt in range(2):
        response = client.chat.completions.create(model=MODEL, messages=messages, stop=["Observation:"], max_tokens=256)
        parsed = parse_json_protocol(response.choices[0].message.content, registry.names)
        if parsed.kind != "invalid":
            break
    return parsed
# %% wrong: a model name is typed in ("gpt-4o-mini") instead of MODEL
from course_lib.react import json_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools import default_registry

registry = default_registry()


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    response = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": json_system_prompt(registry)},
            {"role": "user", "content": f"Question: {question}\n{scratchpad}"},
        ],
        stop=["Observation:"],
        max_tokens=256,
    )
    return parse_json_protocol(response.choices[0].message.content, registry.names)
# %% right: module-level registry, one create() call with the two messages, stop and max_tokens written inline
from course_lib.react import json_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools import default_registry

registry = default_registry()


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": json_system_prompt(registry)},
            {"role": "user", "content": f"Question: {question}\n{scratchpad}"},
        ],
        stop=["Observation:"],
        max_tokens=256,
    )
    return parse_json_protocol(response.choices[0].message.content, registry.names)
# %% right: the registry is built inside the function, the request arguments go through a kwargs dict (with JSON_STOP and temperature=0), and a None content is read as ""
from course_lib.react import JSON_STOP, json_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools import default_registry


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    registry = default_registry()
    system_message = {"role": "system", "content": json_system_prompt(registry)}
    user_message = {"role": "user", "content": "Question: " + question + "\n" + scratchpad}
    request = {
        "model": MODEL,
        "messages": [system_message, user_message],
        "stop": list(JSON_STOP),
        "max_tokens": 300,
        "temperature": 0,
    }
    response = client.chat.completions.create(**request)
    reply = response.choices[0].message.content or ""
    return parse_json_protocol(reply, registry.names)
