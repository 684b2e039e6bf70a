"""Human approval: what a person decides before a tool that changes something runs.

Taught in notebook 08.

A tool marked ``needs_approval`` (``tools.registry.Tool``; notebook 08's
``place_order``) never runs on the model's word alone.  Before it runs, the
native loop (``agent.Agent``, the loop of notebook 06) hands the call to its
``approve`` hook, a plain function ``approve(call) -> Decision | None``:

* ``approve()``            run the call as the model wrote it;
* ``reject("原因")``       do not run it; the model gets a tool message saying the
                           person declined (the message list stays valid: the
                           call id still gets its one answer);
* ``edit({...})``          run it with these arguments instead (the assistant
                           message is changed to match, and the tool message says so);
* ``None``                 no decision yet: the loop stops before running
                           anything and waits (``Agent.waiting``) until
                           ``Agent.decide(call, decision)`` - the debugger's
                           buttons - says what to do.

This is what LangChain's ``HumanInTheLoopMiddleware`` calls approve / reject /
edit (source 003), and LangGraph's ``interrupt`` is the waiting.  A policy is
also just such a function; ``by_argument`` builds the common one: approve when
a count is small, otherwise ask a person (or reject).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from .texts import t

DecisionAction = Literal["approve", "reject", "edit"]
ACTIONS = ("approve", "reject", "edit")


@dataclass(frozen=True)
class Decision:
    """A person's answer to one tool call.

    Attributes:
        action: ``"approve"`` (run as written), ``"reject"`` (do not run) or
            ``"edit"`` (run with ``arguments``).
        arguments: for ``"edit"``, the arguments to run with (a dict); else None.
        reason: for ``"reject"``, why (shown to the model; may be "").
    Raises:
        ValueError: an unknown action, or ``"edit"`` without a dict of arguments.
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


def approve(by: str = "") -> Decision:
    """Run the call as the model wrote it."""
    return Decision("approve", by=by)


def reject(reason: str = "", by: str = "") -> Decision:
    """Do not run the call; ``reason`` is passed on to the model."""
    return Decision("reject", reason=str(reason or ""), by=by)


def edit(arguments: dict, by: str = "") -> Decision:
    """Run the call with ``arguments`` (a dict) instead of the model's.

    Raises:
        ValueError: ``arguments`` is not a dict.
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


__all__ = ["Decision", "approve", "by_argument", "edit", "reject"]
