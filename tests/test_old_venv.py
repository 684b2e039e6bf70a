"""A .venv made by another Python (issue 41): too old a Python, a Python that is gone, a newer one.

The student upgraded Python (3.11 to 3.13, the old one maybe uninstalled), or .venv was made by a
Python older than the course's floor (an old course.sh on python3 = 3.10).  ``course.setup`` reads
.venv/pyvenv.cfg (``version = 3.x.y``, written by ``python -m venv``; ``version_info = 3.x.y.final.0``,
written by virtualenv) and makes .venv again with a line saying why, or names the other Python.
Each test has a fake .venv in a temporary project (tests/test_entry_point.py's ``project``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from course_runtime import setup_check
from test_entry_point import course, engine_here, project  # noqa: F401  (project is a fixture)

NOW = "%d.%d.%d" % sys.version_info[:3]
REAL_VENV_OK = course.venv_ok  # the ``project`` fixture replaces it with one that answers True


def write_cfg(venv: Path, **values: str) -> None:
    """``venv/pyvenv.cfg`` with ``values`` as ``key = value`` lines (in the order given)."""
    (venv / "pyvenv.cfg").write_text("".join(f"{k} = {v}\n" for k, v in values.items()), encoding="utf-8")


@pytest.fixture
def made(project, monkeypatch):
    """Client set-up with every program recorded; ``python -m venv .venv`` makes a fresh fake .venv (this Python).

    Returns the list of commands run; ``.venv/old-marker`` marks the .venv the test started with.
    """
    engine_here(monkeypatch, None, mode="client")
    monkeypatch.setattr(setup_check, "main", lambda args: 0)
    monkeypatch.setattr(course, "store_python", lambda path=None: None)
    commands: list[list[str]] = []

    def run(command):
        command = [str(p) for p in command]
        commands.append(command)
        if command[1:3] == ["-m", "venv"]:
            python = course.venv_python()
            python.parent.mkdir(parents=True)
            python.write_text("", encoding="utf-8")
            write_cfg(project / ".venv", home=str(Path(sys.executable).parent), version=NOW)

    monkeypatch.setattr(course, "run", run)
    (project / ".venv" / "old-marker").write_text("", encoding="utf-8")
    return commands


def made_again(project, commands) -> bool:
    """True when the set-up removed the old .venv and made a new one with the Python running course.py."""
    again = [sys.executable, "-m", "venv", ".venv"] in commands
    assert again != (project / ".venv" / "old-marker").exists()
    return again


@pytest.mark.parametrize("line", ["version = 3.10.12", "version_info = 3.10.12.final.0"])
def test_a_venv_of_a_python_older_than_the_floor_is_made_again(project, made, capsys, line):
    """It still starts and has pip, but pip cannot install ipykernel 7.4 into a 3.10: made again, and said why."""
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n" + line + "\n", encoding="utf-8")
    course.setup("setup")
    out = capsys.readouterr().out
    assert made_again(project, made)
    assert "Python 3.10.12" in out and f"Python {course.NEED} 或更新" in out and sys.executable in out
    assert made.index([sys.executable, "-m", "venv", ".venv"]) < made.index(
        [str(course.venv_python()), "-m", "pip", "install", "-r", "requirements-client.txt"])


def test_check_plans_an_install_for_a_venv_too_old(project, monkeypatch):
    """``python course.py check`` checks the disk for an install when .venv will be made again."""
    write_cfg(project / ".venv", home="/usr/bin", version="3.10.12")
    (project / ".venv" / course.STAMP).write_text("x\n", encoding="utf-8")
    engine_here(monkeypatch, None, mode="client")
    monkeypatch.setattr(course, "store_python", lambda path=None: None)
    checks = []
    monkeypatch.setattr(setup_check, "main", lambda args: checks.append(args) or 0)
    course.check()
    write_cfg(project / ".venv", home="/usr/bin", version=NOW)
    course.check()
    assert checks == [["--install"], []]


def test_a_venv_whose_python_is_gone_is_made_again_and_named(project, made, monkeypatch, capsys, tmp_path):
    """The Python that made .venv was uninstalled: .venv's python cannot start; the line says which Python it was."""
    gone = tmp_path / "卸载了" / "Python311"
    write_cfg(project / ".venv", home=str(gone), version="3.11.4", executable=str(gone / "python.exe"))
    python = course.venv_python()
    python.unlink()
    if sys.platform != "win32":
        python.symlink_to(gone / "python3")  # a dangling link, as POSIX venvs link to their base Python
    else:
        python.write_text("", encoding="utf-8")
    monkeypatch.setattr(course, "venv_ok", REAL_VENV_OK)  # it really tries to start .venv's python
    course.setup("setup")
    out = capsys.readouterr().out
    assert made_again(project, made)
    assert "Python 3.11.4" in out and str(gone) in out and sys.executable in out
    assert "中途停下" not in out  # not "the last install stopped half-way"


def test_a_half_made_venv_is_still_called_incomplete(project, made, monkeypatch, capsys):
    """Its Python is there (home exists) but it does not run pip: the sentence of an interrupted install."""
    write_cfg(project / ".venv", home=str(Path(sys.executable).parent), version=NOW)
    monkeypatch.setattr(course, "venv_ok", lambda venv=".venv": False)
    course.setup("setup")
    assert made_again(project, made) and "中途停下" in capsys.readouterr().out


def test_a_venv_of_another_usable_python_is_kept_and_named(project, made, capsys):
    """3.11 and 3.13 both installed, .venv made by the other one: it still works - kept, and the line says so."""
    other = "%d.%d.0" % (sys.version_info[0], sys.version_info[1] + 1)
    write_cfg(project / ".venv", home=str(Path(sys.executable).parent), version=other)
    course.setup("setup")
    out = capsys.readouterr().out
    assert not made_again(project, made)
    assert f"Python {other}" in out and "Python %d.%d" % sys.version_info[:2] in out


def test_nothing_changed_spawns_no_extra_process_and_says_nothing(project, made, monkeypatch, capsys):
    """Same Python, usable .venv, packages installed: only the ``pip --version`` checks that were there before."""
    write_cfg(project / ".venv", home=str(Path(sys.executable).parent), version=NOW)
    course.setup("setup")  # installs the client packages once
    made.clear()
    capsys.readouterr()
    started = []
    monkeypatch.setattr(course, "venv_ok", _counting_venv_ok(started))
    monkeypatch.setattr(course.subprocess, "Popen", lambda *a, **k: pytest.fail("a process was started"))
    monkeypatch.setattr(course.subprocess, "check_output", lambda *a, **k: pytest.fail("a process was started"))
    course.setup("setup")
    assert made == [] and len(started) <= 2  # check() and setup() each ask the venv's pip once, as before
    assert capsys.readouterr().out == ""


def _counting_venv_ok(started):
    def venv_ok(venv=".venv"):
        started.append(venv)
        return True

    return venv_ok
