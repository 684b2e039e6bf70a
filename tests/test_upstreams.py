"""The upstreams behind the class door (course_runtime/upstreams.py): which one a request goes to, which is down.

Two halves:

* the pool's rules with a fake clock and an ``httpx2.MockTransport`` as every
  upstream: the least busy choice, a failed upstream skipped until a check
  passes, the capacity, the ``--upstream`` spec and its Chinese errors, and the
  key nowhere it could be shown;
* two real llama-servers started as ``serve`` starts its own
  (``classroom.ClassModelServer``: the course's binary and model, the class key
  through ``--api-key-file``), on free loopback ports with a small context:
  the pool's check sees both, then one stopped, then it back.  Skipped without
  the compiled server and the model, except under ``CI=true``.
"""

from __future__ import annotations

import asyncio
import json
import re
import time

import httpx2
import pytest
from machine_support import free_port, model_server_available, skip_or_fail

from course_runtime import classroom, upstreams
from course_runtime.upstreams import Upstream, UpstreamError, UpstreamPool, parse_upstream

SECRET = "sk-" + "upstream-7f3a9c1e5b2d4f6a8c0e"  # built, so the repository scan (test_no_secrets) sees no key
CJK = re.compile(r"[\u4e00-\u9fff]")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def three() -> tuple[Upstream, Upstream, Upstream]:
    local = Upstream("本机 llama-server", "http://127.0.0.1:8766", key=SECRET, slots=4, kind="llama-server")
    gpu = Upstream("gpu-box", "http://gpu-box:8000/v1", key=SECRET, slots=2, model="Qwen/Qwen2.5-7B-Instruct")
    paid = Upstream("api.example.com", "https://api.example.com/v1/", key=SECRET, slots=1)
    return local, gpu, paid


def answering(statuses: dict[str, int | Exception]):
    """A mock client whose upstreams answer by host: a status, or an exception raised; records each request."""
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        outcome = statuses[request.url.host]
        if isinstance(outcome, Exception):
            raise outcome
        return httpx2.Response(outcome, json={"data": []})

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    return client, seen


def run(coro):
    return asyncio.run(coro)


async def check(pool: UpstreamPool, client: httpx2.AsyncClient, **options) -> list[bool]:
    async with client:
        return await pool.check(client, **options)


# --------------------------------------------------------------------------- one upstream


def test_the_v1_suffix_and_a_trailing_slash_are_dropped_and_paths_go_under_the_root():
    local, gpu, paid = three()
    assert local.root == "http://127.0.0.1:8766" and gpu.root == "http://gpu-box:8000"
    assert paid.root == "https://api.example.com"
    assert paid.url("/v1/chat/completions") == "https://api.example.com/v1/chat/completions"
    assert Upstream("x", "https://host/openai/v1").url("/v1/models") == "https://host/openai/v1/models"
    assert local.host == "127.0.0.1:8766" and paid.host == "api.example.com:443"
    assert Upstream("x", "http://[::1]:8000").host == "[::1]:8000"
    assert local.headers() == {"Authorization": f"Bearer {SECRET}"}
    assert Upstream("ollama", "http://laptop:11434/v1").headers() == {}


def test_the_model_is_put_into_the_body_only_where_one_is_named():
    local, gpu, _ = three()
    body = json.dumps({"model": "qwen2.5-coder-1.5b-instruct", "messages": [{"role": "user", "content": "你好"}],
                       "temperature": 0}, ensure_ascii=False).encode()
    assert local.chat_body(body) is body  # byte for byte: llama-server answers any name
    sent = json.loads(gpu.chat_body(body))
    assert sent["model"] == "Qwen/Qwen2.5-7B-Instruct"
    assert sent["messages"] == [{"role": "user", "content": "你好"}] and sent["temperature"] == 0
    assert gpu.chat_body(b"not json") == b"not json" and gpu.chat_body(b"[1]") == b"[1]"


