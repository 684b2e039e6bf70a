"""``python -m bench.fairness``: does one looping student starve the class?  Straight to the server vs. the door.

The classroom bench's simulated class (``bench/classroom.py``: each student replays
the chat requests of notebooks 01, 02 and 06 from the reference record, with
2-8 s of think time, starting within 5 s of each other), on a fresh class
server with the serve default of 4 slots, in four ways for each class size N
(default 8 and 16):

* ``direct``: every student straight to llama-server with the class key (how
  the course worked before issue 43 part 5);
* ``direct + looper``: the same, and one more student who loops as fast as it
  can - the same lesson requests back to back, no think time, over and over
  (a cell in a ``while True``, or notebook 10 run again);
* ``door`` / ``door + looper``: the same two classes through the progress
  service's door (``course_runtime/class_door.py``), each student with their own
  joined token: one request in flight per student, the quietest student first
  (no token budget: the turns alone).

The door's reply memory (``reply_memory.ReplyCache``) is OFF by default here
(``--reply-memory on|off``): every simulated student replays the SAME recorded
bodies at temperature 0, so with the memory on the door would answer most of
them from memory and the bench would measure the memory, not the model.  With
it off the table stands for a class whose students all changed their prompts
(every request reaches the model).

Reported per run, for the N ordinary students only: requests done, p50 / p95 /
max latency (s, sending to last byte), failures; for the looper: requests done
and its share of the tokens generated.  The verdict the issue asks for: with
the looper, the others' p95 stays within 1.5× of the same class without it
(``RATIO``), through the door; the direct ratio is shown beside it.

Bounded: every run stops at ``--max-seconds`` (default 150 s), every request
goes to 127.0.0.1.  Writes ``fairness.json`` and ``fairness.md`` to ``--out``.
``tests/test_fairness_bench.py`` runs the same code on a fake server in seconds.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from course_runtime import classroom, progress_service
from course_runtime.progress_store import ProgressStore
from course_runtime.web_server import ProgressService
from course_lib.providers import PRESETS, Provider, get_client

from . import reference
from .classroom import DEFAULT_OUT, LESSON, STAGGER_S, THINK_S, _free_port, _send, lesson_requests, run_students
from .machine import meta
from .report import percentile, save

CLASS_SIZES = (8, 16)
RATIO = 1.5  # the issue's bound: the others' p95 with a looper / without it
MODES = (("direct", False), ("direct", True), ("door", False), ("door", True))
MEMORY_SAID = {  # the table's header; a record without "reply_memory" was measured before the door had one
    False: "The door's reply memory was off (`--reply-memory off`, the default): every request reached the model, "
           "as in a class whose students all changed their prompts.",
    True: "The door's reply memory was ON (`--reply-memory on`): the students replay the same bodies, so most "
          "requests through the door were answered from memory - this measures the memory, not the model."}


def run_class(clients: list, requests: list[dict], looping: set[int], max_seconds: float, seed: int = 0) -> dict:
    """Every student of ``clients`` (one ``openai.OpenAI`` each) replays ``requests`` at once until
    ``max_seconds``; the students in ``looping`` start at once, never pause and start over at the end.

    Returns ``{"done": [{"student", "request", "seconds", "at", "error", "completion_tokens", ...}],
    "wall_s", "cut"}``; a request cut by the time limit is not in ``done``.
    """
    deadline = time.monotonic() + max_seconds
    started = time.monotonic()
    done: list[dict] = []
    lock = threading.Lock()

    def student(number: int) -> None:
        rng = random.Random(seed * 1000 + number)
        loops = number in looping
        if not loops:
            time.sleep(rng.uniform(0, STAGGER_S))
        index = 0
        while time.monotonic() < deadline and (loops or index < len(requests)):
            body = requests[index % len(requests)]
            sent = time.monotonic()
            try:
                outcome = _send(clients[number].with_options(timeout=max(1.0, deadline - sent)), body)
                error = None
            except Exception as exc:  # noqa: BLE001 - a failure is a result here
                outcome, error = {}, f"{type(exc).__name__}: {str(exc)[:120]}"
            ended = time.monotonic()
            if ended >= deadline and error is not None:
                return  # cut by the time limit: not a failure
            with lock:
                done.append({"student": number, "request": index % len(requests), "seconds": round(ended - sent, 3),
                             "at": round(ended - started, 2), "error": error, **outcome})
            index += 1
            if not loops:
                time.sleep(rng.uniform(*THINK_S))

    run_students(student, len(clients), deadline)
    wall = time.monotonic() - started
    return {"done": done, "wall_s": round(min(wall, max_seconds), 1), "cut": wall >= max_seconds - 0.5}


def summarize(run: dict, students: int, looper: int | None) -> dict:
    """One row: the ordinary students' latency, and what the looper got."""
    others = [d for d in run["done"] if d["student"] != looper]
    ok = [d for d in others if not d["error"]]
    seconds = [d["seconds"] for d in ok]
    generated = sum(d.get("completion_tokens") or 0 for d in run["done"] if not d["error"])
    minutes = run["wall_s"] / 60 if run["wall_s"] else None

    def per_minute(done: list[dict], people: int) -> int | None:  # usage tokens (prompt + completion) a minute each
        tokens = sum((d.get("prompt_tokens") or 0) + (d.get("completion_tokens") or 0) for d in done)
        return round(tokens / minutes / people) if minutes and people else None

    row = {"students": students, "requests": len(ok), "failures": len(others) - len(ok),
           "p50_s": percentile(seconds, 50), "p95_s": percentile(seconds, 95),
           "max_s": round(max(seconds), 1) if seconds else None, "wall_s": run["wall_s"],
           "tokens_per_min": per_minute(ok, students),
           "errors": sorted({d["error"] for d in others if d["error"]})[:3]}
    if looper is not None:
        mine = [d for d in run["done"] if d["student"] == looper and not d["error"]]
        row["looper_requests"] = len(mine)
        row["looper_token_share"] = round(sum(d.get("completion_tokens") or 0 for d in mine) / generated, 2) \
            if generated else None
        row["looper_tokens_per_min"] = per_minute(mine, 1)
    return row


