"""A student's exercise results: kept on their own computer, and in class also sent to the teacher.

Not taught in a notebook: every checker cell calls ``record`` through the
``checkers.exercise`` decorator, and ``python course.py progress`` prints
``progress_table``.

What one result is (``FIELDS``), and nothing else - no code, no prompts, no
replies::

    {"id": "3f9c...", "exercise": "06-2", "passed": false,
     "hint": "06.agent_loop.4", "attempt": 3, "time": "2026-12-03T10:41:07Z"}

``id`` is random (``uuid4``: the teacher's service stores each result once
however often it is sent), ``hint`` is the texts key of the sentence the
checker printed (``check.06.agent_loop.4`` without ``check.``), ``attempt`` counts
this exercise's results on this computer, ``time`` is UTC to the second.

Where it is kept: ``results.jsonl`` (one JSON object per line, UTF-8) in the
progress folder, ``.progress/`` at the project root (git-ignored;
``COURSE_PROGRESS_DIR`` names another).  Always, with or without a class.

In class (``.env`` has ``COURSE_PROGRESS_URL`` and ``COURSE_STUDENT_NAME``, written
by ``python course.py join``), every result not yet acknowledged is also posted to
the teacher's progress service (``progress_service``): ``POST
<COURSE_PROGRESS_URL>/api/results`` with the display name and this computer's
student token (``class_code.student_token``, kept per OS user outside the course
folder; ``join`` tied the name to it, so nobody else can post or read under that
name), the token also as ``Authorization: Bearer`` (a ``COURSE_CLASS_KEY`` in
``.env``, the teacher's own computer, is sent there instead).  Acknowledged ids go to ``sent.txt``.
Each result line also carries ``TOKEN_FIELD``: the SHA-256 of the student token it was recorded
under (never the token), and ``send_pending`` sends only the results recorded under the current
token, so a course folder copied from a classmate never sends the classmate's results under the
new student's name (they stay on disk, unsent; the student is told once, ``progress.other_token``),
and the teacher's service refuses one recorded under another token anyway
(``progress_store.unbind``).  A line an older course wrote has no ``TOKEN_FIELD``: it counts as
the token ``class_code.legacy_owner`` names - decided once by ``join``, from whether the folder's
``.env`` had the same student name (``class_code.pin_old_results``) - or, before any such join, as
the current token's (the one student who used this folder with the older course).
When posting fails (no Wi-Fi, the teacher's command stopped), nothing is lost:
the result stays unsent and goes with the next one.  A checker waits at most
``TIMEOUT_S`` for the post, after a failure it does not try again for
``RETRY_AFTER_S``, and the student sees one short line per problem at most
(``progress.not_sent``, ``progress.refused``).
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .class_code import TOKEN_FIELD, legacy_owner, progress_dir, student_token, token_sha256
from .texts import t

CHECKERS_DIR = Path(__file__).resolve().parent.parent / "course_lib" / "checkers"  # read as text, never imported
# "NN-k": notebook NN, exercise k (what @exercise takes); "NN-kvM": version M (2 to 99) of that exercise,
# after its task changed (python course.py new-exercise --new-version NN-k), so an answer to the old task
# is never counted as one to the new (the class page shows the old id as a column of its own).
EXERCISE_ID = re.compile(r"(\d{2})-(\d{1,2})(?:v([2-9]|[1-9]\d))?")


def exercise_order(exercise: str) -> tuple[int, int, int]:
    """``"06-10"`` -> ``(6, 10, 1)``, ``"04-1v2"`` -> ``(4, 1, 2)``: the sort key that puts 06-10 after 06-9
    and a version after the one before (``exercise`` matches ``EXERCISE_ID``)."""
    notebook, number, version = EXERCISE_ID.fullmatch(exercise).groups()
    return int(notebook), int(number), int(version or 1)


def base_exercise(exercise: str) -> str:
    """``"04-1v2"`` -> ``"04-1"``: the exercise whatever its version (solutions, answers and guide lines use it)."""
    return exercise.split("v")[0]


DECORATED_ID = re.compile(rb"""^[ \t]*@exercise\(\s*["'](\d{2}-\d{1,2}(?:v\d{1,2})?)["']\s*\)""", re.M)  # when ast cannot read it


def exercise_ids(folder: Path = CHECKERS_DIR) -> tuple[str, ...]:
    """Every exercise that has a checker, in notebook order: the ``@exercise("NN-k")`` ids of ``nbNN.py``.

    Read from the checker modules' source with ``ast`` (nothing is imported: the teacher's service
    and this module need the list before, and without, the checkers), so adding a checker with
    ``@exercise("06-3")`` - by hand or with ``python course.py new-exercise 06`` - is all it takes
    to register the exercise.  Sorted by notebook, then by number (``"06-10"`` after ``"06-9"``).

    Each file is read as bytes and parsed as Python reads source (a UTF-8 BOM or a ``# coding:``
    line is honoured).  A file ``ast`` cannot parse - saved in GBK by a teacher's editor, or
    half-edited - never stops the others: its ids are read with a regular expression over the
    bytes (``DECORATED_ID``) and one Chinese sentence on stderr names the file and the reason
    (``progress.checker_unreadable``), so every other notebook and ``serve`` go on.

    Args:
        folder: the checkers package (default ``course_lib/checkers``); its ``nb*.py`` files are read.
    Returns:
        the ids, e.g. ``("00-1", "00-2", "01-1", ...)``; each once.
    """
    found = set()
    for path in sorted(folder.glob("nb*.py")):
        source = path.read_bytes()
        try:
            tree = ast.parse(source, filename=str(path))
        except (SyntaxError, ValueError) as exc:
            found.update(m.decode("ascii") for m in DECORATED_ID.findall(source))
            print(t("progress.checker_unreadable", path=path, error=f"{type(exc).__name__}: {exc}"), file=sys.stderr)
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for decorator in node.decorator_list:
                    if (isinstance(decorator, ast.Call) and getattr(decorator.func, "id", None) == "exercise"
                            and decorator.args and isinstance(decorator.args[0], ast.Constant)
                            and isinstance(decorator.args[0].value, str)
                            and EXERCISE_ID.fullmatch(decorator.args[0].value)):
                        found.add(decorator.args[0].value)
    return tuple(sorted(found, key=exercise_order))


# Every exercise that has a checker ("NN-k" = notebook NN, 练习 k), in the order of the notebooks.
EXERCISES = exercise_ids()
FIELDS = ("id", "exercise", "passed", "hint", "attempt", "time")
TIMEOUT_S = 2.0  # the longest a checker waits for the teacher's service (connect: 1 s of it)
RETRY_AFTER_S = 30.0  # after a failed post, the next try is this much later (results wait in the file)
BATCH = 100  # results per post (the service takes at most progress_service.MAX_RESULTS)

_retry_at: dict[Path, float] = {}  # progress folder -> time.monotonic() before which nothing is posted
_said: set[str] = set()  # the short lines already shown in this kernel


def results_file(folder: Path | None = None) -> Path:
    return (folder or progress_dir()) / "results.jsonl"


def sent_file(folder: Path | None = None) -> Path:
    return (folder or progress_dir()) / "sent.txt"


def read_results(folder: Path | None = None) -> list[dict[str, Any]]:
    """Every result kept here, oldest first (lines that are not a result object are skipped)."""
    path = results_file(folder)
    if not path.is_file():
        return []
    results = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue  # a line cut off by a crash mid-write: the others still count
        if isinstance(item, dict) and set(FIELDS) <= set(item):
            results.append(item)
    return results


def sent_ids(folder: Path | None = None) -> set[str]:
    """The ids the teacher's service has acknowledged."""
    path = sent_file(folder)
    if not path.is_file():
        return set()
    return set(path.read_text(encoding="utf-8", errors="replace").split())


def _append(path: Path, text: str) -> None:
    """Append ``text`` (whole lines) to ``path``, first ending a line a crash left cut off."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_file() and path.stat().st_size:
        with path.open("rb") as f:
            f.seek(-1, 2)
            if f.read(1) != b"\n":
                text = "\n" + text
    with path.open("a", encoding="utf-8", newline="\n") as f:
        f.write(text)


def record(exercise: str, passed: bool, hint: str = "", folder: Path | None = None,
           settings: dict[str, str] | None = None) -> dict[str, Any]:
    """Keep one checker result here and, in class, post what is not yet sent (``send_pending``).

    Args:
        exercise: ``"NN-k"``, one of ``EXERCISES``.
        passed: what the checker found.
        hint: the texts key of the checker's sentence (``checkers/sentences.py``), ``"check."`` taken off.
        folder: the progress folder (default ``progress_dir()``).
        settings: the class (default ``class_settings()``, from ``.env``).
    Returns:
        The result as stored (``FIELDS``, and ``TOKEN_FIELD``: the SHA-256 of this OS user's student token,
        ``class_code.student_token``; left out when the token cannot be kept - the line then counts as an
        older course's).
    Raises:
        OSError: the folder cannot be written (``checkers.exercise`` catches it: a checker never fails
            because of this).
    """
    folder = folder or progress_dir()
    attempt = 1 + sum(1 for r in read_results(folder) if r.get("exercise") == exercise)
    result = {"id": uuid.uuid4().hex, "exercise": exercise, "passed": bool(passed),
              "hint": hint.removeprefix("check."), "attempt": attempt,
              "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    try:
        result[TOKEN_FIELD] = token_sha256(student_token(folder))
    except OSError:
        pass  # the user's folder cannot be written: a checker never fails because of this
    _append(results_file(folder), json.dumps(result, ensure_ascii=False) + "\n")
    send_pending(folder, settings)
    return result


def class_settings() -> dict[str, str] | None:
    """The class this computer has joined: ``{"url", "name", "key"}`` from the environment / ``.env``, or None.

    None unless ``COURSE_PROGRESS_URL`` and ``COURSE_STUDENT_NAME`` are set.  ``key`` is ``COURSE_CLASS_KEY``
    when set (the teacher's own computer), else "" (the student token is sent: ``send_pending``).
    """
    from .settings import EnvFileError, load_env

    try:
        load_env()
    except EnvFileError:
        return None  # the notebook's own set-up cell says what is wrong with .env
    url = os.environ.get("COURSE_PROGRESS_URL", "").strip().rstrip("/")
    name = os.environ.get("COURSE_STUDENT_NAME", "").strip()
    key = os.environ.get("COURSE_CLASS_KEY", "").strip()
    if not (url and name):
        return None
    return {"url": url, "name": name, "key": key}


def _say_once(key: str, **fields: object) -> None:
    if key not in _said:
        _said.add(key)
        print(t(key, **fields), file=sys.stderr)


def send_pending(folder: Path | None = None, settings: dict[str, str] | None = None) -> int | None:
    """Post every result the teacher's service has not acknowledged; mark those it acknowledges.

    Does nothing outside a class (``class_settings()`` is None) or within ``RETRY_AFTER_S`` of a failure.
    Only the results recorded under this OS user's current student token are sent (``own_results``); the others
    stay unsent, and one line (once a kernel) says how many.
    Never raises and never waits longer than ``TIMEOUT_S`` per post.
    Returns:
        How many results were acknowledged, or None when nothing was posted or a post failed.
    """
    folder = folder or progress_dir()
    if time.monotonic() < _retry_at.get(folder, 0.0):
        return None  # within RETRY_AFTER_S of a failure: not even .env is read again
    settings = settings or class_settings()
    if settings is None:
        return None
    try:
        token = student_token(folder)
    except OSError:
        _retry_at[folder] = time.monotonic() + RETRY_AFTER_S
        _say_once("progress.not_sent")
        return None
    done = sent_ids(folder)
    unsent = [r for r in read_results(folder) if r["id"] not in done]
    pending = own_results(unsent, token, folder)
    if len(pending) < len(unsent):
        _say_once("progress.other_token", n=len(unsent) - len(pending), folder=results_file(folder))
    if not pending:
        return 0
    import httpx2

    acknowledged = 0
    try:
        with httpx2.Client(timeout=httpx2.Timeout(TIMEOUT_S, connect=1.0), trust_env=False) as http:
            for start in range(0, len(pending), BATCH):
                body = {"name": settings["name"], "token": token, "results": pending[start:start + BATCH]}
                reply = http.post(settings["url"] + "/api/results", json=body,
                                  headers={"Authorization": "Bearer " + (settings.get("key") or token)})
                if reply.status_code != 200:
                    _retry_at[folder] = time.monotonic() + RETRY_AFTER_S
                    _say_once("progress.refused", status=reply.status_code, why=_why(reply))
                    return None
                answer = reply.json()
                ids = [i for i in answer.get("ids", []) if isinstance(i, str)]
                _append(sent_file(folder), "".join(i + "\n" for i in ids))
                acknowledged += len(ids)
                _say_about_batch(answer)
    except (httpx2.HTTPError, OSError, ValueError):
        _retry_at[folder] = time.monotonic() + RETRY_AFTER_S
        _say_once("progress.not_sent")
        return None
    return acknowledged


def own_results(results: list[dict[str, Any]], token: str, folder: Path) -> list[dict[str, Any]]:
    """The results of ``results`` recorded under ``token`` (``TOKEN_FIELD``), as sent: ``FIELDS`` + ``TOKEN_FIELD``.

    A result without ``TOKEN_FIELD`` (an older course) counts as ``class_code.legacy_owner(folder)``'s
    token, or as ``token``'s when that was never decided (the module docstring).
    """
    current = token_sha256(token)
    owner = legacy_owner(folder)
    kept = []
    for r in results:
        if r.get(TOKEN_FIELD, current if owner is None else owner) == current:
            kept.append({**{k: r[k] for k in FIELDS}, TOKEN_FIELD: current})
    return kept


def _say_about_batch(answer: Any) -> None:
    """One short line each (once a kernel) for what the service kept but does not know, and what it refused.

    ``answer`` is the service's JSON (``progress_service``'s ``post_results``): ``unknown`` lists the
    exercises the teacher's copy of the course does not know (kept, shown marked on the page);
    ``refused`` the results it did not keep (they stay unsent here and go again with the next post).
    """
    if not isinstance(answer, dict):
        return
    unknown = [e for e in answer.get("unknown") or [] if isinstance(e, str)]
    if unknown:
        _say_once("progress.unknown_exercise_sent", exercises=t("progress.list_separator").join(unknown[:5]))
    refused = [r for r in answer.get("refused") or [] if isinstance(r, dict)]
    if refused:
        exercises = sorted({str(r.get("exercise")) for r in refused if r.get("exercise")}) or ["?"]
        _say_once("progress.refused_some", n=len(refused), exercises=t("progress.list_separator").join(exercises[:5]),
                  why=str(refused[0].get("error", ""))[:200])


def _why(reply: Any) -> str:
    """The service's own Chinese reason (its JSON ``error``), or "" when the reply has none."""
    try:
        return str(reply.json().get("error", ""))[:200]
    except ValueError:
        return ""


def progress_table(folder: Path | None = None):
    """One row per exercise with a result here: ``pandas.DataFrame`` with the ``progress.column_*`` headings.

    Columns: the exercise, passed or not (✅ once any attempt passed), attempts, the last hint's key,
    the last time (UTC), and whether every result of it has reached the teacher (in class).
    """
    import pandas as pd

    results = read_results(folder)
    done = sent_ids(folder)
    rows = []
    for exercise in sorted({r["exercise"] for r in results}):
        mine = [r for r in results if r["exercise"] == exercise]
        rows.append({t("progress.column_exercise"): exercise,
                     t("progress.column_passed"): "✅" if any(r["passed"] for r in mine) else "❌",
                     t("progress.column_attempts"): len(mine),
                     t("progress.column_hint"): mine[-1]["hint"],
                     t("progress.column_time"): mine[-1]["time"],
                     t("progress.column_sent"): all(r["id"] in done for r in mine)})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    """``python course.py progress``: print this computer's results (and post what is unsent, in class)."""
    folder = progress_dir()
    results = read_results(folder)
    if not results:
        print(t("progress.none", folder=folder))
        return 0
    settings = class_settings()
    if settings is not None:
        sent = send_pending(folder, settings)
        if sent:
            print(t("progress.sent", n=sent, name=settings["name"]))
    table = progress_table(folder)
    print(table.to_string(index=False))
    passed = sum(1 for value in table[t("progress.column_passed")] if value == "✅")
    print(t("progress.summary", passed=passed, total=len(EXERCISES), folder=results_file(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