def test_the_key_is_in_no_repr_str_snapshot_or_message():
    local, gpu, paid = three()
    pool = UpstreamPool([local, gpu, paid])
    pool.failed(gpu)
    shown = [repr(local), str(local), repr(gpu), repr(pool), str(pool), json.dumps(pool.snapshot(), ensure_ascii=False),
             classroom.describe_upstreams(pool)]
    for text in shown:
        assert SECRET not in text and "Bearer" not in text
    assert "gpu-box:8000" in str(pool) and "本机 llama-server" in repr(pool)
    assert set(pool.snapshot()[0]) == {"label", "host", "kind", "model", "healthy", "in_flight", "slots", "served",
                                       "failures", "problem", "down_for_s"}
    assert all("/" not in row["host"] for row in pool.snapshot())  # host:port only, no path
    # the same server with another key is the same upstream (the key is not compared)
    assert Upstream("a", "http://h:1", key="one") == Upstream("a", "http://h:1", key="two")


# --------------------------------------------------------------------------- choosing


def test_the_least_busy_healthy_upstream_is_picked_ties_in_the_order_given():
    local, gpu, paid = three()
    pool = UpstreamPool([local, gpu, paid])
    assert pool.pick() is local  # all idle: the first given
    pool.started(local)  # 1/4
    assert pool.pick() is gpu  # 0/2 beats 1/4
    pool.started(gpu)  # 1/2
    assert pool.pick() is paid  # 0/1
    pool.started(paid)  # 1/1
    assert pool.pick() is local  # 1/4 < 1/2 < 1/1
    pool.started(local), pool.started(local)  # 3/4
    assert pool.pick() is gpu  # 1/2 < 3/4
    pool.finished(paid)  # 0/1 again
    assert pool.pick() is paid
    assert pool.in_flight() == 4 and pool.in_flight(local) == 3
    assert [row["served"] for row in pool.snapshot()] == [0, 0, 1]


def test_only_a_llama_server_is_picked_for_what_only_llama_server_has_and_exclude_is_honoured():
    local, gpu, paid = three()
    pool = UpstreamPool([gpu, paid, local])
    assert pool.pick(kind_needed="llama-server") is local  # /tokenize, /apply-template, /metrics
    assert pool.pick() is gpu
    assert pool.pick(exclude=[gpu]) is paid
    assert pool.pick(exclude=[gpu, paid, local]) is None
    pool.failed(local)
    assert pool.pick(kind_needed="llama-server") is None and pool.pick() is gpu


def test_a_failed_upstream_is_skipped_until_a_check_passes_and_the_capacity_follows():
    local, gpu, paid = three()
    clock = Clock()
    pool = UpstreamPool([local, gpu, paid], clock=clock)
    assert pool.capacity() == 7
    pool.failed(local)
    assert pool.capacity() == 3 and not pool.healthy(local)
    assert all(pool.pick() is not local for _ in range(3))
    clock.now += 12.5
    row = pool.snapshot()[0]
    assert row["healthy"] is False and row["failures"] == 1 and row["problem"] == "connection"
    assert row["down_for_s"] == 12.5
    client, seen = answering({"127.0.0.1": 503, "gpu-box": 200, "api.example.com": 200})
    assert run(check(pool, client)) == [False, True, True]  # still loading its model: still down
    assert pool.snapshot()[0]["problem"] == "HTTP 503" and pool.capacity() == 3
    client, seen = answering({"127.0.0.1": 200, "gpu-box": 200, "api.example.com": 200})
    assert run(check(pool, client)) == [True, True, True]
    assert pool.pick() is local and pool.capacity() == 7
    assert pool.snapshot()[0]["down_for_s"] is None and pool.snapshot()[0]["problem"] is None


def test_the_check_asks_each_kind_its_own_way_with_its_key():
    local, gpu, _ = three()
    ollama = Upstream("laptop", "http://laptop:11434/v1", slots=1)
    pool = UpstreamPool([local, gpu, ollama])
    client, seen = answering({"127.0.0.1": 200, "gpu-box": 200, "laptop": 200})
    run(check(pool, client))
    asked = {r.url.host: (r.method, r.url.path, r.headers.get("authorization")) for r in seen}
    assert asked["127.0.0.1"] == ("GET", "/health", f"Bearer {SECRET}")
    assert asked["gpu-box"] == ("GET", "/v1/models", f"Bearer {SECRET}")
    assert asked["laptop"] == ("GET", "/v1/models", None)


