"""One run shape for every loop: a step-able loop, its steps and its result.

Taught in notebooks 05 and 06; compared in 07.

The prompt-based ReAct loops (``react.LineReAct``, ``react.JsonReAct``,
notebook 05) and the native tool-calling loop (``agent.Agent``, notebook 06)
differ in how they ask the model and read its reply.  Everything around that
is the same and lives here, so it is read once:

* ``StepLoop``   ``start(question)`` -> ``step()`` ... until ``done`` ->
  ``result()``; ``run(question)`` does all of it.  One ``step()`` = one model
  request plus the tools it asked for.  ``max_steps`` is the limit of every
  loop; ``limit_reached`` is the one place that checks it.
* ``Step``       what one ``step()`` did (``kind`` is a ``StepKind``).
* ``ToolCallRecord``  one native tool call and its ``observation``.
* ``RunResult``  what a run gives back: answer, ``stopped_reason`` (a
  ``StopReason``), steps, messages, tokens, seconds; ``summary()`` is one row
  of a comparison table.

The vocabulary follows the field's terms: a *step* is one model request; a
*tool call* is what the model asked to run; the *observation* is the text
sent back after a tool ran (or after an unusable reply); a *parsed reply*
(``react_parser.ParsedReply``) is what the ReAct parser read from one reply;
``error`` always says what went wrong.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from .messages import to_dict
from .replies import CUT_REPLIES
from .tables import Table, show_messages
from .texts import t
from .tools.registry import default_registry

DEFAULT_MAX_STEPS = 5

# What the ReAct parser can make of one reply (react_parser.ParsedReply.kind).
ParsedKind = Literal["action", "answer", "invalid"]

# What one step was (Step.kind).
StepKind = Literal["tool_calls", "action", "answer", "invalid", "empty", "final"]
STEP_KINDS: dict[str, str] = {
    "tool_calls": "native loop: the reply had tool_calls; they ran (or were answered from an earlier identical call)",
    "action": "ReAct: the reply had an Action; the tool ran and its Observation goes back",
    "answer": "the model answered by itself: the run is done",
    "invalid": "the reply could not be used (no Action/Answer, or a tool call written as unreadable text); "
    "a corrective observation goes back and the step counts",
    "empty": "native loop: no text and no tool calls; a reminder goes back",
    "final": "the one request after max_steps (or repeated calls): whatever it answers is the answer",
}

# Why a run ended (RunResult.stopped_reason; "running" while it has not).
StopReason = Literal["answer", "max_steps", "repeated_calls", "length", "content_filter"]
RUNNING = "running"
# The same, in words for the class (the debugger shows them): the texts.py key of each.
STOP_REASONS: dict[str, str] = {
    "answer": "loops.stop_answer",
    "max_steps": "loops.stop_max_steps",
    "repeated_calls": "loops.stop_repeated_calls",
    "length": "loops.stop_length",
    "content_filter": "loops.stop_content_filter",
}


def stop_reason_text(reason: str | None) -> str:
    """Why a run ended, in words for the class (``STOP_REASONS``); a generic sentence for any other reason."""
    return t(STOP_REASONS.get(reason or "", "loops.stop_other"))


@dataclass
class ToolCallRecord:
    """One tool call of a native step, and what was sent back for it.

    Attributes:
        id: the tool_call id (answered by exactly one tool message).
        name: the tool name.
        arguments: the parsed arguments dict, or None if unreadable.
        arguments_text: the JSON string sent back in the assistant message.
        observation: the tool message content (str); for a repeat, the first
            result plus a note.
        repeated: True if the call was answered from an earlier identical call, not run.
        first_step: for a repeat, the step whose result was reused.
        error: why the arguments could not be read, or None.
        recovered: True if the call was written as JSON text in content and recovered.
    """

    id: str
    name: str
    arguments: dict | None
    arguments_text: str
    observation: str
    repeated: bool = False
    first_step: int | None = None
    error: str | None = None
    recovered: bool = False

    @classmethod
    def of(cls, call: Any, observation: str, **fields: Any) -> "ToolCallRecord":
        """The record of ``call`` (a ``tool_calls.ToolCall``) answered with ``observation``."""
        return cls(call.id, call.name, call.arguments, call.arguments_text, observation,
                   error=call.error, recovered=call.recovered, **fields)


@dataclass
class Step:
    """One model request of any loop.

    Attributes:
        step: 1, 2, ... (the final request after a stop gets the next number).
        kind: see ``STEP_KINDS``.
        reply: the model's reply text (``message.content``; ``""`` if none),
            without its thinking.
        reasoning: the model's thinking (``replies.Reply.reasoning``: a leading
            ``<think>...</think>``, ``reasoning_content``, thinking parts);
            ``""`` if none.  Shown, never parsed, never sent back.
        thought: ReAct: the model's Thought, or None.
        action: ReAct: the tool name (kind ``"action"``), else None.
        action_input: ReAct: the tool input as the model wrote it (str or dict), else None.
        tool_calls: native: the ``ToolCallRecord`` list (kind ``"tool_calls"``).
        dropped: native: the calls of a reply the number check dropped before
            this step's reply (``number_check``; nothing of it entered
            ``messages``, nothing ran; each ``observation`` says why); else [].
        requests: model requests this step made: 1, or 2 when a reply was dropped and re-sent.
        observation: the text sent back after this step: the tool result
            (ReAct ``"action"``) or the corrective message (``"invalid"``,
            ``"empty"``); None otherwise.  Native tool results are in
            ``tool_calls[i].observation``.
        answer: the answer text (kinds ``"answer"``/``"final"``), else None.
        error: what went wrong (kind ``"invalid"``; a ``"final"`` without an answer), else None.
        with_tools: whether the request offered ``tools`` (native loop only).
        finish_reason: from the response (``"length"`` / ``"content_filter"``:
            the reply was cut, see ``cut``).
        prompt_tokens, completion_tokens: from ``response.usage`` (None if the server sent none);
            summed over both requests when a reply was dropped and re-sent.
        seconds: wall time of the request plus the tool runs.
    """

    step: int
    kind: StepKind
    reply: str = ""
    reasoning: str = ""
    thought: str | None = None
    action: str | None = None
    action_input: Any = None
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    dropped: list[ToolCallRecord] = field(default_factory=list)
    requests: int = 1
    observation: str | None = None
    answer: str | None = None
    error: str | None = None
    with_tools: bool = False
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0

    @property
    def cut(self) -> str | None:
        """Why this step's reply is incomplete (``replies.CUT_REPLIES`` text), or None."""
        return CUT_REPLIES.get(self.finish_reason or "")


