"""A real browser: JupyterLab + Debian's Chromium, driven by Playwright.

What a teacher does in class, done by a test:

1. start JupyterLab on loopback (a free port, a random token, ``--no-browser``)
   over a temporary copy of ``notebooks/`` (so nothing is ever saved into the
   committed notebooks; autosave is off as well);
2. open a notebook in headless Chromium and choose Run → Run All Cells in the menu;
3. check that every ipywidget really rendered - no "Error displaying widget"
   and no "model not found", which is what a mismatch between the Python
   package ``ipywidgets`` and the JupyterLab extension ``jupyterlab_widgets``
   looks like (both pinned in requirements.txt);
4. use the widgets: ``test_widgets_render_and_work_in_jupyterlab`` (a small
   notebook the test writes) types into the chat box and sees the reply
   stream in, then clicks the debugger's 「下一步」 twice;
   ``test_debugger_in_notebook_06`` runs ``notebooks/06_agent_loop.ipynb``,
   finds its debugger, clicks 「下一步」 twice and checks that the message
   chain table grew each time; ``test_approval_buttons`` (notebook 08's
   debugger, in a small notebook the test writes) clicks 「下一步」 until the
   model asks for ``place_order``, then 「按修改的参数执行」, 「拒绝」 and 「批准」,
   and reads the shop database after each click: exactly what the person
   decided was written.  Screenshots: ``test-artifacts/browser_*.png``
   (timings in ``test-artifacts/browser_*.json``).

The browser is Debian's ``chromium`` package at /usr/bin/chromium, launched by
the Python ``playwright`` package with ``executable_path`` (Playwright's own
browser download is not used).  With ``CI=true`` the test must run and fails
if Chromium is missing; elsewhere it is skipped with a hint.  It uses the
configured model (the local llama-server in CI), so it takes a few minutes.
Marked ``browser``: ``pytest -m "not browser"`` leaves it out.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from machine_support import free_port, in_ci
from notebook_cells import ROOT

CHROMIUM = Path("/usr/bin/chromium")
NOTEBOOK = ROOT / "notebooks" / "06_agent_loop.ipynb"
ARTIFACTS = ROOT / "test-artifacts"
WIDGETS_NOTEBOOK = "browser_widgets_check.ipynb"  # written by the test into the temporary copy of notebooks/
APPROVAL_NOTEBOOK = "browser_approval_check.ipynb"  # likewise: notebook 08's approval debugger on its own
APPROVAL_SHOP = "browser_shop.db"  # the shop copy that notebook writes (COURSE_SHOP_DB), next to it
# Flags from the machine notes: no sandbox as root, and no background
# networking (the machine has no network; Chromium would keep retrying).
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
RUN_ALL_TIMEOUT_S = 900   # the whole notebook on the local model
STEP_TIMEOUT_S = 300      # one 「下一步」: one model call (+ queueing) and its tools
ENABLE_HINT = (
    "needs Debian's Chromium at /usr/bin/chromium and the Python package playwright "
    "(sudo apt-get install -y chromium; pip install -r requirements.txt); in CI (CI=true) it always runs"
)

pytestmark = pytest.mark.browser


def _need_browser() -> None:
    """Skip (laptop) or fail (CI) when Chromium or playwright is missing."""
    problems = []
    if not (CHROMIUM.exists() and os.access(CHROMIUM, os.X_OK)):
        problems.append(f"{CHROMIUM} not found")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problems.append("the Python package playwright is not installed")
    if problems:
        message = "; ".join(problems) + f" - the browser test {ENABLE_HINT}"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")


@contextlib.contextmanager
def jupyter_lab(root_dir: Path, work: Path) -> Iterator[tuple[str, str]]:
    """Run JupyterLab on 127.0.0.1 over ``root_dir``; yield ``(base_url, token)``.

    Jupyter config, lab settings, workspaces and runtime files go under
    ``work``, so a teacher's own Jupyter configuration does not change the
    test: autosave off, no news/update checks, the kernel starts by itself.
    The server log is ``work/jupyterlab.log``.
    """
    port, token = free_port(), secrets.token_hex(16)
    settings = work / "settings"
    _write_json(settings / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings", {"autosave": False})
    _write_json(  # no "Select Kernel" dialog: the notebook's python3 kernel starts by itself;
        # every cell stays rendered, so a widget far above the last cell can still be found and clicked
        settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings",
        {"autoStartDefaultKernel": True, "windowingMode": "none"},
    )
    _write_json(
        settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings",
        {"fetchNews": "false", "checkForUpdates": False},
    )
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(work / "config"),
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(work / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(work / "runtime"),
        PYTHONUNBUFFERED="1",
    )
    log = (work / "jupyterlab.log").open("w", encoding="utf-8")
    server = subprocess.Popen(
        [
            sys.executable, "-m", "jupyterlab",
            "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root_dir}",
            "--LabApp.extension_manager=readonly",  # no PyPI look-ups from the extension manager
            "--ServerApp.terminals_enabled=False",
            *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),  # CI runs as root
        ],
        cwd=root_dir, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"JupyterLab exited ({server.returncode}):\n{(work / 'jupyterlab.log').read_text(encoding='utf-8', errors='replace')[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("JupyterLab did not answer within 120 s")
            time.sleep(0.5)
        yield base, token
    finally:
        with contextlib.suppress(OSError):  # shut the kernels down politely first
            with urllib.request.urlopen(f"{base}/api/kernels?token={token}", timeout=5) as reply:
                kernels = json.load(reply)
            for kernel in kernels:
                request = urllib.request.Request(f"{base}/api/kernels/{kernel['id']}?token={token}", method="DELETE")
                urllib.request.urlopen(request, timeout=10).close()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
        log.close()


# JavaScript run in the page: the state of the notebook.
CELLS_STATE_JS = """() => {
  // Only the notebook on screen: a notebook left open in another tab (hidden, zero-sized) must not count.
  const shown = [...document.querySelectorAll('.jp-NotebookPanel')].filter(p => {
      const r = p.getBoundingClientRect(); return r.width > 0 && r.height > 0; });
  const root = shown.length ? shown[shown.length - 1] : document;
  const prompts = [...root.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.textContent.trim());
  const errors = [...root.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
      .map(e => e.textContent).filter(t => /Traceback|Error:/.test(t) && !/Warning/.test(t.split('\\n')[0]));
  const nb = root.querySelector('.jp-Notebook');
  return {prompts, errors, text: nb ? nb.innerText : ''};
}"""


# How many chain-table cells have the highlight colour (tables.HIGHLIGHT_COLOUR #fde68a).
HIGHLIGHTED_JS = """(root) => [...root.querySelectorAll('.course-debugger-chain table tbody td')]
  .filter(td => getComputedStyle(td).backgroundColor === 'rgb(253, 230, 138)').length"""


def _wait_for_run_all(page, timeout_s: float) -> dict:
    """Wait until every code cell has an execution number ``[n]:``; return the last state."""
    started = time.monotonic()
    deadline = started + timeout_s
    state: dict = {}
    while time.monotonic() < deadline:
        state = page.evaluate(CELLS_STATE_JS)
        if time.monotonic() - started > 60 and all(p == "[ ]:" for p in state["prompts"]):
            raise AssertionError("Run All Cells did not start any cell within 60 s")
        if state["errors"]:
            raise AssertionError("a cell failed in the browser:\n" + state["errors"][0][-2000:])
        if state["prompts"] and all(re.fullmatch(r"\[\d+\]:", p) for p in state["prompts"]):
            return state
        time.sleep(1)
    raise AssertionError(f"Run All did not finish in {timeout_s} s; prompts: {state.get('prompts')}")


def _wait_for_kernel(base: str, token: str, name: str, timeout_s: float) -> None:
    """Wait until the server has a session for notebook ``name`` whose kernel is idle (REST /api/sessions)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=5) as reply:
                sessions = json.load(reply)
            for session in sessions:
                if session.get("path", "").endswith(name) and (session.get("kernel") or {}).get("execution_state") == "idle":
                    return
        time.sleep(0.5)
    raise AssertionError(f"no idle kernel for {name} within {timeout_s} s")


