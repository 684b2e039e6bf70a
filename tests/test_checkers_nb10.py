"""The checkers of notebook 10 (course_lib.checkers.nb10) on right answers in every style and on
plausible wrong answers (issue 42): each wrong one fails, each right one passes, odd returns fail
with one line and never raise."""

from __future__ import annotations

import math
from collections import Counter
from decimal import Decimal
from fractions import Fraction

import nbformat
import pytest

from fakes import BadRepr, checker_fails, yields_true
from course_lib.checkers import nb10
from course_lib.evaluation import trajectory_match
from course_lib.number_check import has_number, read_numbers
from course_lib.texts import t
from notebook_cells import ROOT, load_solution


def _solution(key, name):
    return load_solution("10_evaluation", key)[name]


_generator = yields_true


ODD_RETURNS = {
    "none": lambda *a: None,
    "number": lambda *a: 2,
    "bad_repr": lambda *a: BadRepr(),
    "generator": _generator,
    "string": lambda *a: "True",
}


# ---------------------------------------------------------------------------------------- 10-1


def in_order_iterator(actual, expected):
    it = iter(actual)
    return all(name in it for name in expected)


def in_order_recursive(actual, expected):
    if not expected:
        return True
    if not actual:
        return False
    if actual[0] == expected[0]:
        return in_order_recursive(actual[1:], expected[1:])
    return in_order_recursive(actual[1:], expected)


def in_order_two_pointers(actual, expected):
    i = 0
    for name in tuple(actual):
        if i < len(expected) and name == expected[i]:
            i += 1
    return i == len(expected)


RIGHT_IN_ORDER = [in_order_iterator, in_order_recursive, in_order_two_pointers,
                  lambda a, e: trajectory_match(a, e, "in_order")]


def untouched_in_order(actual, expected):
    return all(name in actual for name in expected)


def reuses_a_call(actual, expected):  # does not move past the name it found
    position = 0
    for name in expected:
        while position < len(actual) and actual[position] != name:
            position += 1
        if position == len(actual):
            return False
    return True


def by_index(actual, expected):  # first index of each name: wrong for repeated names
    try:
        positions = [actual.index(name) for name in expected]
    except ValueError:
        return False
    return positions == sorted(positions)


def empty_is_false(actual, expected):
    return bool(expected) and in_order_iterator(actual, expected)


def exact(actual, expected):
    return list(actual) == list(expected)


def contiguous(actual, expected):
    n = len(expected)
    return any(list(actual[i:i + n]) == list(expected) for i in range(len(actual) - n + 1))


def swapped_arguments(actual, expected):
    return in_order_iterator(expected, actual)


def any_order(actual, expected):
    have = Counter(actual)
    return all(have[name] >= k for name, k in Counter(expected).items())


def prefix(actual, expected):
    return list(actual[:len(expected)]) == list(expected)


def off_by_one(actual, expected):  # "<=" for "<": runs past the end
    position = 0
    for name in expected:
        while position <= len(actual) and actual[position] != name:
            position += 1
        position += 1
    return True


def no_extra_calls(actual, expected):  # in order, but nothing in between allowed at the end
    return in_order_iterator(actual, expected) and len(actual) <= len(expected) + 1


WRONG_IN_ORDER = [untouched_in_order, reuses_a_call, by_index, empty_is_false, exact, contiguous,
                  swapped_arguments, any_order, prefix, off_by_one, no_extra_calls,
                  lambda a, e: actual_returned(a)]


def actual_returned(actual):
    return actual


@pytest.mark.parametrize("right", [_solution("10-1", "in_order")] + RIGHT_IN_ORDER)
def test_in_order_right_styles_pass(right):
    assert nb10.check_in_order(right).passed is True


@pytest.mark.parametrize("wrong", WRONG_IN_ORDER, ids=lambda f: f.__name__)
def test_in_order_wrong_answers_fail(wrong, capsys):
    checker_fails(nb10.check_in_order, wrong, capsys)


