"""Set-up errors that used to send the student the wrong way (issue 22, part a), and one request rule.

Every test talks through the real ``openai`` client built by ``get_client``
(so ``http_client.CourseHttpClient`` is under it) to the fake server of
tests/fakes.py, or resolves the provider from the environment / a ``.env``
file as notebook 00's set-up cell does.  Each kind of failure has the
example from the issue and a variant.
"""

from __future__ import annotations

import warnings

import httpx2
import openai
import pytest

from fakes import FakeLLM, StrictLLM, openai_reasoning_check, sse_response

from course_lib import messages, providers
from course_runtime import provider_checks, request_rules, settings, setup_check
from course_lib.agent import Agent
from course_lib.messages import ToolSchemaError, request_kwargs
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
    monkeypatch.setattr(provider_checks, "_CUT_BASE_URLS", set())


def fake_provider(name="custom", base_url="http://fake.local/v1", model="fake-model", key=""):
    return Provider(PRESETS[name], base_url, model, key, key_source="environment" if key else None)


def course_client(fake, provider) -> openai.OpenAI:
    """A course client (``get_client``: CourseHttpClient) whose network is the fake server."""
    return get_client(provider, transport=httpx2.MockTransport(fake), max_retries=0)


def assert_no_key(text: str):
    assert FAKE_KEY not in text and FAKE_KEY[:12] not in text


# --------------------------------------------------------------------------- 1. a web page instead of a completion

PORTAL = ("<!DOCTYPE html>\n<html><head><title>校园网认证</title></head>"
          "<body><form action='/login'>请输入学号和密码登录校园网 ...</form>" + "<p>x</p>" * 300 + "</body></html>")


def html_page(content_type: str | None = "text/html; charset=utf-8", body: str = PORTAL) -> httpx2.Response:
    headers = {"content-type": content_type} if content_type else {}
    return httpx2.Response(200, headers=headers, content=body.encode("utf-8"))


def assert_names_the_web_page(text: str, url: str = "http://fake.local/v1/chat/completions"):
    assert "网页" in text and url in text
    assert "<!DOCTYPE html>" in text or "<html>" in text  # the page's first characters, quoted
    assert "chars]" in text and len(text) < 800  # shortened, not the whole portal
    assert "不能是 str" not in text and "消息" not in text.split("网页")[0]  # the messages are not blamed


def ping_recording_urls(provider):
    """``ping`` through ``get_client(provider)`` against a fake server; returns the URLs requested and the fake."""
    seen = []
    fake = FakeLLM(["好的"])
    client = get_client(provider, transport=httpx2.MockTransport(lambda r: seen.append(str(r.url)) or fake(r)),
                        max_retries=0)
    assert ping(client, provider) == "好的"
    return seen, fake


def test_html_page_instead_of_a_completion_is_named_not_stream():
    """A captive portal answers 200 text/html: the SDK would hand back a str and the loop blame the messages."""
    fake = FakeLLM([html_page(), html_page()])
    client = course_client(fake, fake_provider())
    with pytest.raises(openai.APIError) as err:
        client.chat.completions.create(model="fake-model", messages=QUESTION)
    assert_names_the_web_page(str(err.value))
    with pytest.raises(openai.APIError) as err:  # the Agent loop: the same sentence, not a MessageError
        Agent(client, "fake-model", trace=None).run("你好")
    assert_names_the_web_page(str(err.value))


def test_html_page_instead_of_a_completion_is_named_stream():
    """A streamed chat box: not "the reply was empty" but the web page and the URL."""
    fake = FakeLLM([html_page()])
    chat = ChatSession(course_client(fake, fake_provider()), "fake-model")
    pieces: list[str] = []
    assert chat.send("你好", on_token=pieces.append) is None
    assert pieces == [] and chat.notice is None
    assert_names_the_web_page(chat.error)


