"""``python -m bench.class_cost``: what one notebook costs the teacher's class model server, for a whole class.

Notebook 10 (evaluation) sends about a hundred requests per student; on a
2-core class model server that is minutes of model time each.  This bench runs a
simulated class through the door (``course_runtime/class_door.py``) of a fresh
class model server started as ``python course.py serve`` starts it (4 slots), once
with the door's reply memory on (``serve``'s default) and once off
(``serve --no-reply-memory``, or students who all changed a prompt):

* each student is the course's own client (``classroom`` provider, a joined
  student token: ``bench/fairness.py``'s ``door_clients``) and sends the
  notebook's chat requests from the reference record
  (``bench/results/reference_replies.json``), in order - the bodies every
  student's unchanged notebook sends at temperature 0;
* within a cell the requests follow each other at once (the agent's loop);
  between two cells the student pauses ``CELL_THINK_S`` (reading, pressing
  Shift-Enter: seeded); students start within ``STAGGER_S`` of each other.

Reported per class size and memory: how long until the last student had the
whole notebook's replies (``wall_s``; a run cut by ``--max-seconds`` says how
far it got, never hides it), each student's time spent waiting for replies
(p50 / max), the requests the model answered and those the door answered
from memory (the door's own counts, ``/api/class``), failures, and the class
server's generated tokens.  One student alone is the first row.

Bounded: every run stops at ``--max-seconds`` (default 600 s); loopback only.
Writes ``class_cost.json`` and ``class_cost.md`` to ``--out`` (default
``bench/results``).  Not part of CI (minutes of a whole machine per run).
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2

from course_runtime import classroom

from . import reference
from .classroom import DEFAULT_OUT, STAGGER_S, _free_port, _send, run_students
from .fairness import door_clients
from .machine import meta
from .report import percentile, save

NOTEBOOK = "10_evaluation"
CLASS_SIZES = (1, 10, 30)
CELL_THINK_S = (5.0, 20.0)  # a student's pause between two cells that send requests


def lesson(record: dict, notebook: str = NOTEBOOK) -> list[tuple[int | None, dict]]:
    """``[(cell, body)]``: the notebook's recorded requests, in order (``cell`` = the code cell that sent it)."""
    entries = [(e.get("cell"), e["request"]) for e in record["notebooks"].get(notebook, []) if e.get("request")]
    if not entries:
        raise SystemExit(f"no recorded requests for {notebook} in {reference.RECORD}: record it first")
    return entries


def run_class(clients: list, requests: list[tuple[int | None, dict]], max_seconds: float, seed: int = 0) -> dict:
    """Every student of ``clients`` sends ``requests`` in order (pausing between cells) until done or
    ``max_seconds``.  Returns ``{"students": [{"done", "failures", "waited_s", "finished_at"}], "wall_s",
    "cut"}`` (``finished_at`` None for a student the time limit stopped; ``waited_s``: the seconds from
    sending each request to its reply's last byte, summed)."""
    started = time.monotonic()
    deadline = started + max_seconds
    students = [{"done": 0, "failures": 0, "waited_s": 0.0, "finished_at": None, "completion_tokens": 0}
                for _ in clients]
    lock = threading.Lock()

    def student(number: int) -> None:
        rng = random.Random(seed * 1000 + number)
        mine = students[number]
        time.sleep(rng.uniform(0, STAGGER_S) if len(clients) > 1 else 0)
        cell_before = None
        for cell, body in requests:
            if cell != cell_before and cell_before is not None:
                time.sleep(rng.uniform(*CELL_THINK_S))
            cell_before = cell
            left = deadline - time.monotonic()
            if left <= 0:
                return
            sent = time.monotonic()
            try:
                outcome = _send(clients[number].with_options(timeout=max(1.0, left)), body)
                failed = False
            except Exception:  # noqa: BLE001 - a failure is a result here
                outcome, failed = {}, True
            ended = time.monotonic()
            if failed and ended >= deadline:
                return  # cut by the time limit: not a failure
            with lock:
                mine["waited_s"] += ended - sent
                mine["done"] += 1
                mine["failures"] += failed
                mine["completion_tokens"] += outcome.get("completion_tokens") or 0
        mine["finished_at"] = round(time.monotonic() - started, 1)

    run_students(student, len(clients), deadline)
    wall = time.monotonic() - started
    return {"students": students, "wall_s": round(min(wall, max_seconds), 1),
            "cut": any(s["finished_at"] is None for s in students)}


def door_counts(port: int, teacher_key: str) -> dict:
    """The door's own counts from ``/api/class``: requests the model answered, and those from memory."""
    use = httpx2.get(f"http://127.0.0.1:{port}/api/class", headers={"Authorization": f"Bearer {teacher_key}"},
                    timeout=10).json()["model_use"]
    rows = use["students"]
    return {"to_model": sum(r["requests"] for r in rows), "from_memory": sum(r["cached"] for r in rows),
            "prompt_tokens": sum(r["prompt_tokens"] for r in rows),
            "completion_tokens": sum(r["completion_tokens"] for r in rows)}


