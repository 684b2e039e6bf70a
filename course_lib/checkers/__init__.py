"""Exercise checkers: one module per notebook (``nb00``, ``nb01`` ...).

A checker takes what the student wrote, prints one line that starts with
✅ or ❌ and says why, and returns True/False.  It never raises, so an
untouched exercise does not stop "Run All"; ``tests/test_exercises.py``
proves that each checker passes on the reference solution in
``solutions/`` and fails on the untouched exercise.
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator


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


@dataclass
class Recording:
    """What ``recording`` saw: ``requests[i]`` are the kwargs of request i, ``responses[i]`` its result."""

    requests: list[dict] = field(default_factory=list)
    responses: list[Any] = field(default_factory=list)


@contextlib.contextmanager
def recording(client: Any) -> Iterator[Recording]:
    """Record every ``client.chat.completions.create`` call made inside the ``with`` block.

    The real method still runs (on whatever model the client talks to) and is
    restored on exit.
    """
    completions = client.chat.completions
    original = completions.create
    seen = Recording()

    def create(*args: Any, **kwargs: Any) -> Any:
        # A copy: student code may keep appending to the same messages list afterwards.
        seen.requests.append(copy.deepcopy(kwargs))
        response = original(*args, **kwargs)
        seen.responses.append(response)
        return response

    completions.create = create
    try:
        yield seen
    finally:
        completions.create = original
