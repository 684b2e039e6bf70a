"""The checker of notebook 08 (course_lib.checkers.nb08) on the solution and on plausible wrong answers."""

from __future__ import annotations

import json

import pytest

from course_lib.approval import approve, by_argument, edit, reject
from course_lib.checkers import nb08
from course_lib.texts import t
from notebook_cells import load_solution


def _solution():
    return load_solution("08_human_approval", "08-1")["order_policy"]


def _quantity(call):
    return (call.arguments or {}).get("quantity")


def _hint_start(key: str) -> str:
    """The fixed words of a hint after its first placeholder (enough to tell the hints apart)."""
    return t(key, case="", got="", value="", error="", hint="").split("。")[0].strip("：")


def test_the_reference_solution_passes(capsys):
    assert nb08.check_order_policy(_solution()).passed is True
    assert "✅" in capsys.readouterr().out


def test_the_librarys_by_argument_with_a_reject_passes():
    assert nb08.check_order_policy(by_argument("quantity", 3, over=lambda c: reject("每单最多 3 件"))).passed is True
    # Without ``over`` it asks a person about large orders instead of rejecting them: not the exercise.
    assert nb08.check_order_policy(by_argument("quantity", 3)).passed is False


def test_a_policy_that_asks_a_person_about_odd_quantities_passes():
    def policy(call):
        q = _quantity(call)
        if isinstance(q, bool) or not isinstance(q, int) or q < 1:
            return None  # a person decides
        return approve() if q <= 3 else reject("每单最多 3 件")

    assert nb08.check_order_policy(policy).passed is True


def _approves_everything(call):
    return approve()


def _rejects_everything(call):
    return reject("不行")


def _never_decides(call):  # the untouched exercise
    return None


def _approves_what_it_does_not_know(call):  # checks ints well, then lets the rest through
    q = _quantity(call)
    if isinstance(q, int) and not isinstance(q, bool):
        if q < 1:
            return reject("数量不对")
        return approve() if q <= 3 else reject("太多")
    return approve()


def _missing_means_one(call):
    q = (call.arguments or {}).get("quantity", 1)
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        return reject("数量不对")
    return approve() if q <= 3 else reject("太多")


def _plain_isinstance_int(call):  # True is an int
    q = _quantity(call)
    if not isinstance(q, int) or q < 1:
        return reject("数量不对")
    return approve() if q <= 3 else reject("太多")


def _numbers_only(call):  # allows float
    q = _quantity(call)
    if isinstance(q, bool) or not isinstance(q, (int, float)) or q < 1:
        return reject("数量不对")
    return approve() if q <= 3 else reject("太多")


def _no_positive_check(call):
    q = _quantity(call)
    if isinstance(q, bool) or not isinstance(q, int):
        return reject("数量不对")
    return approve() if q <= 3 else reject("太多")


def _reject_without_reason(call):
    q = _quantity(call)
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        return None
    return approve() if q <= 3 else reject()


def _caps_instead_of_rejecting(call):
    q = _quantity(call)
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        return None
    return approve() if q <= 3 else edit({**call.arguments, "quantity": 3})


def _rejects_small_orders(call):
    q = _quantity(call)
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        return None
    return approve() if q < 3 else reject("太多")  # off by one


def _returns_strings(call):
    return "approve" if _quantity(call) == 1 else "reject"


def _returns_bool(call):
    return True


def _compares_without_looking(call):
    return approve() if call.arguments["quantity"] <= 3 else reject("太多")


def _crashes_on_missing(call):
    q = call.arguments["quantity"]
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        return reject("数量不对")
    return approve() if q <= 3 else reject("太多")


def _crashes_on_none(call):
    q = call.arguments.get("quantity")
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        return reject("数量不对")
    return approve() if q <= 3 else reject("太多")