def test_variant_base_url_of_a_web_ui_without_html_content_type_stream_and_ping():
    """Variant: COURSE_BASE_URL points at a web UI (no /v1) that sends its page as text/plain, after blank lines."""
    page = "\n\n  <html><body>Open WebUI</body></html>"
    fake = FakeLLM([html_page("text/plain", page), html_page(None, page)])
    provider = fake_provider(base_url="http://fake.local")
    client = course_client(fake, provider)
    stream = None
    with pytest.raises(openai.APIError) as err:
        stream = client.chat.completions.create(model="fake-model", messages=QUESTION, stream=True)
        list(stream)
    assert stream is None  # raised by create itself, before any chunk is read
    text = str(err.value)
    assert "网页" in text and "http://fake.local/chat/completions" in text and "<html>" in text
    with pytest.raises(ProviderError, match="网页"):
        ping(client, provider)


def test_json_and_event_streams_still_pass():
    fake = FakeLLM(["好的", sse_response([{"role": "assistant", "content": "好"}, {"content": "的"}])])
    client = course_client(fake, fake_provider())
    assert client.chat.completions.create(model="fake-model", messages=QUESTION).choices[0].message.content == "好的"
    chunks = client.chat.completions.create(model="fake-model", messages=QUESTION, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "好的"


# --------------------------------------------------------------------------- 2. .env in another encoding

ENV_LINES = "COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY={key}\nCOURSE_MODEL=deepseek-chat\n"


def env_file(tmp_path, monkeypatch, data: bytes):
    """Write ``data`` as the project's .env and let ``get_provider`` read it."""
    monkeypatch.delenv("COURSE_IGNORE_DOTENV")
    path = tmp_path / ".env"
    path.write_bytes(data)
    monkeypatch.setattr(settings, "PROJECT_ROOT", tmp_path)
    monkeypatch.setattr(settings, "_FROM_DOTENV", {})
    monkeypatch.setattr(settings, "_DOTENV_VALUES", {})
    for name in SETTINGS:  # load_env sets them; monkeypatch puts the environment back afterwards
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    return path


def test_dotenv_saved_as_utf16_by_powershell_is_read(tmp_path, monkeypatch):
    """PowerShell 5.1 ``echo ... > .env`` writes UTF-16 LE with a BOM."""
    text = ENV_LINES.format(key=FAKE_KEY).replace("\n", "\r\n")
    env_file(tmp_path, monkeypatch, b"\xff\xfe" + text.encode("utf-16-le"))
    provider = get_provider()
    assert (provider.name, provider.model, provider.api_key) == ("deepseek", "deepseek-chat", FAKE_KEY)
    fake = FakeLLM(["好的"])
    assert ping(course_client(fake, provider), provider) == "好的"


def test_utf16_dotenv_gives_the_set_up_its_provider(tmp_path):
    """``python course.py setup`` reads COURSE_PROVIDER before any package is installed (setup_check)."""
    path = tmp_path / ".env"
    path.write_bytes(b"\xff\xfe" + "COURSE_PROVIDER=deepseek\r\n".encode("utf-16-le"))
    assert setup_check.env_provider(path) == "deepseek"  # not "local": no llama-server build for nothing


def test_variant_dotenv_with_a_utf8_bom_keeps_its_first_line(tmp_path, monkeypatch):
    """Windows Notepad / PowerShell ``Set-Content -Encoding utf8``: a UTF-8 BOM before the first name.

    (python-dotenv already read this one; kept so that reading the BOMs ourselves does not lose it.)"""
    env_file(tmp_path, monkeypatch, b"\xef\xbb\xbf" + ENV_LINES.format(key=FAKE_KEY).encode("utf-8"))
    assert get_provider().name == "deepseek"  # the BOM used to glue onto COURSE_PROVIDER: local was used


def test_variant_dotenv_in_gbk_is_a_chinese_error_naming_the_file(tmp_path, monkeypatch):
    text = "# 我的密钥\n" + ENV_LINES.format(key=FAKE_KEY)
    path = env_file(tmp_path, monkeypatch, text.encode("gbk"))
    with pytest.raises(ProviderError) as err:
        get_provider()
    message = str(err.value)
    assert str(path) in message and "UTF-8" in message and "第 1 行" in message
    assert_no_key(message)


# --------------------------------------------------------------------------- 3. invisible characters in a key


@pytest.mark.parametrize("bad, position, name", [
    ("\u200b", 5, "U+200B ZERO WIDTH SPACE"),       # pasted from a chat app
    ("\ufeff", 5, "U+FEFF ZERO WIDTH NO-BREAK SPACE"),  # a BOM
])
def test_invisible_character_in_a_key_names_variable_and_position(monkeypatch, bad, position, name):
    monkeypatch.setenv("COURSE_PROVIDER", "deepseek")
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY[:4] + bad + FAKE_KEY[4:])
    fake = FakeLLM(["好的"])
    with pytest.raises(ProviderError) as err:
        provider = get_provider()
        course_client(fake, provider).chat.completions.create(model=provider.model, messages=QUESTION)
    text = str(err.value)
    assert "DEEPSEEK_API_KEY" in text and f"第 {position} 个字符" in text and name in text
    assert "环境变量" in text
    assert_no_key(text)
    assert fake.requests == []