def _rows(debugger) -> int:
    """Rows of the message chain table inside the debugger widget."""
    return debugger.locator(".course-debugger-chain table tbody tr").count()


def _click_and_wait(page, debugger, before: int) -> int:
    """Click 「下一步」 and wait until the step finished (「重置」 usable again) and the chain table has more rows."""
    debugger.locator("button", has_text="下一步").click()
    idle = debugger.locator("button", has_text="重置")  # disabled while the model is answering
    deadline = time.monotonic() + STEP_TIMEOUT_S
    while time.monotonic() < deadline:
        rows = _rows(debugger)
        if rows > before and idle.is_enabled():
            return rows
        time.sleep(0.5)
    raise AssertionError(f"the chain table did not grow within {STEP_TIMEOUT_S} s after 「下一步」 (rows: {before})")


# The notebook the first test writes: the three widgets of the course, nothing else.
WIDGETS_CELLS = [
    """from course_runtime import local_server
from course_lib.providers import get_client, get_provider

provider = get_provider()
if provider.is_local:
    local_server.ensure_server()
client = get_client(provider)
MODEL = provider.model""",
    """from course_lib.widgets import ChatSession, chat_box

chat_box(ChatSession(client, MODEL, memory=True, max_tokens=60))""",
    """from course_lib.agent import Agent
from course_lib.debugger import AgentDebugger, debugger_view

debugger = AgentDebugger(Agent(client, MODEL, max_steps=5, max_tokens=200),
                         "查一下北京的气温，然后用计算器算出这个温度乘以 3 是多少。")
debugger_view(debugger)""",
    # A message with two "$" (issue 11): the course table must show it as written ...
    """from course_lib.tables import show_messages

show_messages([{"role": "user", "content": "我有 $25 和 $30 两张券，x_1 怎么算"}], title="美元符号")""",
    # ... while the same text in plain HTML is typeset by MathJax: proof that the check can fail.
    """from IPython.display import HTML

HTML('<p class="course-math-control">我有 $25 和 $30 两张券，x_1 怎么算</p>')""",
]
MATH_TIMEOUT_S = 60  # MathJax is loaded on first use

