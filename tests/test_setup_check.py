"""The set-up's pre-checks (issue 11, item 5): ``python course.py check`` says what is missing before installing.

The check is run for real (the system's python3 running course.py, and once
through the ``bash course.sh`` wrapper) with a PATH that has no compiler, and
with needs no disk or memory can meet; nothing is installed.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from course_runtime import platforms, setup_check

ROOT = Path(__file__).resolve().parent.parent


def _system_python() -> str:
    """The real interpreter behind ``python3`` (a pyenv shim needs its own PATH)."""
    found = shutil.which("python3")
    if found:
        out = subprocess.run([found, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True, encoding="utf-8")
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    return sys.executable


PYTHON = _system_python()
# What the bash wrapper uses from PATH; course.py itself needs nothing from PATH (no git either) -
# and, on purpose, no cc/gcc/clang, c++/g++/clang++, make.
TOOLS = ["bash", "dirname"]
COMPILES_HERE = platforms.default_engine() == "compiled"  # Linux x86-64: llama-server is built from source


def run_check(tmp_path: Path, with_compiler: bool = False, wrapper: bool = False, **env: str) -> subprocess.CompletedProcess:
    """``python3 course.py check`` (or ``bash course.sh check``) with a PATH of only ``TOOLS`` (+ a compiler)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in (TOOLS if wrapper else []) + (["cc", "c++", "make"] if with_compiler else []):
        found = shutil.which(tool)
        if found and not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(found)
    full_env = {"PATH": str(bin_dir), "HOME": os.environ.get("HOME", str(tmp_path)), "PYTHON": PYTHON,
                # other flags than the ones .venv's llama-server was built with: the build is still to come
                "CMAKE_ARGS": "-DCOURSE_TEST_ONLY=ON", **env}
    command = ["bash", str(ROOT / "course.sh"), "check"] if wrapper else [env.get("PYTHON", PYTHON),
                                                                          str(ROOT / "course.py"), "check"]
    return subprocess.run(command, capture_output=True, text=True, encoding="utf-8", env=full_env, timeout=60)


@pytest.mark.skipif(not COMPILES_HERE, reason="llama-server is compiled on Linux x86-64 only")
@pytest.mark.parametrize("wrapper", [False, True], ids=["course.py", "course.sh"])
def test_no_compiler_is_named_with_the_install_commands(tmp_path, wrapper):
    result = run_check(tmp_path, wrapper=wrapper)
    assert result.returncode != 0
    err = result.stderr
    assert "缺少 C/C++ 编译器" in err and "缺少 make" in err
    for command in ("sudo apt install build-essential", "sudo dnf install gcc gcc-c++ make", "xcode-select --install"):
        assert command in err
    assert "Traceback" not in err and len(err.splitlines()) <= 6  # a few lines, not 568
    assert "什么都没有改动" in err


@pytest.mark.skipif(not (shutil.which("cc") and shutil.which("c++") and shutil.which("make")), reason="needs a compiler")
def test_with_a_compiler_the_check_passes(tmp_path):
    result = run_check(tmp_path, with_compiler=True)
    assert result.returncode == 0, result.stderr
    assert "检查通过" in result.stdout


@pytest.mark.skipif(not shutil.which("cc"), reason="needs a compiler")
def test_too_little_disk_or_memory_is_named(tmp_path):
    result = run_check(tmp_path, with_compiler=True, COURSE_CHECK_EXTRA_GB="100000", COURSE_MIN_MEMORY_GB="100000")
    assert result.returncode != 0
    assert "磁盘空间不够" in result.stderr and "GB" in result.stderr
    if setup_check.available_memory() is not None:  # Linux, Windows, macOS
        assert "可用内存不够" in result.stderr and "COURSE_PROVIDER" in result.stderr


@pytest.mark.skipif(COMPILES_HERE, reason="where llama-server is compiled, the check without a compiler fails")
def test_without_a_compiler_the_check_passes_where_nothing_is_compiled(tmp_path):
    """Windows x64, macOS, Linux aarch64: the engine comes ready-made, so no compiler is asked for."""
    result = run_check(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "缺少 C/C++ 编译器" not in result.stderr and "检查通过" in result.stdout


def test_no_python_at_all(tmp_path):
    """The bash wrapper cannot start course.py without a Python: it says which Python is needed itself."""
    result = run_check(tmp_path, wrapper=True, PYTHON=str(tmp_path / "no-such-python"))
    assert result.returncode != 0 and "Python 3.11" in result.stderr and "python3-venv" in result.stderr


def test_the_wrapper_runs_course_py_with_its_python(tmp_path):
    """``PYTHON=... bash course.sh`` runs course.py on that Python (which then makes the venv)."""
    fake = tmp_path / "fake-python"
    fake.write_text("#!/bin/sh\necho \"ran with: $*\"\nexit 7\n", encoding="utf-8")
    fake.chmod(0o755)
    result = run_check(tmp_path, wrapper=True, PYTHON=str(fake))
    assert result.returncode == 7 and result.stdout.strip() == "ran with: course.py check"


def test_python_without_venv_is_named(monkeypatch):
    monkeypatch.setattr(setup_check, "_importable", lambda module: module != "ensurepip")
    problems = setup_check.check_python()
    assert len(problems) == 1 and "python3-venv" in problems[0] and "brew install python" in problems[0]


class NoFts5:
    """A real sqlite3 connection whose SQLite, like some standalone Python builds', has no FTS5 module."""

    def __init__(self, connection):
        self.connection = connection

    def execute(self, sql, *args):
        if "fts5" in sql.lower():
            raise sqlite3.OperationalError("no such module: fts5")  # SQLite's own words for it
        return self.connection.execute(sql, *args)

    def close(self):
        self.connection.close()


def test_fts5_is_there_on_this_machine_and_nothing_is_said(capsys):
    assert setup_check.check_sqlite() == [] and setup_check.check_fts5() == []
    assert setup_check.main([]) == 0
    out, err = capsys.readouterr()
    assert "FTS5" not in out + err and "检查通过" in out


def test_a_python_without_fts5_is_named_with_what_to_install(monkeypatch, capsys):
    """Notebook 11 needs FTS5; the rest of the course does not: one sentence, and the check still passes."""
    real_connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: NoFts5(real_connect(*a, **k)))
    warnings = setup_check.check_fts5()
    assert len(warnings) == 1 and "\n" not in warnings[0]
    line = warnings[0]
    assert "FTS5" in line and "11" in line and sys.executable in line
    assert "python.org" in line and "python3" in line and ".venv" in line  # README: python.org / brew; Linux: the distro's
    assert setup_check.main([]) == 0  # a warning, not a failure: notebooks 00-10 work without FTS5
    out, err = capsys.readouterr()
    assert line in err and "检查通过" in out