@pytest.mark.parametrize("odd", sorted(ODD_RETURNS))
def test_in_order_odd_returns_fail_without_raising(odd, capsys):
    checker_fails(nb10.check_in_order, ODD_RETURNS[odd], capsys)


def test_in_order_hint_names_a_short_case(capsys):
    result = checker_fails(nb10.check_in_order, reuses_a_call, capsys, "check.10.in_order_wrong")
    assert "actual=" in result.message and "expected=" in result.message


# ---------------------------------------------------------------------------------------- 10-2


def _right_round(answer, products):
    return has_number(answer, str(round(2 * products["足球"] + 3 * products["篮球"], 2)))


def _right_decimal(answer, products):
    total = 2 * Decimal(str(products["足球"])) + 3 * Decimal(str(products["篮球"]))
    return has_number(answer, str(total))


def _right_two_places(answer, products):
    return has_number(answer, f"{2 * products['足球'] + 3 * products['篮球']:.2f}")


def _right_own_reading(answer, products):
    total = 2 * products["足球"] + 3 * products["篮球"]
    return any(float(n) == round(total, 2) for n in read_numbers(answer))


RIGHT_CASE_CHECKS = [_right_round, _right_decimal, _right_two_places, _right_own_reading]


def hard_coded(answer, products):
    return has_number(answer, "600")


def float_sum(answer, products):  # the old recipe: 59.9 * 2 + 129.9 * 3 is 509.50000000000006
    return has_number(answer, str(2 * products["足球"] + 3 * products["篮球"]))


def whole_yuan(answer, products):  # str(int(x)): right only while every total is whole
    return has_number(answer, str(int(2 * products["足球"] + 3 * products["篮球"])))


def rounded_to_yuan(answer, products):
    return has_number(answer, str(round(2 * products["足球"] + 3 * products["篮球"])))


def rounded_to_dimes(answer, products):
    return has_number(answer, str(round(2 * products["足球"] + 3 * products["篮球"], 1)))


def swapped_quantities(answer, products):
    return has_number(answer, str(round(3 * products["足球"] + 2 * products["篮球"], 2)))


def substring(answer, products):
    return str(round(2 * products["足球"] + 3 * products["篮球"], 2)) in answer


def football_only(answer, products):
    return has_number(answer, str(round(2 * products["足球"], 2)))


def wants_yuan(answer, products):  # asks for more than the exercise: the number followed by 元
    total = round(2 * products["足球"] + 3 * products["篮球"], 2)
    return _right_round(answer, products) and "元" in answer


def any_number(answer, products):
    return bool(read_numbers(answer))


def string_concatenation(answer, products):
    return has_number(answer, str(products["足球"]) * 2 + str(products["篮球"]) * 3)


def negated(answer, products):
    return not _right_round(answer, products)


WRONG_CASE_CHECKS = [hard_coded, float_sum, whole_yuan, rounded_to_yuan, rounded_to_dimes, swapped_quantities,
                     substring, football_only, wants_yuan, any_number, string_concatenation, negated]


def test_the_float_trap_is_real():
    assert str(2 * 59.9 + 3 * 129.9) == "509.50000000000006"
    assert float_sum("一共 509.5 元", {"足球": 59.9, "篮球": 129.9}) is False
    assert _solution("10-2", "check_football_basketball")("一共 509.5 元", {"足球": 59.9, "篮球": 129.9}) is True


@pytest.mark.parametrize("right", [_solution("10-2", "check_football_basketball")] + RIGHT_CASE_CHECKS)
def test_case_check_right_styles_pass(right):
    assert nb10.check_new_case_check(right).passed is True


@pytest.mark.parametrize("wrong", WRONG_CASE_CHECKS, ids=lambda f: f.__name__)
def test_case_check_wrong_answers_fail(wrong, capsys):
    checker_fails(nb10.check_new_case_check, wrong, capsys)


def test_the_float_sum_gets_the_rounding_hint(capsys):
    result = checker_fails(nb10.check_new_case_check, float_sum, capsys, "check.10.case_wrong")
    assert "round" in result.message, result.message