# Notebook 06 must contain a cell like this one (AgentDebugger + debugger_view on the native loop).
DEBUGGER_CELL_HINT = WIDGETS_CELLS[2]


# The approval notebook: notebook 08's debugger on the shop, writing to its own copy of the shop.
APPROVAL_CELLS = [
    WIDGETS_CELLS[0],
    f"""import os
from pathlib import Path

os.environ["COURSE_SHOP_DB"] = str(Path.cwd() / "{APPROVAL_SHOP}")  # this test's own shop copy

from course_lib.agent import Agent
from course_lib.debugger import AgentDebugger, debugger_view
from course_lib.tools.orders import reset_shop, shop_registry

reset_shop()
SHOP_SYSTEM = ("你是体育用品店的购物助手，用中文简洁地回答。"
               "顾客要买东西时，先用 query_by_product_name 查到商品的 product_id，再用 place_order 下单。")
debugger = AgentDebugger(Agent(client, MODEL, shop_registry(), system=SHOP_SYSTEM, max_steps=4, max_tokens=200),
                         "帮我下单：商品编号 002，买 2 个。")
debugger_view(debugger)""",
]


def _write_notebook(path: Path, sources: list[str]) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab over a temporary copy of notebooks/ (plus the widgets notebook); yields ``(base, token, root)``."""
    _need_browser()
    work = tmp_path_factory.mktemp("lab")
    root = work / "notebooks"
    shutil.copytree(ROOT / "notebooks", root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    _write_notebook(root / WIDGETS_NOTEBOOK, WIDGETS_CELLS)
    _write_notebook(root / APPROVAL_NOTEBOOK, APPROVAL_CELLS)
    started = time.monotonic()
    with jupyter_lab(root, work) as (base, token):
        print(f"JupyterLab up in {time.monotonic() - started:.1f} s")
        yield base, token, root


@pytest.fixture(scope="module")
def browser(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@contextlib.contextmanager
def opened(browser, lab, name: str, failure_png: Path) -> Iterator:
    """A page with notebook ``name`` open and its kernel idle; on failure, a screenshot to ``failure_png``."""
    base, token, _ = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(f"{base}/lab/workspaces/{Path(name).stem}/tree/{name}?token={token}", timeout=120_000)  # own workspace: no earlier tab restored
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        with contextlib.suppress(Exception):  # should not appear (autoStartDefaultKernel), but if it does: accept
            page.locator(".jp-Dialog .jp-mod-accept", has_text="Select").click(timeout=5_000)
        _wait_for_kernel(base, token, name, timeout_s=120)
        yield page
    except BaseException:
        with contextlib.suppress(Exception):
            failure_png.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(failure_png))
        raise
    finally:
        page.close()


def run_all(page) -> dict:
    """Run → Run All Cells from the menu, as a person would; wait for every cell; check the widgets rendered."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    state = _wait_for_run_all(page, RUN_ALL_TIMEOUT_S)
    # What a version mismatch between ipywidgets and jupyterlab_widgets looks like in the page.
    for bad in ("Error displaying widget", "model not found", "Failed to load model class", "Loading widget..."):
        assert bad not in state["text"], f"a widget did not render: {bad!r}"
    return state


