"""Tests for course_lib.providers (issue 5, item 8) and keys never shown (item 9).

No network: the fake server is FakeLLM (httpx2.MockTransport); "unreachable"
is a closed loopback port and "timeout" a loopback socket that never answers.
A fake key is put in the environment and every message is checked for it.
"""

from __future__ import annotations

import socket

import httpx2
import openai
import pytest

from fakes import FakeLLM

from course_lib import providers
from course_runtime import http_client, local_server
from course_runtime.http_client import REQUEST_TIMEOUT_S
from course_lib.providers import (
    LOCAL_MAX_RETRIES,
    MAX_RETRIES,
    PRESETS,
    Provider,
    ProviderError,
    get_client,
    get_provider,
    ping,
)

# Built at run time so that this file itself never contains a key-shaped string.
FAKE_KEY = "s" + "k-" + "Test0Fake1Key2" * 3
KEY_ENVS = sorted({p.key_env for p in PRESETS.values() if p.key_env})
SETTINGS = ["COURSE_PROVIDER", "COURSE_MODEL", "COURSE_BASE_URL", *KEY_ENVS]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    """No .env, no course settings, no keys - each test sets what it needs."""
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)


def fake_provider(name="deepseek", key=FAKE_KEY, base_url="http://fake.local/v1", source="environment", model="fake-model"):
    return Provider(PRESETS[name], base_url, model, key, key_source=source if key else None)


def error_json(status, message):
    return httpx2.Response(status, json={"error": {"message": message, "type": "x", "code": status}},
                          headers={"retry-after-ms": "1"})  # keep the SDK's back-off short in tests


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the block ends: nothing listens there


def assert_no_key(text: str):
    assert FAKE_KEY not in text
    assert FAKE_KEY[:12] not in text  # not even a prefix


# --------------------------------------------------------------------------- configuration


@pytest.mark.parametrize("name", [n for n, p in PRESETS.items() if p.key_env and p.key_required])
def test_missing_key_names_the_variable_and_the_provider(monkeypatch, name):
    other = next(env for env in KEY_ENVS if env != PRESETS[name].key_env)
    monkeypatch.setenv(other, FAKE_KEY)  # another provider's key must not leak into the message
    with pytest.raises(ProviderError) as err:
        get_provider(name)
    text = str(err.value)
    assert PRESETS[name].key_env in text and PRESETS[name].label in text and ".env" in text
    assert "COURSE_PROVIDER=local" in text
    assert_no_key(text)


def test_provider_chosen_by_environment_with_a_key(monkeypatch):
    monkeypatch.setenv("COURSE_PROVIDER", "DeepSeek ")
    monkeypatch.setenv("DEEPSEEK_API_KEY", f"  {FAKE_KEY}\n")  # pasted with spaces and a newline
    provider = get_provider()
    assert provider.name == "deepseek" and provider.api_key == FAKE_KEY
    assert provider.base_url == "https://api.deepseek.com" and provider.model == "deepseek-chat"


def test_unknown_provider_and_incomplete_custom(monkeypatch):
    with pytest.raises(ProviderError, match="不是课程认识的 provider；可选：local, classroom, deepseek"):
        get_provider("gemini")
    with pytest.raises(ProviderError, match="COURSE_BASE_URL"):
        get_provider("custom")
    monkeypatch.setenv("COURSE_BASE_URL", "http://127.0.0.1:9/v1/")
    with pytest.raises(ProviderError, match="COURSE_MODEL"):
        get_provider("custom")
    monkeypatch.setenv("COURSE_MODEL", "my-model")
    provider = get_provider("custom")  # key optional for custom
    assert provider.base_url == "http://127.0.0.1:9/v1" and provider.api_key == ""


def test_provider_repr_and_describe_never_show_the_key():
    provider = fake_provider()
    for text in (repr(provider), str(provider), str(provider.describe()), repr(provider.preset)):
        assert_no_key(text)
    assert provider.describe()["api_key"] == "已设置（DEEPSEEK_API_KEY，来自环境变量）"
    assert fake_provider(key="").describe()["api_key"] == "缺少（DEEPSEEK_API_KEY）"
    assert fake_provider("ollama", key="").describe()["api_key"] == "不需要"


