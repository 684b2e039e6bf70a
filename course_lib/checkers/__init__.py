"""Exercise checkers: one module per notebook (``nb00``, ``nb01`` ...).

Used in every notebook: the cell under each exercise calls one.

A checker takes what the student wrote, prints one line that starts with
✅ or ❌ and says why, and returns True/False.  It never raises, so an
untouched exercise does not stop "Run All"; ``tests/test_exercises.py``
proves that each checker passes on the reference solution in
``solutions/`` and fails on the untouched exercise.
"""

from __future__ import annotations

from typing import Any, Callable

from ..recording import Recording, recording

__all__ = ["Recording", "recording", "report", "safely"]


def report(ok: bool, message: str) -> bool:
    """Print ``✅ message`` or ``❌ message`` and return ``ok``."""
    print(("✅ 通过：" if ok else "❌ 未通过：") + message)
    return ok


def safely(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, str | None]:
    """Call student code; return ``(result, None)`` or ``(None, "ExceptionType: message")``."""
    try:
        return func(*args, **kwargs), None
    except Exception as exc:  # student code may raise anything
        return None, f"{type(exc).__name__}: {exc}"
