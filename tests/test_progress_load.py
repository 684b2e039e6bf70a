"""A lesson's worth of results from 30 students, with the teacher's service killed and restarted mid-way (issue 32).

The service runs as its own process (``python -m course_runtime.progress_service``
on a free loopback port, its SQLite file in a temporary folder); 30 students
are threads of this process, each with its own progress folder, name and
token, recording results through ``progress.record`` - the very code a
checker runs.  Half-way through, the service is killed outright (``kill``:
no clean shutdown) and started again two seconds later; the students carry
on, and what they could not send waits in their files.  At the end every
result kept by a student is in the database exactly once, and every result a
student was told had arrived is there.

Bounded: 30 × 20 results, a backoff of 0.2 s instead of ``RETRY_AFTER_S``;
about 15 s on 2 cores.  The figures are printed (``-s``), not asserted.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import subprocess
import sys
import threading
import time

import httpx2
import pytest

from machine_support import free_port, wait_until
from notebook_cells import ROOT

from course_runtime import progress

STUDENTS = 30
RESULTS_EACH = 20
CLASS_KEY = "course-class-" + "3" * 32


def start_service(folder, port):
    (folder / ".class-key").write_text(CLASS_KEY + "\n", encoding="utf-8")
    env = {**os.environ, "COURSE_IGNORE_DOTENV": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "course_runtime.progress_service", "--port", str(port), "--db", str(folder / "db.sqlite3"),
         "--class-key-file", str(folder / ".class-key"), "--teacher-key-file", str(folder / ".teacher-key")],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    up = wait_until(lambda: _healthy(port) or process.poll() is not None, seconds=30)
    assert up and process.poll() is None, process.stderr.read().decode("utf-8", "replace")
    return process


def _healthy(port):
    try:
        return httpx2.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
    except httpx2.HTTPError:
        return False


def test_thirty_students_lose_nothing_across_a_restart(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "RETRY_AFTER_S", 0.2)
    monkeypatch.setattr(progress, "_said", {"progress.not_sent", "progress.refused"})  # keep the output quiet
    # Thirty computers in one process: each student folder gets its own token (on a laptop it is the OS user's).
    tokens = {tmp_path / f"student{n:02d}": secrets.token_hex(16) for n in range(STUDENTS)}
    monkeypatch.setattr(progress, "student_token", lambda folder=None: tokens[folder])
    port = free_port()
    service = start_service(tmp_path, port)
    settings = {"url": f"http://127.0.0.1:{port}", "key": CLASS_KEY}
    halfway = threading.Barrier(STUDENTS + 1)
    restarted = threading.Event()
    errors: list[BaseException] = []

    def lesson(n: int) -> None:
        folder = tmp_path / f"student{n:02d}"
        mine = {**settings, "name": f"学生{n:02d}"}
        try:
            for i in range(RESULTS_EACH):
                exercise = progress.EXERCISES[i % len(progress.EXERCISES)]
                progress.record(exercise, passed=(i + n) % 3 == 0, hint="06.call_key.1", folder=folder,
                                settings=mine)
                if i == RESULTS_EACH // 2:
                    halfway.wait(60)
                    restarted.wait(60)  # some results of the second half go while the service is down
                time.sleep(0.01)
            deadline = time.monotonic() + 60
            while progress.send_pending(folder, mine) != 0 and time.monotonic() < deadline:
                time.sleep(0.2)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    started = time.monotonic()
    threads = [threading.Thread(target=lesson, args=(n,)) for n in range(STUDENTS)]
    for thread in threads:
        thread.start()
    halfway.wait(120)
    service.kill()  # no clean shutdown
    service.wait(10)
    restarted.set()
    time.sleep(2.0)  # students record into their files meanwhile
    service = start_service(tmp_path, port)
    for thread in threads:
        thread.join(120)
    elapsed = time.monotonic() - started
    service.terminate()
    service.wait(10)
    assert not errors, errors

    kept, told = [], set()
    for n in range(STUDENTS):
        folder = tmp_path / f"student{n:02d}"
        kept += [r["id"] for r in progress.read_results(folder)]
        told |= progress.sent_ids(folder)
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        stored = [row[0] for row in db.execute("SELECT id FROM results")]
        names = {row[0] for row in db.execute("SELECT name FROM results")}
    assert len(kept) == STUDENTS * RESULTS_EACH == len(set(kept))
    assert sorted(stored) == sorted(kept)  # every result, each exactly once
    assert told == set(kept)  # and every student knows it arrived
    assert len(names) == STUDENTS
    print(f"\n{STUDENTS} students x {RESULTS_EACH} results, service killed and restarted once: "
          f"{len(stored)} stored, {elapsed:.1f} s")


@pytest.mark.skipif(sys.platform == "win32", reason="the service's file is opened by the test while it runs")
def test_the_database_survives_a_kill_mid_write(tmp_path):
    """Acknowledged means on disk: a result acknowledged just before ``kill`` is there after the restart."""
    port = free_port()
    service = start_service(tmp_path, port)
    folder = tmp_path / "student"
    settings = {"url": f"http://127.0.0.1:{port}", "key": CLASS_KEY, "name": "王小明"}
    result = progress.record("06-1", False, "06.call_key.1", folder=folder, settings=settings)
    assert progress.sent_ids(folder) == {result["id"]}
    service.kill()
    service.wait(10)
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        assert [row[0] for row in db.execute("SELECT id FROM results")] == [result["id"]]
