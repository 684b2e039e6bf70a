"""How many answers students would write each checker tells apart: the blind answers of ``tests/student_answers/``.

Each file ``tests/student_answers/NN-k.py`` was written from exercise NN-k's task text alone (the
Markdown above the exercise cell and the cell itself) by a reader who never saw the checker: at
least four wrong answers, each breaking a requirement the task states, and two or more right answers
in styles other than the reference's.  A block starts with ``# %% wrong: <why>`` or
``# %% right: <style>`` and replaces the exercise cell; it may use ``client`` and ``MODEL`` as the
notebook defines them.  Mutation testing (``bench.mutants``) changes the reference; these answers
are code the reference does not contain, and inputs its author did not think of.

    python -m bench.student_answers            # the table; bench/results/student_answers.json and .md
    python -m bench.student_answers --no-save  # only print it

``tests/test_student_answers.py`` asserts every verdict in CI (a wrong answer that passes, or a
right one that fails, is a failing test); this module measures the same for docs/exercises.md.
No model is asked: ``client`` is a scripted one that answers "2".
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import time
from dataclasses import dataclass
from pathlib import Path

from bench.mutants import ROOT, exercises, run_checker

ANSWERS = ROOT / "tests" / "student_answers"
RESULTS = ROOT / "bench" / "results"
BLOCK = re.compile(r"^# %% (wrong|right): *(.*)$", re.M)


@dataclass(frozen=True)
class Answer:
    """One block of a file: ``exercise`` ("06-2", without a version), ``kind`` ("wrong"/"right"), the header's
    ``why``, the ``code`` and its ``number`` in the file (from 1)."""

    exercise: str
    kind: str
    why: str
    code: str
    number: int

    @property
    def name(self) -> str:
        return f"{self.exercise}:{self.kind}{self.number}"


def answers(folder: Path = ANSWERS) -> list[Answer]:
    """Every block of every ``NN-k.py`` in ``folder`` (read as UTF-8), in file order."""
    found = []
    for path in sorted(folder.glob("[0-9][0-9]-*.py")):
        parts = BLOCK.split(path.read_text(encoding="utf-8"))
        for number, (kind, why, code) in enumerate(zip(parts[1::3], parts[2::3], parts[3::3]), 1):
            found.append(Answer(path.stem, kind, why.strip(), code, number))
    return found


def checker_cells(root: Path = ROOT) -> dict[str, str]:
    """``{"06-2": the checker cell's source}``, keyed by the exercise without its version (``04-1v2`` -> ``04-1``)."""
    from course_runtime.progress import base_exercise

    return {base_exercise(key): exercise.checker for key, exercise in exercises(root).items()}


def fresh_namespace() -> dict:
    """What the notebook defines before its exercises: a ``client`` (scripted: answers "2") and ``MODEL``."""
    from course_lib.checkers.scripted import ScriptedModel

    return {"client": ScriptedModel(when_done="2", model="fake-model").client(), "MODEL": "fake-model",
            "__name__": "__exercise__"}


def verdict(answer: Answer, checker_cell: str, namespace: dict | None = None) -> tuple[bool, str]:
    """Run ``answer`` and then its checker cell in ``namespace`` (default ``fresh_namespace()``):
    ``(passed, what the checker printed)``."""
    namespace = fresh_namespace() if namespace is None else namespace
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        exec(compile(answer.code, f"<{answer.name}>", "exec"), namespace)
        result = run_checker(checker_cell, namespace)
    return bool(getattr(result, "passed", False)), out.getvalue().strip()


def run(folder: Path = ANSWERS, root: Path = ROOT) -> dict:
    """Every answer through its checker: ``{"exercises": {id: {"wrong", "caught", "right", "passed",
    "missed": [why...], "refused": [style...]}}, "total": {...}, "seconds"}``."""
    started = time.monotonic()
    cells = checker_cells(root)
    table: dict[str, dict] = {}
    for answer in answers(folder):
        row = table.setdefault(answer.exercise, {"wrong": 0, "caught": 0, "right": 0, "passed": 0,
                                                 "missed": [], "refused": []})
        passed, _ = verdict(answer, cells[answer.exercise])
        if answer.kind == "wrong":
            row["wrong"] += 1
            row["caught"] += not passed
            if passed:
                row["missed"].append(answer.why)
        else:
            row["right"] += 1
            row["passed"] += passed
            if not passed:
                row["refused"].append(answer.why)
    total = {k: sum(row[k] for row in table.values()) for k in ("wrong", "caught", "right", "passed")}
    return {"exercises": table, "total": total, "seconds": round(time.monotonic() - started, 1)}


def markdown(results: dict, when: str) -> str:
    """The table docs/exercises.md quotes: caught/total wrong answers and passed/total right ones per exercise."""
    lines = [f"Blind answers (tests/student_answers/), {when}: written from each task text by a reader who never "
             "saw the checker.", "", "| exercise | wrong answers caught | right answers passed |", "|---|---:|---:|"]
    for key, row in sorted(results["exercises"].items()):
        lines.append(f"| {key} | {row['caught']}/{row['wrong']} | {row['passed']}/{row['right']} |")
    total = results["total"]
    lines.append(f"| **all** | {total['caught']}/{total['wrong']} | {total['passed']}/{total['right']} |")
    missed = [(key, why) for key, row in sorted(results["exercises"].items()) for why in row["missed"]]
    refused = [(key, why) for key, row in sorted(results["exercises"].items()) for why in row["refused"]]
    lines += ["", "Wrong answers that pass:" if missed else "No wrong answer passes."]
    lines += [f"- {key}: {why}" for key, why in missed]
    lines += ["", "Right answers that fail:" if refused else "No right answer fails."]
    lines += [f"- {key}: {why}" for key, why in refused]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    from datetime import datetime, timezone

    from bench.report import save

    parser = argparse.ArgumentParser(prog="python -m bench.student_answers", description=__doc__.split("\n")[0])
    parser.add_argument("--no-save", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    results = run()
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    results["when"] = when
    text = markdown(results, when)
    print(text)
    if not args.no_save:
        for path in save(RESULTS, "student_answers", results, text):
            print(path.relative_to(ROOT).as_posix())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