def cut_note(step: Step) -> str:
    """``" ⚠️ <why>"`` for a trace line when the step's reply was cut, else ``""``."""
    return f" ⚠️ {step.cut}" if step.cut else ""


@dataclass
class RunResult:
    """The outcome of one run of any loop.

    Attributes:
        question: the task (the last user message's text when a message list was given).
        protocol: ``"A"`` (ReAct line protocol), ``"B"`` (ReAct JSON blob) or
            ``"native"`` (function calling).
        answer: the final answer text, or None if the model gave none.
        stopped_reason: a ``StopReason``, or ``"running"`` while the run has not ended.
        steps: one ``Step`` per request.
        messages: the message chain (dicts) - for protocol B, the last request plus the reply.
        prompt_tokens, completion_tokens: summed over all requests (tokens).
        seconds: wall time of the run.
    """

    question: str
    protocol: str
    answer: str | None
    stopped_reason: StopReason | Literal["running"]
    steps: list[Step]
    messages: list[dict]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    @property
    def requests(self) -> int:
        """How many model requests the run made (the final forced one and re-sent ones included)."""
        return sum(s.requests for s in self.steps)

    @property
    def tool_calls(self) -> int:
        """How many tool calls the model made: native calls (repeats included) plus ReAct Actions."""
        return sum(len(s.tool_calls) + (s.kind == "action") for s in self.steps)

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


