"""bench/capstone_exam.py on a fake model server in seconds: the same code the committed table comes from.

The real figures are measured by ``python -m bench.capstone_exam`` (bench/results/capstone_exam.md), not
asserted here; these tests check that the bench counts what it says (who submitted, who answered, the flags)."""

from __future__ import annotations

import pytest

from bench import capstone_exam
from test_class_door import FakeModel

CLASS_KEY = "course-class-" + "7" * 32


@pytest.fixture
def model():
    fake = FakeModel(delay=0.02, pieces=2, capacity=2)
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(capstone_exam, "STAGGER_S", 0.1)


def test_with_the_memory_the_model_answers_the_exam_once_for_the_whole_class(model):
    """The fake model answers every request with text, so each question is one request; unchanged agents send
    the same requests, and the door answers the second and third student from memory."""
    row = capstone_exam.through_door(model.root, CLASS_KEY, 3, True, slots=2, max_seconds=60, per_kind=1)
    assert row["submitted"] == 3 and row["failures"] == 0 and row["cut"] == 0, row
    assert row["to_model"] == 10 and row["from_memory"] == 20 and row["claimed_requests"] == 30
    assert row["flags"] == 0 and row["score_p50"] == 0  # 「好的」 answers nothing: every question fails


def test_without_the_memory_every_request_reaches_the_model(model):
    row = capstone_exam.through_door(model.root, CLASS_KEY, 2, False, slots=2, max_seconds=60, per_kind=1)
    assert row["submitted"] == 2 and row["to_model"] == 20 and row["from_memory"] == 0, row


def test_a_class_cut_by_the_time_limit_says_so():
    slow = FakeModel(delay=1.0, pieces=2, capacity=1)
    try:
        row = capstone_exam.through_door(slow.root, CLASS_KEY, 2, False, slots=1, max_seconds=3, per_kind=1)
    finally:
        slow.stop()
    assert row["submitted"] == 0 and row["last_submitted_s"] is None and row["cut"] == 2 and row["failures"] == 0, row
    assert "cut at" in capstone_exam.markdown({"date": "d", "machine": "m", "load_before": "0", "also_running": "x",
                                                "slots": 1, "questions": 10, "per_kind": 1, "max_seconds": 3,
                                                "rows": [row]})
