"""The teacher sees the class, end to end, in a real browser (issue 32).

1. The teacher's command, ``python -m course_runtime.classroom`` (what ``python
   course.py serve`` hands over to), runs for real on loopback: the real
   llama-server with the course's model, and beside it the progress service.
   Its key files and database are in a temporary "teacher" folder.  It prints
   the class code - and never the teacher key.
2. A student's copy of the course (the repository's files copied into a
   temporary "student" folder, without .venv, .env, .progress) joins with that
   code (``python -m course_runtime.class_code CODE --name 学生甲``: the step
   ``python course.py join`` runs before the set-up), then runs a notebook made
   of real exercise and checker cells of notebooks 01 and 06 in a fresh kernel
   (nbclient): each exercise untouched (❌), then with its reference solution
   (✅); 01-1 asks the teacher's model through the student's new ``.env``.
3. Debian's Chromium (Playwright) logs in to the teacher's page with the key
   from the teacher's ``.teacher-key`` and finds 学生甲's row: ✅ on every one
   of those exercises after two attempts; the model server's line says it
   is up.  A second student then fails 05-1 three times; without a click the
   page reloads and marks them as stuck.  The CSV export is fetched with the
   browser's own login.  Screenshots: ``test-artifacts/browser_class_view*.png``.

Marked ``browser`` (Chromium, as tests/test_browser.py: must run in CI, skipped
elsewhere when Chromium or playwright is missing); about a minute.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2
import nbformat
import pytest
from nbclient import NotebookClient

from machine_support import free_port, model_server_available, wait_until
from notebook_cells import ROOT, course_cells, solutions_for
from test_browser import ARTIFACTS, CHROMIUM, LAUNCH_ARGS, _need_browser

from course_runtime import class_code

pytestmark = pytest.mark.browser
EXERCISES = [("01_chat_call", "01-1"), ("01_chat_call", "01-2"), ("06_agent_loop", "06-1"), ("06_agent_loop", "06-2")]
SKIP = {".git", ".venv", ".venv-bench", ".env", ".progress", "test-artifacts", ".pytest_cache", "__pycache__",
        ".class-key", ".teacher-key", "build"}


class Teacher:
    """``python -m course_runtime.classroom`` on loopback (or ``command``: ``("course_lib.capstone", "serve")``,
    what ``python course.py serve`` runs), its output collected."""

    def __init__(self, folder: Path, command: tuple[str, ...] = ("course_runtime.classroom",)):
        self.port, self.progress_port = free_port(), free_port()
        self.folder = folder
        env = {**os.environ, "COURSE_IGNORE_DOTENV": "1", "PYTHONUNBUFFERED": "1"}
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", *command, "--host", "127.0.0.1", "--port", str(self.port),
             "--slots", "1", "--key-file", str(folder / ".class-key"), "--progress-port", str(self.progress_port)],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8")
        threading.Thread(target=lambda: self.lines.extend(self.process.stdout), daemon=True).start()

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # like Ctrl-C (classroom.end_like_ctrl_c)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def student_copy(folder: Path) -> Path:
    """The course's files as a student's own copy has them (no .venv, .env, results or keys)."""
    shutil.copytree(ROOT, folder, ignore=lambda _dir, names: [n for n in names if n in SKIP])
    return folder


def student_env(copy: Path) -> dict:
    """The environment of a student's computer: their copy's course_lib first, their .env read, nothing pinned."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("COURSE_") and k not in ("PYTHONPATH",)}
    env["PYTHONPATH"] = str(copy)
    env["COURSE_STUDENT_TOKEN_DIR"] = str(copy.parent / "student-config")  # their own OS user's folder
    return env


def run_as_student(notebook: nbformat.NotebookNode, env: dict, copy: Path, timeout: int = 300) -> float:
    """Execute ``notebook`` in a fresh kernel with the student's environment and their copy's notebooks/ as the
    working folder; returns the seconds it took (the kernel inherits this process's environment, so it is the
    student's for that time and this process's again after)."""
    started = time.monotonic()
    saved = os.environ.copy()
    try:
        os.environ.clear()
        os.environ.update(env)
        NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(copy / "notebooks")}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return time.monotonic() - started


def exercise_notebook() -> nbformat.NotebookNode:
    """The set-up cell of notebook 01, then each exercise untouched with its checker, then solved with it."""
    first = nbformat.read(ROOT / "notebooks" / "01_chat_call.ipynb", as_version=4)
    setup = next(c.source for c in first.cells if c.cell_type == "code")
    cells = [nbformat.v4.new_code_cell("import course_lib; print('course_lib:', course_lib.__file__)"),
             nbformat.v4.new_code_cell(setup)]
    for stem, key in EXERCISES:
        nb = ROOT / "notebooks" / f"{stem}.ipynb"
        checker = course_cells(nb, "checker")[key]
        cells += [nbformat.v4.new_code_cell(course_cells(nb, "exercise")[key]), nbformat.v4.new_code_cell(checker),
                  nbformat.v4.new_code_cell(solutions_for(nb)[key]), nbformat.v4.new_code_cell(checker)]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def outputs(notebook) -> str:
    return "\n".join(out.get("text", "") for cell in notebook.cells for out in cell.get("outputs", []))


