"""A class that stops working at once (issue 30, part 5): the teacher's server, said plainly.

Two halves, as in tests/test_classroom.py:

* the teacher's side: ``python -m course_runtime.classroom`` (what ``python course.py
  serve`` hands over to) run for real, as a child process, with a tiny fake
  llama-server in place of the real one (``FAKE_SERVER``, a Python
  ``http.server`` that reads ``--api-key-file`` the way llama.cpp's
  ``common/arg.cpp`` does: every non-empty line not starting with ``#`` is a
  key, byte for byte - a BOM or a ``\\r`` stays part of it).  The real
  llama-server is never started.  These tests need POSIX signals and an
  executable script, so they are skipped on Windows;
* the student's side: the real ``openai`` client from ``get_client`` against a
  socket server on a free loopback port that drops the connection mid-request,
  as a class server that restarted does.
"""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import openai
import pytest

from fakes import raw_completion
from machine_support import free_port, wait_until

from course_runtime import classroom, keys, local_server, server_process
from course_lib.providers import PRESETS, Provider, ProviderError, get_client, ping
from course_lib.widgets import ChatSession

ROOT = Path(__file__).resolve().parent.parent
KEY = classroom.KEY_PREFIX + "0123456789abcdef0123456789abcdef"
POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="a shebang script as the server and POSIX signals")

# llama-server as far as these tests need it: /health, and /v1/chat/completions behind the key.
FAKE_SERVER = r'''
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = sys.argv[1:]
flag = lambda name: args[args.index(name) + 1]
# common/arg.cpp, --api-key-file: std::getline on the file, each non-empty line not starting with '#' is a key.
keys = [line for line in open(flag("--api-key-file"), "rb").read().split(b"\n") if line and not line.startswith(b"#")]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.answer(200, {"status": "ok"}) if self.path == "/health" else self.answer(404, {"error": "no"})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        sent = self.headers.get("Authorization", "").encode("latin-1")
        if not any(sent == b"Bearer " + key for key in keys):
            return self.answer(401, {"error": {"message": "Invalid API Key", "type": "authentication_error", "code": 401}})
        self.answer(200, {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                          "choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": "pong"}}]})

    def log_message(self, *args):
        pass


print("fake llama-server on port", flag("--port"), flush=True)
ThreadingHTTPServer((flag("--host"), int(flag("--port"))), Handler).serve_forever()
'''



class Serve:
    """One ``python -m course_runtime.classroom`` command (the teacher's ``python course.py serve``), output collected."""

    def __init__(self, folder: Path, port: int, key_file: Path, *extra: str):
        server = folder / "fake-llama-server"
        server.write_text(f"#!{sys.executable}\n{FAKE_SERVER}", encoding="utf-8")
        server.chmod(0o755)
        (folder / "model.gguf").write_bytes(b"GGUF")
        self.cache = folder / "cache"
        env = {**os.environ, "COURSE_LLAMA_SERVER": str(server), "COURSE_GGUF_PATH": str(folder / "model.gguf"),
               "COURSE_CACHE_DIR": str(self.cache), "COURSE_IGNORE_DOTENV": "1", "PYTHONUNBUFFERED": "1"}
        self.port, self.key_file = port, key_file
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "course_runtime.classroom", "--host", "127.0.0.1", "--port", str(port), "--slots", "1",
             "--key-file", str(key_file), *extra],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def state(self) -> dict:
        return server_process.read_state(self.cache / "classroom-server.json")

    def ready(self) -> bool:
        """Wait until the students' lines are printed (the server answers /health)."""
        started = wait_until(lambda: "Ctrl-C" in self.output or self.process.poll() is not None, seconds=20.0)
        return started and "Ctrl-C" in self.output

    def class_key(self) -> str:
        """The class key as the command uses it (read from its file: it is never printed, issue 43)."""
        key = keys.read_key(self.key_file)
        assert key and key not in self.output
        return key

    def server_pid(self) -> int:
        return self.state()["server_pid"]

    def end(self) -> None:
        """Tidy up whatever the test left running (the server first, then the command)."""
        state = self.state()
        for pid in (state.get("server_pid"), state.get("pid")):
            if server_process.alive(pid):
                server_process.stop(pid, timeout=5)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)


@pytest.fixture
def serves(tmp_path):
    started: list[Serve] = []

    def start(port: int, key_file: Path, *extra: str) -> Serve:
        started.append(Serve(tmp_path, port, key_file, *extra))
        return started[-1]

    yield start
    for each in reversed(started):
        each.end()


