"""The progress service under attack from a student on the same Wi-Fi (course_runtime/progress_service.py), issue 43.

Each test is one kind of attack and what the service now does about it: the
teacher's login (a session cookie, never the key; loopback only; a limit on
guesses; weak keys refused at start-up), the CSV export (no formula under a
``,`` or a ``;`` separator), and the limits (results per token, joins per
address, nesting, unencodable text, half-open connections, a busy database).

Everything runs on loopback (free ports) or in-process (``TestClient`` with a
made-up client address for "a laptop on the Wi-Fi"); every loop is bounded.
"""

from __future__ import annotations

import secrets
import csv
import io
import json
import socket
import sqlite3
import time

import httpx2
import pytest
from starlette.testclient import TestClient

from machine_support import free_port

from course_runtime import keys, local_server, progress_service, progress_store, teacher_guard, web_server

CLASS_KEY = "course-class-" + "1" * 32
TEACHER_KEY = "course-teacher-" + "2" * 32
SECRET = "0123456789"
TOKEN_A, TOKEN_B = "a" * 32, "b" * 32
WIFI = ("192.168.1.20", 40000)  # a student's laptop, as the ASGI scope names it


class Clock:
    """Unix seconds that a test moves on."""

    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self):
        return self.now


class Running:
    """A service on a free loopback port (as tests/test_progress_service.py's), with the limits' knobs."""

    def __init__(self, folder, clock=time.time, busy_timeout_s=None, **service_options):
        store_options = {} if busy_timeout_s is None else {"busy_timeout_s": busy_timeout_s}
        self.db = folder / "class-progress.sqlite3"
        self.store = progress_store.ProgressStore(self.db, **store_options)
        self.port = free_port()
        self.app = progress_service.make_app(self.store, CLASS_KEY, TEACHER_KEY,
                                             join_secret=SECRET, clock=clock)
        self.service = web_server.ProgressService(self.app, "127.0.0.1", self.port, **service_options).start()
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.service.stop()
        self.store.close()


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def service(tmp_path, clock):
    running = Running(tmp_path, clock)
    yield running
    running.stop()


def result(exercise="06-1", passed=False, attempt=1):
    return {"id": secrets.token_hex(16), "exercise": exercise, "passed": passed,
            "hint": "06.call_key.1", "attempt": attempt, "time": "2026-12-03T10:41:07Z"}


def post(url, body, key=CLASS_KEY):
    return httpx2.post(url + "/api/results", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=10)


def chinese(text):
    return any("\u4e00" <= c <= "\u9fff" for c in text)


# --------------------------------------------------------------------------- the teacher's login


def test_the_login_cookie_is_a_session_never_the_key(service):
    with httpx2.Client(base_url=service.url, timeout=10) as browser:
        right = browser.post("/login", data={"key": TEACHER_KEY})
        assert right.status_code == 303
        cookie = right.headers["set-cookie"]
        name, _, rest = cookie.partition("=")
        value = rest.split(";")[0]
        assert str(service.port) in name  # browsers do not scope cookies by port
        assert TEACHER_KEY not in cookie and value and len(value) >= 32
        lowered = cookie.lower()
        assert "httponly" in lowered and "samesite=strict" in lowered and "path=/" in lowered
        assert browser.get("/teacher").status_code == 200
    forged = httpx2.get(service.url + "/teacher", cookies={name: TEACHER_KEY}, timeout=10)  # the key as a cookie
    assert forged.status_code == 303
    scripts = httpx2.get(service.url + "/api/class", headers={"Authorization": f"Bearer {TEACHER_KEY}"}, timeout=10)
    assert scripts.status_code == 200  # scripts keep the bearer key


def test_a_session_expires(service, clock):
    with httpx2.Client(base_url=service.url, timeout=10) as browser:
        assert browser.post("/login", data={"key": TEACHER_KEY}).status_code == 303
        assert browser.get("/teacher").status_code == 200
        clock.now += teacher_guard.SESSION_S + 1
        assert browser.get("/teacher").status_code == 303


@pytest.mark.parametrize("path", ["/teacher", "/teacher.csv", "/api/class", "/login"])
def test_teacher_routes_answer_only_this_computer(tmp_path, path):
    store = progress_store.ProgressStore(tmp_path / "db.sqlite3")
    auth = {"Authorization": f"Bearer {TEACHER_KEY}"}
    try:
        app = progress_service.make_app(store, CLASS_KEY, TEACHER_KEY)
        with TestClient(app, base_url="http://192.168.1.10:8767", client=WIFI, follow_redirects=False) as laptop:
            for reply in (laptop.get(path, headers=auth), laptop.post("/login", data={"key": TEACHER_KEY})):
                assert reply.status_code == 403 and chinese(reply.text)
            assert laptop.get("/health").status_code == 200  # the students' routes stay open
        with TestClient(app, base_url="http://127.0.0.1:8767", client=("127.0.0.1", 40000), follow_redirects=False) as here:
            assert here.get(path, headers=auth).status_code == 200
        anywhere = progress_service.make_app(store, CLASS_KEY, TEACHER_KEY, teacher_anywhere=True)
        with TestClient(anywhere, base_url="http://192.168.1.10:8767", client=WIFI, follow_redirects=False) as laptop:
            assert laptop.get(path, headers=auth).status_code == 200
    finally:
        store.close()


