"""Exercise checkers: one module per notebook (``nb00``, ``nb01`` ...).

Used in every notebook: the cell under each exercise calls one.

A checker takes what the student wrote, prints one line that starts with
✅ or ❌ and says why, and returns a ``CheckResult`` (true when passed).
Jupyter shows nothing more for that result, so the checker cell's output is
just the printed line.  It never raises, so an untouched exercise does not
stop "Run All"; ``tests/test_exercises.py`` proves that each checker passes
on the reference solution in ``solutions/`` and fails on the untouched
exercise.  The sentences come from ``course_lib.texts`` (``check.*`` keys),
through this package's ``t``, which keeps the key beside the sentence.  They
are written in ``sentences.py`` here, beside the checkers: importing this
package hands that table to ``texts.register`` (texts.py, first in the import
map, does not import the checkers).

Each checker is decorated with ``@exercise("NN-k")``: its result (the
exercise, passed or not, the key of the sentence it printed) is kept on the
student's computer and, in class, sent to the teacher (``course_lib.progress``,
which says exactly what is sent).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

from .. import progress, texts
from ..recording import Recording, recording
from . import sentences

__all__ = ["CheckResult", "Hint", "Recording", "exercise", "recording", "report", "safely", "t"]

texts.register("zh", sentences.ZH)  # the check.* sentences: from here on texts.t finds them


class Hint(str):
    """A checker's sentence (a ``str``) that also knows its texts key (``.key``; the sentences are in ``sentences.py``)."""

    key: str

    def __new__(cls, text: str, key: str) -> "Hint":
        hint = super().__new__(cls, text)
        hint.key = key
        return hint


def t(key: str, **fields: object) -> Hint:
    """``texts.t(key, **fields)``, as a ``Hint`` that remembers ``key`` (what ``progress`` records)."""
    return Hint(texts.t(key, **fields), key)


@dataclass(frozen=True)
class CheckResult:
    """What a checker found: ``passed`` and the ``message`` it printed.

    True in an ``if`` when passed.  As the last expression of a notebook cell
    it displays nothing (``_ipython_display_``): the ✅/❌ line was printed
    already, and a bare ``True``/``False`` under it would only confuse.
    """

    passed: bool
    message: str
    hint: str = ""  # the texts key of ``message`` ("" when it was not made by ``t``)

    def __bool__(self) -> bool:
        return self.passed

    def _ipython_display_(self) -> None:
        """Show nothing in Jupyter (the checker has printed its line)."""


def report(ok: bool, message: str) -> CheckResult:
    """Print ``✅ 通过：message`` or ``❌ 未通过：message`` and return ``CheckResult(ok, message)``."""
    print(texts.t("check.passed" if ok else "check.failed", message=message))
    return CheckResult(bool(ok), str(message), getattr(message, "key", ""))


def exercise(exercise_id: str) -> Callable[[Callable[..., CheckResult]], Callable[..., CheckResult]]:
    """Decorator: the checker of exercise ``exercise_id`` (``"NN-k"``, one of ``progress.EXERCISES``).

    The wrapped checker runs as before; its ``CheckResult`` is then recorded
    (``progress.record``).  Recording never changes the result and never
    raises: a full disk or a read-only folder only means this one result is
    not kept.
    """
    if exercise_id not in progress.EXERCISES:
        raise ValueError(texts.t("progress.unknown_exercise", exercise=exercise_id))

    def decorate(checker: Callable[..., CheckResult]) -> Callable[..., CheckResult]:
        @functools.wraps(checker)
        def checked(*args: Any, **kwargs: Any) -> CheckResult:
            result = checker(*args, **kwargs)
            try:
                progress.record(exercise_id, bool(result), getattr(result, "hint", ""))
            except Exception:  # noqa: BLE001 - keeping the result is a service to the student, never a failure
                pass
            return result

        checked.exercise_id = exercise_id  # type: ignore[attr-defined]
        return checked

    return decorate


def safely(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, str | None]:
    """Call student code; return ``(result, None)`` or ``(None, "ExceptionType: message")``."""
    try:
        return func(*args, **kwargs), None
    except Exception as exc:  # student code may raise anything
        return None, f"{type(exc).__name__}: {exc}"
