"""The set-up's pre-checks (issue 11, item 5): ``bash course.sh check`` says what is missing before installing.

The check is run for real (bash, the system's python3) with a PATH that has
no compiler, and with needs no disk or memory can meet; nothing is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib import setup_check

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
# What course.sh and the check use from PATH - and, on purpose, no cc/gcc/clang, c++/g++/clang++, make.
TOOLS = ["bash", "cat", "dirname", "uname", "nproc", "sha256sum", "cut", "id"]


def run_check(tmp_path: Path, with_compiler: bool = False, **env: str) -> subprocess.CompletedProcess:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in TOOLS + (["cc", "c++", "make"] if with_compiler else []):
        found = shutil.which(tool)
        if found and not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(found)
    full_env = {"PATH": str(bin_dir), "HOME": os.environ.get("HOME", str(tmp_path)), "PYTHON": PYTHON,
                # other flags than the ones .venv's llama-server was built with: the build is still to come
                "CMAKE_ARGS": "-DCOURSE_TEST_ONLY=ON", **env}
    return subprocess.run(["bash", str(ROOT / "course.sh"), "check"], capture_output=True, text=True, encoding="utf-8",
                          env=full_env, timeout=60)


@pytest.mark.skipif(sys.platform != "linux", reason="the local-model build is Linux only")
def test_no_compiler_is_named_with_the_install_commands(tmp_path):
    result = run_check(tmp_path)
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
    if sys.platform == "linux":
        assert "可用内存不够" in result.stderr and "COURSE_PROVIDER" in result.stderr


def test_no_python_at_all(tmp_path):
    result = run_check(tmp_path, PYTHON=str(tmp_path / "no-such-python"))
    assert result.returncode != 0 and "Python 3.11" in result.stderr and "python3-venv" in result.stderr


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
