"""Identities that cost something (the security review's issue, part 2): names, tokens and results.

Before this, one laptop joined under all 40 names of a class list in half a second, a shared
school-lab account told the next student to join under the previous student's name, and a copied
course folder sent the classmate's recorded results under the new student's name.  Here, over
real HTTP on loopback (the service of tests/test_progress_service.py, on a free port):

* at most ``progress_store.JOINS_PER_ADDRESS`` new names per address for the life of a ``serve``;
* the teacher's page names the students whose names joined from one address;
* the teacher's actions (``teacher_actions``: release, rename, merge), refused to anyone else;
* ``python course.py join`` on a shared computer account offers ``--new-token``, never the other name;
* results bound to the student token they were recorded under (``progress.TOKEN_FIELD``).
"""

from __future__ import annotations

import hashlib
import json
import shutil

import httpx2
import pytest

from machine_support import free_port
from test_progress_service import CLASS_KEY, SECRET, TEACHER_KEY, TOKEN_A, TOKEN_B, result, service  # noqa: F401

from course_runtime import class_code, progress, progress_page, progress_store
from course_runtime.progress_store import JOINS_PER_ADDRESS, ProgressStore
from course_runtime.web_requests import BadRequest

TEACHER = {"Authorization": f"Bearer {TEACHER_KEY}"}


def token(n: int) -> str:
    return f"{n:032x}"


def join(service, name, student_token):
    return httpx2.post(service.url + "/api/join", json={"secret": SECRET, "name": name, "token": student_token},
                      timeout=10)


def post_as(service, name, student_token, results):
    return httpx2.post(service.url + "/api/results", json={"name": name, "token": student_token, "results": results},
                      headers={"Authorization": f"Bearer {student_token}"}, timeout=10)


def act(service, path, body, headers=TEACHER):
    return httpx2.post(service.url + path, json=body, headers=headers, timeout=10)


# --------------------------------------------------------------------------- 1. joins per address


def test_forty_joins_from_one_address_get_only_the_limit(service):
    replies = [join(service, f"学生{n}", token(n)) for n in range(40)]
    assert [r.status_code for r in replies] == [200] * JOINS_PER_ADDRESS + [429] * (40 - JOINS_PER_ADDRESS)
    assert "老师" in replies[-1].json()["error"]
    assert sorted(service.store.students()) == [f"学生{n}" for n in range(JOINS_PER_ADDRESS)]
    assert join(service, "学生0", token(0)).status_code == 200  # a token re-joining under its own name: free
    assert service.store.joined_from() == {f"学生{n}": "127.0.0.1" for n in range(JOINS_PER_ADDRESS)}


def test_the_join_limit_is_per_address_and_per_store(tmp_path):
    store = ProgressStore(tmp_path / "db.sqlite3")
    try:
        for n in range(JOINS_PER_ADDRESS):
            store.claim(f"甲{n}", token(n), joining=True, address="10.0.0.7")
        with pytest.raises(BadRequest) as refused:
            store.claim("甲x", token(99), joining=True, address="10.0.0.7")
        assert refused.value.status == 429 and "老师" in refused.value.message
        assert store.claim("乙", token(50), joining=True, address="10.0.0.8") == "乙"  # another computer
    finally:
        store.close()
    again = ProgressStore(tmp_path / "db.sqlite3")  # the next serve: a new lesson
    try:
        assert again.claim("甲x", token(99), joining=True, address="10.0.0.7") == "甲x"
        assert again.joined_from()["甲0"] == "10.0.0.7"
    finally:
        again.close()


def test_an_old_database_gets_the_joined_from_column(tmp_path):
    import sqlite3

    path = tmp_path / "class-progress.sqlite3"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE students (name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, joined TEXT NOT NULL,"
                     " skeleton TEXT);")
    db.execute("INSERT INTO students VALUES ('Anna', ?, '2026-01-01T00:00:00Z', NULL)",
               (progress_store.token_hash(TOKEN_A),))
    db.commit()
    db.close()
    store = ProgressStore(path)
    try:
        assert store.students() == ["Anna"] and store.joined_from() == {"Anna": None}
        assert store.claim("Anna", TOKEN_A, joining=True, address="10.0.0.7") == "Anna"
    finally:
        store.close()


# --------------------------------------------------------------------------- 2. names from one address