def test_main_prints_provider_and_error_without_the_key(monkeypatch, capsys):
    monkeypatch.setenv("COURSE_PROVIDER", "deepseek")
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    fake = FakeLLM([error_json(401, f"Incorrect API key provided: {FAKE_KEY}")])
    monkeypatch.setattr(providers, "get_client", lambda provider=None, **kw: fake.client())
    assert providers.main() == 1
    out = capsys.readouterr().out
    assert "deepseek" in out and "已设置（DEEPSEEK_API_KEY，来自环境变量）" in out and "拒绝了 API key" in out
    assert_no_key(out)


# --------------------------------------------------------------------------- bounded retries and waits


def test_clients_have_bounded_retries_and_timeout(monkeypatch):
    client = get_client(fake_provider())
    assert client.max_retries == MAX_RETRIES == 2
    assert client.timeout == REQUEST_TIMEOUT_S == 120.0
    assert client.api_key == FAKE_KEY  # handed to the SDK, never printed
    custom = get_client(fake_provider(), timeout=5, max_retries=1)
    assert (custom.timeout, custom.max_retries) == (5, 1)
    assert get_client(fake_provider("ollama", key="")).api_key == "not-needed"


def test_local_client_restarts_the_server_instead_of_retrying(monkeypatch):
    started = []
    monkeypatch.setattr(local_server, "ensure_server", lambda *a, **k: started.append(1) or local_server.base_url())
    client = get_client(get_provider("local"))
    assert started == [1]  # the server is started (or found) before the first request
    assert client.max_retries == LOCAL_MAX_RETRIES == 0
    assert isinstance(client._client._transport, http_client.RestartingTransport)
    assert isinstance(client._client, http_client.CourseHttpClient)


# --------------------------------------------------------------------------- transport failures


def test_unreachable_base_url_names_provider_and_url():
    port = closed_port()
    provider = fake_provider("custom", key="", base_url=f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ProviderError) as err:
        ping(get_client(provider, max_retries=0), provider)
    text = str(err.value)
    assert f"http://127.0.0.1:{port}/v1" in text and PRESETS["custom"].label in text
    assert "连不上" in text and "COURSE_BASE_URL" in text


def test_timeout_from_the_transport_gives_a_clear_message():
    fake = FakeLLM([httpx2.ReadTimeout("no answer")])
    provider = fake_provider()
    with pytest.raises(ProviderError) as err:
        ping(fake.client(timeout=7), provider)
    text = str(err.value)
    assert "在 7 秒内没有回答" in text and "DeepSeek（http://fake.local/v1）" in text
    assert "max_tokens" in text
    assert_no_key(text)