def test_login_guesses_are_limited_and_cannot_be_raced(service, clock):
    """Many guesses at once: their bodies arrive only after every request is in, and still at most the limit is answered."""
    replies = race(service.port, "/login", b"key=guess", 3 * teacher_guard.LOGIN_ATTEMPTS_PER_MINUTE,
                   content_type="application/x-www-form-urlencoded")
    assert replies.count(303) <= teacher_guard.LOGIN_ATTEMPTS_PER_MINUTE and 429 in replies
    assert httpx2.post(service.url + "/login", data={"key": "guess"}, timeout=10).status_code == 429
    # The right key is checked first and never refused (issue 55: a page in the teacher's browser shares the
    # teacher's address; its guesses must not lock the teacher out).
    assert httpx2.post(service.url + "/login", data={"key": TEACHER_KEY}, timeout=10).status_code == 303
    clock.now += 61
    assert httpx2.post(service.url + "/login", data={"key": "guess"}, timeout=10).status_code == 303


@pytest.mark.parametrize("weak", ["123456", "aaaaaaaaaaaaaaaaaaaaaaa", "12345678901234567890", "Physics-7B-2026"])
@pytest.mark.parametrize("read", [keys.teacher_key, keys.class_key], ids=["teacher", "class"])
def test_a_weak_key_the_teacher_wrote_is_refused_at_start_up(tmp_path, weak, read):
    path = tmp_path / ".some-key"
    path.write_text(weak + "\n", encoding="utf-8")
    with pytest.raises(keys.KeyFileError) as err:
        read(path)
    text = str(err.value)
    assert str(path) in text and "--new-key" in text and chinese(text) and weak not in text
    assert path.read_text(encoding="utf-8") == weak + "\n"  # the teacher's file is not rewritten


@pytest.mark.parametrize("strong", ["Physics-7B-2026-spring", "0123456789abcdef0123456789abcdef",
                                    keys.TEACHER_KEY_PREFIX + "2" * 32])
def test_a_strong_key_the_teacher_wrote_is_kept(tmp_path, strong):
    path = tmp_path / ".teacher-key"
    path.write_text(strong + "\n", encoding="utf-8")
    assert keys.teacher_key(path) == strong and keys.class_key(path) == strong


# --------------------------------------------------------------------------- the CSV export


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@pytest.mark.parametrize("name", ["王;=HYPERLINK(1)", "李,@SUM(1)", "-2+3", "张; +1", "赵;;=1", "=1+2"])
def test_no_csv_cell_starts_a_formula_under_either_separator(service, name):
    assert post(service.url, {"name": name, "token": TOKEN_A, "results": [result()]}).status_code == 200
    reply = httpx2.get(service.url + "/teacher.csv", headers={"Authorization": f"Bearer {TEACHER_KEY}"}, timeout=10)
    text = reply.content.decode("utf-8-sig")
    for separator in (",", ";"):
        for row in csv.reader(io.StringIO(text), delimiter=separator):
            for cell in row:
                assert not cell.lstrip(" ").startswith(FORMULA_STARTS), (separator, cell)
    assert name.replace(";", "").replace(",", "")[:1] in text  # the name is still there to read


# --------------------------------------------------------------------------- the limits


def test_results_are_limited_per_token(service, clock):
    limit = progress_service.RESULTS_PER_MINUTE
    sent = 0
    while sent < limit:  # bounded: limit / MAX_RESULTS posts
        n = min(progress_service.MAX_RESULTS, limit - sent)
        assert post(service.url, {"name": "王小明", "token": TOKEN_A,
                                  "results": [result() for _ in range(n)]}).status_code == 200
        sent += n
    over = post(service.url, {"name": "王小明", "token": TOKEN_A, "results": [result()]})
    assert over.status_code == 429 and chinese(over.json()["error"])
    empty = post(service.url, {"name": "王小明", "token": TOKEN_A, "results": []})
    assert empty.status_code == 429  # an empty post counts too
    assert post(service.url, {"name": "李华", "token": TOKEN_B, "results": [result()]}).status_code == 200
    clock.now += 61
    assert post(service.url, {"name": "王小明", "token": TOKEN_A, "results": [result()]}).status_code == 200
    assert len(service.store.results("王小明")) == limit + 1


@pytest.mark.parametrize("path", ["/api/results", "/api/mine", "/api/join"])
def test_a_deeply_nested_body_is_a_400(service, path):
    depth = 30_000  # 60 KB: under MAX_BODY
    body = '{"name": "王小明", "token": "' + TOKEN_A + '", "results": ' + "[" * depth + "]" * depth + "}"
    reply = httpx2.post(service.url + path, content=body.encode(), timeout=10,
                       headers={"Authorization": f"Bearer {CLASS_KEY}", "Content-Type": "application/json"})
    assert reply.status_code == 400 and chinese(reply.json()["error"])


