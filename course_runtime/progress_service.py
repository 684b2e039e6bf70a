"""The teacher's progress service: every student's checker results, on one page.

Not taught in a notebook: ``python course.py serve`` starts it beside the
class server (``classroom.serve``; the teacher's guide, 「课堂进度页」), and the
students' checkers post to it (``progress.send_pending``).

Built on Starlette and uvicorn (both installed with the pinned ``mcp``
package) and ``sqlite3``: every result is written to ``class-progress.sqlite3``
at the project root (git-ignored) before it is acknowledged, so a restart
loses nothing, and its random ``id`` is the primary key, so a result sent
twice is stored once.

Who may do what:

* ``POST /api/results`` - a student who has joined: their student token as
  ``Authorization: Bearer`` and in the body, with their display name (or the
  class key, which only the teacher's computer has: the teacher's own scripts).
  ``/api/join`` tied the name to that token (only its SHA-256 is stored);
  a token that never joined is refused (401), so a student's post never creates a student:
  one student, one identity (``ProgressStore.claim``) - another token under
  the same name, or under a name that only looks the same (its TR39 skeleton,
  ``name_skeleton``), is refused (409), and so is a second name for a token
  that has one.  Bodies over ``MAX_BODY`` bytes, more than ``MAX_RESULTS``
  results, names that are not 1-``MAX_NAME`` visible characters once
  NFKC-normalised (``valid_name``: no ``<>&"'\\``, nothing hidden) are
  refused with a Chinese ``error``.  The results are judged
  one by one: one whose fields are not what ``progress.FIELDS`` says is
  refused alone (``refused``: its place, its id when it has one, why), the
  others are kept; one for an exercise this copy of the course does not
  know (a well-formed ``"NN-k"`` missing from ``progress.EXERCISES``: the
  teacher has not pulled a new exercise yet) is kept and named in
  ``unknown``, and the page shows it in a column of its own, marked.
* ``POST /api/mine`` - a student reads back their own results (name + token), nobody else's;
  it only reads (``ProgressStore.owner``): an unknown name is a 404, never a new student.
* ``POST /api/join`` - ``python course.py join CODE`` (``class_code``): the
  class code's secret ties the student's name to their token and buys the
  ``.env`` lines (the model's URL - this service's door, ``/v1`` - and this
  service's URL; no key).  At most ``JOIN_FAILURES_PER_MINUTE`` wrong secrets a minute
  from one address are answered (429 after that; other addresses are not held
  up), see ``class_code`` for the arithmetic.
* ``GET /teacher`` (the page), ``GET /teacher.csv``, ``GET /api/class``,
  ``GET``/``POST /login`` - the teacher, on this computer only (a loopback
  client; any other address gets 403 with a Chinese sentence, unless the
  service was started with ``--teacher-anywhere``), with the teacher key
  (``keys.teacher_key``, ``.teacher-key``, never shown to students): as
  ``Authorization: Bearer`` (scripts), or by logging in: ``POST /login``
  checks the key and sets a cookie holding a random session value (never the
  key; kept in memory for ``SESSION_S``), ``HttpOnly``, ``SameSite=Strict``,
  ``Path=/``, named ``course_teacher_<port>`` (browsers send a 127.0.0.1 cookie
  to every port).  At most ``LOGIN_ATTEMPTS_PER_MINUTE`` wrong keys a minute
  from one address (429 after that).
* ``POST /v1/chat/completions``, ``GET /v1/models``, ``POST /tokenize``,
  ``POST /apply-template`` - a student who has joined, with their token: the
  door to the class model (``class_gateway``: the class key added here, one
  request in flight per student, the quietest first, a token budget, the
  replies to temperature-0 requests remembered unless ``--no-reply-memory``).
* ``POST /teacher/budget`` - the teacher (as the page): the door's token budget per student per minute.
* ``GET /health`` - anyone: ``{"status": "ok"}``.

The limits, each answered with a Chinese ``error``, never a traceback:

* ``RESULTS_PER_MINUTE`` results a minute per student token (429; the
  student's checker keeps them and sends them later).
* A request's JSON nests at most ``MAX_DEPTH`` deep (400, counted before it
  is parsed); a string JSON can hold but UTF-8 cannot (a lone surrogate,
  ``"\\ud800"``) is a 400.
* Every limit is checked and counted in one step under a lock (``RateLimit``),
  the join and login limits before the request's body is read, so many
  requests at once cannot slip past them.
* Half-open connections (a slowloris): a request's headers and body must have
  arrived ``READ_DEADLINE_S`` after its connection opened (or its last answer
  went), and one address holds at most ``MAX_CONNECTIONS_PER_ADDRESS``
  connections (``guarded_protocol``: uvicorn's own ``timeout_keep_alive`` starts
  only after an answer).
* A database another program holds (DB Browser with an edit not yet written):
  SQLite waits ``BUSY_TIMEOUT_S``, then 503.
* The CSV export puts a ``'`` wherever a spreadsheet would start a formula,
  under a ``,`` or a ``;`` separator (``csv_safe``).

The page lists students × exercises (✓n passed after n attempts, ✗n failed n
times, blank not reached: ✓ and ✗ are in every system's fonts, the emoji are
not), who seems stuck (``STUCK_FAILURES`` failures in a row on one
exercise, or nothing for ``QUIET_S`` while the class goes on), and the model
server's own state from its ``/metrics`` (llama-server's Prometheus counters:
requests being decoded, requests waiting, generation speed), each student's
use of the model through the door (``render_use``) with the budget form, and
reloads itself every ``REFRESH_S`` seconds.  Every name and field is put into the page
with ``html.escape``.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import html
import io
import ipaddress
import json
import re
import secrets
import sqlite3
import sys
import threading
import time
import unicodedata
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs

from . import class_gateway, local_server
from .name_skeleton import skeleton
from .progress import EXERCISE_ID, EXERCISES, FIELDS, exercise_order
from .settings import PROJECT_ROOT
from .texts import t

DEFAULT_PORT = 8767  # beside the class server's 8766
DB_FILE = PROJECT_ROOT / "class-progress.sqlite3"
MAX_BODY = 64 * 1024  # bytes of one request body
MAX_RESULTS = 200  # results in one post
MAX_NAME = 32  # characters of a display name
STUCK_FAILURES = 3  # failures in a row on one exercise, nothing passed since
QUIET_S = 10 * 60  # no result for this long while others post: shown as quiet
REFRESH_S = 5
JOIN_FAILURES_PER_MINUTE = 10  # wrong class codes from one address (others are never held up)
LOGIN_ATTEMPTS_PER_MINUTE = 5  # teacher-key guesses from one address (a right key is not counted)
RESULTS_PER_MINUTE = 240  # results one student token may post (an empty post counts as one)
MAX_DEPTH = 10  # nesting of a request's JSON (a post of results is 3 deep)
SESSION_S = 8 * 3600  # a teacher's login lasts a school day
MAX_SESSIONS = 50  # logins kept at once (the oldest goes first)
READ_DEADLINE_S = 10.0  # a connection's request (headers and body) must have arrived by then
MAX_CONNECTIONS_PER_ADDRESS = 64  # open connections from one address; more are closed at once
BUSY_TIMEOUT_S = 2.0  # how long a write waits for a database another program holds (then 503)
DEFAULT_MODEL_SLOTS = 4  # the class server's slots when not told (classroom.DEFAULT_SLOTS)
COOKIE = "course_teacher"  # + "_" + the service's port: browsers do not keep cookies apart by port
_HEX32 = re.compile(r"[0-9a-f]{32}")
_HINT = re.compile(r"[0-9a-z_.]{0,80}")
_NAME_FORBIDDEN = set('<>&"\'\\')
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_CSV_FORMULA = re.compile(r"(^|[,;])( *)(?=[=+\-@\t\r])")  # where a cell starts under a "," or a ";" separator


class BadRequest(Exception):
    """A request the service refuses: ``status`` and a Chinese ``message`` (sent as ``{"error": ...}``)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


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


