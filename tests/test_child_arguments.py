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


# --------------------------------------------------------------------------- a child Python's answer through a pipe


@pytest.fixture(scope="module")
def hostile_venv(tmp_path_factory) -> Path:
    """A real virtual environment (no pip: fast) in a folder with a space, Chinese and quotes; returns its Python."""
    folder = hostile_folder(tmp_path_factory.mktemp("venv")) / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    return course._lib()[1].venv_python(folder)


def test_bench_reads_site_packages_through_a_pipe_in_the_windows_code_page(hostile_venv, tmp_path, monkeypatch):
    """``course.py bench`` asks each venv's Python where its packages go, through a pipe.

    On Windows a child Python writes into a pipe in the ANSI code page (cp936 on a Chinese Windows;
    Python's docs, ``sys.stdout``), not UTF-8: ``PYTHONIOENCODING=gbk`` makes this child do the same.
    """
    root = tmp_path / "root"
    (root / ".venv-bench").mkdir(parents=True)
    for name in ("requirements.txt", "requirements-bench.txt", "requirements-bench-nodeps.txt"):
        (root / name).write_bytes((ROOT / name).read_bytes())
    monkeypatch.setattr(course, "ROOT", str(root))
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("PYTHONIOENCODING", "gbk")
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    monkeypatch.setenv("COURSE_PROVIDER", "local")
    monkeypatch.setattr(course, "setup", lambda command="setup": None)
    monkeypatch.setattr(course, "venv_python", lambda venv=".venv": hostile_venv)  # .venv and .venv-bench alike
    real_capture = course.capture
    monkeypatch.setattr(course, "capture", lambda command: b"openai==3.51.0\n" if "freeze" in command
                        else real_capture(command))
    ran = []
    monkeypatch.setattr(course, "run", lambda command: ran.append([str(p) for p in command]))
    monkeypatch.setattr(course, "hand_over", lambda command: 0)
    assert course.cmd_bench([]) == 0
    purelib = subprocess.run([str(hostile_venv), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, encoding="utf-8", env={**os.environ, "PYTHONIOENCODING": "utf-8"},
                             check=True).stdout.strip()
    assert "课程" in purelib
    pth = Path(purelib) / "course-venv.pth"
    assert pth.read_bytes() == (course.bench_pth_line(purelib) + "\n").encode("ascii")
    constraints = root / ".venv-bench" / "constraints.txt"
    assert ran[0][-2:] == ["-c", str(constraints)] and constraints.read_bytes() == b"openai==3.51.0\n"


# --------------------------------------------------------------------------- a command line on Windows


def windows_argv(line: str) -> list[str]:
    """Split a Windows command line as ``CommandLineToArgvW`` / the C runtime does.

    The documented rules (Microsoft, "Parsing C command-line arguments"; CPython's subprocess docs,
    "Converting an argument sequence to a string on Windows"): arguments are separated by spaces or
    tabs; a double-quoted part may hold spaces; backslashes are literal unless they come right before a
    double quote, where each pair is one backslash and an odd one escapes the quote.  The program name
    (first argument) is read without escapes: quoted up to the next quote, else up to white space.
    """
    if line.startswith('"'):
        end = line.index('"', 1)
        args, i = [line[1:end]], end + 1
    else:
        end = 0
        while end < len(line) and line[end] not in " \t":
            end += 1
        args, i = [line[:end]], end
    n = len(line)
    while True:
        while i < n and line[i] in " \t":
            i += 1
        if i >= n:
            return args
        arg, quoted = [], False
        while i < n and (quoted or line[i] not in " \t"):
            if line[i] == "\\":
                j = i
                while j < n and line[j] == "\\":
                    j += 1
                if j < n and line[j] == '"':
                    arg.append("\\" * ((j - i) // 2))
                    if (j - i) % 2:
                        arg.append('"')
                        j += 1
                else:
                    arg.append("\\" * (j - i))
                i = j
            elif line[i] == '"':
                quoted = not quoted
                i += 1
            else:
                arg.append(line[i])
                i += 1
        args.append("".join(arg))


def test_the_windows_splitter_follows_the_documented_examples():
    """The table of examples in Microsoft's "Parsing C command-line arguments"."""
    assert windows_argv('p "a b c" d e') == ["p", "a b c", "d", "e"]
    assert windows_argv(r'p "ab\"c" "\\" d') == ["p", 'ab"c', "\\", "d"]
    assert windows_argv(r'p a\\\b d"e f"g h') == ["p", r"a\\\b", "de fg", "h"]
    assert windows_argv(r'p a\\\"b c d') == ["p", r'a\"b', "c", "d"]
    assert windows_argv(r'p a\\\\"b c" d e') == ["p", r"a\\b c", "d", "e"]
    assert windows_argv(r'"C:\Program Files\p.exe" x') == [r"C:\Program Files\p.exe", "x"]


HOSTILE_ARGS = [r"tests\AI 课程\test x.py", r"--basetemp=C:\Temp\AI 课程" + "\\", 'a"b', "", "-k", "张三 and not slow",
                "\\\\server\\share\\", "%PATH%", "^&|<>"]


@pytest.mark.parametrize("command", ["test", "lab", "serve", "progress"])
def test_windows_gets_back_every_argument_course_py_hands_over(monkeypatch, command):
    """On Windows ``hand_over`` starts a child from an argument list (no shell), which ``subprocess``
    joins with ``list2cmdline``: the child's C runtime must split it back into the same arguments.

    The program is always the venv's ``python.exe``, never a ``.cmd``/``.bat`` launcher (``jupyter.cmd``),
    which cmd.exe would read with other rules (``%``, ``^``, ``&``).
    """
    python = r"C:\Users\张三\AI 课程\llm-agent-course\.venv\Scripts\python.exe"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(course, "venv_python", lambda venv=".venv": python)
    monkeypatch.chdir(os.getcwd())  # course.main changes to the project root
    monkeypatch.setattr(course, "setup", lambda command="setup": None)
    monkeypatch.setattr(course, "run", lambda command: None)
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    monkeypatch.setenv("COURSE_PROVIDER", "local")
    lines = []

    class Child:
        def __init__(self, args, **kwargs):
            assert isinstance(args, list) and not kwargs.get("shell")
            lines.append(subprocess.list2cmdline(args))  # what Popen hands CreateProcessW on Windows

        def wait(self):
            return 0

    monkeypatch.setattr(course.subprocess, "Popen", Child)
    assert course.main([command, *HOSTILE_ARGS]) == 0
    argv = windows_argv(lines[0])
    assert argv[0] == python and argv[0].lower().endswith(".exe")
    assert argv[-len(HOSTILE_ARGS):] == HOSTILE_ARGS
