"""The set-up's pre-checks (issue 11, item 5): ``python course.py check`` says what is missing before installing.

The check is run for real (the system's python3 running course.py, and once
through the ``bash course.sh`` wrapper) with a PATH that has no compiler, and
with needs no disk or memory can meet; nothing is installed.
"""

from __future__ import annotations

import os
import shutil
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
