"""The capstone's hidden exam on the teacher's computer: its questions, their keys, every submission (SQLite).

The exam is made by ``python course.py capstone new`` (``course_lib.capstone``: questions from
templates and a seed the teacher keeps, keys computed by code from ``data/``) and written here, in the
progress service's database (``class-progress.sqlite3`` at the project root, git-ignored): the keys
never enter the repository or a student's laptop.  The service (``exam_desk``) reads the newest exam,
hands its questions (never its keys) to students while it is open, and keeps each submission with its
scores.

Tables (created when missing, beside ``progress_store``'s):

* ``exams``: ``exam_id`` (8 hex digits), ``seed``, ``created`` (UTC text), ``state`` (``"closed"`` or
  ``"open"``), ``opened`` / ``closed`` (Unix s or NULL), ``max_submissions``, ``questions``: JSON, a list of
  ``{"id", "question", "kind" (a template kind: price, total, ...), "key": {...}}``.
* ``exam_submissions``: one row per submission: ``exam_id``, ``name``, ``received`` (Unix s), ``score``,
  ``total``, ``per_kind`` (JSON ``{kind: [passed, asked]}``), ``requests``, ``tokens``, ``seconds`` (the
  student's own counts, summed), ``door_requests`` (what the class door saw of that student since the exam
  opened; NULL without a door), ``unseen`` (JSON: what the submission claims that the door never saw,
  ``exam_desk.witnessed``), ``answers`` (JSON: what was sent, with each answer's verdicts).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from .progress_store import BUSY_TIMEOUT_S


class ExamStore:
    """The exams and their submissions, in the progress database (a connection per operation, one lock).

    Args:
        path: the SQLite file (``progress_store.DB_FILE`` in class; the tables are made when missing).
        busy_timeout_s: as ``progress_store.ProgressStore``.
    """

    def __init__(self, path: Path, busy_timeout_s: float = BUSY_TIMEOUT_S):
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self._lock = threading.Lock()
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript("""
                CREATE TABLE IF NOT EXISTS exams (
                    exam_id TEXT PRIMARY KEY, seed INTEGER NOT NULL, created TEXT NOT NULL, state TEXT NOT NULL,
                    opened REAL, closed REAL, max_submissions INTEGER NOT NULL, questions TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS exam_submissions (
                    exam_id TEXT NOT NULL, name TEXT NOT NULL, received REAL NOT NULL, score INTEGER NOT NULL,
                    total INTEGER NOT NULL, per_kind TEXT NOT NULL, requests INTEGER NOT NULL, tokens INTEGER NOT NULL,
                    seconds REAL NOT NULL, door_requests INTEGER, unseen TEXT NOT NULL, answers TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS submissions_by_exam ON exam_submissions(exam_id, name, received);
            """)

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """One connection for one operation, closed after it (none is left holding the file: Windows cannot
        move or delete a file an open connection holds), under this store's lock."""
        with self._lock:
            db = sqlite3.connect(self.path, timeout=self.busy_timeout_s, isolation_level=None)
            try:
                db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
                db.execute("PRAGMA synchronous=FULL")  # acknowledged means on disk
                yield db
            finally:
                db.close()

    def close(self) -> None:
        """Nothing stays open between operations; kept so a caller can close it like ``ProgressStore``."""

    def new_exam(self, exam_id: str, seed: int, questions: list[dict[str, Any]], max_submissions: int) -> None:
        """Store a new exam, closed; it becomes the current one (``current``).  The older exams and their
        submissions stay (the teacher's CSV of last term still works)."""
        created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        with self._connect() as db:
            db.execute("INSERT INTO exams(exam_id, seed, created, state, opened, closed, max_submissions, "
                             "questions) VALUES (?, ?, ?, 'closed', NULL, NULL, ?, ?)",
                             (exam_id, seed, created, max_submissions, json.dumps(questions, ensure_ascii=False)))

    def current(self) -> dict[str, Any] | None:
        """The newest exam: ``{"exam_id", "seed", "created", "state", "opened", "closed", "max_submissions",
        "questions"}`` (questions with their keys: for the service, never sent as they are), or None."""
        with self._connect() as db:
            row = db.execute("SELECT exam_id, seed, created, state, opened, closed, max_submissions, questions "
                                   "FROM exams ORDER BY rowid DESC LIMIT 1").fetchone()
        if row is None:
            return None
        keys = ("exam_id", "seed", "created", "state", "opened", "closed", "max_submissions", "questions")
        exam = dict(zip(keys, row))
        exam["questions"] = json.loads(exam["questions"])
        return exam

    def set_state(self, exam_id: str, state: str, now: float | None = None) -> None:
        """Open or close an exam (``state``: ``"open"`` or ``"closed"``); the time is kept in ``opened``/``closed``."""
        now = time.time() if now is None else now
        column = "opened" if state == "open" else "closed"
        with self._connect() as db:
            db.execute(f"UPDATE exams SET state = ?, {column} = ? WHERE exam_id = ?", (state, now, exam_id))

    def add_submission(self, exam_id: str, name: str, row: dict[str, Any], most: int,
                       now: float | None = None) -> int | None:
        """Keep one scored submission (``row``: score, total, per_kind, requests, tokens, seconds,
        door_requests, unseen, answers), received ``now`` - unless ``name`` already has ``most`` submissions to
        ``exam_id`` or the exam is no longer open.  Counted and written in one transaction, so submissions
        sent at once cannot pass ``most`` between them.

        Returns:
            How many submissions ``name`` has left after this one, or None when it was not kept.
        """
        now = time.time() if now is None else now
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                state = db.execute("SELECT state FROM exams WHERE exam_id = ?", (exam_id,)).fetchone()
                count = db.execute("SELECT COUNT(*) FROM exam_submissions WHERE exam_id = ? AND name = ?",
                                   (exam_id, name)).fetchone()[0]
                if state is None or state[0] != "open" or count >= most:
                    db.execute("ROLLBACK")
                    return None
                db.execute(
                    "INSERT INTO exam_submissions(exam_id, name, received, score, total, per_kind, requests, tokens, "
                    "seconds, door_requests, unseen, answers) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (exam_id, name, now, row["score"], row["total"], json.dumps(row["per_kind"], ensure_ascii=False),
                     row["requests"], row["tokens"], row["seconds"], row["door_requests"],
                     json.dumps(row["unseen"], ensure_ascii=False), json.dumps(row["answers"], ensure_ascii=False)))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return most - count - 1

    def submissions(self, exam_id: str, name: str | None = None, answers: bool = True) -> list[dict[str, Any]]:
        """The submissions to ``exam_id`` (or one student's), oldest first, JSON columns read back.

        ``answers`` False: without the ``answers`` column (up to 256 KB a submission), for what needs only the
        scores and counts - the leaderboard the teacher's page draws every few seconds, a student's own score.
        """
        columns = ("name", "received", "score", "total", "per_kind", "requests", "tokens", "seconds", "door_requests",
                   "unseen", *(("answers",) if answers else ()))
        query = f"SELECT {', '.join(columns)} FROM exam_submissions WHERE exam_id = ?"
        args: tuple = (exam_id,)
        if name is not None:
            query, args = query + " AND name = ?", (exam_id, name)
        with self._connect() as db:
            rows = db.execute(query + " ORDER BY rowid", args).fetchall()
        found = [dict(zip(columns, row)) for row in rows]
        for item in found:
            for column in {"per_kind", "unseen", "answers"} & set(columns):
                item[column] = json.loads(item[column])
        return found

    def count(self, exam_id: str, name: str) -> int:
        """How many times ``name`` has submitted to ``exam_id``."""
        with self._connect() as db:
            return db.execute("SELECT COUNT(*) FROM exam_submissions WHERE exam_id = ? AND name = ?",
                                    (exam_id, name)).fetchone()[0]

