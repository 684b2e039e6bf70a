# notebooks/05_react.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 05-1
import re

ACTION_RE = re.compile(r"^action\s*[:：]\s*(\w+)\s*[:：]\s*(.*?)\s*$", re.IGNORECASE | re.MULTILINE)


def extract_action(reply):
    """从第一条位于行首的 Action 行里取出 (tool_name, tool_input)，找不到就返回 None。"""
    m = ACTION_RE.search(reply)
    return (m.group(1), m.group(2)) if m else None


# %% exercise 05-2
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation


def next_user_message(parsed, registry):
    """协议 A 循环的下一条 user 消息：一条 Observation、一条纠正提示，或者（已经得到回答时）None。"""
    if parsed.kind == "answer":
        return None
    if parsed.kind == "action":
        return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)
    return corrective_observation(parsed, "A", registry.names)


# %% exercise 05-3
from course_lib.react import json_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools.registry import default_registry


def ask_once(question, scratchpad=""):
    """协议 B 的一次请求：[system, user(question + scratchpad)]，在 Observation 处停下；返回解析后的回答。"""
    registry = default_registry()
    response = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": json_system_prompt(registry)},
            {"role": "user", "content": f"Question: {question}\n{scratchpad}"},
        ],
        max_tokens=200,
        temperature=0,
        stop=["Observation:"],
    )
    return parse_json_protocol(response.choices[0].message.content or "", registry.names)
