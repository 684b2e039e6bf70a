"""The two packages' maps, and the import walk: no circle, and nothing runs from the machinery up into the lessons.

``course_lib/__init__.py`` lists the lessons in notebook order, each with the
notebooks that teach it; ``course_runtime/__init__.py`` lists the machinery in
import order.  Read from the code (every ``import`` and ``from ... import``,
function-local ones included):

- every module of each package is on its package's map;
- course_runtime imports nothing of course_lib, and each of its modules
  imports only modules above it on its map (so it has no circle);
- course_lib's modules import each other without a circle;
- every course_lib module is a lesson: its map line names notebooks, and one
  of them imports it, or imports a course_lib module that does (its exercises'
  checkers count), so machinery put back into course_lib fails here;
- course.py imports only course_runtime (it runs before the virtual
  environment exists).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import course_lib
import course_runtime

PROJECT = Path(__file__).resolve().parent.parent
LIB = Path(course_lib.__file__).parent
RUNTIME = Path(course_runtime.__file__).parent
PACKAGES = {"course_lib": LIB, "course_runtime": RUNTIME}
MAP_LINE = re.compile(r"^([a-z_]+/?)\s{2,}\S")
TAG = re.compile(r"\[([^\]]*)\]\s*$")


def package_map(package) -> list[str]:
    """The module names of a package's map, in order (``tools/`` and ``checkers/`` are packages)."""
    return [m.group(1).rstrip("/") for line in package.__doc__.splitlines() if (m := MAP_LINE.match(line))]


def entry_of(relative: str) -> str:
    """The map entry a module belongs to: ``tools/registry.py`` -> ``tools``."""
    return relative.split("/")[0].removesuffix(".py")


def imported(path: Path, root: Path, name: str) -> set[tuple[str, str]]:
    """``(package, entry)`` for every course_lib / course_runtime module the file at ``path`` imports.

    ``root`` is the folder of the package the file is in, ``name`` that package's name;
    an import of the file's own entry (a package's own files) is not counted.
    """
    relative = path.relative_to(root).as_posix()
    own, folder = entry_of(relative), path.relative_to(root).parent.parts
    found: set[tuple[str, str]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(folder[:len(folder) - node.level + 1])
            targets = [base + node.module.split(".")] if node.module else [base + [a.name] for a in node.names]
            found |= {(name, entry_of("/".join(t))) for t in targets if t}
        elif isinstance(node, ast.ImportFrom) and node.module:
            top, _, rest = node.module.partition(".")
            if top in PACKAGES:
                entries = [rest.split(".")[0]] if rest else [a.name for a in node.names]
                found |= {(top, e) for e in entries}
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top, _, rest = alias.name.partition(".")
                if top in PACKAGES:
                    found.add((top, rest.split(".")[0] if rest else "__init__"))
    return found - {(name, own)}


def modules(root: Path) -> list[Path]:
    return [p for p in sorted(root.rglob("*.py")) if p != root / "__init__.py"]


def test_every_module_is_on_its_map():
    for package, root in ((course_lib, LIB), (course_runtime, RUNTIME)):
        entries = package_map(package)
        assert len(entries) == len(set(entries)) and "texts" in entries
        assert {entry_of(p.relative_to(root).as_posix()) for p in modules(root)} == set(entries), package.__name__


def test_the_runtime_never_imports_the_lessons_and_its_map_is_its_import_order():
    order = {name: i for i, name in enumerate(package_map(course_runtime))}
    against = []
    for path in modules(RUNTIME):
        own = entry_of(path.relative_to(RUNTIME).as_posix())
        for package, entry in sorted(imported(path, RUNTIME, "course_runtime")):
            if package != "course_runtime" or entry not in order or order[entry] >= order[own]:
                against.append(f"{path.relative_to(PROJECT)} imports {package}.{entry}")
    assert against == []


def lesson_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in modules(LIB):
        own = entry_of(path.relative_to(LIB).as_posix())
        graph.setdefault(own, set()).update(e for p, e in imported(path, LIB, "course_lib") if p == "course_lib")
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle found by a depth-first walk (each as the path that closes it)."""
    found, state = [], {}

    def walk(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                walk(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            walk(node, [node])
    return found


def test_the_lessons_import_each_other_without_a_circle():
    assert circles(lesson_graph()) == []


def notebook_imports(number: str) -> set[str]:
    """The course_lib entries notebook ``number``'s code cells import (``from course_lib.x import``, ``from course_lib import x``)."""
    path = next(PROJECT.glob(f"notebooks/{number}_*.ipynb"))
    code = "\n".join("".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                     if c["cell_type"] == "code")
    entries = set(re.findall(r"\bcourse_lib\.([a-z_]+)", code))
    for names in re.findall(r"from course_lib import ([a-z_, ]+)", code):
        entries |= {n.strip().split(" as ")[0] for n in names.split(",")}
    return entries


def test_every_lesson_module_is_reached_from_a_notebook_that_its_map_line_names():
    graph, lines = lesson_graph(), {}
    for line in course_lib.__doc__.splitlines():
        if (m := MAP_LINE.match(line)) and (tag := TAG.search(line)):
            lines[m.group(1).rstrip("/")] = tag.group(1)
    notebooks = sorted(p.name[:2] for p in PROJECT.glob("notebooks/[0-9][0-9]_*.ipynb"))
    unreached = []
    for entry in package_map(course_lib):
        tag = lines.get(entry, "")
        numbers = set()
        for a, b in re.findall(r"(\d{2})(?:-(\d{2}))?", tag):
            numbers |= {f"{n:02d}" for n in range(int(a), int(b or a) + 1)}
        if re.search(r"\bon\b", tag):  # "[00 on]", "[01 on]": from that notebook to the last
            numbers |= {n for n in notebooks if n >= min(numbers)}
        if tag == "all":
            numbers = set(notebooks)
        reached: set[str] = set()
        todo = [e for n in sorted(numbers & set(notebooks)) for e in notebook_imports(n)]
        while todo:
            e = todo.pop()
            if e not in reached:
                reached.add(e)
                todo.extend(graph.get(e, ()))
        if entry not in reached:
            unreached.append(f"{entry} [{tag}]")
    assert unreached == []


def test_course_py_imports_only_the_runtime():
    tree = ast.parse((PROJECT / "course.py").read_text(encoding="utf-8"))
    tops = {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    tops |= {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert "course_runtime" in tops and "course_lib" not in tops


def test_the_walk_sees_a_wrong_import_and_a_circle(tmp_path):
    # The same reading, on files that import upward, into the lessons, and in a circle: all caught.
    root = tmp_path / "course_runtime"
    root.mkdir()
    sample = root / "settings.py"
    sample.write_text("from .local_server import base_url\n\ndef f():\n    from course_lib.agent import Agent\n",
                      encoding="utf-8")
    assert imported(sample, root, "course_runtime") == {("course_runtime", "local_server"), ("course_lib", "agent")}
    lessons = tmp_path / "course_lib"
    (lessons / "tools").mkdir(parents=True)
    inner = lessons / "tools" / "weather.py"
    inner.write_text("from ..react import LineReAct\nfrom .registry import ToolRegistry\n", encoding="utf-8")
    assert imported(inner, lessons, "course_lib") == {("course_lib", "react")}  # its own package does not count
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []
