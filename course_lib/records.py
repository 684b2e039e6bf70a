"""What a loop run leaves behind: one record per step, the tool results, the run's result.

Taught in notebooks 05 and 06 (the trace, the step tables, the debugger);
compared in 07.

Every loop of the course - the prompt-based ReAct loops (``react.py``,
notebook 05) and the native tool-calling loop (``agent.py``, notebook 06) -
records each model request as one ``Step``.  What a step was is its class,
and its ``kind`` (a ``StepKind``) says the same as a word:

==================  ==========================================================
``ToolCallsStep``   native: the reply had ``tool_calls``; they ran (each a ``ToolResult``)
``ActionStep``      ReAct: the reply had an ``Action``; the tool ran, its Observation goes back
``AnswerStep``      the model answered by itself: the run is done
``InvalidStep``     the reply could not be used (no Action/Answer, a tool call written as
                    unreadable text); a corrective message goes back and the step counts
``EmptyStep``       native: no text and no tool calls; a reminder goes back
``FinalStep``       the one request after ``max_steps`` (or repeated calls): its text is the answer
``WaitingStep``     the reply asked for a tool that needs a person's yes (notebook 08; any loop);
                    nothing ran yet, the loop waits for ``decide``
==================  ==========================================================

Each record renders itself one way: ``rows()`` gives its table rows (the
step tables of ``tables.py``) and ``details()`` its ``(label, text)`` pairs
(the debugger).  The loops' trace lines are written in the loop files.

Each kind checks, when it is made, the fields it must have (a ``ToolCallsStep``
its calls, an ``ActionStep`` its Action, a ``FinalStep`` why the loop stopped ...).

A call the model asked for is a ``ToolCall``; what came back for it is a
``ToolResult`` that holds the call: its ``observation`` is the text the model
reads, ``ok`` whether the tool really produced it (never guessed from the
text).  ``tool_calls.run_call`` makes one by running the call;
``ToolResult.not_run`` makes the answer to a call that did not run (waiting,
rejected, interrupted, dropped, repeated).  ``RunResult`` is what a whole run
of any loop gives back, and shows itself as a table (``table()``, its caption
``title()`` by protocol); ``StopReason`` says why it ended, ``STOP_REASONS`` in
words for the class.  A run that stopped before a call waiting for a person's decision
(notebook 08) is not over: its ``stopped_reason`` is ``"waiting"`` (``WAITING``) and
``RunResult.waiting`` lists the calls.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from .replies import cut_text
from .tables import STEP_COLUMNS, Table, show_messages, steps_frame
from .texts import t

# The protocol of a loop (RunResult.protocol): 05's line protocol "A", its JSON protocol "B", 06's "native".
LoopProtocol = Literal["A", "B", "native"]
# What one step was (Step.kind; one Step class each).
StepKind = Literal["tool_calls", "action", "answer", "invalid", "empty", "final", "waiting"]
# Why a run ended (RunResult.stopped_reason; "running" while it has not, "waiting" while it waits for a person).
StopReason = Literal["answer", "max_steps", "repeated_calls", "length", "content_filter", "incomplete", "refusal"]
RUNNING = "running"
# Not an end: run() stopped before a call that needs a person's yes (notebook 08); RunResult.waiting lists
# the calls, and run() again after decide() finishes the turn.
WAITING = "waiting"
# The same, in words for the class (trace, debugger, tables): the texts.py key of each.
STOP_REASONS: dict[str, str] = {
    "answer": "loops.stop_answer",
    "max_steps": "loops.stop_max_steps",
    "repeated_calls": "loops.stop_repeated_calls",
    "length": "loops.stop_length",
    "content_filter": "loops.stop_content_filter",
    "incomplete": "loops.stop_incomplete",
    "refusal": "loops.stop_refusal",
    WAITING: "loops.stop_waiting",
}

# A person's decision on a call (ToolResult.approval, notebook 08), in words: the texts.py key of each.
APPROVALS: dict[str, str] = {
    "approve": "debugger.approval_approve",
    "reject": "debugger.approval_reject",
    "edit": "debugger.approval_edit",
}


def stop_reason_text(reason: str | None) -> str:
    """Why a run ended, in words for the class (``STOP_REASONS``); a generic sentence for any other reason."""
    return t(STOP_REASONS.get(reason or "", "loops.stop_other"))


class Detail(tuple):
    """One ``(label, text)`` row of a step's ``details()``; ``field`` is its fixed id
    (``"thought"``, ``"result"``, ``"correction"`` ...) - the debugger colours rows by it,
    never by the translated label."""

    field: str

    def __new__(cls, field: str, label: str, text: Any) -> "Detail":
        row = super().__new__(cls, (label, text))
        row.field = field
        return row


def reply_fields(reply: Any) -> dict[str, Any]:
    """The ``Step`` fields every step takes from its reply (a ``replies.Reply``):
    text, reasoning, finish_reason, refusal and the two token counts."""
    return {"reply": reply.text, "reasoning": reply.reasoning or "", "finish_reason": reply.finish_reason,
            "refusal": getattr(reply, "refusal", "") or "",
            "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens}


def _checked(dropped: list[ToolResult]) -> str:
    """The tool the number check is about (the calculate call among the dropped ones)."""
    return next((c.name for c in dropped if c.missing_numbers), dropped[0].name)


def _text(value: Any) -> str:
    """A field shown as text: str as it is, anything else as JSON, None as ""."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


