"""The checkers of notebook 06 (course_lib.checkers.nb06) on typical right and wrong answers.

Answers are written as notebook cells (source text run in a fresh namespace with ``MODEL``); the
checker hands 06-2 its own scripted model, never a real one.
"""

from __future__ import annotations

import json
import textwrap
import time

import pytest

from notebook_cells import load_solution

from course_lib.checkers import nb06
from course_lib.tools import WEATHER_TOOL, get_weather


def cell(source: str) -> dict:
    namespace = {"__name__": "__cell__", "MODEL": "fake-model"}
    exec(textwrap.dedent(source), namespace)
    return namespace


def _fails_quietly(result, capsys):
    out = capsys.readouterr().out
    assert result.passed is False and "❌" in out and "Traceback" not in out, out
    assert result.hint != "check.crashed", out
    return out


ODD = [lambda *a, **k: None, lambda *a, **k: 3, lambda *a, **k: (x for x in "ab"),
       lambda *a, **k: type("Odd", (), {"__repr__": lambda self: 1 / 0, "__eq__": lambda s, o: 1 / 0,
                                        "__hash__": lambda self: 1})(),
       lambda *a, **k: 1 / 0]


# -- 06-1 call_key ------------------------------------------------------------------------

RIGHT_KEY = {
    "reference": None,
    "compact_string": """
        import json
        def call_key(name, arguments_json):
            try:
                args = json.loads(arguments_json)
            except ValueError:
                return None
            return name + ":" + json.dumps(args, sort_keys=True, separators=(",", ":"))
        """,
    "recursive_freeze": """
        import json
        def freeze(value):
            if isinstance(value, dict):
                return frozenset((k, freeze(v)) for k, v in value.items())
            if isinstance(value, list):
                return tuple(freeze(v) for v in value)
            return value

        def call_key(name, arguments_json):
            try:
                return (name, freeze(json.loads(arguments_json)))
            except json.JSONDecodeError:
                return None
        """,
}

WRONG_KEY = {
    "untouched_raw_text": ("""
        def call_key(name, arguments_json):
            return (name, arguments_json)
        """, None),
    "dict_not_hashable": ("""
        import json
        def call_key(name, arguments_json):
            try:
                return {"name": name, "args": json.loads(arguments_json)}
            except ValueError:
                return None
        """, "check.06.call_key.3"),
    "frozenset_items": ("""
        import json
        def call_key(name, arguments_json):
            try:
                return name, frozenset(json.loads(arguments_json).items())
            except ValueError:
                return None
        """, None),
    "no_except": ("""
        import json
        def call_key(name, arguments_json):
            return (name, json.dumps(json.loads(arguments_json), sort_keys=True))
        """, None),
    "name_and_none": ("""
        import json
        def call_key(name, arguments_json):
            try:
                return (name, json.dumps(json.loads(arguments_json), sort_keys=True))
            except ValueError:
                return (name, None)
        """, "check.06.call_key.6"),
    "no_name": ("""
        import json
        def call_key(name, arguments_json):
            try:
                return json.dumps(json.loads(arguments_json), sort_keys=True)
            except ValueError:
                return None
        """, "check.06.call_key.5"),
    "unsorted": ("""
        import json
        def call_key(name, arguments_json):
            try:
                return (name, json.dumps(json.loads(arguments_json)))
            except ValueError:
                return None
        """, "check.06.call_key.4"),
    "top_level_sorted_items": ("""
        import json
        def call_key(name, arguments_json):
            try:
                args = json.loads(arguments_json)
            except ValueError:
                return None
            return (name, str(sorted(args.items())))
        """, "check.06.call_key.4"),
    "lists_sorted_too": ("""
        import json
        def freeze(value):
            if isinstance(value, dict):
                return frozenset((k, freeze(v)) for k, v in value.items())
            if isinstance(value, list):
                return frozenset(freeze(v) for v in value)
            return value
        def call_key(name, arguments_json):
            try:
                return (name, freeze(json.loads(arguments_json)))
            except ValueError:
                return None
        """, "check.06.call_key.5"),
    "text_without_spaces": ("""
        def call_key(name, arguments_json):
            return (name, "".join(arguments_json.split()))
        """, None),
    "values_only": ("""
        import json
        def call_key(name, arguments_json):
            try:
                args = json.loads(arguments_json)
            except ValueError:
                return None
            return (name, tuple(sorted(str(v) for v in args.values())))
        """, None),
}


