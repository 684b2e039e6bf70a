"""The offline model's server and its neighbourhood on a student's laptop (issue 41, parts 2 and 5).

* Every file the course names to llama-server is one the Windows build can open: relative to the
  server's folder, in ASCII, whatever the course folder or the user's folder is called (llama.cpp's
  Windows build opens ``--chat-template-file`` / ``--api-key-file`` / ``--slot-save-path`` through the
  ANSI code page; tests/test_windows_engine.py runs the real one under Wine).
* Another program on the course's port is never taken for the course's server, and a port held by
  another program is named with what to do.
* ``local_server stop`` never signals a process that got a recorded pid later.
* A change of the wall clock does not make a live kernel look gone (the guard would stop its server).
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from course_runtime import classroom, local_server, server_process
from machine_support import free_port, wait_until

FILE_FLAGS = ("--model", "--chat-template-file", "--api-key-file", "--slot-save-path")
CJK = "张三"


@pytest.fixture
def chinese_cache(tmp_path, monkeypatch) -> Path:
    """The course cache in a user folder named with Chinese characters and a space."""
    cache = tmp_path / "用户 张三" / ".cache" / "llm-agent-course"
    monkeypatch.setenv("COURSE_CACHE_DIR", str(cache))
    return local_server.cache_dir()


def file_flags(flags: list[str]) -> dict[str, str]:
    return {flag: flags[i + 1] for i, flag in enumerate(flags[:-1]) if flag in FILE_FLAGS}


# --------------------------------------------------------------------------- part 2: names the engine can open
@pytest.mark.parametrize("server", ["student", "class"])
def test_every_file_flag_is_a_relative_ascii_name_in_the_server_folder(chinese_cache, tmp_path, server):
    gguf = chinese_cache / local_server.GGUF_NAME
    gguf.write_bytes(b"GGUF")
    if server == "student":
        flags = local_server.server_flags(gguf)
    else:
        key = classroom.server_key_file()
        key.write_text("course-class-key\n", encoding="utf-8")
        # classroom.serve_args's flags (it adds the program, which needs an engine installed)
        flags = local_server.server_flags(gguf, host="0.0.0.0", port_=8766, parallel=4, slot_actions=False,
                                          api_key_file=key, metrics=True)
    files = file_flags(flags)
    assert set(files) == ({"--model", "--chat-template-file", "--slot-save-path"} if server == "student"
                          else {"--model", "--chat-template-file", "--api-key-file"})
    folder = local_server.server_folder()
    assert CJK in str(folder)
    for flag, value in files.items():
        assert value.isascii() and not Path(value).is_absolute() and "\\" not in value, (flag, value)
        assert (folder / value).exists(), (flag, value)  # it names a file that is there, from the server's folder
    template = folder / files["--chat-template-file"]
    assert template.read_bytes() == local_server.TEMPLATE_PATH.read_bytes()


def test_a_key_file_outside_the_server_folder_is_copied_in(chinese_cache, tmp_path):
    key = tmp_path / "老师 的文件" / "class key.txt"
    key.parent.mkdir()
    key.write_text("course-class-key\n", encoding="utf-8")
    flags = local_server.server_flags(chinese_cache / local_server.GGUF_NAME, slot_actions=False, api_key_file=key)
    name = file_flags(flags)["--api-key-file"]
    assert name.isascii() and not Path(name).is_absolute()
    assert (local_server.server_folder() / name).read_bytes() == key.read_bytes()


def test_the_template_copy_follows_the_course_template(chinese_cache, monkeypatch, tmp_path):
    """A changed template (a new course version) is copied again, never served stale."""
    local_server.server_flags(chinese_cache / local_server.GGUF_NAME)
    changed = tmp_path / "chat_template.jinja"
    changed.write_text("{{ messages }} changed", encoding="utf-8")
    monkeypatch.setattr(local_server, "TEMPLATE_PATH", changed)
    flags = local_server.server_flags(chinese_cache / local_server.GGUF_NAME)
    assert (local_server.server_folder() / file_flags(flags)["--chat-template-file"]).read_text(
        encoding="utf-8") == "{{ messages }} changed"


def test_a_model_outside_the_folder_keeps_its_full_path(chinese_cache, tmp_path):
    """COURSE_GGUF_PATH may point anywhere: llama.cpp opens the model through ggml_fopen (UTF-16 on Windows)."""
    elsewhere = tmp_path / "D 盘" / "模型.gguf"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(b"GGUF")
    assert file_flags(local_server.server_flags(elsewhere))["--model"] == str(elsewhere)


def test_the_guard_starts_the_server_in_the_server_folder(chinese_cache, tmp_path):
    state, log = tmp_path / "state.json", tmp_path / "server.log"
    command = [sys.executable, "-c", "import os, pathlib; print('cwd=' + os.getcwd()); "
               "print('template=' + pathlib.Path('chat_template.jinja').read_text(encoding='utf-8')[:5])"]
    (chinese_cache / "chat_template.jinja").write_text("{# hi #}", encoding="utf-8")
    guard = server_process.start_guarded(command, state, log, owners=False, cwd=chinese_cache,
                                         env=dict(os.environ, PYTHONIOENCODING="utf-8"))
    assert guard.wait(60) == 0
    text = log.read_text(encoding="utf-8")
    assert f"cwd={chinese_cache}" in text and "template={# hi" in text, text


def test_a_windows_exe_outside_windows_runs_under_wine(monkeypatch, tmp_path):
    exe = tmp_path / "llama-server.exe"
    exe.write_bytes(b"MZ")
    monkeypatch.setenv("COURSE_LLAMA_SERVER", str(exe))
    monkeypatch.setattr(local_server.platforms, "is_windows", lambda: False)
    monkeypatch.setattr(local_server.shutil, "which", lambda name: "/usr/bin/wine" if name == "wine" else None)
    program = local_server.server_program()
    assert program == ["/usr/bin/wine", str(exe)]
    env = local_server.server_env(program)
    assert env is not None and "msvcp140" in env["WINEDLLOVERRIDES"]
    monkeypatch.setattr(local_server.shutil, "which", lambda name: None)
    with pytest.raises(local_server.LocalModelError, match="wine"):
        local_server.server_program()


def test_the_xllamacpp_launcher_finds_this_course_lib_from_the_server_folder(monkeypatch):
    env = local_server.server_env([sys.executable, "-m", "course_runtime.xllamacpp_server"])
    from course_runtime.settings import PROJECT_ROOT

    assert env["PYTHONPATH"].split(os.pathsep)[0] == str(PROJECT_ROOT)
    assert local_server.server_env(["/usr/bin/llama-server"]) is None


# --------------------------------------------------------------------------- part 5: the port
class _Answers(http.server.BaseHTTPRequestHandler):
    """Another program on the course's port: 200 on /health, its own model at /v1/models."""

    def do_GET(self):  # noqa: N802 - http.server's spelling
        body = json.dumps({"object": "list", "data": [{"id": "llama3.2:latest"}]}).encode() \
            if self.path == "/v1/models" else b'{"status": "ok"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def no_spawn(monkeypatch, tmp_path):
    """The cache in tmp_path; _spawn records instead of starting llama-server."""
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    spawned = []
    monkeypatch.setattr(local_server, "_spawn", lambda keep=False, port_=None: spawned.append(port_))
    return spawned


