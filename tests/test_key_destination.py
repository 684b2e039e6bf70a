"""Keys stay home (issue 43, part 1): a cloud preset's key goes to that preset's own address only.

Found: after ``python course.py join CODE`` (``.env``: ``COURSE_PROVIDER=classroom``,
``COURSE_BASE_URL=<class server>``, ``COURSE_CLASS_KEY``), a student who switched
``.env`` to their own DeepSeek key (``COURSE_PROVIDER=deepseek``,
``DEEPSEEK_API_KEY=sk-...``) kept the class ``COURSE_BASE_URL``: the paid key went,
in clear text, to the class address.  Now ``get_provider`` refuses before any
request, with a sentence naming both lines and what to do.

The end-to-end test runs ``class_code.join`` into a temporary project (the
teacher's service answered by a stand-in), then talks to a real HTTP server on a
loopback port (the OS picks it) that records every request; the address tricks
go through the course's real client with ``httpx2.HTTPTransport`` answering
instead of the network, and every request it saw is checked for the key.
"""

from __future__ import annotations

import json
import threading
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
import pytest

from fakes import FakeLLM

from course_lib import providers
from course_runtime import class_code, provider_checks, settings
from course_lib.providers import PRESETS, ProviderError, get_client, get_provider, ping

# Built at run time so that this file itself never contains a key-shaped string.
FAKE_KEY = "s" + "k-" + "Paid0Own1Key2" * 3
CLASS_KEY = "course-class-" + "0123456789abcdef" * 2
KEY_ENVS = sorted({p.key_env for p in PRESETS.values() if p.key_env})
CLOUD = [name for name, p in PRESETS.items() if p.key_env and p.base_url]  # deepseek, dashscope, openai
SETTINGS = ["COURSE_PROVIDER", "COURSE_MODEL", "COURSE_BASE_URL", "COURSE_EXTRA_BODY", "COURSE_PROGRESS_URL",
            "COURSE_STUDENT_NAME", "COURSE_REQUEST_LOG", *KEY_ENVS,
            "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "NO_PROXY", "no_proxy"]


@pytest.fixture(autouse=True)
def clean(monkeypatch):
    """No .env, no course settings, no keys, no proxies - each test sets what it needs."""
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    for name in SETTINGS:
        monkeypatch.setenv(name, "")  # recorded, so whatever a test's .env sets is removed again afterwards
        monkeypatch.delenv(name)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project folder whose .env ``get_provider`` reads (nothing from the real one)."""
    monkeypatch.delenv("COURSE_IGNORE_DOTENV", raising=False)
    monkeypatch.setattr(settings, "PROJECT_ROOT", tmp_path)
    monkeypatch.setattr(providers, "PROJECT_ROOT", tmp_path)
    monkeypatch.setattr(provider_checks, "PROJECT_ROOT", tmp_path)
    monkeypatch.setattr(settings, "_FROM_DOTENV", {})
    monkeypatch.setattr(settings, "_DOTENV_VALUES", {})
    return tmp_path


class Recorder(BaseHTTPRequestHandler):
    """Answers every POST with a chat completion ("pong") and keeps what it was sent."""

    seen: list[str] = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).seen.append(f"{self.path}\n{self.headers}\n{body.decode('utf-8', 'replace')}")
        answer = json.dumps(FakeLLM().completion("pong", {"messages": []})).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


@pytest.fixture
def class_server():
    """A stand-in for the teacher's model server on a loopback port: ``(base_url, requests seen)``."""
    handler = type("ClassModelServer", (Recorder,), {"seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler.seen
    server.shutdown()
    server.server_close()


@pytest.fixture
def network(monkeypatch):
    """Every request of a real client (``httpx2.HTTPTransport``) answered here, never sent: ``[(url, headers)]``."""
    seen: list[tuple[str, str]] = []

    def handle(self, request):
        headers = "".join(f"{name}: {value}\n" for name, value in request.headers.items())  # str() hides the key
        seen.append((str(request.url), headers + request.read().decode("utf-8", "replace")))
        return httpx2.Response(200, json=FakeLLM().completion("pong", {"messages": []}), request=request)

    monkeypatch.setattr(httpx2.HTTPTransport, "handle_request", handle)
    return seen


def outcome(call):
    """``call()``'s result, or the exception it raised (so a test can first check what went out)."""
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - the test looks at it
        return exc


def assert_no_key(text: str):
    assert FAKE_KEY not in text and FAKE_KEY[:12] not in text


def edit_env(path, drop: tuple[str, ...] = (), **values: str) -> None:
    """What a student does in an editor: set ``values`` (line replaced where it was, else added), drop lines."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines()
             if line.split("=", 1)[0] not in drop and line.split("=", 1)[0] not in values]
    path.write_text("\n".join([*lines, *(f"{k}={v}" for k, v in values.items())]) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- the scenario, end to end


def test_join_then_switch_to_an_own_deepseek_key_never_sends_it_to_the_class_server(project, class_server,
                                                                                      monkeypatch):
    base_url, seen = class_server
    port = int(base_url.rsplit(":", 1)[1].split("/")[0])
    handed_out = {"COURSE_PROVIDER": "classroom", "COURSE_BASE_URL": base_url, "COURSE_CLASS_KEY": CLASS_KEY,
                  "COURSE_PROGRESS_URL": f"http://127.0.0.1:{port}", "COURSE_STUDENT_NAME": "小明"}
    monkeypatch.setattr(class_code, "ask_service", lambda *args, **kwargs: dict(handed_out))
    code = class_code.make_code("127.0.0.1", port, class_code.new_secret())
    env = project / ".env"
    assert class_code.join(code, name="小明", env_path=env) == 0

    # In class: the class key goes to the class server.
    assert ping() == "pong"
    assert len(seen) == 1 and CLASS_KEY in seen[0]

    # At home: the student's own DeepSeek key, and the class address still in .env.
    edit_env(env, COURSE_PROVIDER="deepseek", DEEPSEEK_API_KEY=FAKE_KEY)
    result = outcome(ping)
    assert not any(FAKE_KEY in request for request in seen), "the paid key reached the class server"
    assert len(seen) == 1
    assert isinstance(result, ProviderError), result
    text = str(result)
    assert "COURSE_PROVIDER=deepseek" in text and f"COURSE_BASE_URL={base_url}" in text
    assert "COURSE_PROVIDER=classroom" in text and str(env) in text and "删掉" in text
    assert "DEEPSEEK_API_KEY" in text and "https://api.deepseek.com" in text
    assert_no_key(text)
    assert CLASS_KEY not in text

    # Either way on works: the class line removed (DeepSeek's own address) ...
    edit_env(env, drop=("COURSE_BASE_URL",))
    provider = get_provider()
    assert (provider.name, provider.base_url, provider.api_key) == ("deepseek", "https://api.deepseek.com", FAKE_KEY)
    # ... or back to the class server, with the class key only.
    edit_env(env, COURSE_PROVIDER="classroom", COURSE_BASE_URL=base_url)
    assert ping() == "pong"
    assert len(seen) == 2 and CLASS_KEY in seen[1] and FAKE_KEY not in seen[1]


@pytest.mark.parametrize("name", CLOUD)
def test_every_cloud_preset_refuses_the_class_address(monkeypatch, network, name):
    monkeypatch.setenv("COURSE_PROVIDER", name)
    monkeypatch.setenv(PRESETS[name].key_env, FAKE_KEY)
    monkeypatch.setenv("COURSE_BASE_URL", "http://192.168.1.23:8766/v1")
    result = outcome(ping)
    assert not any(FAKE_KEY in headers for _, headers in network), network
    assert isinstance(result, ProviderError), result
    text = str(result)
    assert f"COURSE_PROVIDER={name}" in text and "COURSE_BASE_URL=http://192.168.1.23:8766/v1" in text
    assert PRESETS[name].key_env in text and PRESETS[name].base_url in text and "COURSE_PROVIDER=classroom" in text
    assert "环境变量" in text  # the URL came from the environment, not .env: the fix says so
    assert_no_key(text)


# --------------------------------------------------------------------------- address tricks


@pytest.mark.parametrize("url", [
    "https://api.deepseek.com@evil.example/v1",      # userinfo: the real host is after the @
    "https://evil.example\\@api.deepseek.com/v1",    # a backslash some parsers read as a slash
    "https://user:pw@api.deepseek.com/v1",           # userinfo on the right host: no key with it
    "http://api.deepseek.com/v1",                    # the right host over plain http: the key in clear text
    "HTTP://API.DEEPSEEK.COM",                       # the same, shouted
    "https://api.deepseek.com:8443/v1",              # another port
    "https://api.deepseek.com:99999/v1",             # a port no URL parser accepts
    "https://api.deepseek.com.evil.example/v1",      # a host that only starts like it
    "https://evil.example/api.deepseek.com",         # the name in the path
    "https://evil.example#@api.deepseek.com",        # the name after a fragment
    "https://evil.example?@api.deepseek.com",        # the name after a query
    "https://api.deepseek.com./v1",                  # a trailing dot: not the preset's exact host
    "https://dashscope.aliyuncs.com/compatible-mode/v1",  # another provider's own address
])
def test_address_tricks_are_refused_before_any_request(monkeypatch, network, url):
    monkeypatch.setenv("COURSE_PROVIDER", "deepseek")
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    monkeypatch.setenv("COURSE_BASE_URL", url)
    result = outcome(ping)
    assert network == [] or not any(FAKE_KEY in headers for _, headers in network), network
    assert isinstance(result, ProviderError), (result, network)
    assert network == []
    text = str(result)
    assert "COURSE_PROVIDER=deepseek" in text and "COURSE_BASE_URL=" in text and "https://api.deepseek.com" in text
    assert_no_key(text)


def test_userinfo_in_the_address_is_never_shown(monkeypatch, network):
    monkeypatch.setenv("COURSE_PROVIDER", "openai")
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("COURSE_BASE_URL", "https://me:hunter2secret@relay.example/v1")
    with pytest.raises(ProviderError) as err:
        get_provider()
    text = str(err.value)
    assert "hunter2secret" not in text and "relay.example" in text and "@" in text
    assert network == []


def test_a_url_from_the_environment_is_named_as_such_with_the_dotenv_line_that_wins(monkeypatch):
    monkeypatch.setenv("COURSE_PROVIDER", "deepseek")
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    monkeypatch.setenv("COURSE_BASE_URL", "http://10.0.0.5:8766/v1")
    with pytest.raises(ProviderError) as err:
        get_provider()
    text = str(err.value)
    assert "环境变量" in text and "COURSE_BASE_URL=https://api.deepseek.com" in text


@pytest.mark.parametrize("url, expected", [
    ("https://API.DeepSeek.com/v1/", "https://API.DeepSeek.com/v1"),     # a host is case-blind
    ("https://api.deepseek.com:443/v1", "https://api.deepseek.com:443/v1"),  # https's own port written out
    ("https://api.deepseek.com/", "https://api.deepseek.com"),            # a trailing slash
    ("  https://api.deepseek.com/v1\n", "https://api.deepseek.com/v1"),   # spaces from an editor
    ("https://api.deepseek.com/chat/completions", "https://api.deepseek.com"),  # a curl example's URL
])
def test_the_presets_own_address_written_another_way_still_works(monkeypatch, network, url, expected):
    monkeypatch.setenv("COURSE_PROVIDER", "deepseek")
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    monkeypatch.setenv("COURSE_BASE_URL", url)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the curl URL's "/chat/completions was cut off" (said once per value)
        provider = get_provider()
    assert provider.base_url == expected
    assert ping(provider=provider) == "pong"
    assert len(network) == 1 and httpx2.URL(network[0][0]).host == "api.deepseek.com"
    assert FAKE_KEY in network[0][1]


# --------------------------------------------------------------------------- what the rule leaves alone


def test_custom_sends_its_own_key_wherever_the_student_points_it(monkeypatch, network):
    monkeypatch.setenv("COURSE_PROVIDER", "custom")
    monkeypatch.setenv("COURSE_MODEL", "relay-model")
    monkeypatch.setenv("COURSE_BASE_URL", "http://relay.example:8000/v1")
    monkeypatch.setenv("COURSE_API_KEY", FAKE_KEY)
    monkeypatch.setenv("DEEPSEEK_API_KEY", "s" + "k-" + "other" * 6)  # another provider's key, not used
    assert ping() == "pong"
    assert [url for url, _ in network] == ["http://relay.example:8000/v1/chat/completions"]
    assert FAKE_KEY in network[0][1] and "other" * 6 not in network[0][1]


def test_classroom_sends_the_class_key_to_the_class_address(monkeypatch, network):
    monkeypatch.setenv("COURSE_PROVIDER", "classroom")
    monkeypatch.setenv("COURSE_BASE_URL", "http://192.168.1.23:8766/v1")
    monkeypatch.setenv("COURSE_CLASS_KEY", CLASS_KEY)
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)  # left in .env from home: never sent to class
    assert ping() == "pong"
    assert [url for url, _ in network] == ["http://192.168.1.23:8766/v1/chat/completions"]
    assert CLASS_KEY in network[0][1]
    assert FAKE_KEY not in network[0][1]


@pytest.mark.parametrize("name", ["local", "ollama"])
def test_keyless_presets_may_point_anywhere(monkeypatch, network, name):
    monkeypatch.setenv("COURSE_PROVIDER", name)
    monkeypatch.setenv("COURSE_BASE_URL", "http://192.168.1.30:11434/v1")
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    provider = get_provider()
    assert provider.base_url == "http://192.168.1.30:11434/v1" and provider.api_key == ""
    assert ping(get_client(provider), provider) == "pong"
    assert [url for url, _ in network] == ["http://192.168.1.30:11434/v1/chat/completions"]
    assert FAKE_KEY not in network[0][1]


@pytest.mark.parametrize("name", CLOUD)
def test_a_cloud_preset_without_base_url_uses_its_own(monkeypatch, name):
    monkeypatch.setenv("COURSE_PROVIDER", name)
    monkeypatch.setenv(PRESETS[name].key_env, FAKE_KEY)
    assert get_provider().base_url == PRESETS[name].base_url
    assert PRESETS[name].base_url.startswith("https://")  # every cloud preset's own address is https
