"""Human approval: what a person decides before a tool that changes something runs.

Taught in notebook 08.  The approval story is told here, once; the loops point to it.

A tool marked ``needs_approval`` (``tools.registry.Tool``; notebook 08's ``place_order``)
never runs on the model's word alone.  Every loop - the native ``agent.Agent`` and the ReAct
loops ``react.LineReAct`` / ``react.JsonReAct`` (an Action is one call) - asks its
``ApprovalGate`` (``loop.gate``) before anything of a reply runs, and the gate hands each
such call to the ``approve`` hook, a plain function ``approve(call) -> Decision | None``:

* ``approve()``        run the call as the model wrote it;
* ``reject("原因")``   do not run it; the model reads ``REJECTED_TEXT`` (native: the call's tool
                       message, so the call id still gets its one answer; ReAct: the Observation);
* ``edit({...})``      run it with these arguments; what comes back starts with ``EDITED_NOTE``
                       (the native assistant message is changed to match; a ReAct Action's text stays);
* ``None``             no decision yet: the loop waits for ``loop.decide`` (how: ``ApprovalGate``).

A call that needs a yes can also sit INSIDE a tool: an agent used as a tool (notebook 11,
``multi_agent.agent_as_tool``) whose own ``place_order`` waits.  The tool raises
``tools.failure.ToolWaiting`` and the outer loop waits just the same - ``loop.waiting`` lists the
inner calls, ``loop.decide`` passes each decision on, ``run()`` lets the tool finish
(``ApprovalGate.hold_tool``) - and the outer model reads nothing until then.

A hook that raises or answers something else rejects the call: a write never runs by
mistake.  ``ApprovalGate.apply_decision`` is the one place a decision is carried out.  This
is what LangChain's ``HumanInTheLoopMiddleware`` calls approve / reject / edit (source 003),
and LangGraph's ``interrupt`` is the waiting.  A policy is also just such a function;
``by_argument`` builds the common one: approve when a count is small, otherwise ask a
person (or reject).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Callable, Iterable, Literal

from .messages import tool_content
from .records import ToolResult
from .texts import t
from .tools.failure import ToolFailure, ToolWaiting
from .tools.registry import lookup_tool

DecisionAction = Literal["approve", "reject", "edit"]
ACTIONS = ("approve", "reject", "edit")

# The tool message (native) or Observation (ReAct) of a call a person rejected: it did not run.
REJECTED_TEXT = "没有执行：用户拒绝了这次 {name} 调用。{reason}不要再用同样的参数调用它；请告诉用户这一步没有执行。"
REJECTED_REASON = "用户给的理由：{reason}。"
# In front of the result of a call a person ran with other arguments.
EDITED_NOTE = "（用户把参数改成了 {arguments} 后才执行；下面是按用户的参数执行的结果。）\n"


@dataclass(frozen=True)
class Decision:
    """A person's answer to one tool call.

    Attributes:
        action: ``"approve"`` (run as written), ``"reject"`` (do not run) or
            ``"edit"`` (run with ``arguments``).
        arguments: for ``"edit"``, the arguments to run with (a dict); else None.
        reason: for ``"reject"``, why (shown to the model; may be "").
    Raises:
        ValueError: an unknown action, ``"edit"`` without a dict of arguments, or with a value
            JSON cannot hold (``json_native``).
    """

    action: DecisionAction
    arguments: dict | None = None
    reason: str = ""
    by: str = field(default="", compare=False)  # who decided, for the tables ("policy", "按钮", ...)

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(t("approval.bad_action", action=self.action, actions=", ".join(ACTIONS)))
        if self.action == "edit" and not isinstance(self.arguments, dict):
            raise ValueError(t("approval.edit_needs_dict", kind=type(self.arguments).__name__))
        if self.action == "edit":  # a JSON copy: what runs is what was decided, and it can be sent
            object.__setattr__(self, "arguments", json_native(self.arguments))


def approve(by: str = "") -> Decision:
    """Run the call as the model wrote it."""
    return Decision("approve", by=by)


def reject(reason: str = "", by: str = "") -> Decision:
    """Do not run the call; ``reason`` is passed on to the model."""
    return Decision("reject", reason=str(reason or ""), by=by)


def edit(arguments: dict, by: str = "") -> Decision:
    """Run the call with ``arguments`` (a dict) instead of the model's; the decision keeps a
    JSON copy (``json_native``), so changing the dict afterwards changes nothing.

    Raises:
        ValueError: ``arguments`` is not a dict, or holds a value JSON cannot hold.
    """
    return Decision("edit", arguments=arguments, by=by)


def by_argument(name: str, limit: int, over: Callable[[Any], Decision | None] | None = None) -> Callable[[Any], Decision | None]:
    """A policy: approve a call whose argument ``name`` is a whole number from 1 to ``limit``;
    otherwise ``over(call)`` decides (default: no decision, so a person is asked).

    Anything else is never approved by the policy: a larger number, 0 or less, ``2.5``,
    ``"100"`` written as a string, ``True``, a missing argument.

    Example: ``Agent(..., approve=by_argument("quantity", 5))`` lets orders of up to 5 pieces
    through and waits for a person on anything larger, or on a quantity that is not a number.

    Args:
        name: the argument to look at (e.g. ``"quantity"``).
        limit: the largest value approved without asking.
        over: what to do with the other calls (e.g. ``lambda call: reject("数量太大")``).
    Returns:
        A function ``policy(call) -> Decision | None`` for ``Agent(approve=...)``.
    """
    def policy(call: Any) -> Decision | None:
        value = (call.arguments or {}).get(name)
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= limit:
            return approve(by="policy")
        return over(call) if over is not None else None

    return policy


def json_native(arguments: dict) -> dict:
    """A copy of ``arguments`` in plain JSON values, the only kind a tool call's ``arguments`` string
    holds (OpenAI Chat Completions: ``function.arguments`` is JSON text).

    A numpy number (``numpy.int64`` read from a DataFrame, ``numpy.float64``, ``numpy.bool_``)
    becomes the Python value it holds (``.item()``); a ``Decimal`` an int when it is whole, else a float.

    Raises:
        ValueError (in Chinese): a value JSON cannot hold - a set, a date, any other object, NaN or infinity.
    """
    try:
        return json.loads(json.dumps(arguments, default=_plain, allow_nan=False, ensure_ascii=False))
    except (TypeError, ValueError) as exc:
        raise ValueError(t("approval.edit_not_json", error=exc)) from None


def _plain(value: Any) -> Any:
    """``json.dumps``'s ``default``: the JSON value of a numpy scalar or a Decimal; TypeError for anything else."""
    if isinstance(value, Decimal) and value.is_finite():
        return int(value) if value == value.to_integral_value() else float(value)
    if hasattr(value, "item") and getattr(value, "shape", None) == ():  # a numpy scalar (shape () : one value)
        return value.item()
    raise TypeError(type(value).__name__)


