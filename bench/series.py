"""Time the notebook series headless and log every model request it makes.

Each notebook runs top to bottom in a fresh kernel (nbclient), as in the test
suite.  ``COURSE_REQUEST_LOG`` makes every client built by
``course_lib.providers.get_client`` append one JSON line per chat request
(``course_runtime/request_log.py``): wall time, tokens, the reply text.  Reading the
lines a notebook added gives its requests; running the series twice and
comparing the reply texts request by request measures reproducibility.

The notebook tests' second pass (``execute_cells(..., live_cells=[...])``) is
answered from the first pass's record where it sends the same request
(``course_runtime.request_replay``); the series itself never asks for that.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

import httpx2
import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CELL_TIMEOUT_S = 900
# Run in the kernel, out of the notebook's sight, to switch course_runtime.request_replay's mode.
REPLAY_SWITCH = "__import__('os').environ[{var!r}] = {mode!r}"


def read_log(path: Path) -> list[dict]:
    """The JSON lines of a request log (an empty list if the file does not exist)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def switch_replay(client: NotebookClient, mode: str) -> None:
    """Set ``COURSE_REPLAY`` to ``mode`` in the kernel of ``client``, in a cell the notebook never holds.

    ``nbclient`` writes every executed cell into its notebook, so the cell it
    put at index 0 is put back; no history is stored, so no execution count
    moves.
    """
    from course_runtime import request_replay

    first = client.nb.cells[0]
    try:
        client.execute_cell(nbformat.v4.new_code_cell(REPLAY_SWITCH.format(var=request_replay.MODE_ENV, mode=mode)),
                            0, store_history=False)
    finally:
        client.nb.cells[0] = first


def local_slot(action: str, name: str) -> bool:
    """Save or restore the embedded llama-server's one slot: the prompt it has cached, with its KV cache.

    ``POST /slots/0?action=save|restore`` with ``{"filename": name}``; the file
    lies in the server's ``--slot-save-path`` (``local_server.slot_dir()``).  A reply
    can depend on what the server computed before it (the prompt cache, see
    ``local_server.server_flags``), so a cell sent live in the second pass
    first gets the slot it met in the first pass.

    Returns:
        True when the server did it; False when no course server answers, or
        it refused (another provider is configured: nothing is asked).
    """
    from course_runtime import local_server
    from course_lib.providers import ProviderError, get_provider

    try:
        if not get_provider().is_local:
            return False
        response = httpx2.post(f"http://127.0.0.1:{local_server.port()}/slots/0?action={action}",
                              json={"filename": name}, timeout=60, trust_env=False)
    except (ProviderError, httpx2.HTTPError):
        return False
    return response.status_code == 200


