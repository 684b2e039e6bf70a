"""Time the notebook series headless and log every model request it makes.

Each notebook runs top to bottom in a fresh kernel (nbclient), as in the test
suite.  ``COURSE_REQUEST_LOG`` makes every client built by
``course_lib.providers.get_client`` append one JSON line per chat request
(``providers.RequestLog``): wall time, tokens, the reply text.  Reading the
lines a notebook added gives its requests; running the series twice and
comparing the reply texts request by request measures reproducibility.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Callable

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CELL_TIMEOUT_S = 900


def read_log(path: Path) -> list[dict]:
    """The JSON lines of a request log (an empty list if the file does not exist)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def run_notebook(path: Path, log: Path, executed_dir: Path | None = None) -> dict:
    """Execute one notebook in a fresh kernel with request logging to ``log``.

    Args:
        executed_dir: if given, the executed copy (with outputs) is written there.
    Returns:
        ``{"notebook", "seconds", "errors": [..], "requests": [log lines]}``.
    """
    before = len(read_log(log))
    os.environ["COURSE_REQUEST_LOG"] = str(log)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    started = time.perf_counter()
    errors = []
    try:
        client.execute()
    except Exception as exc:  # noqa: BLE001 - recorded; the series goes on
        errors.append(f"{type(exc).__name__}: {str(exc)[:300]}")
    finally:
        os.environ.pop("COURSE_REQUEST_LOG", None)
    seconds = time.perf_counter() - started
    if executed_dir is not None:
        executed_dir.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, executed_dir / path.name)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                errors.append(f"{output.get('ename')}: {output.get('evalue')}")
    return {"notebook": path.stem, "seconds": round(seconds, 1), "errors": errors,
            "requests": read_log(log)[before:]}


def run_series(log: Path, notebooks: list[Path] | None = None, executed_dir: Path | None = None,
               progress: Callable[[str], None] = print) -> list[dict]:
    """Every notebook in order; returns one ``run_notebook`` dict each (executed copies to ``executed_dir``)."""
    out = []
    for path in notebooks or NOTEBOOKS:
        result = run_notebook(path, log, executed_dir)
        progress(f"{result['notebook']:24} {result['seconds']:6.1f} s  {len(result['requests']):3} requests"
                 + (f"  ERRORS: {result['errors']}" if result["errors"] else ""))
        out.append(result)
    return out


def compare_runs(first: list[dict], second: list[dict]) -> dict:
    """How many model replies two runs of the series share, request by request.

    Returns:
        ``{"requests": compared, "identical": n, "per_notebook": {stem: [identical, compared]}}``;
        a notebook with a different number of requests counts its extra
        requests as different.
    """
    per = {}
    for a, b in zip(first, second):
        pairs = list(zip(a["requests"], b["requests"]))
        same = sum(1 for x, y in pairs if x.get("content") == y.get("content"))
        per[a["notebook"]] = [same, max(len(a["requests"]), len(b["requests"]))]
    return {"requests": sum(v[1] for v in per.values()), "identical": sum(v[0] for v in per.values()),
            "per_notebook": per}
