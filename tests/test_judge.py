"""course_lib.judge: how a judge's reply is read, what it is sent, and that a judged answer is reused."""

from __future__ import annotations

import dataclasses

import httpx2
import pytest

from course_lib import eval_set, judge
from course_lib.evaluation import CaseRun
from fakes import FakeLLM, StrictLLM


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


# -- issue 44: failed and cut replies are not verdicts, the cache key holds what decides the reply,
#    a provider that refuses a mode gets the next one down

def _p1_run(answer=None):
    p1 = by_id("P1")
    return CaseRun(p1, _Result(answer or f"篮球 {p1.numbers[0]} 元"), {"answer_ok": True, "passed": True})


PASS = '{"verdict": "pass", "reason": "对"}'
FAIL = '{"verdict": "fail", "reason": "不对"}'


def test_a_failed_judge_request_is_not_kept_and_running_the_cell_again_sends_it():
    judge.JUDGED.clear()
    run = _p1_run()
    model = FakeLLM([httpx2.Response(503, json={"error": {"message": "Loading model"}}), PASS])
    client = model.client()
    failed = judge.judge_runs(client, "fake-model", [run])
    assert failed[0]["error"] and failed[0]["judge"] is None
    again = judge.judge_runs(client, "fake-model", [run])  # the course's advice: wait, run the cell again
    assert len(model.requests) == 2 and again[0]["judge"] is True and again[0]["error"] is None


def test_the_judge_cache_key_holds_the_model_the_server_max_tokens_and_the_answer_key():
    judge.JUDGED.clear()
    run = _p1_run()
    model = FakeLLM([PASS, FAIL, PASS, PASS])
    client = model.client()
    judge.judge_runs(client, "model-a", [run])
    switched = judge.judge_runs(client, "model-b", [run])  # another judge model: asked, not answered from model-a
    assert len(model.requests) == 2 and model.requests[1]["model"] == "model-b" and switched[0]["judge"] is False
    judge.judge_answer(client, "model-b", run.case, run.result.answer, max_tokens=300)
    assert len(model.requests) == 3 and model.requests[2]["max_tokens"] == 300
    elsewhere = FakeLLM([FAIL])
    elsewhere.base_url = "http://another.provider/v1"  # the same model name on another server
    moved = judge.judge_runs(elsewhere.client(), "model-b", [run])
    assert len(elsewhere.requests) == 1 and moved[0]["judge"] is False
    repriced = CaseRun(dataclasses.replace(run.case, numbers=("999",)), run.result, run.checks)
    judge.judge_runs(client, "model-b", [repriced])  # a price edited in data/products.csv: another key
    assert len(model.requests) == 4
    assert judge.judge_runs(client, "model-a", [run])[0]["judge"] is True and len(model.requests) == 4  # kept


def test_a_reply_cut_at_max_tokens_is_no_verdict_is_not_kept_and_is_counted_apart():
    judge.JUDGED.clear()
    run = _p1_run()
    cut = {"content": '{"verdict": "pass", "reason": "回答里有篮球的价', "finish_reason": "length"}
    model = FakeLLM([cut, PASS])
    client = model.client()
    first = judge.judge_runs(client, "fake-model", [run])
    row = first[0]
    assert row["cut"] is True and row["verdict"] is None and row["judge"] is None and row["error"] is None
    assert "max_tokens" in row["reason"] and str(judge.MAX_TOKENS) in row["reason"]
    again = judge.judge_runs(client, "fake-model", [run])
    assert len(model.requests) == 2 and again[0]["cut"] is False and again[0]["judge"] is True
    unreadable = {**again[0], "verdict": None, "judge": None}
    failed = {**again[0], "verdict": None, "error": "APIConnectionError: down"}
    assert judge.outcomes([row, *again, unreadable, failed]) == {"verdict": 1, "cut": 1, "error": 1, "unreadable": 1}


def test_a_whole_object_at_the_token_limit_is_read_and_a_cut_prompt_reply_is_cut():
    whole = FakeLLM([{"content": FAIL, "finish_reason": "length"},
                     {"content": '好的，我来判断：{"verdict": "pa', "finish_reason": "length"}])
    client = whole.client()
    row = judge.ask(client, "fake-model", judge.judge_messages("q", "k", "a"))
    assert row["cut"] is False and row["verdict"] == "fail" and row["mode"] == "json_schema"
    prose = judge.ask(client, "fake-model", judge.judge_messages("q", "k", "a"), mode="prompt")
    assert prose["cut"] is True and prose["verdict"] is None


def _refuses(*modes, message="This response_format type is unavailable now"):
    """A provider (DeepSeek's words by default) that answers 400 to the given response_format types."""
    def check(body):
        return message if (body.get("response_format") or {}).get("type") in modes else None
    return check


def test_a_provider_that_refuses_json_schema_is_asked_in_json_object_and_the_refusal_is_remembered(capsys):
    judge.JUDGED.clear()
    judge.REFUSED.clear()
    p1, p2 = _p1_run(), CaseRun(by_id("P2"), _Result("李宁"), {"answer_ok": False, "passed": False})
    model = StrictLLM(_refuses("json_schema"), [PASS, FAIL])
    rows = judge.judge_runs(model.client(), "deepseek-chat", [p1, p2])
    assert [r["judge"] for r in rows] == [True, False]
    assert [(r["mode"], r["asked_mode"]) for r in rows] == [("json_object", "json_schema")] * 2
    assert len(model.rejected) == 1 and len(model.requests) == 3  # the second run went straight to json_object
    said = capsys.readouterr().out.strip().splitlines()
    assert len(said) == 1 and "json_schema" in said[0] and "json_object" in said[0] and "deepseek-chat" in said[0]
    judge.REFUSED.clear()