def valid_result(raw: object) -> dict[str, Any]:
    """One result checked against ``progress.FIELDS``; returns it with exactly those keys.

    The exercise needs only the form ``"NN-k"``: one that this copy of the course does not know
    (``progress.EXERCISES``) is still a result (``unknown_exercises`` names it).

    Raises:
        BadRequest: a key is missing or extra, or a value is not the type and form ``progress.record`` writes.
    """
    if not isinstance(raw, dict) or set(raw) != set(FIELDS):
        raise BadRequest(400, t("progress_service.result_fields", fields=", ".join(FIELDS)))
    ok = (isinstance(raw["id"], str) and _HEX32.fullmatch(raw["id"])
          and isinstance(raw["exercise"], str) and EXERCISE_ID.fullmatch(raw["exercise"])
          and isinstance(raw["passed"], bool)
          and isinstance(raw["hint"], str) and _HINT.fullmatch(raw["hint"])
          and type(raw["attempt"]) is int and 1 <= raw["attempt"] <= 100_000
          and isinstance(raw["time"], str) and len(raw["time"]) <= 40 and _parse_time(raw["time"]) is not None)
    if not ok:
        raise BadRequest(400, t("progress_service.result_value"))
    return {k: raw[k] for k in FIELDS}


def sort_results(raw: list) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The results of one post, judged one by one (``valid_result``): ``(kept, refused)``.

    ``refused`` has one ``{"index": place in the post, "id": its id or None, "exercise": its
    exercise or None, "error": the Chinese reason}`` per refused result; id and exercise are
    echoed only when they have their right form, so nothing a client sent is reflected raw.
    """
    kept, refused = [], []
    for index, item in enumerate(raw):
        try:
            kept.append(valid_result(item))
        except BadRequest as exc:
            given = item if isinstance(item, dict) else {}
            rid, exercise = given.get("id"), given.get("exercise")
            refused.append({"index": index,
                            "id": rid if isinstance(rid, str) and _HEX32.fullmatch(rid) else None,
                            "exercise": exercise if isinstance(exercise, str) and EXERCISE_ID.fullmatch(exercise)
                            else None,
                            "error": exc.message})
    return kept, refused


def unknown_exercises(results: list[dict[str, Any]]) -> list[str]:
    """The exercises of ``results`` that this copy of the course does not know (not in ``EXERCISES``), sorted."""
    return sorted({r["exercise"] for r in results if r["exercise"] not in EXERCISES}, key=exercise_order)


def _parse_time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)  # Python 3.11+ reads the trailing "Z" progress.record writes
    except ValueError:
        return None


def _token_hash(token: object) -> str:
    """``class_gateway.token_hash`` (what the store keeps), or BadRequest (400) for a malformed token."""
    digest = class_gateway.token_hash(token) if isinstance(token, str) else None
    if digest is None:
        raise BadRequest(400, t("progress_service.token_bad"))
    return digest


def json_depth(text: str) -> int:
    """How deep the brackets of JSON ``text`` nest (strings skipped), found without parsing it.

    ``json.loads`` meets a body of 30,000 ``[`` with a ``RecursionError``; this is counted first.
    """
    depth = deepest = 0
    for bracket in re.findall(r"[\[\]{}]", _JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def csv_safe(cell: str) -> str:
    """``cell`` with a ``'`` wherever a spreadsheet would start a formula (OWASP "CSV injection").

    That is at the start and after every ``,`` or ``;`` (Excel in some locales splits on ``;``, and
    a quoted cell is split by a program that ignores quotes), before ``= + - @`` or a tab or CR,
    spaces between allowed: ``王;=HYPERLINK(...)`` → ``王;'=HYPERLINK(...)``.
    """
    return _CSV_FORMULA.sub(lambda m: m.group(1) + m.group(2) + "'", cell)


def is_loopback(host: str | None) -> bool:
    """True for this computer's own addresses (127.0.0.0/8, ::1, ::ffff:127.x.y.z)."""
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)


