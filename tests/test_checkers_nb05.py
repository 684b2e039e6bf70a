"""The checkers of notebook 05 (course_lib.checkers.nb05) on typical right and wrong answers.

Answers are written as notebook cells (source text run in a fresh namespace with the notebook's
``client`` and ``MODEL``); the model is a ``FakeLLM``, never a real one.
"""

from __future__ import annotations

import textwrap
import time

import pytest

from course_lib.checkers import nb05
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation
from fakes import FakeLLM
from notebook_cells import load_solution


def cell(source: str, **names) -> dict:
    """Run ``source`` (dedented) as a notebook cell; its namespace."""
    namespace = {"__name__": "__cell__", "MODEL": "fake-model", **names}
    exec(textwrap.dedent(source), namespace)
    return namespace


def _solution():
    return load_solution("05_react", "05-2")["next_user_message"]


def _fails_quietly(result, capsys):
    out = capsys.readouterr().out
    assert result.passed is False and "❌" in out and "Traceback" not in out, out
    assert result.hint != "check.crashed", out
    return out


ODD = [lambda *a: None, lambda *a: 3, lambda *a: (x for x in "ab"),
       lambda *a: type("Odd", (), {"__repr__": lambda self: 1 / 0})(), lambda *a: 1 / 0]


# -- 05-1 extract_action ----------------------------------------------------------------

RIGHT_ACTION = {
    "reference": None,
    "findall_first": """
        import re
        def extract_action(reply):
            found = re.findall(r"^action\\s*[:：]\\s*(\\w+)\\s*[:：](.*)$", reply, flags=re.I | re.M)
            return (found[0][0], found[0][1].strip()) if found else None
        """,
    "lines_and_split": """
        import re
        def extract_action(reply):
            for line in reply.splitlines():
                if re.match(r"action\\s*[:：]", line, re.IGNORECASE):
                    parts = re.split(r"[:：]", line, maxsplit=2)
                    if len(parts) == 3 and parts[1].strip():
                        return [parts[1].strip(), parts[2].strip()]
            return None
        """,
    "match_object_groups": """
        import re
        PATTERN = re.compile(r"^action[ \\t]*[:：][ \\t]*([A-Za-z_]\\w*)[ \\t]*[:：][ \\t]*(.+?)[ \\t]*$", re.I | re.M)
        def extract_action(reply):
            match = PATTERN.search(reply)
            if match is None:
                return None
            return match.groups()
        """,
}

WRONG_ACTION = {
    "untouched_strict": """
        import re
        def extract_action(reply):
            m = re.search(r"^Action: (\\w+): (.*)$", reply, flags=re.MULTILINE)
            return m.groups() if m else None
        """,
    "last_match": """
        import re
        def extract_action(reply):
            found = re.findall(r"^action\\s*[:：]\\s*(\\w+)\\s*[:：]\\s*(.*?)\\s*$", reply, flags=re.I | re.M)
            return found[-1] if found else None
        """,
    "no_multiline": """
        import re
        def extract_action(reply):
            m = re.search(r"^action\\s*[:：]\\s*(\\w+)\\s*[:：]\\s*(.*?)\\s*$", reply, flags=re.I)
            return m.groups() if m else None
        """,
    "no_ignorecase": """
        import re
        def extract_action(reply):
            m = re.search(r"^Action\\s*[:：]\\s*(\\w+)\\s*[:：]\\s*(.*?)\\s*$", reply, flags=re.M)
            return m.groups() if m else None
        """,
    "half_width_only": """
        import re
        def extract_action(reply):
            m = re.search(r"^action\\s*:\\s*(\\w+)\\s*:\\s*(.*?)\\s*$", reply, flags=re.I | re.M)
            return m.groups() if m else None
        """,
    "not_stripped": """
        import re
        def extract_action(reply):
            m = re.search(r"^action\\s*[:：]\\s*(\\w+)\\s*[:：](.*)$", reply, flags=re.I | re.M)
            return m.groups() if m else None
        """,
    "no_anchor": """
        import re
        def extract_action(reply):
            m = re.search(r"action\\s*[:：]\\s*(\\w+)\\s*[:：]\\s*(.*?)\\s*$", reply, flags=re.I | re.M)
            return m.groups() if m else None
        """,
    "dotall": """
        import re
        def extract_action(reply):
            m = re.search(r"^action\\s*[:：]\\s*(\\w+)\\s*[:：]\\s*(.*)\\s*$", reply, flags=re.I | re.M | re.S)
            return (m.group(1), m.group(2).strip()) if m else None
        """,
    "input_up_to_first_space": """
        import re
        def extract_action(reply):
            m = re.search(r"^action\\s*[:：]\\s*(\\w+)\\s*[:：]\\s*(\\S+)", reply, flags=re.I | re.M)
            return m.groups() if m else None
        """,
    "no_space_before_colon": """
        import re
        def extract_action(reply):
            m = re.search(r"^action[:：]\\s*(\\w+)[:：]\\s*(.*?)\\s*$", reply, flags=re.I | re.M)
            return m.groups() if m else None
        """,
    "swapped_pair": """
        import re
        def extract_action(reply):
            m = re.search(r"^action\\s*[:：]\\s*(\\w+)\\s*[:：]\\s*(.*?)\\s*$", reply, flags=re.I | re.M)
            return (m.group(2), m.group(1)) if m else None
        """,
    "returns_the_input": """
        def extract_action(reply):
            return reply
        """,
}