def test_another_program_answering_health_on_the_port_is_not_taken_for_the_course_server(no_spawn, monkeypatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("COURSE_LOCAL_PORT", str(server.server_address[1]))
        assert local_server.health() == "ok"
        with pytest.raises(local_server.LocalModelError) as info:
            local_server.ensure_server(timeout=5)
    finally:
        server.shutdown()
        server.server_close()
    said = str(info.value)
    assert "llama3.2:latest" in said and str(server.server_address[1]) in said and "COURSE_LOCAL_PORT" in said
    assert not no_spawn


def test_the_course_server_is_told_by_its_model_alias(monkeypatch):
    class Course(_Answers):
        def do_GET(self):  # noqa: N802
            body = json.dumps({"data": [{"id": local_server.MODEL_ALIAS}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Course)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        root = f"http://127.0.0.1:{server.server_address[1]}"
        assert local_server.served_models(root=root) == [local_server.MODEL_ALIAS]
        monkeypatch.setenv("COURSE_LOCAL_PORT", str(server.server_address[1]))
        local_server._check_is_course_server()  # the course's server: no error
    finally:
        server.shutdown()
        server.server_close()
    assert local_server.served_models(root=f"http://127.0.0.1:{free_port()}") is None


def test_a_port_held_by_a_program_that_is_not_a_server_is_named_with_what_to_do(no_spawn, monkeypatch):
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)  # listens, never answers HTTP
    port = holder.getsockname()[1]
    try:
        monkeypatch.setenv("COURSE_LOCAL_PORT", str(port))
        monkeypatch.setattr(local_server, "health", lambda *a, **k: None)  # no HTTP answer (without the 2 s wait)
        with pytest.raises(local_server.LocalModelError) as info:
            local_server.ensure_server(timeout=5)
    finally:
        holder.close()
    said = str(info.value)
    assert str(port) in said and "COURSE_LOCAL_PORT" in said and ("netstat" in said or "lsof" in said)
    assert not no_spawn, "the course must not start llama-server on a port another program holds"


def test_a_free_port_and_a_just_closed_one_are_not_in_use():
    port = free_port()
    assert not local_server.port_in_use(port)
    with socket.socket() as listener:  # a connection closed by the server side leaves TIME_WAIT behind
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        closed = listener.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", closed))
        conn, _ = listener.accept()
        conn.close()
        client.close()
    assert not local_server.port_in_use(closed)


def test_the_class_server_names_a_port_held_by_another_program(monkeypatch, tmp_path):
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    try:
        port = holder.getsockname()[1]
        monkeypatch.setattr(local_server, "health", lambda *a, **k: None)
        server = classroom.ClassModelServer("127.0.0.1", port, log=tmp_path / "class.log")
        with pytest.raises(local_server.LocalModelError, match=str(port)):
            server.start()
        assert server.process is None
    finally:
        holder.close()


# --------------------------------------------------------------------------- part 5: pids and the clock
def test_stop_never_signals_a_process_that_got_a_recorded_pid_later(monkeypatch, tmp_path):
    """The state file names pid P (a server long gone); P now belongs to an unrelated program."""
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        real = server_process.identity(other.pid)
        gone = [other.pid, real[1] - 3600.0]  # the same number, recorded for a process an hour older
        server_process.write_state(local_server._state_path(), {"pid": other.pid, "server_pid": other.pid,
                                                                "guard": gone, "server": gone, "owners": None})
        assert local_server.stop_server(timeout=2) is False
        time.sleep(0.3)
        assert other.poll() is None, "local_server stop killed a process that only had a recorded pid"
        assert local_server.status().pid is None
        assert not server_process.stop(other.pid, timeout=2, who=gone)
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_stop_ends_the_very_processes_it_recorded(tmp_path):
    state, log = tmp_path / "state.json", tmp_path / "log.txt"
    guard = server_process.start_guarded([sys.executable, "-c", "import time; time.sleep(60)"], state, log, owners=False)
    assert wait_until(lambda: server_process.read_state(state).get("server"), 30)
    recorded = server_process.read_state(state)
    running = server_process.still_running(recorded)
    assert len(running) == 2  # the server, then its guard
    assert server_process.stop(running[0][0], timeout=5, who=running[0])  # the guard ends with its server
    assert guard.wait(20) is not None
    assert not server_process.still_running(recorded)


@pytest.mark.skipif(not sys.platform.startswith(("linux", "darwin")),
                    reason="psutil's create_time follows the wall clock on Linux and macOS only")
def test_a_wall_clock_step_does_not_make_a_live_process_look_gone(monkeypatch):
    """NTP sets the clock an hour forward after the identity was recorded: the kernel is still alive."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        recorded = server_process.identity(child.pid)
        platform_module = sys.modules[psutil.Process(child.pid)._proc.__class__.__module__]
        real_boot_time = platform_module.boot_time
        before = psutil.Process(child.pid).create_time()
        monkeypatch.setattr(platform_module, "boot_time", lambda: real_boot_time() + 3600.0)
        # the step is real for psutil: its epoch start time moved with the clock
        assert abs(psutil.Process(child.pid).create_time() - before) > 3000
        assert server_process.alive(recorded), "a clock step made a live process look gone"
        assert not server_process.alive([recorded[0], recorded[1] + 5.0]), "a different start is another process"
    finally:
        child.kill()
        child.wait()


def test_the_guard_keeps_the_server_of_a_live_owner_across_a_clock_step(tmp_path, monkeypatch):
    """The guard reads the owners' identities every second: recorded before a step, read after it."""
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        who = server_process.identity(owner.pid)
        module = sys.modules[psutil.Process(owner.pid)._proc.__class__.__module__]
        real_boot_time = module.boot_time
        monkeypatch.setattr(module, "boot_time", lambda: real_boot_time() - 7200.0)
        assert server_process.live_owner({"owners": [who]}) == who
    finally:
        owner.kill()
        owner.wait()
    assert server_process.live_owner({"owners": [who]}) is None
