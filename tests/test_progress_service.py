"""The teacher's progress service over real HTTP on loopback (course_runtime/progress_service.py), issue 32.

The service runs in a thread of this process (``ProgressService``: uvicorn, as
``python course.py serve`` runs it) on a free port with its database in a
temporary folder; the students are the course's own sender
(``progress.send_pending``) and a plain ``httpx`` client for the requests a
sender never makes (wrong keys, hostile names, oversized bodies).
"""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx2
import pytest

from machine_support import free_port

from course_runtime import class_code, progress, progress_page, progress_service, progress_store, web_server
from course_lib.checkers import nb06

CLASS_KEY = "course-class-" + "1" * 32
TEACHER_KEY = "course-teacher-" + "2" * 32
SECRET = "0123456789"


class Running:
    """A service on a free loopback port with a fresh database; ``url``, ``store``, ``stop()``."""

    def __init__(self, folder, clock=time.time, join_secret=SECRET, model_root=None):
        self.store = progress_store.ProgressStore(folder / "class-progress.sqlite3")
        self.port = free_port()
        app = progress_service.make_app(self.store, CLASS_KEY, TEACHER_KEY, model_root=model_root,
                                        join_secret=join_secret, clock=clock)
        self.service = web_server.ProgressService(app, "127.0.0.1", self.port).start()
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.service.stop()
        self.store.close()


@pytest.fixture
def service(tmp_path):
    running = Running(tmp_path)
    yield running
    running.stop()


def result(exercise="06-1", passed=False, attempt=1, hint="06.call_key.1"):
    return {"id": class_code.secrets.token_hex(16), "exercise": exercise, "passed": passed, "hint": hint,
            "attempt": attempt, "time": "2026-12-03T10:41:07Z"}


def post(service, body, key=CLASS_KEY, **kwargs):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx2.post(service.url + "/api/results", json=body, headers=headers, timeout=10, **kwargs)


TOKEN_A, TOKEN_B = "a" * 32, "b" * 32


def test_a_result_is_stored_once_however_often_it_is_sent(service):
    one = result()
    for _ in range(3):
        reply = post(service, {"name": "王小明", "token": TOKEN_A, "results": [one]})
        assert reply.status_code == 200 and reply.json()["ids"] == [one["id"]]
    assert [r["id"] for r in service.store.results()] == [one["id"]]


def test_neither_the_class_key_nor_a_joined_token_is_refused_in_chinese(service):
    """A token that never joined cannot create a student by posting: only /api/join (or the teacher's class key) can."""
    for key in ("", "course-class-" + "9" * 32, TOKEN_A):
        reply = post(service, {"name": "王小明", "token": TOKEN_A, "results": [result()]}, key=key)
        assert reply.status_code == 401 and "join" in reply.json()["error"]
    assert service.store.results() == [] and service.store.students() == []


def test_a_joined_student_posts_and_reads_with_their_own_token(service):
    joined = httpx2.post(service.url + "/api/join", json={"secret": SECRET, "name": "王小明", "token": TOKEN_A}, timeout=10)
    assert joined.status_code == 200
    one = result()
    reply = post(service, {"name": "王小明", "token": TOKEN_A, "results": [one]}, key=TOKEN_A)
    assert reply.status_code == 200 and reply.json()["stored"] == 1
    mine = httpx2.post(service.url + "/api/mine", json={"name": "王小明", "token": TOKEN_A},
                      headers={"Authorization": f"Bearer {TOKEN_A}"}, timeout=10)
    assert mine.status_code == 200 and [r["id"] for r in mine.json()["results"]] == [one["id"]]
    # the bearer must be the body's own token: a joined token cannot speak for another one
    other = post(service, {"name": "李雷", "token": TOKEN_B, "results": [result()]}, key=TOKEN_A)
    assert other.status_code == 401 and service.store.students() == ["王小明"]


def test_a_name_belongs_to_the_first_computer(service):
    assert post(service, {"name": "王小明", "token": TOKEN_A, "results": [result()]}).status_code == 200
    reply = post(service, {"name": "王小明", "token": TOKEN_B, "results": [result()]})
    assert reply.status_code == 409 and "王小明" in reply.json()["error"]
    assert len(service.store.results()) == 1