def _action_function(body):
    return load_solution("05_react", "05-1")["extract_action"] if body is None else cell(body)["extract_action"]


@pytest.mark.parametrize("name", RIGHT_ACTION)
def test_extract_action_checker_accepts(name, capsys):
    started = time.perf_counter()
    assert nb05.check_extract_action(_action_function(RIGHT_ACTION[name])).passed is True, capsys.readouterr().out
    assert time.perf_counter() - started < 3


@pytest.mark.parametrize("name", WRONG_ACTION)
def test_extract_action_checker_rejects(name, capsys):
    _fails_quietly(nb05.check_extract_action(_action_function(WRONG_ACTION[name])), capsys)


def test_extract_action_checker_names_first_versus_last(capsys):
    result = nb05.check_extract_action(_action_function(WRONG_ACTION["last_match"]))
    _fails_quietly(result, capsys)
    assert result.hint == "check.05.extract_action.first"


@pytest.mark.parametrize("odd", ODD)
def test_extract_action_checker_odd_returns(odd, capsys):
    _fails_quietly(nb05.check_extract_action(odd), capsys)


# -- 05-2 next_user_message -------------------------------------------------------------

RIGHT_NEXT = {
    "reference": None,
    "match_statement": """
        from course_lib.react import run_tool
        from course_lib.react_parser import corrective_observation
        def next_user_message(parsed, registry):
            match parsed.kind:
                case "action":
                    return f"Observation: {run_tool(registry, parsed.action, parsed.action_input)}"
                case "invalid":
                    return corrective_observation(parsed, "A", registry.names)
            return None
        """,
    "registry_call": """
        from course_lib.react import tool_arguments
        from course_lib.react_parser import corrective_observation
        def next_user_message(parsed, registry):
            if parsed.kind == "action":
                text, ok = registry.call(parsed.action, tool_arguments(registry, parsed.action, parsed.action_input))
                return "Observation: " + text
            elif parsed.kind == "invalid":
                return "Observation: " + corrective_observation(parsed, "A", list(registry.names), prefix="")
        """,
}