def rejected_text(name: str, decision: Decision) -> str:
    """What the model reads for a rejected call to ``name``: ``REJECTED_TEXT`` with the person's reason."""
    reason = REJECTED_REASON.format(reason=decision.reason) if decision.reason else ""
    return REJECTED_TEXT.format(name=name, reason=reason)


@dataclass(frozen=True)
class HeldTurn:
    """What a loop keeps of a turn that waits for a person (``ApprovalGate.held``): enough to
    finish it later without a new request.  One record for every loop; each fills what it needs.

    Attributes:
        number: the step's number (the finished turn takes its ``WaitingStep``'s place).
        fields: the step record's fields read from the reply (``records.reply_fields`` plus the
            loop's own: native ``dropped`` and ``requests``, ReAct ``thought``).
        calls: the turn's calls (``records.ToolCall``), the very objects ``waiting`` lists (while a tool
            of the turn waits, ``waiting`` lists the calls inside that tool instead: ``hold_tool``).
        turn: native loop: the ``tool_calls.AssistantTurn`` (its assistant message is appended
            when the turn finishes); None for the ReAct loops.
        parsed: ReAct loops: the ``react_parser.ParsedReply`` of the Action; None for the native loop.
        reply_text: ReAct loops: the reply as the model wrote it (the conversation keeps its
            trusted part); None for the native loop.
        answered: native loop, a turn held because one of its tools waits (``ApprovalGate.hold_tool``):
            the results (``records.ToolResult``) of the calls before that one, which already ran; when
            the turn finishes they are kept, not answered again.  ``()`` otherwise.
    """

    number: int
    fields: dict
    calls: tuple
    turn: Any = None
    parsed: Any = None
    reply_text: str | None = None
    answered: tuple = ()


