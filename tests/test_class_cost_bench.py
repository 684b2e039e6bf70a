"""bench/class_cost.py on a fake model server in seconds: the same code the committed table came from.

The real figures are measured by ``python -m bench.class_cost`` (bench/results/class_cost.md), not asserted
here; these tests check that the bench counts what it says (who answered, who finished, the cut)."""

from __future__ import annotations

import pytest

from bench import class_cost
from test_class_door import FakeModel

CLASS_KEY = "course-class-" + "7" * 32
# Two cells: an agent's two requests, then one more; temperature 0, as notebook 10 sends them.
LESSON = [(9, {"model": "m", "temperature": 0, "messages": [{"role": "user", "content": "x-问1"}]}),
          (9, {"model": "m", "temperature": 0, "messages": [{"role": "user", "content": "x-问2"}]}),
          (17, {"model": "m", "temperature": 0, "stream": True, "messages": [{"role": "user", "content": "x-流"}]})]


@pytest.fixture
def model():
    fake = FakeModel(delay=0.05, pieces=2, capacity=2)
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(class_cost, "CELL_THINK_S", (0.05, 0.1))
    monkeypatch.setattr(class_cost, "STAGGER_S", 0.05)


def test_with_the_memory_the_model_answers_each_request_once_for_the_whole_class(model):
    row = class_cost.through_door(model.root, CLASS_KEY, 3, True, LESSON, slots=2, max_seconds=20)
    assert row["finished"] == 3 and row["failures"] == 0 and row["last_finished_s"] is not None
    assert row["to_model"] == len(LESSON) and row["from_memory"] == 2 * len(LESSON)
    assert len(model.seen) == len(LESSON)


def test_without_the_memory_every_students_request_reaches_the_model(model):
    row = class_cost.through_door(model.root, CLASS_KEY, 3, False, LESSON, slots=2, max_seconds=20)
    assert row["to_model"] == 3 * len(LESSON) and row["from_memory"] == 0 and len(model.seen) == 3 * len(LESSON)
    assert row["requests_done"] == 3 * len(LESSON) and row["waited_max_s"] > 0


def test_a_run_cut_by_the_time_limit_says_how_far_it_got(monkeypatch):
    slow = FakeModel(delay=1.0, pieces=1, capacity=1)
    try:
        row = class_cost.through_door(slow.root, CLASS_KEY, 2, False, LESSON, slots=1, max_seconds=1.5)
    finally:
        slow.stop()
    assert row["cut"] and row["finished"] < 2 and row["last_finished_s"] is None and row["failures"] == 0
    table = class_cost.markdown({"date": "d", "machine": "m", "load_before": "0", "also_running": "nothing",
                                 "notebook": "10_evaluation", "slots": 1, "requests_each": 3, "max_seconds": 1.5,
                                 "rows": [row]})
    assert "cut at" in table and f"{row['finished']} of 2" in table


def test_the_lesson_is_the_recorded_notebook_in_order():
    record = {"notebooks": {"10_evaluation": [{"cell": 9, "request": {"a": 1}}, {"cell": 17, "request": {"b": 2}}]}}
    assert class_cost.lesson(record) == [(9, {"a": 1}), (17, {"b": 2})]
    with pytest.raises(SystemExit):
        class_cost.lesson(record, "11_missing")