@pytest.mark.parametrize("outcome, problem", [(401, "HTTP 401"), (404, "HTTP 404"),
                                              (httpx2.ConnectError("refused"), "connection"),
                                              (httpx2.ReadTimeout("slow"), "timeout")])
def test_a_failing_check_marks_an_upstream_down(outcome, problem):
    local, gpu, paid = three()
    pool = UpstreamPool([local, gpu, paid])
    client, _ = answering({"127.0.0.1": 200, "gpu-box": outcome, "api.example.com": 200})
    assert run(check(pool, client)) == [True, False, True]
    assert pool.snapshot()[1]["problem"] == problem and pool.capacity() == 5
    assert pool.snapshot()[1]["failures"] == 0  # a check is no failed request


def test_a_check_that_never_answers_ends_at_its_deadline(monkeypatch):
    monkeypatch.setattr(upstreams, "CHECK_TIMEOUT_S", 0.2)
    local, gpu, _ = three()
    pool = UpstreamPool([local, gpu])

    class Hanging:
        async def get(self, url, **options):
            await asyncio.sleep(30)

    began = time.monotonic()
    assert run(pool.check(Hanging())) == [False, False]
    assert time.monotonic() - began < 5 and pool.snapshot()[0]["problem"] == "timeout"


def test_only_the_down_ones_are_checked_when_asked():
    local, gpu, paid = three()
    pool = UpstreamPool([local, gpu, paid])
    pool.failed(gpu)
    client, seen = answering({"127.0.0.1": 200, "gpu-box": httpx2.ConnectError("refused"), "api.example.com": 200})
    assert run(check(pool, client, only_down=True)) == [True, False, True]
    assert [r.url.host for r in seen] == ["gpu-box"]


def test_watch_rechecks_the_down_ones_each_round_and_all_of_them_now_and_then():
    pool = UpstreamPool(three())
    rounds: list[bool] = []

    async def recorded(client, only_down=False):
        rounds.append(only_down)
        if len(rounds) == 2 * upstreams.HEALTHY_EVERY:
            raise asyncio.CancelledError
        return []

    pool.check = recorded
    with pytest.raises(asyncio.CancelledError):
        run(pool.watch(object(), every_s=0))
    everyone = [n for n, only_down in enumerate(rounds, 1) if not only_down]
    assert everyone == [upstreams.HEALTHY_EVERY, 2 * upstreams.HEALTHY_EVERY]


def test_the_same_server_twice_is_refused():
    with pytest.raises(UpstreamError) as err:
        UpstreamPool([Upstream("a", "http://gpu:8000"), Upstream("b", "http://gpu:8000/v1/")])
    assert "gpu:8000" in str(err.value) and CJK.search(str(err.value))


def test_a_pool_refuses_an_upstream_it_does_not_hold():
    local, gpu, _ = three()
    with pytest.raises(ValueError):
        UpstreamPool([local]).started(gpu)


# --------------------------------------------------------------------------- --upstream


def test_a_spec_with_every_option():
    spec = "http://gpu:8000/v1,slots=16,key_env=VLLM_KEY,model=Qwen/Qwen2.5-7B-Instruct,kind=openai-compatible,label=机房 GPU"
    u = parse_upstream(spec, {"VLLM_KEY": f"  {SECRET}\n"})
    assert (u.root, u.slots, u.key, u.model, u.kind, u.label) == (
        "http://gpu:8000", 16, SECRET, "Qwen/Qwen2.5-7B-Instruct", "openai-compatible", "机房 GPU")
    assert SECRET not in repr(u)


def test_a_spec_with_only_a_url_has_the_defaults():
    u = parse_upstream("http://laptop.local:11434/v1", {})
    assert (u.root, u.slots, u.key, u.model, u.kind, u.label) == (
        "http://laptop.local:11434", 1, "", None, "openai-compatible", "laptop.local")
    assert parse_upstream("http://10.0.0.7:8080 , kind=llama-server , slots=4", {}).kind == "llama-server"


