"""``python course.py new-exercise NN``: the scaffold of a new exercise in notebook NN, for a teacher.

Not taught in a notebook; the teacher's guide (「改一道练习、加一道练习」) and docs/exercises.md walk
through it.  One command writes every place an exercise lives, already linked to each other:

* the notebook ``notebooks/NN_*.ipynb``, after its last checker cell: the task (a Markdown cell
  with a ``<details>`` hint), the exercise cell (``metadata.course.exercise = "NN-k"``, tag
  ``exercise``) and the checker cell (``metadata.course.checker = "NN-k"``, tag ``checker``) -
  the metadata JupyterLab keeps out of sight, which the tests read;
* the checker ``check_<name>`` at the end of ``course_lib/checkers/nbNN.py``, decorated with
  ``@exercise("NN-k")`` - that decorator is the registration: ``progress.EXERCISES`` (what the
  teacher's page lists) is read from it; the checker compares the student's function with the
  reference solution below (``checkers.same_behaviour`` with ``reference.solution``: one source);
* the reference solution block ``# %% exercise NN-k`` at the end of ``solutions/NN_*.py``.

Three TODOs are left for the teacher - the task's words, the cases to try, the reference
solution - and until they are written the untouched exercise fails (as it should) and so does
``python course.py exercises`` (its solution does not pass yet), so a half-made exercise cannot
slip through.  Files are read and written as UTF-8; the notebook with ``nbformat``.
"""

from __future__ import annotations

import argparse
import keyword
import re
import sys
from pathlib import Path

from course_runtime.progress import CHECKERS_DIR, EXERCISE_ID, base_exercise, exercise_ids, exercise_order
from ..texts import t

ROOT = CHECKERS_DIR.parent.parent  # the course folder


class ScaffoldError(Exception):
    """A new exercise cannot be written; the message is a Chinese sentence for the teacher."""


def next_exercise(notebook: str, checkers: Path = CHECKERS_DIR) -> str:
    """The id the next exercise of notebook ``notebook`` (``"06"``) gets: ``"06-3"`` after 06-1 and 06-2."""
    numbers = [k for n, k, _ in map(exercise_order, exercise_ids(checkers)) if n == int(notebook)]
    return f"{notebook}-{max(numbers, default=0) + 1}"


def _notebook_path(root: Path, notebook: str) -> Path:
    found = sorted((root / "notebooks").glob(f"{notebook}_*.ipynb"))
    if len(found) != 1:
        raise ScaffoldError(t("new_exercise.no_notebook", notebook=notebook, folder=root / "notebooks"))
    return found[0]


def task_cell(exercise: str, name: str) -> str:
    """The Markdown of the task, with the TODO the teacher replaces and a ``<details>`` hint."""
    return t("new_exercise.task", exercise=exercise, k=exercise.split("-")[1], name=name)


def exercise_cell(name: str) -> str:
    """The code the student starts from: the function with a wrong body."""
    return t("new_exercise.exercise_code", name=name)


def checker_cell(notebook: str, name: str) -> str:
    """The checker cell: import the checker, call it with the student's function (its last expression)."""
    return f"from course_lib.checkers.nb{notebook} import check_{name}\n\ncheck_{name}({name})"


def checker_code(exercise: str, name: str) -> str:
    """The block appended to ``checkers/nbNN.py``: the decorated checker, comparing with the solution block."""
    return f'''

# -- {exercise}: written by `python course.py new-exercise {exercise.split("-")[0]}`; the teacher fills in the TODOs --

from hypothesis import strategies as st  # noqa: E402 - added with exercise {exercise}

from . import CheckResult, exercise, same_behaviour  # noqa: E402
from .reference import solution  # noqa: E402


@exercise("{exercise}")
def check_{name}({name}: object) -> CheckResult:
    """Exercise {exercise}: ``{name}(x)`` returns what the reference solution returns (``solutions/``,
    the block ``# %% exercise {exercise}``: one source - the checker runs the very code a student reads).

    TODO(teacher): put the cases the task names in ``examples`` (one tuple of arguments each), and
    say in ``inputs`` what else to try (a hypothesis strategy of argument tuples; checkers.first_difference).
    """
    return same_behaviour({name}, solution("{exercise}", "{name}"), "{name}",
                          inputs=st.tuples(st.integers(-100, 100)),
                          examples=[(0,), (1,), (-1,)])
'''