def door_clients(store_dir: Path, model_root: str, class_key: str, count: int, slots: int,
                 reply_memory: bool = False, teacher_key: str | None = None):
    """A progress service with the door on a free loopback port, ``count`` students joined; returns
    ``(service, store, clients)`` (the course's own client, ``classroom`` provider, one token each).
    ``reply_memory``: the door's memory of temperature-0 replies (off: every request reaches the model).
    ``teacher_key``: the page's key (default a random one), for a caller that reads ``/api/class``."""
    import httpx2

    store = ProgressStore(store_dir / "class-progress.sqlite3", joins_per_address=10_000)  # a simulated class: one address
    secret = secrets.token_hex(5)
    app = progress_service.make_app(store, class_key, teacher_key or "course-teacher-" + secrets.token_hex(16),
                                    model_root=model_root, join_secret=secret, model_slots=slots,
                                    reply_memory=reply_memory)
    port = _free_port()
    service = ProgressService(app, "127.0.0.1", port).start()
    clients = []
    for n in range(count):
        token = secrets.token_hex(16)
        joined = httpx2.post(f"http://127.0.0.1:{port}/api/join", timeout=10,
                            json={"secret": secret, "name": f"学生{n + 1}", "token": token})
        joined.raise_for_status()
        clients.append(client_for(joined.json()["COURSE_BASE_URL"], token))
    return service, store, clients


def client_for(base_url: str, key: str):
    """The course's own client for the classroom provider at ``base_url`` with ``key``."""
    return get_client(Provider(PRESETS["classroom"], base_url, PRESETS["classroom"].model, key))


def one_run(mode: str, loops: bool, students: int, requests: list[dict], model_root: str, class_key: str,
            slots: int, max_seconds: float, seed: int = 0, reply_memory: bool = False) -> dict:
    """One class of ``students`` (+ one looper when ``loops``) in ``mode`` ("direct" or "door") against the
    server at ``model_root``; returns its row (``summarize``) with ``mode`` and ``looper``.
    ``reply_memory``: the door's memory (module docstring: off by default)."""
    count = students + (1 if loops else 0)
    looper = students if loops else None
    service = store = None
    if mode == "door":
        service, store, clients = door_clients(Path(tempfile.mkdtemp(prefix="fairness-")), model_root, class_key,
                                               count, slots, reply_memory)
    else:
        clients = [client_for(model_root + "/v1", class_key) for _ in range(count)]
    try:
        run = run_class(clients, requests, {looper} if loops else set(), max_seconds, seed)
    finally:
        if service is not None:
            service.stop()
            store.close()
    return {"mode": mode, "looper": loops, **summarize(run, students, looper)}


def verdicts(rows: list[dict]) -> list[dict]:
    """Per class size and mode: the others' p95 with the looper / without it in each repeat (rows carry
    ``repeat``, 0 when absent), and their median; ``within`` when the median is at most ``RATIO``."""
    out = []
    for students in sorted({r["students"] for r in rows}):
        for mode in ("direct", "door"):
            ratios = []
            for repeat in sorted({r.get("repeat", 0) for r in rows}):
                pick = [r for r in rows if (r["students"], r["mode"], r.get("repeat", 0)) == (students, mode, repeat)]
                base = next((r for r in pick if not r["looper"]), None)
                loop = next((r for r in pick if r["looper"]), None)
                if base and loop and base["p95_s"] and loop["p95_s"]:
                    ratios.append(round(loop["p95_s"] / base["p95_s"], 2))
            if ratios:
                ratio = round(statistics.median(ratios), 2)
                out.append({"students": students, "mode": mode, "ratios": ratios, "ratio": ratio,
                            "within": ratio <= RATIO})
    return out