@dataclass
class ToolCall:
    """One tool call the model asked for, ready to run (``tool_calls.read_assistant`` makes them).

    Attributes:
        id: the call id (a fresh ``call_...`` id if the server sent none, an
            empty one, or a duplicate); the tool reply must use it.  ReAct: ``react-<step>``.
        name: the tool name (the registry's spelling when it was matched).
        arguments: the parsed arguments object; None if they could not be read.
        arguments_text: the JSON string stored in the assistant message and
            sent back (``"{}"`` when there were no arguments or they were unreadable).
        error: why the arguments could not be read (malformed JSON, not an
            object ...), in Chinese for the model; None when they were read.
        recovered: True when the call was recovered from text ``content``
            rather than from ``tool_calls``.
    """

    id: str
    name: str
    arguments: dict | None
    arguments_text: str
    error: str | None = None
    recovered: bool = False


@dataclass
class ToolResult:
    """One tool call (``call``) and what the model got back for it.

    Made in two ways: ``tool_calls.run_call(call, registry)`` runs the call; ``ToolResult.not_run``
    answers a call that did not run (waiting for a person, rejected, interrupted, dropped by the
    number check, or a repeat answered with the first result), with its flags set there.

    Attributes:
        call: the ``ToolCall`` this answers; ``id``, ``name``, ``arguments``, ``arguments_text``
            and ``recovered`` are read from it.
        observation: the text the model reads back: the tool's result, or why there is none.
        ok: True when the tool ran and returned ``observation``; False when it did not run
            (unreadable arguments, unknown tool, the tool raised, the number check refused it).
        repeated: True if an earlier identical call's result was reused instead of running again.
        first_step: for a repeat, the step whose result was reused.
        missing_numbers: for a calculate call the number check refused, the numbers of its
            expression found in no user message and no tool result; ``[]`` otherwise.
        interrupted: True if the student stopped the run (Ctrl-C) while this call, or one
            before it in the same step, was to run: it has no result (``ok`` False).
        approval: for a tool that needs a person's yes (notebook 08, ``approval.py``):
            ``"approve"``, ``"reject"`` (it did not run, ``ok`` False) or ``"edit"`` (it ran with
            the person's arguments); ``""`` for every other call.
    """

    call: ToolCall
    observation: str
    ok: bool = True
    repeated: bool = False
    first_step: int | None = None
    missing_numbers: list[str] = field(default_factory=list)
    interrupted: bool = False
    approval: str = ""

    @classmethod
    def not_run(cls, call: ToolCall, observation: str = "", *, ok: bool = False, **flags: Any) -> "ToolResult":
        """The answer to a call that did not run: ``observation`` says why (``""`` while it waits
        for a person); ``ok`` False unless it repeats a result that was one (``ok=first.ok``);
        ``flags``: ``repeated``, ``first_step``, ``missing_numbers``, ``interrupted``, ``approval``."""
        return cls(call, observation, ok=ok, **flags)

    @property
    def id(self) -> str:
        """The call's id (native loop: answered by exactly one tool message)."""
        return self.call.id

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.call.name

    @property
    def arguments(self) -> dict | None:
        """The call's parsed arguments, or None if unreadable."""
        return self.call.arguments

    @property
    def arguments_text(self) -> str:
        """The call's arguments as JSON text (what the model wrote, made valid)."""
        return self.call.arguments_text

    @property
    def recovered(self) -> bool:
        """True if the call was written as JSON text in content and recovered."""
        return self.call.recovered

    def message(self) -> dict:
        """The ``role="tool"`` message that answers this call."""
        return {"role": "tool", "tool_call_id": self.id, "content": self.observation}

    @property
    def call_text(self) -> str:
        """``name(arguments)`` as the trace and the tables show it."""
        return f"{self.name}({self.arguments_text})"