def test_a_provider_that_refuses_both_formats_is_asked_in_the_prompt_and_a_422_counts_too(capsys):
    judge.JUDGED.clear()
    judge.REFUSED.clear()
    model = StrictLLM(_refuses("json_schema", "json_object", message="response_format is not supported"), [PASS])
    row = judge.ask_falling_back(model.client(), "m", judge.judge_messages("q", "k", "a"))
    assert row["mode"] == "prompt" and row["verdict"] == "pass" and "response_format" not in model.requests[-1]
    assert len(capsys.readouterr().out.strip().splitlines()) == 2
    unprocessable = FakeLLM([httpx2.Response(422, json={"error": {"message": "Unsupported response_format: json_schema"}}),
                             PASS])
    row = judge.ask_falling_back(unprocessable.client(), "m2", judge.judge_messages("q", "k", "a"), show=None)
    assert row["mode"] == "json_object" and row["verdict"] == "pass"
    judge.REFUSED.clear()


def test_another_bad_request_is_an_error_row_not_a_fallback():
    judge.REFUSED.clear()
    model = StrictLLM(lambda body: "This model's maximum context length is 4096 tokens", [])
    row = judge.ask_falling_back(model.client(), "m", judge.judge_messages("q", "k", "a"), show=None)
    # tried without the format too (a refusal may use any words); every mode failed: not the format
    assert row["error"] and "maximum context length" in row["error"] and row["mode"] == "json_schema"
    assert len(model.requests) == 3 and "response_format" not in model.requests[-1]
    assert not judge.REFUSED.get((judge.base_url(model.client()), "m"))
    broken = FakeLLM([ConnectionError("down")])
    row = judge.ask_falling_back(broken.client(), "m", judge.judge_messages("q", "k", "a"), show=None)
    assert row["error"] and len(broken.requests) == 1
    with pytest.raises(KeyError):
        judge.ask_falling_back(broken.client(), "m", [], mode="yaml")


# The refusal bodies of the providers the presets name (and SiliconFlow, a custom URL many students use),
# as their users reported them: each says "no" to response_format in its own words, or in none of ours.
PROVIDER_REFUSALS = {
    "siliconflow": {"code": 20024, "message": "Json mode is not supported for this model.", "data": None},
    "deepseek": {"error": {"message": "This response_format type is unavailable now", "type": "invalid_request_error",
                           "param": None, "code": "invalid_request_error"}},
    "dashscope": {"error": {"code": "invalid_parameter_error", "param": None, "type": "invalid_request_error",
                            "message": "<400> InternalError.Algo.InvalidParameter: The value of the response_format.type "
                                       "field should be one of ['text', 'json_object']"}},
    "openai": {"error": {"message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported with "
                                    "this model.", "type": "invalid_request_error", "param": "response_format",
                         "code": None}},
    "chinese, a code only": {"error": {"code": "1214", "message": "不支持该参数"}},
}


@pytest.mark.parametrize("provider", list(PROVIDER_REFUSALS))
def test_a_refusal_in_any_words_falls_back_once_and_is_said_once(provider, capsys):
    """Issue 57: SiliconFlow's 20024 named none of the format words, and the judge had no verdict there."""
    judge.REFUSED.clear()
    body = PROVIDER_REFUSALS[provider]
    model = FakeLLM([httpx2.Response(400, json=body), PASS, PASS])
    client = model.client()
    first = judge.ask_falling_back(client, "m", judge.judge_messages("q", "k", "a"))
    second = judge.ask_falling_back(client, "m", judge.judge_messages("q2", "k", "a"))
    assert first["verdict"] == "pass" and first["mode"] == "json_object" and first["asked_mode"] == "json_schema"
    assert second["mode"] == "json_object" and len(model.requests) == 3  # the refusal is remembered: asked once
    assert model.requests[0]["response_format"]["type"] == "json_schema"
    said = capsys.readouterr().out.strip().splitlines()
    assert len(said) == 1 and "json_schema" in said[0] and "json_object" in said[0]
    judge.REFUSED.clear()


def test_a_provider_that_refuses_both_formats_in_other_words_is_judged_in_the_prompt(capsys):
    judge.REFUSED.clear()
    refusal = httpx2.Response(400, json=PROVIDER_REFUSALS["siliconflow"])
    model = FakeLLM([refusal, httpx2.Response(400, json=PROVIDER_REFUSALS["siliconflow"]), PASS])
    row = judge.ask_falling_back(model.client(), "m", judge.judge_messages("q", "k", "a"))
    assert row["mode"] == "prompt" and row["verdict"] == "pass" and "response_format" not in model.requests[-1]
    assert judge.REFUSED[(judge.base_url(model.client()), "m")] == {"json_schema", "json_object"}
    assert len(capsys.readouterr().out.strip().splitlines()) == 2
    judge.REFUSED.clear()


def test_a_server_error_or_a_wrong_key_is_not_tried_in_other_modes():
    """Only a 400/422 may be the format's refusal: a wrong key, a rate limit or a server error is the row at once."""
    judge.REFUSED.clear()
    for status in (401, 429, 500):
        model = FakeLLM([httpx2.Response(status, json={"error": {"message": "Json mode is not supported"}})])
        row = judge.ask_falling_back(model.client(), "m", judge.judge_messages("q", "k", "a"), show=None)
        assert row["error"] and row["mode"] == "json_schema" and len(model.requests) == 1
    assert not any(judge.REFUSED.values())
    judge.REFUSED.clear()
