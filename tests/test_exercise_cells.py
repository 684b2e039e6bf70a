"""Every exercise is wired up in all its places: checker, exercise cell, checker cell, solution.

The places a teacher touches to add an exercise (``python course.py new-exercise NN`` writes them
all): the ``@exercise("NN-k")`` checker in ``course_lib/checkers/nbNN.py`` (which registers it:
``progress.EXERCISES`` is read from there), the exercise cell and the checker cell of
``notebooks/NN_*.ipynb`` - marked by ``metadata.course`` that JupyterLab keeps out of sight - and
the ``# %% exercise NN-k`` block of ``solutions/``.  ``test_exercises.py`` runs each checker on its
solution and on the untouched exercise, but only for cells it can find by their metadata: a cell
that lost it would silently never be tested.  These tests fail instead.
"""

from __future__ import annotations

import ast
import importlib
import re

import nbformat
import pytest

from notebook_cells import NOTEBOOKS, ROOT, course_cells, solutions_for

from course_runtime import progress

CHECKER_MODULE = re.compile(r"course_lib\.checkers\.nb(\d\d)")


def checkers_imported(source: str) -> dict[str, list[str]]:
    """``{"06": ["check_call_key"], ...}``: the ``check_*`` names a cell imports from ``course_lib.checkers.nbNN``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell with IPython magics imports no checker
        return {}
    found: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and CHECKER_MODULE.fullmatch(node.module or ""):
            names = [a.name for a in node.names if a.name.startswith("check_")]
            if names:
                found.setdefault(node.module[-2:], []).extend(names)
    return found


def notebook_of(exercise: str):
    return next(nb for nb in NOTEBOOKS if nb.stem[:2] == exercise[:2])


def test_the_exercise_list_is_read_from_the_checkers():
    assert progress.EXERCISES == progress.exercise_ids()
    assert len(progress.EXERCISES) == len(set(progress.EXERCISES)) >= 25
    # notebook, then number, then version ("04-1v2" is exercise 04-1 after its task changed)
    by_numbers = [tuple(map(int, e.replace("v", "-").split("-"))) + (1,) * ("v" not in e) for e in progress.EXERCISES]
    assert by_numbers == sorted(by_numbers)


@pytest.mark.parametrize("exercise", progress.EXERCISES)
def test_every_checker_has_its_cells_and_its_solution(exercise):
    nb = notebook_of(exercise)
    assert exercise in course_cells(nb, "exercise"), \
        f"{exercise}: no exercise cell in {nb.name} has metadata course.exercise = {exercise!r}"
    assert exercise in course_cells(nb, "checker"), \
        f"{exercise}: no checker cell in {nb.name} has metadata course.checker = {exercise!r}"
    assert exercise in solutions_for(nb), f"{exercise}: solutions/{nb.stem}.py has no block '# %% exercise {exercise}'"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_every_cell_that_calls_a_checker_is_marked(nb):
    """A code cell that imports a checker is a checker cell (metadata), for the exercise that checker records,
    and the cell just above it is that exercise's cell."""
    cells = nbformat.read(nb, as_version=4).cells
    for i, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        imported = checkers_imported(cell.source)
        if not imported:
            continue
        key = cell.metadata.get("course", {}).get("checker")
        assert key, f"{nb.name} cell {i} calls a checker but has no metadata course.checker:\n{cell.source}"
        ids = {getattr(getattr(importlib.import_module(f"course_lib.checkers.nb{number}"), name, None), "exercise_id", None)
               for number, names in imported.items() for name in names}
        assert ids == {key}, f"{nb.name} cell {i} is marked {key} but calls the checker of {ids}"
        above = cells[i - 1].metadata.get("course", {}).get("exercise") if i else None
        assert above == key, f"{nb.name} cell {i}: the cell above the checker of {key} is not its exercise cell"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_every_marked_cell_and_solution_belongs_to_a_checker(nb):
    for kind in ("exercise", "checker"):
        for key in course_cells(nb, kind):
            assert key in progress.EXERCISES, f"{nb.name}: a {kind} cell is marked {key}, which has no checker"
            assert key[:2] == nb.stem[:2], f"{nb.name}: a {kind} cell is marked {key}, another notebook's id"
    for key in solutions_for(nb):
        assert key in progress.EXERCISES, f"solutions/{nb.stem}.py has a block for {key}, which has no checker"


def test_every_solution_block_is_python():
    for nb in NOTEBOOKS:
        for key, source in solutions_for(nb).items():
            ast.parse(source, filename=f"solutions/{nb.stem}.py [{key}]")
    assert (ROOT / "solutions").is_dir()


PLACEHOLDERS = ("TODO(teacher)", "（老师：")  # what `python course.py new-exercise` leaves for the teacher to write


def test_no_placeholder_of_new_exercise_is_left():
    """A scaffold the teacher has not finished (task text, reference, solution) fails here, not in class."""
    places = [*sorted((ROOT / "course_lib" / "checkers").glob("nb*.py")), *sorted((ROOT / "solutions").glob("*.py"))]
    left = [path.relative_to(ROOT).as_posix() for path in places
            if any(mark in path.read_text(encoding="utf-8") for mark in PLACEHOLDERS)]
    for nb in NOTEBOOKS:
        for i, cell in enumerate(nbformat.read(nb, as_version=4).cells):
            if any(mark in cell.source for mark in PLACEHOLDERS):
                left.append(f"{nb.name} cell {i}")
    assert not left, f"placeholders of `python course.py new-exercise` still to fill in: {left}"


def test_a_checker_leaves_nothing_in_the_students_folder(tmp_path):
    """hypothesis keeps a cache in its working folder by default (.hypothesis/, i.e. notebooks/): the
    checkers send it to the student's own progress folder instead."""
    import subprocess
    import sys

    code = ("from course_lib.checkers import nb10\n"
            "from course_lib.evaluation import agreement\n"
            "nb10.check_kappa(lambda judge, code: agreement(judge, code)['kappa'])\n"  # right: every input is tried
            "from hypothesis.configuration import storage_directory\n"
            "print('storage:', storage_directory(intent_to_write=False).path)\n")
    env = {**__import__("os").environ, "COURSE_PROGRESS_DIR": str(tmp_path / "progress"), "PYTHONPATH": str(ROOT)}
    (tmp_path / "notebooks").mkdir()
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path / "notebooks", env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)
    assert done.returncode == 0 and "✅" in done.stdout, done.stderr
    assert list((tmp_path / "notebooks").iterdir()) == []
    # what hypothesis would keep goes to the student's progress folder (checkers keep nothing there today:
    # no example database, and no constants read from modules - checkers.first_difference)
    assert f"storage: {tmp_path / 'progress' / 'hypothesis'}" in done.stdout
