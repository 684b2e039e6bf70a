"""The reference answers the checkers compare with: the blocks of ``solutions/NN_*.py``, one source per exercise.

Used by the checkers (``reference.solution("06-1", "call_key")``), by the tests and by ``bench.mutants``:
what a student reads as the reference solution is exactly what their function is run beside.  A
block starts with a line ``# %% exercise NN-k`` and ends at the next such line; it is the exercise
cell as a right answer, using only ``client`` and ``MODEL`` from the notebook.

The solutions are in every copy of the course (a student's ``git clone`` or ZIP has them), so
the checkers can rely on them; a copy where ``solutions/`` was removed gets one Chinese sentence
(``check.reference_missing``) instead of a verdict.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from course_runtime.progress import base_exercise, exercise_order

from ..texts import t  # the check.* sentences are in the table once course_lib.checkers is imported

SOLUTIONS_DIR = Path(__file__).resolve().parent.parent.parent / "solutions"
BLOCK_START = re.compile(r"^# %% exercise (\S+)\s*$", re.M)
REFERENCE_MODEL = "reference-model"  # MODEL inside a reference run by a checker (the checker sets what it checks)

_loaded: dict[tuple[str, int, str], dict[str, Any]] = {}  # (path, mtime_ns, exercise) -> its namespace


class ReferenceMissing(LookupError):
    """The solutions file, or the exercise's block in it, is not there (the message is a Chinese sentence)."""


def solution_file(exercise: str, folder: Path | None = None) -> Path:
    """``solutions/NN_<name>.py`` of exercise ``"NN-k"``.  Raises ``ReferenceMissing`` when there is none."""
    folder = folder or SOLUTIONS_DIR
    found = sorted(folder.glob(f"{exercise.split('-')[0]}_*.py"))
    if not found:
        raise ReferenceMissing(t("check.reference_missing", exercise=exercise, path=folder))
    return found[0]


def solution_blocks(path: Path) -> dict[str, str]:
    """``{"06-1": source, ...}``: the blocks of one solutions file (read as UTF-8, a BOM allowed)."""
    parts = BLOCK_START.split(path.read_text(encoding="utf-8-sig"))
    return {key: body for key, body in zip(parts[1::2], parts[2::2])}


def solution_namespace(exercise: str, folder: Path | None = None) -> dict[str, Any]:
    """The names exercise ``exercise``'s block defines, run once per version of the file (its mtime) in a kernel.

    ``exercise`` is ``"NN-k"`` (the block ``NN-k``, or the latest ``NN-kvM`` when the task has a new
    version) or an exact ``"NN-kvM"``.

    The block runs with ``MODEL = REFERENCE_MODEL`` and ``client = None`` (a reference that calls the
    model is given a client by its checker).  Raises ``ReferenceMissing`` (a Chinese sentence) when
    the file or the block is missing.
    """
    path = solution_file(exercise, folder)
    key = (str(path), path.stat().st_mtime_ns, exercise)
    if key not in _loaded:
        blocks = solution_blocks(path)
        # "04-1" names the exercise in whatever version solutions/ holds now ("04-1v2" after its task changed)
        versions = sorted((k for k in blocks if base_exercise(k) == base_exercise(exercise)), key=exercise_order)
        source = blocks.get(exercise) or (blocks[versions[-1]] if versions and exercise == base_exercise(exercise) else None)
        if source is None:
            raise ReferenceMissing(t("check.reference_missing", exercise=exercise, path=path))
        namespace: dict[str, Any] = {"client": None, "MODEL": REFERENCE_MODEL, "__name__": f"solution_{exercise}"}
        exec(compile(source, f"{path}#{exercise}", "exec"), namespace)  # the course's own file, never a model's text
        _loaded[key] = namespace
    return _loaded[key]


def solution(exercise: str, name: str, folder: Path | None = None) -> Any:
    """The object ``name`` (a function, a schema ...) that exercise ``exercise``'s reference solution defines."""
    return solution_namespace(exercise, folder)[name]