class ApprovalGate:
    """The one place every loop asks before a call to a tool that needs a person's yes runs.

    Each loop owns one (``loop.gate``, made in ``loop_base.LoopBase`` from ``approve=`` and
    ``approval_tools=``, by default the registry's ``approval_names()``) and asks it before
    anything of a reply runs - for the native loop, before anything of it enters ``messages``.
    A call without a decision waits: the step is a ``records.WaitingStep``, nothing runs, and
    the gate holds the turn (``HeldTurn``).  ``loop.waiting`` lists the calls and
    ``loop.decide(call, decision)`` answers one - the debugger's three buttons and the chat
    box's 「批准」「拒绝」 call it, for every loop; once every call has a decision, the next
    ``step()`` finishes the turn without a new request (``LoopBase._resume``).  ``run()`` stops
    at a waiting call and returns, never raises: ``stopped_reason == "waiting"``, the calls in
    ``result.waiting``; ``run()`` again after ``decide`` finishes the turn and goes on.
    ``step()`` on a turn that still waits raises ``RuntimeError`` (nothing changes).  The stop
    button inside the hook is no decision either: the call waits.

    What a loop's turn does with it (``Agent.step``, ``ReActLoop.step``)::

        if gate.ask(calls, held=HeldTurn(...)):  # the hook decides what it can; the rest wait ...
            return WaitingStep(...)              # ... until gate.decide(call, decision) for each
        held = gate.resume()                     # (next step) the HeldTurn; RuntimeError while a call waits
        calls = gate.release(calls)              # the calls as they run: an edited one has the person's arguments
        gate.apply_decision(call, run)           # reject: not run; else run(call), edited: EDITED_NOTE in front

    Decisions belong to one call of one turn: ``ask`` forgets the last turn's, and a call is
    found by identity (``is``), not by its id - servers that number the calls of each reply
    (``call_0`` ...) reuse ids, and a later write must not inherit an earlier yes.

    A tool of the turn may itself wait (it raises ``tools.failure.ToolWaiting``: an agent used as a
    tool, whose own call needs a yes).  The loop then holds the turn here too (``hold_tool``):
    ``waiting`` lists the tool's waiting calls, ``decide`` passes each decision on to the tool, and
    when the turn finishes ``apply_decision`` lets that tool finish instead of running it again.  The
    calls of the turn before it have run (their results are kept in ``HeldTurn.answered``); the ones
    after it wait with the turn, as every call of a turn waits for one call's decision.

    Args:
        tools: the names of the tools that need a yes (``ToolRegistry.approval_names()``).
        approve: the hook ``approve(call) -> Decision | None``; None: every such call waits.
    Attributes:
        tools, approve: as given (both may be changed between turns).
        waiting: the calls (``records.ToolCall``) of this turn that wait for ``decide``; ``[]`` when none.
            While a tool waits, its calls (the inner agent's own objects).
        held: the ``HeldTurn`` that waits; None when none waits.
        waiting_tool: the ``ToolWaiting`` of the tool that waits, until it finishes; None when none.
            Its ``call`` is this loop's call (e.g. ``ask_orders_expert``), its ``source`` the agent inside.
        interrupted: True when the stop button (``KeyboardInterrupt``) stopped the hook in this turn's
            ``ask``: the loop raises it again once the waiting turn is recorded.
    """

    def __init__(self, tools: Iterable[str] = (), approve: Callable[[Any], Decision | None] | None = None):
        self.tools, self.approve = list(tools), approve
        self.clear()

    def clear(self) -> None:
        """Forget the turn: its decisions, its waiting calls and the held turn (a new run or turn)."""
        self.waiting: list[Any] = []
        self.held: HeldTurn | None = None
        self.waiting_tool: ToolWaiting | None = None
        self.interrupted = False
        self._decided: list[tuple[Any, Decision]] = []  # (the call object, its decision), this turn only

    def needs(self, call: Any) -> bool:
        """True when ``call`` is to one of ``tools`` and its arguments could be read."""
        return getattr(call, "error", None) is None and lookup_tool(call.name, self.tools) is not None

    def ask(self, calls: list[Any], held: HeldTurn | None = None) -> list[Any]:
        """A new turn: the ``approve`` hook decides each call that needs a yes.  Returns the calls left
        without a decision (also ``waiting``); when some wait, ``held`` is kept for ``resume``.
        A hook that raises or answers something other than a ``Decision`` or None rejects the call.

        The stop button inside the hook (``KeyboardInterrupt``, e.g. while an ``input()`` waits for a
        person) is no decision: that call and every later one that needs a yes wait (the hook is not
        asked again), the held turn is kept, and ``interrupted`` is True - the loop records its
        ``WaitingStep`` and then raises the ``KeyboardInterrupt`` again.  Nothing has run.
        """
        self.clear()
        for call in calls:
            if self.needs(call):
                decision = None
                if not self.interrupted:
                    try:
                        decision = self._hook(call)
                    except KeyboardInterrupt:  # the student's stop: the call waits for decide(), nothing runs
                        self.interrupted = True
                if decision is None:
                    self.waiting.append(call)
                else:
                    self._decided.append((call, decision))
        self.held = held if self.waiting else None
        return list(self.waiting)

    def _hook(self, call: Any) -> Decision | None:
        """The hook's decision for ``call``; a broken hook rejects it (``by="error"``): a write never runs by mistake."""
        if self.approve is None:
            return None
        try:
            decision = self.approve(call)
        except Exception as exc:  # noqa: BLE001 - a broken policy must not run a write
            return Decision("reject", reason=t("approval.hook_failed", error=f"{type(exc).__name__}: {exc}"), by="error")
        if decision is not None and not isinstance(decision, Decision):
            return Decision("reject", reason=t("approval.hook_returned", kind=type(decision).__name__), by="error")
        return decision

    def decide(self, call: Any, decision: Decision) -> None:
        """A person's decision for one waiting call: the ``ToolCall`` from ``waiting``, or its id.
        While a tool waits (``waiting_tool``), the decision is that tool's: passed on to its ``decide``.

        Raises:
            TypeError: ``decision`` is not a ``Decision``.
            ValueError: no call of this turn waits under that name (an earlier turn's call, an unknown id).
        """
        if not isinstance(decision, Decision):
            raise TypeError(t("approval.not_a_decision", kind=type(decision).__name__))
        found = next((c for c in self.waiting if call is c or call == c.id), None)
        if found is None:
            raise ValueError(t("approval.not_waiting", call_id=getattr(call, "id", call), waiting=[c.id for c in self.waiting]))
        if self.waiting_tool is not None:  # a call inside a tool (an agent used as a tool): its agent decides
            self.waiting_tool.decide(found, decision)
        else:
            self._decided.append((found, decision))
        self.waiting = [c for c in self.waiting if c is not found]

    def hold_tool(self, waits: ToolWaiting, held: HeldTurn) -> None:
        """A tool of the turn raised ``waits`` (``tools.failure.ToolWaiting``): hold the turn ``held``
        until every call in ``waits.calls`` has a decision, as ``ask`` holds a turn whose own call waits.

        ``held.answered`` holds the results of the calls before the tool (they ran); the tool's call is the
        next one, ``held.calls[len(held.answered)]`` (``waits.call``).  Nothing of the turn is sent meanwhile.
        """
        waits.call = held.calls[len(held.answered)]
        self.held, self.waiting_tool, self.waiting = held, waits, list(waits.calls)

    def resume(self) -> HeldTurn | None:
        """The held turn (``HeldTurn``), once every call has a decision.

        Raises:
            RuntimeError: a call still waits (nothing is changed).
        """
        if self.waiting:
            raise RuntimeError(t("approval.still_waiting", names=", ".join(c.name for c in self.waiting)))
        return self.held

    def release(self, calls: list[Any]) -> list[Any]:
        """Let the turn go (``held`` is dropped): ``calls`` as they are to run, an edited call replaced
        by a copy with the person's arguments (the copy keeps the decision)."""
        self.held = None
        out = []
        for call in calls:
            decision = self.decision(call)
            if decision is not None and decision.action == "edit":
                call = replace(call, arguments=dict(decision.arguments),
                               arguments_text=json.dumps(decision.arguments, ensure_ascii=False))
                self._decided.append((call, decision))
            out.append(call)
        return out

    def decision(self, call: Any) -> Decision | None:
        """The decision taken in this turn for this very ``call`` object, or None."""
        return next((d for c, d in self._decided if c is call), None)

    def apply_decision(self, call: Any, run: Callable[[Any], ToolResult]) -> ToolResult:
        """Answer one call as its decision in this turn says: the one place every loop carries out
        a person's (or the policy's) decision.

        * rejected: it does not run; the answer is ``rejected_text`` (``ok`` False);
        * edited: ``run(call)`` (``call`` is ``release``'s copy with the person's arguments), and
          ``EDITED_NOTE`` goes in front of what came back;
        * approved, or no decision (a tool that needs no yes): ``run(call)``; but the call whose tool
          waited for a person (``hold_tool``) is not run again: that tool finishes (``_finish_tool``).

        The result's ``approval`` is the decision's action (``""`` without one).

        Args:
            call: a ``records.ToolCall`` of this turn, as ``release`` returned it.
            run: how the loop runs it, ``run(call) -> records.ToolResult`` (``Agent.answer_call``:
                the repeat check, then ``tool_calls.run_call``; ``ReActLoop``: ``tool_calls.run_call``).
        Returns:
            The ``records.ToolResult`` the model reads: the native loop's tool message, a ReAct Observation.
        Raises:
            whatever ``run`` raises (the native loop's stop button: ``KeyboardInterrupt``; a tool that
            waits for a person: ``tools.failure.ToolWaiting``, which the loop holds).
        """
        decision = self.decision(call)
        approval = decision.action if decision is not None else ""
        if approval == "reject":
            return ToolResult.not_run(call, rejected_text(call.name, decision), approval="reject")
        result = self._finish_tool(call) if self._tool_waited(call) else run(call)
        if approval == "edit":
            result.observation = EDITED_NOTE.format(arguments=call.arguments_text) + result.observation
        result.approval = approval
        return result

    def _tool_waited(self, call: Any) -> bool:
        """True when ``call`` is the call whose tool waited for a person (``waiting_tool``; same id in the same turn)."""
        return self.waiting_tool is not None and self.waiting_tool.call is not None and self.waiting_tool.call.id == call.id

    def _finish_tool(self, call: Any) -> ToolResult:
        """The result of the tool that waited: its ``finish()`` (every decision is in), read as
        ``ToolRegistry.call`` reads a tool's return value (``ok`` False for a ``ToolFailure``).

        Raises:
            tools.failure.ToolWaiting: the tool waits again (the agent inside stopped at another call).
            whatever ``finish()`` raises besides (``agent_as_tool``'s turns the inner run's errors into a result).
        """
        waits, self.waiting_tool = self.waiting_tool, None
        value = waits.finish()
        return ToolResult(call, tool_content(value), ok=not isinstance(value, ToolFailure))


__all__ = ["ApprovalGate", "Decision", "EDITED_NOTE", "HeldTurn", "REJECTED_TEXT", "ToolWaiting", "approve", "by_argument",
           "edit", "json_native", "reject", "rejected_text"]
