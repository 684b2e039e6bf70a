"""Where the class's results live: the students and their checker results in one SQLite file.

Used by the teacher's progress service (``progress_service``).  Every result is written to
``class-progress.sqlite3`` at the project root (git-ignored) before it is acknowledged, so a
restart loses nothing, and its random ``id`` is the primary key, so a result sent twice is stored
once.  A student is a display name tied to the SHA-256 of their student token
(``student_token_hash``); the token itself is never stored.

An identity costs something (the security review's "one laptop joins under all 40 names"):

* ``students.joined_from`` is the client address a name joined from (``claim(..., address=)``;
  NULL for a name from before the column, or from the teacher's scripts).  The teacher's page names
  the students whose names joined from one address (``progress_page.same_computer``).
* One address ties at most ``JOINS_PER_ADDRESS`` *new* names while this store is open (one
  ``serve``: a new lesson starts the count again); more are refused with 429 and a sentence that
  sends the student to the teacher.  A token re-joining under its own name is free, and so is
  taking a name the teacher released.
* The teacher's actions (``teacher_actions``): ``release`` forgets a name's token (``token_hash``
  becomes ``RELEASED``, ""), so the student can join again under it with a fresh token, results
  kept; ``rename``; ``merge`` moves one name's results to another and removes the first.
* A result may carry ``progress.TOKEN_FIELD``, the SHA-256 of the token it was recorded under
  (``unbind``): one recorded under another token is refused, so a copied course folder's results
  never count for the student who copied it.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import threading
import time
import unicodedata
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .class_code import TOKEN_FIELD
from .name_skeleton import skeleton
from .settings import PROJECT_ROOT
from .texts import t
from .web_requests import BadRequest

DB_FILE = PROJECT_ROOT / "class-progress.sqlite3"
BUSY_TIMEOUT_S = 2.0  # how long a write waits for a database another program holds (then 503)
MAX_NAME = 32  # characters of a display name
_NAME_FORBIDDEN = set('<>&"\'\\')
_TOKEN = re.compile(r"[0-9a-f]{32}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
JOINS_PER_ADDRESS = 3  # new names one client address may join while the service runs (a re-join is free)
RELEASED = ""  # students.token_hash of a name the teacher released (no token's SHA-256 is empty)


def token_hash(raw: str) -> str | None:
    """SHA-256 (hex) of a well-formed student token (32 hex digits, ``class_code.student_token``), else None:
    what the store keeps and the door looks up."""
    return hashlib.sha256(raw.encode("ascii")).hexdigest() if isinstance(raw, str) and _TOKEN.fullmatch(raw) else None


def _token_hash(token: object) -> str:
    """``token_hash`` (what the store keeps), or BadRequest (400) for a malformed token."""
    digest = token_hash(token) if isinstance(token, str) else None
    if digest is None:
        raise BadRequest(400, t("progress_service.token_bad"))
    return digest


def unbind(raw: object, digest: str | None) -> tuple[object, str | None]:
    """One posted result without its ``TOKEN_FIELD``, and why it is refused (Chinese) or None.

    ``digest``: the SHA-256 of the poster's token (``token_hash``).  A result that carries the
    field must carry exactly ``digest``: one recorded under another student token (a classmate's
    copied course folder) is refused.  A result without it (an older course) is the poster's.
    Anything not a dict is returned as it is (``progress_service.valid_result`` refuses it).
    """
    if not isinstance(raw, dict) or TOKEN_FIELD not in raw:
        return raw, None
    rest = {k: v for k, v in raw.items() if k != TOKEN_FIELD}
    recorded = raw[TOKEN_FIELD]
    if not (isinstance(recorded, str) and _SHA256.fullmatch(recorded) and digest
            and secrets.compare_digest(recorded, digest)):
        return rest, t("progress_service.result_other_token")
    return rest, None


def valid_name(raw: object) -> str:
    """The display name as stored: NFKC, runs of spaces made one, spaces around it removed.

    NFKC turns fullwidth letters and Kangxi radicals into the ordinary characters; what still only
    looks like another name (Cyrillic ``А`` for ``A``) is caught by ``ProgressStore.claim``'s skeleton.

    Raises:
        BadRequest (400): not a string; one of ``<>&"'\\``; a character that shows nothing or
            steers the text (``_hidden``: control and format characters, zero-width and bidi
            controls, variation selectors, fillers, any space but U+0020); a combining mark with
            no character before it; not 1-``MAX_NAME`` characters once spaces are trimmed.
    """
    if not isinstance(raw, str):
        raise BadRequest(400, t("progress_service.name_missing"))
    name = unicodedata.normalize("NFKC", raw)
    if any(c in _NAME_FORBIDDEN for c in name):
        raise BadRequest(400, t("progress_service.name_chars"))
    hidden = next((c for c in name if _hidden(c)), None)
    if hidden is not None:
        raise BadRequest(400, t("progress_service.name_invisible", char=f"U+{ord(hidden):04X}"))
    name = re.sub(" +", " ", name).strip(" ")
    if not 1 <= len(name) <= MAX_NAME:
        raise BadRequest(400, t("progress_service.name_length", most=MAX_NAME))
    if any(unicodedata.category(c)[0] == "M" and (i == 0 or name[i - 1] == " ") for i, c in enumerate(name)):
        raise BadRequest(400, t("progress_service.name_mark_alone"))
    return name


# Characters that show nothing, or nothing of their own, though their category is a letter, a mark or a
# symbol: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt; the combining grapheme
# joiner, Hangul fillers, Khmer inherent vowels, Mongolian variation selectors, variation selectors,
# tag characters...) and the blank braille pattern.
_IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
              (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800),
              (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0x1BCA0, 0x1BCA3),
              (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))


def _hidden(c: str) -> bool:
    """Whether ``c`` cannot be in a name: ``_IGNORABLE``, any other category ``C*`` (control, format,
    surrogate, private use, unassigned) or a space other than U+0020 (``Z*``)."""
    code = ord(c)
    return (unicodedata.category(c)[0] in "CZ" and c != " ") or any(lo <= code <= hi for lo, hi in _IGNORABLE)


class ProgressStore:
    """The results, in SQLite (one connection, one lock: the service is small and requests are short).

    Args:
        path: the database file (created with its tables when missing).
        busy_timeout_s: how long a statement waits while another program holds the file (SQLite's
            ``busy_timeout``); then ``sqlite3.OperationalError`` ("database is locked"), which the app
            answers with 503.
        joins_per_address: new names one client address may join while this store is open
            (``claim``; default ``JOINS_PER_ADDRESS``).
    """

    def __init__(self, path: Path, busy_timeout_s: float = BUSY_TIMEOUT_S, joins_per_address: int = JOINS_PER_ADDRESS):
        self.path = Path(path)
        self.joins_per_address = joins_per_address
        self._new_names: dict[str, int] = {}  # client address -> names it joined since this store opened
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=busy_timeout_s, check_same_thread=False, isolation_level=None)
        self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # acknowledged means on disk
        self._db.executescript("""
            CREATE TABLE IF NOT EXISTS students (
                name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, joined TEXT NOT NULL, skeleton TEXT);
            CREATE TABLE IF NOT EXISTS results (
                id TEXT PRIMARY KEY, name TEXT NOT NULL REFERENCES students(name), exercise TEXT NOT NULL,
                passed INTEGER NOT NULL, hint TEXT NOT NULL, attempt INTEGER NOT NULL,
                time TEXT NOT NULL, received REAL NOT NULL);
            CREATE INDEX IF NOT EXISTS results_by_name ON results(name, received);
        """)
        # Each name's TR39 skeleton (``claim``), added to a database made before it, and worked out
        # again at every start (the data may be newer); the token's index finds a token's one name.
        # The address a name joined from (``claim``), added the same way (NULL for the names before it).
        columns = [row[1] for row in self._db.execute("PRAGMA table_info(students)")]
        if "skeleton" not in columns:
            self._db.execute("ALTER TABLE students ADD COLUMN skeleton TEXT")
        if "joined_from" not in columns:
            self._db.execute("ALTER TABLE students ADD COLUMN joined_from TEXT")
        names = [row[0] for row in self._db.execute("SELECT name FROM students")]
        self._db.executemany("UPDATE students SET skeleton = ? WHERE name = ?", [(skeleton(n), n) for n in names])
        self._db.executescript("""
            CREATE INDEX IF NOT EXISTS students_by_skeleton ON students(skeleton);
            CREATE INDEX IF NOT EXISTS students_by_token ON students(token_hash);
        """)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def claim(self, name: str, token: object, joining: bool = False, address: str | None = None) -> str:
        """Tie ``name`` (from ``valid_name``) to ``token``, or check that it is tied to it; return the name as stored.

        One student, one name: a name whose skeleton (``name_skeleton``: TR39, so a Cyrillic or
        radical lookalike is the same name) is already tied to another token is taken (409), and a
        token that already has a name cannot take a second one (409; at ``join`` the sentence never
        names that name - on a shared computer account the token's holder may be the next student -
        and offers ``--new-token`` instead).  The same token under a lookalike of its own name gets
        its own stored name back.
        ``joining``: ``python course.py join`` asks (the sentences say what to do there, not in ``.env``);
        only a join may take a name the teacher released (``release``), and only a join is counted.
        ``address``: the client's address (``web_requests.address``), kept as ``joined_from``; while
        joining, a new name from an address that already joined ``joins_per_address`` names since
        this store opened is refused (429).

        Raises:
            BadRequest: the token is malformed (400), the name is taken or the token has another (409),
                too many new names from this address (429).
        """
        digest = _token_hash(token)
        key = skeleton(name)
        with self._lock:
            rows = self._db.execute("SELECT name, token_hash FROM students WHERE skeleton = ? ORDER BY joined, name",
                                    (key,)).fetchall()
            own = [n for n, h in rows if secrets.compare_digest(h, digest)]
            if own:
                return name if name in own else own[0]
            released = [n for n, h in rows if h == RELEASED]
            if rows and not (joining and len(released) == len(rows)):
                raise BadRequest(409, t("progress_service.name_taken_join" if joining else "progress_service.name_taken",
                                        name=rows[0][0]))
            other = self._db.execute("SELECT name FROM students WHERE token_hash = ? ORDER BY joined, name LIMIT 1",
                                     (digest,)).fetchone()
            if other is not None:
                if joining:
                    raise BadRequest(409, t("progress_service.token_has_name_join"))
                raise BadRequest(409, t("progress_service.token_has_name", name=other[0]))
            if released:  # the teacher released it for this student: a fresh token takes it, not counted
                self._db.execute("UPDATE students SET token_hash = ?, joined_from = ? WHERE name = ?",
                                 (digest, address, released[0]))
                return released[0]
            if joining and address is not None:
                if self._new_names.get(address, 0) >= self.joins_per_address:
                    raise BadRequest(429, t("progress_service.join_too_many_names", most=self.joins_per_address))
                self._new_names[address] = self._new_names.get(address, 0) + 1
            self._db.execute("INSERT INTO students(name, token_hash, joined, skeleton, joined_from) "
                             "VALUES (?, ?, ?, ?, ?)", (name, digest, _now_text(), key, address))
            return name

    def joined_from(self) -> dict[str, str | None]:
        """Every student's name -> the client address it joined from (None: unknown), in ``students()`` order."""
        with self._lock:
            return dict(self._db.execute("SELECT name, joined_from FROM students ORDER BY joined, name").fetchall())

    def _named(self, name: str) -> str:
        """The stored name ``name`` is (exactly, or by its skeleton), or BadRequest 404 (the teacher's actions)."""
        row = self._db.execute("SELECT name FROM students WHERE name = ?", (name,)).fetchone() or \
            self._db.execute("SELECT name FROM students WHERE skeleton = ? ORDER BY joined, name LIMIT 1",
                             (skeleton(name),)).fetchone()
        if row is None:
            raise BadRequest(404, t("teacher_actions.no_such_name", name=name))
        return row[0]

    def release(self, name: str) -> str:
        """Forget the token of ``name`` (the teacher's action): its results stay, its old token is no student any
        more, and the next ``join`` under this name (with any token that has no name) takes it.  Returns the
        stored name.

        Raises:
            BadRequest: no such name (404).
        """
        with self._lock:
            stored = self._named(name)
            self._db.execute("UPDATE students SET token_hash = ? WHERE name = ?", (RELEASED, stored))
            return stored

    def rename(self, old: str, new: str) -> str:
        """Give student ``old`` the name ``new`` (from ``valid_name``), with all its results; returns ``new``.

        Raises:
            BadRequest: no such name (404); ``new`` or a name that looks the same (its skeleton) belongs to
                another student (409).
        """
        key = skeleton(new)
        with self._lock:
            stored = self._named(old)
            taken = [n for (n,) in self._db.execute("SELECT name FROM students WHERE skeleton = ? OR name = ?",
                                                    (key, new)) if n != stored]
            if taken:
                raise BadRequest(409, t("teacher_actions.name_taken", name=taken[0]))
            self._write([("UPDATE students SET name = ?, skeleton = ? WHERE name = ?", (new, key, stored)),
                         ("UPDATE results SET name = ? WHERE name = ?", (new, stored))])
            return new

    def merge(self, source: str, target: str) -> tuple[str, str, int]:
        """Move every result of ``source`` to ``target`` and remove ``source`` (its token then has no name).

        Returns:
            ``(source, target, moved)``: the stored names and how many results moved.
        Raises:
            BadRequest: either name unknown (404), the same student twice (400).
        """
        with self._lock:
            source, target = self._named(source), self._named(target)
            if source == target:
                raise BadRequest(400, t("teacher_actions.merge_same", name=source))
            moved = self._db.execute("SELECT COUNT(*) FROM results WHERE name = ?", (source,)).fetchone()[0]
            self._write([("UPDATE results SET name = ? WHERE name = ?", (target, source)),
                         ("DELETE FROM students WHERE name = ?", (source,))])
            return source, target, moved

    def _write(self, statements: list[tuple[str, tuple]]) -> None:
        """Run ``statements`` in one transaction (all or nothing); the caller holds the lock."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for sql, args in statements:
                self._db.execute(sql, args)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def student_of(self, digest: str) -> str | None:
        """The name tied to the token whose SHA-256 is ``digest`` (from ``/api/join`` or a post), or None."""
        with self._lock:
            row = self._db.execute("SELECT name FROM students WHERE token_hash = ? ORDER BY joined, name LIMIT 1",
                                   (digest,)).fetchone()
        return row[0] if row else None

    def owner(self, name: str, token: object) -> str:
        """The stored name that ``name`` is for ``token`` (read only: nothing is ever added).

        Raises:
            BadRequest: a malformed token (400), no such student (404), someone else's name (409).
        """
        digest = _token_hash(token)
        with self._lock:
            rows = self._db.execute("SELECT name, token_hash FROM students WHERE skeleton = ? ORDER BY joined, name",
                                    (skeleton(name),)).fetchall()
        own = [n for n, h in rows if secrets.compare_digest(h, digest)]
        if own:
            return name if name in own else own[0]
        if rows:
            raise BadRequest(409, t("progress_service.name_taken", name=rows[0][0]))
        raise BadRequest(404, t("progress_service.name_unknown", name=name))

    def add(self, name: str, results: list[dict[str, Any]]) -> int:
        """Store ``results`` under ``name`` (each id once: a second copy is ignored); return how many were new."""
        now = time.time()
        with self._lock:
            before = self._db.total_changes
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT OR IGNORE INTO results(id, name, exercise, passed, hint, attempt, time, received) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(r["id"], name, r["exercise"], int(r["passed"]), r["hint"], r["attempt"], r["time"], now)
                     for r in results])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            return self._db.total_changes - before

    def results(self, name: str | None = None) -> list[dict[str, Any]]:
        """Every stored result (or one student's), oldest first, with ``name`` and ``received`` (Unix s)."""
        query = "SELECT id, name, exercise, passed, hint, attempt, time, received FROM results"
        args: tuple = ()
        if name is not None:
            query, args = query + " WHERE name = ?", (name,)
        with self._lock:
            rows = self._db.execute(query + " ORDER BY rowid", args).fetchall()  # the order they arrived in
        keys = ("id", "name", "exercise", "passed", "hint", "attempt", "time", "received")
        return [dict(zip(keys, row), passed=bool(row[3])) for row in rows]

    def exercises_of(self, name: str) -> set[str]:
        """The exercises ``name`` has at least one stored result for."""
        with self._lock:
            return {row[0] for row in self._db.execute("SELECT DISTINCT exercise FROM results WHERE name = ?", (name,))}

    def students(self) -> list[str]:
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT name FROM students ORDER BY joined, name")]


def _now_text() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