def need_browser_and_model() -> None:
    """Skip (a laptop) or fail (CI) without Chromium and playwright, or without llama-server and the model."""
    _need_browser()
    if not model_server_available():
        if os.environ.get("CI") == "true":
            pytest.fail("CI needs llama-server and the model (python course.py setup)")
        pytest.skip("no llama-server or model here (python course.py setup builds them)")


def test_a_students_exercises_appear_on_the_teachers_page(tmp_path):
    need_browser_and_model()
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    (tmp_path / "teacher").mkdir()
    teacher = Teacher((tmp_path / "teacher").resolve())
    try:
        assert wait_until(lambda: "Ctrl-C" in teacher.output or teacher.process.poll() is not None, seconds=240), \
            teacher.output
        assert teacher.process.poll() is None, teacher.output
        code = re.search(r"course\.py join ([0-9A-Z]{4}(?:-[0-9A-Z]{4}){4})", teacher.output).group(1)
        teacher_key = (tmp_path / "teacher" / ".teacher-key").read_text(encoding="utf-8").strip()
        assert teacher_key not in teacher.output  # printed on a projector: never the teacher key
        assert class_code.read_code(code)[1] == teacher.progress_port

        copy = student_copy(tmp_path / "student")
        env = student_env(copy)
        joined = subprocess.run([sys.executable, "-m", "course_runtime.class_code", code, "--name", "学生甲"], cwd=copy,
                                env=env, capture_output=True, text=True, encoding="utf-8", timeout=60)
        assert joined.returncode == 0, joined.stdout + joined.stderr
        assert "COURSE_PROVIDER=classroom" in (copy / ".env").read_text(encoding="utf-8")

        notebook = exercise_notebook()
        kernel_s = run_as_student(notebook, env, copy)
        text = outputs(notebook)
        assert f"course_lib: {copy}" in text, text[:500]
        assert text.count("❌") == len(EXERCISES) and text.count("✅") == len(EXERCISES), text
        kept = (copy / ".progress" / "results.jsonl").read_text(encoding="utf-8").splitlines()
        sent = (copy / ".progress" / "sent.txt").read_text(encoding="utf-8").split()
        assert len(kept) == 2 * len(EXERCISES) == len(sent)

        page_url = f"http://127.0.0.1:{teacher.progress_port}/teacher"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
            page = browser.new_page(viewport={"width": 1600, "height": 700})
            page.goto(page_url)
            assert page.url.endswith("/login")
            page.fill("input[name=key]", teacher_key)
            page.click("button[type=submit]")
            page.wait_for_selector("#grid")
            row = page.locator("tr", has=page.locator("th.name", has_text="学生甲"))
            cells = row.locator("td").all_inner_texts()
            header = page.locator("#grid thead th").all_inner_texts()[1:]
            for _stem, key in EXERCISES:
                assert cells[header.index(key)] == "✓2", (key, cells)
            assert cells[header.index("02-1")] == ""  # not reached
            assert "正常" in page.locator("#model").inner_text()
            # The student's model calls came through the teacher's door (class_gateway), counted per student.
            use = page.locator("#use tr", has=page.locator("th.name", has_text="学生甲")).locator("td").all_inner_texts()
            assert int(use[0]) >= 1 and int(use[1]) > 0 and int(use[2]) > 0, use
            page.fill("#budget input[name=budget]", "5000")
            page.click("#budget button[type=submit]")
            page.wait_for_selector("#grid")
            assert "5000" in page.locator("#budget").inner_text()
            page.screenshot(path=str(ARTIFACTS / "browser_class_view.png"), full_page=True)

            # Another student is stuck on 05-1: the page shows it by itself within a reload or two.
            token = "c" * 32
            secret = class_code.read_code(code)[2]
            joined = httpx2.post(f"http://127.0.0.1:{teacher.progress_port}/api/join", timeout=10,
                                json={"secret": secret, "name": "学生乙", "token": token})
            assert joined.status_code == 200 and "COURSE_CLASS_KEY" not in joined.json(), joined.text
            for attempt in range(1, 4):
                reply = httpx2.post(f"http://127.0.0.1:{teacher.progress_port}/api/results", timeout=10,
                                   headers={"Authorization": "Bearer " + token},
                                   json={"name": "学生乙", "token": token, "results": [
                                       {"id": class_code.secrets.token_hex(16), "exercise": "05-1", "passed": False,
                                        "hint": "05.extract_action.3", "attempt": attempt,
                                        "time": "2026-12-03T10:00:00Z"}]})
                assert reply.status_code == 200, reply.text
            page.locator("th.name").filter(has_text=re.compile(r"^学生乙")).locator(".stuck").wait_for(timeout=15_000)
            assert "05-1" in page.locator("th.name").filter(has_text=re.compile(r"^学生乙")).inner_text()
            page.screenshot(path=str(ARTIFACTS / "browser_class_view_stuck.png"), full_page=True)
            export = page.request.get(f"http://127.0.0.1:{teacher.progress_port}/teacher.csv")
            assert export.status == 200
            rows = export.body().decode("utf-8-sig").splitlines()
            assert any(r.startswith("学生甲,") and r.endswith(f",{len(EXERCISES)}") for r in rows), rows
            browser.close()
        print(f"\nstudent kernel (8 checker runs, one model call each way): {kernel_s:.1f} s")
    finally:
        teacher.stop()
    assert "课堂模型服务器和课堂入口已停止" in teacher.output