def markdown(results: dict) -> str:
    lines = [f"# One looping student: straight to the server vs. through the door ({results['date']})", "",
             f"Machine: {results['machine']}; load average before: {results['load_before']}; "
             f"{results['also_running']}.",
             f"Class model server: {results['slots']} slots, a fresh one per run. Lesson: the {results['lesson_requests']} "
             f"chat requests of notebooks {', '.join(results['lesson'])} (reference record), "
             f"{THINK_S[0]:g}-{THINK_S[1]:g} s of think time, students starting within {STAGGER_S:g} s; the looper "
             f"sends the same requests back to back, over and over. Each run stops after {results['max_seconds']:g} s. "
             "Latencies are the ordinary students' only. " + MEMORY_SAID[bool(results.get("reply_memory"))], "",
             "| students | way | looper | repeat | requests done | failures | p50 s | p95 s | max s | "
             "looper's requests | looper's share of generated tokens |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["rows"]:
        way = "straight to llama-server" if r["mode"] == "direct" else "through the door"
        lines.append(f"| {r['students']} | {way} | {'yes' if r['looper'] else 'no'} | {r.get('repeat', 0) + 1} | "
                     f"{r['requests']} | "
                     f"{r['failures']} | {r['p50_s']} | {r['p95_s']} | {r['max_s']} | "
                     f"{r.get('looper_requests', '-')} | {r.get('looper_token_share', '-')} |")
    lines += ["", f"Others' p95 with the looper ÷ without it (the issue's bound: ≤ {RATIO:g}; the median of the "
                  "repeats where a pair was run more than once):", ""]
    for v in results["verdicts"]:
        way = "straight to llama-server" if v["mode"] == "direct" else "through the door"
        each = f" (runs: {', '.join(f'{x:g}' for x in v['ratios'])})" if len(v.get("ratios", [])) > 1 else ""
        lines.append(f"- {v['students']} students, {way}: {v['ratio']:g}{each} ({'within' if v['within'] else 'OVER'})")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, out: Path = DEFAULT_OUT) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.fairness", description=__doc__.split("\n")[0])
    parser.add_argument("--students", default=",".join(map(str, CLASS_SIZES)), help="comma-separated class sizes")
    parser.add_argument("--max-seconds", type=float, default=150.0, help="time limit of one run")
    parser.add_argument("--slots", type=int, default=classroom.DEFAULT_SLOTS)
    parser.add_argument("--also-running", default="nothing else running",
                        help="what else ran on the machine (written into the table)")
    parser.add_argument("--out", type=Path, default=out)
    parser.add_argument("--modes", default="direct,door", help="comma-separated ways: direct, door")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each pair (with and without the looper)")
    parser.add_argument("--reply-memory", choices=("on", "off"), default="off",
                        help="the door's memory of temperature-0 replies (default off: the students replay the "
                             "same bodies, so with it on this would measure the memory, not the model)")
    parser.add_argument("--append", action="store_true",
                        help="add these runs to the rows of --out's fairness.json as further repeats")
    opts = parser.parse_args(argv)
    earlier = json.loads((opts.out / "fairness.json").read_text(encoding="utf-8")) if opts.append else None
    if earlier is not None and bool(earlier.get("reply_memory")) != (opts.reply_memory == "on"):
        raise SystemExit(f"{opts.out / 'fairness.json'} was measured with the reply memory "
                         f"{'on' if earlier.get('reply_memory') else 'off'}: --append runs with the same "
                         "--reply-memory, or write to another --out")
    record = reference.load()
    if record is None:
        raise SystemExit(f"no reference record at {reference.RECORD}: run python -m bench --parts series first")
    requests = lesson_requests(record, LESSON)
    info = meta("python -m bench.fairness " + " ".join(argv or sys.argv[1:]))
    rows = list(earlier["rows"]) if earlier else []
    log_dir = opts.out / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    modes = [m.strip() for m in opts.modes.split(",") if m.strip()]
    for students in [int(x) for x in opts.students.split(",") if x.strip()]:
        for _ in range(opts.repeats):
            repeat = 1 + max((r.get("repeat", 0) for r in rows if r["students"] == students), default=-1)
            for mode, loops in [(m, l) for m, l in MODES if m in modes]:
                key_file = Path(tempfile.mkdtemp(prefix="fairness-key-")) / ".class-key"
                key = classroom.class_key(key_file)
                server = classroom.ClassModelServer("127.0.0.1", _free_port(), slots=opts.slots, key_file=key_file,
                                               log=log_dir / "fairness-server.log")
                print(f"== {students} students, {mode}, looper: {loops}, repeat {repeat + 1}", flush=True)
                with server:
                    row = one_run(mode, loops, students, requests, server.root, key, opts.slots, opts.max_seconds,
                                  reply_memory=opts.reply_memory == "on")
                row["repeat"] = repeat
                print(row, flush=True)
                rows.append(row)
    results = {"date": info["date"], "machine": info["machine"], "load_before": info["load_before"],
               "also_running": opts.also_running, "slots": opts.slots, "lesson": list(LESSON),
               "lesson_requests": len(requests), "max_seconds": opts.max_seconds,
               "reply_memory": opts.reply_memory == "on", "rows": rows,
               "verdicts": verdicts(rows)}
    if earlier:
        results["date"] = f"{earlier['date']}; further repeats {info['date']}"
    save(opts.out, "fairness", results, markdown(results))
    print(markdown(results))
    return results


if __name__ == "__main__":
    main()
