"""The library's loops are the notebooks' hand-written loops (issue 21, the glass box).

Notebook 06 writes ``run_by_hand`` with the raw SDK and then shows ``Agent.step``
beside it; notebook 05 writes ``query()`` and then uses ``LineReAct``.  Here the
hand-written functions are taken from the notebooks' own cells and run against
the same scripted model as the library's loop: the message lists must be equal.
A change to either side that makes them differ fails here.
"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import nbformat
import pytest

from course_lib.agent import DEFAULT_SYSTEM, FINAL_ANSWER_PROMPT, Agent
from course_lib.checkers.scripted import ScriptedModel
from course_lib.react import LINE_STOP, LineReAct, line_system_prompt, run_tool
from course_lib.tables import show_messages
from course_lib.tools import CALCULATOR_TOOL, WEATHER_TOOL, calculate, get_weather
from course_lib.tools.registry import ToolRegistry, default_registry
from notebook_cells import ROOT


def cells(stem: str, *ids: str) -> str:
    """The source of the notebook's code cells with these ids, in the order given."""
    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    by_id = {cell.get("id"): cell.source for cell in nb.cells if cell.cell_type == "code"}
    return "\n\n".join(by_id[i] for i in ids)


def hand_namespace(script: ScriptedModel, parallel: bool = True) -> dict:
    """What the notebook's set-up cells give the hand-written loops, with the scripted client."""
    preset = SimpleNamespace(parallel_tool_calls=parallel)
    return {"client": script.client(), "MODEL": "fake-model", "provider": SimpleNamespace(preset=preset),
            "json": json, "re": re, "DEFAULT_SYSTEM": DEFAULT_SYSTEM, "WEATHER_TOOL": WEATHER_TOOL,
            "CALCULATOR_TOOL": CALCULATOR_TOOL, "calculate": calculate, "get_weather": get_weather,
            "show_messages": show_messages}


def run_by_hand_06(replies: list, question: str, max_steps: int) -> tuple[list[dict], list[dict]]:
    """Notebook 06's ``run_by_hand`` (cells c06 and c08) on a script: (messages, request bodies)."""
    script = ScriptedModel(list(replies), when_done=None)
    namespace = hand_namespace(script)
    exec(cells("06_agent_loop", "c06", "c08"), namespace)
    _, messages = namespace["run_by_hand"](question, max_steps=max_steps)
    return messages, script.requests


def agent_06(replies: list, question: str, max_steps: int) -> tuple[list[dict], list[dict]]:
    """``Agent`` with notebook 06's two tools on the same script: (messages, request bodies)."""
    script = ScriptedModel(list(replies), when_done=None)
    tools = ToolRegistry([default_registry().get("get_weather"), default_registry().get("calculate")])
    result = Agent(script.client(), "fake-model", tools, max_steps=max_steps, max_tokens=200, trace=None).run(question)
    return result.messages, script.requests


QUESTION_06 = "查一下北京的气温，然后用计算器算出这个温度乘以 3 是多少。"


def test_agent_step_gives_the_message_list_of_run_by_hand():
    replies = [{"tool_calls": [("get_weather", {"city": "北京"})]},
               {"tool_calls": [("calculate", {"expression": "25 * 3"})]},
               "北京 25°C，乘以 3 是 75。"]
    by_hand, hand_requests = run_by_hand_06(replies, QUESTION_06, max_steps=5)
    library, agent_requests = agent_06(replies, QUESTION_06, max_steps=5)
    assert [m["role"] for m in by_hand] == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert library == by_hand
    # The same requests too, apart from the request options each chose.
    assert [r["messages"] for r in agent_requests] == [r["messages"] for r in hand_requests]
    assert [r["tools"] for r in agent_requests] == [r["tools"] for r in hand_requests]


def test_both_end_at_max_steps_with_one_request_without_tools():
    cities = ["北京", "上海"]
    replies = [{"tool_calls": [("get_weather", {"city": c})]} for c in cities] + ["北京晴，上海多云。"]
    by_hand, hand_requests = run_by_hand_06(replies, "找一个永远不会下雨的城市", max_steps=2)
    library, agent_requests = agent_06(replies, "找一个永远不会下雨的城市", max_steps=2)
    assert len(by_hand) == len(library) == 8
    # Everything is the same except the wording of the "answer now" message (the library's names its reason).
    forced = [i for i, m in enumerate(library) if m["role"] == "user"][-1]
    assert forced == 6 and by_hand[forced]["role"] == "user"
    assert library[forced]["content"].startswith(FINAL_ANSWER_PROMPT.split("{reason}")[0])
    assert [m for i, m in enumerate(library) if i != forced] == [m for i, m in enumerate(by_hand) if i != forced]
    assert "tools" not in hand_requests[-1] and "tools" not in agent_requests[-1]
    assert all("tools" in r for r in hand_requests[:-1] + agent_requests[:-1])


def test_the_notebook_sets_agent_step_beside_run_by_hand():
    source = cells("06_agent_loop", "c12")
    assert "inspect.getsource(run_by_hand)" in source and "inspect.getsource(Agent.step)" in source
    # The numbered comments of run_by_hand are the order of Agent.step.
    hand = cells("06_agent_loop", "c08")
    import inspect
    step = inspect.getsource(Agent.step)
    for number in ("# 1-3.", "# 5", "# 8."):
        assert number in hand and number in step


def query_05(replies: list, question: str) -> list[dict]:
    """Notebook 05's hand-written ``query()`` (cells c06, c14, c16 without its last lines) on a script."""
    script = ScriptedModel(list(replies), when_done=None)
    namespace = hand_namespace(script)
    registry = ToolRegistry([default_registry().get(n) for n in ["calculate", "get_weather", "search_knowledge"]])
    namespace.update(registry=registry, SYSTEM_A=line_system_prompt(registry), LINE_STOP=LINE_STOP, run_tool=run_tool)
    source = cells("05_react", "c06", "c14").split("m = NAIVE_ACTION_RE.search(reply)")[0]
    source += "\n\n" + cells("05_react", "c16").split("answer, chain = query(")[0]
    exec(source, namespace)
    _, messages = namespace["query"](question)
    return messages, registry


@pytest.mark.parametrize("question, replies", [
    ("20 * 15 等于多少", ["Thought: 我需要计算\nAction: calculate: 20 * 15", "Thought: 算好了\nAnswer: 300"]),
    ("北京和广州天气怎么样", ["Thought: 先查北京\nAction: get_weather: 北京", "Thought: 再查广州\nAction: get_weather: 广州",
                           "Thought: 都查到了\nAnswer: 北京晴，广州有雨。"]),
])
def test_line_react_gives_the_message_list_of_query(question, replies):
    by_hand, registry = query_05(replies, question)
    script = ScriptedModel(list(replies), when_done=None)
    result = LineReAct(script.client(), "fake-model", registry, max_tokens=200, trace=None).run(question)
    assert result.stopped_reason == "answer"
    assert result.messages == by_hand
