"""The README and docs/ hold together (issue 33): every link resolves, every figure says where it was measured.

Read: README.md, every file in docs/, TEACHER_GUIDE.zh.md and bench/README.md.

* A link to a file in the repository must name a file or folder that exists;
  one with ``#anchor`` must name a heading of that Markdown file, spelled the
  way GitHub makes heading anchors (lower case, punctuation but ``-`` and ``_``
  dropped, spaces to ``-``; a repeated heading gets ``-1``, ``-2``).
* A paragraph (or a table with the paragraphs right around it) that states a
  measured figure - seconds, minutes, GB, MB, tokens per second - must name
  where it comes from: a date, a results file (``bench/results``,
  ``test-artifacts``), a test, another doc, or the words measured / 实测 / 估计 -
  or say that it is a setting (a timeout, a limit, a default, "every 5 s").
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "TEACHER_GUIDE.zh.md",
         ROOT / "bench" / "README.md"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FIGURE = re.compile(r"\d[\d,.]*\s?(?:s|ms|min|minutes|seconds|GB|MB|GiB|MiB|秒|分钟|毫秒|token/s|tokens/s|token/秒)(?![A-Za-z])")
SOURCE = re.compile(r"20\d\d-\d\d-\d\d|bench/|test-artifacts|tests/|docs/|\.md\b|measured|Measured|实测|测的|测了|测得|"
                    r"估计|estimate|reference run|参考运行|\bsee\b|见|"
                    # a figure that is a setting, not a measurement (a timeout, a limit, a period)
                    r"timeout|超时|at most|最多|limit|default|默认|every \d|每 ?\d|waits|after \d")


FENCE = re.compile(r"^\s*(```|~~~)[\w+-]*\s*$")  # a line that opens or closes a code block, nothing else


def prose(path: Path) -> str:
    """The file's text without its code blocks (fences alone on their lines; ```` ```json ```` inline is prose)."""
    out, in_code = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_code = not in_code
        elif not in_code:
            out.append(line)
    return "\n".join(out)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"`|\*\*", "", heading.strip().lower())
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose(path).splitlines():
        m = re.match(r"^#{1,6} (.*)", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            out.add(base if n == 0 else f"{base}-{n}")
            seen[base] = n + 1
    return out


def links(path: Path) -> list[str]:
    return [m.group(1) for m in LINK.finditer(prose(path))]


def test_the_slug_is_githubs():
    assert slug("Choosing a model: `.env`") == "choosing-a-model-env"
    assert slug("### Classroom load (`python course.py bench --parts classroom`)".lstrip("# ")) == \
        "classroom-load-python-coursepy-bench---parts-classroom"
    assert slug("中文说明") == "中文说明"


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(ROOT).as_posix() for p in FILES])
def test_every_link_resolves(path):
    broken = []
    for target in links(path):
        if re.match(r"^[a-z]+:", target):
            continue  # http(s), mailto: not checked (no network here)
        file, _, anchor = target.partition("#")
        where = (path.parent / file).resolve() if file else path
        if not where.exists():
            broken.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{target}: no such heading in {where.name}")
    assert broken == []


def blocks(path: Path) -> list[str]:
    """Paragraphs and tables, without code blocks; a table is joined with the paragraph before and after it."""
    parts = [b for b in re.split(r"\n\s*\n", prose(path)) if b.strip()]
    out = []
    for i, block in enumerate(parts):
        if block.lstrip().startswith("|"):
            block = "\n".join(parts[max(i - 1, 0):i + 2])
        out.append(block)
    return out


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", DOCS, ids=[p.relative_to(ROOT).as_posix() for p in DOCS])
def test_every_figure_names_where_it_was_measured(path):
    unsourced = [b[:120] for b in blocks(path) if FIGURE.search(b) and not SOURCE.search(b)]
    assert unsourced == []


def test_the_checks_can_fail(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nIt takes 12 s.\n\n[x](missing.md) [y](#nope) [z](#title)\n", encoding="utf-8")
    assert [b for b in blocks(page) if FIGURE.search(b) and not SOURCE.search(b)] == ["It takes 12 s."]
    assert anchors(page) == {"title"} and links(page) == ["missing.md", "#nope", "#title"]


def test_the_readme_is_short_and_links_every_doc():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count("\n") <= 220
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{doc.name}" in readme, doc.name