class RateLimit:
    """At most ``limit`` units per key (an address, a token) in any ``window_s`` seconds.

    ``take`` checks and counts in one step under a lock, before the request's body is even read, so
    200 requests at once get no more than ``limit`` between them; one key's use never holds up another's.
    """

    def __init__(self, limit: int, window_s: float = 60.0, clock: Callable[[], float] = time.time):
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self._lock = threading.Lock()
        self._taken: dict[str, list[tuple[float, int]]] = {}

    def take(self, key: str, units: int = 1) -> bool:
        """Count ``units`` for ``key`` and return True, or return False (nothing counted) when over the limit."""
        with self._lock:
            now = self.clock()
            if len(self._taken) > 10_000:  # many keys: forget the ones whose minute is over
                self._taken = {k: v for k, v in self._taken.items() if now - v[-1][0] < self.window_s}
            recent = [(at, n) for at, n in self._taken.get(key, ()) if now - at < self.window_s]
            self._taken[key] = recent
            if sum(n for _, n in recent) + units > self.limit:
                return False
            recent.append((now, units))
            return True

    def give_back(self, key: str, units: int = 1) -> None:
        """Uncount the last ``take(key, units)`` (a right class code or teacher key is not a guess)."""
        with self._lock:
            recent = self._taken.get(key, [])
            for i in range(len(recent) - 1, -1, -1):
                if recent[i][1] == units:
                    del recent[i]
                    return


class ProgressStore:
    """The results, in SQLite (one connection, one lock: the service is small and requests are short).

    Args:
        path: the database file (created with its tables when missing).
        busy_timeout_s: how long a statement waits while another program holds the file (SQLite's
            ``busy_timeout``); then ``sqlite3.OperationalError`` ("database is locked"), which the app
            answers with 503.
    """

    def __init__(self, path: Path, busy_timeout_s: float = BUSY_TIMEOUT_S):
        self.path = Path(path)
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
        if "skeleton" not in [row[1] for row in self._db.execute("PRAGMA table_info(students)")]:
            self._db.execute("ALTER TABLE students ADD COLUMN skeleton TEXT")
        names = [row[0] for row in self._db.execute("SELECT name FROM students")]
        self._db.executemany("UPDATE students SET skeleton = ? WHERE name = ?", [(skeleton(n), n) for n in names])
        self._db.executescript("""
            CREATE INDEX IF NOT EXISTS students_by_skeleton ON students(skeleton);
            CREATE INDEX IF NOT EXISTS students_by_token ON students(token_hash);
        """)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def claim(self, name: str, token: object, joining: bool = False) -> str:
        """Tie ``name`` (from ``valid_name``) to ``token``, or check that it is tied to it; return the name as stored.

        One student, one name: a name whose skeleton (``name_skeleton``: TR39, so a Cyrillic or
        radical lookalike is the same name) is already tied to another token is taken (409), and a
        token that already has a name cannot take a second one (409, the sentence names its name).
        The same token under a lookalike of its own name gets its own stored name back.
        ``joining``: the sentences say what to do at ``python course.py join`` (``--name``), not in ``.env``.

        Raises:
            BadRequest: the token is malformed (400), the name is taken or the token has another (409).
        """
        digest = _token_hash(token)
        key = skeleton(name)
        with self._lock:
            rows = self._db.execute("SELECT name, token_hash FROM students WHERE skeleton = ? ORDER BY joined, name",
                                    (key,)).fetchall()
            own = [n for n, h in rows if secrets.compare_digest(h, digest)]
            if own:
                return name if name in own else own[0]
            if rows:
                raise BadRequest(409, t("progress_service.name_taken_join" if joining else "progress_service.name_taken",
                                        name=rows[0][0]))
            other = self._db.execute("SELECT name FROM students WHERE token_hash = ? ORDER BY joined, name LIMIT 1",
                                     (digest,)).fetchone()
            if other is not None:
                raise BadRequest(409, t("progress_service.token_has_name_join" if joining
                                        else "progress_service.token_has_name", name=other[0]))
            self._db.execute("INSERT INTO students(name, token_hash, joined, skeleton) VALUES (?, ?, ?, ?)",
                             (name, digest, _now_text(), key))
            return name

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

    def students(self) -> list[str]:
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT name FROM students ORDER BY joined, name")]


def _now_text() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------- the class at a glance


def class_view(results: list[dict[str, Any]], students: list[str], now: float) -> dict[str, Any]:
    """Students × exercises from the stored results (what the page, the CSV and ``/api/class`` show).

    Returns:
        ``{"students": [{"name", "cells": {exercise: {"passed", "attempts", "hint"}}, "stuck": str | None,
        "last": Unix s | None}], "exercises": [...], "passed": {exercise: n students}}``; ``stuck`` is
        ``"failures"`` (``STUCK_FAILURES`` failures in a row on its last exercise, none passed) or
        ``"quiet"`` (nothing for ``QUIET_S`` while someone posted in that time), else None;
        ``stuck_on`` and ``failures_in_a_row`` say where.
    """
    latest_any = max((r["received"] for r in results), default=None)
    by_name: dict[str, list[dict[str, Any]]] = {}
    for r in results:  # one pass over the results, not one per student: the page asks every REFRESH_S
        by_name.setdefault(r["name"], []).append(r)
    rows = []
    for name in students:
        mine = by_name.get(name, [])
        cells: dict[str, dict[str, Any]] = {}
        for r in mine:
            cell = cells.setdefault(r["exercise"], {"passed": False, "attempts": 0, "hint": ""})
            cell["attempts"] += 1
            cell["passed"] = cell["passed"] or r["passed"]
            cell["hint"] = r["hint"]
        stuck, stuck_on, run = None, None, 0
        last = mine[-1]["received"] if mine else None
        if mine:
            stuck_on = mine[-1]["exercise"]
            for r in reversed([r for r in mine if r["exercise"] == stuck_on]):
                if r["passed"]:
                    break
                run += 1
            if run >= STUCK_FAILURES and not cells[stuck_on]["passed"]:
                stuck = "failures"
        if stuck is None and latest_any is not None and now - (last or 0) >= QUIET_S \
                and now - latest_any < QUIET_S:
            stuck = "quiet"
        rows.append({"name": name, "cells": cells, "stuck": stuck, "last": last,
                     "stuck_on": stuck_on if stuck == "failures" else None, "failures_in_a_row": run})
    unknown = unknown_exercises(results)
    exercises = [*EXERCISES, *unknown]
    passed = {e: sum(1 for row in rows if row["cells"].get(e, {}).get("passed")) for e in exercises}
    return {"students": rows, "exercises": exercises, "unknown": unknown, "passed": passed}


