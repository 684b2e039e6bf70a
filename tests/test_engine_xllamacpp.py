"""The xllamacpp engine (the offline model on macOS and Linux aarch64) served the course's way, checked on Linux.

Its wheel installs on Linux x86-64 too, so CI runs the very launcher a Mac
student runs (``python -m course_runtime.xllamacpp_server`` with the course's
flags, under the guard of ``server_process``), through ``local_server`` as a
notebook starts it, and then ``bench.server_check`` - every client-side
feature the notebooks use - against it.  What differs on a Mac (its own
wheel, Metal off, the CPU) is not measured here (docs/models-and-engines.md, "Every laptop").
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest

from course_runtime import local_server, server_process
from machine_support import free_port

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def xl_server(tmp_path_factory):
    pytest.importorskip("xllamacpp")
    try:
        gguf = local_server.model_path()
    except local_server.LocalModelError:
        if os.environ.get("CI") == "true":
            pytest.fail("CI needs the model (python course.py setup)")
        pytest.skip("no model here (python course.py setup)")
    cache = tmp_path_factory.mktemp("xl-cache")
    port = free_port()
    saved = {k: os.environ.get(k) for k in ("COURSE_ENGINE", "COURSE_LOCAL_PORT", "COURSE_CACHE_DIR", "COURSE_GGUF_PATH")}
    os.environ.update(COURSE_ENGINE="xllamacpp", COURSE_LOCAL_PORT=str(port), COURSE_CACHE_DIR=str(cache),
                      COURSE_GGUF_PATH=str(gguf))
    started = time.monotonic()
    try:
        url = local_server.ensure_server()
        yield {"url": url, "root": url.removesuffix("/v1"), "port": port, "cache": cache,
               "start_s": time.monotonic() - started}
    finally:
        local_server.stop_server()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_it_runs_the_courses_launcher_under_a_guard_owned_by_this_process(xl_server):
    state = server_process.read_state(xl_server["cache"] / local_server._state_path().name)
    assert state["command"][1:3] == ["-m", "course_runtime.xllamacpp_server"]
    assert state["engine"].startswith("xllamacpp: xllamacpp==")
    assert server_process.identity() in state["owners"]
    assert server_process.alive(state["server_pid"])


def test_server_check_passes_against_it(xl_server):
    """The same check a teacher runs against a vLLM or Ollama server: plain, streamed, tools, the agent."""
    env = {**os.environ, "COURSE_IGNORE_DOTENV": "1"}
    done = subprocess.run([sys.executable, "-m", "bench.server_check", xl_server["url"]], cwd=ROOT, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=600)
    print(done.stdout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_the_endpoints_the_course_uses_are_there(xl_server):
    root = xl_server["root"]
    assert local_server.health(root=root) == "ok"
    assert local_server.clear_prompt_cache() is not None  # POST /slots/0?action=erase, as every notebook's set-up
    tokens = httpx2.post(f"{root}/tokenize", json={"content": "你好"}, timeout=30).json()["tokens"]
    assert tokens and all(isinstance(n, int) for n in tokens)
    prompt = httpx2.post(f"{root}/apply-template", timeout=30,
                        json={"messages": [{"role": "user", "content": "hi"}]}).json()["prompt"]
    assert "<|im_start|>user\nhi<|im_end|>" in prompt  # the course's chat template, not the GGUF's
    reply = httpx2.post(f"{root}/v1/chat/completions", timeout=300, json={
        "model": local_server.MODEL_ALIAS, "max_tokens": 8, "temperature": 0,
        "messages": [{"role": "user", "content": "1+1=?"}]}).json()
    assert reply["usage"]["completion_tokens"] >= 1 and reply["timings"]["predicted_n"] >= 1
    assert httpx2.get(f"{root}/", timeout=30).status_code >= 400, "the web UI is off (--no-webui)"


def test_stop_server_stops_it(xl_server):
    state = server_process.read_state(xl_server["cache"] / local_server._state_path().name)
    assert local_server.stop_server()
    assert not server_process.alive(state["server_pid"]) and local_server.health() is None
    local_server.ensure_server()  # the module's teardown stops the new one
