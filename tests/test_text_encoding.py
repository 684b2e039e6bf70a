"""Every text file the course reads or writes names its encoding (issue 19, item 3).

On Chinese Windows, Python's default text encoding is GBK (cp936): a file
opened without ``encoding=`` is read as GBK, and the course's UTF-8 data, its
``.env``, templates and notebooks then fail with ``UnicodeDecodeError`` (or,
worse, are read as the wrong characters).  So every place that opens a file in
text mode says ``encoding=``, and every ``subprocess`` call that reads text says
its encoding too.  Checked by reading the code (``ast``), across course_lib,
bench, tests, solutions and the notebooks' code cells.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from notebook_cells import NOTEBOOKS, ROOT

SOURCES = sorted(p for folder in ("course_lib", "course_runtime", "bench", "tests", "solutions") for p in (ROOT / folder).rglob("*.py"))
TEXT_SUBPROCESS = {"run", "check_output", "Popen", "check_call", "call"}


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _binary_mode(mode: ast.expr | None) -> bool | None:
    """True/False for a literal mode string, None when the mode is not a literal."""
    if mode is None:
        return False  # the default "r" is text
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return "b" in mode.value
    return None


def problems_in(code: str, where: str) -> list[str]:
    """One line per call that opens text without naming its encoding."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if not isinstance(node, ast.Call):
            continue
        func, line = node.func, f"{where}:{node.lineno}"
        has_encoding = _kw(node, "encoding") is not None
        if isinstance(func, ast.Name) and func.id == "open":
            mode = node.args[1] if len(node.args) > 1 else _kw(node, "mode")
            if _binary_mode(mode) is False and not has_encoding and len(node.args) < 4:
                found.append(f"{line}: open() in text mode without encoding=")
        elif isinstance(func, ast.Attribute) and func.attr == "open":
            # Path.open(mode): only calls whose first argument is a mode string (or nothing) are
            # file opens; urllib's opener.open(url) and webbrowser.open(url) take a URL.
            mode = node.args[0] if node.args else _kw(node, "mode")
            literal = mode is None or (isinstance(mode, ast.Constant) and isinstance(mode.value, str)
                                       and set(mode.value) <= set("rwxab+t"))
            if literal and _binary_mode(mode) is False and not has_encoding and len(node.args) < 3:
                found.append(f"{line}: Path.open() in text mode without encoding=")
        elif isinstance(func, ast.Attribute) and func.attr == "read_text":
            if not has_encoding and not node.args:
                found.append(f"{line}: read_text() without encoding=")
        elif isinstance(func, ast.Attribute) and func.attr == "write_text":
            if not has_encoding and len(node.args) < 2:
                found.append(f"{line}: write_text() without encoding=")
        elif isinstance(func, ast.Attribute) and func.attr in TEXT_SUBPROCESS and \
                isinstance(func.value, ast.Name) and func.value.id == "subprocess":
            if (_is_true(_kw(node, "text")) or _is_true(_kw(node, "universal_newlines"))) and not has_encoding:
                found.append(f"{line}: subprocess.{func.attr}(text=True) without encoding=")
    return found


def test_the_check_finds_each_kind():
    code = "\n".join([
        "open(p)", "open(p, 'w')", "open(p, 'rb')", "open(p, encoding='utf-8')",
        "p.read_text()", "p.read_text(encoding='utf-8')", "p.write_text(s)", "p.write_text(s, encoding='utf-8')",
        "p.open('w')", "p.open('wb')", "opener.open(url, timeout=3)", "subprocess.run(a, text=True)",
        "subprocess.run(a, text=True, encoding='utf-8')", "subprocess.run(a, capture_output=True)",
    ])
    lines = [int(p.split(":")[1]) for p in problems_in(code, "x")]
    assert lines == [1, 2, 5, 7, 9, 12]


@pytest.mark.parametrize("path", SOURCES, ids=[p.relative_to(ROOT).as_posix() for p in SOURCES])
def test_python_files_name_their_encoding(path: Path):
    assert not problems_in(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_cells_name_their_encoding(path: Path):
    problems = []
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type == "code":
            source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
            problems += problems_in(source, f"{path.name} cell {index}")
    assert not problems


def test_the_course_files_are_utf8():
    """Data, templates, notebooks, .env.example: all decode as UTF-8 (what every reader above says)."""
    files = [*(ROOT / "data").glob("*.*"), *NOTEBOOKS, ROOT / ".env.example", *(ROOT / "course_runtime").glob("*.jinja")]
    for path in files:
        if path.suffix != ".db":
            path.read_bytes().decode("utf-8")