class StepLoop:
    """The shape every loop shares: ``start`` / ``step`` / ``done`` / ``result`` / ``run``.

    A subclass says only what differs: ``_begin`` (set up a run),
    ``next_request`` (the kwargs of the next request), ``_request`` (send it
    and act on the reply, returning the ``Step``), ``describe`` (trace lines),
    ``messages`` (the message chain so far, a list of dicts - an attribute
    or a property) and ``result_type``.

    Args:
        client: an ``openai.OpenAI`` client (or anything with ``chat.completions.create``).
        model: model id.
        registry: the ``tools.registry.ToolRegistry`` that runs the tools
            (default ``tools.registry.default_registry()``).
        max_steps: steps before the loop stops asking for tools (then one
            last request asks for the answer); at least 1.  A step is one
            request, or two when the native loop's number check re-sends it.
        system: the system prompt (None = the loop's default).
        max_tokens, temperature: for every request (max_tokens in tokens).
        provider: optional ``providers.Provider`` (for ``messages.request_kwargs``).
        trace: called with one line of text per step (default ``print``; None = silent).

    Attributes:
        question, steps, answer, stopped_reason: the state of the run.
    Raises:
        ValueError: max_steps below 1.
    """

    protocol = "?"
    result_type: type[RunResult] = RunResult

    def __init__(self, client: Any, model: str, registry: Any = None, *, max_steps: int = DEFAULT_MAX_STEPS,
                 system: str | None = None, max_tokens: int | None = None, temperature: float | None = 0,
                 provider: Any = None, trace: Callable[[str], Any] | None = print):
        if max_steps < 1:
            raise ValueError(t("loops.max_steps_low", max_steps=max_steps))
        self.client, self.model, self.provider = client, model, provider
        self.registry = registry if registry is not None else default_registry()
        self.max_steps, self.system = max_steps, system
        self.max_tokens, self.temperature = max_tokens, temperature
        self.trace = trace
        self.question: str | None = None
        self.steps: list[Step] = []
        self.answer: str | None = None
        self.stopped_reason: StopReason | None = None
        self._started = 0.0
        self._seconds = 0.0

    # -- state ---------------------------------------------------------------

    @property
    def done(self) -> bool:
        """True once the run has ended (an answer, or the limit's last request was made)."""
        return self.stopped_reason is not None

    @property
    def limit_reached(self) -> bool:
        """True when ``max_steps`` steps were taken without an end: the next request is the last one."""
        return not self.done and len(self.steps) >= self.max_steps

    # -- the step-able interface ---------------------------------------------

    def start(self, question: Any) -> "StepLoop":
        """Begin a new run for ``question`` (forgets any previous run); returns self.

        Raises:
            ValueError: an empty question (see the subclass for what else it accepts).
        """
        self._begin(question)
        self.steps, self.answer, self.stopped_reason = [], None, None
        self._started, self._seconds = time.perf_counter(), 0.0
        return self

    def step(self) -> Step:
        """Make one request and act on the reply.

        Returns:
            The ``Step`` recorded (also appended to ``steps``).
        Raises:
            RuntimeError: ``start`` was not called, or the run is already done.
            openai.APIError and friends: the request failed (nothing is recorded; ``step()`` can be retried).
            replies.ReplyError: the server answered without a reply (e.g. no choices); nothing is
                recorded either, ``step()`` can be retried.
        """
        self._require_running()
        self._at_limit()
        began = time.perf_counter()
        record = self._request()
        record.seconds = time.perf_counter() - began
        self.steps.append(record)
        self._seconds = time.perf_counter() - self._started
        if self.trace is not None:
            for line in self.describe(record):
                self.trace(line)
        self._at_limit()
        return record

    def run(self, question: Any = None) -> RunResult:
        """``start(question)`` (if given), then ``step()`` until done; returns ``result()``."""
        if question is not None:
            self.start(question)
        self._require_running(allow_done=True)
        while not self.done:
            self.step()
        return self.result()

    def result(self) -> RunResult:
        """The run so far (``stopped_reason`` is ``"running"`` while not done).

        Raises:
            RuntimeError: ``start`` was not called.
        """
        self._require_running(allow_done=True)
        return self.result_type(
            question=self.question or "",
            protocol=self.protocol,
            answer=self.answer,
            stopped_reason=self.stopped_reason or RUNNING,
            steps=list(self.steps),
            messages=[to_dict(m) for m in self.messages],
            prompt_tokens=sum(s.prompt_tokens or 0 for s in self.steps),
            completion_tokens=sum(s.completion_tokens or 0 for s in self.steps),
            seconds=self._seconds,
        )

    def _answered(self, record: Step, text: str | None) -> None:
        """End the run with ``text`` as the answer of ``record``: ``stopped_reason`` is ``"answer"``,
        or the finish_reason (``"length"``/``"content_filter"``) when the reply was cut - a cut
        reply is never silently a final answer."""
        record.answer = text
        self.answer = text
        self.stopped_reason = record.finish_reason if record.cut else "answer"

    def _new_step(self, answered: Any, kind: StepKind, **fields: Any) -> Step:
        """A ``Step`` numbered after the last one, with the reply text, finish_reason and usage
        of ``answered`` (a ``replies.Reply``); ``fields`` are further ``Step`` fields."""
        return Step(step=len(self.steps) + 1, kind=kind, reply=answered.text,
                    reasoning=getattr(answered, "reasoning", "") or "", finish_reason=answered.finish_reason,
                    prompt_tokens=answered.prompt_tokens, completion_tokens=answered.completion_tokens, **fields)

    def _require_running(self, allow_done: bool = False) -> None:
        if self.question is None:
            raise RuntimeError(t("loops.not_started"))
        if self.done and not allow_done:
            raise RuntimeError(t("loops.run_ended", stopped_reason=repr(self.stopped_reason)))

    # -- what each loop says for itself --------------------------------------

    def _begin(self, question: Any) -> None:  # pragma: no cover - overridden
        """Set ``self.question`` and the loop's own state for a new run; raise ValueError for a bad question."""
        raise NotImplementedError

    def next_request(self) -> dict:  # pragma: no cover - overridden
        """The ``client.chat.completions.create(**kwargs)`` arguments of the next step (nothing is sent)."""
        raise NotImplementedError

    def _request(self) -> Step:  # pragma: no cover - overridden
        """Send the next request, act on the reply (run tools, set answer/stopped_reason); return the Step."""
        raise NotImplementedError

    def _at_limit(self) -> None:
        """Called before and after every step; a loop that must act at ``limit_reached`` does it here."""

    def describe(self, step: Step) -> list[str]:  # pragma: no cover - overridden
        """The trace lines of one step."""
        raise NotImplementedError


def question_text(question: Any) -> str:
    """``question`` stripped; raises ValueError unless it is a non-empty string."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError(t("loops.empty_question"))
    return question.strip()