@pytest.mark.parametrize("policy, key, words", [
    (_approves_everything, "check.08.order_policy.large_not_rejected", '"quantity": 4'),
    (_rejects_everything, "check.08.order_policy.small_not_approved", '"quantity": 1'),
    (_never_decides, "check.08.order_policy.small_not_approved", "None"),
    (_approves_what_it_does_not_know, "check.08.order_policy.odd_approved", t("check.08.order_policy.hint_text")),
    (_missing_means_one, "check.08.order_policy.odd_approved", t("check.08.order_policy.hint_missing")),
    (_plain_isinstance_int, "check.08.order_policy.odd_approved", t("check.08.order_policy.hint_bool")),
    (_numbers_only, "check.08.order_policy.odd_approved", t("check.08.order_policy.hint_float")),
    (_no_positive_check, "check.08.order_policy.odd_approved", t("check.08.order_policy.hint_not_positive")),
    (_reject_without_reason, "check.08.order_policy.no_reason", '"quantity": 4'),
    (_caps_instead_of_rejecting, "check.08.order_policy.large_not_rejected", "edit("),
    (_rejects_small_orders, "check.08.order_policy.small_not_approved", '"quantity": 3'),
    (_returns_strings, "check.08.order_policy.not_a_decision", "'approve'"),
    (_returns_bool, "check.08.order_policy.not_a_decision", "True"),
    (_compares_without_looking, "check.08.order_policy.raised", "TypeError"),
    (_crashes_on_missing, "check.08.order_policy.raised", "KeyError"),
    (_crashes_on_none, "check.08.order_policy.raised", "AttributeError"),
    ("order_policy", "check.08.order_policy.not_callable", "def order_policy"),
])
def test_wrong_policies_fail_with_the_right_hint(policy, key, words, capsys):
    result = nb08.check_order_policy(policy)
    out = capsys.readouterr().out
    assert result.passed is False and "❌" in out
    assert _hint_start(key) in result.message, (key, result.message)
    assert words in result.message, result.message


def test_the_checker_never_changes_what_it_checks_with():
    seen = []

    def policy(call):
        seen.append((call.name, call.arguments))
        return _solution()(call)

    assert nb08.check_order_policy(policy).passed is True
    assert {name for name, _ in seen} == {"place_order"}
    assert {"product_id": "001", "quantity": "100"} in [a for _, a in seen]
    assert None in [a for _, a in seen] and {"product_id": "001"} in [a for _, a in seen]


# ---- issue 29: wrong answers that used to pass -------------------------------------------------


def approves_digit_strings(call):
    """Reads the quantity with int(): "3", " 2" and full-width "２" all become numbers and pass."""
    q = _quantity(call)
    if isinstance(q, str) and q.strip().isdigit():
        q = int(q)
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        return reject("数量不对")
    return approve() if q <= 3 else reject("每单最多 3 件")


def approves_whole_floats(call):
    """Checks the value, not the type: 2.0 == int(2.0), so 2.0 and 3.0 pass."""
    q = _quantity(call)
    if isinstance(q, float) and q == int(q):
        q = int(q)
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        return reject("数量不对")
    return approve() if q <= 3 else reject("每单最多 3 件")


def casts_everything_but_bool(call):
    """int() on any str or float it can read (2.5 is rejected as not whole)."""
    q = _quantity(call)
    if isinstance(q, bool) or q is None:
        return None
    try:
        n = int(q)
    except (TypeError, ValueError):
        return reject("数量不对")
    if n != q and not isinstance(q, str):
        return reject("数量不对")
    if n < 1:
        return reject("数量至少 1 件")
    return approve() if n <= 3 else reject("每单最多 3 件")


@pytest.mark.parametrize("policy, hint, words", [
    (approves_digit_strings, "check.08.order_policy.hint_text_digits", '"quantity": "3"'),
    (approves_whole_floats, "check.08.order_policy.hint_whole_float", '"quantity": 2.0'),
    (casts_everything_but_bool, "check.08.order_policy.hint_text_digits", '"quantity": "3"'),
])
def test_numbers_in_disguise_are_not_approved(policy, hint, words, capsys):
    result = nb08.check_order_policy(policy)
    assert result.passed is False and "❌" in capsys.readouterr().out
    assert _hint_start("check.08.order_policy.odd_approved") in result.message, result.message
    assert t(hint) in result.message and words in result.message, result.message


def _approves_also(value):
    """The reference solution, except that it approves exactly ``value`` (same type, same value)."""
    def policy(call):
        q = _quantity(call)
        if "quantity" in (call.arguments or {}) and type(q) is type(value) and q == value:
            return approve()
        return _solution()(call)
    return policy


@pytest.mark.parametrize("value, key", [
    ("3", "check.08.order_policy.odd_approved"),
    (" 2", "check.08.order_policy.odd_approved"),
    ("\uff12", "check.08.order_policy.odd_approved"),  # full-width 2
    (2.0, "check.08.order_policy.odd_approved"),
    (3.0, "check.08.order_policy.odd_approved"),
    (4.0, "check.08.order_policy.odd_approved"),
    (None, "check.08.order_policy.odd_approved"),  # "quantity": null
    (10**12, "check.08.order_policy.large_not_rejected"),  # a large int is rejected, with a reason
])
def test_each_new_case_is_checked_on_its_own(value, key):
    result = nb08.check_order_policy(_approves_also(value))
    assert result.passed is False
    assert _hint_start(key) in result.message, result.message
    assert json.dumps(value, ensure_ascii=False) in result.message, result.message


