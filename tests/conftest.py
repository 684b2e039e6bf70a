import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Every checker keeps its result (course_runtime/progress.py): during the tests, in a folder of their own,
# never in the student's .progress/ (notebook kernels started by the tests inherit this too).
os.environ.setdefault("COURSE_PROGRESS_DIR", tempfile.mkdtemp(prefix="course-progress-tests-"))
# The student token lives per OS user (class_code.token_dir): the tests keep theirs in a folder of their own.
os.environ.setdefault("COURSE_STUDENT_TOKEN_DIR", tempfile.mkdtemp(prefix="course-token-tests-"))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/fakes.py

from fakes import FakeLLM  # noqa: E402


@pytest.fixture
def fake_llm():
    """A fresh scripted fake server; use ``fake_llm.add(...)`` and ``fake_llm.client()``."""
    return FakeLLM()


# ---------------------------------------------------------------------------
# Time per test group (issue 24): printed at the end of every run and written
# to test-artifacts/durations.md, so the README's test section can quote where
# CI's time goes.  A test's time is its set-up + call + tear-down (a fixture
# shared by a module is charged to the test that first needs it).
# ---------------------------------------------------------------------------
GROUP_MARKERS = ("notebook", "browser", "bench", "wine")
_seconds: dict[str, float] = {}
_groups: dict[str, str] = {}


def group_of(item) -> str:
    """Return the test group of a collected item: its first marker of GROUP_MARKERS, else ``"unit"``."""
    return next((m for m in GROUP_MARKERS if item.get_closest_marker(m)), "unit")


def pytest_collection_modifyitems(items):
    for item in items:
        _groups[item.nodeid] = group_of(item)


def pytest_runtest_logreport(report):
    _seconds[report.nodeid] = _seconds.get(report.nodeid, 0.0) + report.duration


def duration_table(seconds: dict[str, float], groups: dict[str, str], top: int = 12) -> str:
    """Render seconds per group and per test file as Markdown.

    Args:
        seconds: nodeid -> seconds (set-up + call + tear-down).
        groups: nodeid -> group name (``group_of``).
        top: how many of the slowest files to list.
    Returns:
        Two Markdown tables: groups (tests, seconds, share) and the slowest files.
    """
    total = sum(seconds.values()) or 1.0
    by_group: dict[str, list[float]] = {}
    by_file: dict[str, list[float]] = {}
    for nodeid, sec in seconds.items():
        by_group.setdefault(groups.get(nodeid, "unit"), []).append(sec)
        by_file.setdefault(nodeid.split("::")[0], []).append(sec)
    lines = ["| group | tests | seconds | share |", "|---|---:|---:|---:|"]
    for name, secs in sorted(by_group.items(), key=lambda kv: -sum(kv[1])):
        lines.append(f"| {name} | {len(secs)} | {sum(secs):.0f} | {100 * sum(secs) / total:.0f} % |")
    lines += ["", "| file | tests | seconds |", "|---|---:|---:|"]
    for name, secs in sorted(by_file.items(), key=lambda kv: -sum(kv[1]))[:top]:
        lines.append(f"| {name} | {len(secs)} | {sum(secs):.0f} |")
    return "\n".join(lines) + "\n"


def pytest_terminal_summary(terminalreporter):
    if not _seconds:
        return
    table = duration_table(_seconds, _groups)
    terminalreporter.write_sep("=", "time per test group (tests/conftest.py)")
    terminalreporter.write(table)
    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    (out / "durations.md").write_text(table, encoding="utf-8")