def test_the_page_names_the_students_who_joined_from_one_computer(tmp_path):
    store = ProgressStore(tmp_path / "db.sqlite3")
    try:
        store.claim("甲", token(1), joining=True, address="10.0.0.7")
        store.claim("<b>乙", token(2), joining=True, address="10.0.0.7")
        store.claim("丙", token(3), joining=True, address="10.0.0.8")
        view = progress_page.class_view(store.results(), store.students(), 0.0, joined_from=store.joined_from())
    finally:
        store.close()
    rows = {row["name"]: row for row in view["students"]}
    assert rows["甲"]["same_computer"] == ["<b>乙"] and rows["<b>乙"]["same_computer"] == ["甲"]
    assert rows["丙"]["same_computer"] == []
    json.dumps(view)  # /api/class sends the view as it is
    html = progress_page.render_page(view, {"health": "none"}, 0.0)
    assert "同一台电脑" in html and "&lt;b&gt;乙" in html and "<b>乙" not in html
    assert html.count("同一台电脑") == 2  # 甲's row and 乙's row, not 丙's


def test_the_page_has_a_form_for_each_teacher_action():
    html = progress_page.render_page(progress_page.class_view([], [], 0.0), {"health": "none"}, 0.0)
    for path in ("/teacher/release", "/teacher/rename", "/teacher/merge"):
        assert f'method="post" action="{path}"' in html


# --------------------------------------------------------------------------- 3. the teacher's actions


def test_release_lets_the_student_join_again_with_a_fresh_token(service):
    assert join(service, "王小明", TOKEN_A).status_code == 200
    assert post_as(service, "王小明", TOKEN_A, [result()]).status_code == 200
    reply = act(service, "/teacher/release", {"name": "王小明"})
    assert reply.status_code == 200 and "王小明" in reply.json()["message"] and "join" in reply.json()["message"]
    assert post_as(service, "王小明", TOKEN_A, [result()]).status_code == 401  # the old token: forgotten
    assert join(service, "王小明", TOKEN_B).status_code == 200
    assert post_as(service, "王小明", TOKEN_B, [result()]).status_code == 200
    assert len(service.store.results("王小明")) == 2  # kept
    assert act(service, "/teacher/release", {"name": "没有这个人"}).status_code == 404


def test_a_released_name_is_not_taken_by_a_token_that_has_a_name(service):
    assert join(service, "甲", TOKEN_A).status_code == 200
    assert join(service, "乙", TOKEN_B).status_code == 200
    assert act(service, "/teacher/release", {"name": "甲"}).status_code == 200
    assert join(service, "甲", TOKEN_B).status_code == 409
    assert service.store.student_of(progress_store.token_hash(TOKEN_B)) == "乙"


def test_rename_keeps_the_results_and_checks_the_name(service):
    assert join(service, "王小明", TOKEN_A).status_code == 200
    assert join(service, "李华", TOKEN_B).status_code == 200
    assert post_as(service, "王小明", TOKEN_A, [result(), result()]).status_code == 200
    reply = act(service, "/teacher/rename", {"from": "王小明", "to": "王小明 #12"})
    assert reply.status_code == 200 and "王小明 #12" in reply.json()["message"]
    assert set(service.store.students()) == {"王小明 #12", "李华"} and len(service.store.results("王小明 #12")) == 2
    assert post_as(service, "王小明 #12", TOKEN_A, [result()]).status_code == 200  # the same token, its new name
    assert act(service, "/teacher/rename", {"from": "王小明 #12", "to": "\u674e华"}).status_code == 409
    assert act(service, "/teacher/rename", {"from": "王小明 #12", "to": "<b>"}).status_code == 400
    assert act(service, "/teacher/rename", {"from": "没有这个人", "to": "新"}).status_code == 404
    assert set(service.store.students()) == {"王小明 #12", "李华"}


def test_merge_moves_every_result_and_removes_the_name(service):
    assert join(service, "王小明", TOKEN_A).status_code == 200
    assert join(service, "小明", TOKEN_B).status_code == 200
    assert post_as(service, "王小明", TOKEN_A, [result(), result()]).status_code == 200
    assert post_as(service, "小明", TOKEN_B, [result()]).status_code == 200
    reply = act(service, "/teacher/merge", {"from": "小明", "into": "王小明"})
    assert reply.status_code == 200 and "小明" in reply.json()["message"] and reply.json()["moved"] == 1
    assert service.store.students() == ["王小明"] and len(service.store.results("王小明")) == 3
    assert act(service, "/teacher/merge", {"from": "王小明", "into": "王小明"}).status_code == 400
    assert act(service, "/teacher/merge", {"from": "没有", "into": "王小明"}).status_code == 404


