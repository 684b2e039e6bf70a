"""Set-up errors that used to send the student the wrong way (issue 22, part a), and one request rule.

Every test talks through the real ``openai`` client built by ``get_client``
(so ``http_client.CourseHttpClient`` is under it) to the fake server of
tests/fakes.py, or resolves the provider from the environment / a ``.env``
file as notebook 00's set-up cell does.  Each kind of failure has the
example from the issue and a variant.
"""

from __future__ import annotations

import warnings

import httpx
import openai
import pytest

from fakes import FakeLLM, StrictLLM, openai_reasoning_check, sse_response

from course_lib import request_rules, settings
from course_lib.agent import Agent
from course_lib.providers import PRESETS, Provider, ProviderError, get_client, get_provider, ping
from course_lib.react import JsonReAct, LineReAct
from course_lib.widgets import ChatSession

# Built at run time so that this file itself never contains a key-shaped string.
FAKE_KEY = "s" + "k-" + "Test0Fake1Key2" * 3
KEY_ENVS = sorted({p.key_env for p in PRESETS.values() if p.key_env})
SETTINGS = ["COURSE_PROVIDER", "COURSE_MODEL", "COURSE_BASE_URL", "COURSE_EXTRA_BODY", *KEY_ENVS]
QUESTION = [{"role": "user", "content": "你好"}]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    """No .env, no course settings, no keys - each test sets what it needs."""
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(request_rules, "_NO_STREAM_OPTIONS", set())


def fake_provider(name="custom", base_url="http://fake.local/v1", model="fake-model", key=""):
    return Provider(PRESETS[name], base_url, model, key, key_source="environment" if key else None)


def course_client(fake, provider) -> openai.OpenAI:
    """A course client (``get_client``: CourseHttpClient) whose network is the fake server."""
    return get_client(provider, transport=httpx.MockTransport(fake), max_retries=0)


def assert_no_key(text: str):
    assert FAKE_KEY not in text and FAKE_KEY[:12] not in text


# --------------------------------------------------------------------------- 8. stop on OpenAI reasoning models


@pytest.mark.parametrize("loop", [LineReAct, JsonReAct])
def test_react_loops_on_gpt5_send_no_stop(loop):
    """Both ReAct loops send stop sequences; gpt-5*/o* answer 400 'Unsupported parameter: stop'."""
    fake = StrictLLM(openai_reasoning_check, default="Final Answer: 好的")
    provider = Provider(PRESETS["openai"], PRESETS["openai"].base_url, "gpt-5-mini", "k", key_source="environment")
    loop(course_client(fake, provider), "gpt-5-mini", trace=None, provider=provider).run("你好")
    assert fake.rejected == [] and fake.requests and all("stop" not in body for body in fake.requests)


def test_variant_raw_sdk_call_with_stop_to_o4_mini_and_other_models_keep_stop():
    """Variant: a hand-written request with ``stop`` to o4-mini (the HTTP client's rules); gpt-4o keeps it."""
    fake = StrictLLM(openai_reasoning_check, default="好的")
    provider = Provider(PRESETS["openai"], PRESETS["openai"].base_url, "o4-mini", "k", key_source="environment")
    course_client(fake, provider).chat.completions.create(model="o4-mini", messages=QUESTION, stop=["Observation:"])
    assert fake.rejected == [] and "stop" not in fake.requests[0]
    plain = FakeLLM(["好的"])  # a model that takes stop sequences: they are sent
    course_client(plain, provider).chat.completions.create(model="gpt-4o-mini", messages=QUESTION, stop=["Observation:"])
    assert plain.requests[0]["stop"] == ["Observation:"]