WRONG_NEXT = {
    "untouched": """
        def next_user_message(parsed, registry):
            return None
        """,
    "no_prefix": """
        from course_lib.react import run_tool
        from course_lib.react_parser import corrective_observation
        def next_user_message(parsed, registry):
            if parsed.kind == "answer":
                return None
            if parsed.kind == "action":
                return run_tool(registry, parsed.action, parsed.action_input)
            return corrective_observation(parsed, "A", registry.names)
        """,
    "prefix_without_space": """
        from course_lib.react import run_tool
        from course_lib.react_parser import corrective_observation
        def next_user_message(parsed, registry):
            if parsed.kind == "answer":
                return None
            if parsed.kind == "action":
                return "Observation:" + run_tool(registry, parsed.action, parsed.action_input)
            return corrective_observation(parsed, "A", registry.names)
        """,
    "empty_string_on_answer": """
        from course_lib.react import run_tool
        from course_lib.react_parser import corrective_observation
        def next_user_message(parsed, registry):
            if parsed.kind == "answer":
                return ""
            if parsed.kind == "action":
                return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)
            return corrective_observation(parsed, "A", registry.names)
        """,
    "runs_tool_when_invalid": """
        from course_lib.react import run_tool
        def next_user_message(parsed, registry):
            if parsed.kind == "answer":
                return None
            return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)
        """,
    "protocol_b_reminder": """
        from course_lib.react import run_tool
        from course_lib.react_parser import corrective_observation
        def next_user_message(parsed, registry):
            if parsed.kind == "answer":
                return None
            if parsed.kind == "action":
                return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)
            return corrective_observation(parsed, "B", registry.names)
        """,
    "text_input_for_every_tool": """
        from course_lib.react import run_tool
        from course_lib.react_parser import corrective_observation
        def next_user_message(parsed, registry):
            if parsed.kind == "answer":
                return None
            if parsed.kind == "action":
                return "Observation: " + run_tool(registry, parsed.action, str(parsed.action_input))
            return corrective_observation(parsed, "A", registry.names)
        """,
    "registry_run_with_text": """
        from course_lib.react_parser import corrective_observation
        def next_user_message(parsed, registry):
            if parsed.kind == "answer":
                return None
            if parsed.kind == "action":
                try:
                    return "Observation: " + str(registry.call(parsed.action, {"city": parsed.action_input})[0])
                except Exception as err:
                    return f"Observation: 错误：{err}"
            return corrective_observation(parsed, "A", registry.names)
        """,
    "returns_answer_text": """
        from course_lib.react import run_tool
        from course_lib.react_parser import corrective_observation
        def next_user_message(parsed, registry):
            if parsed.kind == "answer":
                return parsed.answer
            if parsed.kind == "action":
                return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)
            return corrective_observation(parsed, "A", registry.names)
        """,
    "swapped_branches": """
        from course_lib.react import run_tool
        from course_lib.react_parser import corrective_observation
        def next_user_message(parsed, registry):
            if parsed.kind == "answer":
                return None
            if parsed.kind != "action":
                return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)
            return corrective_observation(parsed, "A", registry.names)
        """,
}


def _next_function(body):
    return _solution() if body is None else cell(body)["next_user_message"]


@pytest.mark.parametrize("name", RIGHT_NEXT)
def test_next_user_message_checker_accepts(name, capsys):
    started = time.perf_counter()
    assert nb05.check_next_user_message(_next_function(RIGHT_NEXT[name])).passed is True, capsys.readouterr().out
    assert time.perf_counter() - started < 3


@pytest.mark.parametrize("name", WRONG_NEXT)
def test_next_user_message_checker_rejects(name, capsys):
    _fails_quietly(nb05.check_next_user_message(_next_function(WRONG_NEXT[name])), capsys)


@pytest.mark.parametrize("odd", ODD)
def test_next_user_message_checker_odd_returns(odd, capsys):
    _fails_quietly(nb05.check_next_user_message(odd), capsys)


def runs_another_tool_in_place(parsed, registry):
    """Replaces the action it was given by another one, then answers that one."""
    if parsed.kind != "action":
        return _solution()(parsed, registry)
    parsed.action, parsed.action_input = "calculate", "1 + 1"
    return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)


def drops_the_error_in_place(parsed, registry):
    """Blanks the parser's error before building the corrective message: the model never learns what was wrong."""
    if parsed.kind != "invalid":
        return _solution()(parsed, registry)
    parsed.error = ""
    return corrective_observation(parsed, "A", registry.names)


def unregisters_the_tool(parsed, registry):
    """Answers every action with the registry's error for a tool it removed from the registry."""
    if parsed.kind != "action":
        return _solution()(parsed, registry)
    registry._tools.pop(parsed.action, None)
    return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)


@pytest.mark.parametrize("wrong", [runs_another_tool_in_place, drops_the_error_in_place, unregisters_the_tool],
                         ids=lambda f: f.__name__)
def test_answers_that_change_their_input_fail(wrong, capsys):
    _fails_quietly(nb05.check_next_user_message(wrong), capsys)
    assert nb05.check_next_user_message(_solution()).passed is True  # and the next check is not changed


# -- 05-3 ask_once ------------------------------------------------------------------------

ASK_HEAD = """
from course_lib.react import json_system_prompt, line_system_prompt
from course_lib.react_parser import parse_json_protocol
from course_lib.tools.registry import ToolRegistry, Tool, default_registry
"""

