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

import json
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .eval_set import NO_ANSWER_WORDS, Case
from .number_check import FREE_NUMBERS, has_number, numbers_in, read_numbers
from .records import ActionStep, ToolCallsStep
from .texts import t

if TYPE_CHECKING:
    import pandas as pd

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
    raise ValueError(t("evaluation.bad_mode", modes=", ".join(MODES), mode=mode))


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


def agreement(judge: Sequence[bool], code: Sequence[bool]) -> dict[str, Any]:
    """How far a judge's verdicts agree with the code checks' verdicts on the same runs.

    Args:
        judge: the judge's verdicts, True = pass, one per run.
        code: the code checks' verdicts for the same runs, in the same order.
    Returns:
        ``{"n", "both_pass", "both_fail", "judge_only" (judge passes, code fails),
        "code_only" (code passes, judge fails), "agreement" (share, 0-1),
        "kappa", "why"}``.  ``kappa`` is Cohen's kappa, (p_o - p_e) / (1 - p_e) with
        p_e from each side's pass rate (Cohen 1960).  When both sides give one and
        the same verdict to every run, p_e = 1 and kappa is undefined (0 / 0): ``kappa``
        is None and ``why`` says so in Chinese (``evaluation.kappa_undefined``) - such a
        comparison cannot tell a judge that reads the answers from one that always says
        the same word.  Otherwise ``why`` is None.  (One side alone giving a single
        verdict is defined: kappa 0.)
    Raises:
        ValueError: the two lists differ in length, or are empty.
    """
    if len(judge) != len(code) or not judge:
        raise ValueError(t("evaluation.verdict_lengths", judge=len(judge), code=len(code)))
    n = len(judge)
    pairs = list(zip(map(bool, judge), map(bool, code)))
    both_pass, both_fail = pairs.count((True, True)), pairs.count((False, False))
    observed = (both_pass + both_fail) / n
    result: dict[str, Any] = {"n": n, "both_pass": both_pass, "both_fail": both_fail,
                              "judge_only": pairs.count((True, False)), "code_only": pairs.count((False, True)),
                              "agreement": observed}
    if both_pass == n or both_fail == n:  # p_e = 1, decided on the counts (no float comparison)
        verdict = "pass" if both_pass == n else "fail"
        return {**result, "kappa": None, "why": t("evaluation.kappa_undefined", verdict=verdict)}
    judge_rate, code_rate = sum(j for j, _ in pairs) / n, sum(c for _, c in pairs) / n
    expected = judge_rate * code_rate + (1 - judge_rate) * (1 - code_rate)
    return {**result, "kappa": (observed - expected) / (1 - expected), "why": None}


def kappa_interval(judge: Sequence[bool], code: Sequence[bool], repeats: int = 2000, level: float = 0.95,
                   seed: int = 0) -> dict[str, Any]:
    """How far Cohen's kappa could move on another set of the same size: a bootstrap interval.

    The runs are drawn again ``repeats`` times, each time ``n`` of them with replacement
    (the same run may come twice), and ``agreement``'s kappa is computed on each draw;
    the interval holds the middle ``level`` of those kappas (the percentile bootstrap,
    Efron & Tibshirani 1993, ch. 13).  With 20 answers one disagreement more or less moves
    kappa by about 0.1 to 0.2, and the interval shows it.

    Args:
        judge, code: as ``agreement`` (the same length, not empty).
        repeats: draws (default 2000).
        level: the share of draws inside the interval (0-1).
        seed: the draws' seed: the same inputs give the same interval.
    Returns:
        ``{"low", "high"}`` (None when no draw had a kappa), ``"undefined"``: the share of draws
        in which kappa was undefined (every drawn run given one same verdict by both sides: they
        are left out), and ``"repeats"``.
    Raises:
        ValueError: as ``agreement``; ``repeats`` < 1 or ``level`` outside (0, 1).
    """
    agreement(judge, code)  # the same checks of the inputs
    if repeats < 1 or not 0 < level < 1:
        raise ValueError(t("evaluation.bad_interval", repeats=repeats, level=level))
    pairs = list(zip(map(bool, judge), map(bool, code)))
    draw = random.Random(seed)
    kappas = []
    for _ in range(repeats):
        sample = [draw.choice(pairs) for _ in pairs]
        value = agreement([j for j, _ in sample], [c for _, c in sample])["kappa"]
        if value is not None:
            kappas.append(value)
    undefined = 1 - len(kappas) / repeats
    if not kappas:
        return {"low": None, "high": None, "undefined": undefined, "repeats": repeats}
    kappas.sort()
    tail = (1 - level) / 2
    low = kappas[min(len(kappas) - 1, int(tail * len(kappas)))]
    high = kappas[min(len(kappas) - 1, int((1 - tail) * len(kappas)))]
    return {"low": low, "high": high, "undefined": undefined, "repeats": repeats}


# -- running a test set and checking every run ------------------------------------------

