"""Exercise checkers: one module per notebook (``nb00``, ``nb01`` ...).

Used in every notebook: the cell under each exercise calls one.

A checker takes what the student wrote, prints one line that starts with
✅ or ❌ and says why, and returns a ``CheckResult`` (true when passed).
Jupyter shows nothing more for that result, so the checker cell's output is
just the printed line.  It never raises, so an untouched exercise does not
stop "Run All"; ``tests/test_exercises.py`` proves that each checker passes
on the reference solution in ``solutions/`` and fails on the untouched
exercise.  The sentences come from ``course_lib.texts`` (``check.*`` keys).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..recording import Recording, recording
from ..texts import t

__all__ = ["CheckResult", "Recording", "recording", "report", "safely"]


@dataclass(frozen=True)
class CheckResult:
    """What a checker found: ``passed`` and the ``message`` it printed.

    True in an ``if`` when passed.  As the last expression of a notebook cell
    it displays nothing (``_ipython_display_``): the ✅/❌ line was printed
    already, and a bare ``True``/``False`` under it would only confuse.
    """

    passed: bool
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def _ipython_display_(self) -> None:
        """Show nothing in Jupyter (the checker has printed its line)."""


def report(ok: bool, message: str) -> CheckResult:
    """Print ``✅ 通过：message`` or ``❌ 未通过：message`` and return ``CheckResult(ok, message)``."""
    print(t("check.passed" if ok else "check.failed", message=message))
    return CheckResult(bool(ok), message)


def safely(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, str | None]:
    """Call student code; return ``(result, None)`` or ``(None, "ExceptionType: message")``."""
    try:
        return func(*args, **kwargs), None
    except Exception as exc:  # student code may raise anything
        return None, f"{type(exc).__name__}: {exc}"