def stuck_reason(row: dict[str, Any], now: float) -> str:
    """The Chinese words the page shows for a stuck student ("" when not stuck)."""
    if row["stuck"] == "failures":
        return t("progress_service.stuck_failures", exercise=row["stuck_on"], n=row["failures_in_a_row"])
    if row["stuck"] == "quiet":
        minutes = int((now - row["last"]) // 60) if row["last"] else None
        return t("progress_service.stuck_quiet", minutes=minutes) if minutes is not None \
            else t("progress_service.stuck_nothing")
    return ""


# --------------------------------------------------------------------------- the model server's state


def model_state(root: str | None, key: str | None, timeout: float = 1.0) -> dict[str, Any]:
    """The class server's state from llama-server's ``/health`` (``local_server.health``) and ``/metrics`` (needs ``--metrics``).

    Returns:
        ``{"health": "ok" | "loading" | "down", "processing": n, "deferred": n,
        "tokens_per_s": float, "health_ms": float}``; the last four missing when unknown.
    """
    if not root:
        return {"health": "none"}
    import httpx

    started = time.perf_counter()
    health = local_server.health(timeout, root)  # "ok", "loading" (503) or None
    if health is None:
        return {"health": "down"}
    state: dict[str, Any] = {"health": health, "health_ms": (time.perf_counter() - started) * 1000}
    headers = {"Authorization": "Bearer " + key} if key else {}
    try:
        with httpx.Client(timeout=timeout, trust_env=False) as http:
            metrics = http.get(root + "/metrics", headers=headers)
            if metrics.status_code == 200:
                values = parse_metrics(metrics.text)
                for name, field in (("llamacpp:requests_processing", "processing"),
                                    ("llamacpp:requests_deferred", "deferred"),
                                    ("llamacpp:predicted_tokens_seconds", "tokens_per_s")):
                    if name in values:
                        state[field] = values[name]
    except httpx.HTTPError:
        pass  # up, but its counters did not come: the page shows what health said
    return state


def parse_metrics(text: str) -> dict[str, float]:
    """Prometheus text format (``name value`` lines, ``#`` comments) as ``{name: value}``; labels are kept in the name."""
    values = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, value = line.rpartition(" ")
        try:
            values[name.strip()] = float(value)
        except ValueError:
            continue
    return values


# --------------------------------------------------------------------------- the page and the CSV


def render_use(use: dict[str, Any] | None) -> str:
    """The page's section on the model's use (``class_gateway.FairShare.snapshot``): the budget form and one
    row per student (requests, prompt and completion tokens, tokens in the last minute, how much of it they
    kept the model busy - marked when ``is_busy`` -, how often they let others go first, replies answered from
    the door's memory, now), and whether the memory is on. "" without a model."""
    if use is None:
        return ""
    e = html.escape
    rows = []
    for r in use["students"]:
        busy = ' class="busy"' if r["busy"] else ""  # the door counts them as busy (class_gateway.FairShare.is_busy)
        now = (t("progress_service.use_answering") if r["in_flight"] else "") + \
              (t("progress_service.use_waiting", n=r["waiting"]) if r["waiting"] else "")
        rows.append(f'<tr><th class="name">{e(r["name"])}</th><td>{r["requests"]}</td><td>{r["prompt_tokens"]}</td>'
                    f'<td>{r["completion_tokens"]}</td><td>{r["last_minute"]}</td>'
                    f'<td{busy}>{r["busy_percent"]}%</td><td>{r["yielded"]}</td><td>{r.get("cached", 0)}</td>'
                    f'<td>{e(now)}</td></tr>')
    heads = "".join(f"<th>{e(t(k))}</th>" for k in (
        "progress_service.page_student", "progress_service.use_requests", "progress_service.use_prompt",
        "progress_service.use_completion", "progress_service.use_last_minute", "progress_service.use_busy",
        "progress_service.use_yielded", "progress_service.use_cached",
        "progress_service.use_now"))
    budget = use["budget"]
    said = t("progress_service.use_budget_on", budget=budget) if budget else t("progress_service.use_budget_off")
    remembers = t("progress_service.use_memory_on") if use.get("reply_memory") else t("progress_service.use_memory_off")
    table = (f'<table id="use"><thead><tr>{heads}</tr></thead><tbody>{"".join(rows)}</tbody></table>' if rows
             else f'<p class="empty">{e(t("progress_service.use_empty"))}</p>')
    return f"""<h2>{e(t("progress_service.use_title", slots=use["slots"]))}</h2>
<form method="post" action="/teacher/budget" id="budget">{e(said)}
<label>{e(t("progress_service.use_budget_label"))} <input name="budget" type="number" min="0" step="1000" value="{budget}" size="8"></label>
<button type="submit">{e(t("progress_service.use_budget_button"))}</button></form>
<p id="memory">{e(remembers)}</p>
{table}"""


def render_page(view: dict[str, Any], model: dict[str, Any], now: float, use: dict[str, Any] | None = None) -> str:
    """The teacher's page (HTML, Chinese, reloads itself every ``REFRESH_S`` s); every value escaped.

    ``use``: the model's use per student (``render_use``), shown under the grid.
    """
    e = html.escape
    unknown = set(view.get("unknown", ()))
    head_cells = "".join(
        f'<th class="unknown" title="{e(t("progress_service.unknown_title"))}">{e(t("progress_service.unknown_mark", exercise=x))}</th>' if x in unknown
        else f"<th>{e(x)}</th>" for x in view["exercises"])
    unknown_note = (f'<p class="unknown">{e(t("progress_service.unknown_note", exercises=t("progress.list_separator").join(unknown)))}</p>'
                    if unknown else "")
    body = []
    for row in view["students"]:
        cells = []
        for exercise in view["exercises"]:
            cell = row["cells"].get(exercise)
            if cell is None:
                cells.append('<td class="none"></td>')
            elif cell["passed"]:
                cells.append(f'<td class="pass" title="{e(cell["hint"])}">✓{e(str(cell["attempts"]))}</td>')
            else:
                cells.append(f'<td class="fail" title="{e(cell["hint"])}">✗{e(str(cell["attempts"]))}</td>')
        reason = stuck_reason(row, now)
        flag = f'<span class="stuck">⚠ {e(reason)}</span>' if reason else ""
        body.append(f'<tr><th class="name">{e(row["name"])}{flag}</th>{"".join(cells)}</tr>')
    totals = "".join(f"<td>{view['passed'][x]}</td>" for x in view["exercises"])
    stuck = [row for row in view["students"] if row["stuck"]]
    stuck_list = "".join(f"<li>{e(t('progress_service.stuck_line', name=row['name'], why=stuck_reason(row, now)))}</li>"
                         for row in stuck)
    empty = "" if view["students"] else f'<p class="empty">{e(t("progress_service.page_empty"))}</p>'
    return f"""<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="{REFRESH_S}">
<title>{e(t("progress_service.page_title"))}</title>
<style>
body {{ font-family: "Noto Sans CJK SC", "WenQuanYi Zen Hei", "Microsoft YaHei", sans-serif; margin: 1em; font-size: 20px; }}
table {{ border-collapse: collapse; }} th, td {{ border: 1px solid #999; padding: 4px 8px; text-align: center; white-space: nowrap; }}
th.name {{ text-align: left; white-space: nowrap; }} td.pass {{ background: #c8f0c8; }} td.fail {{ background: #f8d0d0; }}
td.none {{ background: #fff; }} .stuck {{ color: #b00; margin-left: .5em; font-size: 16px; }}
.model {{ font-size: 22px; margin-bottom: .6em; }} td.busy {{ background: #fde8b0; }} .empty {{ color: #666; }} .unknown {{ color: #a60; }}
</style></head><body>
<h1>{e(t("progress_service.page_title"))}</h1>
<div class="model" id="model">{e(model_line(model))}</div>
<p>{e(t("progress_service.page_counts", students=len(view["students"]), stuck=len(stuck)))}
 · <a href="/teacher.csv">{e(t("progress_service.page_csv"))}</a></p>
{f'<ul class="stucklist">{stuck_list}</ul>' if stuck_list else ''}
{unknown_note}
{empty}
<table id="grid"><thead><tr><th>{e(t("progress_service.page_student"))}</th>{head_cells}</tr></thead>
<tbody>{"".join(body)}</tbody>
<tfoot><tr><th>{e(t("progress_service.page_passed"))}</th>{totals}</tr></tfoot></table>
<p>{e(t("progress_service.page_legend", seconds=REFRESH_S))}</p>
{render_use(use)}
</body></html>"""


def model_line(model: dict[str, Any]) -> str:
    """One Chinese line about the model server (``model_state``)."""
    health = model.get("health")
    if health == "none":
        return t("progress_service.model_none")
    if health == "down":
        return t("progress_service.model_down")
    if health == "loading":
        return t("progress_service.model_loading")
    parts = [t("progress_service.model_ok", ms=round(model.get("health_ms", 0)))]
    if "processing" in model:
        parts.append(t("progress_service.model_busy", processing=int(model["processing"]),
                       deferred=int(model.get("deferred", 0))))
    if model.get("tokens_per_s"):
        parts.append(t("progress_service.model_speed", speed=round(model["tokens_per_s"], 1)))
    return t("progress_service.model_separator").join(parts)


def render_csv(view: dict[str, Any]) -> str:
    """The grading export: one row per student, one column per exercise (``passed`` / ``failed:n`` / empty).

    UTF-8 with a BOM (``utf-8-sig``: Excel then reads the Chinese names right), CRLF rows (``csv``'s default);
    every cell through ``csv_safe``.
    """
    out = io.StringIO()
    writer = csv.writer(out)

    def row_of(cells: list[Any]) -> list[str]:
        return [csv_safe(str(cell)) for cell in cells]  # every cell: no formula under "," or ";"

    writer.writerow(row_of([t("progress_service.page_student"), *view["exercises"], t("progress_service.csv_passed")]))
    for row in view["students"]:
        cells = []
        for exercise in view["exercises"]:
            cell = row["cells"].get(exercise)
            cells.append("" if cell is None else "passed" if cell["passed"] else f"failed:{cell['attempts']}")
        writer.writerow(row_of([row["name"], *cells, sum(1 for c in cells if c == "passed")]))
    return out.getvalue()


# --------------------------------------------------------------------------- the web application


def make_app(store: ProgressStore, class_key: str, teacher_key: str, *, model_root: str | None = None,
             model_port: int | None = None, join_secret: str | None = None,
             clock: Callable[[], float] = time.time, teacher_anywhere: bool = False,
             model_slots: int | None = None, budget: int = class_gateway.DEFAULT_BUDGET,
             reply_memory: bool = True):
    """The Starlette application (see the module docstring for each route).

    Args:
        store: where results live.  class_key: llama-server's key (kept on this computer; the teacher's
            own scripts may post results with it).  teacher_key: what the page needs.
        model_root: the class server as this machine reaches it (``http://127.0.0.1:8766``): its state on
            the page, and the students' door to it (``class_gateway``, under ``/v1``).  None: no model.
        model_port: unused (kept for callers of the service alone; the students' URL is this service's).
        join_secret: the class code's secret (20 hex digits, ``class_code``); None = no joining.
        clock: Unix seconds (tests move it).
        teacher_anywhere: the teacher's routes answer every address, not only this computer's (``--teacher-anywhere``).
        model_slots: requests the door passes on at once (the class server's ``--parallel``; default
            ``classroom.DEFAULT_SLOTS``).  budget: tokens per student per minute (0 = none; ``class_gateway``).
        reply_memory: the door answers a temperature-0 request it has seen before from memory
            (``class_gateway.ReplyCache``); False (``serve --no-reply-memory``): every request reaches the model.
    The app's ``state.share`` is the door's ``class_gateway.FairShare`` and ``state.memory`` its
    ``class_gateway.ReplyCache`` (None without a model, or with the memory off).
    """
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
    from starlette.routing import Route

    join_limit = RateLimit(JOIN_FAILURES_PER_MINUTE, clock=clock)  # wrong class codes, per address
    login_limit = RateLimit(LOGIN_ATTEMPTS_PER_MINUTE, clock=clock)  # teacher-key guesses, per address
    results_limit = RateLimit(RESULTS_PER_MINUTE, clock=clock)  # results, per student token
    share, gateway_routes = None, []  # the students' door to the model (class_gateway)
    if model_root:
        share = class_gateway.FairShare(model_slots or DEFAULT_MODEL_SLOTS, budget)
    memory = class_gateway.ReplyCache() if share is not None and reply_memory else None
    sessions: dict[str, float] = {}  # the teacher's logins: random value -> when it ends (clock)
    sessions_lock = threading.Lock()
    # Blocking work (SQLite, the model server's /metrics) runs in Starlette's thread pool, so one slow
    # request never holds up the students' posts.

    def error(exc: BadRequest) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    def address(request: Request) -> str:
        return request.client.host if request.client else ""

    async def read_body(request: Request, most: int) -> bytes:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > most):
            raise BadRequest(413, t("progress_service.too_big", most=most))
        data = b""
        try:
            async for chunk in request.stream():
                data += chunk
                if len(data) > most:
                    raise BadRequest(413, t("progress_service.too_big", most=most))
        except ClientDisconnect:  # gone, or closed at READ_DEADLINE_S: nobody reads the answer
            raise BadRequest(400, t("progress_service.not_json")) from None
        return data

    async def body_json(request: Request) -> Any:
        data = await read_body(request, MAX_BODY)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest(400, t("progress_service.not_json")) from None
        if json_depth(text) > MAX_DEPTH:
            raise BadRequest(400, t("progress_service.too_deep", most=MAX_DEPTH))
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            raise BadRequest(400, t("progress_service.not_json")) from None
        try:  # "\ud800" is valid JSON, but no UTF-8 (nor SQLite, nor a hash) takes it
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise BadRequest(400, t("progress_service.not_text")) from None
        return value

    def bearer(request: Request) -> str:
        value = request.headers.get("authorization", "")
        return value[7:].strip() if value[:7].lower() == "bearer " else ""

    async def student(request: Request, token: object) -> bool:
        """Who may post or read results: the student's own token as the bearer (a token that has joined),
        or the class key (the teacher's own scripts).  Returns True for the class key.

        Raises:
            BadRequest (401): neither.
        """
        given = bearer(request)
        if secrets.compare_digest(given.encode(), class_key.encode()):
            return True
        digest = class_gateway.token_hash(given)
        if digest is not None and isinstance(token, str) and secrets.compare_digest(given, token) \
                and await run_in_threadpool(store.student_of, digest) is not None:
            return False
        raise BadRequest(401, t("progress_service.not_joined"))

    if share is not None:
        gateway_routes = class_gateway.routes(share, model_root, class_key, store.student_of, read_body, bearer,
                                              BadRequest, memory=memory)

    def cookie_name(request: Request) -> str:
        server = request.scope.get("server") or ("", 0)
        return f"{COOKIE}_{server[1]}"

    def teacher(request: Request) -> bool:
        given = bearer(request)
        if given:
            return secrets.compare_digest(given.encode(), teacher_key.encode())
        session = request.cookies.get(cookie_name(request), "")
        with sessions_lock:
            ends = sessions.get(session)
            if ends is not None and ends <= clock():
                del sessions[session]
                ends = None
        return ends is not None

    def elsewhere(request: Request, page: bool = False) -> Response | None:
        """The 403 for a teacher's route asked from another computer (None when it may be answered)."""
        if teacher_anywhere or is_loopback(address(request)):
            return None
        message = t("progress_service.only_here")
        if page:
            return HTMLResponse(f'<!doctype html><html lang="zh-CN"><meta charset="utf-8"><p>{html.escape(message)}</p>',
                                status_code=403)
        return JSONResponse({"error": message}, status_code=403)

    async def post_results(request: Request) -> Response:
        try:
            body = await body_json(request)
            if not isinstance(body, dict) or not isinstance(body.get("results"), list):
                raise BadRequest(400, t("progress_service.result_fields", fields=", ".join(FIELDS)))
            if len(body["results"]) > MAX_RESULTS:
                raise BadRequest(413, t("progress_service.too_many", most=MAX_RESULTS))
            token = body.get("token")
            await student(request, token)
            name = valid_name(body.get("name"))
            results, refused = sort_results(body["results"])
            digest = class_gateway.token_hash(token) if isinstance(token, str) else None
            if digest is not None and not results_limit.take(digest, max(1, len(body["results"]))):
                raise BadRequest(429, t("progress_service.results_slow", most=RESULTS_PER_MINUTE))
            name = await run_in_threadpool(store.claim, name, token)
            new = await run_in_threadpool(store.add, name, results)
        except BadRequest as exc:
            return error(exc)
        return JSONResponse({"stored": new, "ids": [r["id"] for r in results], "refused": refused,
                             "unknown": unknown_exercises(results)})

    async def post_mine(request: Request) -> Response:
        try:
            body = await body_json(request)
            if not isinstance(body, dict):
                raise BadRequest(400, t("progress_service.not_json"))
            await student(request, body.get("token"))
            name = await run_in_threadpool(store.owner, valid_name(body.get("name")), body.get("token"))
            mine = [{k: r[k] for k in FIELDS} for r in await run_in_threadpool(store.results, name)]
        except BadRequest as exc:
            return error(exc)
        return JSONResponse({"name": name, "results": mine})

    async def post_join(request: Request) -> Response:
        try:
            if join_secret is None:
                raise BadRequest(404, t("progress_service.join_off"))
            if not join_limit.take(address(request)):  # counted before the body is read: no race
                raise BadRequest(429, t("progress_service.join_slow"))
            body = await body_json(request)
            if not isinstance(body, dict) or not isinstance(body.get("secret"), str) \
                    or not secrets.compare_digest(body["secret"].encode(), join_secret.encode()):
                raise BadRequest(403, t("progress_service.join_wrong"))
            join_limit.give_back(address(request))  # the right secret is not a guess
            name = await run_in_threadpool(store.claim, valid_name(body.get("name")), body.get("token"), True)
        except BadRequest as exc:
            return error(exc)
        here = f"http://{request.url.hostname or '127.0.0.1'}:{request.url.port}"
        return JSONResponse({  # the model through this service's door (class_gateway): no class key
            "COURSE_PROVIDER": "classroom",
            "COURSE_BASE_URL": here + "/v1",
            "COURSE_PROGRESS_URL": here,
            "COURSE_STUDENT_NAME": name,
        })

    def view_now() -> dict[str, Any]:
        return class_view(store.results(), store.students(), clock())

    async def page(request: Request) -> Response:
        if refused := elsewhere(request, page=True):
            return refused
        if not teacher(request):
            return RedirectResponse("/login", status_code=303)
        now = clock()
        view = await run_in_threadpool(view_now)
        model = await run_in_threadpool(model_state, model_root, class_key)
        return HTMLResponse(render_page(view, model, now, model_use()), headers={"Cache-Control": "no-store"})

    async def class_json(request: Request) -> Response:
        if refused := elsewhere(request):
            return refused
        if not teacher(request):
            return JSONResponse({"error": t("progress_service.teacher_key_wrong")}, status_code=401)
        view = await run_in_threadpool(view_now)
        return JSONResponse({**view, "model": await run_in_threadpool(model_state, model_root, class_key),
                             "model_use": model_use()})

    def model_use() -> dict[str, Any] | None:
        """The door's counts for the page and ``/api/class``: ``{"budget", "slots", "reply_memory" (on or off),
        "students": [...]}`` (``FairShare.snapshot``'s rows)."""
        if share is None:
            return None
        return {"budget": share.budget, "slots": share.capacity, "reply_memory": memory is not None,
                "students": share.snapshot()}

    async def set_budget(request: Request) -> Response:
        """``POST /teacher/budget``: the teacher changes the token budget (a form's ``budget``, or JSON)."""
        if refused := elsewhere(request):
            return refused
        if not teacher(request):
            return JSONResponse({"error": t("progress_service.teacher_key_wrong")}, status_code=401)
        try:
            data = await read_body(request, 4096)
        except BadRequest as exc:
            return error(exc)
        if request.headers.get("content-type", "").startswith("application/json"):
            try:
                value = json.loads(data).get("budget")
            except (ValueError, AttributeError):
                value = None
        else:
            value = parse_qs(data.decode("utf-8", errors="replace")).get("budget", [""])[0].strip()
        try:
            tokens = int(value)
        except (TypeError, ValueError):
            tokens = -1
        if share is None or not 0 <= tokens <= 10_000_000:
            return error(BadRequest(400, t("progress_service.budget_bad")))
        share.budget = tokens
        if request.headers.get("content-type", "").startswith("application/json"):
            return JSONResponse({"budget": share.budget})
        return RedirectResponse("/teacher", status_code=303)

    async def export(request: Request) -> Response:
        if refused := elsewhere(request):
            return refused
        if not teacher(request):
            return JSONResponse({"error": t("progress_service.teacher_key_wrong")}, status_code=401)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M")
        view = await run_in_threadpool(view_now)
        return Response(render_csv(view).encode("utf-8-sig"), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="class-progress-{stamp}.csv"'})

    async def login_form(request: Request) -> Response:
        if refused := elsewhere(request, page=True):
            return refused
        return HTMLResponse(login_page(request.query_params.get("wrong") == "1"))

    async def login(request: Request) -> Response:
        if refused := elsewhere(request, page=True):
            return refused
        here = address(request)
        if not login_limit.take(here):  # counted before the body is read: guesses at once cannot race past it
            return HTMLResponse(login_page(False, t("progress_service.login_slow")), status_code=429)
        try:
            data = await read_body(request, 4096)
        except BadRequest as exc:
            return error(exc)
        given = parse_qs(data.decode("utf-8", errors="replace")).get("key", [""])[0].strip()
        if not secrets.compare_digest(given.encode(), teacher_key.encode()):
            return RedirectResponse("/login?wrong=1", status_code=303)
        login_limit.give_back(here)
        session = secrets.token_urlsafe(32)  # the cookie holds this, never the key
        with sessions_lock:
            now = clock()
            for old in [s for s, ends in sessions.items() if ends <= now]:
                del sessions[old]
            while len(sessions) >= MAX_SESSIONS:
                del sessions[min(sessions, key=sessions.__getitem__)]
            sessions[session] = now + SESSION_S
        response = RedirectResponse("/teacher", status_code=303)
        response.set_cookie(cookie_name(request), session, max_age=SESSION_S, path="/", httponly=True,
                            samesite="strict")
        return response

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def database_busy(request: Request, exc: Exception) -> Response:
        """SQLite's "database is locked" after ``busy_timeout`` (another program holds the file): 503, in Chinese."""
        if not isinstance(exc, sqlite3.OperationalError) or not re.search(r"locked|busy", str(exc)):
            raise exc  # any other database error: Starlette's plain 500 (the traceback only in the teacher's window)
        return JSONResponse({"error": t("progress_service.busy")}, status_code=503, headers={"Retry-After": "5"})

    routes = [
        *gateway_routes,
        Route("/teacher/budget", set_budget, methods=["POST"]),
        Route("/api/results", post_results, methods=["POST"]),
        Route("/api/mine", post_mine, methods=["POST"]),
        Route("/api/join", post_join, methods=["POST"]),
        Route("/api/class", class_json),
        Route("/teacher", page),
        Route("/teacher.csv", export),
        Route("/login", login_form),
        Route("/login", login, methods=["POST"]),
        Route("/health", health),
        Route("/", lambda request: RedirectResponse("/teacher", status_code=303)),
    ]
    app = Starlette(routes=routes, exception_handlers={sqlite3.OperationalError: database_busy})
    app.state.share = share
    app.state.memory = memory
    return app


def login_page(wrong: bool, note: str = "") -> str:
    """The teacher's login form (the teacher key from ``.teacher-key``); ``note``: a sentence shown above it."""
    e = html.escape
    note = note or (t("progress_service.login_wrong") if wrong else "")
    note = f'<p style="color:#b00">{e(note)}</p>' if note else ""
    return f"""<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">
<title>{e(t("progress_service.page_title"))}</title></head>
<body style="font-family: sans-serif; font-size: 20px; margin: 2em">
<h1>{e(t("progress_service.page_title"))}</h1>{note}
<form method="post" action="/login"><label>{e(t("progress_service.login_label"))}
<input type="password" name="key" size="50" autofocus></label> <button type="submit">{e(t("progress_service.login_button"))}</button></form>
</body></html>"""


def guarded_protocol(read_deadline_s: float = READ_DEADLINE_S, per_address: int = MAX_CONNECTIONS_PER_ADDRESS):
    """uvicorn's h11 protocol with two guards against a slowloris (half-open requests that hold a file handle each).

    uvicorn's own timers do not cover it: ``timeout_keep_alive`` starts only after a response, so a
    connection that sends half its headers (or half its body), or nothing, stays open for ever; and
    ``limit_concurrency`` answers 503 to the next *request*, it does not close connections.  So:

    * a deadline: each request (headers and body) must have arrived ``read_deadline_s`` after the
      connection opened or the last answer went out, else the connection is closed.  The time the
      app takes to answer does not count.
    * at most ``per_address`` open connections from one client address: one more is closed at once.

    A class (one per call, its counts shared by the connections of one service) for ``uvicorn.Config(http=...)``.
    """
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    open_from: dict[str, int] = {}  # client address -> open connections (the event loop's thread only)

    class GuardedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _counted: str | None = None

        def connection_made(self, transport):  # type: ignore[override]
            super().connection_made(transport)
            host = self.client[0] if self.client else ""
            if open_from.get(host, 0) >= per_address:
                transport.close()  # its file handle is freed now, not at the deadline
                return
            open_from[host] = open_from.get(host, 0) + 1
            self._counted = host
            self._arm()

        def connection_lost(self, exc):
            self._disarm()
            if self._counted is not None:
                left = open_from.get(self._counted, 1) - 1
                if left > 0:
                    open_from[self._counted] = left
                else:
                    open_from.pop(self._counted, None)
                self._counted = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
                self._disarm()  # the whole request is in (or the connection is ending)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
                self._arm()  # the next request has READ_DEADLINE_S too

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(read_deadline_s, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

    return GuardedH11Protocol


def _more_file_handles(wanted: int = 4096) -> None:
    """Raise this process's soft limit on open files towards ``wanted`` (macOS starts at 256); POSIX only, quietly."""
    try:
        import resource
    except ImportError:  # Windows
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        pass


class ProgressService:
    """The service in a background thread of the teacher's command: ``start()``, ``stop()``.

    Args:
        app: from ``make_app``.  host, port: where uvicorn listens.
        read_deadline_s, per_address: the guards against half-open connections (``guarded_protocol``).
    """

    def __init__(self, app: Any, host: str, port: int, *, read_deadline_s: float = READ_DEADLINE_S,
                 per_address: int = MAX_CONNECTIONS_PER_ADDRESS):
        import uvicorn

        _more_file_handles()
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                lifespan="off", http=guarded_protocol(read_deadline_s, per_address),
                                proxy_headers=False,  # the client's address is the socket's: no X-Forwarded-For
                                h11_max_incomplete_event_size=16 * 1024)  # headers: 16 KiB at most
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="progress-service", daemon=True)

    def start(self, timeout: float = 10.0) -> "ProgressService":
        """Start listening; wait until it does.

        Raises:
            OSError: it did not start in ``timeout`` s (the port is taken, for one).
        """
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise OSError(t("progress_service.not_started", port=self.server.config.port))
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)


