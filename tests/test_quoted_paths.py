"""Every repository path and ``python -m`` command the course quotes to its reader exists (issue 46, part 5).

Read: the markdown cells of every notebook, README.md, TEACHER_GUIDE.zh.md, docs/*.md and bench/README.md.
A path that starts with one of the project's folders (``course_lib/evaluation.py``, ``bench/results/class_cost.md``,
``data/products.csv`` ...) must name a file or folder that exists; ``python -m X`` for a module of the project
(``course_lib...``, ``bench...``) must name a module file or package.  Written before the course's machinery moves
to its own package, so that every quoted path is checked when it does.  Paths with a wildcard or a placeholder
(``*``, ``<``, ``{``, ``…``) and files the course writes while it runs (``MADE_AT_RUN_TIME``) are not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from notebook_cells import NOTEBOOKS

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "TEACHER_GUIDE.zh.md", ROOT / "bench" / "README.md",
        *sorted((ROOT / "docs").glob("*.md"))]
FOLDERS = ("course_lib", "course_runtime", "bench", "tests", "solutions", "data", "notebooks", "docs")
PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(FOLDERS) + r")/[\w./-]*[\w/])")
MODULE = re.compile(r"python3? -m ((?:course_lib|course_runtime|bench)(?:\.\w+)*)")
# Written by the course while it runs (a student's shop copy, traces, logs, results the bench writes), not in git.
MADE_AT_RUN_TIME = re.compile(r"^(data/my_shop\.db|notebooks/traces/|bench/results/logs|"
                              r"test-artifacts|data/.*\.sqlite3)")


def texts() -> list[tuple[str, str]]:
    """``(where, text)`` for every document and every notebook markdown cell."""
    out = [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in DOCS]
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        out += [(f"{path.name} cell {i}", cell.source) for i, cell in enumerate(nb.cells) if cell.cell_type == "markdown"]
    return out


def quoted_paths(text: str) -> list[str]:
    """The project paths in ``text``, without placeholders (``NN``, or a path that goes on with ``*<{…``)."""
    found = []
    for m in PATH.finditer(text):
        after = text[m.end():m.end() + 1]
        if "NN" not in m.group(1) and after not in ("*", "<", "{", "…", "["):
            found.append(m.group(1).rstrip("."))
    return found


def module_exists(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file() or (base / "__main__.py").is_file()


@pytest.mark.parametrize("where, text", texts(), ids=lambda value: value if len(value) < 60 else None)
def test_every_quoted_path_and_module_exists(where, text):
    missing = [p for p in quoted_paths(text) if not MADE_AT_RUN_TIME.match(p) and not (ROOT / p).exists()]
    missing += [f"python -m {m}" for m in MODULE.findall(text) if not module_exists(m)]
    assert not missing, f"{where} quotes what is not in the repository: {missing}"


def test_the_check_finds_a_path_that_is_not_there():
    assert quoted_paths("见 `course_lib/evaluation.py`，和 course_lib/no_such_file.py。") == [
        "course_lib/evaluation.py", "course_lib/no_such_file.py"]
    assert quoted_paths("`solutions/NN_name.py`, `tests/test_checkers_nb<NN>.py`, `notebooks/*.ipynb`") == []
    assert not (ROOT / "course_lib/no_such_file.py").exists() and (ROOT / "course_lib/evaluation.py").exists()
    assert module_exists("bench.class_cost") and module_exists("course_lib") and not module_exists("bench.nothing")
    assert MODULE.findall("运行 `python -m bench.server_check URL`") == ["bench.server_check"]
