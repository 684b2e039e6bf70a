"""The capstone's exam in a real class, end to end on the real model (issue 58).

1. The teacher's command, ``python -m course_lib.capstone serve`` (what ``python course.py serve`` hands over
   to: the class model server and the progress service, with the exam's scorer), runs on loopback with its
   key files and database in a temporary "teacher" folder.  The teacher makes the hidden exam with
   ``python -m course_lib.capstone new`` (what ``python course.py capstone new`` runs) into that database.
2. A student's copy of the course joins with the class code (as tests/test_class_view.py).
3. Debian's Chromium (Playwright) logs in to the teacher's page and clicks 「打开考试」.
4. The student's kernel runs notebook 12's own cells - the set-up, the two agents and the student's own tool,
   the exam's fetch, and its submission with ``SUBMIT = True`` - through the class door to the teacher's model.
   Every response the kernel gets from the service other than the model's (``/v1/``) is recorded.
5. The page's leaderboard shows the student's score (the same the notebook printed); screenshot
   ``test-artifacts/browser_capstone_board.png``; the CSV export holds it.
6. The sweep: no response the student received holds a key's source, word or number (numbers above the
   few counts the exam's replies carry), and none has a field but the public ones.

Marked ``browser`` (Chromium, as tests/test_browser.py: must run in CI, skipped elsewhere when Chromium or
playwright is missing); a few minutes (ten questions on the real model, one slot).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from machine_support import wait_until
from notebook_cells import ROOT
from test_browser import ARTIFACTS, CHROMIUM, LAUNCH_ARGS
from test_class_view import Teacher, need_browser_and_model, outputs, run_as_student, student_copy, student_env

from course_lib.number_check import read_numbers
from course_runtime.exam_store import ExamStore

pytestmark = pytest.mark.browser
NOTEBOOK = ROOT / "notebooks" / "12_capstone.ipynb"
SEED = 5
# Put first in the student's kernel: every response of the teacher's service except the model's is kept.
RECORDER = """
import json as _json, httpx2 as _httpx2
_send = _httpx2.Client.send
def _recording_send(self, request, *args, **kwargs):
    response = _send(self, request, *args, **kwargs)
    if "/v1/" not in request.url.path:
        response.read()
        with open(%r, "a", encoding="utf-8") as _file:
            _file.write(_json.dumps({"path": request.url.path, "text": response.text}, ensure_ascii=False) + "\\n")
    return response
_httpx2.Client.send = _recording_send
"""


def exam_notebook(recorded: Path) -> nbformat.NotebookNode:
    """Notebook 12's cells a student runs for the exam: no practice runs, ``SUBMIT = True``."""
    source = nbformat.read(NOTEBOOK, as_version=4)
    code = [c.source for c in source.cells if c.cell_type == "code"]
    wanted = [s for s in code if s.startswith(("import inspect", "from course_lib import capstone",
                                               "from course_lib.agent import Agent", "import json",
                                               "from course_lib.tools.registry import Tool",
                                               "from course_lib.capstone import ExamError", "MY_AGENT ="))]
    assert len(wanted) == 7, [w[:40] for w in wanted]
    submit = wanted[-1]
    assert "SUBMIT = False" in submit
    wanted[-1] = submit.replace("SUBMIT = False", "SUBMIT = True", 1)
    cells = [nbformat.v4.new_code_cell(RECORDER % str(recorded)), *map(nbformat.v4.new_code_cell, wanted)]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def values(data) -> list[str]:
    """Every string and number of a JSON value, keys included."""
    if isinstance(data, dict):
        return [*data, *(v for item in data.values() for v in values(item))]
    if isinstance(data, list):
        return [v for item in data for v in values(item)]
    return [str(data)]