@pytest.mark.parametrize("path, body", [("/teacher/release", {"name": "王小明"}),
                                        ("/teacher/rename", {"from": "王小明", "to": "新名字"}),
                                        ("/teacher/merge", {"from": "王小明", "into": "李华"})])
def test_the_teacher_actions_are_refused_to_anyone_else(service, path, body):
    assert join(service, "王小明", TOKEN_A).status_code == 200
    assert join(service, "李华", TOKEN_B).status_code == 200
    for headers, status in (({}, 401), ({"Authorization": f"Bearer {TOKEN_A}"}, 401),
                            ({"Authorization": f"Bearer {CLASS_KEY}"}, 401),
                            ({**TEACHER, "Origin": "http://evil.example"}, 403),
                            ({**TEACHER, "Origin": f"http://127.0.0.1:{free_port()}"}, 403)):
        reply = act(service, path, body, headers)
        assert reply.status_code == status and reply.json()["error"], (headers, reply.text)
    assert set(service.store.students()) == {"王小明", "李华"}
    assert service.store.student_of(progress_store.token_hash(TOKEN_A)) == "王小明"


def test_a_form_from_the_page_gets_a_chinese_page_back(service):
    assert join(service, "王小明", TOKEN_A).status_code == 200
    reply = httpx2.post(service.url + "/teacher/release", data={"name": "王小明"},
                       headers={**TEACHER, "Origin": service.url}, timeout=10)
    assert reply.status_code == 200 and "text/html" in reply.headers["content-type"]
    assert "王小明" in reply.text and 'href="/teacher"' in reply.text


# --------------------------------------------------------------------------- 4. a shared computer account


@pytest.fixture
def account(tmp_path, monkeypatch):
    """One OS user's folder for the student token, and a course folder."""
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "course" / ".progress"))
    (tmp_path / "course").mkdir()
    return tmp_path


def test_the_next_student_on_a_shared_account_is_offered_a_new_token(service, account, capsys):
    code = class_code.make_code("127.0.0.1", service.port, SECRET)
    env = account / "course" / ".env"
    assert class_code.join(code, "王小明", env_path=env) == 0
    first = class_code.joined_token()
    capsys.readouterr()
    assert class_code.join(code, "李华", env_path=env) == 1
    err = capsys.readouterr().err
    assert "--new-token" in err and "共用" in err and "王小明" not in err
    assert class_code.join(code, "李华", env_path=env, new_token=True) == 0
    assert class_code.joined_token() != first
    backups = [p for p in (account / "config").iterdir() if p.name.startswith("student-token.")]
    assert [p.read_text(encoding="utf-8").strip() for p in backups] == [first]
    assert set(service.store.students()) == {"王小明", "李华"}
    assert service.store.joined_from() == {"王小明": "127.0.0.1", "李华": "127.0.0.1"}


def test_the_servers_refusal_never_names_the_other_student(service):
    assert join(service, "王小明", TOKEN_A).status_code == 200
    reply = join(service, "李华", TOKEN_A)
    assert reply.status_code == 409
    assert "--new-token" in reply.json()["error"] and "王小明" not in reply.json()["error"]


def test_a_token_that_joined_another_class_under_another_name_is_caught_here(service, account, capsys):
    """The teacher's service may not know the token (another class, a new database): this account's own record does."""
    class_code.remember_join(class_code.student_token(), "王小明", "10.0.0.9", 8767)
    code = class_code.make_code("127.0.0.1", service.port, SECRET)
    assert class_code.join(code, "李华", env_path=account / "course" / ".env") == 1
    err = capsys.readouterr().err
    assert "--new-token" in err and "王小明" not in err
    assert service.store.students() == []
    assert class_code.join(code, "王小明", env_path=account / "course" / ".env") == 0  # the same student: fine


def test_join_takes_the_new_token_flag_on_the_command_line(monkeypatch):
    seen = {}
    monkeypatch.setattr(class_code, "join", lambda code, name=None, new_token=False: seen.update(
        code=code, name=name, new_token=new_token) or 0)
    assert class_code.main(["ABCD", "--name", "李华", "--new-token"]) == 0
    assert seen == {"code": "ABCD", "name": "李华", "new_token": True}


