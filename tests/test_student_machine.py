"""The student's own machine (issue 11, item 5): proxies, SOCKS, .env versus the environment.

Real sockets on loopback only: a tiny chat server, a "proxy" that answers 502,
and a closed port standing for a proxy that is not running.  No request
leaves the machine (a remote URL is only ever handed to a loopback proxy).
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from fakes import FakeLLM

from course_lib import providers
from course_runtime import http_client, local_server, provider_checks, settings
from course_lib.providers import PRESETS, Provider, ProviderError, get_client, get_provider, ping
from course_lib.replies import describe_error
from course_lib.widgets import ChatSession

PROXY_VARS = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy"]
FAKE_KEY = "s" + "k-" + "Stale0Env1Key2" * 3
GOOD_KEY = "s" + "k-" + "Good0Dotenv1Key" * 3


@pytest.fixture(autouse=True)
def clean(monkeypatch):
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    for name in [*PROXY_VARS, "COURSE_PROVIDER", "COURSE_MODEL", "COURSE_BASE_URL", "COURSE_EXTRA_BODY",
                 "DEEPSEEK_API_KEY", "OPENAI_API_KEY", "COURSE_API_KEY"]:
        monkeypatch.delenv(name, raising=False)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Handler(BaseHTTPRequestHandler):
    status = 200

    def log_message(self, *args):  # quiet
        pass

    def _answer(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 - http.server's name
        self.server.paths.append(self.path)
        self._answer(self.server.status, {"status": "ok"})

    def do_POST(self):  # noqa: N802
        self.server.paths.append(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.server.status != 200:
            self._answer(self.server.status, {"error": {"message": "Bad Gateway"}})
        else:
            self._answer(200, FakeLLM().completion("pong", body))


@pytest.fixture
def server():
    """A chat server on 127.0.0.1 (``.status`` to change its answer; ``.paths`` what it was asked)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.status, httpd.paths = 200, []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def provider(name: str, base_url: str, key: str = "", model: str = "m") -> Provider:
    return Provider(PRESETS[name], base_url, model, key, key_source="environment" if key else None)


# --------------------------------------------------------------------------- loopback never through a proxy


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_endpoint_ignores_the_environment_proxy(monkeypatch, server, host):
    """Ollama at http://localhost:11434/v1 with a system proxy tool's HTTP_PROXY set and NO_PROXY unset."""
    dead_proxy = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("HTTP_PROXY", dead_proxy)
    monkeypatch.setenv("ALL_PROXY", dead_proxy)
    prov = provider("ollama", f"http://{host}:{server.server_address[1]}/v1")
    assert ping(get_client(prov, max_retries=0), prov) == "pong"
    assert ChatSession(get_client(prov, max_retries=0), "m").send("你好") == "pong"
    assert server.paths == ["/v1/chat/completions"] * 2


def test_local_server_health_check_ignores_the_environment_proxy(monkeypatch, server):
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("COURSE_LOCAL_PORT", str(server.server_address[1]))
    assert local_server.health() == "ok"
    assert server.paths == ["/health"]


@pytest.mark.parametrize("url, loopback", [("http://localhost:11434/v1", True), ("http://127.0.0.1:8765/v1", True),
                                           ("http://127.3.0.1/v1", True), ("http://[::1]:11434/v1", True),
                                           ("http://192.168.1.5:11434/v1", False), ("https://api.deepseek.com", False),
                                           ("http://localhost.example.com/v1", False)])
def test_is_loopback(url, loopback):
    assert http_client.is_loopback(url) is loopback


# --------------------------------------------------------------------------- a remote provider through a proxy