@pytest.mark.parametrize("bad, name", [("\u00a0", "U+00A0 NO-BREAK SPACE"), ("\u2013", "U+2013 EN DASH")])
def test_variant_lookalike_dash_or_nbsp_inside_a_class_key(monkeypatch, bad, name):
    """Variant: the class key (COURSE_CLASS_KEY) with an en dash or a non-breaking space inside."""
    monkeypatch.setenv("COURSE_PROVIDER", "classroom")
    monkeypatch.setenv("COURSE_BASE_URL", "http://192.168.1.20:8766/v1")
    monkeypatch.setenv("COURSE_CLASS_KEY", "class" + bad + "key-1234")
    with pytest.raises(ProviderError) as err:
        get_provider()
    text = str(err.value)
    assert "COURSE_CLASS_KEY" in text and "第 6 个字符" in text and name in text
    assert "class" not in text.replace("classroom", "")  # no part of the key


# --------------------------------------------------------------------------- 4. a base URL ending in /chat/completions


@pytest.mark.parametrize("suffix", ["/chat/completions", "/chat/completions/"])
def test_base_url_copied_with_chat_completions_is_cut_and_said_once(monkeypatch, suffix):
    monkeypatch.setenv("COURSE_PROVIDER", "custom")
    monkeypatch.setenv("COURSE_MODEL", "fake-model")
    monkeypatch.setenv("COURSE_BASE_URL", "http://fake.local/v1" + suffix)
    with pytest.warns(UserWarning, match="/chat/completions") as caught:
        provider = get_provider()
    assert len(caught) == 1 and "COURSE_BASE_URL" in str(caught[0].message)
    seen, fake = ping_recording_urls(provider)
    assert seen == ["http://fake.local/v1/chat/completions"]


def test_variant_deepseek_preset_with_its_curl_url(monkeypatch):
    """Variant: a preset provider given the URL from DeepSeek's curl example; said once per URL, not every call."""
    monkeypatch.setenv("COURSE_PROVIDER", "deepseek")
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    monkeypatch.setenv("COURSE_BASE_URL", "https://api.deepseek.com/chat/completions")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, again = get_provider(), get_provider()
    assert first.base_url == again.base_url == "https://api.deepseek.com"
    assert len([w for w in caught if "/chat/completions" in str(w.message)]) == 1


# --------------------------------------------------------------------------- 5. spaces around the model and the URL


def test_trailing_space_in_model_and_base_url_is_stripped(monkeypatch):
    monkeypatch.setenv("COURSE_PROVIDER", "custom")
    monkeypatch.setenv("COURSE_MODEL", "fake-model ")
    monkeypatch.setenv("COURSE_BASE_URL", "http://fake.local/v1 ")
    provider = get_provider()
    seen, fake = ping_recording_urls(provider)
    assert seen == ["http://fake.local/v1/chat/completions"]
    assert fake.requests[0]["model"] == "fake-model"


def test_variant_leading_space_and_tab(monkeypatch):
    monkeypatch.setenv("COURSE_PROVIDER", "deepseek")
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    monkeypatch.setenv("COURSE_MODEL", "\tdeepseek-reasoner")
    monkeypatch.setenv("COURSE_BASE_URL", "  https://api.deepseek.com/v1/\n")
    provider = get_provider()
    assert (provider.model, provider.base_url) == ("deepseek-reasoner", "https://api.deepseek.com/v1")


# --------------------------------------------------------------------------- 6. a base URL without http://