@dataclass
class Step:
    """What every step of every loop has: one model request and its reply.

    Attributes:
        number: the step's number, 1, 2, ... (the final request after a stop gets the next one;
            the tables' ``step`` column).
        reply: the reply text (``message.content``; ``""`` if none), without its thinking.
        reasoning: the model's thinking (a leading ``<think>...</think>``,
            ``reasoning_content``, thinking parts; ``replies.Reply.reasoning``),
            ``""`` if none.  Shown, never parsed, never sent back.
        finish_reason: from the response; ``"length"``/``"content_filter"``: the reply was cut (``cut``);
            ``"incomplete"``: a stream that ended with no finish_reason (``replies.INCOMPLETE``).
        refusal: the model's refusal (``message.refusal``), ``""`` if none (``cut`` says so).
        prompt_tokens, completion_tokens: from ``response.usage`` (None if the server sent none),
            summed over both requests when a reply was dropped and sent again.
        requests: model requests this step made: 1, or 2 when the native loop's number check
            dropped a reply and sent the request again.
        dropped: the calls of that dropped reply (``ok`` False, ``observation`` says why); they
            never ran and nothing of the reply entered ``messages``.  ``[]`` otherwise.
        seconds: wall time of the request(s) plus the tool runs.
    """

    kind: ClassVar[StepKind]
    number: int
    reply: str = ""
    reasoning: str = ""
    finish_reason: str | None = None
    refusal: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    requests: int = 1
    dropped: list[ToolResult] = field(default_factory=list)
    seconds: float = 0.0

    def __post_init__(self) -> None:
        """Each kind checks the fields it must have (``_check``): a record that lacks one is a bug
        in the loop that made it, so it fails where it is made, not later in a table."""
        self._require("number", isinstance(self.number, int) and self.number >= 1, "1, 2, ...")
        self._check()

    def _check(self) -> None:
        """This kind's own required fields (``_require`` each); overridden by the kinds that have some."""

    def _require(self, name: str, ok: bool, what: str) -> None:
        """Raise ``ValueError`` (Chinese, naming the kind and the field) unless ``ok``."""
        if not ok:
            raise ValueError(t("loops.step_field", kind=type(self).__name__, field=name, what=what,
                               value=repr(getattr(self, name, None))[:80]))

    @property
    def cut(self) -> str | None:
        """Why this step's reply is incomplete or refused (``replies.cut_text``: never silently an answer), or None."""
        return cut_text(self.finish_reason, self.refusal)

    @property
    def answer(self) -> str | None:
        """The answer this step gave (``AnswerStep``, ``FinalStep``), else None."""
        return None

    @property
    def calls(self) -> int:
        """How many tool calls the model asked for in this step (ReAct: its one Action)."""
        return 0

    # -- how a step shows itself ------------------------------------------------

    def _fields(self) -> dict[str, Any]:
        """This kind's own table fields (``STEP_COLUMNS`` names): by default its Thought and its
        answer (``AnswerStep``, ``FinalStep``); overridden by the kinds with other fields."""
        return {"thought": getattr(self, "thought", None), "answer": self.answer}

    def rows(self) -> list[dict[str, Any]]:
        """The step as table rows (``STEP_COLUMNS``): the calls the number check dropped first
        (kind ``"dropped"``), then one row per tool call of a ``ToolCallsStep``, else one row.
        A step's reasoning and tokens are on its first row only (each request is counted once)."""
        first = {"reasoning": self.reasoning, "prompt_tokens": self.prompt_tokens,
                 "completion_tokens": self.completion_tokens}
        rows = [{"step": self.number, "kind": "dropped", "tool": c.name, "input": c.arguments_text,
                 "observation": c.observation} for c in self.dropped]
        rows += [{"step": self.number, "kind": self.kind, **row} for row in self._own_rows()]
        for k, row in enumerate(rows):
            row.update(first if k == 0 else {})
            row["finish_reason"] = self.finish_reason
        return [{col: row.get(col) for col in STEP_COLUMNS} for row in rows]

    def _own_rows(self) -> list[dict[str, Any]]:
        return [self._fields()]

    def details(self) -> list[Detail]:
        """The step as ``(label, text)`` rows (``Detail``) for the debugger: the thinking, what
        the number check dropped, this kind's own fields, and why the reply is incomplete when it was cut."""
        rows: list[Detail] = []
        if self.reasoning:
            rows.append(Detail("reasoning", t("debugger.label_reasoning"), self.reasoning))
        rows += [Detail("dropped", t("debugger.label_dropped"), f"{c.call_text}  {c.observation}") for c in self.dropped]
        if self.dropped:
            rows.append(Detail("note", t("debugger.label_note"), t("debugger.resent_note", tool=_checked(self.dropped))))
        rows += [Detail(field, label, _text(value)) for field, label, value in self._details() if value not in (None, "")]
        if self.cut:
            rows.append(Detail("cut", t("debugger.label_cut"), self.cut))
        return rows or [Detail("content", "content", self.reply or t("debugger.empty_reply"))]

    def _details(self) -> list[tuple[str, str, Any]]:
        """This kind's own ``(field, label, value)`` rows; overridden by each kind."""
        return []