def through_door(model_root: str, class_key: str, students: int, memory: bool, requests: list, slots: int,
                 max_seconds: float) -> dict:
    """``students`` students run ``requests`` through a fresh door to the model server at ``model_root``;
    returns the row (``one_run``'s, without the server's start)."""
    teacher = "course-teacher-" + secrets.token_hex(16)
    service, store, clients = door_clients(Path(tempfile.mkdtemp(prefix="class-cost-")), model_root, class_key,
                                           students, slots, reply_memory=memory, teacher_key=teacher)
    try:
        run = run_class(clients, requests, max_seconds)
        counts = door_counts(service.server.config.port, teacher)
    finally:
        service.stop()
        store.close()
    people = run["students"]
    waited = [s["waited_s"] for s in people]
    finished = [s["finished_at"] for s in people if s["finished_at"] is not None]
    return {"students": students, "reply_memory": memory, "requests_each": len(requests),
            "finished": len(finished), "wall_s": run["wall_s"], "cut": run["cut"],
            "last_finished_s": max(finished) if len(finished) == students else None,
            "requests_done": sum(s["done"] for s in people), "failures": sum(s["failures"] for s in people),
            "waited_p50_s": percentile(waited, 50), "waited_max_s": round(max(waited), 1) if waited else None,
            **counts}


def one_run(students: int, memory: bool, requests: list, slots: int, max_seconds: float, log: Path) -> dict:
    """A fresh class model server (``classroom.ClassModelServer``, as ``serve`` starts it) and door; ``students`` students
    run the notebook; returns the row."""
    key_file = Path(tempfile.mkdtemp(prefix="class-cost-key-")) / ".class-key"
    key = classroom.class_key(key_file)
    server = classroom.ClassModelServer("127.0.0.1", _free_port(), slots=slots, key_file=key_file, log=log)
    with server:
        return through_door(server.root, key, students, memory, requests, slots, max_seconds)


def markdown(results: dict) -> str:
    lines = [f"# Notebook {results['notebook']} on the class model server: the whole class ({results['date']})", "",
             f"Machine: {results['machine']}; load average before: {results['load_before']}; "
             f"{results['also_running']}.",
             f"Class model server: {results['slots']} slots, a fresh one per run, every student through the door. "
             f"Each student sends the notebook's {results['requests_each']} recorded chat requests in order, at once "
             f"within a cell, {CELL_THINK_S[0]:g}-{CELL_THINK_S[1]:g} s between cells; students start within "
             f"{STAGGER_S:g} s. Each run stops after {results['max_seconds']:g} s (`python -m bench.class_cost`).", "",
             "| students | door's memory | finished | last one finished (s) | requests done | each waited for replies, "
             "p50 / max (s) | answered by the model | answered from memory | failures | tokens generated |",
             "|---:|---|---:|---:|---:|---|---:|---:|---:|---:|"]
    for r in results["rows"]:
        last = r["last_finished_s"] if r["last_finished_s"] is not None else f"cut at {r['wall_s']:g}"
        lines.append(f"| {r['students']} | {'on' if r['reply_memory'] else 'off'} | {r['finished']} of "
                     f"{r['students']} | {last} | {r['requests_done']} of {r['students'] * r['requests_each']} | "
                     f"{r['waited_p50_s']} / {r['waited_max_s']} | {r['to_model']} | "
                     f"{r['from_memory']} | {r['failures']} | {r['completion_tokens']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, out: Path = DEFAULT_OUT) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.class_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--notebook", default=NOTEBOOK, help="the notebook whose recorded requests the class sends")
    parser.add_argument("--students", default=",".join(map(str, CLASS_SIZES)), help="comma-separated class sizes")
    parser.add_argument("--memory", default="on,off", help="comma-separated: on, off (the door's reply memory)")
    parser.add_argument("--max-seconds", type=float, default=600.0, help="time limit of one run")
    parser.add_argument("--slots", type=int, default=classroom.DEFAULT_SLOTS)
    parser.add_argument("--also-running", default="nothing else running",
                        help="what else ran on the machine (written into the table)")
    parser.add_argument("--append", action="store_true", help="add these rows to --out's class_cost.json")
    parser.add_argument("--out", type=Path, default=out)
    opts = parser.parse_args(argv)
    record = reference.load()
    if record is None:
        raise SystemExit(f"no reference record at {reference.RECORD}")
    requests = lesson(record, opts.notebook)
    info = meta("python -m bench.class_cost " + " ".join(argv if argv is not None else sys.argv[1:]))
    earlier = json.loads((opts.out / "class_cost.json").read_text(encoding="utf-8")) if opts.append else None
    rows = list(earlier["rows"]) if earlier else []
    log = opts.out / "logs" / "class-cost-server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    for memory in [m.strip() == "on" for m in opts.memory.split(",") if m.strip()]:
        for students in [int(x) for x in opts.students.split(",") if x.strip()]:
            print(f"== {students} students, memory {'on' if memory else 'off'}", flush=True)
            row = one_run(students, memory, requests, opts.slots, opts.max_seconds, log)
            print(row, flush=True)
            rows.append(row)
    results = {"date": info["date"] if not earlier else f"{earlier['date']}; more rows {info['date']}",
               "machine": info["machine"], "load_before": info["load_before"], "also_running": opts.also_running,
               "notebook": opts.notebook, "slots": opts.slots, "requests_each": len(requests),
               "max_seconds": opts.max_seconds, "rows": rows}
    save(opts.out, "class_cost", results, markdown(results))
    print(markdown(results))
    return results


if __name__ == "__main__":
    main()
