"""``python -m bench.capstone_exam``: the capstone's hidden exam (notebook 12) for a whole class, through the door.

One run: a fresh class model server started as ``python course.py serve`` starts it (4 slots) and the progress
service beside it with the exam desk and its scorer (``course_lib.capstone.score_answer``), ``N`` students
joined.  The teacher's exam is made as ``capstone new`` makes it (``exam_questions``: ``--per-kind`` questions of
each of the ten kinds, 20 by default) and opened.  Every student is a thread that does what notebook 12's
exam cells do: fetches the questions with their own token (``GET /api/exam``), runs the notebook's first agent
on each (``Agent`` with ``eval_set.registry()``, ``max_steps=4``, ``max_tokens=200``, the course's client for
the ``classroom`` provider: every request through the door) with ``capstone.run_exam``, and submits
(``POST /api/exam/submit``).  Students start within ``STAGGER_S`` of each other.

With the door's reply memory on (``serve``'s default) every unchanged agent sends the same requests, and the
door answers them from memory after the first student; off (``--no-reply-memory``, or a class whose every
student changed their agent - the usual case in a capstone) every request reaches the model.

Reported per class size and memory: students who submitted within ``--max-seconds``, when the last one did,
each student's exam time (p50 / max), requests the model answered and those answered from memory (the door's
own counts), failures, the scores on the leaderboard (p50) and the flags it shows.  Bounded: every run stops
at ``--max-seconds``; loopback only.  Writes ``capstone_exam.json`` / ``.md`` to ``--out`` (default
``bench/results``).  Not part of CI (minutes of a whole machine per run); a smoke test runs it on a fake model.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2

from course_lib.agent import Agent
from course_lib.capstone import exam_questions, run_exam, score_answer
from course_lib.eval_set import registry
from course_lib.providers import PRESETS
from course_runtime import classroom, progress_service
from course_runtime.exam_store import ExamStore
from course_runtime.progress_store import ProgressStore
from course_runtime.web_server import ProgressService

from .classroom import DEFAULT_OUT, _free_port, run_students
from .fairness import client_for
from .machine import meta
from .report import percentile, save

CLASS_SIZES = (1, 10, 30)
STAGGER_S = 10.0  # students press Shift-Enter on the exam cell within this many seconds of each other
PER_KIND = 2
SEED = 2026


def open_exam(store_dir: Path, model_root: str, class_key: str, students: int, slots: int, memory: bool,
              per_kind: int, seed: int):
    """A progress service with the door and the exam desk on a free loopback port, ``students`` joined, the
    exam made and opened; returns ``(service, store, port, teacher_key, tokens, questions)``."""
    store = ProgressStore(store_dir / "class-progress.sqlite3", joins_per_address=10_000)  # one address: a simulation
    questions = exam_questions(seed, per_kind)
    exams = ExamStore(store.path)
    exams.new_exam(secrets.token_hex(4), seed, questions, 3)
    exams.close()
    secret, teacher = secrets.token_hex(5), "course-teacher-" + secrets.token_hex(16)
    app = progress_service.make_app(store, class_key, teacher, model_root=model_root, join_secret=secret,
                                    model_slots=slots, reply_memory=memory, exam_scorer=score_answer)
    port = _free_port()
    service = ProgressService(app, "127.0.0.1", port).start()
    tokens = []
    for n in range(students):
        token = secrets.token_hex(16)
        httpx2.post(f"http://127.0.0.1:{port}/api/join", timeout=10,
                    json={"secret": secret, "name": f"学生{n + 1}", "token": token}).raise_for_status()
        tokens.append(token)
    httpx2.post(f"http://127.0.0.1:{port}/teacher/exam", json={"action": "open"}, timeout=10,
                headers={"Authorization": f"Bearer {teacher}"}).raise_for_status()
    return service, store, port, teacher, tokens, questions


def through_door(model_root: str, class_key: str, students: int, memory: bool, slots: int, max_seconds: float,
                 per_kind: int = PER_KIND, seed: int = SEED) -> dict:
    """``students`` students take the exam through a fresh door to the model server at ``model_root``; the row."""
    service, store, port, teacher, tokens, questions = open_exam(
        Path(tempfile.mkdtemp(prefix="capstone-exam-")), model_root, class_key, students, slots, memory, per_kind, seed)
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    deadline = started + max_seconds
    people = [{"exam_s": None, "submitted_at": None, "failure": None, "cut": False} for _ in tokens]
    lock = threading.Lock()

    def student(number: int) -> None:
        time.sleep((number * STAGGER_S / max(1, len(tokens) - 1)) if len(tokens) > 1 else 0)
        mine, token = people[number], tokens[number]
        begun = time.monotonic()
        try:
            headers = {"Authorization": f"Bearer {token}"}
            exam = httpx2.get(url + "/api/exam", headers=headers, timeout=30).json()
            client = client_for(url + "/v1", token).with_options(timeout=max(1.0, deadline - time.monotonic()))

            def make_agent() -> Agent:  # the notebook's first agent; none is started after the time limit
                if time.monotonic() >= deadline:
                    raise TimeoutError("the bench's time limit")
                return Agent(client, PRESETS["classroom"].model, registry(), max_steps=4, max_tokens=200, trace=None)

            records = run_exam(make_agent, exam, show=None)
            if time.monotonic() >= deadline:
                raise TimeoutError("the bench's time limit")
            reply = httpx2.post(url + "/api/exam/submit", json={"exam": exam["exam"], "answers": records},
                                headers=headers, timeout=30)
            reply.raise_for_status()
        except Exception as exc:  # noqa: BLE001 - a failure (or the time limit) is a result here
            with lock:
                mine["failure"] = type(exc).__name__
                mine["cut"] = time.monotonic() >= deadline - 1.0  # stopped by the time limit: not a failure
            return
        with lock:
            mine["exam_s"] = round(time.monotonic() - begun, 1)
            mine["submitted_at"] = round(time.monotonic() - started, 1)

    try:
        run_students(student, len(tokens), deadline)
        wall = time.monotonic() - started
        auth = {"Authorization": f"Bearer {teacher}"}
        board = httpx2.get(url + "/api/exam/board", headers=auth, timeout=30).json()
        use = httpx2.get(url + "/api/class", headers=auth, timeout=30).json()["model_use"]["students"]
    finally:
        service.stop()
        store.close()
    done = [p for p in people if p["submitted_at"] is not None]
    scores = [r["score"] for r in board["rows"] if r["score"] is not None]
    return {"students": students, "reply_memory": memory, "questions": len(questions),
            "submitted": len(done), "wall_s": round(min(wall, max_seconds), 1),
            "last_submitted_s": max(p["submitted_at"] for p in done) if len(done) == students else None,
            "exam_p50_s": percentile([p["exam_s"] for p in done], 50) if done else None,
            "exam_max_s": max(p["exam_s"] for p in done) if done else None,
            "failures": sum(1 for p in people if p["failure"] and not p["cut"]),
            "failure_kinds": sorted({p["failure"] for p in people if p["failure"] and not p["cut"]}),
            "cut": sum(1 for p in people if p["cut"]),
            "to_model": sum(r["requests"] for r in use), "from_memory": sum(r["cached"] for r in use),
            "score_p50": percentile(scores, 50) if scores else None,
            "claimed_requests": sum(r["requests"] or 0 for r in board["rows"]),
            "flags": sum(1 for r in board["rows"] if r["flag"])}


def one_run(students: int, memory: bool, slots: int, max_seconds: float, per_kind: int, log: Path) -> dict:
    """A fresh class model server (as ``serve`` starts it) and door; ``students`` students take the exam."""
    key_file = Path(tempfile.mkdtemp(prefix="capstone-exam-key-")) / ".class-key"
    key = classroom.class_key(key_file)
    server = classroom.ClassModelServer("127.0.0.1", _free_port(), slots=slots, key_file=key_file, log=log)
    with server:
        return through_door(server.root, key, students, memory, slots, max_seconds, per_kind)


def markdown(results: dict) -> str:
    lines = [f"# The capstone's hidden exam through the class door ({results['date']})", "",
             f"Machine: {results['machine']}; load average before: {results['load_before']}; "
             f"{results['also_running']}.",
             f"Class model server: {results['slots']} slots, a fresh one per run, every student through the door. "
             f"Each student fetches the exam ({results['questions']} questions: {results['per_kind']} of each of the "
             f"ten kinds), runs notebook 12's first agent on every question (`capstone.run_exam`) and submits; "
             f"students start within {STAGGER_S:g} s. Each run stops after {results['max_seconds']:g} s "
             "(`python -m bench.capstone_exam`).", "",
             "| students | door's memory | submitted | last submission (s) | one student's exam, p50 / max (s) | "
             "answered by the model | answered from memory | failures | score p50 | requests claimed | flags |",
             "|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for r in results["rows"]:
        last = r["last_submitted_s"] if r["last_submitted_s"] is not None else f"cut at {r['wall_s']:g}"
        lines.append(f"| {r['students']} | {'on' if r['reply_memory'] else 'off'} | {r['submitted']} of "
                     f"{r['students']} | {last} | {r['exam_p50_s']} / {r['exam_max_s']} | {r['to_model']} | "
                     f"{r['from_memory']} | {r['failures']} | {r['score_p50']} | {r['claimed_requests']} | "
                     f"{r['flags']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, out: Path = DEFAULT_OUT) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.capstone_exam", description=__doc__.split("\n")[0])
    parser.add_argument("--students", default=",".join(map(str, CLASS_SIZES)), help="comma-separated class sizes")
    parser.add_argument("--memory", default="on,off", help="comma-separated: on, off (the door's reply memory)")
    parser.add_argument("--per-kind", type=int, default=PER_KIND, help="questions of each kind (ten kinds)")
    parser.add_argument("--max-seconds", type=float, default=600.0, help="time limit of one run")
    parser.add_argument("--slots", type=int, default=classroom.DEFAULT_SLOTS)
    parser.add_argument("--also-running", default="nothing else running",
                        help="what else ran on the machine (written into the table)")
    parser.add_argument("--append", action="store_true", help="add these rows to --out's capstone_exam.json")
    parser.add_argument("--out", type=Path, default=out)
    opts = parser.parse_args(argv)
    info = meta("python -m bench.capstone_exam " + " ".join(argv if argv is not None else sys.argv[1:]))
    earlier = json.loads((opts.out / "capstone_exam.json").read_text(encoding="utf-8")) if opts.append else None
    rows = list(earlier["rows"]) if earlier else []
    log = opts.out / "logs" / "capstone-exam-server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    for memory in [m.strip() == "on" for m in opts.memory.split(",") if m.strip()]:
        for students in [int(x) for x in opts.students.split(",") if x.strip()]:
            print(f"== {students} students, memory {'on' if memory else 'off'}", flush=True)
            row = one_run(students, memory, opts.slots, opts.max_seconds, opts.per_kind, log)
            print(row, flush=True)
            rows.append(row)
    results = {**info, "also_running": opts.also_running, "slots": opts.slots, "max_seconds": opts.max_seconds,
               "per_kind": opts.per_kind, "questions": 10 * opts.per_kind, "rows": rows}
    save(opts.out, "capstone_exam", results, markdown(results))
    return results


if __name__ == "__main__":
    main()