@dataclass
class ToolCallsStep(Step):
    """Native loop: the reply asked for tools; ``tool_calls`` are the calls and what came back.

    Attributes:
        tool_calls: one ``ToolResult`` per call, in the reply's order.
    """

    kind: ClassVar[StepKind] = "tool_calls"
    tool_calls: list[ToolResult] = field(kw_only=True)

    def _check(self) -> None:
        self._require("tool_calls", bool(self.tool_calls) and all(isinstance(c, ToolResult) for c in self.tool_calls),
                      "ToolResult list, at least one")

    @property
    def calls(self) -> int:
        return len(self.tool_calls)

    def _own_rows(self) -> list[dict[str, Any]]:
        return [{"tool": c.name, "input": c.arguments_text, "observation": c.observation, "repeated": c.repeated}
                for c in self.tool_calls]

    def _details(self) -> list[tuple[str, str, Any]]:
        rows: list[tuple[str, str, Any]] = []
        for c in self.tool_calls:
            rows.append(("tool_call", "tool_call", f"{c.call_text}  [id={c.id}]"))
            if c.approval:
                rows.append(("approval", t("debugger.label_approval"), t(APPROVALS[c.approval])))
            note = t("debugger.repeated_note", first_step=c.first_step) if c.repeated else ""
            rows.append(("result", t("debugger.label_result"), note + c.observation))
        if self.reply.strip() and not any(c.recovered for c in self.tool_calls):
            rows.append(("content", "content", self.reply))  # text written next to the calls
        return rows


@dataclass
class WaitingStep(Step):
    """The reply asked for a tool that needs a person's yes (notebook 08): native tool calls, or a
    ReAct Action.

    Nothing has run yet (the native loop adds nothing to ``messages``): the loop's approval gate
    holds the reply until ``decide`` has a decision for every call in ``waiting``; the next
    ``step()`` then runs the turn (no new request) and its ``ToolCallsStep`` (ReAct: its
    ``ActionStep``) takes this record's place.  The same record when a tool of the turn waits for a
    person (an agent used as a tool, ``approval.ApprovalGate.hold_tool``): ``waiting`` lists the
    calls inside that tool, and the turn's calls before it have run (nothing of the turn is in
    ``messages`` yet either).

    Attributes:
        waiting: the calls that wait for a decision (``ToolResult`` with ``ok`` False and an
            empty ``observation``: they have not run).
        thought: ReAct's Thought before the Action, or None.
    """

    kind: ClassVar[StepKind] = "waiting"
    waiting: list[ToolResult] = field(kw_only=True)
    thought: str | None = None

    def _check(self) -> None:
        self._require("waiting", bool(self.waiting) and all(isinstance(c, ToolResult) for c in self.waiting),
                      "ToolResult list, at least one")

    @property
    def calls(self) -> int:
        return len(self.waiting)

    def _own_rows(self) -> list[dict[str, Any]]:
        return [{"tool": c.name, "input": c.arguments_text, "observation": t("debugger.waiting_for_approval")}
                for c in self.waiting]

    def _details(self) -> list[tuple[str, str, Any]]:
        return [("thought", "Thought", self.thought),
                *[("approval", t("debugger.label_waiting"), c.call_text) for c in self.waiting]]


