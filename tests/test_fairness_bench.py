"""bench/fairness.py on a fake server in seconds: the same code the committed table came from.

The real numbers are measured by ``python -m bench.fairness`` (bench/results/fairness.md), not asserted
here; these tests check that the bench measures what it says (who loops, whose latency counts, the verdict).
"""

from __future__ import annotations

import json

import pytest

from bench import fairness
from test_class_door import FakeModel

CLASS_KEY = "course-class-" + "7" * 32
LESSON = [{"model": "m", "messages": [{"role": "user", "content": f"x-问{i}"}]} for i in range(3)]
LESSON.append({"model": "m", "stream": True, "messages": [{"role": "user", "content": "x-流"}]})


def test_summarize_counts_the_ordinary_students_and_the_looper_apart():
    run = {"wall_s": 10.0, "cut": True, "done": [
        {"student": 0, "seconds": 1.0, "error": None, "completion_tokens": 10},
        {"student": 1, "seconds": 3.0, "error": None, "completion_tokens": 10},
        {"student": 1, "seconds": 9.0, "error": "APITimeoutError: x", "completion_tokens": 0},
        {"student": 2, "seconds": 0.5, "error": None, "completion_tokens": 30},
        {"student": 2, "seconds": 0.5, "error": None, "completion_tokens": 30}]}
    row = fairness.summarize(run, students=2, looper=2)
    assert row["requests"] == 2 and row["failures"] == 1 and row["max_s"] == 3.0
    assert row["looper_requests"] == 2 and row["looper_token_share"] == 0.75
    assert "looper_requests" not in fairness.summarize(run, students=3, looper=None)


def test_the_verdict_compares_each_way_with_itself():
    rows = [{"students": 8, "mode": "direct", "looper": False, "p95_s": 10.0},
            {"students": 8, "mode": "direct", "looper": True, "p95_s": 20.0},
            {"students": 8, "mode": "door", "looper": False, "p95_s": 10.0},
            {"students": 8, "mode": "door", "looper": True, "p95_s": 12.0}]
    assert fairness.verdicts(rows) == [{"students": 8, "mode": "direct", "ratios": [2.0], "ratio": 2.0, "within": False},
                                       {"students": 8, "mode": "door", "ratios": [1.2], "ratio": 1.2, "within": True}]
    again = [{**r, "repeat": 1, "p95_s": r["p95_s"] * (1.5 if r["looper"] and r["mode"] == "door" else 1)}
             for r in rows]
    again += [{**r, "repeat": 2} for r in rows]
    door = fairness.verdicts(rows + again)[1]
    assert door["ratios"] == [1.2, 1.8, 1.2] and door["ratio"] == 1.2 and door["within"]  # the median of three
    table = fairness.markdown({"date": "d", "machine": "m", "load_before": "0", "also_running": "nothing",
                               "slots": 4, "lesson": ["01"], "lesson_requests": 3, "max_seconds": 5,
                               "rows": [{**r, "requests": 1, "failures": 0, "p50_s": 1, "max_s": 1} for r in rows],
                               "verdicts": fairness.verdicts(rows)})
    assert "2 (OVER)" in table and "1.2 (within)" in table


@pytest.fixture
def busy_server():
    """One slot that takes 0.25 s a request: three students thinking 0.2-0.4 s between requests keep it busy."""
    model = FakeModel(delay=0.25, pieces=2, capacity=1)
    yield model
    model.stop()


def test_through_the_door_the_looper_gets_what_the_others_leave(busy_server, monkeypatch):
    monkeypatch.setattr(fairness, "THINK_S", (0.2, 0.4))
    monkeypatch.setattr(fairness, "STAGGER_S", 0.2)
    rows = {mode: fairness.one_run(mode, True, 3, LESSON, busy_server.root, CLASS_KEY, slots=1, max_seconds=6)
            for mode in ("direct", "door")}
    for row in rows.values():
        assert row["failures"] == 0 and row["requests"] >= 3 and row["looper_requests"] >= 1
    # straight to the server the looper queues with everyone (first come, first served) and gets a full share;
    # through the door it goes only when nobody else waits
    assert rows["door"]["looper_token_share"] < rows["direct"]["looper_token_share"]
    assert rows["door"]["looper_requests"] < rows["direct"]["looper_requests"]


def test_the_door_s_reply_memory_is_off_unless_asked_and_the_table_says_which(busy_server, monkeypatch, tmp_path):
    """Every student replays the same bodies: with the memory on the bench would measure the memory."""
    monkeypatch.setattr(fairness, "THINK_S", (0.05, 0.1))
    monkeypatch.setattr(fairness, "STAGGER_S", 0.05)
    lesson = [{**body, "temperature": 0} for body in LESSON]  # what the door could remember
    off = fairness.one_run("door", False, 2, lesson, busy_server.root, CLASS_KEY, slots=1, max_seconds=4)
    assert off["requests"] == 2 * len(lesson) and len(busy_server.seen) == 2 * len(lesson)  # all reached the model
    before = len(busy_server.seen)
    on = fairness.one_run("door", False, 2, lesson, busy_server.root, CLASS_KEY, slots=1, max_seconds=4,
                          reply_memory=True)
    assert on["requests"] == 2 * len(lesson) and len(busy_server.seen) - before < 2 * len(lesson)
    results = {"date": "d", "machine": "m", "load_before": "0", "also_running": "nothing", "slots": 1,
               "lesson": ["01"], "lesson_requests": 4, "max_seconds": 4, "rows": [], "verdicts": []}
    assert "reply memory was off" in fairness.markdown(results)  # a record from before the memory: off
    assert "reply memory was ON" in fairness.markdown({**results, "reply_memory": True})
    (tmp_path / "fairness.json").write_text(json.dumps(results), encoding="utf-8")
    with pytest.raises(SystemExit, match="reply memory off"):  # no table mixing the two
        fairness.main(["--append", "--reply-memory", "on", "--out", str(tmp_path)])
