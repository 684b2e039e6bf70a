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


CAPSTONE = "12_capstone"  # assessed by its hidden exam on the leaderboard (course_lib/capstone.py), not by checkers


def test_every_notebook_has_exercises():
    for nb in NOTEBOOKS:
        if nb.stem == CAPSTONE:  # the capstone's work is the student's own agent, scored by the class exam
            assert not course_cells(nb, "exercise") and "capstone.submit_exam(" in nb.read_text(encoding="utf-8")
            continue
        assert course_cells(nb, "exercise"), f"{nb.name} has no exercise cells"


DRAWN = r'''
import hashlib, sys
if len(sys.argv) > 1:  # a kernel whose earlier cells imported a module full of numbers and strings
    sys.path.insert(0, sys.argv[1])
    import many_constants  # noqa: F401
from hypothesis import strategies as st
from course_lib.checkers import first_difference
seen = []
def student(*args):
    seen.append(repr(args))
    return 0
first_difference(student, lambda *args: 0, inputs=st.tuples(st.text(max_size=6), st.integers()), max_examples=200)
print(hashlib.sha1("\n".join(seen).encode()).hexdigest(), len(seen))
'''


def test_the_inputs_a_checker_draws_are_the_same_in_every_kernel(tmp_path):
    """hypothesis mixes constants of the modules imported so far into what it draws; a checker must not
    (issue 54: the same wrong answer showed another counter-example after other cells had run)."""
    import subprocess
    import sys

    numbers = ", ".join(repr(str(i * 37)) for i in range(400))
    spaces = ", ".join(repr(chr(0x3000 + i) + "\u2028") for i in range(100))
    (tmp_path / "many_constants.py").write_text(f"A = [{numbers}]\nB = [{spaces}]\nC = [{', '.join(str(i * 1001) for i in range(300))}]\n",
                                                encoding="utf-8")
    runs = [subprocess.run([sys.executable, "-c", DRAWN, *extra], capture_output=True, text=True, encoding="utf-8",
                           timeout=120) for extra in ([], [str(tmp_path)])]
    assert all(run.returncode == 0 for run in runs), [run.stderr[-2000:] for run in runs]
    plain, after_imports = (run.stdout.split() for run in runs)
    assert plain[1] == "200" and plain == after_imports


# The exercises whose checker runs the student's function beside a reference: that reference is the
# block of solutions/ (one source, issue 54), never a second copy inside the checker.
COMPARED = ["01-2", "02-2", "03-2", "04-2", "05-1", "05-2", "06-1", "07-1", "07-2", "08-1", "10-1", "10-2", "10-3",
            "11-1", "11-2", "11-3"]


@pytest.mark.parametrize("key", COMPARED)
def test_a_checker_compares_with_the_solution_a_student_reads(key, monkeypatch, capsys):
    from course_lib.checkers import reference

    asked = []
    real = reference.solution

    def spy(exercise, name, folder=None):
        asked.append(exercise)
        return real(exercise, name, folder)

    for module in list(__import__("sys").modules.values()):
        if getattr(module, "__name__", "").startswith("course_lib.checkers.nb") and hasattr(module, "solution"):
            monkeypatch.setattr(module, "solution", spy)
    nb = next(nb for nb in NOTEBOOKS if key in course_cells(nb, "checker"))
    solved = fresh_namespace()
    exec(solutions_for(nb)[key], solved)
    assert run_checker(course_cells(nb, "checker")[key], solved).passed is True
    assert asked and set(asked) == {key}


def test_without_solutions_a_checker_says_so_in_one_sentence(monkeypatch, tmp_path, capsys):
    from course_lib.checkers import nb06, reference

    monkeypatch.setattr(reference, "SOLUTIONS_DIR", tmp_path / "solutions")
    result = nb06.check_call_key(lambda name, arguments: (name, arguments))
    assert result.passed is False and result.hint == "check.reference_missing"
    assert "solutions" in result.message and "Traceback" not in capsys.readouterr().out
