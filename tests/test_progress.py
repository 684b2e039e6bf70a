"""A student's own results (course_runtime/progress.py) and the class code (course_runtime/class_code.py), issue 32.

Here without any server: what a checker keeps, the table ``python course.py
progress`` prints, that keeping a result can never break a checker, and that
a class code survives every typo check.  The service itself, over real HTTP:
tests/test_progress_service.py.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
import pathlib
import pkgutil
import subprocess
import sys

import pytest

from notebook_cells import NOTEBOOKS, ROOT, course_cells, load_solution

from course_lib import checkers, texts
from course_runtime import class_code, progress
from course_lib.checkers import nb06


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A fresh progress folder, and no class (the tests never post anywhere unless they say so)."""
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(tmp_path / "progress"))
    monkeypatch.setenv("COURSE_STUDENT_TOKEN_DIR", str(tmp_path / "config"))
    for name in ("COURSE_PROGRESS_URL", "COURSE_STUDENT_NAME", "COURSE_CLASS_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    return tmp_path / "progress"


def test_a_checker_keeps_exactly_its_result(folder):
    nb06.check_call_key(lambda name, arguments: None)  # wrong: returns None for everything
    nb06.check_call_key("not a function")
    (first, second) = progress.read_results(folder)
    kept = {*progress.FIELDS, progress.TOKEN_FIELD}  # the SHA-256 of the token it was recorded under (not the token)
    assert set(first) == kept and set(second) == kept
    assert first["exercise"] == second["exercise"] == "06-1"
    assert first["passed"] is False and (first["attempt"], second["attempt"]) == (1, 2)
    assert second["hint"] == "06.call_key.1"  # the texts key of the sentence it printed (checkers/sentences.py)
    assert "check." + first["hint"] in texts.TEXTS["zh"]
    line = progress.results_file(folder).read_text(encoding="utf-8").splitlines()[0]
    assert "call_key" not in json.loads(line)["exercise"]  # nothing of the student's code or names


def test_what_is_kept_has_no_code_no_prompt_no_reply(folder):
    secret_code = "def call_key(name, arguments):  # 我的代码 PRIVATE-MARKER"
    namespace: dict = {}
    exec(secret_code + "\n    return None\n", namespace)
    nb06.check_call_key(namespace["call_key"])
    text = progress.results_file(folder).read_text(encoding="utf-8")
    assert "PRIVATE-MARKER" not in text and "我的代码" not in text
    assert list(json.loads(text)) == [*progress.FIELDS, progress.TOKEN_FIELD]


def test_checkers_are_tagged_with_the_exercise_of_their_cell():
    """Every checker a notebook's checker cell calls carries that cell's exercise id, and the ids are EXERCISES."""
    tagged = {}
    for module in pkgutil.iter_modules(checkers.__path__):
        if module.name.startswith("nb"):
            mod = importlib.import_module(f"course_lib.checkers.{module.name}")
            for name, value in vars(mod).items():
                if getattr(value, "exercise_id", None) and name.startswith("check_"):
                    tagged[(module.name, name)] = value.exercise_id
    assert sorted(tagged.values()) == sorted(progress.EXERCISES)
    for nb in NOTEBOOKS:
        for key, source in course_cells(nb, "checker").items():
            called = {name for (module, name), ex in tagged.items() if module == f"nb{nb.stem[:2]}" and name in source}
            assert called and all(tagged[(f"nb{nb.stem[:2]}", name)] == key for name in called), (nb.name, key)


def test_an_unknown_exercise_id_is_a_bug_caught_at_import():
    with pytest.raises(ValueError, match="EXERCISES"):
        checkers.exercise("99-9")


def test_a_folder_that_cannot_be_written_never_breaks_a_checker(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("COURSE_PROGRESS_DIR", str(blocker / "progress"))  # a folder under a file: OSError
    result = nb06.check_call_key("not a function")
    assert result.passed is False and "❌" in capsys.readouterr().out


def test_a_cut_off_line_loses_only_itself(folder):
    nb06.check_call_key("not a function")
    with progress.results_file(folder).open("a", encoding="utf-8") as f:
        f.write('{"id": "abc", "exerc')  # a crash mid-write
    nb06.check_call_key("not a function")
    assert [r["attempt"] for r in progress.read_results(folder)] == [1, 2]


def test_the_progress_table_and_command(folder):
    nb06.check_call_key("not a function")
    nb06.check_call_key(load_solution("06_agent_loop", "06-1")["call_key"])
    table = progress.progress_table(folder)
    assert list(table[texts.t("progress.column_exercise")]) == ["06-1"]
    assert list(table[texts.t("progress.column_passed")]) == ["✅"]
    assert list(table[texts.t("progress.column_attempts")]) == [2]
    out = subprocess.run([sys.executable, "-m", "course_runtime.progress"], cwd=ROOT, capture_output=True,
                         text=True, encoding="utf-8", timeout=120,
                         env={**_env(), "COURSE_PROGRESS_DIR": str(folder)})
    total = len(progress.EXERCISES)  # every exercise that has a checker (notebook 11's too)
    assert out.returncode == 0 and "06-1" in out.stdout and f"1 / {total}" in out.stdout, out.stdout + out.stderr


def test_the_progress_command_with_nothing_yet(folder):
    out = subprocess.run([sys.executable, "-m", "course_runtime.progress"], cwd=ROOT, capture_output=True,
                         text=True, encoding="utf-8", timeout=120,
                         env={**_env(), "COURSE_PROGRESS_DIR": str(folder)})
    assert out.returncode == 0 and "还没有练习结果" in out.stdout


def _env() -> dict:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("COURSE_PROGRESS")}
    env["COURSE_IGNORE_DOTENV"] = "1"
    return env


def test_the_student_token_is_made_once_and_private(folder):
    token = class_code.student_token()
    assert len(token) == 32 and class_code.student_token() == token
    if sys.platform != "win32":
        assert class_code.token_file().stat().st_mode & 0o077 == 0
    assert class_code.token_file() == folder.parent / "config" / "student-token"


# --------------------------------------------------------------------------- the class code


SECRET = "0a1b2c3d4e"


def test_a_class_code_reads_back():
    code = class_code.make_code("192.168.1.23", 8767, SECRET)
    assert len(code) == 24 and code.count("-") == 4
    assert class_code.read_code(code) == ("192.168.1.23", 8767, SECRET)
    sloppy = code.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    assert class_code.read_code(sloppy) == ("192.168.1.23", 8767, SECRET)


@pytest.mark.parametrize("address,port", [("10.0.0.1", 1), ("255.255.255.255", 65535), ("172.16.5.200", 8767)])
def test_every_address_and_port_reads_back(address, port):
    for _ in range(20):
        secret = class_code.new_secret()
        assert class_code.read_code(class_code.make_code(address, port, secret)) == (address, port, secret)


def test_every_single_typo_and_every_swap_is_caught():
    code = class_code.make_code("192.168.1.23", 8767, SECRET).replace("-", "")
    caught = 0
    for i, right in enumerate(code):
        for wrong in class_code.ALPHABET:
            if wrong != right:
                with pytest.raises(class_code.CodeError, match="输错"):
                    class_code.read_code(code[:i] + wrong + code[i + 1:])
                caught += 1
    for i in range(len(code) - 1):
        if code[i] != code[i + 1]:
            with pytest.raises(class_code.CodeError, match="输错"):
                class_code.read_code(code[:i] + code[i + 1] + code[i] + code[i + 2:])
            caught += 1
    assert caught >= 20 * 31


def test_a_code_too_short_or_with_a_foreign_character_says_so():
    code = class_code.make_code("192.168.1.23", 8767, SECRET)
    with pytest.raises(class_code.CodeError, match="20 个"):
        class_code.read_code(code[:-1])
    with pytest.raises(class_code.CodeError, match="'U'"):
        class_code.read_code("U" + code[1:])


def test_joining_writes_env_and_keeps_the_other_lines(tmp_path):
    env = tmp_path / ".env"
    env.write_bytes("# 我的设置\r\nCOURSE_LANGUAGE=zh\r\nCOURSE_CLASS_KEY=old\r\nCOURSE_CLASS_KEY=older\r\n"
                    .encode("utf-16"))  # Notepad's "Unicode"
    values = {"COURSE_PROVIDER": "classroom", "COURSE_BASE_URL": "http://10.0.0.5:8766/v1",
              "COURSE_CLASS_KEY": "course-class-" + "0" * 32, "COURSE_PROGRESS_URL": "http://10.0.0.5:8767",
              "COURSE_STUDENT_NAME": "王小明"}
    class_code.write_env(values, env)
    text = env.read_bytes().decode("utf-8")  # UTF-8, no BOM
    lines = text.splitlines()
    assert lines[:3] == ["# 我的设置", "COURSE_LANGUAGE=zh", "COURSE_CLASS_KEY=" + values["COURSE_CLASS_KEY"]]
    assert "older" not in text and "\r" not in text
    from dotenv import dotenv_values

    assert {k: v for k, v in dotenv_values(env).items() if k in values} == values


def test_joining_refuses_an_env_in_another_encoding_and_changes_nothing(tmp_path, monkeypatch, capsys):
    """A GBK .env (an old editor's) is not rewritten with replacement characters: nothing is written,
    the teacher is not even asked, and the sentence says how to save it as UTF-8."""
    env = tmp_path / ".env"
    gbk = "# 我的设置\nCOURSE_LANGUAGE=zh\n".encode("gbk")
    env.write_bytes(gbk)
    with pytest.raises(class_code.CodeError, match="UTF-8"):
        class_code.write_env({"COURSE_PROVIDER": "classroom"}, env)
    asked = []
    monkeypatch.setattr(class_code, "ask_service", lambda *args: asked.append(args))
    code = class_code.make_code("10.0.0.5", 8767, "ab" * 5)
    assert class_code.join(code, "王小明", env_path=env) == 1
    assert env.read_bytes() == gbk and asked == []
    assert "另存为" in capsys.readouterr().err


# --------------------------------------------------------------------------- issue 44: joining, as students really do

FULL_WIDTH = {c: chr(ord(c) + 0xFEE0) for c in "0123456789ABCDEFGHJKMNPQRSTVWXYZ-"}  # what a Chinese IME types


@pytest.mark.parametrize("paste", [
    lambda code: code.replace("-", "\u2013"),  # en dash (a chat app's "smart" punctuation)
    lambda code: code.replace("-", "\u2014"),  # em dash
    lambda code: code.replace("-", "\u2212"),  # minus sign
    lambda code: "".join(FULL_WIDTH.get(c, c) for c in code),  # ＡＢ１２－...
    lambda code: "".join(FULL_WIDTH.get(c, c) for c in code).lower(),  # ａｂ１２ (NFKC, then any case)
    lambda code: code.replace("-", "\u3000"),  # the ideographic space
    lambda code: code.replace("-", "\u00a0 \t"),  # a no-break space, a space and a tab
    lambda code: "\ufeff" + code + "\n",  # a byte order mark in front, the line end behind
    lambda code: "\u200b".join(code),  # a zero-width space between every two characters
    lambda code: code.replace("-", "\u2060-\u00ad"),  # a word joiner and a soft hyphen beside each hyphen
], ids=["en-dash", "em-dash", "minus", "full-width", "full-width-lower", "ideographic-space", "nbsp-tab",
        "bom", "zero-width-space", "word-joiner"])
def test_a_code_pasted_from_a_chat_app_reads_back(paste):
    code = class_code.make_code("192.168.1.23", 8767, SECRET)
    assert class_code.read_code(paste(code)) == ("192.168.1.23", 8767, SECRET)


def test_a_pasted_code_that_is_still_wrong_keeps_its_sentence():
    code = class_code.make_code("192.168.1.23", 8767, SECRET)
    wide = "".join(FULL_WIDTH.get(c, c) for c in code)
    wrong = "0" if code[3] != "0" else "1"
    with pytest.raises(class_code.CodeError, match="输错"):  # a typo stays a typo, full-width or not
        class_code.read_code(wide[:3] + FULL_WIDTH[wrong] + wide[4:])
    with pytest.raises(class_code.CodeError, match="'U'"):
        class_code.read_code("\uff35" + wide[1:])  # a full-width U: named as U
    with pytest.raises(class_code.CodeError, match="20 个"):
        class_code.read_code(code.replace("-", "\u2013")[:-1])
    with pytest.raises(class_code.CodeError, match="'。'"):
        class_code.read_code(code + "\u3002")  # punctuation is not a separator: named


VALUES = {"COURSE_PROVIDER": "classroom", "COURSE_BASE_URL": "http://10.0.0.5:8767/v1",
          "COURSE_PROGRESS_URL": "http://10.0.0.5:8767", "COURSE_STUDENT_NAME": "王小明 #12"}
OLD_ENV = "# 我的设置\nDEEPSEEK_API_KEY=sk-my-own\nCOURSE_STUDENT_NAME=旧名字\n"


class HalfWriter:
    """A file on a full disk: the first write puts half of its bytes down, then fails with ENOSPC."""

    def __init__(self, fh):
        self.fh = fh

    def write(self, data):
        self.fh.write(data[:len(data) // 2])
        self.fh.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self.fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()


def writes_fail(monkeypatch, folder, how):
    """Every file opened for writing in ``folder`` fails as ``how`` says: "full" (ENOSPC half-way) or
    "read-only" (EACCES at once, as a read-only folder does for anyone but root)."""
    real_open = pathlib.Path.open

    def failing_open(self, mode="r", *args, **kwargs):
        if self.parent != folder or not set(mode) & set("wxa+"):
            return real_open(self, mode, *args, **kwargs)
        if how == "read-only":
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return HalfWriter(real_open(self, mode, *args, **kwargs))

    monkeypatch.setattr(pathlib.Path, "open", failing_open)


@pytest.fixture
def joining(tmp_path, monkeypatch):
    """``join`` with the teacher's service answering ``VALUES``, and a ``.env`` of the student's own."""
    monkeypatch.setattr(class_code, "ask_service", lambda *args: dict(VALUES))
    monkeypatch.setattr(class_code, "student_token", lambda: "a" * 32)
    env = tmp_path / "course" / ".env"
    env.parent.mkdir()
    env.write_bytes(OLD_ENV.encode("utf-8"))
    return env


@pytest.mark.parametrize("how,advice", [("full", "磁盘满了"), ("read-only", "只读")], ids=["full", "read-only"])
def test_join_that_cannot_write_env_keeps_the_old_one_and_says_what_to_do(joining, monkeypatch, capsys, how, advice):
    env = joining
    writes_fail(monkeypatch, env.parent, how)
    assert class_code.join(class_code.make_code("10.0.0.5", 8767, SECRET), "王小明 #12", env_path=env) == 1
    assert env.read_bytes() == OLD_ENV.encode("utf-8")  # not cut, not emptied: the student's own key is still there
    assert [p.name for p in env.parent.iterdir()] == [".env"]  # no half-written file left beside it
    err = capsys.readouterr().err
    assert str(env) in err and advice in err and "join" in err
    for name, value in VALUES.items():  # the lines to paste by hand, as join would have written them
        assert f"{name}={class_code.dotenv_quote(value)}" in err
    assert "Traceback" not in err


def test_a_replace_the_system_refuses_leaves_no_trace(joining, monkeypatch):
    """Windows refuses to replace a read-only .env, or one open in another program: the same sentence."""
    env = joining

    def refuse(source, target):
        raise PermissionError(errno.EACCES, "Access is denied", str(target))

    monkeypatch.setattr(class_code.os, "replace", refuse)
    with pytest.raises(class_code.CodeError, match="只读") as err:
        class_code.write_env(VALUES, env, remove=class_code.STALE_NAMES)
    assert str(env) in str(err.value) and env.read_bytes() == OLD_ENV.encode("utf-8")
    assert [p.name for p in env.parent.iterdir()] == [".env"]


def test_a_stop_half_way_through_writing_env_leaves_the_old_one(joining, monkeypatch):
    env = joining
    real_replace = os.replace

    def stopped(source, target):
        raise KeyboardInterrupt  # the student pressed Ctrl-C just before the new file took the old one's place

    monkeypatch.setattr(class_code.os, "replace", stopped)
    with pytest.raises(KeyboardInterrupt):
        class_code.write_env(VALUES, env)
    assert env.read_bytes() == OLD_ENV.encode("utf-8") and [p.name for p in env.parent.iterdir()] == [".env"]
    monkeypatch.setattr(class_code.os, "replace", real_replace)
    assert class_code.join(class_code.make_code("10.0.0.5", 8767, SECRET), "王小明 #12", env_path=env) == 0


def test_writing_env_keeps_every_other_line_exactly_and_its_mode(tmp_path):
    env = tmp_path / ".env"
    odd = "COURSE_NOTE='a\x0cb\u2028c\x85d'"  # a form feed, a line separator, NEL: python-dotenv keeps one line
    env.write_bytes(f"# 我的设置\n{odd}\nCOURSE_STUDENT_NAME=旧名字\n\nexport OTHER=1".encode("utf-8"))
    if os.name == "posix":
        env.chmod(0o600)
    class_code.write_env(VALUES, env)
    lines = env.read_bytes().decode("utf-8").split("\n")
    assert lines[:5] == ["# 我的设置", odd, "COURSE_STUDENT_NAME='王小明 #12'", "", "export OTHER=1"]
    assert lines[-1] == "" and len(lines) == 5 + len(VALUES) - 1 + 1
    if os.name == "posix":
        assert env.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [".env"]