@pytest.mark.parametrize("name", ["<script>alert(1)</script>", "a" * 10_000, "", "   ", "tab\there", "x\u202ey",
                                  'quote"name', None, 12])
def test_a_hostile_or_empty_name_is_refused(service, name):
    reply = post(service, {"name": name, "token": TOKEN_A, "results": [result()]})
    assert reply.status_code == 400 and "名字" in reply.json()["error"]
    assert service.store.students() == []


@pytest.mark.parametrize("change", [
    {"exercise": "99"}, {"exercise": "06-1<b>"}, {"exercise": 61}, {"passed": "yes"}, {"attempt": 0},
    {"attempt": True}, {"hint": "<b>"}, {"time": "yesterday"}, {"id": "not-hex"}, {"code": "def f(): pass"},
])
def test_a_result_that_is_not_what_a_checker_writes_is_refused_alone(service, change):
    good, bad = result(), {**result("01-1"), **change}
    reply = post(service, {"name": "王小明", "token": TOKEN_A, "results": [good, bad]})
    assert reply.status_code == 200
    answer = reply.json()
    assert answer["ids"] == [good["id"]] and answer["stored"] == 1  # the good one is kept
    [refused] = answer["refused"]
    assert refused["index"] == 1 and refused["error"]
    assert refused["id"] == (bad["id"] if "id" not in change else None)  # echoed only in its right form
    assert [r["id"] for r in service.store.results()] == [good["id"]]


# An exercise this copy of the course does not know: the one after notebook 06's last (no fixed number).
UNKNOWN = "06-%d" % (max(int(e.split("-")[1]) for e in progress.EXERCISES if e.startswith("06-")) + 1)


def test_one_unknown_exercise_never_blocks_the_rest(service):
    """A student whose course is newer than the teacher's sends the next 06 exercise: kept, named, shown marked; the rest kept."""
    assert UNKNOWN not in progress.EXERCISES
    batch = [result("06-1", passed=True), result(UNKNOWN, passed=True), result("01-1")]
    reply = post(service, {"name": "王小明", "token": TOKEN_A, "results": batch})
    assert reply.status_code == 200
    answer = reply.json()
    assert answer["ids"] == [r["id"] for r in batch] and answer["stored"] == 3
    assert answer["unknown"] == [UNKNOWN] and answer["refused"] == []
    view = progress_page.class_view(service.store.results(), service.store.students(), now=0)
    assert view["exercises"][-1] == UNKNOWN and view["unknown"] == [UNKNOWN]
    assert view["exercises"][:-1] == list(progress.EXERCISES)
    assert view["students"][0]["cells"][UNKNOWN]["passed"] is True
    page = progress_page.render_page(view, {"health": "none"}, now=0)
    assert UNKNOWN + "？" in page and UNKNOWN in page.split("unknown")[-1]
    csv_rows = progress_page.render_csv(view).splitlines()
    assert csv_rows[0].split(",")[-2] == UNKNOWN and csv_rows[1].split(",")[-1] == "2"


def test_exercises_sort_by_number_not_text():
    unknown = progress_page.unknown_exercises([{"exercise": e} for e in ("06-10", "06-9", "99-1", "06-9")])
    assert unknown == ["06-9", "06-10", "99-1"]


def test_bodies_are_size_bounded(service):
    many = [result() for _ in range(progress_service.MAX_RESULTS + 1)]
    assert post(service, {"name": "王小明", "token": TOKEN_A, "results": many}).status_code == 413
    huge = json.dumps({"name": "王小明", "token": TOKEN_A, "results": [], "pad": "x" * 100_000})
    reply = httpx2.post(service.url + "/api/results", content=huge, timeout=10,
                       headers={"Authorization": f"Bearer {CLASS_KEY}", "Content-Type": "application/json"})
    assert reply.status_code == 413

    def chunks():  # no Content-Length: the service counts what arrives
        for _ in range(20):
            yield b"x" * 10_000

    reply = httpx2.post(service.url + "/api/results", content=chunks(), timeout=10,
                       headers={"Authorization": f"Bearer {CLASS_KEY}"})
    assert reply.status_code == 413
    assert httpx2.post(service.url + "/api/results", content=b"\xff\xfe{", timeout=10,
                      headers={"Authorization": f"Bearer {CLASS_KEY}"}).status_code == 400


