"""``python course.py new-exercise NN``: the scaffold is wired up, fails until the teacher fills it in, then works."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys

import nbformat
import pytest

from notebook_cells import ROOT, run_checker

from course_runtime import progress
from course_lib.checkers import new_exercise


@pytest.fixture
def course(tmp_path):
    """A copy of the places an exercise lives: notebooks/06, the checkers, the solutions."""
    (tmp_path / "notebooks").mkdir()
    shutil.copy(ROOT / "notebooks" / "06_agent_loop.ipynb", tmp_path / "notebooks")
    shutil.copytree(ROOT / "course_lib" / "checkers", tmp_path / "course_lib" / "checkers",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "solutions", tmp_path / "solutions")
    return tmp_path


def load_checkers(path, monkeypatch, exercise):
    """Import the written ``nb06.py`` as a module of the real ``course_lib.checkers`` package."""
    monkeypatch.setattr(progress, "EXERCISES", (*progress.EXERCISES, exercise))
    spec = importlib.util.spec_from_file_location("course_lib.checkers._scaffolded_nb06", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_new_exercise_is_written_in_every_place_and_registered(course):
    made = new_exercise.scaffold("06", "count_words", root=course)
    assert made["exercise"] == "06-3"
    cells = nbformat.read(course / "notebooks" / "06_agent_loop.ipynb", as_version=4).cells
    marked = [(i, c.metadata.get("course")) for i, c in enumerate(cells) if c.metadata.get("course", {}).get("exercise") == "06-3"
              or c.metadata.get("course", {}).get("checker") == "06-3"]
    assert [m for _, m in marked] == [{"exercise": "06-3"}, {"checker": "06-3"}]
    assert marked[1][0] == marked[0][0] + 1 and cells[marked[0][0] - 1].cell_type == "markdown"
    assert "count_words" in cells[marked[0][0] - 1].source and "<details>" in cells[marked[0][0] - 1].source
    nbformat.validate(nbformat.read(course / "notebooks" / "06_agent_loop.ipynb", as_version=4))
    assert "06-3" in progress.exercise_ids(course / "course_lib" / "checkers")  # the decorator registers it
    assert "# %% exercise 06-3" in (course / "solutions" / "06_agent_loop.py").read_text(encoding="utf-8")
    assert new_exercise.next_exercise("06", course / "course_lib" / "checkers") == "06-4"


def test_the_scaffold_fails_until_filled_in_and_then_checks_behaviour(course, monkeypatch, capsys):
    new_exercise.scaffold("06", "count_words", root=course)
    path = course / "course_lib" / "checkers" / "nb06.py"
    module = load_checkers(path, monkeypatch, "06-3")
    untouched: dict = {}
    cells = nbformat.read(course / "notebooks" / "06_agent_loop.ipynb", as_version=4).cells
    exercise_cell = next(c for c in cells if c.metadata.get("course", {}).get("exercise") == "06-3")
    exec(exercise_cell.source, untouched)
    assert module.check_count_words(untouched["count_words"]).passed is False
    assert "❌" in capsys.readouterr().out  # the TODO reference: one ❌ line, no traceback

    # The teacher writes the reference (and its inputs) - a few lines - and the solution.
    text = path.read_text(encoding="utf-8")
    text = text.replace('raise NotImplementedError("TODO(teacher): the reference answer of exercise 06-3")',
                        "return len(x.split())")
    text = text.replace("st.tuples(st.integers(-100, 100))", "st.tuples(st.text())")
    text = text.replace("examples=[(0,), (1,), (-1,)]", 'examples=[("",), ("a b",), ("  a  b ",)]')
    path.write_text(text, encoding="utf-8")
    module = load_checkers(path, monkeypatch, "06-3")
    assert module.check_count_words(lambda x: len(x.split())).passed is True
    assert module.check_count_words(lambda x: x.count(" ") + 1).passed is False  # a plausible wrong answer
    assert module.check_count_words(lambda x: 2).passed is False
    out = capsys.readouterr().out
    assert "count_words('')" in out or "count_words(\"\")" in out


def test_bad_requests_get_a_clear_sentence(course, capsys):
    with pytest.raises(new_exercise.ScaffoldError, match="99"):
        new_exercise.scaffold("99", "f", root=course)
    with pytest.raises(new_exercise.ScaffoldError, match="--name"):
        new_exercise.scaffold("06", "2bad", root=course)
    with pytest.raises(new_exercise.ScaffoldError, match="call_key"):
        new_exercise.scaffold("06", "call_key", root=course)  # check_call_key exists already
    assert "06-3" not in progress.exercise_ids(course / "course_lib" / "checkers")  # nothing half-written


def test_the_command_line_says_what_is_wrong(tmp_path):
    """The command (``python course.py new-exercise`` hands over to it) with a notebook that does not exist:
    a Chinese sentence, exit 2, no traceback."""
    done = subprocess.run([sys.executable, "-m", "course_lib.checkers.new_exercise", "42"], cwd=ROOT,
                          capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert done.returncode == 2 and "42" in done.stderr and "Traceback" not in done.stderr