RIGHT_ASK = {
    "reference": None,
    "streamed": """
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            stream = client.chat.completions.create(
                model=MODEL, stream=True, max_tokens=300, stop="Observation:",
                messages=[{"role": "system", "content": json_system_prompt(registry)},
                          {"role": "user", "content": "Question: " + question + "\\n" + scratchpad}])
            text = ""
            for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    text += chunk.choices[0].delta.content
            return parse_json_protocol(text, registry.names)
        """,
    "own_registry_and_more_stops": """
        from course_lib.tools import get_weather, WEATHER_TOOL, calculate, CALCULATOR_TOOL
        REGISTRY = ToolRegistry([Tool("get_weather", get_weather, WEATHER_TOOL), Tool("calculate", calculate, CALCULATOR_TOOL)])
        def ask_once(question, scratchpad=""):
            messages = [{"role": "system", "content": json_system_prompt(REGISTRY)}]
            messages.append({"role": "user", "content": f"Question: {question}\\n{scratchpad}"})
            response = client.chat.completions.create(model=MODEL, messages=messages, temperature=0,
                                                      max_completion_tokens=256, stop=("Observation:", "\\nObservation"))
            reply = response.choices[0].message.content
            return parse_json_protocol(reply.strip(), REGISTRY.names)
        """,
}

WRONG_ASK = {
    "temperature_below_zero": ("""
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            response = client.chat.completions.create(
                model=MODEL, max_tokens=200, stop=["Observation:"], temperature=-1,
                messages=[{"role": "system", "content": json_system_prompt(registry)},
                          {"role": "user", "content": f"Question: {question}\\n{scratchpad}"}])
            return parse_json_protocol(response.choices[0].message.content or "", registry.names)
        """, "check.request.range"),
    "untouched": ("""
        def ask_once(question, scratchpad=""):
            response = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": question}], max_tokens=200)
            return response.choices[0].message.content
        """, "check.05.ask_once.4"),
    "hard_coded_question": ("""
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            response = client.chat.completions.create(
                model=MODEL, max_tokens=200, stop=["Observation:"],
                messages=[{"role": "system", "content": json_system_prompt(registry)},
                          {"role": "user", "content": f"Question: 2+3 等于几？\\n{scratchpad}"}])
            return parse_json_protocol(response.choices[0].message.content, registry.names)
        """, "check.05.ask_once.6"),
    "scratchpad_ignored": ("""
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            response = client.chat.completions.create(
                model=MODEL, max_tokens=200, stop=["Observation:"],
                messages=[{"role": "system", "content": json_system_prompt(registry)},
                          {"role": "user", "content": f"Question: {question}\\n"}])
            return parse_json_protocol(response.choices[0].message.content, registry.names)
        """, "check.05.ask_once.6"),
    "line_protocol_prompt": ("""
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            response = client.chat.completions.create(
                model=MODEL, max_tokens=200, stop=["Observation:"],
                messages=[{"role": "system", "content": line_system_prompt(registry)},
                          {"role": "user", "content": f"Question: {question}\\n{scratchpad}"}])
            return parse_json_protocol(response.choices[0].message.content, registry.names)
        """, "check.05.ask_once.5"),
    "no_stop": ("""
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            response = client.chat.completions.create(
                model=MODEL, max_tokens=200,
                messages=[{"role": "system", "content": json_system_prompt(registry)},
                          {"role": "user", "content": f"Question: {question}\\n{scratchpad}"}])
            return parse_json_protocol(response.choices[0].message.content, registry.names)
        """, "check.05.ask_once.7"),
    "with_tools": ("""
        from course_lib.tools import WEATHER_TOOL
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            response = client.chat.completions.create(
                model=MODEL, max_tokens=200, stop=["Observation:"], tools=[WEATHER_TOOL],
                messages=[{"role": "system", "content": json_system_prompt(registry)},
                          {"role": "user", "content": f"Question: {question}\\n{scratchpad}"}])
            return parse_json_protocol(response.choices[0].message.content, registry.names)
        """, "check.05.ask_once.9"),
    "raw_text": ("""
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            response = client.chat.completions.create(
                model=MODEL, max_tokens=200, stop=["Observation:"],
                messages=[{"role": "system", "content": json_system_prompt(registry)},
                          {"role": "user", "content": f"Question: {question}\\n{scratchpad}"}])
            return response.choices[0].message.content
        """, "check.05.ask_once.10"),
    "parsed_with_one_name": ("""
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            response = client.chat.completions.create(
                model=MODEL, max_tokens=200, stop=["Observation:"],
                messages=[{"role": "system", "content": json_system_prompt(registry)},
                          {"role": "user", "content": f"Question: {question}\\n{scratchpad}"}])
            return parse_json_protocol(response.choices[0].message.content, ["calculate"])
        """, "check.05.ask_once.11"),
    "no_max_tokens": ("""
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            response = client.chat.completions.create(
                model=MODEL, stop=["Observation:"],
                messages=[{"role": "system", "content": json_system_prompt(registry)},
                          {"role": "user", "content": f"Question: {question}\\n{scratchpad}"}])
            return parse_json_protocol(response.choices[0].message.content, registry.names)
        """, "check.05.ask_once.8"),
    "scratchpad_as_messages": ("""
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            response = client.chat.completions.create(
                model=MODEL, max_tokens=200, stop=["Observation:"],
                messages=[{"role": "system", "content": json_system_prompt(registry)},
                          {"role": "user", "content": f"Question: {question}"},
                          {"role": "assistant", "content": scratchpad}])
            return parse_json_protocol(response.choices[0].message.content, registry.names)
        """, "check.05.ask_once.4"),
    "asks_twice": ("""
        def ask_once(question, scratchpad=""):
            registry = default_registry()
            kwargs = dict(model=MODEL, max_tokens=200, stop=["Observation:"],
                          messages=[{"role": "system", "content": json_system_prompt(registry)},
                                    {"role": "user", "content": f"Question: {question}\\n{scratchpad}"}])
            client.chat.completions.create(**kwargs)
            response = client.chat.completions.create(**kwargs)
            return parse_json_protocol(response.choices[0].message.content, registry.names)
        """, "check.05.ask_once.3"),
    "first_answer_cached": ("""
        CACHE = {}
        def ask_once(question, scratchpad=""):
            if "parsed" in CACHE:
                return CACHE["parsed"]
            registry = default_registry()
            response = client.chat.completions.create(
                model=MODEL, max_tokens=200, stop=["Observation:"],
                messages=[{"role": "system", "content": json_system_prompt(registry)},
                          {"role": "user", "content": f"Question: {question}\\n{scratchpad}"}])
            CACHE["parsed"] = parse_json_protocol(response.choices[0].message.content, registry.names)
            return CACHE["parsed"]
        """, None),
}