def test_remote_provider_behind_a_proxy_that_is_not_running_names_the_variable(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{closed_port()}")
    prov = provider("custom", "http://api.remote.test/v1")
    client = get_client(prov, max_retries=0)
    with pytest.raises(ProviderError) as err:
        ping(client, prov)
    assert "HTTP_PROXY" in str(err.value) and "连不上" in str(err.value) and "NO_PROXY" in str(err.value)
    session = ChatSession(client, "m")
    assert session.send("你好") is None and "HTTP_PROXY" in session.error  # the chat box names it too


def test_remote_provider_behind_a_proxy_that_answers_502(monkeypatch, server):
    server.status = 502
    monkeypatch.setenv("https_proxy", "")  # empty values do not count
    monkeypatch.setenv("all_proxy", f"http://127.0.0.1:{server.server_address[1]}")
    prov = provider("custom", "http://api.remote.test/v1")
    with pytest.raises(ProviderError) as err:
        ping(get_client(prov, max_retries=0), prov)
    text = str(err.value)
    assert "HTTP 502" in text and "all_proxy" in text
    assert server.paths == ["http://api.remote.test/v1/chat/completions"]  # the proxy got it, nothing else


def test_no_proxy_is_respected(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    assert http_client.proxy_variable("https://api.deepseek.com/v1") == "HTTPS_PROXY"
    monkeypatch.setenv("NO_PROXY", "deepseek.com")
    assert http_client.proxy_variable("https://api.deepseek.com/v1") is None
    assert http_client.proxy_variable("http://localhost:11434/v1") is None


# --------------------------------------------------------------------------- ALL_PROXY=socks5://


@pytest.mark.parametrize("var, value", [("ALL_PROXY", "socks5://127.0.0.1:1080"), ("all_proxy", "socks5h://127.0.0.1:7890"),
                                        ("HTTPS_PROXY", "socks5://127.0.0.1:1080")])
def test_socks_proxy_without_socksio_is_a_course_error(monkeypatch, var, value):
    monkeypatch.setenv(var, value)
    monkeypatch.setitem(sys.modules, "socksio", None)  # as on a machine where it is not installed
    with pytest.raises(ProviderError) as err:
        get_client(provider("deepseek", "https://api.deepseek.com", key=FAKE_KEY))
    text = str(err.value)
    assert var in text and "socksio" in text and "course.py setup" in text and f"unset {var}" in text
    assert FAKE_KEY not in text


def test_socks_proxy_does_not_matter_for_loopback(monkeypatch, server):
    monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:1080")
    monkeypatch.setitem(sys.modules, "socksio", None)
    prov = provider("ollama", f"http://localhost:{server.server_address[1]}/v1")
    assert ping(get_client(prov, max_retries=0), prov) == "pong"


def test_socksio_is_in_the_requirements():
    text = (settings.PROJECT_ROOT / "requirements-client.txt").read_text(encoding="utf-8")  # also a classroom laptop
    assert any(line.startswith("socksio==") for line in text.splitlines())


# --------------------------------------------------------------------------- .env versus the environment


@pytest.fixture
def dotenv(monkeypatch, tmp_path):
    """A project root with its own .env; load_env's memory starts empty and is put back afterwards."""
    monkeypatch.delenv("COURSE_IGNORE_DOTENV")
    monkeypatch.setattr(settings, "PROJECT_ROOT", tmp_path)
    monkeypatch.setattr(providers, "PROJECT_ROOT", tmp_path)
    monkeypatch.setattr(provider_checks, "PROJECT_ROOT", tmp_path)
    monkeypatch.setattr(settings, "_FROM_DOTENV", {})
    monkeypatch.setattr(settings, "_DOTENV_VALUES", {})
    path = tmp_path / ".env"
    yield path


def test_dotenv_wins_over_a_stale_exported_key_and_says_so(monkeypatch, dotenv):
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)  # exported in ~/.bashrc long ago
    dotenv.write_text(f"COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY={GOOD_KEY}\n", encoding="utf-8")
    prov = get_provider()
    assert prov.api_key == GOOD_KEY and prov.key_source == ".env"
    assert prov.describe()["api_key"] == "已设置（DEEPSEEK_API_KEY，来自.env）"
    assert GOOD_KEY not in str(prov.describe()) and GOOD_KEY not in repr(prov)


def test_editing_dotenv_takes_effect_without_a_restart(monkeypatch, dotenv):
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    dotenv.write_text(f"COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY={GOOD_KEY}\nCOURSE_MODEL=deepseek-reasoner\n", encoding="utf-8")
    assert get_provider().model == "deepseek-reasoner"
    dotenv.write_text("COURSE_PROVIDER=ollama\n", encoding="utf-8")  # the student switches provider and removes the key line
    prov = get_provider()
    assert prov.name == "ollama" and prov.model == PRESETS["ollama"].model  # COURSE_MODEL is gone again
    # The key line was removed from .env: the environment's own value is back, and known as such.
    import os

    assert os.environ["DEEPSEEK_API_KEY"] == FAKE_KEY and settings.source_of("DEEPSEEK_API_KEY") == "environment"
    assert "COURSE_MODEL" not in os.environ


def test_source_ids_are_neutral_and_shown_in_the_course_language():
    """source_of gives ids; the words a student reads come from texts.py (an English edition switches there)."""
    assert settings.source_label(settings.SOURCE_ENVIRONMENT) == "环境变量"
    assert settings.source_label(settings.SOURCE_DOTENV) == ".env"
    assert settings.source_label(None) is None
    assert all("\u4e00" > ch or ch > "\u9fff" for ch in settings.SOURCE_ENVIRONMENT + settings.SOURCE_DOTENV)


def test_a_401_says_where_the_key_came_from(monkeypatch, dotenv):
    fake = FakeLLM([httpx_error(401)] * 2)
    monkeypatch.setenv("DEEPSEEK_API_KEY", FAKE_KEY)
    dotenv.write_text("COURSE_PROVIDER=deepseek\n", encoding="utf-8")  # the key is only in the environment
    prov = get_provider()
    with pytest.raises(ProviderError) as err:
        ping(fake.client(), prov)
    text = str(err.value)
    assert "来自环境变量" in text and "~/.bashrc" in text and "DEEPSEEK_API_KEY" in text and FAKE_KEY not in text
    dotenv.write_text(f"COURSE_PROVIDER=deepseek\nDEEPSEEK_API_KEY={GOOD_KEY}\n", encoding="utf-8")
    with pytest.raises(ProviderError) as err:
        ping(fake.client(), get_provider())
    text = str(err.value)
    assert "来自.env" in text and ".env 里的 DEEPSEEK_API_KEY" in text and GOOD_KEY not in text


def test_a_value_set_in_a_cell_after_loading_is_the_environments(monkeypatch, dotenv):
    dotenv.write_text("COURSE_MODEL=from-dotenv\n", encoding="utf-8")
    settings.load_env()
    assert settings.source_of("COURSE_MODEL") == ".env"
    monkeypatch.setenv("COURSE_MODEL", "from-a-cell")
    assert settings.source_of("COURSE_MODEL") == "environment"
    dotenv.write_text("", encoding="utf-8")
    settings.load_env()  # the line is gone from .env, but the value now is not .env's: it stays
    import os

    assert os.environ["COURSE_MODEL"] == "from-a-cell"


def httpx_error(status: int):
    import httpx2

    return httpx2.Response(status, json={"error": {"message": "Incorrect API key provided", "code": status}})


def test_describe_and_errors_never_show_the_key_from_either_place(monkeypatch, dotenv):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    prov = get_provider("openai")
    assert prov.key_source == "environment" and FAKE_KEY not in str(prov.describe())
    with pytest.raises(ProviderError) as err:
        ping(FakeLLM([httpx_error(401)]).client(), prov)
    assert FAKE_KEY not in str(err.value) and "OPENAI_API_KEY" in str(err.value)
    assert describe_error(err.value).count("OPENAI_API_KEY") >= 1