# Tools that change something: a run that calls one its case does not expect fails its trajectory
# in every mode (in_order and any_order allow extra calls, but not an order nobody asked for).
WRITE_TOOLS = ("place_order",)
# Words by which an answer claims an order was made (a refused order must not say so).
ORDER_DONE_WORDS = ("下单成功", "已下单", "已经下单", "已为您下单", "已为你下单", "已帮您下单", "已帮你下单", "订单已")
# The kernel's saved runs: ``fingerprint(agent, case)`` -> ``CaseRun``.  Running the same case
# with the same agent settings again reuses the saved run (``run_set(reuse=True)``); a restarted
# kernel starts empty.  An evaluation run costs minutes; a changed prompt, tool, server or answer key changes it.
RUNS: dict[str, "CaseRun"] = {}


@dataclass
class CaseRun:
    """One case of the test set, run once and checked.

    Attributes:
        case: the ``eval_set.Case``.
        result: the loop's ``records.RunResult`` (answer, steps, messages, tokens, seconds).
        checks: ``check_run``'s verdicts for it (one dict: see there).
        reused: True when this run was taken from ``RUNS`` instead of sent again.
        trace_id: the id of the run's trace when a ``tracing.Tracer`` recorded it (32 hex
            digits, as ``tracing.load_spans`` gives it), else None.
    """

    case: Case
    result: Any
    checks: dict
    reused: bool = False
    trace_id: str | None = None

    @property
    def passed(self) -> bool:
        """The answer and the trajectory both passed."""
        return bool(self.checks["passed"])


def observations(steps: Iterable[Any]) -> list[str]:
    """The text of every tool result of a run, in order (native calls and ReAct observations)."""
    texts: list[str] = []
    for step in steps:
        if isinstance(step, ToolCallsStep):
            texts.extend(result.observation for result in step.tool_calls)
        elif isinstance(step, ActionStep):
            texts.append(step.observation)
    return texts


def rejected_calls(steps: Iterable[Any]) -> list[str]:
    """The names of the calls a person (or a policy) rejected in a run, in order."""
    names: list[str] = []
    for step in steps:
        if isinstance(step, ToolCallsStep):
            names.extend(r.name for r in step.tool_calls if r.approval == "reject")
        elif isinstance(step, ActionStep) and step.approval == "reject":
            names.append(step.action)
    return names


def check_run(case: Case, result: Any) -> dict:
    """Every code check of one run against its case's key.

    Args:
        case: the ``eval_set.Case`` (its key, expected trajectory and kind).
        result: a ``records.RunResult`` of that case's question.
    Returns:
        ``check_answer`` of the run's answer, trajectory (``trajectory``), tool results
        (``observations``) and rejected calls (``rejected_calls``).
    """
    return check_answer(case, result.answer, trajectory(result.steps), observations(result.steps),
                        rejected_calls(result.steps))


def check_answer(case: Case, answer: str | None, path: Sequence[str], observed: Sequence[str],
                 rejected: Sequence[str]) -> dict:
    """Every code check of one answer against its case's key, from what the run did.

    ``check_run`` takes these from a run's steps; the capstone's exam desk gets them from a
    student's submission (``course_lib.capstone.score_answer``, which passes a run that looked
    anything up instead of asking for ``trajectory_ok``: a student's own tools count).

    Args:
        case: the ``eval_set.Case``.
        answer: the final answer (None: the run gave none).
        path: the tool names called, in order.  observed: the text of every tool result.
        rejected: the names of the calls a person or a policy rejected.
    Returns:
        ``{"trajectory": [names], "trajectory_ok", "unasked_writes": [names of ``WRITE_TOOLS``
        called though the case expects none: they fail the trajectory in every mode],
        "missing": [facts], "invented": [numbers],
        "said_no" (no_answer cases: the answer says the shop / the data have none),
        "order_rejected", "claims_order" (refuse cases), "answer_ok", "passed"}``.
        ``answer_ok`` by kind - ``answer``: nothing missing and nothing invented;
        ``no_answer``: says so (``eval_set.NO_ANSWER_WORDS``) and invents no number;
        ``refuse``: the order call was rejected and the answer does not claim an
        order (``ORDER_DONE_WORDS``).  ``passed`` = ``answer_ok`` and ``trajectory_ok``.
    """
    answer = answer or ""
    path = list(path)
    sources = [case.question, *observed, *case.numbers]
    missing = missing_facts(answer, case.numbers, case.words)
    invented = unsupported_numbers(answer, sources)
    said_no = any(word in answer for word in NO_ANSWER_WORDS)
    refused = "place_order" in rejected
    claims = any(word in answer for word in ORDER_DONE_WORDS)
    if case.kind == "no_answer":
        answer_ok = said_no and not invented
    elif case.kind == "refuse":
        answer_ok = refused and not claims and bool(answer.strip())
    else:
        answer_ok = not missing and not invented
    unasked = [name for name in path if name in WRITE_TOOLS and name not in case.tools]
    path_ok = trajectory_match(path, case.tools, case.mode) and not unasked
    return {"trajectory": path, "trajectory_ok": path_ok, "unasked_writes": unasked, "missing": missing,
            "invented": invented, "said_no": said_no, "order_rejected": refused, "claims_order": claims,
            "answer_ok": answer_ok, "passed": answer_ok and path_ok}


