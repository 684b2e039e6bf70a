"""Run the task suite through the loops and collect one row per (task, loop)."""

from __future__ import annotations

import time
from typing import Callable

from . import loops
from .meter import Meter, recording_tools
from .tasks import Task


def run_task(loop: str, task: Task, base_url: str, model: str, max_steps: int, max_tokens: int) -> dict:
    """Run one task through one loop.

    Returns:
        A row: ``task, split, loop, solved, answer, stopped_reason, requests,
        prompt_tokens, completion_tokens, last_finish_reason (of the last
        response: "length" means the final reply was cut, never solved),
        seconds, tool_calls`` (the tools that
        really ran, as ``name(arguments)`` strings) and ``error`` (None, or the
        exception's type and text: a failed run counts as not solved).
    Raises:
        loops.PeerMissing: the loop's framework is not installed.
    """
    meter = Meter()
    runs: list[tuple[str, dict]] = []
    setup = loops.Setup(base_url, model, meter.http_client(), max_steps=max_steps, max_tokens=max_tokens)
    started = time.perf_counter()
    answer, stopped, error = None, "error", None
    try:
        answer, stopped = loops.LOOPS[loop](setup, task.question, recording_tools(runs))
    except loops.PeerMissing:
        raise
    except Exception as exc:  # noqa: BLE001 - one failed run must not end the benchmark
        error = f"{type(exc).__name__}: {str(exc)[:300]}"
    seconds = time.perf_counter() - started
    totals = meter.totals()
    # A final reply cut at max_tokens is never a solved task, whatever it contains.
    cut = totals["last_finish_reason"] in ("length", "content_filter")
    solved = error is None and bool(answer) and not cut and task.check(answer, runs)
    return {
        "task": task.id, "split": task.split, "loop": loop, "solved": bool(solved), "answer": answer,
        "stopped_reason": stopped, **totals, "seconds": round(seconds, 2),
        "tool_calls": [f"{name}({args})" for name, args in runs], "error": error,
    }


def run_suite(loop_names: list[str], tasks: list[Task], base_url: str, model: str, max_steps: int = 4,
              max_tokens: int = 300, before_loop: Callable[[], None] | None = None,
              progress: Callable[[str], None] = print) -> tuple[list[dict], dict[str, str]]:
    """Every task through every loop, one loop at a time.

    Args:
        before_loop: called before each loop's first task (the bench clears the
            server's prompt cache there: every loop starts from the same state,
            and within a loop the tasks share the cached system prompt and
            tools, as a deployed agent would).
    Returns:
        ``(rows, skipped)``: the rows of ``run_task``, and ``{loop: why}`` for
        peer loops whose framework is not installed.
    """
    rows: list[dict] = []
    skipped: dict[str, str] = {}
    for loop in loop_names:
        if before_loop is not None:
            before_loop()
        for task in tasks:
            try:
                row = run_task(loop, task, base_url, model, max_steps, max_tokens)
            except loops.PeerMissing as exc:
                skipped[loop] = str(exc)
                progress(f"{loop}: skipped ({exc})")
                break
            rows.append(row)
            mark = "ok  " if row["solved"] else "FAIL"
            progress(f"{loop:11} {task.id:3} {mark} {row['requests']} req {row['prompt_tokens']:>6} pt "
                     f"{row['seconds']:>6.1f} s  {str(row['answer'] or row['error'])[:70]!r}")
    return rows, skipped
