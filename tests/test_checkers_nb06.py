"""The checkers of notebook 06 (course_lib.checkers.nb06) on typical right and wrong answers."""

from __future__ import annotations

import json

import pytest

from notebook_cells import load_solution

from course_lib.checkers import nb06
from course_lib.tools import WEATHER_TOOL, get_weather


def _agent_loop(final_tools):
    """The reference loop, except that the last request passes ``final_tools`` as keyword arguments."""

    def agent_loop(client, question, max_steps=3):
        messages = [{"role": "user", "content": question}]
        for _ in range(max_steps):
            message = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER_TOOL]).choices[0].message
            if not message.tool_calls:
                return message.content
            messages.append(message)
            for call in message.tool_calls:
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": get_weather(**json.loads(call.function.arguments))})
        messages.append({"role": "user", "content": "请根据上面的结果直接回答。"})
        return client.chat.completions.create(model="m", messages=messages, **final_tools).choices[0].message.content

    return agent_loop


def test_agent_loop_checker_names_tools_none(capsys):
    """Source text 000 writes tools=None for the last request: the SDK sends "tools": null.
    The hint says so (not "wrong number of requests")."""
    assert nb06.check_agent_loop(_agent_loop({})).passed is True
    capsys.readouterr()
    result = nb06.check_agent_loop(_agent_loop({"tools": None}))
    out = capsys.readouterr().out
    assert result.passed is False
    assert "None" in out and "null" in out and "次" not in out.split("：", 1)[1].split("。")[0]
    assert nb06.check_agent_loop(_agent_loop({"tools": [WEATHER_TOOL]})).passed is False


def test_agent_loop_checker_passes_the_reference():
    assert nb06.check_agent_loop(load_solution("06_agent_loop", "06-2")["agent_loop"]).passed is True


def test_call_key_checker_fails_frozenset_of_the_items(capsys):
    """The mistake the teacher's guide names: frozenset(args.items()) breaks on a list argument."""

    def frozen(name, arguments_json):
        try:
            args = json.loads(arguments_json)
        except ValueError:
            return None
        return name, frozenset(args.items())

    assert nb06.check_call_key(frozen).passed is False
    assert nb06.check_call_key(load_solution("06_agent_loop", "06-1")["call_key"]).passed is True


def _loop_with_final(final_message, call_dict=None):
    """The reference loop with another forced-final user message, or hand-written assistant calls."""

    def agent_loop(client, question, max_steps=3):
        messages = [{"role": "user", "content": question}]
        for _ in range(max_steps):
            message = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER_TOOL]).choices[0].message
            if not message.tool_calls:
                return message.content
            if call_dict is None:
                messages.append(message)
            else:
                messages.append({"role": "assistant", "content": None,
                                 "tool_calls": [call_dict(c) for c in message.tool_calls]})
            for call in message.tool_calls:
                messages.append({"role": "tool", "tool_call_id": call.id,
                                 "content": get_weather(**json.loads(call.function.arguments))})
        messages.append({"role": "user", "content": final_message})
        return client.chat.completions.create(model="m", messages=messages).choices[0].message.content

    return agent_loop


@pytest.mark.parametrize("final", ["", "   ", "北京和上海天气怎么样？", "继续"])
def test_agent_loop_checker_reads_the_forced_final_message(final, capsys):
    """The last user message must ask for an answer from the results so far (not empty, not the question)."""
    assert nb06.check_agent_loop(_loop_with_final(final)).passed is False
    assert nb06.check_agent_loop(_loop_with_final("请根据上面的工具结果直接回答，不要再调用工具。")).passed is True


def test_agent_loop_checker_fails_calls_a_real_endpoint_refuses():
    untyped = _loop_with_final("请根据已有的结果直接回答。",
                               lambda c: {"id": c.id, "function": {"name": c.function.name,
                                                                   "arguments": c.function.arguments}})
    as_dict = _loop_with_final("请根据已有的结果直接回答。",
                               lambda c: {"id": c.id, "type": "function",
                                          "function": {"name": c.function.name,
                                                       "arguments": json.loads(c.function.arguments)}})
    assert nb06.check_agent_loop(untyped).passed is False
    assert nb06.check_agent_loop(as_dict).passed is False