def solution_code(exercise: str, name: str) -> str:
    """The block appended to ``solutions/NN_*.py``."""
    return f'''

# %% exercise {exercise}
# TODO(teacher): the reference solution of exercise {exercise} (`python course.py exercises` runs its checker on it).
def {name}(x):
    raise NotImplementedError("TODO(teacher): the reference solution of exercise {exercise}")
'''


def scaffold(notebook: str, name: str, root: Path = ROOT) -> dict[str, object]:
    """Write a new exercise of notebook ``notebook`` (``"06"``) whose student function is ``name``.

    Args:
        notebook: two digits, a notebook that exists (``notebooks/06_*.ipynb``).
        name: the function the student writes: a Python identifier not yet used in ``checkers/nbNN.py``.
        root: the course folder (default: this one).
    Returns:
        ``{"exercise": "06-3", "files": [paths written]}``.
    Raises:
        ScaffoldError: the notebook does not exist, or ``name`` is not a usable function name.
    """
    import nbformat

    if not re.fullmatch(r"\d{2}", notebook or ""):
        raise ScaffoldError(t("new_exercise.bad_notebook", notebook=notebook))
    if not name.isidentifier() or keyword.iskeyword(name) or not name.isascii():
        raise ScaffoldError(t("new_exercise.bad_name", name=name))
    notebook_path = _notebook_path(root, notebook)
    checkers_dir = root / "course_lib" / "checkers"
    checker_path = checkers_dir / f"nb{notebook}.py"
    solution_path = root / "solutions" / (notebook_path.stem + ".py")
    checker_text = checker_path.read_text(encoding="utf-8") if checker_path.is_file() else \
        f'"""Checkers for notebook {notebook}."""\n\nfrom __future__ import annotations\n'
    if re.search(rf"^def check_{re.escape(name)}\b", checker_text, re.M):
        raise ScaffoldError(t("new_exercise.name_taken", name=name, path=checker_path))
    exercise_id = next_exercise(notebook, checkers_dir)

    nb = nbformat.read(notebook_path, as_version=4)
    checker_places = [i for i, cell in enumerate(nb.cells) if cell.metadata.get("course", {}).get("checker")]
    at = checker_places[-1] + 1 if checker_places else len(nb.cells)
    cells = [
        nbformat.v4.new_markdown_cell(task_cell(exercise_id, name)),
        nbformat.v4.new_code_cell(exercise_cell(name), metadata={"course": {"exercise": exercise_id},
                                                                 "tags": ["exercise"]}),
        nbformat.v4.new_code_cell(checker_cell(notebook, name), metadata={"course": {"checker": exercise_id},
                                                                          "tags": ["checker"]}),
    ]
    nb.cells[at:at] = cells  # nbformat 4.5 notebooks: each new cell has its own random id
    nbformat.write(nb, notebook_path)

    checker_path.write_text(checker_text.rstrip("\n") + "\n" + checker_code(exercise_id, name), encoding="utf-8")
    solution_text = solution_path.read_text(encoding="utf-8") if solution_path.is_file() else \
        t("new_exercise.solutions_header", notebook=notebook_path.name) + "\n"
    solution_path.write_text(solution_text.rstrip("\n") + "\n" + solution_code(exercise_id, name), encoding="utf-8")
    return {"exercise": exercise_id, "files": [notebook_path, checker_path, solution_path]}


