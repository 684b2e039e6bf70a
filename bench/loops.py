"""The loops under test, all behind one function: ``LOOPS[name](setup, question, runs) -> (answer, stopped_reason)``.

Every loop gets the same things (``Setup``): the local server's base URL and
model id, an ``httpx2.Client`` from a ``bench.meter.Meter`` (so requests and
tokens are counted from the HTTP responses for all of them), the four course
tools wrapped by ``recording_tools`` (so the tool calls that ran are known for
all of them), at most ``max_steps`` model requests with tools, temperature 0
and the same ``max_tokens``.

Course loops: ``native`` (``course_lib.agent.Agent``), ``react_line``
(``LineReAct``, protocol A) and ``react_json`` (``JsonReAct``, protocol B).
Peer frameworks, installed only by ``python course.py bench`` from
``requirements-bench.txt`` (never part of a student's install):
``langchain`` (``langchain.agents.create_agent`` with ``ChatOpenAI`` and a
``ModelCallLimitMiddleware``) and ``smolagents`` (``ToolCallingAgent`` with
``OpenAIServerModel``).  A peer that is not installed raises
``PeerMissing``; the runner records that and goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import httpx2
import openai

from course_lib.agent import DEFAULT_SYSTEM, Agent
from course_lib.react import JsonReAct, LineReAct
from course_lib.tools.registry import ToolRegistry


class PeerMissing(RuntimeError):
    """A peer framework is not installed (``python course.py bench`` installs them)."""


@dataclass
class Setup:
    """What every loop is given.  ``max_tokens`` is per request; ``max_steps`` counts model requests with tools."""

    base_url: str
    model: str
    http_client: httpx2.Client
    max_steps: int = 4
    max_tokens: int = 300

    def openai_client(self) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.base_url, api_key="not-needed", http_client=self.http_client, max_retries=0)


def run_native(setup: Setup, question: str, tools: ToolRegistry, *, agent_class: type[Agent] = Agent,
               system: str = DEFAULT_SYSTEM) -> tuple[str | None, str]:
    """The course's ``Agent``; ``agent_class`` and ``system`` let bench/levers.py vary one thing."""
    agent = agent_class(setup.openai_client(), setup.model, tools, system=system, max_steps=setup.max_steps,
                        max_tokens=setup.max_tokens, temperature=0, trace=None)
    result = agent.run(question)
    return result.answer, result.stopped_reason


def _react(kind: type) -> Callable[[Setup, str, ToolRegistry], tuple[str | None, str]]:
    def run(setup: Setup, question: str, tools: ToolRegistry) -> tuple[str | None, str]:
        loop = kind(setup.openai_client(), setup.model, tools, max_steps=setup.max_steps,
                    max_tokens=setup.max_tokens, temperature=0, trace=None)
        result = loop.run(question)
        return result.answer, result.stopped_reason

    return run


def _content_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return "" if content is None else str(content)


def run_langchain(setup: Setup, question: str, tools: ToolRegistry) -> tuple[str | None, str]:
    """LangChain 1.x ``create_agent``: the model node and the tools node of a LangGraph graph.

    The step limit is LangChain's own middleware: ``ModelCallLimitMiddleware(run_limit=max_steps,
    exit_behavior="end")`` stops the graph after ``max_steps`` model calls.  The system prompt
    is the course's ``DEFAULT_SYSTEM``, so the comparison is about the loop, not the prompt.
    """
    try:
        from langchain.agents import create_agent
        from langchain.agents.middleware import ModelCallLimitMiddleware
        from langchain_core.tools import StructuredTool
        from langchain_openai import ChatOpenAI
    except ImportError as exc:
        raise PeerMissing(f"langchain is not installed ({exc.name})") from None
    model = ChatOpenAI(model=setup.model, base_url=setup.base_url, api_key="not-needed", temperature=0,
                       max_tokens=setup.max_tokens, max_retries=0, http_client=setup.http_client)
    lc_tools = [
        StructuredTool.from_function(func=tools.get(name).function, name=name,
                                     description=tools.get(name).schema["function"]["description"],
                                     args_schema=tools.get(name).parameters)
        for name in tools.names
    ]
    agent = create_agent(model, lc_tools, system_prompt=DEFAULT_SYSTEM,
                         middleware=[ModelCallLimitMiddleware(run_limit=setup.max_steps, exit_behavior="end")])
    state = agent.invoke({"messages": [{"role": "user", "content": question}]})
    last = state["messages"][-1]
    if getattr(last, "type", "") == "ai" and not getattr(last, "tool_calls", None):
        calls = sum(1 for m in state["messages"] if getattr(m, "type", "") == "ai")
        stopped = "answer" if calls <= setup.max_steps else "max_steps"
        return _content_text(last.content), stopped
    return None, "max_steps"


def run_smolagents(setup: Setup, question: str, tools: ToolRegistry) -> tuple[str | None, str]:
    """smolagents ``ToolCallingAgent`` with its own system prompt and ``max_steps``.

    It ends a run by calling its built-in ``final_answer`` tool; after
    ``max_steps`` it asks the model once more for a final answer without tools.
    """
    try:
        from smolagents import OpenAIServerModel, Tool, ToolCallingAgent
        from smolagents.monitoring import LogLevel
    except ImportError as exc:
        raise PeerMissing(f"smolagents is not installed ({exc.name})") from None

    def as_smol(name: str) -> Any:
        tool = tools.get(name)
        params = tool.parameters
        inputs = {
            key: {"type": spec.get("type", "string"), "description": spec.get("description", key),
                  **({"nullable": True} if key not in params.get("required", []) else {})}
            for key, spec in params.get("properties", {}).items()
        }

        class CourseTool(Tool):
            skip_forward_signature_validation = True
            output_type = "string"

            def forward(self, **kwargs: Any) -> str:
                return tools.call(name, {k: v for k, v in kwargs.items() if v is not None})[0]

        CourseTool.name = name
        CourseTool.description = tool.schema["function"]["description"]
        CourseTool.inputs = inputs
        return CourseTool()

    model = OpenAIServerModel(model_id=setup.model, api_base=setup.base_url, api_key="not-needed",
                              client_kwargs={"http_client": setup.http_client, "max_retries": 0},
                              temperature=0, max_tokens=setup.max_tokens)
    agent = ToolCallingAgent(tools=[as_smol(n) for n in tools.names], model=model, max_steps=setup.max_steps,
                             verbosity_level=LogLevel.OFF)
    answer = agent.run(question)
    steps = [s for s in agent.memory.steps if type(s).__name__ == "ActionStep"]
    stopped = "max_steps" if len(steps) >= setup.max_steps and not getattr(steps[-1], "is_final_answer", False) else "answer"
    return (None if answer is None else str(answer)), stopped


LOOPS: dict[str, Callable[[Setup, str, ToolRegistry], tuple[str | None, str]]] = {
    "native": run_native,
    "react_line": _react(LineReAct),
    "react_json": _react(JsonReAct),
    "langchain": run_langchain,
    "smolagents": run_smolagents,
}
COURSE_LOOPS = ["native", "react_line", "react_json"]
PEER_LOOPS = ["langchain", "smolagents"]