def test_a_student_reads_back_only_their_own_results(service):
    post(service, {"name": "王小明", "token": TOKEN_A, "results": [result("06-1"), result("06-2")]})
    post(service, {"name": "李华", "token": TOKEN_B, "results": [result("01-1")]})
    auth = {"Authorization": f"Bearer {CLASS_KEY}"}
    mine = httpx2.post(service.url + "/api/mine", json={"name": "李华", "token": TOKEN_B}, headers=auth, timeout=10)
    assert mine.status_code == 200 and [r["exercise"] for r in mine.json()["results"]] == ["01-1"]
    theirs = httpx2.post(service.url + "/api/mine", json={"name": "王小明", "token": TOKEN_B}, headers=auth, timeout=10)
    assert theirs.status_code == 409
    for path in ("/api/class", "/teacher.csv"):  # the class key opens nothing of the teacher's
        assert httpx2.get(service.url + path, headers=auth, timeout=10).status_code == 401
    page = httpx2.get(service.url + "/teacher", headers=auth, timeout=10)
    assert page.status_code == 303 and page.headers["location"] == "/login"


def test_the_teacher_sees_everyone_with_the_teacher_key(service):
    post(service, {"name": "王小明", "token": TOKEN_A, "results": [result("06-1"), result("06-1", attempt=2),
                                                                  result("06-1", True, 3, "06.call_key.7")]})
    post(service, {"name": "Tom & Jerry's", "token": TOKEN_B, "results": [result("01-1")]})
    teacher = {"Authorization": f"Bearer {TEACHER_KEY}"}
    view = httpx2.get(service.url + "/api/class", headers=teacher, timeout=10).json()
    rows = {row["name"]: row for row in view["students"]}
    assert rows["王小明"]["cells"]["06-1"] == {"passed": True, "attempts": 3, "hint": "06.call_key.7"}
    page = httpx2.get(service.url + "/teacher", headers=teacher, timeout=10)
    assert page.status_code == 200 and "王小明" in page.text and "✓3" in page.text


def test_names_reach_the_page_as_text(service, tmp_path):
    store = progress_store.ProgressStore(tmp_path / "direct.sqlite3")  # a name the API would refuse, stored anyway
    store.claim("<img src=x onerror=alert(1)>", TOKEN_A)
    store.add("<img src=x onerror=alert(1)>", [result()])
    view = progress_page.class_view(store.results(), store.students(), time.time())
    html = progress_page.render_page(view, {"health": "none"}, time.time())
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    store.close()


def test_login_sets_a_cookie_and_a_wrong_key_does_not(service):
    with httpx2.Client(base_url=service.url, timeout=10) as browser:
        wrong = browser.post("/login", data={"key": "guess"})
        assert wrong.status_code == 303 and wrong.headers["location"] == "/login?wrong=1"
        assert browser.get("/teacher").status_code == 303
        right = browser.post("/login", data={"key": TEACHER_KEY})
        assert right.status_code == 303 and "httponly" in right.headers["set-cookie"].lower()
        assert "samesite=strict" in right.headers["set-cookie"].lower()
        assert browser.get("/teacher").status_code == 200


def test_the_csv_is_for_a_spreadsheet(service):
    post(service, {"name": "=1+2", "token": TOKEN_A, "results": [result("06-1", True)]})
    post(service, {"name": "李华", "token": TOKEN_B, "results": [result("01-1"), result("01-1", attempt=2)]})
    reply = httpx2.get(service.url + "/teacher.csv", headers={"Authorization": f"Bearer {TEACHER_KEY}"}, timeout=10)
    assert reply.status_code == 200 and reply.content.startswith(b"\xef\xbb\xbf")  # UTF-8 BOM for Excel
    rows = [line.split(",") for line in reply.content.decode("utf-8-sig").splitlines()]
    header = rows[0]
    assert header[1:-1] == list(progress.EXERCISES)
    by_name = {row[0]: row for row in rows[1:]}
    assert by_name["'=1+2"][header.index("06-1")] == "passed"  # a formula stays text
    assert by_name["李华"][header.index("01-1")] == "failed:2" and by_name["李华"][-1] == "0"