@pytest.mark.parametrize("url, fixed", [
    ("192.168.1.20:8766/v1", "http://192.168.1.20:8766/v1"),  # the class server, typed by hand
    ("api.deepseek.com", "https://api.deepseek.com"),          # a provider's host
])
def test_base_url_without_scheme_says_so_and_shows_what_to_write(monkeypatch, url, fixed):
    monkeypatch.setenv("COURSE_PROVIDER", "custom")
    monkeypatch.setenv("COURSE_MODEL", "fake-model")
    monkeypatch.setenv("COURSE_BASE_URL", url)
    fake = FakeLLM(["好的"])
    with pytest.raises(ProviderError) as err:
        provider = get_provider()
        ping(course_client(fake, provider), provider)
    text = str(err.value)
    assert "COURSE_BASE_URL" in text and "http://" in text and f"COURSE_BASE_URL={fixed}" in text
    assert fake.requests == []


def test_variant_localhost_without_scheme_and_a_wrong_scheme(monkeypatch):
    """Variant: ``localhost:11434/v1`` (urlsplit reads "localhost" as a scheme) and ``htp://``."""
    monkeypatch.setenv("COURSE_PROVIDER", "ollama")
    monkeypatch.setenv("COURSE_BASE_URL", "localhost:11434/v1")
    with pytest.raises(ProviderError, match="COURSE_BASE_URL=http://localhost:11434/v1"):
        get_provider()
    monkeypatch.setenv("COURSE_BASE_URL", "htp://localhost:11434/v1")
    with pytest.raises(ProviderError, match="http://"):
        get_provider()


# --------------------------------------------------------------------------- 7. tool names the API refuses


def tool(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "description": "查天气",
                                             "parameters": {"type": "object", "properties": {}}}}


def api_tool_name_check(body: dict) -> str | None:
    """What OpenAI answers for a tool name outside ^[a-zA-Z0-9_-]{1,64}$."""
    import re
    for i, schema in enumerate(body.get("tools") or []):
        if not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", schema["function"]["name"]):
            return f"Invalid 'tools[{i}].function.name': string does not match pattern."
    return None


@pytest.mark.parametrize("name, words", [
    ("查询天气", "查询天气"),           # a Chinese name for an exercise tool
    ("get weather", "' '"),            # a space
    ("weather.get", "'.'"),            # a dot
    ("a" * 65, "65"),                  # too long
])
def test_tool_names_the_api_refuses_are_named_before_sending(name, words):
    fake = StrictLLM(api_tool_name_check, default="好的")
    with pytest.raises(ToolSchemaError) as err:
        Agent(fake.client(), "fake-model", tools=[tool("get_time"), tool(name)], trace=None).run("几点了？")
    text = str(err.value)
    assert text.startswith("tools[1]") and words in text
    assert fake.requests == []  # nothing was sent


def test_variant_chat_box_and_raw_sdk_call_check_tool_names_too():
    """Variant: the chat box (its Agent) shows the error; a raw SDK call through the course client is stopped too."""
    fake = StrictLLM(api_tool_name_check, default="好的")
    chat = ChatSession(fake.client(), "fake-model", tools=[tool("天气")], registry={"天气": lambda: "晴"})
    assert chat.send("天气怎么样？") is None
    assert "ToolSchemaError" in chat.error and "天气" in chat.error
    client = course_client(fake, fake_provider())
    with pytest.raises(ToolSchemaError, match="tools\\[0\\]"):
        client.chat.completions.create(model="fake-model", messages=QUESTION, tools=[tool("")])
    assert fake.requests == []
    kwargs = request_kwargs("fake-model", QUESTION, tools=[tool("get-weather_2")])  # a valid name passes
    assert kwargs["tools"][0]["function"]["name"] == "get-weather_2"
    assert messages.validate_tools([tool("x" * 64)]) is None


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


# --------------------------------------------------------------------------- 9. a base URL that the server redirects (issue 30)


