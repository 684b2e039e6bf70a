"""Per-provider request rules (issue 11, item 4): request_rules.REQUEST_RULES, COURSE_EXTRA_BODY, stream_options.

Every test talks through the real ``openai`` client to a fake server that
answers 400 to the body the real endpoint refuses (tests/fakes.py StrictLLM),
so a rule that is not applied fails the test.
"""

from __future__ import annotations

import httpx2
import openai
import pytest

from fakes import (
    StrictLLM,
    dashscope_qwen3_check,
    openai_reasoning_check,
    relay_stream_options_check,
    sse_response,
)

from course_runtime import request_rules
from course_lib.agent import Agent
from course_lib.messages import request_kwargs
from course_lib.providers import PRESETS, Provider, ProviderError, get_client, get_provider, ping
from course_runtime.request_rules import apply_request_rules, endpoint_of, remember_no_stream_options
from course_lib.react import JsonReAct, LineReAct
from course_lib.widgets import ChatBox, ChatSession

KEY = "test-key-not-real"
QUESTION = [{"role": "user", "content": "你好"}]


@pytest.fixture(autouse=True)
def clean(monkeypatch):
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    for name in ("COURSE_PROVIDER", "COURSE_MODEL", "COURSE_BASE_URL", "COURSE_EXTRA_BODY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(request_rules, "_NO_STREAM_OPTIONS", set())


def provider(name: str, model: str, base_url: str | None = None, extra_body: dict | None = None) -> Provider:
    return Provider(PRESETS[name], base_url or PRESETS[name].base_url, model, KEY, key_source="environment",
                    extra_body=extra_body or {})


def client_for(fake: StrictLLM, prov: Provider) -> openai.OpenAI:
    """A course client (get_client) whose network is the fake server."""
    return get_client(prov, transport=httpx2.MockTransport(fake), max_retries=0)


# --------------------------------------------------------------------------- OpenAI reasoning models


def test_gpt5_every_lesson_request_goes_through():
    """COURSE_PROVIDER=openai COURSE_MODEL=gpt-5-mini: ping, a raw SDK call as in notebook 01, and the Agent."""
    fake = StrictLLM(openai_reasoning_check, default="好的")
    prov = provider("openai", "gpt-5-mini")
    client = client_for(fake, prov)
    assert ping(client, prov) == "好的"
    raw = client.chat.completions.create(model=prov.model, messages=QUESTION, max_tokens=80, temperature=0.7)
    assert raw.choices[0].message.content == "好的"
    result = Agent(client, prov.model, max_tokens=200, trace=None).run("你好")
    assert result.stopped_reason == "answer" and result.answer == "好的"
    assert fake.rejected == []
    assert all("max_completion_tokens" in body and "temperature" not in body for body in fake.requests)
    assert fake.requests[1]["max_completion_tokens"] == 80


@pytest.mark.parametrize("model", ["o4-mini", "o3-mini", "o1", "gpt-5", "gpt-5.1", "openai/gpt-5-mini"])
def test_reasoning_models_through_request_kwargs_without_a_provider(model):
    """A loop or chat box given any client (no provider): the rule goes by model id alone."""
    fake = StrictLLM(openai_reasoning_check, default="好的")
    assert ChatSession(fake.client(), model, temperature=0.7).send("你好") == "好的"
    loop = LineReAct(fake.client(), model, trace=None)
    assert loop.run("你好").answer is not None  # "好的" is no protocol reply: the loop still gets answers, not 400s
    assert fake.rejected == []


def test_reasoning_rule_keeps_the_default_temperature_and_leaves_other_models_alone():
    kwargs = request_kwargs("gpt-5-mini", QUESTION, max_tokens=50, temperature=1)
    assert kwargs["temperature"] == 1 and kwargs["max_completion_tokens"] == 50 and "max_tokens" not in kwargs
    for model in ("gpt-4o-mini", "o1x-custom", "deepseek-chat", "qwen2.5-coder-1.5b-instruct"):
        kwargs = request_kwargs(model, QUESTION, max_tokens=50, temperature=0)
        assert kwargs["max_tokens"] == 50 and kwargs["temperature"] == 0 and "max_completion_tokens" not in kwargs
    twice = apply_request_rules(request_kwargs("o3", QUESTION, max_tokens=9, temperature=0))
    assert twice == request_kwargs("o3", QUESTION, max_tokens=9, temperature=0)


# --------------------------------------------------------------------------- DashScope Qwen3


def test_dashscope_qwen3_gets_enable_thinking_false():
    fake = StrictLLM(dashscope_qwen3_check, default="你好！")
    prov = provider("dashscope", "qwen3-8b")
    client = client_for(fake, prov)
    assert ping(client, prov) == "你好！"
    assert client.chat.completions.create(model=prov.model, messages=QUESTION).choices[0].message.content == "你好！"
    # A loop given the plain client but the provider (request_kwargs puts it in extra_body).
    assert JsonReAct(fake.client(), prov.model, provider=prov, trace=None).run("你好").requests >= 1
    assert Agent(fake.client(), prov.model, provider=prov, trace=None).run("你好").answer == "你好！"
    assert fake.rejected == [] and all(body["enable_thinking"] is False for body in fake.requests)


def test_dashscope_rule_by_host_and_only_for_qwen3():
    # A custom URL pointing at DashScope's international endpoint is DashScope too.
    fake = StrictLLM(dashscope_qwen3_check, default="ok")
    intl = provider("custom", "qwen3-32b", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1")
    assert ping(client_for(fake, intl), intl) == "ok"
    # Not Qwen3, or not DashScope: no extra field (strict OpenAI-style servers refuse unknown ones).
    assert "extra_body" not in request_kwargs("qwen-plus", QUESTION, provider=provider("dashscope", "qwen-plus"))
    assert "extra_body" not in request_kwargs("qwen3-8b", QUESTION, provider=provider("ollama", "qwen3-8b"))
    # A request that sets the field itself wins (e.g. enable_thinking=True with stream=True).
    kwargs = request_kwargs("qwen3-8b", QUESTION, provider=provider("dashscope", "qwen3-8b"),
                            extra_body={"enable_thinking": True})
    assert kwargs["extra_body"] == {"enable_thinking": True}


# --------------------------------------------------------------------------- extra body fields from .env or code


def test_course_extra_body_from_the_environment_reaches_every_request(monkeypatch):
    monkeypatch.setenv("COURSE_PROVIDER", "custom")
    monkeypatch.setenv("COURSE_BASE_URL", "http://relay.test/v1")
    monkeypatch.setenv("COURSE_MODEL", "qwen3-8b")
    monkeypatch.setenv("COURSE_EXTRA_BODY", '{"enable_thinking": false, "top_k": 20}')
    prov = get_provider()
    assert prov.extra_body == {"enable_thinking": False, "top_k": 20}
    fake = StrictLLM(dashscope_qwen3_check, default="好")
    client = client_for(fake, prov)
    assert ping(client, prov) == "好"
    box = ChatBox(ChatSession(client, prov.model), stream=False)
    box.text.value = "你好"
    box.on_send()
    assert box.session.error is None
    assert fake.rejected == [] and all(b["top_k"] == 20 and b["enable_thinking"] is False for b in fake.requests)


def test_extra_body_in_code_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("COURSE_EXTRA_BODY", '{"enable_thinking": true, "seed": 1}')
    prov = get_provider("ollama", extra_body={"enable_thinking": False})
    assert prov.extra_body == {"enable_thinking": False, "seed": 1}


@pytest.mark.parametrize("value, words", [("{enable_thinking: false}", ["JSON"]), ("[1, 2]", ["list"]),
                                          ('"text"', ["str"])])
def test_course_extra_body_that_is_not_a_json_object_is_a_clear_error(monkeypatch, value, words):
    monkeypatch.setenv("COURSE_EXTRA_BODY", value)
    with pytest.raises(ProviderError) as err:
        get_provider("ollama")
    text = str(err.value)
    assert "COURSE_EXTRA_BODY" in text and "必须是一个 JSON 对象" in text and '{"enable_thinking": false}' in text
    assert "环境变量" in text  # where the setting came from
    assert any(w in text for w in words) or "Expecting" in text


# --------------------------------------------------------------------------- relays without stream_options


def test_relay_without_stream_options_falls_back_and_remembers():
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    fake = StrictLLM(relay_stream_options_check,
                     [sse_response([{"content": "你"}, {"content": "好"}], usage=usage),
                      sse_response([{"content": "再见"}])])
    prov = provider("custom", "gpt-4o-mini", "http://relay.test/v1")
    box = ChatBox(ChatSession(client_for(fake, prov), prov.model, memory=True))
    box.text.value = "你好"
    box.on_send()
    assert box.session.error is None and box.session.history[-1]["content"] == "你好"
    assert len(fake.rejected) == 1 and "stream_options" not in fake.requests[1]
    assert request_rules.stream_usage_unavailable(prov)
    box.text.value = "再见"
    box.on_send()
    assert box.session.history[-1]["content"] == "再见"
    assert len(fake.requests) == 3 and len(fake.rejected) == 1  # no second failing request
    assert "token 数无法显示" in box.status.value


def test_stream_options_are_still_sent_where_they_work():
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    fake = StrictLLM(lambda body: None, [sse_response([{"content": "嗨"}], usage=usage)])
    prov = provider("custom", "m", "http://other.test/v1")
    box = ChatBox(ChatSession(client_for(fake, prov), "m"))
    box.text.value = "你好"
    box.on_send()
    assert fake.requests[0]["stream_options"] == {"include_usage": True}
    assert "completion 2" in box.status.value and not request_rules.stream_usage_unavailable(prov)


def test_other_400s_are_not_mistaken_for_stream_options():
    fake = StrictLLM(lambda body: "Invalid value for 'messages'")
    prov = provider("custom", "m", "http://relay2.test/v1")
    with pytest.raises(openai.BadRequestError):
        client_for(fake, prov).chat.completions.create(model="m", messages=QUESTION, stream=True,
                                                       stream_options={"include_usage": True})
    assert len(fake.requests) == 1 and not request_rules.stream_usage_unavailable(prov)


def test_an_endpoint_that_refused_stream_options_is_remembered():
    assert endpoint_of(None) == ("", "", {})
    prov = provider("custom", "m", base_url="http://relay.test/v1/", extra_body={"top_k": 20})
    assert endpoint_of(prov) == ("custom", "http://relay.test/v1", {"top_k": 20})
    request = {"model": "m", "messages": QUESTION, "stream": True, "stream_options": {"include_usage": True}}
    assert "stream_options" in apply_request_rules(request, prov) and not request_rules.stream_usage_unavailable(prov)
    remember_no_stream_options("http://relay.test/v1/")
    assert request_rules.stream_usage_unavailable(prov) and request_rules.stream_usage_unavailable("http://relay.test/v1")
    assert "stream_options" not in apply_request_rules(request, prov) and "stream_options" in request
