"""The native function-calling loop (notebook 06): an agent is a ``while`` loop.

Notebook 03 handled one round with ``if tool_calls``.  The agent repeats it::

    while the reply has tool_calls:
        append the assistant message (with its tool_calls)
        run every call; append one {"role": "tool", "tool_call_id": id, "content": str} per id
        ask the model again (same tools)
    no tool_calls -> the reply text is the answer

Three guards keep the loop finite and the message list valid:

* ``max_steps`` - the hard stop.  After ``max_steps`` requests without an
  answer, a user message asks for a final answer from what was gathered
  (``FINAL_ANSWER_PROMPT``) AND the next request leaves ``tools``,
  ``tool_choice`` and ``parallel_tool_calls`` out entirely (``request_kwargs``
  with ``tools=None``).  Both, because either alone can fail: a model offered
  tools may keep calling them, and a model without tools but without the
  instruction may answer about something else.
* repeated identical calls (same tool, same arguments) are not run again:
  the tool reply is the first result plus ``REPEAT_NOTE``.  A step that
  repeats an earlier call and runs nothing new (its other calls, if any, had
  unreadable arguments) is a "repeating" step; ``max_repeats`` of them in a
  row end the run with the same forced final answer
  (``stopped_reason == "repeated_calls"``).
* a reply whose content looked like a tool call but could not be read
  (``tool_calls.AssistantTurn.problem``) gets a corrective user message and
  counts as a step - it is never taken as the final answer.

``Agent`` is step-able (``start`` / ``next_request`` / ``step`` / ``done``)
so a notebook or a debugger can walk it one request at a time; ``run_agent``
runs the same object to the end.  Tool calls are read and run by
``course_lib.tool_calls`` (``read_assistant``, ``execute``); every request is
built by ``messages.request_kwargs``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import pandas as pd

from .messages import has_text, request_kwargs, to_dict
from .replies import read_reply
from .tables import Table, shorten, show_messages
from .tool_calls import ToolCall, execute, read_assistant
from .tools.registry import ToolRegistry, default_registry

DEFAULT_MAX_STEPS = 5
DEFAULT_MAX_REPEATS = 2
DEFAULT_MAX_TOKENS = 300  # per request

DEFAULT_SYSTEM = """你是一个会使用工具的中文助手。
- 需要信息时就调用工具，可以调用多次；问题涉及几项（例如几个城市、几种商品），就分别查询每一项。
- 信息足够以后，用简洁的中文直接回答，不要再调用工具。
- 不要用相同的参数重复调用同一个工具：之前得到的结果仍然有效。"""

# Appended as a user message when the loop must stop asking for tools.
FINAL_ANSWER_PROMPT = (
    "{reason}不能再调用工具了。请只根据上面已经得到的工具结果，直接用中文回答最初的问题；"
    "如果这些信息不足以完成任务，就说明已经查到了什么、还缺什么。"
)
STOP_REASONS_TEXT = {
    "max_steps": "已经达到最多 {max_steps} 步的上限，",
    "repeated_calls": "你在重复完全相同的工具调用，结果不会改变，",
}
# Added to the first result when an identical call is answered without running the tool again.
REPEAT_NOTE = (
    "（注意：这个调用与第 {step} 步的调用相同（同一个工具、同样的参数），没有重新执行；"
    "上面是那一次的结果。请不要重复调用，直接根据已有结果继续。）"
)
EMPTY_REPLY_PROMPT = "你的回复是空的。请调用工具获取需要的信息，或者直接用文字回答问题。"


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------


@dataclass
class CallRecord:
    """One tool call of one step.

    Attributes:
        id: the tool_call id (answered by exactly one tool message).
        name: the tool name.
        arguments: the parsed arguments dict, or None if unreadable.
        arguments_text: the JSON string sent back in the assistant message.
        result: the tool message content (str) - for a repeat, the first result plus the note.
        repeated: True if the call was answered from an earlier identical call, not run.
        first_step: for a repeat, the step whose result was reused.
        error: why the arguments could not be read, or None.
        recovered: True if the call was written as JSON text in content and recovered.
    """

    id: str
    name: str
    arguments: dict | None
    arguments_text: str
    result: str
    repeated: bool = False
    first_step: int | None = None
    error: str | None = None
    recovered: bool = False


@dataclass
class AgentStep:
    """One model request of the loop.

    Attributes:
        step: 1, 2, ... (the final forced request after a stop gets the next number).
        kind: ``"tool_calls"`` (tools ran), ``"answer"`` (text reply: done),
            ``"problem"`` (content looked like an unreadable tool call: a
            corrective user message was sent), ``"empty"`` (no text, no calls:
            a reminder was sent) or ``"final"`` (the request without tools
            after ``max_steps`` / repeated calls).
        calls: the ``CallRecord`` list (kind "tool_calls" only).
        text: the reply text, or None.
        problem: the corrective message sent (kinds "problem"/"empty"), else None.
        with_tools: whether the request offered tools.
        finish_reason: from the response.
        prompt_tokens, completion_tokens: from ``response.usage`` (None if not sent).
        seconds: wall time of the request plus the tool runs.
    """

    step: int
    kind: str
    calls: list[CallRecord] = field(default_factory=list)
    text: str | None = None
    problem: str | None = None
    with_tools: bool = True
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0


CHAIN_COLUMNS = ["step", "kind", "tool", "arguments", "result", "repeated", "prompt_tokens", "completion_tokens"]


def chain_frame(steps: list[AgentStep], max_chars: int | None = 120) -> pd.DataFrame:
    """The run as a DataFrame: one row per tool call (and one per step without calls).

    Columns ``CHAIN_COLUMNS``; ``result`` holds the tool result, the answer
    text, or the corrective message; long text is shortened with a marker.
    """
    rows = []
    for s in steps:
        tokens = {"prompt_tokens": s.prompt_tokens, "completion_tokens": s.completion_tokens}
        if s.calls:
            for c in s.calls:
                rows.append({"step": s.step, "kind": s.kind, "tool": c.name, "arguments": c.arguments_text,
                             "result": shorten(c.result, max_chars), "repeated": c.repeated, **tokens})
                tokens = {"prompt_tokens": None, "completion_tokens": None}  # count each request once
        else:
            shown = s.problem if s.kind in ("problem", "empty") else (s.text or "")
            rows.append({"step": s.step, "kind": s.kind, "tool": "", "arguments": "",
                         "result": shorten(shown or "", max_chars), "repeated": False, **tokens})
    frame = pd.DataFrame(rows, columns=CHAIN_COLUMNS)
    for col in ("prompt_tokens", "completion_tokens"):
        frame[col] = frame[col].astype("Int64")
    return frame


@dataclass
class AgentResult:
    """The outcome of one agent run.

    Attributes:
        question: the task (the first user message's text).
        answer: the final answer text, or None if the model gave none.
        stopped_reason: ``"answer"`` (the model answered by itself),
            ``"max_steps"`` or ``"repeated_calls"`` (the loop forced a final
            answer with a request without tools).
        steps: one ``AgentStep`` per request.
        messages: the whole message chain (dicts), ending with the answer.
        prompt_tokens, completion_tokens: summed over all requests (tokens).
        seconds: wall time of the run.
    """

    question: str
    answer: str | None
    stopped_reason: str
    steps: list[AgentStep]
    messages: list[dict]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    @property
    def requests(self) -> int:
        """How many model requests the run made (the forced final one included)."""
        return len(self.steps)

    @property
    def tool_calls(self) -> int:
        """How many tool calls the model made (repeats included)."""
        return sum(len(s.calls) for s in self.steps)

    def table(self, max_chars: int | None = 120) -> Table:
        """The chain of steps and calls as a ``tables.Table``."""
        return Table(chain_frame(self.steps, max_chars), f"{self.question}（stopped_reason={self.stopped_reason}）")

    def show_messages(self, max_chars: int | None = 160) -> Table:
        """The message chain as a table (``tables.show_messages``)."""
        return show_messages(self.messages, max_chars=max_chars, title=self.question)

    def summary(self) -> dict:
        """One row for a comparison table: answer, stopped_reason, requests, tool_calls, tokens, seconds."""
        return {
            "answer": self.answer,
            "stopped_reason": self.stopped_reason,
            "requests": self.requests,
            "tool_calls": self.tool_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "seconds": round(self.seconds, 1),
        }


def call_key(call: ToolCall) -> tuple[str, str] | None:
    """What makes two calls "identical": the tool name and the arguments as canonical JSON.

    ``{"city": "北京"}`` and ``{ "city":"北京" }`` are the same call.
    Returns None for a call whose arguments could not be read (never reused).
    """
    if call.arguments is None:
        return None
    return call.name, json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)


# ---------------------------------------------------------------------------
# The loop
# ---------------------------------------------------------------------------


class Agent:
    """The native tool-calling loop, one request per ``step()``.

    Example::

        agent = Agent(client, MODEL, registry, max_steps=5)
        agent.start("帮我查北京和上海的天气")
        while not agent.done:
            agent.step()          # prints "[步骤 1/5] 调用工具 get_weather 参数 {...} 结果 ..."
        result = agent.result()   # or simply: run_agent(client, MODEL, question, registry)

    Args:
        client: an ``openai.OpenAI`` client.
        model: model id.
        registry: the tools that run the calls (default ``tools.default_registry()``).
        tools: the schemas offered (default ``registry.schemas()``).
        system: the system prompt (default ``DEFAULT_SYSTEM``; "" or None = none).
        max_steps: requests with tools before the forced final answer (>= 1).
        max_repeats: "repeating" steps in a row (only repeats, nothing new run)
            before the forced final answer (>= 1).
        parallel_tool_calls: sent with the tools (llama-server's default is False).
        tool_choice: sent with the tools if not None (e.g. "auto").
        max_tokens, temperature: for every request (max_tokens in tokens).
        provider: optional ``providers.Provider`` (for ``request_kwargs``).
        trace: called with one line of text per step (default ``print``; None = silent).

    Attributes:
        messages: the message chain so far (dicts).
        steps: the ``AgentStep`` records so far.
        answer, stopped_reason, done: the state of the run.
    Raises:
        ValueError: max_steps or max_repeats below 1.
    """

    def __init__(
        self,
        client: Any,
        model: str,
        registry: ToolRegistry | None = None,
        *,
        tools: list[dict] | None = None,
        system: str | None = DEFAULT_SYSTEM,
        max_steps: int = DEFAULT_MAX_STEPS,
        max_repeats: int = DEFAULT_MAX_REPEATS,
        parallel_tool_calls: bool | None = True,
        tool_choice: Any = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float | None = 0,
        provider: Any = None,
        trace: Callable[[str], Any] | None = print,
    ):
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        if max_repeats < 1:
            raise ValueError(f"max_repeats must be at least 1, got {max_repeats}")
        self.client, self.model, self.provider = client, model, provider
        self.registry = registry if registry is not None else default_registry()
        self.tools = tools if tools is not None else self.registry.schemas()
        self.system = system
        self.max_steps, self.max_repeats = max_steps, max_repeats
        self.parallel_tool_calls, self.tool_choice = parallel_tool_calls, tool_choice
        self.max_tokens, self.temperature = max_tokens, temperature
        self.trace = trace
        self.question: str | None = None
        self.messages: list[dict] = []
        self.steps: list[AgentStep] = []
        self.answer: str | None = None
        self.stopped_reason: str | None = None
        self.forcing: str | None = None  # "max_steps" / "repeated_calls" once the final request is due
        self._seen: dict[tuple[str, str], tuple[int, str]] = {}  # call key -> (step, first result)
        self._repeat_streak = 0
        self._started = 0.0
        self._seconds = 0.0

    # -- state ---------------------------------------------------------------

    @property
    def done(self) -> bool:
        """True once the run has an end (answer, or the forced final request was made)."""
        return self.stopped_reason is not None

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools offered."""
        return [(t.get("function") or {}).get("name", "") for t in self.tools]

    def start(self, question: str | list[dict]) -> "Agent":
        """Begin a run (forgets any previous one); returns self.

        Args:
            question: the user's task; or a whole message list to continue
                (its last message should be the user's; ``system`` is not added then).
        Raises:
            ValueError: an empty question.
        """
        if isinstance(question, str):
            if not question.strip():
                raise ValueError("question must be a non-empty string")
            self.question = question.strip()
            self.messages = ([{"role": "system", "content": self.system}] if self.system else []) + [
                {"role": "user", "content": self.question}
            ]
        else:
            self.messages = [to_dict(m) for m in question]
            users = [m for m in self.messages if m.get("role") == "user"]
            if not users:
                raise ValueError("the message list needs a user message")
            self.question = str(users[-1].get("content") or "")
        self.steps, self.answer, self.stopped_reason, self.forcing = [], None, None, None
        self._seen, self._repeat_streak = {}, 0
        self._started, self._seconds = time.perf_counter(), 0.0
        return self

    def next_request(self) -> dict:
        """The ``create(**kwargs)`` arguments of the next step (nothing is sent).

        With tools normally; after a stop (``forcing`` set), without any
        tools-related key.
        Raises:
            RuntimeError: not started, or already done.
        """
        self._require_running()
        common = dict(provider=self.provider, max_tokens=self.max_tokens, temperature=self.temperature)
        if self.forcing:
            return request_kwargs(self.model, self.messages, **common)
        return request_kwargs(self.model, self.messages, tools=self.tools, tool_choice=self.tool_choice,
                              parallel_tool_calls=self.parallel_tool_calls, **common)

    # -- one step ------------------------------------------------------------

    def step(self) -> AgentStep:
        """Make one request and act on the reply.

        Returns:
            The ``AgentStep`` recorded (also appended to ``steps``).
        Raises:
            RuntimeError: not started, or already done.
            openai.APIError and friends: the request failed (nothing recorded; ``step()`` can be retried).
        """
        self._require_running()
        if not self.forcing and len(self.steps) >= self.max_steps:  # max_steps was lowered mid-run
            self._force("max_steps")
        began = time.perf_counter()
        kwargs = self.next_request()
        reply = read_reply(self.client.chat.completions.create(**kwargs))
        record = AgentStep(
            step=len(self.steps) + 1, kind="answer", with_tools="tools" in kwargs,
            finish_reason=reply.finish_reason,
            prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
        )
        if self.forcing:
            self._final(reply.message, record)
        else:
            self._act(reply.message, record)
        record.seconds = time.perf_counter() - began
        self.steps.append(record)
        self._seconds = time.perf_counter() - self._started
        if self.trace is not None:
            for line in self.describe(record):
                self.trace(line)
        if not self.done and not self.forcing and len(self.steps) >= self.max_steps:
            self._force("max_steps")
        return record

    def _act(self, message: Any, record: AgentStep) -> None:
        turn = read_assistant(message, self.tool_names)
        record.text = turn.text
        if turn.calls:
            record.kind = "tool_calls"
            self.messages.append(turn.message)
            record.calls = self._run_calls(turn.calls, record.step)
            self.messages.extend({"role": "tool", "tool_call_id": c.id, "content": c.result} for c in record.calls)
            # A step "repeats" when it re-asks an earlier call and runs nothing new that worked.
            fresh = [c for c in record.calls if not c.repeated and c.error is None]
            repeating = any(c.repeated for c in record.calls) and not fresh
            self._repeat_streak = self._repeat_streak + 1 if repeating else 0
            if self._repeat_streak >= self.max_repeats:
                self._force("repeated_calls")
        elif turn.problem or not turn.text:
            record.kind = "problem" if turn.problem else "empty"
            record.problem = turn.problem or EMPTY_REPLY_PROMPT
            if has_text(turn.message.get("content")):
                self.messages.append(turn.message)
            self.messages.append({"role": "user", "content": record.problem})
        else:
            record.kind = "answer"
            self.messages.append(turn.message)
            self.answer, self.stopped_reason = turn.text, "answer"

    def _run_calls(self, calls: list[ToolCall], step: int) -> list[CallRecord]:
        """Run new calls (via ``tool_calls.execute``), answer repeats from the first result."""
        records = []
        for call in calls:
            key = call_key(call)
            if key is not None and key in self._seen:
                first_step, first_result = self._seen[key]
                result = first_result + "\n" + REPEAT_NOTE.format(step=first_step)
                records.append(CallRecord(call.id, call.name, call.arguments, call.arguments_text, result,
                                          repeated=True, first_step=first_step, recovered=call.recovered))
                continue
            result = execute([call], self.registry)[0]["content"]
            if key is not None:
                self._seen[key] = (step, result)
            records.append(CallRecord(call.id, call.name, call.arguments, call.arguments_text, result,
                                      error=call.error, recovered=call.recovered))
        return records

    def _force(self, reason: str) -> None:
        """Ask for the final answer: a user message now, and no tools in the next request."""
        self.forcing = reason
        why = STOP_REASONS_TEXT[reason].format(max_steps=self.max_steps)
        self.messages.append({"role": "user", "content": FINAL_ANSWER_PROMPT.format(reason=why)})

    def _final(self, message: Any, record: AgentStep) -> None:
        """The reply to the request without tools: its text is the answer (tool calls are ignored)."""
        record.kind = "final"
        text = to_dict(message).get("content")
        record.text = text.strip() if has_text(text) and isinstance(text, str) else None
        if record.text:
            self.messages.append({"role": "assistant", "content": record.text})
        self.answer, self.stopped_reason = record.text, self.forcing

    # -- run to the end ------------------------------------------------------

    def run(self, question: str | list[dict] | None = None) -> AgentResult:
        """``start(question)`` (if given), then ``step()`` until done; returns ``result()``."""
        if question is not None:
            self.start(question)
        self._require_running(allow_done=True)
        while not self.done:
            self.step()
        return self.result()

    def result(self) -> AgentResult:
        """The run so far (``stopped_reason`` is ``"running"`` while not done)."""
        self._require_running(allow_done=True)
        return AgentResult(
            question=self.question or "",
            answer=self.answer,
            stopped_reason=self.stopped_reason or "running",
            steps=list(self.steps),
            messages=[to_dict(m) for m in self.messages],
            prompt_tokens=sum(s.prompt_tokens or 0 for s in self.steps),
            completion_tokens=sum(s.completion_tokens or 0 for s in self.steps),
            seconds=self._seconds,
        )

    # -- trace ---------------------------------------------------------------

    def describe(self, s: AgentStep) -> list[str]:
        """The trace lines of one step, e.g. ``[步骤 1/5] 调用工具 get_weather 参数 {"city": "北京"} 结果 ...``."""
        head = f"[步骤 {s.step}/{self.max_steps}]"
        if s.kind == "tool_calls":
            lines = []
            for c in s.calls:
                if c.repeated:
                    tail = f"重复调用：没有重新执行，返回第 {c.first_step} 步的结果"
                else:
                    tail = "结果 " + shorten(c.result.replace("\n", " "), 100)
                lines.append(f"{head} 调用工具 {c.name} 参数 {c.arguments_text} {tail}")
            return lines
        if s.kind == "answer":
            return [f"{head} 回答：{shorten(s.text or '', 200)}"]
        if s.kind in ("problem", "empty"):
            return [f"{head} 回复无法使用（{shorten(s.problem or '', 60)}）→ 发送纠正消息"]
        why = {"max_steps": f"达到 max_steps={self.max_steps}", "repeated_calls": "连续重复调用"}.get(
            self.stopped_reason or "", "")
        return [f"[停止：{why}] 不带 tools 再请求一次 → 回答：{shorten(s.text or '(没有回答)', 200)}"]

    def _require_running(self, allow_done: bool = False) -> None:
        if self.question is None:
            raise RuntimeError("call start(question) first")
        if self.done and not allow_done:
            raise RuntimeError(f"the run has ended (stopped_reason={self.stopped_reason!r}); call start() again")


def run_agent(client: Any, model: str, question: str | list[dict], registry: ToolRegistry | None = None,
              **options: Any) -> AgentResult:
    """Run the native loop on ``question`` to the end; ``options`` as for ``Agent``."""
    return Agent(client, model, registry, **options).run(question)
