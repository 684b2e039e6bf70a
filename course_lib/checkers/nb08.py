"""Checkers for notebook 08 (an agent that acts: human approval of place_order).

Exercise 08-1, the task as the notebook states it:

    写一个审批策略 ``order_policy(call)``，交给 ``Agent(approve=order_policy)``。
    ``call`` 是一个 ToolCall：``call.name`` 是 "place_order"，``call.arguments`` 是参数
    dict（读不出参数时是 None）。看 ``call.arguments["quantity"]``：

    * 1 到 3 之间的整数（int）：返回 ``approve()``；
    * 大于 3 的整数：返回 ``reject(原因)``，原因不能为空（模型会读到它，例如「每单最多 3 件」）；
    * 其他情况都不能批准：没有 quantity、arguments 是 None、字符串（"100"，也包括看起来
      像数字的 "3"）、小数（2.5，也包括 2.0）、布尔值 True、0 或负数。返回 ``reject(原因)`` 或 ``None``（交给人决定）都可以。

    ``approve`` 和 ``reject`` 从 ``course_lib.approval`` 导入；返回值只能是 Decision 或 None。

The checker calls the policy on ``ToolCall`` objects and never on a model.  Every call
is built anew for each check, so a policy that changes ``call.arguments`` changes nothing
the next check sees.  "Not approved" covers every quantity that is not a real ``int``
(bool excluded) from 1 to 3, also those that look like one: digit strings (``"3"``,
``" 2"``, full-width ``"２"``) and whole floats (``2.0``), which ``int(quantity)`` or
``quantity == int(quantity)`` would let through.  Only JSON values are tried: the
arguments come from the model's JSON, so a Decimal or numpy integer never reaches a policy.
"""

from __future__ import annotations

import json
from typing import Any

from ..approval import Decision
from ..tool_calls import ToolCall
from . import CheckResult, exercise, report, safely, t

LIMIT = 3  # pieces: the largest order approved without a person
_MISSING = object()


def _call(quantity: Any = _MISSING, arguments: Any = _MISSING) -> ToolCall:
    """A place_order call for product 001 with this quantity (or these arguments, None = unreadable)."""
    if arguments is _MISSING:
        arguments = {"product_id": "001"} if quantity is _MISSING else {"product_id": "001", "quantity": quantity}
    text = json.dumps(arguments, ensure_ascii=False) if isinstance(arguments, dict) else "{}"
    return ToolCall(id="call_08_1", name="place_order", arguments=arguments, arguments_text=text)


def _shown(call: ToolCall) -> str:
    """How a case is named in a hint: ``place_order({"product_id": "001", "quantity": 2})``."""
    return f"place_order({call.arguments_text if call.arguments is not None else 'None'})"


def _verdict(decision: Decision | None) -> str:
    """A decision as the hints show it: approve() / reject('...') / edit({...}) / None."""
    if decision is None:
        return "None"
    if decision.action == "reject":
        return f"reject({decision.reason!r})"
    return f"edit({decision.arguments!r})" if decision.action == "edit" else "approve()"


def _odd_calls() -> list[tuple[ToolCall, str]]:
    """The calls no policy may approve, each with the hint that says why its quantity is not a
    number of pieces; new ``ToolCall`` objects at every call (policies may change them)."""
    return [
        (_call("100"), "check.08.order_policy.hint_text"),
        (_call(True), "check.08.order_policy.hint_bool"),
        (_call(2.5), "check.08.order_policy.hint_float"),
        (_call(0), "check.08.order_policy.hint_not_positive"),
        (_call(-1), "check.08.order_policy.hint_not_positive"),
        (_call(), "check.08.order_policy.hint_missing"),
        (_call(arguments=None), "check.08.order_policy.hint_missing"),
        (_call(None), "check.08.order_policy.hint_missing"),
        # What int(quantity) / quantity == int(quantity) turns into 1 to 3: still not an int.
        (_call("3"), "check.08.order_policy.hint_text_digits"),
        (_call(" 2"), "check.08.order_policy.hint_text_digits"),
        (_call("\uff12"), "check.08.order_policy.hint_text_digits"),  # full-width 2: int() reads it as 2
        (_call(2.0), "check.08.order_policy.hint_whole_float"),
        (_call(3.0), "check.08.order_policy.hint_whole_float"),
        (_call(4.0), "check.08.order_policy.hint_whole_float"),
    ]


@exercise("08-1")
def check_order_policy(policy: object) -> CheckResult:
    """Exercise 08-1 (statement in this module's docstring): ``policy(call) -> Decision | None``
    approves orders of 1 to 3 pieces, rejects larger whole numbers with a reason, and never
    approves a quantity that is missing or not a positive int (bool, str - digit strings too -,
    float - whole ones too -, 0, negatives, arguments None)."""
    if not callable(policy):
        return report(False, t("check.08.order_policy.not_callable"))
    small = [_call(n) for n in range(1, LIMIT + 1)]
    large = [_call(n) for n in (LIMIT + 1, 20, 100, 10**12)]
    odd = _odd_calls()
    decisions = {}
    for call in small + large + [c for c, _ in odd]:
        got, error = safely(policy, call)
        if error:
            return report(False, t("check.08.order_policy.raised", case=_shown(call), error=error))
        if got is not None and not isinstance(got, Decision):
            return report(False, t("check.08.order_policy.not_a_decision", case=_shown(call), value=repr(got)))
        decisions[id(call)] = got
    for call in small:
        got = decisions[id(call)]
        if got is None or got.action != "approve":
            return report(False, t("check.08.order_policy.small_not_approved", case=_shown(call), got=_verdict(got)))
    for call in large:
        got = decisions[id(call)]
        if got is None or got.action != "reject":
            return report(False, t("check.08.order_policy.large_not_rejected", case=_shown(call), got=_verdict(got)))
        if not got.reason.strip():
            return report(False, t("check.08.order_policy.no_reason", case=_shown(call)))
    for call, hint in odd:
        got = decisions[id(call)]
        if got is not None and got.action != "reject":
            return report(False, t("check.08.order_policy.odd_approved", case=_shown(call), got=_verdict(got), hint=t(hint)))
    return report(True, t("check.08.order_policy.passed"))
