"""bench.structured: how a judge reply is counted (parsed / in the schema / verdict), and its table."""

from __future__ import annotations

import pytest

from bench import structured


@pytest.mark.parametrize("content, expected", [
    ('{"verdict": "pass", "reason": "一致"}', (True, True, "pass")),
    ('{"verdict": "fail", "reason": "不一致"}', (True, True, "fail")),
    ('{"verdict": "maybe", "reason": "一致"}', (True, False, None)),      # outside the enum
    ('{"verdict": "pass", "reason": "  "}', (True, False, "pass")),       # an empty reason
    ('{"verdict": "pass"}', (True, False, "pass")),                       # a key missing
    ('{"verdict": "pass", "reason": "一致", "score": 1}', (True, False, "pass")),  # a key too many
    ('```json\n{"verdict": "pass", "reason": "一致"}\n```', (False, False, None)),  # a fence: not JSON as a whole
    ('["pass"]', (False, False, None)),
    ("", (False, False, None)),
    (None, (False, False, None)),
])
def test_a_reply_is_counted(content, expected):
    assert structured.read(content) == expected


def test_the_summary_counts_each_mode_and_compares_with_the_code_verdict():
    rows = [{"mode": "prompt", "parsed": True, "in_schema": True, "verdict": "pass", "right_verdict": "pass", "seconds": 2},
            {"mode": "prompt", "parsed": True, "in_schema": False, "verdict": "pass", "right_verdict": "fail", "seconds": 4},
            {"mode": "json_schema", "parsed": True, "in_schema": True, "verdict": "fail", "right_verdict": "fail",
             "seconds": 3}]
    table = {row["mode"]: row for row in structured.summary({"rows": rows})}
    assert table["prompt"] == {"mode": "prompt", "requests": 2, "parsed": 2, "in_schema": 1, "verdict_right": 1,
                               "seconds_mean": 3.0}
    assert table["json_schema"]["verdict_right"] == 1 and table["json_object"]["requests"] == 0