@pytest.mark.parametrize("odd", sorted(ODD_RETURNS))
def test_case_check_odd_returns_fail_without_raising(odd, capsys):
    checker_fails(nb10.check_new_case_check, ODD_RETURNS[odd], capsys)


# ---------------------------------------------------------------------------------------- 10-3


def _kappa_counts(judge, code):
    n = len(judge)
    both = Counter(zip(judge, code))
    p_o = (both[(True, True)] + both[(False, False)]) / n
    p_j, p_c = judge.count(True) / n, code.count(True) / n
    p_e = p_j * p_c + (1 - p_j) * (1 - p_c)
    return None if p_e == 1 else (p_o - p_e) / (1 - p_e)


def _kappa_fraction(judge, code):
    n = len(judge)
    p_o = Fraction(sum(j == c for j, c in zip(judge, code)), n)
    p_j, p_c = Fraction(sum(judge), n), Fraction(sum(code), n)
    p_e = p_j * p_c + (1 - p_j) * (1 - p_c)
    return None if p_e == 1 else (p_o - p_e) / (1 - p_e)


def _kappa_numpy(judge, code):
    import numpy as np
    j, c = np.array(judge, dtype=float), np.array(code, dtype=float)
    p_o = np.mean(j == c)
    p_e = j.mean() * c.mean() + (1 - j.mean()) * (1 - c.mean())
    return None if p_e == 1 else (p_o - p_e) / (1 - p_e)


def _kappa_undefined_by_sets(judge, code):  # undefined exactly when both sides give one and the same verdict
    if len(set(judge) | set(code)) == 1:
        return None
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    p_j, p_c = sum(judge) / n, sum(code) / n
    p_e = p_j * p_c + (1 - p_j) * (1 - p_c)
    return (p_o - p_e) / (1 - p_e)


RIGHT_KAPPAS = [_kappa_counts, _kappa_fraction, _kappa_numpy, _kappa_undefined_by_sets]


def untouched_kappa(judge, code):
    return sum(j == c for j, c in zip(judge, code)) / len(judge)


def pass_half_only(judge, code):
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    p_e = (sum(judge) / n) * (sum(code) / n)
    return 1.0 if p_e == 1 else (p_o - p_e) / (1 - p_e)


def rounded(judge, code):
    return round(_kappa_counts(judge, code), 2)


def no_guard(judge, code):
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    p_j, p_c = sum(judge) / n, sum(code) / n
    p_e = p_j * p_c + (1 - p_j) * (1 - p_c)
    return (p_o - p_e) / (1 - p_e)


def guard_gives_zero(judge, code):
    n = len(judge)
    p_j, p_c = sum(judge) / n, sum(code) / n
    if p_j * p_c + (1 - p_j) * (1 - p_c) == 1:
        return 0.0
    return _kappa_counts(judge, code)


def scotts_pi(judge, code):  # one pooled pass rate: equals kappa only when both rates are equal
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    r = (sum(judge) + sum(code)) / (2 * n)
    p_e = r * r + (1 - r) * (1 - r)
    return 1.0 if p_e == 1 else (p_o - p_e) / (1 - p_e)


def no_division(judge, code):
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    p_j, p_c = sum(judge) / n, sum(code) / n
    return p_o - (p_j * p_c + (1 - p_j) * (1 - p_c))


def both_pass_only(judge, code):  # p_o counts only the runs both pass
    n = len(judge)
    p_o = sum(j and c for j, c in zip(judge, code)) / n
    p_j, p_c = sum(judge) / n, sum(code) / n
    p_e = p_j * p_c + (1 - p_j) * (1 - p_c)
    return 1.0 if p_e == 1 else (p_o - p_e) / (1 - p_e)


def judge_rate_twice(judge, code):  # p_e from the judge's rate alone
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    p_j = sum(judge) / n
    p_e = p_j * p_j + (1 - p_j) * (1 - p_j)
    return 1.0 if p_e == 1 else (p_o - p_e) / (1 - p_e)