def test_who_seems_stuck():
    now = 10_000.0
    rows = [dict(id=str(i), name="甲", exercise="06-2", passed=False, hint="06.agent_loop.4", attempt=i,
                 time="", received=now - 100 + i) for i in range(1, 4)]
    rows += [dict(id="q", name="乙", exercise="01-1", passed=True, hint="", attempt=1, time="",
                  received=now - progress_page.QUIET_S - 5)]
    view = progress_page.class_view(rows, ["甲", "乙", "丙"], now)
    stuck = {row["name"]: row["stuck"] for row in view["students"]}
    assert stuck == {"甲": "failures", "乙": "quiet", "丙": "quiet"}
    first = view["students"][0]
    assert "06-2" in progress_page.stuck_reason(first, now) and "3" in progress_page.stuck_reason(first, now)
    rows.append(dict(id="p", name="甲", exercise="06-2", passed=True, hint="", attempt=4, time="", received=now))
    assert progress_page.class_view(rows, ["甲"], now)["students"][0]["stuck"] is None


def test_the_model_servers_state_from_its_metrics():
    text = ("# HELP llamacpp:requests_processing Number of requests processing.\n"
            "llamacpp:requests_processing 2\nllamacpp:requests_deferred 5\n"
            "llamacpp:predicted_tokens_seconds 17.25\n")
    values = progress_page.parse_metrics(text)
    assert values["llamacpp:requests_deferred"] == 5.0
    line = progress_page.model_line({"health": "ok", "health_ms": 3.2, "processing": 2, "deferred": 5,
                                        "tokens_per_s": 17.25})
    assert "2" in line and "排队 5" in line and "17.2" in line
    assert "连不上" in progress_page.model_line(progress_page.model_state(f"http://127.0.0.1:{free_port()}", None))


# --------------------------------------------------------------------------- joining with the class code


def test_joining_hands_out_the_env_lines_for_the_right_secret(service, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "student"))
    code = class_code.make_code("127.0.0.1", service.port, SECRET)
    env = tmp_path / ".env"
    env.write_text("COURSE_CLASS_KEY=course-class-left-by-an-older-join\nCOURSE_MODEL_NOTE=kept\n", encoding="utf-8")
    assert class_code.join(code, "王小明", env_path=env) == 0
    from dotenv import dotenv_values

    values = dotenv_values(env)
    assert "COURSE_CLASS_KEY" not in values and CLASS_KEY not in env.read_text(encoding="utf-8")  # stays home
    assert values["COURSE_STUDENT_NAME"] == "王小明"
    assert values["COURSE_BASE_URL"] == service.url + "/v1"  # the teacher's door to the model (class_gateway)
    assert values["COURSE_PROGRESS_URL"] == service.url and values["COURSE_MODEL_NOTE"] == "kept"
    assert service.store.students() == ["王小明"]


def test_a_wrong_secret_is_refused_and_guessing_is_slowed(service, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "student"))
    wrong = class_code.make_code("127.0.0.1", service.port, "ffffffffff")
    env = tmp_path / ".env"
    assert class_code.join(wrong, "王小明", env_path=env) == 1
    assert "班级代码不对" in capsys.readouterr().err and not env.exists()
    for _ in range(progress_service.JOIN_FAILURES_PER_MINUTE):
        httpx2.post(service.url + "/api/join", json={"secret": "x", "name": "a", "token": TOKEN_A}, timeout=10)
    right = httpx2.post(service.url + "/api/join", json={"secret": SECRET, "name": "a", "token": TOKEN_A}, timeout=10)
    assert right.status_code == 429  # even the right secret waits: the limit is for everyone


def test_joining_an_unreachable_teacher_says_what_to_check(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "student"))
    code = class_code.make_code("127.0.0.1", free_port(), SECRET)
    assert class_code.join(code, "王小明", env_path=tmp_path / ".env") == 1
    assert "Wi-Fi" in capsys.readouterr().err


