"""Key files: the class key students send, the teacher key the class view needs.

Not taught in a notebook: ``classroom`` (the teacher's ``python course.py
serve``) and ``progress_service`` (the class view) use them.

Each key is made once with ``secrets`` (128 bits, behind a prefix that makes
a leaked key easy to find: tests/test_no_secrets.py), kept in a git-ignored
file at the project root readable by its owner only, and read back as an
editor saves it (``read_key``): ``.class-key`` (``KEY_PREFIX``) and
``.teacher-key`` (``TEACHER_KEY_PREFIX``).

A key the teacher wrote (not the prefix + 32 hex digits the course writes)
must be strong enough to face a classroom that can guess (``check_strength``):
at least ``MIN_KEY_LENGTH`` characters, at least two kinds of character
(lower-case letters, upper-case letters, digits, other signs) and at least
``MIN_KEY_DISTINCT`` different characters; else the command stops with a
Chinese sentence that names the file and ``--new-key``.
"""

from __future__ import annotations

import codecs
import re
import secrets
import unicodedata
from pathlib import Path

from .settings import PROJECT_ROOT
from .texts import t

KEY_FILE = PROJECT_ROOT / ".class-key"
TEACHER_KEY_FILE = PROJECT_ROOT / ".teacher-key"
# What a class key looks like: the prefix makes a leaked key easy to find (tests/test_no_secrets.py).
KEY_PREFIX = "course-class-"
TEACHER_KEY_PREFIX = "course-teacher-"
MIN_KEY_LENGTH = 16  # characters of a key the teacher wrote
MIN_KEY_DISTINCT = 8  # different characters in it ("1111111111111111a" is not a key)


class KeyFileError(RuntimeError):
    """A key file's key cannot be used: too weak (``check_strength``) or a character no client can send
    (``read_key``).  The message is Chinese and names the file and what to do, never the key."""


def class_key(path: Path = KEY_FILE, new: bool = False) -> str:
    """Return the class key: the one in ``path`` as the teacher wrote it, or a new one.

    A new key is made when the file is missing or holds no key, or when
    ``new`` (``--new-key``): ``KEY_PREFIX`` + 32 hex digits from
    ``secrets.token_hex`` (128 bits), written on one line, the file readable by
    its owner only.  Any other key in the file is kept, with the course's prefix
    or without (``read_key``).

    Args:
        path: the key file (default ``.class-key`` at the project root, git-ignored).
        new: make a new key even if the file has one (students then need the new line).
    Returns:
        The key.
    Raises:
        KeyFileError: the file's key has a character no student can send (``read_key``), or it is
            a key the teacher wrote that is too weak (``check_strength``).
    """
    return _kept_or_made(path, KEY_PREFIX, new)


def _kept_or_made(path: Path, prefix: str, new: bool = False) -> str:
    """The key in ``path`` (``read_key``), or - when there is none, or ``new`` - ``prefix`` + 32 random
    hex digits (``secrets``, 128 bits) written there (``write_key``)."""
    key = "" if new else read_key(path)
    if not key:
        key = prefix + secrets.token_hex(16)
        write_key(path, key)
    check_strength(path, key)
    return key


def check_strength(path: Path, key: str) -> None:
    """Refuse a weak key the teacher wrote (the rule is in the module docstring); the course's own keys pass.

    Raises:
        KeyFileError: in Chinese, naming ``path``, the rule and ``--new-key`` - never the key.
    """
    if re.fullmatch(r"course-(?:class|teacher)-[0-9a-f]{32}", key):
        return  # made by the course: 128 random bits
    kinds = sum(bool(re.search(pattern, key)) for pattern in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^a-zA-Z0-9]"))
    if len(key) < MIN_KEY_LENGTH or kinds < 2 or len(set(key)) < MIN_KEY_DISTINCT:
        raise KeyFileError(t("classroom.key_weak", path=path, length=MIN_KEY_LENGTH,
                                             distinct=MIN_KEY_DISTINCT))


def read_key(path: Path) -> str:
    """The key in key file ``path``, read as an editor saves it ("" when the file is missing or has none).

    The key is the first line that is not blank and does not start with ``#``
    (llama-server's ``--api-key-file`` skips those too: llama.cpp
    ``common/arg.cpp``), without a UTF-8 or UTF-16 BOM (Windows Notepad), its
    ``\r`` (CRLF) and the spaces around it.

    Raises:
        KeyFileError: the key holds a character that is not printable ASCII
            (a space, an invisible or Chinese character, bytes that are not
            UTF-8): a student's client could not send it (HTTP headers are
            ASCII; ``providers.check_key_characters``).  The message names the
            file, the position and the character - never the key.
    """
    if not path.is_file():
        return ""
    data = path.read_bytes()
    utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    text = data.decode("utf-16" if utf16 else "utf-8-sig", errors="replace")
    lines = [line.strip() for line in text.splitlines()]
    key = next((line for line in lines if line and not line.startswith("#")), "")
    for position, char in enumerate(key, 1):
        if not "!" <= char <= "~":
            name = f"U+{ord(char):04X} {unicodedata.name(char, '')}".strip()
            raise KeyFileError(t("classroom.key_bad_char", path=path, position=position, char=name))
    return key


def write_key(path: Path, key: str) -> None:
    """Write ``key`` and one ``\n`` to ``path`` (bytes: no BOM, no CRLF on Windows), readable by its owner only."""
    path.write_bytes((key + "\n").encode("ascii"))
    path.chmod(0o600)


def teacher_key(path: Path = TEACHER_KEY_FILE, new: bool = False) -> str:
    """The teacher key in ``path`` (``read_key``), or a new one written there (``TEACHER_KEY_PREFIX`` + 32 hex digits).

    ``new`` (``--new-key``): a new key even if the file has one.

    Raises:
        KeyFileError: the file's key has a character no browser can send (``read_key``), or it is
            a key the teacher wrote that is too weak (``check_strength``).
    """
    return _kept_or_made(path, TEACHER_KEY_PREFIX, new)
