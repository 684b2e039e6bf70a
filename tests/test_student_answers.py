"""Every checker tells apart the answers students would write: wrong ones fail, right ones in other styles pass.

The answers (``tests/student_answers/NN-k.py``) were written from the task text alone, by a reader who
never saw the checker (issue 54); ``bench/student_answers.py`` reads and runs them, and measures the
table docs/exercises.md gives.
"""

from __future__ import annotations

import pytest

from bench.student_answers import answers, checker_cells, verdict

from course_runtime import progress

ANSWERS = answers()
CHECKERS = checker_cells()


def test_every_exercise_has_blind_answers():
    """At least four wrong and two right answers for every exercise with a checker."""
    for exercise in map(progress.base_exercise, progress.EXERCISES):
        kinds = [a.kind for a in ANSWERS if a.exercise == exercise]
        assert kinds.count("wrong") >= 4 and kinds.count("right") >= 2, (exercise, kinds)


@pytest.mark.parametrize("answer", ANSWERS, ids=[a.name for a in ANSWERS])
def test_checker_verdict(answer):
    passed, printed = verdict(answer, CHECKERS[answer.exercise])
    assert passed is (answer.kind == "right"), f"{answer.kind}: {answer.why}\n{printed}"
    assert ("✅ 通过" if passed else "❌ 未通过") in printed, printed
