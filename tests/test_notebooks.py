"""Notebooks are committed clean and run top to bottom in a fresh kernel on the configured model.

The execution tests are marked ``notebook``; ``pytest -m "not notebook"`` skips
them.  Each run writes the executed notebook and its wall time to
``test-artifacts/`` (git-ignored), which is where the README's timings come from.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from bench import reference, series
from course_runtime import local_server
from notebook_cells import NOTEBOOKS, ROOT

ARTIFACTS = ROOT / "test-artifacts"
CELL_TIMEOUT_S = 900
# Executed notebooks written by test_notebook_executes in this pytest session (name -> notebook).
EXECUTED: dict[str, nbformat.NotebookNode] = {}
# Their model requests (notebook stem -> request-log lines, each with its "cell").
REQUESTS: dict[str, list[dict]] = {}
# What each notebook's second pass raised (notebook name -> "cell N: Name: value" lines).
RERUN_ERRORS: dict[str, list[str]] = {}
# The second pass's model requests (notebook stem -> request-log lines, each with its "cell").
RERUN_REQUESTS: dict[str, list[dict]] = {}
# Code that draws a chart: a course_lib.plots function, pyplot, or a hand-built Figure.
PLOT_CALL_RE = re.compile(r"\bplot_\w+\(|\bplt\.|\bFigure\(|\.plot\(")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_without_outputs(path: Path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs, f"{path.name}: a code cell has outputs committed"
            assert cell.execution_count is None, f"{path.name}: a code cell has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_code_cell_writes_a_backslash_n_where_it_means_a_new_line(path: Path):
    """A prompt written with ``"\\\\n- …"`` in a code cell reaches the model as a backslash and an n glued to the
    line before (notebook 10's fix experiment ran on such a prompt until issue 45): ``"\\n"`` is the new line."""
    nb = nbformat.read(path, as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert "\\\\n" not in cell.source, f"{path.name} cell {index}: a literal backslash-n in a string"


CREATE_TABLE_RE = re.compile(r"CREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?!IF\s+NOT\s+EXISTS)(\w+)", re.IGNORECASE)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_cell_that_creates_a_table_can_run_again(path: Path):
    """A student who changes a question and runs the cell again must not meet ``table notes already exists``:
    a cell that creates a table drops it first, opens a fresh connection first, or says IF NOT EXISTS."""
    nb = nbformat.read(path, as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for found in CREATE_TABLE_RE.finditer(cell.source):
            before = cell.source[:found.start()]
            name = found.group(1)
            assert (re.search(rf"DROP\s+TABLE\s+IF\s+EXISTS\s+{name}\b", before, re.IGNORECASE)
                    or "sqlite3.connect(" in before), f"{path.name} cell {index}: CREATE TABLE {name} fails when run again"


def test_notebooks_are_numbered_in_order():
    numbers = [int(p.name[:2]) for p in NOTEBOOKS]
    assert numbers == list(range(len(numbers))), numbers


@pytest.fixture(scope="module")
def local_model_up():
    """Start the local server once, so its start-up is not charged to the first notebook."""
    from course_lib.providers import get_provider
    from course_runtime import local_server

    if get_provider().is_local:
        local_server.ensure_server()


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path: Path, local_model_up):
    """Top to bottom in a fresh kernel, one cell at a time (``bench.series.execute_cells``, as the
    bench's series does), with every model request logged and attributed to its cell; then, in the
    same kernel, every code cell once more (its errors are ``test_every_cell_survives_a_second_run``'s).

    The second pass is answered from the first pass's record where it sends a request the first
    pass sent (``course_runtime.request_replay``: a deterministic model would give the same reply), and
    goes to the model for every other request and in the cells that send from threads
    (``threaded_cells``: their live replies are compared below).  ``COURSE_SECOND_PASS_LIVE=1``
    sends the whole second pass to the model."""
    nb = nbformat.read(path, as_version=4)
    log = ARTIFACTS / "requests" / f"{path.stem}.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    rerun_errors: list[str] = []
    rerun_requests: list[dict] = []
    seconds: dict[str, float] = {}
    live_cells = None if os.environ.get("COURSE_SECOND_PASS_LIVE") == "1" else threaded_cells(path)
    try:
        errors, requests = series.execute_cells(nb, path, log, rerun_errors=rerun_errors,
                                                rerun_requests=rerun_requests, seconds=seconds,
                                                live_cells=live_cells)
        if not errors:
            RERUN_ERRORS[path.name] = rerun_errors
            RERUN_REQUESTS[path.stem] = rerun_requests
    finally:
        (ARTIFACTS / "executed").mkdir(exist_ok=True)
        nbformat.write(nb, ARTIFACTS / "executed" / path.name)  # the first pass's outputs
        EXECUTED[path.name] = nb
        replayed = sum(1 for line in rerun_requests if line.get("replayed"))
        counts = {"second_pass_replayed": replayed, "second_pass_live": len(rerun_requests) - replayed}
        write_times(path.stem, seconds, counts if "second_pass" in seconds else {})
    REQUESTS[path.stem] = requests
    assert not errors, f"{path.name}: {errors[0]}"
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", f"{path.name}: {output.get('ename')}: {output.get('evalue')}"


def write_times(stem: str, seconds: dict[str, float], counts: dict[str, int] | None = None) -> None:
    """Adds one notebook's seconds per pass to ``test-artifacts/notebook_times.json``:
    ``{stem: {"first_pass_s": s, "second_pass_s": s, "second_pass_replayed": n, "second_pass_live": n}}``
    (the first pass is the one a class sees, the kernel's start-up included; the second re-runs every
    cell in the same kernel, its requests answered from the first pass's record (replayed) or by the
    model (live))."""
    times_file = ARTIFACTS / "notebook_times.json"
    try:
        times = json.loads(times_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        times = {}
    times[stem] = {**{f"{name}_s": value for name, value in seconds.items()}, **(counts or {})}
    times_file.write_text(json.dumps(times, indent=2, ensure_ascii=False), encoding="utf-8")


def quoted_cells(path: Path) -> list[int]:
    """The code cells whose replies the prose quotes as the reference run (``metadata.course.quoted``)."""
    nb = nbformat.read(path, as_version=4)
    return [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and cell.metadata.get("course", {}).get("quoted")]


def test_prose_that_quotes_the_reference_run_names_its_cells():
    """Every notebook that talks to the model marks the cells its prose quotes, so the test below has
    something to hold them to; and every marked cell sends a request in the reference record."""
    record = reference.load()
    assert record is not None, "bench/results/reference_replies.json is missing (python -m bench --parts series --record)"
    for path in NOTEBOOKS:
        marked = quoted_cells(path)
        recorded = {entry["cell"] for entry in record["notebooks"].get(path.stem, [])}
        if path.stem != "00_setup":
            assert marked, f"{path.name}: no cell is marked as quoted (metadata.course.quoted)"
        assert set(marked) <= recorded, f"{path.name}: marked cells {sorted(set(marked) - recorded)} send no request"


@pytest.mark.notebook
def test_replies_match_the_reference_record():
    """Runs after the executions above: every reply compared with the reference record.

    The report (test-artifacts/divergence.md) is always written.  On the reference build (the
    llama-server flags and thread count the record was made with) every reply of a cell whose prose
    quotes the reference run must be the recorded one; on another build (a CPU without AVX2 gets a
    native build) the differences are only reported.
    """
    if len(REQUESTS) != len(NOTEBOOKS):
        pytest.skip("run every notebook first (pytest -m notebook)")
    record = reference.load()
    found = reference.compare(record, REQUESTS)
    (ARTIFACTS / "divergence.md").write_text(reference.report(found, record), encoding="utf-8")
    same_build = (reference.build_flags() == record["build"]
                  and (os.environ.get("COURSE_LOCAL_THREADS") or str(local_server.GENERATION_THREADS)) == record["threads"])
    if not same_build:
        pytest.skip(f"not the reference build ({reference.build_flags()}): {found['identical']} of {found['replies']} "
                    "replies as recorded; see test-artifacts/divergence.md")
    quoted = {(path.stem, cell) for path in NOTEBOOKS for cell in quoted_cells(path)}
    broken = [d for d in found["differ"] if (d["notebook"], d["cell"]) in quoted]
    assert not broken, ("cells whose prose quotes the reference run reply differently on the reference build "
                        "(test-artifacts/divergence.md):\n" + "\n".join(
                            f"{d['notebook']} cell {d['cell']}: reference {d['reference']!r}, now {d['now']!r}" for d in broken))


# Code that sends model requests from more than one thread: their arrival order is the threads' timing.
THREADED_RE = re.compile(r"\bThreadPoolExecutor\b|\bthreading\b|\basyncio\.gather\b")


def threaded_cells(path: Path) -> list[int]:
    """The code cells of ``path`` that start threads (``THREADED_RE``)."""
    nb = nbformat.read(path, as_version=4)
    return [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and THREADED_RE.search(cell.source)]


def test_the_parallel_cell_is_found():
    """The test below has something to check: 07's parallel cell sends from threads."""
    assert threaded_cells(ROOT / "notebooks" / "07_comparison.ipynb"), "07 has no ThreadPoolExecutor cell"


@pytest.mark.notebook
def test_cells_that_send_from_threads_reply_the_same_when_run_again():
    """A cell that sends several requests from threads gives the same reply to each request when
    the student runs it again (the second pass of test_notebook_executes, same kernel, a warm prompt
    cache): the order its requests reach a one-slot server must not depend on the threads' timing,
    or the prose under it (07's parallel cell quotes the reference run) holds only on some runs.
    These cells are live in the second pass (``live_cells``); a replayed reply would prove nothing."""
    if len(RERUN_REQUESTS) != len(NOTEBOOKS):
        pytest.skip("run every notebook first (pytest -m notebook)")
    checked = 0
    for path in NOTEBOOKS:
        for cell in threaded_cells(path):
            passes = []
            for lines in (REQUESTS[path.stem], RERUN_REQUESTS[path.stem]):
                passes.append({json.dumps(line.get("request"), ensure_ascii=False, sort_keys=True): reference.reply_of(line)
                               for line in lines if line.get("cell") == cell})
            first, second = passes
            assert first, f"{path.name} cell {cell}: no request in the first pass"
            replayed = [line for line in RERUN_REQUESTS[path.stem] if line.get("cell") == cell and line.get("replayed")]
            assert not replayed, f"{path.name} cell {cell}: {len(replayed)} requests replayed, not sent, in the second run"
            assert first.keys() == second.keys(), f"{path.name} cell {cell}: the second run sent other requests"
            changed = [(first[key], second[key]) for key in first if first[key] != second[key]]
            assert not changed, f"{path.name} cell {cell}: replies changed on the second run: {changed}"
            checked += 1
    assert checked


def _executed(path: Path) -> nbformat.NotebookNode:
    """The executed copy of ``path``: from this session's test_notebook_executes, else from
    test-artifacts/executed/ (a previous run); skips when there is none."""
    if path.name in EXECUTED:
        return EXECUTED[path.name]
    copy = ARTIFACTS / "executed" / path.name
    if not copy.exists():
        pytest.skip(f"no executed copy of {path.name}: run test_notebook_executes first (pytest -m notebook)")
    return nbformat.read(copy, as_version=4)


def test_some_notebooks_draw_charts():
    """The plot test below has something to check: 02, 05 and 07 draw charts."""
    drawing = {p.stem[:2] for p in NOTEBOOKS
               if any(c.cell_type == "code" and PLOT_CALL_RE.search(c.source) for c in nbformat.read(p, as_version=4).cells)}
    assert {"02", "05", "07"} <= drawing, drawing


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_chart_renders_as_an_image(path: Path):
    """Runs after test_notebook_executes (same module, later): every figure output is an image.

    A figure built without pyplot's inline backend shows only ``<Figure size ...>`` text.
    """
    nb = _executed(path)
    images = 0
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            images += "image/png" in data
            if str(data.get("text/plain", "")).startswith("<Figure"):
                assert "image/png" in data, f"{path.name} cell {index}: a figure shown only as text: {data['text/plain']}"
    draws = any(c.cell_type == "code" and PLOT_CALL_RE.search(c.source) for c in nbformat.read(path, as_version=4).cells)
    if draws:
        assert images, f"{path.name} draws a chart but its executed copy has no image/png output"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_cell_survives_a_second_run(path: Path, local_model_up):
    """A student re-runs cells: after the notebook ran top to bottom, every code cell runs once
    more, top to bottom, in the same kernel, and none may raise (a cell rebuilds its own state
    or says which cell to run first).

    The second pass is made by ``test_notebook_executes`` right after its first pass (one kernel,
    no third run of the notebook: this keeps CI under an hour); its outputs are not kept (a second
    run may answer differently, the prose describes the first).  Run alone, this test makes both
    passes itself in the stricter form: each cell twice in a row.
    """
    if path.name in RERUN_ERRORS:
        failures = RERUN_ERRORS[path.name]
        assert not failures, f"{path.name}: " + "; ".join(failures)
        return
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    failures = []
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            for attempt in (1, 2):
                client.execute_cell(cell, index)
                errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
                if errors:
                    failures.append(f"cell {index}, run {attempt}: {errors[0].get('ename')}: {errors[0].get('evalue')}")
                    break
    assert not failures, f"{path.name}: " + "; ".join(failures)