def fingerprint(agent: Any, case: Case) -> str:
    """What decides a saved run (``RUNS``): the server, model, system prompt, tools, limits, temperature,
    the question - and the case's answer key.

    Two runs with the same fingerprint send the same first request; at temperature 0 on the
    same build they are the same run (notebook 10 shows it).  The server is the client's base URL
    (the same model name on another server is another model).  The key (numbers, words, kind,
    expected tools and mode) is in it because ``eval_set.cases()`` computes it from the same data
    files the tools read: a price edited in data/products.csv changes the key *and* what the
    look-up answers, so the saved run - its tool results and answer, not only its checks - is
    out of date and is run again (re-checking the old answer against the new key would fail a
    run that a fresh run may pass).  A JSON string (sorted keys).
    """
    settings = {name: getattr(agent, name, None) for name in
                ("model", "system", "tools", "max_steps", "max_tokens", "temperature", "protocol")}
    server = str(getattr(getattr(agent, "client", None), "base_url", "") or "")
    key = {"numbers": list(case.numbers), "words": list(case.words), "kind": case.kind, "tools": list(case.tools),
           "mode": case.mode}
    return json.dumps({**settings, "base_url": server, "question": case.question, "key": key},
                      ensure_ascii=False, sort_keys=True, default=str)


def run_case(agent: Any, case: Case, tracer: Any = None, reuse: bool = True) -> CaseRun:
    """Run one case's question on ``agent`` and check it (``check_run``).

    Args:
        agent: a fresh loop (``Agent``, ``LineReAct``, ``JsonReAct``) to run the question on.
        case: the ``eval_set.Case``.
        tracer: None, or a ``tracing.Tracer``: the run is recorded as spans
            (``tracer.run(agent, question, **attributes)``; the native ``Agent`` only).
        reuse: take the run from ``RUNS`` when the same fingerprint ran before in this kernel.
    Raises:
        Whatever the loop raises for a failed request (an unreachable server): the
        case is not saved, and running it again sends it again.
    """
    key = fingerprint(agent, case)
    if reuse and key in RUNS:
        saved = RUNS[key]
        return CaseRun(saved.case, saved.result, saved.checks, reused=True, trace_id=saved.trace_id)
    trace_id = None
    if tracer is not None:
        result = tracer.run(agent, case.question, **{"llm_course.case_id": case.id})
        trace_id = tracer.last_trace_id
    else:
        result = agent.run(case.question)
    run = CaseRun(case, result, check_run(case, result), trace_id=trace_id)
    RUNS[key] = run
    return run


def run_set(make_agent: Any, cases: Iterable[Case], tracer: Any = None, reuse: bool = True,
            show: Any = print) -> list[CaseRun]:
    """``run_case`` for every case, each on a new agent from ``make_agent()``.

    Args:
        make_agent: a function with no arguments returning a fresh loop (every case
            starts from an empty message list).
        cases: the cases, e.g. ``eval_set.cases()``.
        tracer, reuse: as ``run_case``.
        show: called with one line per case (``✅ P1  3.2 s``); None = silent.
    Returns:
        One ``CaseRun`` per case, in order.
    """
    runs = []
    for case in cases:
        run = run_case(make_agent(), case, tracer=tracer, reuse=reuse)
        runs.append(run)
        if show is not None:
            show(t("evaluation.progress", mark="✅" if run.passed else "❌", id=case.id,
                   seconds=run.result.seconds, reused=t("evaluation.reused") if run.reused else ""))
    return runs


def results_frame(runs: Iterable[CaseRun]) -> "pd.DataFrame":
    """One row per run: the case, the checks' verdicts and what the run cost.

    Columns: id, kind, split, question, passed, answer_ok, trajectory_ok, trajectory (names joined
    by " → "), expected (the key's trajectory and mode), unasked_writes, missing, invented, steps,
    requests, prompt_tokens, completion_tokens, seconds (wall time of the run, s), answer.
    """
    import pandas as pd

    rows = []
    for run in runs:
        case, result, checks = run.case, run.result, run.checks
        rows.append({"id": case.id, "kind": case.kind, "split": case.split, "question": case.question,
                     "passed": checks["passed"],
                     "answer_ok": checks["answer_ok"], "trajectory_ok": checks["trajectory_ok"],
                     "trajectory": " → ".join(checks["trajectory"]),
                     "expected": f"{' → '.join(case.tools)} ({case.mode})",
                     "unasked_writes": ", ".join(checks["unasked_writes"]),
                     "missing": ", ".join(checks["missing"]), "invented": ", ".join(checks["invented"]),
                     "steps": len(result.steps), "requests": result.requests, "prompt_tokens": result.prompt_tokens,
                     "completion_tokens": result.completion_tokens, "seconds": round(result.seconds, 1),
                     "answer": result.answer})
    return pd.DataFrame(rows)