def test_a_student_takes_the_hidden_exam_and_the_teacher_sees_the_score(tmp_path):
    need_browser_and_model()
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    folder = (tmp_path / "老师 的电脑").resolve()
    folder.mkdir()
    teacher = Teacher(folder, command=("course_lib.capstone", "serve"))
    try:
        assert wait_until(lambda: "Ctrl-C" in teacher.output or teacher.process.poll() is not None, seconds=240), \
            teacher.output
        assert teacher.process.poll() is None, teacher.output
        db = folder / "class-progress.sqlite3"
        made = subprocess.run([sys.executable, "-m", "course_lib.capstone", "new", "--seed", str(SEED), "--per-kind", "1",
                               "--submissions", "2", "--db", str(db)], cwd=ROOT, capture_output=True, text=True,
                              encoding="utf-8", env={**os.environ, "COURSE_IGNORE_DOTENV": "1"}, timeout=120)
        assert made.returncode == 0 and "10 道题" in made.stdout, made.stdout + made.stderr
        store = ExamStore(db)
        questions = store.current()["questions"]
        store.close()
        code = re.search(r"course\.py join ([0-9A-Z]{4}(?:-[0-9A-Z]{4}){4})", teacher.output).group(1)
        teacher_key = (folder / ".teacher-key").read_text(encoding="utf-8").strip()

        copy = student_copy(tmp_path / "student")
        env = student_env(copy)
        joined = subprocess.run([sys.executable, "-m", "course_runtime.class_code", code, "--name", "学生甲"], cwd=copy,
                                env=env, capture_output=True, text=True, encoding="utf-8", timeout=60)
        assert joined.returncode == 0, joined.stdout + joined.stderr

        page_url = f"http://127.0.0.1:{teacher.progress_port}/teacher"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
            page = browser.new_page(viewport={"width": 1600, "height": 900})
            page.goto(page_url)
            page.fill("input[name=key]", teacher_key)
            page.click("button[type=submit]")
            page.wait_for_selector("#grid")
            assert f"种子 {SEED}" in page.content()
            page.click("text=打开考试")
            page.wait_for_selector("text=关闭考试")

            recorded = tmp_path / "responses.jsonl"
            notebook = exam_notebook(recorded)
            kernel_s = run_as_student(notebook, env, copy, timeout=900)
            text = outputs(notebook)
            score = re.search(r"得分 (\d+)/10", text)
            assert score, text[-2000:]

            page.reload()
            row = page.locator("table.exam tr", has=page.locator("th.name", has_text="学生甲"))
            cells = row.locator("td").all_inner_texts()
            assert cells[0] == f"{score.group(1)}/10", cells
            assert cells[-2] == "1", cells  # one submission
            assert "⚠" not in row.inner_text()  # the door saw every request the student claims
            page.screenshot(path=str(ARTIFACTS / "browser_capstone_board.png"), full_page=True)
            export = page.request.get(f"http://127.0.0.1:{teacher.progress_port}/teacher/exam.csv")
            assert export.status == 200
            sheet = export.body().decode("utf-8-sig").splitlines()
            assert any(line.startswith(f"学生甲,{score.group(1)},10,") for line in sheet), sheet
            browser.close()
    finally:
        teacher.stop()

    responses = [json.loads(line) for line in recorded.read_text(encoding="utf-8").splitlines()]
    paths = {r["path"] for r in responses}
    assert {"/api/exam", "/api/exam/submit"} <= paths, paths
    said: list[str] = []
    for response in responses:
        body = json.loads(response["text"])
        said += values(body)
        for field in ("key", "source", "numbers", "words", "checks", "answers", "trajectory", "kind"):
            assert f'"{field}"' not in response["text"], (field, response)
    swept = "\n".join(said)
    asked = "\n".join(q["question"] for q in questions)
    read = {n for item in said for n in read_numbers(item)}
    for question in questions:
        key = question["key"]
        assert key["source"] not in swept
        for word in key["words"]:
            assert word not in swept, word
        for number in key["numbers"]:
            if float(number) > 10 and number not in read_numbers(asked):
                assert number not in read, (number, question["id"])
    print(f"\nthe student's exam (10 questions through the door, one slot): {kernel_s:.1f} s")
