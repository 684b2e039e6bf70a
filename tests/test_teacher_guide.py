"""TEACHER_GUIDE.zh.md covers every notebook and every exercise, and README links to it.

The guide is prose for teachers, but its structure is checked: one section per
notebook in notebooks/ (a heading that starts with the notebook's file stem,
e.g. ``### 03_function_calling``), each with the same six parts, and each
naming every exercise of that notebook (``03-1`` ...) with the checker that
grades it, so a notebook or exercise added later without a guide entry fails here.
"""

from __future__ import annotations

import re

import pytest

from notebook_cells import NOTEBOOKS, ROOT, course_cells

from course_runtime.progress import base_exercise

GUIDE = ROOT / "TEACHER_GUIDE.zh.md"
# The six parts every notebook section has (bold labels in the guide).
PARTS = ["学习目标", "课时", "现场运行", "练习中的常见错误", "讨论题", "课后作业"]
# The course-wide sections at the top.
TOP_SECTIONS = ["课前准备", "云端", "做错了怎么办", "故障排查"]


def guide_text() -> str:
    return GUIDE.read_text(encoding="utf-8")


def notebook_sections(text: str) -> dict[str, str]:
    """Map each "### NN_name" heading's stem to the text up to the next heading of level <= 3."""
    sections: dict[str, str] = {}
    matches = list(re.finditer(r"^### (\d\d_\w+)\b.*$", text, flags=re.M))
    for match in matches:
        rest = text[match.end():]
        end = re.search(r"^#{1,3} ", rest, flags=re.M)
        sections[match.group(1)] = rest[: end.start()] if end else rest
    return sections


def test_notebooks_found():
    assert len(NOTEBOOKS) >= 8, NOTEBOOKS


def test_top_sections_present():
    headings = [line for line in guide_text().splitlines() if line.startswith("## ")]
    for name in TOP_SECTIONS:
        assert any(name in h for h in headings), f"no '## ...{name}...' section in {GUIDE.name}"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_every_notebook_has_a_complete_section(nb):
    sections = notebook_sections(guide_text())
    assert nb.stem in sections, f"{GUIDE.name} has no '### {nb.stem}' heading"
    body = sections[nb.stem]
    for part in PARTS:
        assert f"**{part}**" in body, f"section {nb.stem} has no **{part}** part"
    questions = re.findall(r"^\d+\. ", body.split("**讨论题**", 1)[1], flags=re.M)
    assert 2 <= len(questions) <= 4, f"section {nb.stem}: {len(questions)} discussion questions, want 2-4"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_every_exercise_is_covered(nb):
    body = notebook_sections(guide_text()).get(nb.stem, "")
    mistakes = body.split("**练习中的常见错误**", 1)[-1].split("**讨论题**", 1)[0]
    for key, source in course_cells(nb, "checker").items():
        key = base_exercise(key)  # "04-1v2": the guide's line for 04-1 covers its new version too
        assert f"练习 {key}" in mistakes, f"section {nb.stem} says nothing about exercise {key}"
        for checker in re.findall(r"\b(check_\w+)\(", source):
            assert f"`{checker}`" in mistakes, f"section {nb.stem} does not name {checker} (exercise {key})"


def test_no_section_for_a_missing_notebook():
    stems = {nb.stem for nb in NOTEBOOKS}
    extra = set(notebook_sections(guide_text())) - stems
    assert not extra, f"{GUIDE.name} has sections for notebooks that do not exist: {sorted(extra)}"


def test_readme_links_the_guide_in_both_languages():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    chinese, _, english = readme.partition("## English")  # Chinese first: the course's language
    assert english, "README.md has no '## English' part"
    assert "## 中文说明" in chinese, "README.md has no '## 中文说明' part before the English one"
    link = f"]({GUIDE.name})"
    assert link in english, "the English part of README.md does not link the teacher's guide"
    assert link in chinese, "the Chinese part of README.md does not link the teacher's guide"


def test_the_guides_scripted_model_example_tells_right_from_wrong(monkeypatch, capsys):
    """Part 7, example 3: the checker the guide shows for an exercise that calls the model really works."""
    from course_runtime import progress

    part = guide_text().split("**例三", 1)[1].split("**学生的课程和老师的不一样新时", 1)[0]
    code = re.search(r"```python\n(.*?)```", part, re.S).group(1)
    exercise = re.search(r'@exercise\("(\d\d-\d+)"\)', code).group(1)
    monkeypatch.setattr(progress, "EXERCISES", (*progress.EXERCISES, exercise))
    namespace: dict = {"__name__": "guide_example"}
    exec(compile(code, "<guide part 7, example 3>", "exec"), namespace)
    check = namespace["check_polite_ask"]

    def answer(body: str):
        student = {"MODEL": "fake-model"}
        exec("def polite_ask(client, question):\n" + body, student)
        return student["polite_ask"]

    system = '{"role": "system", "content": "你是一个礼貌的店员。"}'
    right = f"    r = client.chat.completions.create(model=MODEL, max_tokens=100, messages=[{system}, {{'role': 'user', 'content': question}}])\n    return r.choices[0].message.content\n"
    streamed = (f"    parts = client.chat.completions.create(model=MODEL, stream=True, messages=[{system}, {{'role': 'user', 'content': question}}])\n"
                "    return ''.join(c.choices[0].delta.content or '' for c in parts if c.choices)\n")
    assert check(answer(right)).passed is True
    assert check(answer(streamed)).passed is True
    wrong = {
        "typed-in model": right.replace("model=MODEL", "model='gpt-4o-mini'"),
        "no system message": right.replace(f"{system}, ", ""),
        "asks twice": right.replace("    return", "    client.chat.completions.create(model=MODEL, messages=[{'role': 'user', 'content': question}])\n    return"),
        "temperature out of range": right.replace("max_tokens=100", "max_tokens=100, temperature=3"),
        "returns the message": right.replace(".message.content", ".message"),
    }
    for why, body in wrong.items():
        assert check(answer(body)).passed is False, why