def _key_function(body):
    return load_solution("06_agent_loop", "06-1")["call_key"] if body is None else cell(body)["call_key"]


@pytest.mark.parametrize("name", RIGHT_KEY)
def test_call_key_checker_accepts(name, capsys):
    started = time.perf_counter()
    assert nb06.check_call_key(_key_function(RIGHT_KEY[name])).passed is True, capsys.readouterr().out
    assert time.perf_counter() - started < 3


@pytest.mark.parametrize("name", WRONG_KEY)
def test_call_key_checker_rejects(name, capsys):
    body, key = WRONG_KEY[name]
    result = nb06.check_call_key(_key_function(body))
    _fails_quietly(result, capsys)
    if key:
        assert result.hint == key


@pytest.mark.parametrize("odd", ODD)
def test_call_key_checker_odd_returns(odd, capsys):
    _fails_quietly(nb06.check_call_key(odd), capsys)


# -- 06-2 agent_loop ------------------------------------------------------------------------

LOOP_HEAD = """
import json
from course_lib.tools import WEATHER_TOOL, get_weather
"""


def _loop(final_message="已经达到步数上限，不能再调用工具了。请根据上面的结果直接回答。", steps="max_steps",
          final_tools="", append_assistant="messages.append(message)", content="get_weather(**args)",
          question="question", on_text="return message.content", extra=""):
    """The reference loop with one piece changed (each argument is a piece of source text)."""
    return f"""
        def agent_loop(client, question, max_steps=3):
            messages = [{{"role": "user", "content": {question}}}]
            for _ in range({steps}):
                response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL]{extra})
                message = response.choices[0].message
                if not message.tool_calls:
                    {on_text}
                {append_assistant}
                for call in message.tool_calls:
                    args = json.loads(call.function.arguments)
                    messages.append({{"role": "tool", "tool_call_id": call.id, "content": {content}}})
            messages.append({{"role": "user", "content": {final_message!r}}})
            response = client.chat.completions.create(model=MODEL, messages=messages{final_tools})
            return response.choices[0].message.content
        """


RIGHT_LOOP = {
    "reference": None,
    "message_object": _loop(),
    "model_dump": _loop(append_assistant="messages.append(message.model_dump(exclude_none=True))"),
    "other_wording": _loop(final_message="工具调用次数用完了，请告诉用户你目前查到的情况。"),
    "english_wording": _loop(final_message="Step limit reached. Please give your final answer now without tools."),
    "tool_choice_auto": _loop(extra=', tool_choice="auto"'),
    "while_counter": """
        def agent_loop(client, question, max_steps=3):
            messages = [{"role": "system", "content": "你是天气助手。"}, {"role": "user", "content": question}]
            steps = 0
            while steps < max_steps:
                steps += 1
                message = client.chat.completions.create(model=MODEL, messages=messages,
                                                         tools=[WEATHER_TOOL]).choices[0].message
                if message.tool_calls is None or len(message.tool_calls) == 0:
                    return message.content
                messages.append({"role": "assistant", "content": message.content or "",
                                 "tool_calls": [{"id": c.id, "type": "function",
                                                 "function": {"name": c.function.name,
                                                              "arguments": c.function.arguments}}
                                                for c in message.tool_calls]})
                for call in message.tool_calls:
                    city = json.loads(call.function.arguments)["city"]
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(city)})
            messages.append({"role": "user", "content": "不能再调用工具了，请根据已有的工具结果给出最终回答。"})
            return client.chat.completions.create(model=MODEL, messages=messages).choices[0].message.content
        """,
    "streamed": """
        def _ask(client, messages, **tools):
            text, calls = "", {}
            for chunk in client.chat.completions.create(model=MODEL, messages=messages, stream=True, **tools):
                if not chunk.choices:
                    continue
                delta = chunk.choices[0].delta
                text += delta.content or ""
                for piece in delta.tool_calls or []:
                    call = calls.setdefault(piece.index, {"id": "", "type": "function",
                                                          "function": {"name": "", "arguments": ""}})
                    call["id"] = piece.id or call["id"]
                    if piece.function and piece.function.name:
                        call["function"]["name"] += piece.function.name
                    if piece.function and piece.function.arguments:
                        call["function"]["arguments"] += piece.function.arguments
            return text, [calls[k] for k in sorted(calls)]

        def agent_loop(client, question, max_steps=3):
            messages = [{"role": "user", "content": question}]
            for _ in range(max_steps):
                text, calls = _ask(client, messages, tools=[WEATHER_TOOL])
                if not calls:
                    return text
                messages.append({"role": "assistant", "content": text or None, "tool_calls": calls})
                for call in calls:
                    args = json.loads(call["function"]["arguments"])
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": get_weather(**args)})
            messages.append({"role": "user", "content": "请根据上面的工具结果直接回答。"})
            return _ask(client, messages)[0]
        """,
}