def test_a_policy_that_changes_the_call_changes_nothing_the_next_check_sees():
    def arguments_seen():
        seen = []

        def policy(call):
            seen.append(None if call.arguments is None else dict(call.arguments))
            return _solution()(call)

        assert nb08.check_order_policy(policy).passed is True
        return seen

    def rewrites_the_call(call):  # "fixes" every quantity to 1 in place, then approves
        if call.arguments is not None:
            call.arguments["quantity"] = 1
        call.arguments_text = "{}"
        return approve()

    before = arguments_seen()
    assert nb08.check_order_policy(rewrites_the_call).passed is False
    assert arguments_seen() == before
    assert nb08.check_order_policy(approves_digit_strings).passed is False


# ---- issue 42: generated calls beside what the exercise asks; every right style; odd returns ----


def hard_coded_samples(call):
    """Rejects exactly the large quantities the old checker tried, approves every other positive int."""
    q = _quantity(call)
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        return reject("数量不对")
    if q in (4, 20, 100, 10**12):
        return reject("每单最多 3 件")
    return approve()


def under_a_thousand(call):
    """Rejects large orders only up to 1000 pieces; more is approved."""
    q = _quantity(call)
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        return None
    if 3 < q < 1000 or q == 10**12:
        return reject("每单最多 3 件")
    return approve()


def approves_minus_two(call):
    """Checks 0 and -1 by name instead of "< 1"."""
    q = _quantity(call)
    if isinstance(q, bool) or not isinstance(q, int) or q in (0, -1):
        return reject("数量不对")
    return approve() if q <= 3 else reject("每单最多 3 件")


def approves_small_lists(call):
    """len() of anything that has one."""
    q = _quantity(call)
    n = len(q) if isinstance(q, list) else q
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        return None
    return approve() if n <= 3 else reject("太多")


def reason_only_for_some(call):
    q = _quantity(call)
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        return None
    if q <= 3:
        return approve()
    return reject("每单最多 3 件" if q in (4, 20, 100, 10**12) else "")


def approves_when_another_argument_is_there(call):
    args = call.arguments or {}
    if "note" in args:
        return approve()
    return _solution()(call)


class _BadRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


def _generator(call):
    yield approve()


@pytest.mark.parametrize("policy", [hard_coded_samples, under_a_thousand, approves_minus_two, approves_small_lists,
                                    reason_only_for_some, approves_when_another_argument_is_there])
def test_wrong_policies_that_only_generated_calls_catch(policy, capsys):
    result = nb08.check_order_policy(policy)
    out = capsys.readouterr().out
    assert result.passed is False and "❌" in out, (policy.__name__, result.message)
    assert "place_order(" in result.message


@pytest.mark.parametrize("odd", [lambda c: _BadRepr(), _generator, lambda c: 2, lambda c: "approve()"])
def test_odd_returns_fail_without_raising(odd, capsys):
    result = nb08.check_order_policy(odd)
    out = capsys.readouterr().out
    assert result.passed is False and "❌" in out and "Traceback" not in out
    assert result.hint == "check.08.order_policy.not_a_decision", result.message


def by_type_first(call):
    args = call.arguments
    if not isinstance(args, dict):
        return reject("读不出参数")
    q = args.get("quantity")
    if type(q) is not int:
        return None
    if q > 3:
        return reject(f"一次最多 3 件，这一单是 {q} 件")
    return approve() if q >= 1 else reject("至少 1 件")


def with_match(call):
    match (call.arguments or {}).get("quantity"):
        case bool():
            return reject("不是数量")
        case int(q) if 1 <= q <= 3:
            return approve()
        case int(q) if q > 3:
            return reject("每单最多 3 件")
        case _:
            return None


@pytest.mark.parametrize("policy", [by_type_first, with_match])
def test_right_styles_pass(policy):
    assert nb08.check_order_policy(policy).passed is True


def test_odd_quantity_rejected_without_a_reason_fails():
    """08-1: "返回 reject(原因) 或 None": a rejection of an odd quantity with an empty reason fails."""
    from course_lib.approval import approve, reject

    def policy(call):
        q = (call.arguments or {}).get("quantity")
        if isinstance(q, bool) or not isinstance(q, int) or q < 1:
            return reject()
        return approve() if q <= 3 else reject(f"每单最多 3 件，这一单要 {q} 件")

    result = nb08.check_order_policy(policy)
    assert result.passed is False and result.hint == "check.08.order_policy.odd_no_reason"
