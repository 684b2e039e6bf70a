"""One student, one identity (issue 43 part 3): the progress service's names and the student token.

Attacks a classmate can make on the class view (``python course.py serve`` / ``join``), each over
real HTTP on loopback (the service of tests/test_progress_service.py, on a free port):

* one student token taking many names (also through the read-only ``/api/mine``);
* a name that looks like a classmate's (Kangxi radicals, Cyrillic, Greek, fullwidth letters:
  Unicode TR39 skeletons) or that has no visible character (zero-width, bidi controls,
  variation selectors, a combining mark alone, only spaces);
* a copied course folder carrying the student token (it lives per OS user now:
  ``class_code.token_dir``), and the same student's re-downloaded course keeping its name;
* ``join`` writing a name ``.env`` cannot hold (``#``, ``${HOME}``, ``'``), and telling a
  namesake something true.
"""

from __future__ import annotations

import os
import shutil
import sys

import httpx2
import pytest

from test_progress_service import CLASS_KEY, SECRET, TOKEN_A, TOKEN_B, Running, post, result

from course_runtime import class_code, progress_store, setup_check, web_requests

AUTH = {"Authorization": f"Bearer {CLASS_KEY}"}


@pytest.fixture
def service(tmp_path):
    running = Running(tmp_path)
    yield running
    running.stop()


def mine(service, name, token):
    return httpx2.post(service.url + "/api/mine", json={"name": name, "token": token}, headers=AUTH, timeout=10)


def join(service, name, token):
    return httpx2.post(service.url + "/api/join", json={"secret": SECRET, "name": name, "token": token}, timeout=10)


# --------------------------------------------------------------------------- one name per token


def test_one_token_cannot_take_a_second_name(service):
    assert post(service, {"name": "王小明", "token": TOKEN_A, "results": [result()]}).status_code == 200
    for name in ("李华", "学生乙"):
        reply = post(service, {"name": name, "token": TOKEN_A, "results": [result()]})
        assert reply.status_code == 409 and "王小明" in reply.json()["error"]
    assert join(service, "李华", TOKEN_A).status_code == 409
    assert service.store.students() == ["王小明"]
    assert post(service, {"name": "王小明", "token": TOKEN_A, "results": [result()]}).status_code == 200


def test_reading_back_creates_no_student(service):
    for n in range(40):
        reply = mine(service, f"学生{n}", TOKEN_A)
        assert reply.status_code == 404 and "名字" in reply.json()["error"]
    assert service.store.students() == []
    assert post(service, {"name": "学生3", "token": TOKEN_B, "results": [result()]}).status_code == 200
    assert mine(service, "学生3", TOKEN_B).status_code == 200
    assert mine(service, "学生3", TOKEN_A).status_code == 409  # someone else's name: still nothing of theirs
    assert service.store.students() == ["学生3"]


def test_a_second_name_at_join_offers_a_new_token_and_never_names_the_first(service):
    """Whoever holds the token on a shared computer account may be the next student: the first name stays unsaid."""
    assert join(service, "王小明", TOKEN_A).status_code == 200
    reply = join(service, "王小明2", TOKEN_A)
    assert reply.status_code == 409 and "王小明" not in reply.json()["error"].replace("王小明2", "")
    assert "--new-token" in reply.json()["error"]
    assert join(service, "王小明", TOKEN_A).status_code == 200  # joining again under one's own name is fine


# --------------------------------------------------------------------------- names that look alike or show nothing


@pytest.mark.parametrize("first, second", [
    ("王小明", "王\u2f29明"),        # KANGXI RADICAL SMALL (NFKC)
    ("民主", "\u2ea0主"),            # CJK RADICAL CIVILIAN (TR39 only)
    ("Anna", "\u0410nna"),           # CYRILLIC CAPITAL A
    ("ANNA", "\u0391\u039d\u039d\u0391"),  # Greek capitals
    ("Anna", "\uff21\uff4e\uff4e\uff41"),  # fullwidth
    ("王小明", "王小明 "),            # a space at the end
    ("王 小明", "王  小明"),          # two spaces for one
])
def test_a_lookalike_name_is_taken(service, first, second):
    assert post(service, {"name": first, "token": TOKEN_A, "results": [result()]}).status_code == 200
    reply = post(service, {"name": second, "token": TOKEN_B, "results": [result()]})
    assert reply.status_code == 409 and first in reply.json()["error"] and "名字" in reply.json()["error"]
    assert join(service, second, TOKEN_B).status_code == 409
    assert service.store.students() == [first]


@pytest.mark.parametrize("name", [
    "\u200b", "王小明\u200b", "王\u200d小明", "\u202e王小明", "王\u2066小明\u2069", "王小明\ufe0f", "王小明\U000e0100",
    "\u0301", "\u0301王小明", "王 \u0301", "\u3164", "\u2800", "\u3000\u3000", " \t ", "王\u00ad小明", "\ufeff王",
])
def test_a_name_with_nothing_visible_or_hidden_characters_is_refused(service, name):
    reply = post(service, {"name": name, "token": TOKEN_A, "results": [result()]})
    assert reply.status_code == 400 and "名字" in reply.json()["error"], name.encode("unicode-escape")
    assert join(service, name, TOKEN_A).status_code == 400
    assert service.store.students() == []


@pytest.mark.parametrize("given, stored", [
    ("王小明 #12", "王小明 #12"), ("a${HOME}b", "a${HOME}b"), ("Jose\u0301", "José"), ("\uff21nna", "Anna"),
    ("  王  小明 ", "王 小明"), ("नमस्ते", "नमस्ते"),
])
def test_ordinary_names_are_kept_in_their_normal_form(given, stored):
    assert progress_store.valid_name(given) == stored


