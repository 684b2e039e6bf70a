# Reference solutions for notebooks/05_react.ipynb. Try the exercises yourself first!

# %% exercise 05-1
import re

ACTION_RE = re.compile(r"^action\s*[:：]\s*(\w+)\s*[:：]\s*(.*?)\s*$", re.IGNORECASE | re.MULTILINE)


def extract_action(reply):
    """Return (tool_name, tool_input) from the first line-start Action line, or None."""
    m = ACTION_RE.search(reply)
    return (m.group(1), m.group(2)) if m else None


# %% exercise 05-2
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation


def next_user_message(parsed, registry):
    """The next user message of a protocol-A loop: an Observation, a correction, or None after an answer."""
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
    """One protocol-B request: [system, user(question + scratchpad)], stop at Observation; return the parsed reply."""
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
