"""bench.reference.merge_record: recording some notebooks again keeps the others' replies, only on the record's build."""

from __future__ import annotations

import pytest

from bench import reference


def record(build="flags-a", threads="2", notebooks=None):
    return {"about": "x", "date": "d", "commit": "c", "machine": "m", "build": build, "threads": threads,
            "notebooks": notebooks if notebooks is not None else {"00_setup": [{"cell": 2, "content": "pong"}]}}


def test_the_new_notebook_is_added_and_the_others_are_kept():
    old = record(notebooks={"00_setup": [{"cell": 2, "content": "pong"}], "09_x": [{"cell": 5, "content": "old"}]})
    new = record(notebooks={"09_x": [{"cell": 5, "content": "new"}], "10_y": [{"cell": 3, "content": "added"}]})
    merged = reference.merge_record(old, new)
    assert merged["notebooks"]["00_setup"] == old["notebooks"]["00_setup"]
    assert merged["notebooks"]["09_x"][0]["content"] == "new" and "10_y" in merged["notebooks"]
    assert merged["added"][-1]["notebooks"] == ["09_x", "10_y"]
    assert old["notebooks"]["09_x"][0]["content"] == "old"  # the loaded record itself is not changed


@pytest.mark.parametrize("build, threads", [("flags-b", "2"), ("flags-a", "4")])
def test_another_build_or_thread_count_is_refused(build, threads):
    with pytest.raises(ValueError, match="record the whole series"):
        reference.merge_record(record(), record(build=build, threads=threads))


def test_there_must_be_a_record_to_add_to():
    with pytest.raises(ValueError):
        reference.merge_record(None, record())
