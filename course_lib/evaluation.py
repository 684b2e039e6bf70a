"""Checking an agent's run by code: its answer's facts, its numbers, its tools and their order (notebook 10).

A run's *trajectory* is the list of tool names it called, in order.  An
evaluation compares it with the trajectory a good solution needs, in one of
three ways; the names are those of Google ADK's tool-trajectory metric and
Vertex AI's ``TrajectoryExactMatch`` / ``TrajectoryInOrderMatch`` /
``TrajectoryAnyOrderMatch``:

``exact``      the same calls, in the same order, no more and no fewer;
``in_order``   the expected calls appear in this order; other calls may come between;
``any_order``  every expected call appears (a name expected twice must appear
               twice), in any order; other calls are allowed.

An answer is checked against a key (``course_lib.eval_set``): the facts it
must contain (``missing_facts``) and the numbers it gives that no source gave
(``unsupported_numbers``: not in the question, not in a tool's result, not in
the key - a number the model made up).

Written for notebook 10; the bench's task checks (bench/tasks.py) read numbers with the
same ``number_check`` and share ``eval_set.NO_ANSWER_WORDS``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from .number_check import FREE_NUMBERS, has_number, numbers_in, read_numbers
from .records import ActionStep, ToolCallsStep

MODES = ("exact", "in_order", "any_order")


def trajectory(steps: Iterable[Any]) -> list[str]:
    """The tool names a loop's run called, in order: its trajectory.

    Args:
        steps: a run's step records (``RunResult.steps`` of ``Agent``,
            ``LineReAct`` or ``JsonReAct``; course_lib.records).  Every call the
            model made and the loop handled counts - the tool answered, failed,
            or a person rejected it: the calls of each ``ToolCallsStep`` and
            each ``ActionStep``'s action.  Calls still waiting for a decision
            (a ``WaitingStep``) do not count yet.
    Returns:
        A list of names, e.g. ``["query_by_product_name", "calculate"]``.
    """
    names: list[str] = []
    for step in steps:
        if isinstance(step, ToolCallsStep):
            names.extend(result.name for result in step.tool_calls)
        elif isinstance(step, ActionStep) and step.action:
            names.append(step.action)
    return names


def trajectory_match(actual: Sequence[str], expected: Sequence[str], mode: str = "exact") -> bool:
    """Whether a run's trajectory ``actual`` matches ``expected`` in ``mode`` (see the module docstring).

    Args:
        actual: the tool names the run called, in order (``trajectory``).
        expected: the tool names a good solution calls, in order.
        mode: ``"exact"``, ``"in_order"`` or ``"any_order"``.
    Returns:
        True or False.  An empty ``expected`` (a question to answer without
        tools) matches only an empty ``actual`` in ``exact`` mode, and any
        ``actual`` in the other two.
    Raises:
        ValueError: an unknown mode.
    """
    if mode == "exact":
        return list(actual) == list(expected)
    if mode == "in_order":
        remaining = iter(actual)
        return all(any(name == wanted for name in remaining) for wanted in expected)
    if mode == "any_order":
        have = Counter(actual)
        return all(have[name] >= count for name, count in Counter(expected).items())
    raise ValueError(f"mode must be one of {MODES}, not {mode!r}")


def missing_facts(answer: str | None, numbers: Sequence[str] = (), words: Sequence[str] = ()) -> list[str]:
    """The numbers and words of a key that ``answer`` does not contain, in the key's order.

    Numbers are read as whole numbers (``number_check.has_number``: "1300" does
    not contain "300", "360.0" contains "360"); words as substrings.
    Returns:
        ``[]`` when every fact is there.
    """
    text = answer or ""
    return [n for n in numbers if not has_number(text, n)] + [w for w in words if w not in text]


def unsupported_numbers(answer: str | None, sources: Iterable[str], free: set[str] = FREE_NUMBERS) -> list[str]:
    """The numbers ``answer`` writes with digits that none of ``sources`` gives: candidates for invented numbers.

    Args:
        answer: the run's final answer.
        sources: texts the numbers may come from - the question, every tool
            result, the key's numbers.  Their numbers are read by
            ``number_check.numbers_in`` (digits, Chinese numerals, 八折 = 0.8, 20% = 0.2).
        free: numbers nobody has to give (0 and 1).
    Returns:
        Canonical number strings in the order the answer writes them, each once.
        A number derived correctly but never written by a source (a sum the model
        did in its head) is listed too: the check is "grounded", not "wrong".
    """
    known = set(free)
    for text in sources:
        known |= numbers_in(text or "")
    found: list[str] = []
    for number in read_numbers(answer or ""):
        canonical = next(iter(numbers_in(number)), number)
        if canonical not in known and canonical not in found:
            found.append(canonical)
    return found


def agreement(judge: Sequence[bool], code: Sequence[bool]) -> dict[str, float | int]:
    """How far a judge's verdicts agree with the code checks' verdicts on the same runs.

    Args:
        judge: the judge's verdicts, True = pass, one per run.
        code: the code checks' verdicts for the same runs, in the same order.
    Returns:
        ``{"n", "both_pass", "both_fail", "judge_only" (judge passes, code fails),
        "code_only" (code passes, judge fails), "agreement" (share, 0-1),
        "kappa"}``.  ``kappa`` is Cohen's kappa, (p_o - p_e) / (1 - p_e) with
        p_e from each side's pass rate (Cohen 1960); 1.0 when both sides give
        one and the same verdict to every run (p_e = 1, nothing to correct for).
    Raises:
        ValueError: the two lists differ in length, or are empty.
    """
    if len(judge) != len(code) or not judge:
        raise ValueError(f"need two verdict lists of one non-zero length, not {len(judge)} and {len(code)}")
    n = len(judge)
    pairs = list(zip(map(bool, judge), map(bool, code)))
    both_pass, both_fail = pairs.count((True, True)), pairs.count((False, False))
    observed = (both_pass + both_fail) / n
    judge_rate, code_rate = sum(j for j, _ in pairs) / n, sum(c for _, c in pairs) / n
    expected = judge_rate * code_rate + (1 - judge_rate) * (1 - code_rate)
    kappa = 1.0 if expected == 1 else (observed - expected) / (1 - expected)
    return {"n": n, "both_pass": both_pass, "both_fail": both_fail, "judge_only": pairs.count((True, False)),
            "code_only": pairs.count((False, True)), "agreement": observed, "kappa": kappa}