def step_twice(page, debugger, timings: dict) -> list[int]:
    """Click 「下一步」 twice on ``debugger``; return the chain-table row counts before/after each click."""
    assert debugger.locator("button", has_text="下一步").count() == 1
    assert debugger.locator("input[type='number']").count() == 1  # max_steps is there and editable
    debugger.scroll_into_view_if_needed()
    rows = [_rows(debugger)]
    for _ in range(2):
        if not debugger.locator("button", has_text="下一步").is_enabled():
            status = debugger.locator(".course-debugger-status").inner_text()
            raise AssertionError(f"the loop stopped after {len(rows) - 1} step(s), cannot click 「下一步」 again: {status}")
        t0 = time.monotonic()
        rows.append(_click_and_wait(page, debugger, rows[-1]))
        timings.setdefault("step_s", []).append(round(time.monotonic() - t0, 1))
    assert rows[0] < rows[1] < rows[2], f"the chain table did not grow: {rows}"
    assert page.evaluate(HIGHLIGHTED_JS, debugger.element_handle()) > 0, "the new messages are not highlighted"
    return rows


def check_dollar_signs(page) -> None:
    """The message table shows "$25 和 $30" as text; the unprotected control paragraph is typeset."""
    control = page.locator(".course-math-control")
    control.scroll_into_view_if_needed()
    deadline = time.monotonic() + MATH_TIMEOUT_S
    while control.locator("mjx-container").count() == 0 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert control.locator("mjx-container").count() > 0, (
        "MathJax did not typeset the unprotected control paragraph, so this check cannot tell protected from not")
    table = page.locator("table", has_text="两张券").first
    assert table.locator("mjx-container").count() == 0, "MathJax typeset text inside the message table"
    assert "我有 $25 和 $30 两张券，x_1 怎么算" in table.inner_text()


def save_screenshots(page, widget, png: Path) -> None:
    png.parent.mkdir(parents=True, exist_ok=True)
    widget.scroll_into_view_if_needed()
    page.screenshot(path=str(png))
    widget.screenshot(path=str(png.with_name(png.stem + "_widget.png")))


