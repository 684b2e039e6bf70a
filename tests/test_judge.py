"""course_lib.judge: how a judge's reply is read, what it is sent, and that a judged answer is reused."""

from __future__ import annotations


import pytest

from course_lib import eval_set, judge
from course_lib.evaluation import CaseRun
from fakes import FakeLLM


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
    assert judge.read(content) == expected


def by_id(case_id):
    return next(c for c in eval_set.cases() if c.id == case_id)


def test_the_key_in_words_names_every_fact_or_says_what_a_right_answer_must_say():
    p1, p2, n1, r1 = (by_id(k) for k in ("P1", "P2", "N1", "R1"))
    assert all(n in judge.key_text(p1) for n in p1.numbers) 
    assert p2.words[0] in judge.key_text(p2)
    assert "没有" in judge.key_text(n1) and "下单" in judge.key_text(r1)


def test_the_judge_request_asks_for_the_schema_at_temperature_0():
    model = FakeLLM(['{"verdict": "pass", "reason": "数字一致"}'])
    row = judge.ask(model.client(), "fake-model", judge.judge_messages("问？", "200", "200 元"))
    body = model.requests[0]
    assert body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == judge.SCHEMA
    assert row["verdict"] == "pass" and row["reason"] == "数字一致" and row["in_schema"] and row["error"] is None
    assert "标准答案：200" in body["messages"][1]["content"]


def test_prompt_mode_sends_no_response_format_and_a_refused_request_is_a_row():
    model = FakeLLM(['{"verdict": "fail", "reason": "x"}'])
    judge.ask(model.client(), "fake-model", judge.judge_messages("q", "k", "a"), mode="prompt")
    assert "response_format" not in model.requests[0]
    broken = FakeLLM([ConnectionError("down")])
    row = judge.ask(broken.client(max_retries=0), "fake-model", judge.judge_messages("q", "k", "a"))
    assert row["verdict"] is None and row["error"]


class _Result:
    def __init__(self, answer):
        self.answer, self.steps = answer, []


def test_judged_answers_are_reused_in_the_kernel_unless_asked_again():
    judge.JUDGED.clear()
    p1 = by_id("P1")
    run = CaseRun(p1, _Result(f"篮球 {p1.numbers[0]} 元"), {"answer_ok": True, "passed": True})
    model = FakeLLM(['{"verdict": "pass", "reason": "对"}', '{"verdict": "fail", "reason": "再问一次"}'])
    client = model.client()
    first = judge.judge_runs(client, "fake-model", [run])
    again = judge.judge_runs(client, "fake-model", [run])
    assert len(model.requests) == 1 and first == again
    assert first[0]["id"] == "P1" and first[0]["code"] is True and first[0]["judge"] is True
    fresh = judge.judge_runs(client, "fake-model", [run], reuse=False)
    assert len(model.requests) == 2 and fresh[0]["judge"] is False
    other = judge.judge_runs(FakeLLM(['{"verdict": "maybe", "reason": "?"}']).client(), "fake-model", [run],
                             system=judge.STRICT_SYSTEM)
    assert other[0]["judge"] is None  # no readable verdict: neither pass nor fail