def execute_cells(nb: nbformat.NotebookNode, path: Path, log: Path,
                  rerun_errors: list[str] | None = None, rerun_requests: list[dict] | None = None,
                  seconds: dict[str, float] | None = None,
                  live_cells: list[int] | None = None) -> tuple[list[str], list[dict]]:
    """Run ``nb`` top to bottom in a fresh kernel, one cell at a time, with request logging to ``log``.

    The kernel inherits ``COURSE_REQUEST_LOG=log``, so every client made by
    ``get_client`` appends its requests there; counting the log's lines after
    each cell tells which cell sent which request.  A cell that raises stops
    the run, as in Jupyter's "run all".

    Args:
        nb: the notebook (its cells get the first pass's outputs and execution
            counts).  path: where it lives (the kernel's working directory is
            its folder).  log: the request log.
        rerun_errors: if a list is given and the first pass had no error, every
            code cell is run a second time, top to bottom, in the same kernel
            (a student re-running cells).  Each cell is re-run on a copy, and
            the original is put back afterwards (nbclient writes the executed
            cell into ``nb``), so ``nb`` keeps the first pass; the second pass's
            requests are not in the returned ``requests``.  Each cell that
            raises on its second run adds ``"cell N: Name: value"`` to the
            list; the pass goes on.
        rerun_requests: if a list is given, the second pass's log lines are
            appended to it, each with its ``"cell"``.
        seconds: if a dict is given, it gets ``"first_pass"`` (and, when the
            second pass ran, ``"second_pass"``): wall seconds of each pass, the
            kernel's start-up counted in the first.
        live_cells: None (the default; the bench): every request goes to the
            model.  A list (the notebook tests): the first pass records every
            chat answer (``course_runtime.request_replay``, in a temporary folder
            deleted at the end), and the second pass is answered from that
            record wherever it sends a request the first pass sent - except in
            the code cells listed (their index in ``nb.cells``), which go to
            the model.  The kernel inherits ``COURSE_REPLAY_DIR`` and
            ``COURSE_REPLAY=record``; before the second pass, and around each
            listed cell, a cell the notebook never holds switches the mode
            (``switch_replay``).  A replayed request's log line has
            ``"replayed": true``.  On the local model, the server's prompt
            cache before each listed cell is saved in the first pass and put
            back before it in the second (``local_slot``): the replayed cells
            before it computed nothing there, and a reply can depend on it.
    Returns:
        ``(errors, requests)``: the error lines (``"Name: value"``), and the log
        lines the notebook added in the first pass, each with ``"cell"``: the
        index of the code cell that sent it.
    """
    from course_runtime import request_replay

    before = len(read_log(log))
    os.environ["COURSE_REQUEST_LOG"] = str(log)
    record = Path(tempfile.mkdtemp(prefix="course-replay-")) if live_cells is not None else None
    if record is not None:
        os.environ[request_replay.DIR_ENV] = str(record)
        os.environ[request_replay.MODE_ENV] = request_replay.RECORD
    client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    errors: list[str] = []
    live = set(live_cells or [])
    slots: dict[int, str] = {}  # live cell -> the slot file saved before it in the first pass
    cells: list[int] = []  # the cell of each new log line, in order (both passes)
    first_pass: int | None = None  # log lines of the first pass (the second pass's come after them)
    seconds = {} if seconds is None else seconds
    started = time.perf_counter()
    try:
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                try:
                    if record is not None and index in live and rerun_errors is not None:
                        name = f"course-replay-{os.getpid()}-{index}.bin"
                        if local_slot("save", name):
                            slots[index] = name
                    client.execute_cell(cell, index)
                except Exception as exc:  # noqa: BLE001 - recorded; the notebook stops here
                    errors.append(f"{type(exc).__name__}: {str(exc)[:300]}")
                finally:
                    cells += [index] * (len(read_log(log)) - before - len(cells))
                if errors:
                    break
            first_pass = len(read_log(log)) - before
            seconds["first_pass"] = round(time.perf_counter() - started, 1)
            if rerun_errors is not None and not errors:
                started = time.perf_counter()
                if record is not None:
                    switch_replay(client, request_replay.REPLAY)
                for index, cell in enumerate(nb.cells):
                    if cell.cell_type != "code":
                        continue
                    try:
                        if record is not None and index in live:
                            switch_replay(client, request_replay.OFF)
                            if index in slots:
                                local_slot("restore", slots[index])
                        client.execute_cell(copy.deepcopy(cell), index)
                    except Exception as exc:  # noqa: BLE001 - recorded; the second pass goes on
                        rerun_errors.append(f"cell {index}: {type(exc).__name__}: {str(exc)[:300]}")
                    finally:
                        nb.cells[index] = cell  # nbclient put the re-run copy in its place
                        cells += [index] * (len(read_log(log)) - before - len(cells))
                    if record is not None and index in live:
                        try:
                            switch_replay(client, request_replay.REPLAY)
                        except Exception as exc:  # noqa: BLE001 - the rest of the pass then goes live
                            rerun_errors.append(f"cell {index}: replay not switched back on: {type(exc).__name__}: "
                                                f"{str(exc)[:300]}")
                seconds["second_pass"] = round(time.perf_counter() - started, 1)
    finally:
        os.environ.pop("COURSE_REQUEST_LOG", None)
        if record is not None:
            os.environ.pop(request_replay.DIR_ENV, None)
            os.environ.pop(request_replay.MODE_ENV, None)
            shutil.rmtree(record, ignore_errors=True)
        if slots:
            from course_runtime import local_server

            for name in slots.values():
                (local_server.slot_dir() / name).unlink(missing_ok=True)
    added = read_log(log)[before:]
    for line, index in zip(added, cells + [None] * len(added)):
        line["cell"] = index
    requests = added if first_pass is None else added[:first_pass]
    if rerun_requests is not None and first_pass is not None:
        rerun_requests.extend(added[first_pass:])
    return errors, requests


def run_notebook(path: Path, log: Path, executed_dir: Path | None = None) -> dict:
    """Execute one notebook in a fresh kernel with request logging to ``log`` (``execute_cells``).

    Args:
        executed_dir: if given, the executed copy (with outputs) is written there.
    Returns:
        ``{"notebook", "seconds", "errors": [..], "requests": [log lines, each with its "cell"]}``.
    """
    nb = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    errors, requests = execute_cells(nb, path, log)
    seconds = time.perf_counter() - started
    if executed_dir is not None:
        executed_dir.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, executed_dir / path.name)
    return {"notebook": path.stem, "seconds": round(seconds, 1), "errors": errors, "requests": requests}


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
