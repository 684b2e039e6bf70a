"""Checkers for notebook 10 (evaluation).

* ``check_in_order`` is exercise 10-1: the ``in_order`` trajectory match (ADK's IN_ORDER),
  compared with ``evaluation.trajectory_match`` on fixed pairs of name lists.
* ``check_new_case_check`` is exercise 10-2: a code check for a new question whose key
  the student computes from the prices given - tried with the shop's prices and with
  made-up ones, so a total written into the code fails.
* ``check_kappa`` is exercise 10-3: Cohen's kappa, compared with ``evaluation.agreement``.

Every sample is built anew for each call (lists copied), so an answer that changes
its input changes no verdict.
"""

from __future__ import annotations

import math
from decimal import Decimal

from ..eval_set import products as shop_products
from ..evaluation import agreement, trajectory_match
from . import CheckResult, exercise, report, safely, t

Q, C, W, O = "query_by_product_name", "calculate", "get_weather", "place_order"
# (actual, expected): trajectory pairs; the right answer is trajectory_match(..., "in_order").
TRAJECTORY_PAIRS = [
    ([Q, C], [Q, C]), ([C, Q], [Q, C]), ([Q, W, C], [Q, C]), ([Q], [Q, C]), ([Q, Q, C], [Q, C]),
    ([Q, C], [Q, Q, C]), ([Q, C, Q, C], [Q, Q, C]), ([W], []), ([], []), ([], [Q]), ([O, Q], [Q, O]),
]
# Verdict lists (judge, code) for 10-3; the last two give p_e = 1.
KAPPA_CASES = [
    ([True, True, False, False], [True, True, False, False]),
    ([True, False, True, False], [True, True, False, False]),
    ([True] * 15 + [True] * 5, [True] * 15 + [False] * 5),   # a judge that always passes: kappa 0
    ([True, True, True, False, False, True], [True, False, True, False, True, True]),
    ([False, True, False, False], [True, False, True, True]),
    ([True, True, True], [True, True, True]),
    ([False, False], [False, False]),
]


@exercise("10-1")
def check_in_order(in_order: object) -> CheckResult:
    """Exercise 10-1: ``in_order(actual, expected) -> bool`` on ``TRAJECTORY_PAIRS``."""
    if not callable(in_order):
        return report(False, t("check.10.not_callable", name="in_order"))
    for actual, expected in TRAJECTORY_PAIRS:
        got, error = safely(in_order, list(actual), list(expected))
        if error:
            return report(False, t("check.10.error", call=f"in_order({actual}, {expected})", error=error))
        want = trajectory_match(actual, expected, "in_order")
        if got is not want and got != want:
            return report(False, t("check.10.in_order_wrong", actual=actual, expected=expected, got=got, want=want))
    return report(True, t("check.10.in_order_passed", n=len(TRAJECTORY_PAIRS)))


def _answers(prices: dict[str, float]) -> list[tuple[str, bool]]:
    """(answer, right verdict) for one set of prices: 2 footballs + 3 basketballs."""
    total = 2 * Decimal(str(prices["足球"])) + 3 * Decimal(str(prices["篮球"]))
    text = format(total.normalize(), "f")
    return [(f"一共 {text} 元。", True),
            (f"2 个足球和 3 个篮球一共{text}元。", True),
            (f"一共 {text}0 元。", False),  # a longer number is not the total
            (f"一共 {format((total + 10).normalize(), 'f')} 元。", False),
            ("我不知道。", False)]


@exercise("10-2")
def check_new_case_check(check: object) -> CheckResult:
    """Exercise 10-2: ``check(answer, products) -> bool`` for 「买 2 个足球和 3 个篮球一共多少钱？」.

    Tried with the shop's prices (data/products.csv) and with two made-up price lists:
    right totals pass; a wrong total, a longer number and no number fail.
    """
    if not callable(check):
        return report(False, t("check.10.not_callable", name="check_football_basketball"))
    shop = {name: row["price"] for name, row in shop_products().items()}
    for prices in (shop, {**shop, "足球": 88.0, "篮球": 150.0}, {**shop, "足球": 12.5, "篮球": 40.0}):
        for answer, want in _answers(prices):
            got, error = safely(check, answer, dict(prices))
            if error:
                return report(False, t("check.10.error", call=f"check_football_basketball({answer!r}, products)",
                                       error=error))
            if bool(got) != want:
                return report(False, t("check.10.case_wrong", answer=answer, football=prices["足球"],
                                       basketball=prices["篮球"], got=got, want=want))
    return report(True, t("check.10.case_passed"))


@exercise("10-3")
def check_kappa(kappa: object) -> CheckResult:
    """Exercise 10-3: ``kappa(judge, code) -> float``, Cohen's kappa, on ``KAPPA_CASES`` (within 1e-6)."""
    if not callable(kappa):
        return report(False, t("check.10.not_callable", name="kappa"))
    for judge, code in KAPPA_CASES:
        got, error = safely(kappa, list(judge), list(code))
        if error:
            return report(False, t("check.10.error", call=f"kappa({judge}, {code})", error=error))
        found = agreement(judge, code)
        want = found["kappa"]
        number = isinstance(got, (int, float)) and not isinstance(got, bool)
        if not number or not math.isclose(got, want, abs_tol=1e-6):
            chance = number and math.isclose(got, found["agreement"], abs_tol=1e-6)
            hint = t("check.10.kappa_chance") if chance else ""
            return report(False, t("check.10.kappa_wrong", judge=judge, code=code, got=got, want=round(want, 4),
                                   hint=hint))
    return report(True, t("check.10.kappa_passed", n=len(KAPPA_CASES)))