def formula_for_four(judge, code):  # divides by 4, the length of most of the old cases
    p_o = sum(j == c for j, c in zip(judge, code)) / 4
    p_j, p_c = sum(judge) / 4, sum(code) / 4
    p_e = p_j * p_c + (1 - p_j) * (1 - p_c)
    return 1.0 if p_e == 1 else (p_o - p_e) / (1 - p_e)


def as_text(judge, code):
    return f"{_kappa_counts(judge, code):.4f}"


def one_when_undefined(judge, code):  # the old task text: 1.0 for a judge that decides nothing
    value = _kappa_counts(judge, code)
    return 1.0 if value is None else value


def guard_on_agreement(judge, code):  # p_o == 1 gives 1, also where kappa is undefined
    p_o = sum(j == c for j, c in zip(judge, code)) / len(judge)
    if p_o == 1:
        return 1
    return _kappa_counts(judge, code)


def nan_when_undefined(judge, code):
    value = _kappa_counts(judge, code)
    return math.nan if value is None else value


def none_when_one_side_is_constant(judge, code):  # one side alone constant: kappa is 0, defined
    if len(set(judge)) == 1 or len(set(code)) == 1:
        return None
    return _kappa_counts(judge, code)


def none_when_all_agree(judge, code):  # p_o == 1 is kappa 1 unless p_e == 1 too
    if all(j == c for j, c in zip(judge, code)):
        return None
    return _kappa_counts(judge, code)


WRONG_KAPPAS = [untouched_kappa, pass_half_only, rounded, no_guard, guard_gives_zero, scotts_pi, no_division,
                both_pass_only, judge_rate_twice, formula_for_four, as_text, one_when_undefined, guard_on_agreement,
                nan_when_undefined, none_when_one_side_is_constant, none_when_all_agree]


@pytest.mark.parametrize("right", [_solution("10-3", "kappa")] + RIGHT_KAPPAS)
def test_kappa_right_styles_pass(right):
    assert nb10.check_kappa(right).passed is True


@pytest.mark.parametrize("wrong", WRONG_KAPPAS, ids=lambda f: f.__name__)
def test_kappa_wrong_answers_fail(wrong, capsys):
    checker_fails(nb10.check_kappa, wrong, capsys)


def test_the_agreement_rate_gets_its_hint(capsys):
    result = checker_fails(nb10.check_kappa, untouched_kappa, capsys, "check.10.kappa_wrong")
    assert t("check.10.kappa_chance") in result.message


def test_one_where_kappa_is_undefined_gets_its_hint(capsys):
    result = checker_fails(nb10.check_kappa, one_when_undefined, capsys, "check.10.kappa_wrong")
    assert t("check.10.kappa_undefined") in result.message and "None" in result.message
    early = checker_fails(nb10.check_kappa, none_when_all_agree, capsys, "check.10.kappa_wrong")
    assert t("check.10.kappa_defined") in early.message


def test_the_task_text_asks_for_none_where_kappa_is_undefined():
    """The notebook's exercise 10-3 says what the checker checks (issue 44: it used to ask for 1.0)."""
    cells = nbformat.read(ROOT / "notebooks" / "10_evaluation.ipynb", as_version=4).cells
    task = next(c.source for c in cells if c.cell_type == "markdown" and c.source.startswith("### 练习 3"))
    assert "返回 `None`" in task and "时返回 `1.0`" not in task


@pytest.mark.parametrize("odd", sorted(ODD_RETURNS))
def test_kappa_odd_returns_fail_without_raising(odd, capsys):
    checker_fails(nb10.check_kappa, ODD_RETURNS[odd], capsys)


@pytest.mark.parametrize("checker", [nb10.check_in_order, nb10.check_new_case_check, nb10.check_kappa])
def test_not_a_function_fails(checker, capsys):
    checker_fails(checker, None, capsys, "check.10.not_callable")
