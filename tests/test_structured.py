"""bench.structured: its table per mode (how one reply is counted is course_lib.judge.read: tests/test_judge.py)."""

from __future__ import annotations

from bench import structured


def test_the_summary_counts_each_mode_and_compares_with_the_code_verdict():
    rows = [{"mode": "prompt", "parsed": True, "in_schema": True, "verdict": "pass", "right_verdict": "pass", "seconds": 2},
            {"mode": "prompt", "parsed": True, "in_schema": False, "verdict": "pass", "right_verdict": "fail", "seconds": 4},
            {"mode": "json_schema", "parsed": True, "in_schema": True, "verdict": "fail", "right_verdict": "fail",
             "seconds": 3}]
    table = {row["mode"]: row for row in structured.summary({"rows": rows})}
    assert table["prompt"] == {"mode": "prompt", "requests": 2, "parsed": 2, "in_schema": 1, "verdict_right": 1,
                               "seconds_mean": 3.0}
    assert table["json_schema"]["verdict_right"] == 1 and table["json_object"]["requests"] == 0