def redirecting(fake, to_scheme: str, status: int = 301):
    """A server behind a redirect (nginx ``return 301 https://$host$request_uri``): every request to the
    other scheme is sent to ``to_scheme``; there the chat endpoint answers POST only (405 to GET, as
    llama-server and vLLM do)."""
    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.scheme != to_scheme:
            return httpx2.Response(status, headers={"location": str(request.url.copy_with(scheme=to_scheme))})
        if request.method != "POST":
            return httpx2.Response(405, json={"error": {"message": "Method Not Allowed", "code": 405}})
        return fake(request)
    return handler


def test_http_redirected_to_https_names_the_redirect_and_the_line_to_write():
    """``COURSE_BASE_URL=http://…`` to a server that redirects to https: a 301 turns the POST into a GET,
    and the student saw a bare 405 Method Not Allowed."""
    fake = FakeLLM(["好的"])
    provider = fake_provider(base_url="http://fake.local/v1")
    client = get_client(provider, transport=httpx2.MockTransport(redirecting(fake, "https")), max_retries=0)
    with pytest.raises(openai.APIStatusError) as err:
        client.chat.completions.create(model="fake-model", messages=QUESTION)
    text = str(err.value)
    assert "http://fake.local/v1/chat/completions" in text and "https://fake.local/v1/chat/completions" in text
    assert "301" in text and "COURSE_BASE_URL=https://fake.local/v1" in text and ".env" in text
    assert fake.requests == []  # the chat request never reached the server as a chat request
    with pytest.raises(ProviderError) as err:  # notebook 00's ping: the same sentence, not "HTTP 405"
        ping(client, provider)
    assert "COURSE_BASE_URL=https://fake.local/v1" in str(err.value) and "返回了 HTTP 405" not in str(err.value)


def test_variant_https_redirected_to_http_and_a_streamed_request():
    """The reverse (a 302 from https to http, e.g. a school gateway), asked by a streaming chat box."""
    fake = FakeLLM(["好的"])
    provider = fake_provider(base_url="https://fake.local/v1", key=FAKE_KEY)
    client = get_client(provider, transport=httpx2.MockTransport(redirecting(fake, "http", 302)), max_retries=0)
    chat = ChatSession(client, "fake-model")
    assert chat.send("你好", on_token=lambda piece: None) is None
    assert "302" in chat.error and "COURSE_BASE_URL=http://fake.local/v1" in chat.error
    assert_no_key(chat.error)


def test_variant_a_redirect_that_keeps_the_post_still_works():
    """307/308 keep the method and the body (RFC 9110 §15.4.8): nothing to report."""
    fake = FakeLLM(["好的"])
    client = get_client(fake_provider(base_url="http://fake.local/v1"),
                        transport=httpx2.MockTransport(redirecting(fake, "https", 308)), max_retries=0)
    reply = client.chat.completions.create(model="fake-model", messages=QUESTION)
    assert reply.choices[0].message.content == "好的"


def test_variant_a_redirect_to_another_path_names_it_without_a_line_to_copy():
    """A server that sends every old URL to its home page: that URL is not a COURSE_BASE_URL."""
    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path != "/":
            return httpx2.Response(301, headers={"location": "https://fake.local/"})
        return httpx2.Response(404, json={"error": "not found"})

    client = get_client(fake_provider(), transport=httpx2.MockTransport(handler), max_retries=0)
    with pytest.raises(openai.APIStatusError) as err:
        client.chat.completions.create(model="fake-model", messages=QUESTION)
    text = str(err.value)
    assert "https://fake.local/" in text and "301" in text and "/v1" in text and "COURSE_BASE_URL" in text
    assert "COURSE_BASE_URL=https://fake.local" not in text


def test_variant_a_redirect_to_a_login_page_is_still_the_web_page_sentence():
    """A campus gateway's login page: the web page sentence (log in first) says more than the redirect."""
    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.host == "fake.local":
            return httpx2.Response(302, headers={"location": "https://login.campus.test/portal?from=x"})
        return httpx2.Response(200, headers={"content-type": "text/html"}, content=b"<html>login</html>")

    client = get_client(fake_provider(), transport=httpx2.MockTransport(handler), max_retries=0)
    with pytest.raises(openai.APIError) as err:
        client.chat.completions.create(model="fake-model", messages=QUESTION)
    assert "网页" in str(err.value) and "登录" in str(err.value) and "<html>login</html>" in str(err.value)