@pytest.mark.parametrize("path,field", [("/api/join", "secret"), ("/api/join", "name"), ("/api/results", "name"),
                                        ("/api/mine", "name"), ("/api/results", "token")])
def test_a_lone_surrogate_is_a_400(service, path, field):
    body = {"secret": SECRET, "name": "王小明", "token": TOKEN_A, "results": []}
    text = json.dumps(body).replace(json.dumps(body[field]), '"ab\\ud800cd"')
    reply = httpx2.post(service.url + path, content=text.encode(), timeout=10,
                       headers={"Authorization": f"Bearer {CLASS_KEY}", "Content-Type": "application/json"})
    assert reply.status_code == 400 and chinese(reply.json()["error"])


def test_wrong_class_codes_are_limited_per_address_and_cannot_be_raced(service, clock):
    limit = progress_service.JOIN_FAILURES_PER_MINUTE
    body = json.dumps({"secret": "f" * 10, "name": "猜", "token": TOKEN_B}).encode()
    replies = race(service.port, "/api/join", body, 3 * limit)
    assert replies.count(403) <= limit and 429 in replies
    with TestClient(service.app, client=WIFI) as classmate:  # another laptop still joins
        right = classmate.post("/api/join", json={"secret": SECRET, "name": "王小明", "token": TOKEN_A})
        assert right.status_code == 200 and right.json()["COURSE_STUDENT_NAME"] == "王小明"
    clock.now += 61
    again = httpx2.post(service.url + "/api/join", json={"secret": SECRET, "name": "李华", "token": TOKEN_B}, timeout=10)
    assert again.status_code == 200


def test_a_busy_database_is_a_503_in_chinese(tmp_path):
    running = Running(tmp_path, busy_timeout_s=0.3)
    browser = sqlite3.connect(running.db, isolation_level=None)  # DB Browser, with an edit not yet written
    try:
        post(running.url, {"name": "王小明", "token": TOKEN_A, "results": [result()]})
        browser.execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        reply = post(running.url, {"name": "王小明", "token": TOKEN_A, "results": [result()]})
        took = time.monotonic() - started
        assert reply.status_code == 503 and chinese(reply.json()["error"]) and "Traceback" not in reply.text
        assert took < 3.0
        browser.execute("ROLLBACK")
        assert post(running.url, {"name": "王小明", "token": TOKEN_A, "results": [result()]}).status_code == 200
    finally:
        browser.close()
        running.stop()


def test_half_open_connections_are_closed_at_the_deadline(tmp_path):
    running = Running(tmp_path, read_deadline_s=0.5)
    try:
        silent = socket.create_connection(("127.0.0.1", running.port), timeout=5)
        headers_only = socket.create_connection(("127.0.0.1", running.port), timeout=5)
        headers_only.sendall(b"POST /api/results HTTP/1.1\r\nHost: x\r\n")  # the rest never comes
        short_body = socket.create_connection(("127.0.0.1", running.port), timeout=5)
        short_body.sendall(b"POST /api/results HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        started = time.monotonic()
        for conn in (silent, headers_only, short_body):
            try:
                while conn.recv(4096):  # a 4xx may come first; then the end
                    pass
            except ConnectionResetError:
                pass
            conn.close()
        assert time.monotonic() - started < 4.0
        assert httpx2.get(running.url + "/health", timeout=5).status_code == 200
    finally:
        running.stop()


def test_one_address_holds_only_so_many_connections(tmp_path):
    running = Running(tmp_path, per_address=4)
    held = [socket.create_connection(("127.0.0.1", running.port), timeout=5) for _ in range(8)]
    try:
        closed = 0
        for conn in held:
            conn.settimeout(0.3)
            try:
                closed += conn.recv(1) == b""
            except socket.timeout:
                pass
            except ConnectionResetError:
                closed += 1
        assert closed >= 4
    finally:
        for conn in held:
            conn.close()
    time.sleep(0.2)
    try:
        assert httpx2.get(running.url + "/health", timeout=5).status_code == 200
    finally:
        running.stop()


# --------------------------------------------------------------------------- helpers


def race(port, path, body, n, content_type="application/json"):
    """``n`` POSTs whose headers all arrive before any body does; the status codes they got (bounded: ``n`` sockets)."""
    conns = []
    try:
        for _ in range(n):
            conn = socket.create_connection(("127.0.0.1", port), timeout=10)
            conn.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n"
                         f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode())
            conns.append(conn)
        time.sleep(0.3)  # every handler is now waiting for its body
        for conn in conns:
            conn.sendall(body)
        codes = []
        for conn in conns:
            data = b""
            while b"\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                data += chunk
            codes.append(int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0)
        return codes
    finally:
        for conn in conns:
            conn.close()
