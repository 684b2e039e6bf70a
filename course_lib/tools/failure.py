"""How a tool says "I could not do that" (a ``ToolFailure``), or "not yet: a person decides first" (``ToolWaiting``).

Taught in notebook 04 (tools never raise at the model; the registry reports ``ok``); ``ToolWaiting``
in notebook 11 (an agent used as a tool whose own write waits for a person, notebook 08).

A course tool answers bad input with a sentence the model can read and act on
("错误：city 不能为空……"), never with an exception.  That sentence is a
``ToolFailure``: a ``str`` in every way (printed, sent, compared), and its type
tells the registry that the tool did not produce a result, so
``ToolRegistry.call`` returns ``ok`` False for it.  Nothing is guessed from
the text.

The one exception a tool raises on purpose is ``ToolWaiting``: it has no result YET, because a
person must decide something first.  The model must not read anything about it - neither an
error it would apologise for nor a result it would call a success - so it is not a tool result
at all: the loop that ran the tool stops and waits (``approval.ApprovalGate.hold_tool``).
"""

from __future__ import annotations

from typing import Any, Callable


class ToolFailure(str):
    """A tool's answer that says why it produced no result (a ``str``; ``ToolRegistry.call`` gives ``ok`` False)."""

    __slots__ = ()


class ToolWaiting(BaseException):
    """Raised by a tool that cannot give its result before a person decides: an agent used as a tool
    (``multi_agent.agent_as_tool``) whose own call needs a yes (notebook 08's ``place_order``).

    The course's loops (``agent.Agent``, ``react.LineReAct`` / ``react.JsonReAct``) catch it and wait
    as for a call of their own: ``stopped_reason == "waiting"``, ``loop.waiting`` lists ``calls``,
    ``loop.decide(call, decision)`` passes each decision on (``decide``), and the next ``run()`` /
    ``step()`` calls ``finish()`` - the tool goes on where it stopped, it is not run again - and the
    loop goes on with its result.  Nothing is sent to the model meanwhile (``approval.ApprovalGate.hold_tool``).

    A ``BaseException``, like ``KeyboardInterrupt`` and ``asyncio.CancelledError`` (one since Python
    3.8 for this reason): the ``except Exception`` that turns a tool's error into an
    "错误：..." result (``ToolRegistry.call``, ``tool_calls.run_call``) lets it through, so the model
    never reads a waiting write as a failure or as done.  A hand-written loop that does not catch it
    stops with this exception and its message (Chinese), never with a claimed success.  The same idea:
    LangGraph's ``interrupt()`` raises inside the node and ``Command(resume=...)`` goes on there;
    openai-agents surfaces a nested agent tool's approval in the outer run's ``interruptions``
    (openai-agents-js issues #243 and #680, PR #916).

    Args:
        message: what a reader of the traceback is told (Chinese).
        calls: the calls that wait (``records.ToolCall``): the inner loop's own objects, so a person
            sees the real arguments and ``decide`` finds them.
        decide: ``decide(call, decision)`` - a person's decision for one of ``calls``
            (the inner ``Agent.decide``; raises as it does).
        finish: ``finish()`` - the tool's result once every call has a decision (what a tool
            returns: a str, a ``ToolFailure`` ...); it may raise ``ToolWaiting`` again (another call
            waits), nothing else: an error is a ``ToolFailure`` result, as in any tool.
        source: what waits inside the tool, for the person (``agent_as_tool``: the inner ``Agent``).
    Attributes:
        calls, decide, finish, source: as given.
        call: the loop's own call whose tool raised it (e.g. ``ask_orders_expert``); set when the loop holds it.
        answered: set by the native loop: the results (``records.ToolResult``) of the calls of the same
            turn answered before this one - they are not answered again when the turn finishes.
    """

    def __init__(self, message: str, calls: list, decide: Callable[[Any, Any], None], finish: Callable[[], Any],
                 source: Any = None):
        super().__init__(message)
        self.calls, self.decide, self.finish, self.source = list(calls), decide, finish, source
        self.call: Any = None
        self.answered: tuple = ()