def _ask_function(body, client):
    if body is None:
        namespace = load_solution("05_react", "05-3")
        namespace["client"] = client
        return namespace["ask_once"]
    return cell(ASK_HEAD + textwrap.dedent(body), client=client)["ask_once"]


@pytest.mark.parametrize("name", RIGHT_ASK)
def test_ask_once_checker_accepts(name, capsys):
    client = FakeLLM(default="2").client()
    started = time.perf_counter()
    result = nb05.check_ask_once(_ask_function(RIGHT_ASK[name], client), client)
    assert result.passed is True, capsys.readouterr().out
    assert time.perf_counter() - started < 3


@pytest.mark.parametrize("name", WRONG_ASK)
def test_ask_once_checker_rejects(name, capsys):
    client = FakeLLM(default="2").client()
    body, key = WRONG_ASK[name]
    result = nb05.check_ask_once(_ask_function(body, client), client)
    _fails_quietly(result, capsys)
    if key:
        assert result.hint == key


@pytest.mark.parametrize("odd", ODD)
def test_ask_once_checker_odd_returns(odd, capsys):
    client = FakeLLM(default="2").client()
    _fails_quietly(nb05.check_ask_once(odd, client), capsys)


def test_ask_once_checker_never_asks_the_model():
    """The checker answers the recorded request itself: the notebook's model is not used."""
    fake = FakeLLM()  # no default: a request to it fails the test
    client = fake.client()
    assert nb05.check_ask_once(_ask_function(None, client), client).passed is True
    assert fake.requests == []


def test_every_call_builds_new_cases():
    first, second = nb05._next_cases(), nb05._next_cases()
    assert first == second
    assert all(a is not b for a, b in zip(first, second))
    assert first[2].action_input is not second[2].action_input