def test_widgets_render_and_work_in_jupyterlab(lab, browser):
    """The chat box streams a reply and the debugger steps, in a notebook written by the test."""
    timings: dict = {}
    started = time.monotonic()
    png = ARTIFACTS / "browser_widgets.png"
    with opened(browser, lab, WIDGETS_NOTEBOOK, png.with_name("browser_widgets_failure.png")) as page:
        t0 = time.monotonic()
        run_all(page)
        timings["run_all_s"] = round(time.monotonic() - t0, 1)

        chat = page.locator(".course-chat-box").first
        chat.wait_for(state="visible", timeout=60_000)
        chat.locator("input[type='text']").fill("用三句话介绍一下你自己。")
        chat.locator("button", has_text="发送").click()
        t0 = time.monotonic()
        partial, deadline = False, time.monotonic() + STEP_TIMEOUT_S
        send = chat.locator("button", has_text="发送")
        while time.monotonic() < deadline:
            reply = chat.locator(".course-chat-reply").inner_text() if chat.locator(".course-chat-reply").count() else ""
            partial = partial or "▌" in reply  # the cursor is there only while tokens are still arriving
            if reply.strip() and "▌" not in reply and send.is_enabled():
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the chat box did not answer in time")
        timings["chat_s"] = round(time.monotonic() - t0, 1)
        assert partial, "the reply was never seen growing (no streaming?)"
        assert "⚠" not in chat.inner_text(), chat.inner_text()
        assert "用三句话介绍一下你自己" in chat.locator("table").inner_text()
        png.parent.mkdir(parents=True, exist_ok=True)
        chat.screenshot(path=str(png.with_name("browser_widgets_chat.png")))

        check_dollar_signs(page)

        debugger = page.locator(".course-debugger").first
        rows = step_twice(page, debugger, timings)
        save_screenshots(page, debugger, png)
    timings["total_s"] = round(time.monotonic() - started, 1)
    _write_json(ARTIFACTS / "browser_widgets.json", {"rows": rows, "timings": timings})
    print(json.dumps(timings))


def test_debugger_in_notebook_06(lab, browser):
    """Notebook 06 run top to bottom in the browser; its debugger clicked twice; screenshot saved."""
    _, _, root = lab
    copy = root / NOTEBOOK.name
    problem = None
    if not copy.exists():
        problem = f"{NOTEBOOK.relative_to(ROOT)} does not exist yet"
    elif "debugger_view(" not in copy.read_text(encoding="utf-8"):
        problem = f"{NOTEBOOK.relative_to(ROOT)} has no debugger cell; add one like:\n{DEBUGGER_CELL_HINT}"
    if problem:
        if in_ci():
            pytest.fail(problem)
        pytest.skip(problem)
    timings: dict = {}
    started = time.monotonic()
    png = ARTIFACTS / "browser_06.png"
    with opened(browser, lab, NOTEBOOK.name, png.with_name("browser_06_failure.png")) as page:
        t0 = time.monotonic()
        run_all(page)
        timings["run_all_s"] = round(time.monotonic() - t0, 1)
        debugger = page.locator(".course-debugger").last
        debugger.wait_for(state="attached", timeout=60_000)
        debugger.scroll_into_view_if_needed(timeout=60_000)  # the cell sits in the middle of notebook 06
        debugger.wait_for(state="visible", timeout=60_000)
        rows = step_twice(page, debugger, timings)
        save_screenshots(page, debugger, png)
    timings["total_s"] = round(time.monotonic() - started, 1)
    _write_json(ARTIFACTS / "browser_06.json", {"rows": rows, "timings": timings})
    print(json.dumps(timings))


def _wait_idle(debugger, timeout_s: float = STEP_TIMEOUT_S) -> None:
    """Wait until the debugger is idle again (「重置」 is disabled only while it works)."""
    idle = debugger.locator("button", has_text="重置")
    deadline = time.monotonic() + timeout_s
    time.sleep(0.5)
    while not idle.is_enabled():
        if time.monotonic() > deadline:
            raise AssertionError(f"the debugger was still busy after {timeout_s} s")
        time.sleep(0.5)


