"""course_lib/__init__.py's map is the import order: a module imports only modules above it.

Read from the code (every ``import`` and ``from ... import``, function-local ones
included): an import of a module further down the list - or of one missing from
the list - fails, so the map stays true and no circle can come back.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import course_lib

ROOT = Path(course_lib.__file__).parent
MAP_LINE = re.compile(r"^([a-z_]+/?)\s{2,}\S")


def package_map() -> list[str]:
    """The module names of the map, in order (``tools/`` and ``checkers/`` are packages)."""
    return [m.group(1).rstrip("/") for line in course_lib.__doc__.splitlines() if (m := MAP_LINE.match(line))]


def entry_of(relative: str) -> str:
    """The map entry a course_lib module belongs to: ``tools/registry.py`` -> ``tools``."""
    return relative.split("/")[0].removesuffix(".py")


def imported_entries(path: Path, root: Path = ROOT) -> set[str]:
    """The map entries (other than its own) that the file at ``path`` (inside ``root``) imports."""
    own = entry_of(path.relative_to(root).as_posix())
    package = path.relative_to(root).parent.parts  # () for a top-level module
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(package[:len(package) - node.level + 1])
            if node.module:
                names.append("/".join(base + node.module.split(".")))
            else:
                names += ["/".join(base + [a.name]) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("course_lib."):
            names.append(node.module.split(".", 1)[1].replace(".", "/"))
        elif isinstance(node, ast.Import):
            names += [a.name.split(".", 1)[1].replace(".", "/") for a in node.names if a.name.startswith("course_lib.")]
        found |= {entry_of(name) for name in names if name}
    return found - {own}


def test_every_module_is_on_the_map():
    entries = package_map()
    assert len(entries) == len(set(entries)) and "texts" in entries and "agent" in entries
    modules = {entry_of(p.relative_to(ROOT).as_posix()) for p in ROOT.rglob("*.py") if p.name != "__init__.py" or p.parent != ROOT}
    assert modules - {"__init__"} == set(entries)


def test_no_import_runs_back_up_the_map():
    order = {name: i for i, name in enumerate(package_map())}
    against = []
    for path in sorted(ROOT.rglob("*.py")):
        if path == ROOT / "__init__.py":
            continue
        own = entry_of(path.relative_to(ROOT).as_posix())
        for entry in sorted(imported_entries(path)):
            if entry not in order or order[entry] >= order[own]:
                against.append(f"{path.relative_to(ROOT)} imports {entry}")
    assert against == []


def test_the_check_sees_a_wrong_import(tmp_path):
    # The same reading, on files that import modules below them (one inside a function): caught.
    assert imported_entries(ROOT / "texts.py") == set()  # texts is first: it imports nothing of the course
    root = tmp_path / "course_lib"
    (root / "tools").mkdir(parents=True)
    sample = root / "settings.py"
    sample.write_text("from .agent import Agent\n\ndef f():\n    from course_lib.tools.registry import ToolRegistry\n", encoding="utf-8")
    inner = root / "tools" / "weather.py"
    inner.write_text("from ..react import LineReAct\nfrom .registry import ToolRegistry\n", encoding="utf-8")
    assert imported_entries(sample, root) == {"agent", "tools"}
    assert imported_entries(inner, root) == {"react"}  # its own package does not count
