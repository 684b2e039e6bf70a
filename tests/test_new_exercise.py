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


def copy_course(folder, notebook: str):
    """A copy in ``folder`` of the places an exercise lives: ``notebooks/<notebook>``, the checkers, the solutions."""
    (folder / "notebooks").mkdir()
    shutil.copy(ROOT / "notebooks" / notebook, folder / "notebooks")
    shutil.copytree(ROOT / "course_lib" / "checkers", folder / "course_lib" / "checkers",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "solutions", folder / "solutions")
    return folder


@pytest.fixture
def course(tmp_path):
    return copy_course(tmp_path, "06_agent_loop.ipynb")


def next_id(notebook: str = "06", step: int = 1) -> str:
    """The id ``new-exercise`` gives next in ``notebook`` (``step`` 2: the one after), from today's list - never a fixed number."""
    numbers = [int(e.split("-")[1]) for e in progress.EXERCISES if e.startswith(notebook + "-")]
    return f"{notebook}-{max(numbers, default=0) + step}"


NEW = next_id()  # "06-3" while notebook 06 has two exercises
NAME = "words_in_scaffold_test"  # not the guide's count_words: a teacher who followed the guide has that one


def load_checkers(path, monkeypatch, exercise):
    """Import a written ``nbNN.py`` as a module of the real ``course_lib.checkers`` package."""
    monkeypatch.setattr(progress, "EXERCISES", (*progress.EXERCISES, exercise))
    name = f"course_lib.checkers._scaffolded_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


def test_a_new_exercise_is_written_in_every_place_and_registered(course):
    made = new_exercise.scaffold("06", NAME, root=course)
    assert made["exercise"] == NEW
    cells = nbformat.read(course / "notebooks" / "06_agent_loop.ipynb", as_version=4).cells
    marked = [(i, c.metadata.get("course")) for i, c in enumerate(cells) if c.metadata.get("course", {}).get("exercise") == NEW
              or c.metadata.get("course", {}).get("checker") == NEW]
    assert [m for _, m in marked] == [{"exercise": NEW}, {"checker": NEW}]
    assert marked[1][0] == marked[0][0] + 1 and cells[marked[0][0] - 1].cell_type == "markdown"
    assert NAME in cells[marked[0][0] - 1].source and "<details>" in cells[marked[0][0] - 1].source
    nbformat.validate(nbformat.read(course / "notebooks" / "06_agent_loop.ipynb", as_version=4))
    assert NEW in progress.exercise_ids(course / "course_lib" / "checkers")  # the decorator registers it
    assert f"# %% exercise {NEW}" in (course / "solutions" / "06_agent_loop.py").read_text(encoding="utf-8")
    assert new_exercise.next_exercise("06", course / "course_lib" / "checkers") == next_id(step=2)


