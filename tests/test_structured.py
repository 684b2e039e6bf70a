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
                               "cut": 0, "errors": 0, "seconds_mean": 3.0}
    assert table["json_schema"]["verdict_right"] == 1 and table["json_object"]["requests"] == 0


def test_replies_cut_at_max_tokens_and_failed_requests_are_counted_apart():
    """Issue 44: a reply cut mid-JSON (finish_reason "length") is no wrong verdict; the table says how many."""
    rows = [{"mode": "json_object", "parsed": False, "in_schema": False, "verdict": None, "right_verdict": "pass",
             "seconds": 5, "cut": True, "error": None},
            {"mode": "json_object", "parsed": False, "in_schema": False, "verdict": None, "right_verdict": "fail",
             "seconds": 0, "cut": False, "error": "BadRequestError: response_format"},
            {"mode": "json_object", "parsed": True, "in_schema": True, "verdict": "fail", "right_verdict": "fail",
             "seconds": 1, "cut": False, "error": None}]
    result = {"rows": rows, "probes": [], "date": "d", "model": "m", "base_url": "u", "machine": "x",
              "load_before": "0", "server": "s", "command": "c"}
    row = next(r for r in structured.summary(result) if r["mode"] == "json_object")
    assert (row["requests"], row["verdict_right"], row["cut"], row["errors"]) == (3, 1, 1, 1)
    assert "| json_object | 3 | 1 | 1 | 1 | 1 | 1 | 2.0 |" in structured.markdown(result)
