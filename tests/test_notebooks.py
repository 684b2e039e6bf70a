"""Notebooks are committed clean and run top to bottom in a fresh kernel on the configured model.

The execution tests are marked ``notebook``; ``pytest -m "not notebook"`` skips
them.  Each run writes the executed notebook and its wall time to
``test-artifacts/`` (git-ignored), which is where the README's timings come from.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from notebook_cells import NOTEBOOKS, ROOT

ARTIFACTS = ROOT / "test-artifacts"
CELL_TIMEOUT_S = 900


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_without_outputs(path: Path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs, f"{path.name}: a code cell has outputs committed"
            assert cell.execution_count is None, f"{path.name}: a code cell has an execution count"


def test_notebooks_are_numbered_in_order():
    numbers = [int(p.name[:2]) for p in NOTEBOOKS]
    assert numbers == list(range(len(numbers))), numbers


@pytest.fixture(scope="module")
def local_model_up():
    """Start the local server once, so its start-up is not charged to the first notebook."""
    from course_lib.providers import get_provider
    from course_lib import local_server

    if get_provider().is_local:
        local_server.ensure_server()


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path: Path, local_model_up):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    started = time.monotonic()
    try:
        client.execute()
    finally:
        elapsed = time.monotonic() - started
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "executed").mkdir(exist_ok=True)
        nbformat.write(nb, ARTIFACTS / "executed" / path.name)
        times_file = ARTIFACTS / "notebook_times.json"
        times = json.loads(times_file.read_text()) if times_file.exists() else {}
        times[path.stem] = round(elapsed, 1)
        times_file.write_text(json.dumps(times, indent=2, ensure_ascii=False))
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", f"{path.name}: {output.get('ename')}: {output.get('evalue')}"