WRONG_LOOP = {
    "untouched_single_step": ("""
        def agent_loop(client, question, max_steps=3):
            messages = [{"role": "user", "content": question}]
            response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
            message = response.choices[0].message
            if message.tool_calls:
                messages.append({"role": "assistant", "content": message.content,
                                 "tool_calls": [c.model_dump() for c in message.tool_calls]})
                for call in message.tool_calls:
                    args = json.loads(call.function.arguments)
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**args)})
                response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
                message = response.choices[0].message
            return message.content
        """, None),
    "ignores_max_steps": (_loop(steps="3"), "check.06.agent_loop.11"),
    "one_step_too_many": (_loop(steps="max_steps + 1"), "check.06.agent_loop.11"),
    "one_step_too_few": (_loop(steps="max_steps - 1"), None),
    "tools_none_at_the_end": (_loop(final_tools=", tools=None"), "check.06.agent_loop.10"),
    "empty_tools_at_the_end": (_loop(final_tools=", tools=[]"), "check.06.agent_loop.13"),
    "tools_at_the_end": (_loop(final_tools=", tools=[WEATHER_TOOL]"), None),
    "no_assistant_message": (_loop(append_assistant="pass"), None),
    "hard_coded_city": (_loop(content='get_weather("北京")'), "check.06.agent_loop.6"),
    "question_ignored": (_loop(question='"北京天气怎么样？"'), "check.06.agent_loop.question"),
    "empty_final_message": (_loop(final_message=""), "check.06.agent_loop.18"),
    "question_as_final_message": (_loop(final_message="北京和上海天气怎么样？"), "check.06.agent_loop.18"),
    "continue_as_final_message": (_loop(final_message="继续"), "check.06.agent_loop.18"),
    "does_not_return_text": (_loop(on_text="break"), None),
    "returns_the_message": (_loop(on_text="return message"), None),
    "global_client": ("""
        import openai
        client = openai.OpenAI(base_url="http://127.0.0.1:9/v1", api_key="x", max_retries=0, timeout=0.5)

        def agent_loop(_client, question, max_steps=3):
            message = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": question}],
                                                     tools=[WEATHER_TOOL]).choices[0].message
            return message.content
        """, "check.06.agent_loop.2"),
}


def _loop_function(body):
    if body is None:
        return load_solution("06_agent_loop", "06-2")["agent_loop"]
    return cell(LOOP_HEAD + textwrap.dedent(body))["agent_loop"]


@pytest.mark.parametrize("name", RIGHT_LOOP)
def test_agent_loop_checker_accepts(name, capsys):
    started = time.perf_counter()
    assert nb06.check_agent_loop(_loop_function(RIGHT_LOOP[name])).passed is True, capsys.readouterr().out
    assert time.perf_counter() - started < 3


