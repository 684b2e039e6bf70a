"""Two copies of the course on one machine, and a port the system will not give (issue 57, items 2 and 3).

A teacher's copy and a student's, or last term's and this term's, share the cache (the model) but not
their servers: each copy has its own state file, so the second never stops the first's server under a
live kernel, nor silently sends its requests to it (the other copy's chat template and version may
differ).  It starts its own on a free port and says which copy holds the first.

The servers here are a small stand-in for llama-server (``COURSE_LLAMA_SERVER``) that answers
``/health``, ``/v1/models`` with its ``--alias`` and a chat reply naming its port; each copy's server is
started by the course's own guard, from a separate Python process whose working copy is that course
folder.  The second copy lies in a folder with a space and Chinese characters.
"""

from __future__ import annotations

import errno
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from course_runtime import local_server, server_process
from machine_support import free_port, wait_until

ROOT = Path(__file__).resolve().parent.parent

FAKE_SERVER = r'''
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

def flag(name):
    return sys.argv[sys.argv.index(name) + 1]

PORT = int(flag("--port"))

class Handler(BaseHTTPRequestHandler):
    def answer(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/v1/models":
            return self.answer({"object": "list", "data": [{"id": flag("--alias")}]})
        self.answer({"status": "ok"})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.answer({"id": "x", "object": "chat.completion", "created": 0, "model": flag("--alias"),
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": f"served on {PORT}"}}]})

    def log_message(self, *args):
        pass

ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
'''

# One kernel of a copy: start (or reuse) the copy's server, print its URL, stay an owner until stdin closes.
KERNEL = r'''
import sys
from course_runtime import local_server
local_server.DEFAULT_PORT = int(sys.argv[1])
try:
    print("URL", local_server.ensure_server(timeout=30), flush=True)
except local_server.LocalModelError as exc:
    print("ERROR", exc, flush=True)
    raise SystemExit(3)
sys.stdin.readline()
'''


@pytest.fixture
def machine(tmp_path):
    """A shared cache, the stand-in server, a model file, and a free default port for this test."""
    server = tmp_path / "fake-llama-server"
    server.write_text(f"#!{sys.executable}\n{FAKE_SERVER}", encoding="utf-8")
    server.chmod(0o755)
    (tmp_path / "model.gguf").write_bytes(b"GGUF")
    env = {**os.environ, "COURSE_LLAMA_SERVER": str(server), "COURSE_GGUF_PATH": str(tmp_path / "model.gguf"),
           "COURSE_CACHE_DIR": str(tmp_path / "cache"), "COURSE_IGNORE_DOTENV": "1", "PYTHONUNBUFFERED": "1"}
    env.pop("COURSE_LOCAL_PORT", None)
    kernels: list[subprocess.Popen] = []
    yield {"env": env, "port": free_port(), "cache": tmp_path / "cache", "kernels": kernels}
    for kernel in kernels:
        if kernel.poll() is None:
            kernel.stdin.close()
            kernel.wait(10)
    for state in (tmp_path / "cache").glob("llama-server*.json"):
        for who in server_process.still_running(server_process.read_state(state)):
            server_process.stop(who[0], 5, who=who)