@pytest.mark.parametrize("spec, words", [
    ("gpu-box:8000", ["gpu-box:8000", "http://"]),  # no scheme
    ("ftp://gpu-box:8000", ["ftp://gpu-box:8000"]),
    ("", ["http://"]),
    ("http://:8000", ["http://"]),
    ("http://gpu:99999", ["gpu:99999"]),
    ("http://gpu:8000,slots=0", ["slots", "0"]),
    ("http://gpu:8000,slots=-2", ["slots", "-2"]),
    ("http://gpu:8000,slots=many", ["slots", "many"]),
    ("http://gpu:8000,kind=vllm", ["vllm", "llama-server", "openai-compatible"]),
    ("http://gpu:8000,slot=4", ["slot=", "第 1 项"]),
    ("http://gpu:8000,slots=2,slots=4", ["slots=", "第 2 项"]),
    ("http://gpu:8000,key_env=NOT_SET_ANYWHERE", ["NOT_SET_ANYWHERE", ".env", "key_env"]),
    ("http://gpu:8000,key_env=EMPTY", ["EMPTY"]),
])
def test_a_wrong_spec_is_explained_in_chinese(spec, words):
    with pytest.raises(UpstreamError) as err:
        parse_upstream(spec, {"EMPTY": "  "})
    text = str(err.value)
    assert CJK.search(text), text
    for word in words:
        assert word in text, (word, text)


@pytest.mark.parametrize("spec", [f"http://user:{SECRET}@gpu:8000", f"http://gpu:8000/v1?api_key={SECRET}",
                                  f"http://gpu:8000,key={SECRET}", f"http://gpu:8000,{SECRET}",
                                  f"http://gpu:8000#{SECRET}"])
def test_a_key_written_into_the_spec_is_refused_and_not_repeated(spec):
    with pytest.raises(UpstreamError) as err:
        parse_upstream(spec, {})
    assert SECRET not in str(err.value) and "key_env" in str(err.value)


def test_the_key_comes_from_the_named_variable_never_the_command_line():
    u = parse_upstream("https://api.example.com/v1,key_env=PAID_KEY", {"PAID_KEY": SECRET})
    assert u.key == SECRET and u.headers()["Authorization"] == f"Bearer {SECRET}"


# --------------------------------------------------------------------------- two real llama-servers


@pytest.fixture
def small_servers(tmp_path, monkeypatch):
    if not model_server_available():
        skip_or_fail("no llama-server or model here (python course.py setup builds them)")
    monkeypatch.setenv("COURSE_LOCAL_CTX", "512")  # two servers on a small machine: a small context each
    key_file = tmp_path / ".class-key"
    key = classroom.class_key(key_file)
    servers = [classroom.ClassModelServer("127.0.0.1", free_port(), slots=1, key_file=key_file,
                                     log=tmp_path / f"server-{n}.log") for n in (1, 2)]
    try:
        for server in servers:
            server.start()
        for server in servers:
            server.wait()
        yield servers, key
    finally:
        for server in servers:
            server.stop()


def test_two_real_servers_one_stopped_and_back(small_servers):
    servers, key = small_servers
    first, second = (Upstream(f"llama-server {n}", s.root, key=key, slots=s.slots, kind="llama-server")
                     for n, s in enumerate(servers, 1))
    pool = UpstreamPool([first, second])

    def check_now() -> list[bool]:
        return run(check(pool, upstreams.make_client(pool.upstreams)))

    began = time.monotonic()
    assert check_now() == [True, True] and pool.capacity() == 2
    # the key the pool holds is the one the servers want (/metrics needs it)
    for server in servers:
        assert httpx2.get(f"{server.root}/metrics", headers=first.headers(), timeout=30).status_code == 200
        assert httpx2.get(f"{server.root}/metrics", timeout=30).status_code == 401
    servers[0].stop()
    assert check_now() == [False, True]
    assert pool.pick() is second and pool.pick(kind_needed="llama-server") is second and pool.capacity() == 1
    assert pool.snapshot()[0]["problem"] == "connection"
    servers[0].start().wait()
    assert check_now() == [True, True]
    assert pool.pick() is first and pool.capacity() == 2
    print(f"stop and restart of one of two real servers: {time.monotonic() - began:.1f} s")