def main(argv: list[str] | None = None) -> int:
    """``python -m course_runtime.progress_service``: the service alone (tests, or a teacher without the model server).

    Options: ``--host``, ``--port``, ``--db`` (the SQLite file), ``--class-key-file``, ``--teacher-key-file``,
    ``--model-root`` (a class server to show), ``--join-secret``, ``--new-key`` (new class and teacher keys),
    ``--teacher-anywhere`` (the teacher's routes for every address, not only this computer's),
    ``--no-reply-memory`` (the door sends every request to the model; ``class_gateway.ReplyCache``).
    """
    from .keys import KEY_FILE, TEACHER_KEY_FILE, class_key, teacher_key
    from .local_server import LocalModelError

    parser = argparse.ArgumentParser(prog="python -m course_runtime.progress_service",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--db", type=Path, default=DB_FILE)
    parser.add_argument("--class-key-file", type=Path, default=KEY_FILE)
    parser.add_argument("--teacher-key-file", type=Path, default=TEACHER_KEY_FILE)
    parser.add_argument("--model-root", default=None)
    parser.add_argument("--model-port", type=int, default=None)
    parser.add_argument("--join-secret", default=None)
    parser.add_argument("--new-key", action="store_true", help="make new class and teacher keys")
    parser.add_argument("--teacher-anywhere", action="store_true",
                        help="answer the teacher's routes from every address, not only this computer")
    parser.add_argument("--no-reply-memory", dest="reply_memory", action="store_false",
                        help="the door sends every request to the model (default: a temperature-0 request it has "
                             "answered before is answered from memory)")
    opts = parser.parse_args(argv)
    try:
        keys = class_key(opts.class_key_file, new=opts.new_key), teacher_key(opts.teacher_key_file, new=opts.new_key)
    except LocalModelError as exc:
        print(t("providers.error_line", error=exc), file=sys.stderr)
        return 1
    store = ProgressStore(opts.db)
    app = make_app(store, *keys, model_root=opts.model_root, model_port=opts.model_port,
                   join_secret=opts.join_secret, teacher_anywhere=opts.teacher_anywhere,
                   reply_memory=opts.reply_memory)
    ProgressService(app, opts.host, opts.port).server.run()  # in this thread: uvicorn handles Ctrl-C
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