@dataclass
class ActionStep(Step):
    """ReAct: the reply had an Action; the tool ran and ``observation`` goes back.

    Attributes:
        thought: the model's Thought, or None.
        action: the tool name.  action_input: its input as the model wrote it (str or dict).
        observation: the tool's result (or why it did not run, ``ok`` False).
        ok: whether the tool ran and produced ``observation``.
        approval: as ``ToolResult.approval``: ``"approve"``, ``"reject"`` (it did not run) or
            ``"edit"`` (it ran with the person's arguments, now ``action_input``) for a tool that
            needs a person's yes; ``""`` for every other Action.
    """

    kind: ClassVar[StepKind] = "action"
    thought: str | None = None
    action: str = field(kw_only=True)
    action_input: Any = None
    observation: str = field(kw_only=True)
    ok: bool = True
    approval: str = ""

    def _check(self) -> None:
        self._require("action", isinstance(self.action, str) and bool(self.action), "the tool name")
        self._require("observation", isinstance(self.observation, str), "str")

    @property
    def calls(self) -> int:
        return 1

    def _fields(self) -> dict[str, Any]:
        return {"thought": self.thought, "tool": self.action, "input": _text(self.action_input),
                "observation": self.observation}

    def _details(self) -> list[tuple[str, str, Any]]:
        person = t(APPROVALS[self.approval]) if self.approval else None
        return [("thought", "Thought", self.thought), ("action", "Action", self.action),
                ("input", "Action Input", self.action_input), ("approval", t("debugger.label_approval"), person),
                ("observation", "Observation", self.observation)]


@dataclass
class AnswerStep(Step):
    """The model answered by itself: ``text`` is the answer and the run is done.

    Attributes:
        text: the answer text.  thought: ReAct's Thought before the answer, or None.
    """

    kind: ClassVar[StepKind] = "answer"
    text: str = field(kw_only=True)
    thought: str | None = None

    def _check(self) -> None:
        self._require("text", isinstance(self.text, str), "str")

    @property
    def answer(self) -> str | None:
        return self.text

    def _details(self) -> list[tuple[str, str, Any]]:
        return [("thought", "Thought", self.thought), ("answer", "Answer", self.text)]


@dataclass
class InvalidStep(Step):
    """The reply could not be used; ``observation`` - the corrective message - goes back, and the step counts.

    Attributes:
        error: what was wrong with the reply (no Action/Answer, an unreadable tool call
            written as text, nothing at all).
        observation: the message sent back (a corrective Observation or reminder).
        thought: ReAct's Thought, if the reply had one.
    """

    kind: ClassVar[StepKind] = "invalid"
    error: str = ""
    observation: str = field(kw_only=True)
    thought: str | None = None

    def _check(self) -> None:
        self._require("observation", isinstance(self.observation, str) and bool(self.observation.strip()),
                      "the message sent back")

    def _fields(self) -> dict[str, Any]:
        return {"thought": self.thought, "observation": self.observation}

    def _details(self) -> list[tuple[str, str, Any]]:
        error = None if self.error == self.observation else self.error  # said once when the correction is the error
        return [("thought", "Thought", self.thought), ("error", "Error", error),
                ("correction", t("debugger.label_correction"), self.observation)]


@dataclass
class EmptyStep(InvalidStep):
    """Native loop: the reply had no text and no tool calls; ``observation`` (a reminder) goes back."""

    kind: ClassVar[StepKind] = "empty"