def test_an_old_database_gets_skeletons_and_keeps_its_students(tmp_path):
    import sqlite3

    path = tmp_path / "class-progress.sqlite3"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE students (name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, joined TEXT NOT NULL);")
    db.execute("INSERT INTO students VALUES ('Anna', ?, '2026-01-01T00:00:00Z')",
               (progress_store._token_hash(TOKEN_A),))
    db.commit()
    db.close()
    store = progress_store.ProgressStore(path)
    try:
        assert store.students() == ["Anna"]
        with pytest.raises(web_requests.BadRequest) as refused:
            store.claim("\u0410nna", TOKEN_B)
        assert refused.value.status == 409
        assert store.claim("Anna", TOKEN_A) == "Anna"
    finally:
        store.close()


# --------------------------------------------------------------------------- the token lives per OS user


def test_the_token_lives_in_the_users_folder_not_the_course(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "course" / ".progress"))
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "user"))
    token = class_code.student_token()
    assert (tmp_path / "user" / "student-token").read_text(encoding="utf-8").strip() == token
    assert not (tmp_path / "course").exists()
    if sys.platform != "win32":
        assert (tmp_path / "user" / "student-token").stat().st_mode & 0o077 == 0


def test_a_copied_course_folder_does_not_carry_the_token(tmp_path, monkeypatch):
    course = tmp_path / "wang" / "course"
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(course / ".progress"))
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "wang" / "config"))
    (course / ".progress").mkdir(parents=True)
    (course / ".progress" / "results.jsonl").write_text("", encoding="utf-8")
    wang = class_code.student_token()
    shutil.copytree(course, tmp_path / "li" / "course")  # a classmate copies the folder
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "li" / "course" / ".progress"))
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "li" / "config"))
    assert class_code.student_token() != wang


def test_a_redownloaded_course_keeps_the_students_name(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "old-course" / ".progress"))
    first = class_code.student_token()
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "new-course" / ".progress"))
    assert class_code.student_token() == first


def test_an_old_token_in_the_course_folder_is_moved_once(tmp_path, monkeypatch):
    old = tmp_path / "course" / ".progress" / "student-token"
    old.parent.mkdir(parents=True)
    old.write_text("c" * 32 + "\n", encoding="utf-8")
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(old.parent))
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "config"))
    assert class_code.student_token() == "c" * 32
    assert not old.exists()
    new = tmp_path / "config" / "student-token"
    assert new.read_text(encoding="utf-8").strip() == "c" * 32
    if sys.platform != "win32":
        assert new.stat().st_mode & 0o077 == 0
    old.write_text("d" * 32 + "\n", encoding="utf-8")  # a folder copied in later: the user's own token stays
    assert class_code.student_token() == "c" * 32


@pytest.mark.parametrize("platform, env, want", [
    ("win32", {"APPDATA": "C:/Users/wang/AppData/Roaming"}, "C:/Users/wang/AppData/Roaming/llm-agent-course"),
    ("darwin", {}, "~/Library/Application Support/llm-agent-course"),
    ("linux", {"XDG_CONFIG_HOME": "/home/wang/.cfg"}, "/home/wang/.cfg/llm-agent-course"),
    ("linux", {}, "~/.config/llm-agent-course"),
])
def test_the_users_config_folder_on_each_os(monkeypatch, platform, env, want):
    for name in ("COURSE_STUDENT_TOKEN_DIR", "APPDATA", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(class_code.sys, "platform", platform)
    assert class_code.token_dir().as_posix() == os.path.expanduser(want).replace("\\", "/")


# --------------------------------------------------------------------------- join writes what .env can hold


@pytest.mark.parametrize("name", ["王小明 #12", "a${HOME}b", "${HOME}", "$HOME", "it's", "x'#'y", "back\\slash\\",
                                  "王小明", "a ${X:-y} b"])
def test_join_writes_a_name_env_reads_back(tmp_path, monkeypatch, name):
    monkeypatch.setenv("X", "oops")
    env = tmp_path / ".env"
    env.write_text("COURSE_STUDENT_NAME=old\n", encoding="utf-8")
    class_code.write_env({"COURSE_STUDENT_NAME": name, "COURSE_PROVIDER": "classroom"}, env)
    from dotenv import dotenv_values

    assert dotenv_values(env)["COURSE_STUDENT_NAME"] == name
    assert dotenv_values(env)["COURSE_PROVIDER"] == "classroom"
    lines = env.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and setup_check.dotenv_line(lines[1]) == ("COURSE_PROVIDER", "classroom")


def test_join_names_the_env_it_wrote_and_the_name_reads_back(service, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "config"))
    code = class_code.make_code("127.0.0.1", service.port, SECRET)
    env = tmp_path / "course" / ".env"
    env.parent.mkdir()
    assert class_code.join(code, "王小明 #12", env_path=env) == 0
    assert str(env) in capsys.readouterr().out
    from dotenv import dotenv_values

    assert dotenv_values(env)["COURSE_STUDENT_NAME"] == "王小明 #12"


def test_a_namesake_at_join_is_told_to_choose_another_name(service, tmp_path, monkeypatch, capsys):
    assert join(service, "王小明", TOKEN_A).status_code == 200
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "config"))
    code = class_code.make_code("127.0.0.1", service.port, SECRET)
    env = tmp_path / ".env"
    assert class_code.join(code, "王小明", env_path=env) == 1
    err = capsys.readouterr().err
    assert "--name" in err and "王小明" in err and ".env" not in err and "另一台电脑" not in err
    assert not env.exists()