def ask(url: str, key: str) -> openai.types.chat.ChatCompletion:
    student = Provider(PRESETS["classroom"], url, PRESETS["classroom"].model, key, key_source=".env")
    return get_client(student).chat.completions.create(model=student.model, messages=[{"role": "user", "content": "hi"}])


# --------------------------------------------------------------------------- 1. the class key file


@pytest.mark.parametrize("written", [
    "\ufeff" + KEY + "\r\n",             # Windows Notepad: a UTF-8 BOM and CRLF
    "  " + KEY + "  \n\n",               # spaces around it, a blank line after it
    KEY,                                 # no newline at the end
], ids=["bom-crlf", "spaces", "no-newline"])
def test_a_key_file_the_teacher_edited_keeps_its_key(tmp_path, written):
    path = tmp_path / ".class-key"
    path.write_bytes(written.encode("utf-8"))
    assert classroom.class_key(path) == KEY
    assert path.read_bytes() == written.encode("utf-8"), "the teacher's file was rewritten"


def test_a_teachers_own_key_without_the_course_prefix_is_kept_until_new_key(tmp_path):
    """A strong one (keys.check_strength; a weak one is refused: tests/test_progress_limits.py)."""
    path = tmp_path / ".class-key"
    path.write_text("Physics-7B-2026-spring\n", encoding="utf-8")
    assert classroom.class_key(path) == "Physics-7B-2026-spring"
    assert classroom.class_key(path) == "Physics-7B-2026-spring"
    new = classroom.class_key(path, new=True)  # only --new-key replaces it
    assert new.startswith(classroom.KEY_PREFIX) and path.read_text(encoding="utf-8").strip() == new


def test_a_key_no_student_could_send_is_a_chinese_error_not_a_new_key(tmp_path):
    path = tmp_path / ".class-key"
    path.write_text("course-class-abc\u200bdef\n", encoding="utf-8")
    with pytest.raises(keys.KeyFileError) as err:
        classroom.class_key(path)
    text = str(err.value)
    assert str(path) in text and "U+200B" in text and "第 17 个字符" in text and "--new-key" in text
    assert "abc" not in text and "def" not in text  # never any part of the key
    assert path.read_text(encoding="utf-8") == "course-class-abc\u200bdef\n"


@POSIX_ONLY
def test_the_server_accepts_the_key_the_teacher_wrote(tmp_path, serves):
    """The key file saved by Notepad (BOM, CRLF): students with the printed line get answers, not 401.

    llama-server reads the file byte for byte (FAKE_SERVER does the same), so the
    BOM and the ``\\r`` must not reach it."""
    key_file = tmp_path / ".class-key"
    key_file.write_bytes(("\ufeff" + KEY + "\r\n").encode("utf-8"))
    serve = serves(free_port(), key_file)
    assert serve.ready(), serve.output
    assert serve.class_key() == KEY  # not printed: the students reach the model through the door
    reply = ask(f"http://127.0.0.1:{serve.port}/v1", KEY)
    assert reply.choices[0].message.content == "pong"
    assert key_file.read_bytes() == ("\ufeff" + KEY + "\r\n").encode("utf-8")


# --------------------------------------------------------------------------- 2. every way serve ends ends the server


@POSIX_ONLY
@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_the_server_is_gone_when_the_serve_command_ends(tmp_path, serves, name):
    """SIGTERM (kill, a service manager), SIGHUP (the terminal window closed), SIGINT (Ctrl-C)."""
    if not hasattr(signal, name):
        pytest.skip(f"no {name} here")
    serve = serves(free_port(), tmp_path / ".class-key")
    assert serve.ready(), serve.output
    server, guard = serve.server_pid(), serve.state()["pid"]
    assert server_process.alive(server)
    serve.process.send_signal(getattr(signal, name))
    code = serve.process.wait(30)
    # Checked the moment the command has ended: not a second later, when the guard would notice.
    assert not server_process.alive(server), f"{name}: the command ended but the server still runs"
    assert not server_process.alive(guard)
    assert local_server.health(root=f"http://127.0.0.1:{serve.port}") is None
    assert code == 0 and "课堂模型服务器和课堂入口已停止" in serve.output, serve.output


# --------------------------------------------------------------------------- 3. a server left over from a crash