@dataclass
class FinalStep(Step):
    """The one request after the loop stopped asking for tools: whatever it answers is the answer.

    Attributes:
        text: the answer, or None when the reply had none.
        reason: why the loop stopped (``"max_steps"`` or ``"repeated_calls"``).
        thought: ReAct's Thought in that last reply, or None.
    """

    kind: ClassVar[StepKind] = "final"
    text: str | None = None
    reason: str = field(kw_only=True)
    thought: str | None = None

    def _check(self) -> None:
        self._require("reason", self.reason in ("max_steps", "repeated_calls"), '"max_steps" or "repeated_calls"')

    @property
    def answer(self) -> str | None:
        return self.text

    def _details(self) -> list[tuple[str, str, Any]]:
        missing = None if self.text else t("loops.final_without_answer")
        return [("thought", "Thought", self.thought), ("answer", "Answer", self.text), ("error", "Error", missing),
                ("note", t("debugger.label_note"), t("debugger.final_request"))]


@dataclass
class RunResult:
    """The outcome of one run of any loop (``loop.result()``, ``run()``).

    ``stopped_reason`` is ``"answer"`` (the model answered by itself), ``"max_steps"`` or
    ``"repeated_calls"`` (the loop asked once more without tools: ``answer`` comes from that
    last request, or is None), or why the last reply is no answer (``"length"``, ``"refusal"``
    ...).  ``table()`` shows the steps, ``show_messages()`` the chain; ``title()`` is the
    table's caption, chosen by ``protocol``.

    A run that meets a call needing a person's yes (notebook 08) stops there and returns - it
    never raises: ``stopped_reason`` is ``"waiting"``, ``answer`` is None and ``waiting`` lists
    the calls (none of them ran).  ``loop.decide(call, decision)`` for each, then ``loop.run()``
    finishes the turn.  The two frameworks the course compares return the same thing:
    openai-agents' ``Runner.run`` a result whose ``interruptions`` list ``ToolApprovalItem`` objects
    (openai-agents-python docs/human_in_the_loop.md), LangGraph's ``invoke`` a state whose
    ``"__interrupt__"`` lists ``Interrupt`` objects (LangGraph docs, "Interrupts").  The course
    calls it ``waiting``, the name ``loop.waiting`` and ``WaitingStep.waiting`` already have:
    "interrupted" here already means the stop button (``ToolResult.interrupted``).

    Attributes:
        question: the task (the last user message's text when a message list was given).
        protocol: a ``LoopProtocol``: ``"A"``/``"B"`` (the ReAct protocols) or ``"native"``.
        answer: the final answer text, or None if the model gave none.
        stopped_reason: a ``StopReason``; ``"running"`` while the run has not ended; ``"waiting"``
            while calls wait for a person's decision (``waiting``).
        steps: one ``Step`` per step.
        messages: the message chain (dicts) - for protocol B, the last request plus the reply
            (system + one user message holding the whole scratchpad).
        prompt_tokens, completion_tokens: summed over all requests (tokens).
        seconds: wall time of the run.
        waiting: the calls (``ToolCall``, the loop's own objects: pass one to ``loop.decide``)
            that wait for a person's decision; ``[]`` unless ``stopped_reason`` is ``"waiting"``.
    """

    question: str
    protocol: LoopProtocol
    answer: str | None
    stopped_reason: StopReason | Literal["running", "waiting"]
    steps: list[Step]
    messages: list[dict]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    waiting: list[ToolCall] = field(default_factory=list)

    @property
    def requests(self) -> int:
        """How many model requests the run made (the final forced one and re-sent ones included)."""
        return sum(s.requests for s in self.steps)

    @property
    def tool_calls(self) -> int:
        """How many tool calls the model made: native calls (repeats included) plus ReAct Actions."""
        return sum(s.calls for s in self.steps)

    def title(self) -> str:
        """The caption of ``table()``, by protocol: the native loop's says why it stopped, ReAct's
        names its protocol."""
        if self.protocol == "native":
            return t("agent.table_title", question=self.question, stopped_reason=self.stopped_reason)
        return t("react.table_title", protocol=self.protocol, question=self.question)

    def table(self, max_chars: int | None = 120) -> Table:
        """The run's steps as a ``tables.Table`` (``tables.steps_frame``), captioned ``title()``."""
        return Table(steps_frame(self.steps, max_chars), self.title())

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