def test_the_scaffold_fails_until_filled_in_and_then_checks_behaviour(course, monkeypatch, capsys):
    new_exercise.scaffold("06", NAME, root=course)
    path = course / "course_lib" / "checkers" / "nb06.py"
    module = load_checkers(path, monkeypatch, NEW)
    untouched: dict = {}
    cells = nbformat.read(course / "notebooks" / "06_agent_loop.ipynb", as_version=4).cells
    exercise_cell = next(c for c in cells if c.metadata.get("course", {}).get("exercise") == NEW)
    exec(exercise_cell.source, untouched)
    assert getattr(module, f"check_{NAME}")(untouched[NAME]).passed is False
    assert "❌" in capsys.readouterr().out  # the TODO solution: one ❌ line, no traceback

    # The teacher writes the reference solution - the one source the checker compares with - and the inputs.
    from course_lib.checkers import reference

    monkeypatch.setattr(reference, "SOLUTIONS_DIR", course / "solutions")
    solutions = course / "solutions" / "06_agent_loop.py"
    solution = solutions.read_text(encoding="utf-8").replace(
        f'raise NotImplementedError("TODO(teacher): the reference solution of exercise {NEW}")', "return len(x.split())")
    solutions.write_text(solution, encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    text = text.replace("st.tuples(st.integers(-100, 100))", "st.tuples(st.text())")
    text = text.replace("examples=[(0,), (1,), (-1,)]", 'examples=[("",), ("a b",), ("  a  b ",)]')
    path.write_text(text, encoding="utf-8")
    module = load_checkers(path, monkeypatch, NEW)
    assert getattr(module, f"check_{NAME}")(lambda x: len(x.split())).passed is True
    assert getattr(module, f"check_{NAME}")(lambda x: x.count(" ") + 1).passed is False  # a plausible wrong answer
    assert getattr(module, f"check_{NAME}")(lambda x: 2).passed is False
    out = capsys.readouterr().out
    assert f"{NAME}('')" in out or f'{NAME}("")' in out


def test_bad_requests_get_a_clear_sentence(course, capsys):
    with pytest.raises(new_exercise.ScaffoldError, match="99"):
        new_exercise.scaffold("99", "f", root=course)
    with pytest.raises(new_exercise.ScaffoldError, match="--name"):
        new_exercise.scaffold("06", "2bad", root=course)
    with pytest.raises(new_exercise.ScaffoldError, match="call_key"):
        new_exercise.scaffold("06", "call_key", root=course)  # check_call_key exists already
    assert NEW not in progress.exercise_ids(course / "course_lib" / "checkers")  # nothing half-written


def test_the_command_line_says_what_is_wrong(tmp_path):
    """The command (``python course.py new-exercise`` hands over to it) with a notebook that does not exist:
    a Chinese sentence, exit 2, no traceback."""
    done = subprocess.run([sys.executable, "-m", "course_lib.checkers.new_exercise", "42"], cwd=ROOT,
                          capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert done.returncode == 2 and "42" in done.stderr and "Traceback" not in done.stderr


@pytest.fixture
def course04(tmp_path):
    return copy_course(tmp_path, "04_sports_equipment.ipynb")


def test_a_changed_task_gets_a_new_version_the_class_page_tells_apart(course04, monkeypatch, capsys):
    """Issue 54: after 04-1's task changes, an answer to the old task must not count for the new one."""
    from course_lib.checkers import reference
    from course_runtime import progress_page, progress_service

    old = next(e for e in progress.EXERCISES if progress.base_exercise(e) == "04-1")  # "04-1", or "04-1v2" after a bump
    version = progress.exercise_order(old)[2]
    new, after = f"04-1v{version + 1}", f"04-1v{version + 2}"
    made = new_exercise.new_version("04-1", root=course04)
    assert (made["old"], made["exercise"]) == (old, new)
    ids = progress.exercise_ids(course04 / "course_lib" / "checkers")
    assert new in ids and old not in ids
    cells = nbformat.read(course04 / "notebooks" / "04_sports_equipment.ipynb", as_version=4).cells
    assert [c.metadata["course"] for c in cells if new in c.metadata.get("course", {}).values()] == \
        [{"exercise": new}, {"checker": new}]
    assert f"# %% exercise {new}" in (course04 / "solutions" / "04_sports_equipment.py").read_text(encoding="utf-8")

    # the checker still finds its reference by the exercise's plain name, and records the new id
    monkeypatch.setattr(reference, "SOLUTIONS_DIR", course04 / "solutions")
    module = load_checkers(course04 / "course_lib" / "checkers" / "nb04.py", monkeypatch, new)
    answer = reference.solution("04-1", "query_by_price_range")
    assert module.check_price_tool(answer, reference.solution("04-1", "PRICE_TOOL")).passed is True
    assert progress.read_results()[-1]["exercise"] == new

    # the page: old results stay in a column of their own, marked unknown; the new column counts only the new
    monkeypatch.setattr(progress_service, "EXERCISES", tuple(e if e != old else new for e in progress.EXERCISES))
    monkeypatch.setattr(progress_page, "EXERCISES", progress_service.EXERCISES)
    now = 1_000.0
    stored = [{"name": "王小明", "exercise": old, "passed": True, "hint": "", "attempt": 1, "time": "", "received": now},
              {"name": "李华", "exercise": new, "passed": True, "hint": "", "attempt": 1, "time": "", "received": now}]
    view = progress_page.class_view(stored, ["王小明", "李华"], now=now)
    assert view["unknown"] == [old] and new in view["exercises"]
    assert view["passed"][new] == 1

    assert new_exercise.new_version(new, root=course04)["exercise"] == after
    with pytest.raises(new_exercise.ScaffoldError, match="99-1"):
        new_exercise.new_version("99-1", root=course04)
