"""Every checker passes on the reference solution and fails on the untouched exercise."""

from __future__ import annotations

import pytest
from IPython.core.formatters import DisplayFormatter

from fakes import FakeLLM
from notebook_cells import NOTEBOOKS, course_cells, run_checker, solutions_for

from course_lib import texts
from course_runtime import progress

CASES = [
    (nb, key)
    for nb in NOTEBOOKS
    for key in course_cells(nb, "exercise")
]


def fresh_namespace() -> dict:
    # The same names the notebooks define before their exercises.
    return {"client": FakeLLM(default="2").client(), "MODEL": "fake-model", "__name__": "__exercise__"}


@pytest.mark.parametrize("nb,key", CASES, ids=[f"{nb.stem}:{key}" for nb, key in CASES])
def test_checker_fails_untouched_and_passes_solution(nb, key, capsys):
    checkers = course_cells(nb, "checker")
    solutions = solutions_for(nb)
    assert key in checkers, f"exercise {key} in {nb.name} has no checker cell"
    assert key in solutions, f"exercise {key} has no reference solution in solutions/{nb.stem}.py"

    untouched = fresh_namespace()
    exec(course_cells(nb, "exercise")[key], untouched)
    result = run_checker(checkers[key], untouched)
    assert result.passed is False
    assert "❌" in capsys.readouterr().out
    # The result is kept for the student's own table and the teacher's page (course_runtime/progress.py),
    # under this cell's exercise id, with the key of the sentence it printed.
    kept = progress.read_results()[-1]
    assert (kept["exercise"], kept["passed"]) == (key, False)
    assert "check." + kept["hint"] in texts.TEXTS["zh"], kept
    # As a cell's last expression the result shows nothing (no stray "False" under the ❌ line).
    assert DisplayFormatter().format(result) == ({}, {})

    solved = fresh_namespace()
    exec(solutions[key], solved)
    assert run_checker(checkers[key], solved).passed is True
    assert "✅" in capsys.readouterr().out
    assert (progress.read_results()[-1]["exercise"], progress.read_results()[-1]["passed"]) == (key, True)


def test_every_notebook_has_exercises():
    for nb in NOTEBOOKS:
        assert course_cells(nb, "exercise"), f"{nb.name} has no exercise cells"