@POSIX_ONLY
def test_a_server_left_over_from_a_crash_is_found_named_and_stopped(tmp_path, serves):
    key_file = tmp_path / ".class-key"
    port = free_port()
    first = serves(port, key_file)
    assert first.ready(), first.output
    leftover, guard = first.server_pid(), first.state()["pid"]
    for pid in (guard, first.process.pid):  # a crash: the guard and the command killed, no clean-up at all
        _kill(pid)
    first.process.wait(10)
    time.sleep(2 * server_process.POLL_S)
    assert server_process.alive(leftover), "the test needs a server that survived the crash"

    second = serves(port, key_file)
    assert second.ready(), second.output
    assert str(leftover) in second.output and "上一次" in second.output, second.output
    assert not server_process.alive(leftover)
    assert second.server_pid() != leftover and server_process.alive(second.server_pid())
    assert ask(f"http://127.0.0.1:{port}/v1", second.class_key()).choices[0].message.content == "pong"


def _kill(pid: int) -> None:
    import psutil

    psutil.Process(pid).kill()


@POSIX_ONLY
def test_a_second_serve_while_one_runs_names_it_and_leaves_it_running(tmp_path, serves):
    key_file = tmp_path / ".class-key"
    first = serves(free_port(), key_file)
    assert first.ready(), first.output
    written = key_file.read_bytes()
    second = serves(free_port(), key_file, "--new-key")
    assert second.process.wait(30) == 1
    assert key_file.read_bytes() == written, "the running server's students would need a new line"
    assert str(first.process.pid) in second.output and "Ctrl-C" in second.output, second.output
    assert server_process.alive(first.server_pid())
    assert ask(f"http://127.0.0.1:{first.port}/v1", first.class_key()).choices[0].message.content == "pong"


# --------------------------------------------------------------------------- 4. the class server restarted mid-lesson


COMPLETION = raw_completion({"role": "assistant", "content": "好的"}).content


class RestartingServer:
    """A class server on a free loopback port that drops connections: ``plan`` says what each connection gets.

    ``"cut"``: the request is read, then the connection is reset (RST) with no answer, as when
    the teacher's server is stopped mid-request; ``"cut_stream"``: the head of an event stream and
    one chunk, then the reset; ``"ok"``: a chat completion.
    """

    def __init__(self, plan: list[str]):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.plan = plan
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        for action in self.plan:
            conn, _ = self.listener.accept()
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(body) < length:
                body += conn.recv(65536)
            if action == "ok":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(COMPLETION)).encode() + b"\r\n\r\n" + COMPLETION)
                continue  # keep-alive: the client may send its next request on this connection
            if action == "cut_stream":
                chunk = b'data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"m",' \
                        b'"choices":[{"index":0,"delta":{"content":"\xe5\xa5\xbd"},"finish_reason":null}]}\n\n'
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                             + f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                time.sleep(0.2)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()


def student(url: str) -> Provider:
    return Provider(PRESETS["classroom"], url, PRESETS["classroom"].model, KEY, key_source=".env")


def assert_says_restarted(text: str, url: str) -> None:
    assert url in text and "重启" in text and "再运行" in text, text
    assert "Connection error" not in text and KEY not in text


def test_a_server_restarted_mid_request_says_so_and_the_next_request_works():
    server = RestartingServer(["cut", "ok"])
    client = get_client(student(server.url))
    with pytest.raises(openai.APIConnectionError) as err:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "你好"}])
    assert_says_restarted(str(err.value), server.url)
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "你好"}])
    assert reply.choices[0].message.content == "好的"  # what the message promised


def test_variant_ping_in_the_set_up_notebook_says_the_same():
    server = RestartingServer(["cut"])
    provider = student(server.url)
    with pytest.raises(ProviderError) as err:
        ping(get_client(provider), provider)
    assert_says_restarted(str(err.value), server.url)


def test_variant_a_stream_cut_off_in_the_chat_box():
    server = RestartingServer(["cut_stream", "ok"])
    chat = ChatSession(get_client(student(server.url)), "m")
    assert chat.send("你好", on_token=lambda piece: None) is None
    assert_says_restarted(chat.error, server.url)
    assert chat.history == [chat.system]  # the half answer was not kept
    assert chat.send("你好") == "好的"
    server = RestartingServer(["cut_stream"])  # the same through the raw SDK's stream
    stream = get_client(student(server.url)).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "你好"}], stream=True)
    with pytest.raises(openai.APIConnectionError) as err:
        list(stream)
    assert_says_restarted(str(err.value), server.url)
