"""Checkers for notebook 10 (evaluation).

Each checker runs the student's function beside a reference on the edge cases the exercise
names and on inputs made by ``hypothesis`` (``checkers.first_difference``: fixed seed, a small
budget), so an answer right only for a few fixed samples fails:

* ``check_in_order`` is exercise 10-1: the ``in_order`` trajectory match (ADK's IN_ORDER);
  reference ``solutions/10_evaluation.py`` (what ``evaluation.trajectory_match(..., "in_order")`` does), on name lists
  drawn from three tool names (repeats are likely).
* ``check_new_case_check`` is exercise 10-2: a code check for 「买 2 个足球和 3 个篮球一共多少钱？」
  whose key the student computes from the prices given; reference ``solutions/10_evaluation.py`` (``has_number``
  with the total rounded to the cent).  Tried with the shop's prices and with prices in
  cents whose float sums are not exact (2 × 59.9 + 3 × 129.9 is ``509.50000000000006``), on
  answers written as models write them (``509.5``, ``509.50``, ``1,009.50``, with or
  without 元) and on near misses (a digit more, a cent off, the quantities swapped).
* ``check_kappa`` is exercise 10-3: Cohen's kappa; reference ``solutions/10_evaluation.py`` (``evaluation.agreement`` agrees),
  compared within 1e-9 (a rounded kappa fails), on verdict lists of 1 to 30 runs; where both
  sides give one and the same verdict to every run (p_e = 1) kappa is undefined and the answer
  is None (1.0 there would say that a judge that decides nothing agrees perfectly).

Every input is copied for each call (``first_difference`` deep-copies), so an answer that
changes its input changes no verdict.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from ..eval_set import products as shop_products
from ..evaluation import agreement
from . import CheckResult, described, exercise, first_difference, report, t
from .reference import solution

Q, C, W, O = "query_by_product_name", "calculate", "get_weather", "place_order"
# (actual, expected): the edge cases the exercise names (order, names in between, a name
# expected twice, an empty expected), tried before the generated pairs.
TRAJECTORY_PAIRS = [
    ([Q, C], [Q, C]), ([C, Q], [Q, C]), ([Q, W, C], [Q, C]), ([Q], [Q, C]), ([Q, Q, C], [Q, C]),
    ([Q, C], [Q, Q, C]), ([Q, C, Q, C], [Q, Q, C]), ([W], []), ([], []), ([], [Q]), ([O, Q], [Q, O]),
]
# Verdict lists (judge, code) for 10-3, tried first; the last two give p_e = 1 (kappa undefined: None).
KAPPA_CASES = [
    ([True, True, False, False], [True, True, False, False]),
    ([True, False, True, False], [True, True, False, False]),
    ([True] * 15 + [True] * 5, [True] * 15 + [False] * 5),   # a judge that always passes: kappa 0
    ([True, True, True, False, False, True], [True, False, True, False, True, True]),
    ([False, True, False, False], [True, False, True, True]),
    ([True] * 3, [False] * 3),   # each side one verdict, not the same one: p_e = 0, kappa 0 (defined)
    ([True, True, True], [True, True, True]),
    ([False, False], [False, False]),
]


def _in_order_reference(actual: list[str], expected: list[str]) -> bool:
    """``solutions/10_evaluation.py``'s ``in_order`` (the library's ``trajectory_match(..., "in_order")`` agrees: tested)."""
    return solution("10-1", "in_order")(actual, expected)


def _same_verdict(got: Any, want: bool) -> bool:
    """True/False as asked (1 and 0 count too); anything else is a difference."""
    return isinstance(got, (bool, int)) and got == want


def _names() -> Any:
    return st.lists(st.sampled_from([Q, C, W]), max_size=6)


@exercise("10-1")
def check_in_order(in_order: object) -> CheckResult:
    """Exercise 10-1: ``in_order(actual, expected) -> bool`` (lists of tool names) agrees with
    ``trajectory_match(..., "in_order")`` on ``TRAJECTORY_PAIRS`` and on generated pairs."""
    if not callable(in_order):
        return report(False, t("check.10.not_callable", name="in_order"))
    found = first_difference(in_order, _in_order_reference, inputs=st.tuples(_names(), _names()),
                             examples=TRAJECTORY_PAIRS, same=_same_verdict)
    if found is None:
        return report(True, t("check.10.in_order_passed", n=len(TRAJECTORY_PAIRS)))
    actual, expected = found.args
    if found.error:
        return report(False, t("check.10.error", call=found.call("in_order"), error=found.error))
    return report(False, t("check.10.in_order_wrong", actual=actual, expected=expected, got=described(found.got),
                           want=found.want))


# ---------------------------------------------------------------------------------------- 10-2

# Prices (football, basketball) tried before the generated ones: made-up whole prices (a total
# written into the code fails), prices whose float sums are not exact, and prices in cents.
CASE_PRICES = [(88.0, 150.0), (59.9, 129.9), (0.1, 0.2), (19.99, 0.05), (12.5, 40.0)]


def _total(products: dict) -> Decimal:
    """2 footballs + 3 basketballs, exact (the prices are given to the cent)."""
    return 2 * Decimal(str(products["足球"])) + 3 * Decimal(str(products["篮球"]))


def _plain(number: Decimal) -> str:
    return format(number.normalize(), "f")


def _case_reference(answer: str, products: dict) -> bool:
    """The exercise's check: ``solutions/10_evaluation.py``'s ``check_football_basketball``."""
    return solution("10-2", "check_football_basketball")(answer, products)


def _candidate_answers(products: dict) -> list[str]:
    """Answers to the question as a model might write them: the right total in several forms and
    near misses.  Which are right is not written here: the reference decides."""
    total = _total(products)
    swapped = 3 * Decimal(str(products["足球"])) + 2 * Decimal(str(products["篮球"]))
    return [f"一共 {_plain(total)} 元。",
            f"2 个足球和 3 个篮球一共{total:.2f}元",
            f"总价：{_plain(total)}",
            f"合计 {total:,.2f} 元",
            f"一共 {_plain(total)}1 元。",  # a longer number is not the total
            f"一共 {_plain(total + 10)} 元。",
            f"一共 {_plain(total - Decimal('0.01'))} 元。",
            f"一共 {_plain(swapped)} 元。",
            f"足球 {_plain(2 * Decimal(str(products['足球'])))} 元。",
            "我不知道。"]


def _products(football: float, basketball: float) -> dict[str, float]:
    """The shop's price table (``{name: price}``) with these two prices."""
    shop = {name: row["price"] for name, row in shop_products().items()}
    return {**shop, "足球": football, "篮球": basketball}