def new_version(exercise: str, root: Path = ROOT) -> dict[str, object]:
    """Give exercise ``exercise`` (``"04-1"``) a new version after its task changed: ``"04-1"`` -> ``"04-1v2"``.

    The id changes in the three places that name it exactly - the notebook's exercise and checker
    cells (metadata), the ``@exercise(...)`` decorator, the ``# %% exercise`` line in ``solutions/`` -
    so results recorded for the old task keep the old id: the class page shows them in a column of
    their own and never counts them as answers to the new task.  Everything else names the exercise
    without its version (``reference.solution("04-1", ...)``, the guide's line, the blind answers,
    the mutation list) and needs no change.  Nothing is written unless all three places are found.

    Returns:
        ``{"old": "04-1", "exercise": "04-1v2", "files": [paths written]}``.
    Raises:
        ScaffoldError: an id that is not an exercise with a checker, or a place that is missing.
    """
    import nbformat

    checkers_dir = root / "course_lib" / "checkers"
    if not EXERCISE_ID.fullmatch(exercise or ""):
        raise ScaffoldError(t("new_exercise.unknown_exercise", exercise=exercise))
    current = [i for i in exercise_ids(checkers_dir) if base_exercise(i) == base_exercise(exercise)]
    if not current:
        raise ScaffoldError(t("new_exercise.unknown_exercise", exercise=exercise))
    old = current[-1]
    notebook, number, version = exercise_order(old)
    if version >= 99:
        raise ScaffoldError(t("new_exercise.unknown_exercise", exercise=exercise))
    new = f"{notebook:02d}-{number}v{version + 1}"
    notebook_path = _notebook_path(root, f"{notebook:02d}")
    checker_path = checkers_dir / f"nb{notebook:02d}.py"
    solution_path = root / "solutions" / (notebook_path.stem + ".py")

    nb = nbformat.read(notebook_path, as_version=4)
    marked = [cell.metadata["course"] for cell in nb.cells
              if any(cell.metadata.get("course", {}).get(kind) == old for kind in ("exercise", "checker"))]
    decorator = re.compile(rf"""@exercise\(\s*(["']){re.escape(old)}\1\s*\)""")
    checker_text = checker_path.read_text(encoding="utf-8")
    marker = re.compile(rf"^# %% exercise {re.escape(old)}[ \t]*$", re.M)
    solution_text = solution_path.read_text(encoding="utf-8") if solution_path.is_file() else ""
    found = {notebook_path: len(marked) == 2, checker_path: len(decorator.findall(checker_text)) == 1,
             solution_path: len(marker.findall(solution_text)) == 1}
    missing = [str(path) for path, ok in found.items() if not ok]
    if missing:
        raise ScaffoldError(t("new_exercise.version_places", exercise=old, places="、".join(missing)))
    for course in marked:
        for kind in ("exercise", "checker"):
            if course.get(kind) == old:
                course[kind] = new
    nbformat.write(nb, notebook_path)
    checker_path.write_text(decorator.sub(f'@exercise("{new}")', checker_text), encoding="utf-8")
    solution_path.write_text(marker.sub(f"# %% exercise {new}", solution_text), encoding="utf-8")
    return {"old": old, "exercise": new, "files": [notebook_path, checker_path, solution_path]}


def main(argv: list[str] | None = None) -> int:
    """``python -m course_lib.checkers.new_exercise NN [--name FUNCTION]``: write the scaffold, say what is left."""
    parser = argparse.ArgumentParser(prog="python course.py new-exercise", description=t("new_exercise.usage"))
    parser.add_argument("notebook", nargs="?", default="", help=t("new_exercise.arg_notebook"))
    parser.add_argument("--name", default=None, help=t("new_exercise.arg_name"))
    parser.add_argument("--new-version", default=None, metavar="NN-k", help=t("new_exercise.arg_new_version"))
    args = parser.parse_args(argv)
    if args.new_version:
        try:
            made = new_version(args.new_version)
        except ScaffoldError as exc:
            print(exc, file=sys.stderr)
            return 2
        files = "\n".join(f"  {Path(p).relative_to(ROOT).as_posix()}" for p in made["files"])
        print(t("new_exercise.versioned", old=made["old"], exercise=made["exercise"], files=files))
        return 0
    notebook = args.notebook[:2] if args.notebook[:2].isdigit() else args.notebook
    name = args.name or f"exercise_{notebook}_{next_exercise(notebook).split('-')[1]}"
    try:
        made = scaffold(notebook, name)
    except ScaffoldError as exc:
        print(exc, file=sys.stderr)
        return 2
    files = "\n".join(f"  {Path(p).relative_to(ROOT).as_posix()}" for p in made["files"])
    print(t("new_exercise.done", exercise=made["exercise"], files=files, name=name, notebook=notebook))
    return 0


if __name__ == "__main__":
    sys.exit(main())