# --------------------------------------------------------------------------- 5. results bound to their token


def sha(raw: str) -> str:
    return hashlib.sha256(raw.encode("ascii")).hexdigest()


def test_a_result_recorded_under_another_token_is_refused_by_the_service(service):
    assert join(service, "王小明", TOKEN_A).status_code == 200
    mine, theirs, old = result(), result(), result()
    body = [{**mine, progress.TOKEN_FIELD: sha(TOKEN_A)}, {**theirs, progress.TOKEN_FIELD: sha(TOKEN_B)}, old]
    reply = post_as(service, "王小明", TOKEN_A, body)
    assert reply.status_code == 200
    assert reply.json()["ids"] == [mine["id"], old["id"]]
    (refused,) = reply.json()["refused"]
    assert refused["index"] == 1 and refused["id"] == theirs["id"] and "令牌" in refused["error"]
    assert {r["id"] for r in service.store.results("王小明")} == {mine["id"], old["id"]}


def test_a_recorded_result_carries_the_hash_of_its_token(account):
    folder = account / "course" / ".progress"
    progress.record("06-1", False, "check.06.call_key.1", folder=folder, settings=None)
    (line,) = progress.read_results(folder)
    assert line[progress.TOKEN_FIELD] == sha(class_code.student_token())
    assert class_code.student_token() not in progress.results_file(folder).read_text(encoding="utf-8")


def test_a_copied_course_folder_never_sends_the_classmates_results(service, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(progress, "_retry_at", {})
    monkeypatch.setattr(progress, "_said", set())
    monkeypatch.setattr(progress, "class_settings", lambda: None)
    wang = tmp_path / "wang" / ".progress"
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "wang-config"))
    for _ in range(3):
        progress.record("06-1", False, "check.06.call_key.1", folder=wang)  # offline: nothing sent yet
    li = tmp_path / "li" / ".progress"
    shutil.copytree(wang, li)  # 李华 copies 王小明's course folder
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "li-config"))
    li_token = class_code.student_token()
    assert join(service, "李华", li_token).status_code == 200
    progress.record("06-1", True, "check.06.call_key.5", folder=li)
    capsys.readouterr()
    settings = {"url": service.url, "name": "李华", "key": ""}
    assert progress.send_pending(li, settings) == 1
    assert [r["passed"] for r in service.store.results("李华")] == [True]
    err = capsys.readouterr().err
    assert "3" in err and "别的学生令牌" in err
    assert progress.send_pending(li, settings) == 0
    assert "别的学生令牌" not in capsys.readouterr().err  # said once
    assert len(progress.read_results(li)) == 4  # the copied results stay on disk, unsent


def test_results_of_an_older_course_count_as_the_current_tokens(service, tmp_path, monkeypatch):
    """A result line without ``TOKEN_FIELD`` (recorded before it existed) is sent under the current token,
    unless ``join`` pinned the folder's old results to nobody (it was joined under another name before)."""
    monkeypatch.setattr(progress, "_retry_at", {})
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "config"))
    folder = tmp_path / "course" / ".progress"
    folder.mkdir(parents=True)
    old = {k: v for k, v in result().items()}
    progress.results_file(folder).write_text(json.dumps(old) + "\n", encoding="utf-8")
    student = class_code.student_token()
    assert join(service, "王小明", student).status_code == 200
    assert progress.send_pending(folder, {"url": service.url, "name": "王小明", "key": ""}) == 1
    assert [r["id"] for r in service.store.results("王小明")] == [old["id"]]


def test_join_under_a_new_name_leaves_the_folders_old_results_unsent(service, account, capsys, monkeypatch):
    monkeypatch.setattr(progress, "_retry_at", {})
    monkeypatch.setattr(progress, "_said", set())
    env = account / "course" / ".env"
    env.write_text("COURSE_STUDENT_NAME=王小明\n", encoding="utf-8")  # a classmate's folder, from an older course
    folder = account / "course" / ".progress"
    folder.mkdir()
    old = result()
    progress.results_file(folder).write_text(json.dumps(old) + "\n", encoding="utf-8")
    code = class_code.make_code("127.0.0.1", service.port, SECRET)
    assert class_code.join(code, "李华", env_path=env) == 0
    assert progress.send_pending(folder, {"url": service.url, "name": "李华", "key": ""}) == 0
    assert service.store.results() == [] and "别的学生令牌" in capsys.readouterr().err