def _case_inputs() -> Any:
    cents = st.integers(min_value=1, max_value=300_000).map(lambda c: c / 100)
    whole = st.integers(min_value=1, max_value=3000).map(float)
    price = st.one_of(cents, whole)
    return st.tuples(price, price).map(lambda p: _products(*p)).flatmap(
        lambda products: st.tuples(st.sampled_from(_candidate_answers(products)), st.just(products)))


@exercise("10-2")
def check_new_case_check(check: object) -> CheckResult:
    """Exercise 10-2: ``check(answer, products) -> bool`` for 「买 2 个足球和 3 个篮球一共多少钱？」
    (``products``: ``{name: price}``): True exactly when ``answer`` has the total, computed from
    ``products`` to the cent, as a whole number (``has_number``).

    Tried with the shop's prices, ``CASE_PRICES`` and generated prices, each on the answers of
    ``_candidate_answers``; the reference (``_case_reference``) says which are right.
    """
    if not callable(check):
        return report(False, t("check.10.not_callable", name="check_football_basketball"))
    tables = [{name: row["price"] for name, row in shop_products().items()}] + [_products(*p) for p in CASE_PRICES]
    examples = [(answer, products) for products in tables for answer in _candidate_answers(products)]
    found = first_difference(check, _case_reference, inputs=_case_inputs(), examples=examples, same=_same_verdict)
    if found is None:
        return report(True, t("check.10.case_passed"))
    answer, products = found.args
    if found.error:
        return report(False, t("check.10.error", call=f"check_football_basketball({answer!r}, products)",
                               error=found.error))
    football, basketball = products["足球"], products["篮球"]
    naive = str(2 * football + 3 * basketball)
    exact = _plain(_total(products))
    float_hint = t("check.10.case_float", football=football, basketball=basketball, naive=naive, total=exact) \
        if found.want and Decimal(naive) != Decimal(exact) else ""
    return report(False, t("check.10.case_wrong", answer=answer, football=football, basketball=basketball,
                           got=described(found.got), want=found.want, hint=float_hint))


# ---------------------------------------------------------------------------------------- 10-3

def _kappa_reference(judge: list[bool], code: list[bool]) -> float | None:
    """``solutions/10_evaluation.py``'s ``kappa``."""
    return solution("10-3", "kappa")(judge, code)


def _same_kappa(got: Any, want: float | None) -> bool:
    """None where kappa is undefined (``want`` None: p_e = 1); elsewhere a real number (not a bool,
    not a string) within 1e-9 of the reference."""
    if want is None:
        return got is None
    return isinstance(got, numbers.Real) and not isinstance(got, bool) and math.isclose(float(got), want,
                                                                                       rel_tol=0, abs_tol=1e-9)


def _verdict_pairs() -> Any:
    return st.integers(min_value=1, max_value=30).flatmap(
        lambda n: st.tuples(st.lists(st.booleans(), min_size=n, max_size=n),
                            st.lists(st.booleans(), min_size=n, max_size=n)))


@exercise("10-3")
def check_kappa(kappa: object) -> CheckResult:
    """Exercise 10-3: ``kappa(judge, code) -> float | None`` (two equally long lists of bools): Cohen's
    kappa, None where it is undefined (p_e = 1: both sides give one and the same verdict to every run);
    compared with ``evaluation.agreement`` within 1e-9 on ``KAPPA_CASES`` and on generated verdict lists."""
    if not callable(kappa):
        return report(False, t("check.10.not_callable", name="kappa"))
    found = first_difference(kappa, _kappa_reference, inputs=_verdict_pairs(), examples=KAPPA_CASES,
                             same=_same_kappa)
    if found is None:
        return report(True, t("check.10.kappa_passed", n=len(KAPPA_CASES)))
    judge, code = found.args
    if found.error:
        return report(False, t("check.10.error", call=f"kappa({judge}, {code})", error=found.error))
    got = found.got
    number = isinstance(got, numbers.Real) and not isinstance(got, bool)
    if found.want is None:
        return report(False, t("check.10.kappa_wrong", judge=judge, code=code, got=described(got), want="None",
                               hint=t("check.10.kappa_undefined")))
    chance = number and math.isclose(float(got), agreement(judge, code)["agreement"], abs_tol=1e-9)
    hint = t("check.10.kappa_chance") if chance else t("check.10.kappa_defined") if got is None else ""
    return report(False, t("check.10.kappa_wrong", judge=judge, code=code, got=described(got),
                           want=round(found.want, 4), hint=hint))
