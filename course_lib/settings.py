"""The course's settings: the project root and the ``.env`` file.

Taught in notebook 00 (which model to talk to).

Kept apart so that both ``providers`` (which model to talk to) and
``local_server`` (the embedded llama-server) can read ``.env`` without
importing each other: ``providers`` imports ``local_server``, never the
other way round.  ``.env.example`` lists every setting; ``providers`` and
``local_server`` document the ones they read.
"""

from __future__ import annotations

import os
from pathlib import Path

from dotenv import load_dotenv

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def load_env(path: str | os.PathLike | None = None) -> bool:
    """Load ``.env`` (default: the project root's) without overriding variables already set.

    ``COURSE_IGNORE_DOTENV=1`` skips the file (``course.sh test`` sets it).

    Args:
        path: another file to read instead of ``PROJECT_ROOT / ".env"``.
    Returns:
        True if a file was read.
    """
    if os.environ.get("COURSE_IGNORE_DOTENV") == "1":  # the test suite pins the local model
        return False
    return load_dotenv(path or PROJECT_ROOT / ".env", override=False)
