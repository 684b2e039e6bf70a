"""course_lib.checkers.scripted.ScriptedModel: the one scripted chat server (checkers and tests' FakeLLM)."""

from __future__ import annotations

import json

import httpx2
import openai
import pytest

from course_lib.checkers.scripted import SCRIPT_OVER, ScriptedModel
from fakes import FakeLLM


def test_scripted_model_answers_in_order_and_records():
    script = ScriptedModel([{"tool_calls": [("get_weather", {"city": "北京"}), ("get_weather", {"city": "上海"})]}, "好的"])
    client = script.client()
    first = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    message = first.choices[0].message
    assert first.choices[0].finish_reason == "tool_calls"
    assert message.content is None
    assert [c.id for c in message.tool_calls] == [ScriptedModel.call_id(1, 0), ScriptedModel.call_id(1, 1)]
    assert json.loads(message.tool_calls[1].function.arguments) == {"city": "上海"}
    second = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q2"}])
    assert second.choices[0].message.content == "好的"
    third = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q3"}])
    assert third.choices[0].message.content == SCRIPT_OVER
    assert [r["messages"][0]["content"] for r in script.requests] == ["q", "q2", "q3"]


def test_tool_call_ids_follow_one_scheme_for_checkers_and_tests():
    for server in (ScriptedModel([{"tool_calls": [("calculate", "1+1")]}]), FakeLLM([{"tool_calls": [("calculate", "1+1")]}])):
        message = server.client().chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}]).choices[0].message
        assert message.tool_calls[0].id == ScriptedModel.call_id(1, 0) == "call_s1_0"
        assert message.tool_calls[0].function.arguments == "1+1"  # a str argument is sent as it is


def test_full_call_dicts_content_finish_reason_and_usage_pass_through():
    call = {"id": "mine", "type": "function", "function": {"name": "x", "arguments": "{}"}}
    usage = {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10}
    script = ScriptedModel([{"tool_calls": [call], "content": "先查一下", "finish_reason": "length", "usage": usage}])
    response = script.client().chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    assert response.choices[0].message.tool_calls[0].id == "mine" and response.choices[0].message.content == "先查一下"
    assert response.choices[0].finish_reason == "length" and response.usage.total_tokens == 10


def test_scripted_usage_is_counted_from_the_request():
    script = ScriptedModel(["a"])
    response = script.client().chat.completions.create(model="m", messages=[{"role": "user", "content": "x" * 40}])
    assert response.usage.prompt_tokens > 10 and response.usage.completion_tokens == 7
    assert response.usage.total_tokens == response.usage.prompt_tokens + 7


def test_http_responses_and_exceptions_in_the_script():
    script = ScriptedModel([httpx2.Response(500, json={"error": {"message": "busy"}}), httpx2.ConnectError("refused"), "ok"])
    client = script.client()
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    assert client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}]).choices[0].message.content == "ok"
    assert len(script.requests) == 3


def test_fake_llm_is_strict_unless_given_a_default():
    fake = FakeLLM(["one"])
    client = fake.client()
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    with pytest.raises(AssertionError, match="剧本里已经没有回答了"):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    fake = FakeLLM(default="again").add("first")
    client = fake.client()
    texts = [client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}]).choices[0].message.content
             for _ in range(3)]
    assert texts == ["first", "again", "again"] and json.loads(json.dumps(fake.requests))[0]["model"] == "m"


def test_a_streamed_request_gets_the_same_reply_as_events():
    """stream=True (notebook 01) is answered as server-sent events carrying the same text and tool calls."""
    from course_lib.checkers.scripted import ScriptedModel

    script = ScriptedModel(["你好，世界", {"tool_calls": [("get_weather", {"city": "北京"})]}])
    client = script.client()
    text = "".join(chunk.choices[0].delta.content or "" for chunk in
                   client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
                   if chunk.choices)
    assert text == "你好，世界"
    calls: dict = {}
    for chunk in client.chat.completions.create(model="m", messages=[{"role": "user", "content": "天气"}], stream=True,
                                                stream_options={"include_usage": True}):
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            entry = calls.setdefault(delta.index, {"name": "", "arguments": ""})
            entry["name"] += delta.function.name or ""
            entry["arguments"] += delta.function.arguments or ""
    assert calls == {0: {"name": "get_weather", "arguments": '{"city": "北京"}'}}
    assert [bool(body.get("stream")) for body in script.requests] == [True, True]
