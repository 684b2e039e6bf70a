"""Read the exercise / checker cells of a notebook and the matching reference solutions.

Conventions (all notebooks follow them):
* an exercise cell has ``metadata.course.exercise = "NN-k"``; the student edits it;
* its checker cell has ``metadata.course.checker = "NN-k"``; its last line is
  one expression that calls a checker from ``course_lib.checkers.nbNN`` and
  evaluates to a ``checkers.CheckResult`` (``.passed`` True/False);
* ``solutions/NN_*.py`` holds the reference solutions, one block per exercise,
  each block starting with a line ``# %% exercise NN-k``;
* exercise and solution code may use only ``client`` and ``MODEL`` from the
  rest of the notebook; everything else they import themselves.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def course_cells(path: Path, kind: str) -> dict[str, str]:
    nb = nbformat.read(path, as_version=4)
    out = {}
    for cell in nb.cells:
        key = cell.metadata.get("course", {}).get(kind)
        if key:
            out[key] = cell.source
    return out


def solutions_for(path: Path) -> dict[str, str]:
    """``{"06-1": block source, ...}`` of ``solutions/<notebook stem>.py`` (read as the checkers read it)."""
    from course_lib.checkers.reference import solution_blocks

    sol = ROOT / "solutions" / (path.stem + ".py")
    return solution_blocks(sol) if sol.exists() else {}


def run_checker(source: str, namespace: dict) -> object:
    """Execute a checker cell in ``namespace`` and return the value of its last expression."""
    tree = ast.parse(source)
    last = tree.body.pop()
    assert isinstance(last, ast.Expr), "a checker cell must end with an expression"
    exec(compile(tree, "<checker>", "exec"), namespace)
    return eval(compile(ast.Expression(last.value), "<checker>", "eval"), namespace)


def load_solution(stem: str, key: str) -> dict:
    """Run one reference-solution block of solutions/<stem>.py and return its namespace."""
    from course_runtime.progress import base_exercise, exercise_order

    blocks = solutions_for(ROOT / "notebooks" / f"{stem}.ipynb")
    if key not in blocks:  # "04-1": the exercise in whatever version it has now ("04-1v2")
        key = max((k for k in blocks if base_exercise(k) == key), key=exercise_order)
    namespace = {"client": None, "MODEL": "fake-model", "__name__": "__solution__"}
    exec(blocks[key], namespace)
    return namespace