def _next_until_waiting(debugger, clicks: int = 3) -> None:
    """Click 「下一步」 until the approval buttons show (the model asked for place_order)."""
    box = debugger.locator(".course-debugger-approval")
    for _ in range(clicks):
        if box.is_visible():
            return
        next_button = debugger.locator("button", has_text="下一步")
        if not next_button.is_enabled():
            break
        next_button.click()
        _wait_idle(debugger)
    if not box.is_visible():
        status = debugger.locator(".course-debugger-status").inner_text()
        raise AssertionError(f"the model did not ask for place_order within {clicks} steps: {status}")


def _pid(value) -> str:
    """A product id as the shop stores it: 2, "2" and "002" are "002" (tools/orders.py reads them so)."""
    return str(value).strip().zfill(3)


def _orders(path: Path) -> list[tuple]:
    """(product_id, quantity) of every order in the test's shop copy, read with sqlite3."""
    import sqlite3

    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return connection.execute("SELECT product_id, quantity FROM orders ORDER BY order_id").fetchall()
    finally:
        connection.close()


def test_approval_buttons(lab, browser):
    """Notebook 08's approval debugger: edit, reject and approve by clicking; the shop copy holds exactly those."""
    _, _, root = lab
    shop = root / APPROVAL_SHOP
    timings: dict = {}
    started = time.monotonic()
    png = ARTIFACTS / "browser_approval.png"
    with opened(browser, lab, APPROVAL_NOTEBOOK, png.with_name("browser_approval_failure.png")) as page:
        run_all(page)
        debugger = page.locator(".course-debugger").first
        debugger.wait_for(state="visible", timeout=60_000)
        box = debugger.locator(".course-debugger-approval")
        assert not box.is_visible(), "the approval buttons show before anything waits for a decision"
        assert _orders(shop) == []

        # 1. Edit: the person changes the quantity to 1 and runs it.
        t0 = time.monotonic()
        _next_until_waiting(debugger)
        assert not debugger.locator("button", has_text="下一步").is_enabled(), "「下一步」 must wait for the decision"
        arguments = box.locator("input[type='text']")
        edited = json.loads(arguments.input_value())
        assert set(edited) >= {"product_id", "quantity"}, edited
        assert _orders(shop) == [], "something was written before anyone decided"
        edited["quantity"] = 1
        arguments.fill(json.dumps(edited))
        box.locator("button", has_text="按修改的参数执行").click()
        _wait_idle(debugger)
        assert not box.is_visible()
        assert _orders(shop) == [(_pid(edited["product_id"]), 1)], _orders(shop)
        assert "参数被修改后执行" in debugger.locator(".course-debugger-details").inner_text()
        save_screenshots(page, debugger, png)
        timings["edit_s"] = round(time.monotonic() - t0, 1)

        # 2. Reject: nothing is written; the model is told.
        t0 = time.monotonic()
        debugger.locator("button", has_text="重置").click()
        _wait_idle(debugger)
        _next_until_waiting(debugger)
        box.locator("button", has_text=re.compile(r"^\s*拒绝\s*$")).click()
        _wait_idle(debugger)
        assert _orders(shop) == [(_pid(edited["product_id"]), 1)], _orders(shop)
        assert "用户拒绝了" in debugger.locator(".course-debugger-chain").inner_text()
        timings["reject_s"] = round(time.monotonic() - t0, 1)

        # 3. Approve: the model's own arguments run.
        t0 = time.monotonic()
        debugger.locator("button", has_text="重置").click()
        _wait_idle(debugger)
        _next_until_waiting(debugger)
        wanted = json.loads(box.locator("input[type='text']").input_value())
        box.locator("button", has_text=re.compile(r"^\s*批准\s*$")).click()
        _wait_idle(debugger)
        assert _orders(shop)[1:] == [(_pid(wanted["product_id"]), wanted["quantity"])], _orders(shop)
        timings["approve_s"] = round(time.monotonic() - t0, 1)
    timings["total_s"] = round(time.monotonic() - started, 1)
    _write_json(ARTIFACTS / "browser_approval.json", {"orders": _orders(shop), "timings": timings})
    print(json.dumps(timings))