@pytest.mark.parametrize("name", WRONG_LOOP)
def test_agent_loop_checker_rejects(name, capsys):
    body, key = WRONG_LOOP[name]
    result = nb06.check_agent_loop(_loop_function(body))
    _fails_quietly(result, capsys)
    if key:
        assert result.hint == key


@pytest.mark.parametrize("odd", ODD)
def test_agent_loop_checker_odd_returns(odd, capsys):
    _fails_quietly(nb06.check_agent_loop(odd), capsys)


def test_agent_loop_checker_names_tools_none(capsys):
    """Source text 000 writes tools=None for the last request: the SDK sends "tools": null.
    The hint says so (not "wrong number of requests")."""
    result = nb06.check_agent_loop(_loop_function(_loop(final_tools=", tools=None")))
    out = capsys.readouterr().out
    assert result.passed is False
    assert "None" in out and "null" in out and "次" not in out.split("：", 1)[1].split("。")[0]


def test_agent_loop_checker_fails_calls_a_real_endpoint_refuses(capsys):
    untyped = _loop(append_assistant='messages.append({"role": "assistant", "content": None, "tool_calls": '
                                     '[{"id": c.id, "function": {"name": c.function.name, '
                                     '"arguments": c.function.arguments}} for c in message.tool_calls]})')
    as_dict = _loop(append_assistant='messages.append({"role": "assistant", "content": None, "tool_calls": '
                                     '[{"id": c.id, "type": "function", "function": {"name": c.function.name, '
                                     '"arguments": json.loads(c.function.arguments)}} for c in message.tool_calls]})')
    for body in (untyped, as_dict):
        _fails_quietly(nb06.check_agent_loop(_loop_function(body)), capsys)


def test_the_reference_loop_pieces_are_valid():
    """The test's own loop template, unchanged, is a right answer (so each wrong one differs by one piece)."""
    assert nb06.check_agent_loop(_loop_function(_loop())).passed is True
    assert get_weather("北京") and json.dumps(WEATHER_TOOL)


def test_06_1_values_keep_their_spaces_and_case():
    """Issue 54: spaces inside values and capitals were never drawn - stripping or lower-casing passed."""
    def squeezed(name, arguments_json):
        try:
            return (name, json.dumps(json.loads(arguments_json.replace(" ", "")), sort_keys=True))
        except ValueError:
            return None

    def lowered(name, arguments_json):
        try:
            return (name, json.dumps(json.loads(arguments_json), sort_keys=True).lower())
        except ValueError:
            return None

    assert nb06.check_call_key(squeezed).passed is False
    assert nb06.check_call_key(lowered).passed is False


def test_06_2_max_steps_0_sends_no_request_with_tools():
    """A loop that asks once before it counts sends a request with tools even when max_steps is 0 (held-out answers)."""
    namespace = {"MODEL": "fake-model"}
    code = '''
import json
from course_lib.tools import WEATHER_TOOL, get_weather

def agent_loop(client, question, max_steps=3):
    messages = [{"role": "user", "content": question}]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
    message = response.choices[0].message
    for _ in range(max_steps - 1):
        if not message.tool_calls:
            return message.content
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [c.model_dump() for c in message.tool_calls]})
        for call in message.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": get_weather(**json.loads(call.function.arguments))})
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL], max_tokens=200)
        message = response.choices[0].message
    if not message.tool_calls:
        return message.content
    messages.append({"role": "assistant", "content": message.content,
                     "tool_calls": [c.model_dump() for c in message.tool_calls]})
    for call in message.tool_calls:
        messages.append({"role": "tool", "tool_call_id": call.id,
                         "content": get_weather(**json.loads(call.function.arguments))})
    messages.append({"role": "user", "content": "请根据上面的结果直接回答。"})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=200)
    return response.choices[0].message.content
'''
    exec(code, namespace)
    assert nb06.check_agent_loop(namespace["agent_loop"]).passed is False
