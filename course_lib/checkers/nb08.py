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
from . import CheckResult, described, exercise, first_difference, report, t
from .reference import solution

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


def _quantity(call: ToolCall) -> Any:
    return (call.arguments or {}).get("quantity", _MISSING) if isinstance(call.arguments, dict) else _MISSING


def _expected(call: ToolCall) -> str:
    """What the exercise asks for this call, from the reference solution (``solutions/08_human_approval.py``):
    ``"approve"`` where it approves (an int, not a bool, from 1 to LIMIT), ``"reject"`` where it rejects a
    whole number above LIMIT (a reason is needed), ``"not_approved"`` for anything else (the task allows
    ``reject(reason)`` or None there)."""
    decision = solution("08-1", "order_policy")(call)
    if decision is not None and decision.action == "approve":
        return "approve"
    quantity = _quantity(call)
    whole = isinstance(quantity, int) and not isinstance(quantity, bool)
    return "reject" if whole and quantity > LIMIT else "not_approved"


def _as_asked(got: Any, want: str) -> bool:
    """Whether the policy's return ``got`` is what ``want`` (``_expected``) asks for."""
    if got is not None and not isinstance(got, Decision):
        return False
    if want == "approve":
        return got is not None and got.action == "approve"
    if want == "reject":
        return got is not None and got.action == "reject" and bool(str(got.reason or "").strip())
    # "返回 reject(原因) 或 None": a rejection says why (the model reads the reason)
    return got is None or (got.action == "reject" and bool(str(got.reason or "").strip()))


def _odd_hint(quantity: Any) -> str:
    """The hint key that says why ``quantity`` is not a number of pieces."""
    if quantity is _MISSING or quantity is None:
        return "check.08.order_policy.hint_missing"
    if isinstance(quantity, bool):
        return "check.08.order_policy.hint_bool"
    if isinstance(quantity, str):
        digits = quantity.strip().isdecimal() and 1 <= int(quantity) <= LIMIT  # int() reads it as 1 to 3
        return "check.08.order_policy.hint_text_digits" if digits else "check.08.order_policy.hint_text"
    if isinstance(quantity, float):
        return "check.08.order_policy.hint_whole_float" if quantity.is_integer() else "check.08.order_policy.hint_float"
    if isinstance(quantity, int):
        return "check.08.order_policy.hint_not_positive"
    return "check.08.order_policy.hint_text"


def _generated_calls() -> Any:
    """A hypothesis strategy of ``(call,)``: quantities of every JSON kind (ints small and huge, of
    either sign, bools, floats, strings, None, lists), missing, or arguments None; sometimes an
    extra argument beside them."""
    from hypothesis import strategies as st

    small = st.integers(min_value=-4, max_value=LIMIT + 3)  # around both ends of 1 to LIMIT: most often
    whole = st.one_of(small, small, st.integers(min_value=-10**13, max_value=10**13),
                      st.integers(min_value=LIMIT + 1, max_value=10**13))
    other = st.one_of(
        st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6),
        st.integers(min_value=-5, max_value=9).map(float), st.text(max_size=4),
        st.integers(min_value=0, max_value=20).map(str), st.lists(st.integers(1, 3), max_size=2))
    given = st.fixed_dictionaries({"product_id": st.sampled_from(["001", "007"]), "quantity": st.one_of(whole, other)},
                                  optional={"note": st.text(max_size=3)})
    arguments = st.one_of(
        given, given, given,
        st.fixed_dictionaries({"product_id": st.sampled_from(["001", "007"])}, optional={"note": st.text(max_size=3)}),
        st.none())
    return arguments.map(lambda a: (_call(arguments=a),))


@exercise("08-1")
def check_order_policy(policy: object) -> CheckResult:
    """Exercise 08-1 (statement in this module's docstring): ``policy(call) -> Decision | None``
    approves orders of 1 to 3 pieces, rejects larger whole numbers with a reason, and never
    approves a quantity that is missing or not a positive int (bool, str - digit strings too -,
    float - whole ones too -, 0, negatives, arguments None).

    First on fixed calls (1 to 3 pieces, then 4, 20, 100 and 10**12, then ``_odd_calls``), then on
    generated ones (``_generated_calls``), each compared with what ``_expected`` asks."""
    if not callable(policy):
        return report(False, t("check.08.order_policy.not_callable"))
    small = [(_call(n),) for n in range(1, LIMIT + 1)]
    large = [(_call(n),) for n in (LIMIT + 1, 20, 100, 10**12)]
    odd_hints = _odd_calls()
    odd = [(call,) for call, _ in odd_hints]
    found = first_difference(policy, _expected, inputs=_generated_calls(), examples=small + large + odd,
                             same=_as_asked, max_examples=200)  # a policy is quick: 200 calls take ~0.1 s
    if found is None:
        return report(True, t("check.08.order_policy.passed"))
    call, got = found.args[0], found.got
    if found.error:
        return report(False, t("check.08.order_policy.raised", case=_shown(call), error=found.error))
    if got is not None and not isinstance(got, Decision):
        return report(False, t("check.08.order_policy.not_a_decision", case=_shown(call), value=described(got)))
    if found.want == "approve":
        return report(False, t("check.08.order_policy.small_not_approved", case=_shown(call), got=_verdict(got)))
    if found.want == "reject":
        if got is not None and got.action == "reject":
            return report(False, t("check.08.order_policy.no_reason", case=_shown(call)))
        return report(False, t("check.08.order_policy.large_not_rejected", case=_shown(call), got=_verdict(got)))
    if got is not None and got.action == "reject":
        return report(False, t("check.08.order_policy.odd_no_reason", case=_shown(call)))
    return report(False, t("check.08.order_policy.odd_approved", case=_shown(call), got=_verdict(got),
                           hint=t(next((key for c, key in odd_hints if c is call), None) or _odd_hint(_quantity(call)))))
