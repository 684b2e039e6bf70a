"""bench.server_check's response_format rows: a teacher learns before class whether the provider serves notebook 10."""

from __future__ import annotations

import json

from bench import server_check
from fakes import FakeLLM, bad_request

VERDICT = json.dumps({"verdict": "pass", "reason": "回答里有 300"}, ensure_ascii=False)


def run(replies):
    fake = FakeLLM(replies)
    rows = [(name, *check()) for name, check in server_check.response_format_checks(fake.client(), "fake-model")]
    return fake, {name.split()[1]: (passed, detail) for name, passed, detail in rows}


def test_a_server_that_keeps_to_the_schema_passes_both_and_is_asked_both_formats():
    fake, rows = run([VERDICT, VERDICT])
    assert rows["json_object"][0] and rows["json_schema"][0]
    formats = [request["response_format"]["type"] for request in fake.requests]
    assert formats == ["json_object", "json_schema"]
    assert fake.requests[1]["response_format"]["json_schema"]["schema"]["required"] == ["verdict", "reason"]


def test_a_refused_json_schema_passes_when_json_object_works_and_says_the_judge_falls_back():
    _, rows = run([VERDICT, bad_request("This response_format type is unavailable now", "response_format")])
    passed, detail = rows["json_schema"]
    assert passed and "fall back to json_object" in detail and "refused" in detail


def test_a_server_that_refuses_both_formats_fails_both():
    _, rows = run([bad_request("response_format is not supported"), bad_request("response_format is not supported")])
    assert not rows["json_object"][0] and not rows["json_schema"][0]


def test_a_schema_taken_but_not_kept_fails():
    _, rows = run([VERDICT, '{"verdict": "maybe"}'])
    assert rows["json_object"][0] and not rows["json_schema"][0]
    assert "in the judge's schema False" in rows["json_schema"][1]


def test_prose_around_the_json_is_no_json_object():
    _, rows = run(["```json\n" + VERDICT + "\n```", VERDICT])
    assert not rows["json_object"][0] and rows["json_schema"][0]
