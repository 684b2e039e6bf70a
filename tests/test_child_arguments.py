"""What course.py hands to other programs, fed hostile paths and read back by the real consumer (issue 41).

A course folder on a Chinese Windows laptop: ``C:\\Users\\张三\\AI 课程\\llm-agent-course`` - backslashes,
a space, Chinese characters, and a console and pipes in code page 936 (GBK).  Each test hands such a
path to the program that reads it: Python's ``site`` module reading a .pth file, a child Python
printing into a pipe, Windows' command-line splitter.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("course_child_arguments", ROOT / "course.py")
course = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(course)

WINDOWS_SITE = r"C:\Users\张三\AI 课程\llm-agent-course\.venv\Lib\site-packages"
HOSTILE = "AI 课程 张三's \"x\""  # a space, Chinese, both quotes


def hostile_folder(tmp_path: Path) -> Path:
    """A folder under ``tmp_path`` whose name has a space, Chinese characters and quotes (no quote on Windows)."""
    name = HOSTILE if sys.platform != "win32" else "AI 课程 张三"
    folder = tmp_path / name
    folder.mkdir()
    return folder


# --------------------------------------------------------------------------- .venv-bench's course-venv.pth


@pytest.mark.parametrize("where", [WINDOWS_SITE, "/home/张三/AI 课程/.venv/lib/python3.11/site-packages", HOSTILE])
def test_the_pth_line_is_ascii_and_gives_back_the_path(where):
    """Python 3.11 and 3.12 read a .pth file in the locale's encoding (cp936 on Chinese Windows): ASCII only."""
    line = course.bench_pth_line(where)
    assert line.isascii() and "\n" not in line
    call = ast.parse(line).body[1].value  # import site; site.addsitedir(...)
    assert ast.unparse(call.func) == "site.addsitedir" and ast.literal_eval(call.args[0]) == where


def test_site_reads_the_pth_file_under_a_locale_that_is_not_utf8(tmp_path):
    """The real consumer: ``site.addsitedir`` of a Python whose locale encoding is ASCII, not UTF-8.

    CPython 3.11's and 3.12's ``site.addpackage`` open a .pth file with ``encoding="locale"``; 3.13
    tries UTF-8 first and falls back to the locale (Lib/site.py).  ``-X utf8=0`` with the C locale
    (``PYTHONCOERCECLOCALE=0``) gives a locale encoding that cannot read UTF-8 Chinese, as cp936
    cannot read it correctly.
    """
    course_site = hostile_folder(tmp_path) / "site-packages"
    course_site.mkdir()
    bench_site = tmp_path / "bench-site"
    bench_site.mkdir()
    course.write_line(bench_site / "course-venv.pth", course.bench_pth_line(str(course_site)))
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
    env.pop("PYTHONIOENCODING", None)
    code = "import site, sys; site.addsitedir(sys.argv[1]); print(ascii(sys.path))"
    result = subprocess.run([sys.executable, "-X", "utf8=0", "-c", code, str(bench_site)], capture_output=True,
                            env=env, timeout=60)
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    assert str(course_site) in ast.literal_eval(result.stdout.decode("ascii"))