# --------------------------------------------------------------------------- the student's sender


@pytest.fixture
def student(tmp_path, monkeypatch):
    """A student's computer in class: a progress folder and the three values ``join`` writes."""
    folder = tmp_path / "student"
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(folder))
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    monkeypatch.setenv("COURSE_STUDENT_NAME", "王小明")
    monkeypatch.setenv("COURSE_CLASS_KEY", CLASS_KEY)
    monkeypatch.setattr(progress, "_retry_at", {})
    monkeypatch.setattr(progress, "_said", set())
    return folder


def test_a_checker_result_reaches_the_teacher(service, student, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS_URL", service.url)
    nb06.check_call_key("not a function")
    stored = service.store.results("王小明")
    assert [r["exercise"] for r in stored] == ["06-1"]
    assert progress.sent_ids(student) == {stored[0]["id"]}


def test_nothing_is_lost_while_the_teacher_is_away(tmp_path, student, monkeypatch, capsys):
    port = free_port()
    monkeypatch.setenv("COURSE_PROGRESS_URL", f"http://127.0.0.1:{port}")
    started = time.monotonic()
    for _ in range(3):
        nb06.check_call_key("not a function")
    assert time.monotonic() - started < 3 * progress.TIMEOUT_S
    err = capsys.readouterr().err
    assert err.count("暂时没发到老师的电脑") == 1  # one short line, once
    assert len(progress.read_results(student)) == 3 and progress.sent_ids(student) == set()
    # The teacher's command comes back (on that port): the next result takes the waiting ones along.
    store = progress_store.ProgressStore(tmp_path / "db.sqlite3")
    app = progress_service.make_app(store, CLASS_KEY, TEACHER_KEY)
    back = web_server.ProgressService(app, "127.0.0.1", port).start()
    try:
        monkeypatch.setattr(progress, "_retry_at", {})
        nb06.check_call_key("not a function")
        assert len(store.results("王小明")) == 4 and len(progress.sent_ids(student)) == 4
    finally:
        back.stop()
        store.close()


def test_a_teacher_that_never_answers_costs_a_checker_two_seconds_at_most(student, monkeypatch):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)  # accepts connections, never answers
    monkeypatch.setenv("COURSE_PROGRESS_URL", f"http://127.0.0.1:{listener.getsockname()[1]}")
    try:
        started = time.monotonic()
        nb06.check_call_key("not a function")
        first = time.monotonic() - started
        started = time.monotonic()
        nb06.check_call_key("not a function")  # within RETRY_AFTER_S: not even tried
        second = time.monotonic() - started
    finally:
        listener.close()
    assert first < progress.TIMEOUT_S + 1.0 and second < 0.5
    assert len(progress.read_results(student)) == 2


def test_a_refused_post_says_why_once_and_keeps_the_results(service, student, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_PROGRESS_URL", service.url)
    monkeypatch.setenv("COURSE_CLASS_KEY", "course-class-" + "9" * 32)
    nb06.check_call_key("not a function")
    assert "401" in capsys.readouterr().err and service.store.results() == []
    assert len(progress.read_results(student)) == 1


def test_a_student_is_told_which_exercise_the_teachers_copy_does_not_know(service, tmp_path, capsys, monkeypatch):
    """The student's side of the post above: every result acknowledged, one line naming it and what to do."""
    folder = tmp_path / "student"
    monkeypatch.setattr(progress, "_said", set())
    monkeypatch.setattr(progress, "class_settings", lambda: None)  # recorded outside a class first: kept, not posted
    settings = {"url": service.url, "name": "王小明", "key": CLASS_KEY}
    progress.record("06-1", True, "check.06.call_key.5", folder=folder)
    progress.record(UNKNOWN, False, "check.generic.differs", folder=folder)
    assert progress.send_pending(folder, settings) == 2
    assert progress.sent_ids(folder) == {r["id"] for r in progress.read_results(folder)}
    said = capsys.readouterr().err
    assert UNKNOWN in said and "git pull" in said and "06-1" not in said