def second_copy(tmp_path: Path) -> Path:
    """Another copy of the course: its runtime in a folder named with a space and Chinese characters."""
    copy = tmp_path / "去年的 课程"
    shutil.copytree(ROOT / "course_runtime", copy / "course_runtime",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def kernel(machine, copy: Path, **env) -> tuple[subprocess.Popen, str]:
    """Start a kernel of ``copy``; return it and its first line (``URL ...`` or ``ERROR ...``) with what came before."""
    proc = subprocess.Popen([sys.executable, "-c", KERNEL, str(machine["port"])], cwd=copy,
                            env={**machine["env"], **env}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, encoding="utf-8")
    machine["kernels"].append(proc)
    said = []
    for line in proc.stdout:
        said.append(line)
        if line.startswith(("URL", "ERROR")):
            break
    return proc, "".join(said)


def state_of(machine, copy: Path) -> dict:
    """The state file of ``copy`` (read by that copy's own code, which names the file)."""
    out = subprocess.run([sys.executable, "-c", "from course_runtime import local_server; "
                          "print(local_server._state_path())"], cwd=copy, env=machine["env"],
                         capture_output=True, text=True, encoding="utf-8", check=True).stdout.strip()
    return server_process.read_state(Path(out))


def test_a_second_copy_starts_its_own_server_and_names_the_first(machine, tmp_path):
    first, said_first = kernel(machine, ROOT)
    assert said_first.strip().endswith(f"http://127.0.0.1:{machine['port']}/v1"), said_first
    server = state_of(machine, ROOT)["server"]

    copy = second_copy(tmp_path)
    second, said = kernel(machine, copy)
    url = said.strip().splitlines()[-1].split()[-1]
    assert url != f"http://127.0.0.1:{machine['port']}/v1", "the second copy used the first copy's server"
    assert str(ROOT) in said and str(machine["port"]) in said, said  # which copy holds the port
    mine = state_of(machine, copy)
    assert mine["port"] == int(url.split(":")[-1].split("/")[0]) and mine["project"] == str(copy)
    assert server_process.alive(server), "starting the second copy stopped the first's server"

    import httpx2
    reply = httpx2.post(f"{url}/chat/completions", json={"messages": []}, timeout=5).json()
    assert reply["choices"][0]["message"]["content"] == f"served on {mine['port']}"

    # The second copy's `local_server stop` stops its own server only.
    stop = subprocess.run([sys.executable, "-m", "course_runtime.local_server", "stop"], cwd=copy, env=machine["env"],
                          capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert stop.returncode == 0 and "stopped" in stop.stdout
    assert server_process.alive(server), "the second copy's stop ended the first copy's server"
    assert not server_process.still_running(mine)
    assert local_server.health(root=f"http://127.0.0.1:{machine['port']}") == "ok"
    # The moved port stays the second copy's: its next kernel starts there again.
    again, said_again = kernel(machine, copy)
    assert said_again.strip().endswith(url) and "改在端口" not in said_again, said_again


def test_a_port_the_student_chose_is_never_taken_from_another_copy(machine, tmp_path):
    kernel(machine, ROOT)
    server = state_of(machine, ROOT)["server"]
    copy = second_copy(tmp_path)
    proc, said = kernel(machine, copy, COURSE_LOCAL_PORT=str(machine["port"]))
    assert proc.wait(10) == 3 and said.startswith("ERROR"), said
    assert str(ROOT) in said and "COURSE_LOCAL_PORT" in said
    assert server_process.alive(server)
    assert not server_process.still_running(state_of(machine, copy))


def test_a_server_of_an_older_version_of_the_course_is_not_adopted(machine, tmp_path):
    """Before issue 57 the state file was ``llama-server.json`` for every copy: its server is another copy's."""
    holder = subprocess.Popen([machine["env"]["COURSE_LLAMA_SERVER"], "--port", str(machine["port"]),
                               "--alias", local_server.MODEL_ALIAS], stdin=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: local_server.health(root=f"http://127.0.0.1:{machine['port']}") == "ok", 15)
        machine["cache"].mkdir(parents=True, exist_ok=True)
        server_process.write_state(machine["cache"] / "llama-server.json",
                                   {"port": machine["port"], "owners": None, "pid": holder.pid,
                                    "server_pid": holder.pid, "server": server_process.identity(holder.pid)})
        _, said = kernel(machine, ROOT)
        assert not said.strip().endswith(f":{machine['port']}/v1") and "较早版本" in said, said
        assert holder.poll() is None
    finally:
        holder.kill()
        holder.wait()


# --------------------------------------------------------------------------- a port the system refuses
def windows_refusal() -> PermissionError:
    """What binding a port inside a Windows excluded port range raises on Windows.

    CPython on Windows builds a socket error from ``WSAGetLastError()``
    (``PyErr_SetExcFromWindowsErr``): WSAEACCES, 10013, maps to ``errno.EACCES``,
    so the exception is a ``PermissionError`` with ``winerror == 10013`` and
    Windows's own sentence.  (The ``winerror`` attribute only exists on Windows
    builds of Python; it is set here by hand.)
    """
    exc = PermissionError(errno.EACCES, "An attempt was made to access a socket in a way forbidden by its "
                                        "access permissions")
    exc.winerror = 10013
    return exc


@pytest.fixture
def excluded_port(monkeypatch, tmp_path):
    """A port inside a (pretended) Windows excluded range: binding it raises as Windows does; nothing listens."""
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("COURSE_LOCAL_PORT", raising=False)
    port = free_port()
    monkeypatch.setattr(local_server, "DEFAULT_PORT", port)
    real_bind = socket.socket.bind

    def bind(self, address):
        if address[1] == port:
            raise windows_refusal()
        return real_bind(self, address)

    monkeypatch.setattr(socket.socket, "bind", bind)
    spawned = []
    monkeypatch.setattr(local_server, "_spawn", lambda keep=False, port_=None: spawned.append(port_))
    monkeypatch.setattr(local_server, "health", lambda *a, **k: None)  # nothing answers there
    return port, spawned


def test_a_port_in_a_windows_excluded_range_is_named_and_another_is_used(excluded_port, capsys):
    port, spawned = excluded_port
    with pytest.raises(local_server.LocalModelError):  # the stand-in never answers: the wait ends
        local_server.ensure_server(timeout=0.5)
    said = capsys.readouterr().out
    assert len(spawned) == 1 and spawned[0] != port
    assert str(port) in said and str(spawned[0]) in said and "WinError 10013" in said and "excludedportrange" in said
    assert "另一个程序" not in said  # not "another program holds it"
    assert local_server.port_problem(port) == "forbidden" and local_server.port_problem(spawned[0]) is None


def test_an_excluded_port_the_student_chose_is_named_with_a_port_outside_it(excluded_port, monkeypatch):
    port, spawned = excluded_port
    monkeypatch.setenv("COURSE_LOCAL_PORT", str(port))
    with pytest.raises(local_server.LocalModelError) as info:
        local_server.ensure_server(timeout=0.5)
    said = str(info.value)
    assert not spawned and "WinError 10013" in said and "COURSE_LOCAL_PORT" in said
    suggested = int(said.split("COURSE_LOCAL_PORT 改成 ")[1].split("（")[0])
    assert suggested != port and local_server.port_problem(suggested) is None


# --------------------------------------------------------------------------- files Windows will not replace
def windows_access_denied(*args) -> PermissionError:
    """What ``os.replace`` (``MoveFileExW``) raises on Windows when the target is open in another program
    without delete sharing (SQLite opens with read/write sharing only) or carries the read-only mark:
    ``PermissionError: [WinError 5] Access is denied`` (``ERROR_ACCESS_DENIED`` maps to ``EACCES``)."""
    exc = PermissionError(errno.EACCES, "Access is denied")
    exc.winerror = 5
    return exc


def test_reset_shop_while_the_shop_is_open_elsewhere_is_one_sentence_and_loses_nothing(monkeypatch, tmp_path):
    from course_lib.tools import orders, products

    shop = tmp_path / "我的 商店" / "my_shop.db"
    monkeypatch.setenv("COURSE_SHOP_DB", str(shop))
    orders.reset_shop()
    import sqlite3
    with sqlite3.connect(shop) as db:  # the student placed an order: it must survive the refused reset
        db.execute("INSERT INTO orders (product_id, product_name, quantity, unit_price, total, created_at) "
                   "VALUES ('001', '篮球', 2, 99.0, 198.0, '2026-12-06T10:00:00')")
    before = shop.read_bytes()

    def replace(src, dst):
        if Path(dst) == shop:
            raise windows_access_denied()
        return os.replace(src, dst)

    monkeypatch.setattr(products.os, "replace", replace)
    with pytest.raises(PermissionError) as info:  # a DatabaseInUseError, which code catching OSError still catches
        orders.reset_shop()
    said = str(info.value)
    assert type(info.value).__name__ == "DatabaseInUseError" and str(shop) in said and "另一个程序" in said and "没有改动" in said and "Access is denied" in said
    assert shop.read_bytes() == before
    assert [p.name for p in shop.parent.iterdir()] == ["my_shop.db"], "a temporary file was left behind"


def test_a_read_only_env_leaves_no_temporary_file_with_the_class_settings(monkeypatch, tmp_path):
    """Windows: the temporary file got .env's read-only mark, ``os.replace`` was refused, and Windows
    then refused to delete the read-only temporary file too - it stayed, holding the class settings."""
    from course_runtime import class_code

    env = tmp_path / "课程 文件夹" / ".env"
    env.parent.mkdir()
    env.write_text("COURSE_PROVIDER=local\n", encoding="utf-8")
    env.chmod(0o444)
    real_unlink = Path.unlink

    def replace(src, dst):  # Windows refuses to replace a read-only file
        if not os.stat(dst).st_mode & 0o200:
            raise windows_access_denied()
        return os.replace(src, dst)

    def unlink(self, missing_ok=False):  # ... and to delete one
        if self.exists() and not self.stat().st_mode & 0o200:
            raise windows_access_denied()
        return real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(class_code.os, "replace", replace)
    monkeypatch.setattr(Path, "unlink", unlink)
    with pytest.raises(class_code.CodeError) as info:
        class_code.write_env({"COURSE_PROVIDER": "classroom", "COURSE_BASE_URL": "http://192.168.1.5:8767/v1"}, env)
    assert "COURSE_BASE_URL=" in str(info.value)  # the lines to add by hand
    assert sorted(p.name for p in env.parent.iterdir()) == [".env"], "a temporary .env copy was left behind"
    assert env.read_text(encoding="utf-8") == "COURSE_PROVIDER=local\n"


def test_a_client_made_while_the_server_moves_talks_to_the_moved_server(machine, monkeypatch):
    """``get_provider`` names 8765 before ``get_client`` starts the server; the server then moved."""
    from course_lib import providers

    for name, value in machine["env"].items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("COURSE_LOCAL_PORT", raising=False)
    monkeypatch.setattr(local_server, "DEFAULT_PORT", machine["port"])
    holder = socket.socket()
    holder.bind(("127.0.0.1", machine["port"]))
    holder.listen(1)  # another program holds the default port
    try:
        provider = providers.get_provider("local")
        assert provider.base_url.endswith(f":{machine['port']}/v1")
        client = providers.get_client(provider)
        moved = local_server.port()
        assert moved != machine["port"] and client.base_url.port == moved
        reply = client.chat.completions.create(model=provider.model, messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == f"served on {moved}"
    finally:
        holder.close()
        local_server.stop_server(timeout=5)