def test_course_py_check_names_a_missing_fts5(tmp_path):
    """The real ``python3 course.py check``, its sqlite3 made FTS5-less by a sitecustomize module."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import sqlite3\n"
        "_connect = sqlite3.connect\n"
        "class _NoFts5:\n"
        "    def __init__(self, c): self.c = c\n"
        "    def execute(self, sql, *a):\n"
        "        if 'fts5' in sql.lower(): raise sqlite3.OperationalError('no such module: fts5')\n"
        "        return self.c.execute(sql, *a)\n"
        "    def close(self): self.c.close()\n"
        "sqlite3.connect = lambda *a, **k: _NoFts5(_connect(*a, **k))\n", encoding="utf-8")
    result = run_check(tmp_path, with_compiler=True, PYTHONPATH=str(site))
    lines = [line for line in result.stderr.splitlines() if "FTS5" in line]
    assert len(lines) == 1 and "python.org" in lines[0], result.stderr  # one sentence of its own
    assert "no such module" not in result.stderr and "Traceback" not in result.stderr  # never SQLite's English


def test_a_python_without_sqlite3_is_a_problem(monkeypatch):
    monkeypatch.setitem(sys.modules, "sqlite3", None)  # import sqlite3 -> ImportError, as without _sqlite3
    problems = setup_check.check_sqlite()
    assert len(problems) == 1 and "sqlite3" in problems[0] and "python.org" in problems[0]
    assert setup_check.check_fts5() == []  # said once, as the missing module


def test_disk_needs_are_added_up_per_file_system(tmp_path, monkeypatch):
    free = shutil.disk_usage(tmp_path).free
    half = free // 2 + 1
    # Each need alone fits; together (same disk) they do not.
    assert setup_check.check_disk([(tmp_path, half, "a")]) == []
    problems = setup_check.check_disk([(tmp_path, half, "a"), (tmp_path / "not-made-yet" / "x", half, "b")])
    assert len(problems) == 1 and "a、b" in problems[0]


def test_memory_on_macos_is_the_free_share_of_all_memory():
    """``sysctl -n hw.memsize kern.memorystatus_level``: 16 GiB, 25 % free -> 4 GiB available."""
    assert setup_check.macos_available_memory("17179869184\n25\n") == 4 * setup_check.GB
    assert setup_check.macos_available_memory("17179869184\n") is None  # no level: unknown, no check
    assert setup_check.macos_available_memory("sysctl: unknown oid\n") is None


def test_memory_is_asked_the_way_each_system_answers(monkeypatch):
    monkeypatch.setattr(setup_check, "_windows_available_memory", lambda: 11)
    monkeypatch.setattr(setup_check, "_macos_available_memory", lambda: 22)
    for platform, expected in (("win32", 11), ("darwin", 22)):
        monkeypatch.setattr(sys, "platform", platform)
        assert setup_check.available_memory() == expected
    monkeypatch.setattr(sys, "platform", "linux")
    assert setup_check.available_memory() not in (11, 22)


def test_the_engine_can_be_chosen_in_dotenv(tmp_path):
    """``dotenv_value``: the last line for the name, quotes and comments as in a provider line; None if absent."""
    path = tmp_path / ".env"
    path.write_text("COURSE_ENGINE=compiled\nexport COURSE_ENGINE='xllamacpp'  # on this laptop\n"
                    "COURSE_PROVIDER=local # default\n", encoding="utf-8")
    assert setup_check.dotenv_value("COURSE_ENGINE", path) == "xllamacpp"
    assert setup_check.dotenv_value("COURSE_PROVIDER", path) == "local"
    assert setup_check.dotenv_value("COURSE_MODEL", path) is None
    assert setup_check.dotenv_value("COURSE_ENGINE", tmp_path / "missing") is None