def test_a_real_timeout_on_a_silent_socket():
    """A server that accepts the connection and never answers (e.g. stuck on another request)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)  # the kernel completes the handshake; nobody ever reads or writes
        provider = fake_provider("custom", key="", base_url=f"http://127.0.0.1:{server.getsockname()[1]}/v1")
        with pytest.raises(ProviderError, match=r"在 0\.3 秒内没有回答"):
            ping(get_client(provider, timeout=0.3, max_retries=0), provider)


def test_429_then_200_is_retried_by_the_sdk():
    fake = FakeLLM([error_json(429, "Rate limit reached"), "pong"])
    assert ping(fake.client(max_retries=2), fake_provider()) == "pong"
    assert len(fake.requests) == 2


def test_5xx_until_the_retries_run_out():
    fake = FakeLLM([error_json(500, "internal error")] * 3)
    with pytest.raises(ProviderError) as err:
        ping(fake.client(max_retries=2), fake_provider())
    assert len(fake.requests) == 3  # 1 try + 2 retries, then it stops
    text = str(err.value)
    assert "HTTP 500" in text and "已重试 2 次" in text and "DeepSeek（http://fake.local/v1）" in text
    assert "稍后再试" in text


def test_429_until_the_retries_run_out_mentions_the_quota():
    fake = FakeLLM([error_json(429, "You exceeded your current quota")] * 2)
    with pytest.raises(ProviderError) as err:
        ping(fake.client(max_retries=1), fake_provider())
    assert len(fake.requests) == 2
    assert "HTTP 429" in str(err.value) and "额度" in str(err.value)


@pytest.mark.parametrize("status, words", [(401, ["拒绝了 API key", "DEEPSEEK_API_KEY"]),
                                           (404, ["不认识模型", "COURSE_MODEL"]),
                                           (403, ["HTTP 403"]), (400, ["HTTP 400"])])
def test_status_errors_never_echo_the_key(status, words):
    """Providers echo (parts of) the key in error bodies; the message must not."""
    fake = FakeLLM([error_json(status, f"Incorrect API key provided: {FAKE_KEY}. Bearer {FAKE_KEY[3:]}")])
    with pytest.raises(ProviderError) as err:
        ping(fake.client(), fake_provider())
    text = str(err.value)
    assert all(w in text for w in words)
    assert "DeepSeek（http://fake.local/v1）" in text
    assert_no_key(text)
    assert FAKE_KEY[3:15] not in text
    assert "重试" not in text  # the SDK does not retry these, so the message does not claim it


# --------------------------------------------------------------------------- the local server died mid-lesson


def completion_response(request):
    body = FakeLLM().completion("pong", {"messages": []})
    return httpx2.Response(200, json=body, request=request)


def test_dead_local_server_is_restarted_on_the_next_call(monkeypatch):
    restarts, attempts = [], []

    def handle(self, request):
        attempts.append(str(request.url))
        if len(attempts) == 1:
            raise httpx2.ConnectError("[Errno 111] Connection refused", request=request)
        return completion_response(request)

    monkeypatch.setattr(local_server, "ensure_server", lambda *a, **k: restarts.append(1) or local_server.base_url())
    monkeypatch.setattr(httpx2.HTTPTransport, "handle_request", handle)
    provider = get_provider("local")
    client = get_client(provider)
    restarts.clear()  # get_client's own start-up check does not count
    assert ping(client, provider) == "pong"
    assert restarts == [1]  # restarted exactly once
    assert len(attempts) == 2 and attempts[0] == attempts[1] == f"{provider.base_url}/chat/completions"


def test_local_server_that_cannot_be_restarted(monkeypatch):
    calls = []

    def ensure(*a, **k):
        calls.append(1)
        if len(calls) > 1:
            raise local_server.LocalModelError(f"llama-server exited during start-up. Read the end of its log: {local_server.log_path()}")
        return local_server.base_url()

    def refuse(self, request):
        raise httpx2.ConnectError("[Errno 111] Connection refused", request=request)

    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)  # a key in the environment must not show up
    monkeypatch.setattr(local_server, "ensure_server", ensure)
    monkeypatch.setattr(httpx2.HTTPTransport, "handle_request", refuse)
    provider = get_provider("local")
    with pytest.raises(ProviderError) as err:
        ping(get_client(provider), provider)
    text = str(err.value)
    assert provider.base_url in text and "没能重新启动" in text and "llama-server.log" in text
    assert_no_key(text)


def test_local_server_still_refusing_after_restart(monkeypatch):
    def refuse(self, request):
        raise httpx2.ConnectError("[Errno 111] Connection refused", request=request)

    monkeypatch.setattr(local_server, "ensure_server", lambda *a, **k: local_server.base_url())
    monkeypatch.setattr(httpx2.HTTPTransport, "handle_request", refuse)
    provider = get_provider("local")
    with pytest.raises(ProviderError) as err:
        ping(get_client(provider), provider)
    assert "连不上" in str(err.value) and "local_server status" in str(err.value)
    assert provider.base_url in str(err.value)


def test_sdk_errors_are_still_raised_for_other_requests(monkeypatch):
    """Outside ping the SDK's own exception types reach the student's code unchanged."""
    fake = FakeLLM([error_json(500, "boom")])
    with pytest.raises(openai.InternalServerError):
        fake.client().chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])


def test_local_model_errors_never_contain_a_key(monkeypatch, tmp_path):
    for env in KEY_ENVS:
        monkeypatch.setenv(env, FAKE_KEY)
    monkeypatch.setenv("COURSE_GGUF_PATH", str(tmp_path / "missing.gguf"))
    with pytest.raises(local_server.LocalModelError) as err:
        local_server.model_path()
    assert "COURSE_GGUF_PATH" in str(err.value)
    assert_no_key(str(err.value))
