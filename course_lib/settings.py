"""The course's settings: the project root and the ``.env`` file.

Taught in notebook 00 (which model to talk to).

Kept apart so that both ``providers`` (which model to talk to) and
``local_server`` (the embedded llama-server) can read ``.env`` without
importing each other: ``providers`` imports ``local_server``, never the
other way round.  ``.env.example`` lists every setting; ``providers`` and
``local_server`` document the ones they read.

``.env`` versus the environment
-------------------------------
A variable written in ``.env`` wins over the same variable exported in the
shell (``~/.bashrc``, a system tool): ``.env`` is the file the course tells
students to edit, so what they wrote there is what is used.  A variable that
is only in the environment is still read.  ``load_env()`` can be called again
after ``.env`` was edited (every ``get_provider()`` does): changed values take
effect, and a line removed from ``.env`` gives the variable back its
environment value (or removes it) - no kernel restart.  ``source_of(name)``
says where a value came from (the ids ".env" or "environment"), and
``source_label`` turns that into the words a message shows (.env / 环境变量),
without ever showing the value.
"""

from __future__ import annotations

import os
from pathlib import Path

from dotenv import dotenv_values

from .texts import t  # texts imports nothing from course_lib, so no import cycle

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# Where the variables set from .env came from: name -> the environment's own value
# before .env replaced it (None = it was not set).  Lets a later load_env() undo a
# line that was removed from .env, and lets source_of() tell .env from the environment.
_FROM_DOTENV: dict[str, str | None] = {}
# name -> the value .env set, to notice a value changed behind our back (e.g. a test or a cell).
_DOTENV_VALUES: dict[str, str] = {}

# Neutral ids; what a student reads is source_label(source), from texts.py.
SOURCE_DOTENV = ".env"
SOURCE_ENVIRONMENT = "environment"


def load_env(path: str | os.PathLike | None = None) -> bool:
    """Load ``.env`` (default: the project root's) into ``os.environ``; ``.env`` wins.

    Every variable written in the file replaces the same variable of the
    environment.  Called again, it re-reads the file: edited values are
    updated, and a variable that an earlier call took from ``.env`` but that
    is no longer in it gets back its environment value (or is removed).
    ``COURSE_IGNORE_DOTENV=1`` skips the file (``course.sh test`` sets it).

    Args:
        path: another file to read instead of ``PROJECT_ROOT / ".env"``.
    Returns:
        True if a file was read.
    """
    if os.environ.get("COURSE_IGNORE_DOTENV") == "1":  # the test suite pins the local model
        return False
    file = Path(path or PROJECT_ROOT / ".env")
    values = {k: v for k, v in dotenv_values(file).items() if v is not None} if file.is_file() else {}
    for name in list(_FROM_DOTENV):
        if name in values:
            continue
        original = _FROM_DOTENV.pop(name)
        set_by_us = _DOTENV_VALUES.pop(name, None)
        if os.environ.get(name) != set_by_us:
            continue  # changed since by someone else: theirs now
        if original is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = original
    for name, value in values.items():
        if name not in _FROM_DOTENV:
            _FROM_DOTENV[name] = os.environ.get(name)
        elif os.environ.get(name) != _DOTENV_VALUES.get(name):
            _FROM_DOTENV[name] = os.environ.get(name)  # set by someone else meanwhile: that is the environment's
        os.environ[name] = value
        _DOTENV_VALUES[name] = value
    return file.is_file()


def source_of(name: str) -> str | None:
    """Where the current value of environment variable ``name`` came from.

    Returns:
        ``".env"`` (``SOURCE_DOTENV``) if ``load_env`` set it from the file and
        it still has that value; ``"environment"`` (``SOURCE_ENVIRONMENT``) if it
        is set otherwise (the shell, ``~/.bashrc``, a notebook cell); None if
        unset.  Never the value itself.  Show it with ``source_label``.
    """
    if not name or name not in os.environ:
        return None
    if name in _DOTENV_VALUES and os.environ[name] == _DOTENV_VALUES[name]:
        return SOURCE_DOTENV
    return SOURCE_ENVIRONMENT


def source_label(source: str | None) -> str | None:
    """The words a student reads for a ``source_of`` id: ``".env"`` stays, ``"environment"``
    becomes ``t("settings.source_environment")`` (环境变量); None stays None."""
    return t("settings.source_environment") if source == SOURCE_ENVIRONMENT else source
