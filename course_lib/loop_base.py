"""What every loop keeps while it runs, and the five names a debugger drives it by.

Taught in notebooks 05 and 06; compared in 07.

Each loop writes its own turn where a reader looks for it: ``agent.Agent.step``
(the native loop, notebook 06) and ``react.ReActLoop.step`` (the prompt-based
loops, notebook 05), each with ``run()`` and its ``while`` right below.  This
module holds only what they share, so the debugger (``debugger.py``) and the
bench can drive any of them the same way::

    loop.start(question)       # forget any earlier run
    loop.next_request()        # the kwargs the next step will send (nothing is sent)
    loop.step()                # one model request plus the tools it asked for -> a records.Step
    loop.done                  # True once the run has ended
    loop.result()              # a records.RunResult

``max_steps`` is the limit of every loop; ``limit_reached`` is the one place
that checks it.  The records themselves are in ``records.py``.

Every loop also owns one approval gate (``approval.ApprovalGate``, notebook 08): ``loop.gate``,
with ``loop.waiting``, ``loop.decide``, ``loop.approve`` and ``loop.approval_tools`` the same
names for every loop, so the debugger's buttons and the chat box work with all of them;
``_resume`` finishes a turn that waited, for every loop, and ``_hold_tool`` holds a turn whose
tool waits for a person (an agent used as a tool: ``tools.failure.ToolWaiting``).  The story is
told in ``approval.py``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Callable, Iterable

from .approval import ApprovalGate, Decision, HeldTurn
from .messages import to_dict
from .records import RUNNING, WAITING, LoopProtocol, RunResult, Step, StopReason, ToolResult, WaitingStep
from .texts import t
from .tools.failure import ToolWaiting

DEFAULT_MAX_STEPS = 5


class LoopBase:
    """The state of a run and the shared half of the interface (``start`` / ``done`` / ``result``).

    A loop class adds ``_begin`` (its own set-up for a new run), ``next_request``,
    ``step``, ``run``, ``messages`` (the chain so far, a list of dicts - an
    attribute or a property) and ``describe`` (its trace lines).

    Args:
        client: an ``openai.OpenAI`` client (or anything with ``chat.completions.create``).
        model: model id.
        registry: the ``tools.registry.ToolRegistry`` that runs the tools.
        max_steps: steps before the loop stops asking for tools (then one last
            request asks for the answer); at least 1.  A step is one request, or
            two when the native loop's number check sends it again.
        system: the system prompt (None = the loop's default).
        max_tokens, temperature: for every request (max_tokens in tokens).
        provider: optional ``providers.Provider`` (for ``messages.request_kwargs``).
        trace: called with each trace line (default ``print``; None = silent).
        approve: the approval hook ``approve(call) -> approval.Decision | None``, asked before a
            call to one of ``approval_tools`` runs; None = such a call waits for ``decide``.
        approval_tools: the names of the tools that need a person's yes (default: the
            registry's ``approval_names()``, the tools marked ``needs_approval``).

    Attributes:
        question, steps, answer, stopped_reason: the state of the run.
        gate: the ``approval.ApprovalGate`` (its ``waiting``, ``approve`` and ``tools``).
    Raises:
        ValueError: max_steps below 1.
    """

    protocol: LoopProtocol

    def __init__(self, client: Any, model: str, registry: Any, *, max_steps: int = DEFAULT_MAX_STEPS,
                 system: str | None = None, max_tokens: int | None = None, temperature: float | None = 0,
                 provider: Any = None, trace: Callable[[str], Any] | None = print,
                 approve: Callable[[Any], Decision | None] | None = None, approval_tools: Iterable[str] | None = None):
        if max_steps < 1:
            raise ValueError(t("loops.max_steps_low", max_steps=max_steps))
        self.client, self.model, self.registry, self.provider = client, model, registry, provider
        self.max_steps, self.system = max_steps, system
        self.max_tokens, self.temperature = max_tokens, temperature
        self.trace = trace
        self.question: str | None = None
        self.steps: list[Step] = []
        self.answer: str | None = None
        self.stopped_reason: StopReason | None = None
        self._started = 0.0
        self._seconds = 0.0
        names = approval_tools if approval_tools is not None else getattr(registry, "approval_names", list)()
        self.gate = ApprovalGate(names, approve)

    @property
    def done(self) -> bool:
        """True once the run has ended (an answer, or the limit's last request was made)."""
        return self.stopped_reason is not None

    @property
    def limit_reached(self) -> bool:
        """True when ``max_steps`` steps were taken without an end: the next request is the last one."""
        return not self.done and len(self.steps) >= self.max_steps

    def start(self, question: Any) -> "LoopBase":
        """Begin a new run for ``question`` (forgets any previous run); returns self.

        Raises:
            ValueError: an empty question (see the loop for what else it accepts).
        """
        self._begin(question)
        self.gate.clear()  # a new run: no call waits, no decision carries over
        self.steps, self.answer, self.stopped_reason = [], None, None
        self._started, self._seconds = time.perf_counter(), 0.0
        return self

    # -- human approval (notebook 08): the gate's two names ----------------------

    @property
    def waiting(self) -> list:
        """The calls (``records.ToolCall``) that wait for a person's decision; ``[]`` when none.  While a
        tool of the turn waits (an agent used as a tool), the calls inside it: ``gate.waiting_tool`` says
        which call of this loop (``.call``) and which agent (``.source``) they belong to."""
        return self.gate.waiting

    def decide(self, call: Any, decision: Decision) -> None:
        """A person's decision for one waiting call (the ``ToolCall`` from ``waiting``, or its id);
        once every waiting call has one, the next ``step()`` (or ``run()``, which goes on to the end)
        finishes the turn without a new request.

        Raises:
            TypeError: ``decision`` is not an ``approval.Decision``.
            ValueError: no call of this turn waits under that name (the turn keeps waiting).
            (``approval.edit`` itself refuses arguments JSON cannot hold, before anything is decided.)
        """
        self.gate.decide(call, decision)

    @property
    def approve(self) -> Callable[[Any], Decision | None] | None:
        """The approval hook (the gate's); may be set between turns."""
        return self.gate.approve

    @approve.setter
    def approve(self, hook: Callable[[Any], Decision | None] | None) -> None:
        self.gate.approve = hook

    @property
    def approval_tools(self) -> list[str]:
        """The names of the tools that need a person's yes (the gate's)."""
        return self.gate.tools

    def result(self) -> RunResult:
        """The run so far: ``stopped_reason`` is ``"running"`` while not done, ``"waiting"`` while
        calls wait for a person's decision (then ``waiting`` lists them, the loop's own objects).

        Raises:
            RuntimeError: ``start`` was not called.
        """
        self._require_running(allow_done=True)
        return RunResult(
            question=self.question or "",
            protocol=self.protocol,
            answer=self.answer,
            stopped_reason=self.stopped_reason or (WAITING if self.waiting else RUNNING),
            steps=list(self.steps),
            messages=[to_dict(m) for m in self.messages],
            prompt_tokens=sum(s.prompt_tokens or 0 for s in self.steps),
            completion_tokens=sum(s.completion_tokens or 0 for s in self.steps),
            seconds=self._seconds,
            waiting=list(self.waiting),
        )

    def _resume(self) -> Step:
        """Finish the held turn (``gate.held``, an ``approval.HeldTurn``) once every call has a decision:
        no new request; the finished step takes the ``WaitingStep``'s place.  The loop's ``_finish``
        runs what was decided; the student's stop inside a tool is raised again once the step is recorded.

        A tool of the turn that waits again (``ToolWaiting``: the agent inside it stopped at another
        call) holds the turn again (``_hold_tool``), with the results answered so far.

        Raises:
            RuntimeError: a call still waits (nothing changes).
            KeyboardInterrupt: the student stopped a tool of this turn (the step is recorded first).
        """
        held = self.gate.resume()  # RuntimeError while a call still waits: nothing changes
        began = time.perf_counter()
        self.steps.pop()  # the WaitingStep: the finished turn is the same step
        try:
            step, interrupted = self._finish(held)
        except ToolWaiting as waits:  # a tool of the turn waits again: the turn waits again
            return self._hold_tool(waits, replace(held, answered=(*held.answered, *waits.answered)), began)
        self._record(step, began)
        if interrupted:
            raise KeyboardInterrupt(t("loops.interrupted"))
        return step

    def _hold_tool(self, waits: ToolWaiting, held: HeldTurn, began: float) -> Step:
        """A tool of the turn ``held`` raised ``waits`` (``tools.failure.ToolWaiting``: an agent used as a
        tool whose own call needs a yes): the gate holds the turn (``ApprovalGate.hold_tool``) and a
        ``WaitingStep`` lists the tool's waiting calls - as for a call of the loop's own, nothing of the turn
        is sent.  ``decide`` for each, then ``step()`` / ``run()`` finishes the turn (``_resume``)."""
        self.gate.hold_tool(waits, held)
        waiting = [ToolResult.not_run(call) for call in self.waiting]
        return self._record(WaitingStep(held.number, **held.fields, waiting=waiting), began)

    def _finish(self, held: HeldTurn) -> tuple[Step, bool]:  # pragma: no cover - each loop writes its own
        """Run the decided calls of ``held``; return the finished step and whether the student stopped a tool."""
        raise NotImplementedError

    def _hook_stopped(self) -> None:
        """After a ``WaitingStep`` is recorded: raise the student's ``KeyboardInterrupt`` again when it
        stopped the approval hook (``gate.interrupted``).  The calls stay waiting and nothing ran, so
        ``decide`` then ``run()`` (or ``step()``) finishes the turn later; the stop still stops the cell."""
        if self.gate.interrupted:
            raise KeyboardInterrupt(t("approval.hook_interrupted", names=", ".join(c.name for c in self.waiting)))

    def _end(self, step: Step, answer: str | None, reason: StopReason) -> None:
        """End the run with ``answer``: ``stopped_reason`` is ``reason``; ``"refusal"`` when the
        model refused; or the finish_reason (``"length"`` / ``"content_filter"`` / ``"incomplete"``)
        when the reply was cut - a cut reply is never silently a final answer."""
        self.answer = answer
        self.stopped_reason = "refusal" if step.refusal else step.finish_reason if step.cut else reason  # type: ignore[assignment]

    def _record(self, step: Step, began: float) -> Step:
        """Keep ``step`` (its wall time since ``began``) and print its trace lines."""
        step.seconds = time.perf_counter() - began
        self.steps.append(step)
        self._seconds = time.perf_counter() - self._started
        if self.trace is not None:
            for line in self.describe(step):
                self.trace(line)
        return step

    def _require_running(self, allow_done: bool = False) -> None:
        if self.question is None:
            raise RuntimeError(t("loops.not_started"))
        if self.done and not allow_done:
            raise RuntimeError(t("loops.run_ended", stopped_reason=repr(self.stopped_reason)))

    def _begin(self, question: Any) -> None:  # pragma: no cover - each loop writes its own
        """Set ``self.question`` and the loop's own state for a new run; raise ValueError for a bad question."""
        raise NotImplementedError

    def describe(self, step: Step) -> list[str]:  # pragma: no cover - each loop writes its own
        """The trace lines of one step."""
        raise NotImplementedError


def question_text(question: Any) -> str:
    """``question`` stripped; raises ValueError unless it is a non-empty string."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError(t("loops.empty_question"))
    return question.strip()


def cut_note(step: Step) -> str:
    """``" ⚠️ <why>"`` for a trace line when the step's reply was cut, else ``""``."""
    return f" ⚠️ {step.cut}" if step.cut else ""
