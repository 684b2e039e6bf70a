"""The reference record: every model reply of the series, request by request, from one run.

The notebooks' prose quotes what the model did in this run ("在参考运行里…").
A run on any other machine is compared with it reply by reply
(``compare``): ``python course.py bench --parts series`` prints how many
replies differ and in which cells, and the notebook test writes the same
report to ``test-artifacts/divergence.md``.

The record (``RECORD``, committed) holds, per notebook, one entry per chat
request made through ``get_client``: the code cell that sent it, the request
body (so ``bench/classroom.py`` can replay a lesson) and the reply
(``content``, ``tool_calls``, ``finish_reason``).  Two replies are the same
when those three are equal.  It also names the build that made it
(``CMAKE_ARGS`` of llama-server, from ``.venv/.llama-build-flags``): on that
build the replies are expected to repeat exactly.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from pathlib import Path

from course_runtime import local_server

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "bench" / "results" / "reference_replies.json"
BUILD_FLAGS = ROOT / ".venv" / ".llama-build-flags"
REPLY_KEYS = ("content", "tool_calls", "finish_reason")


def build_flags() -> str | None:
    """What serves the model in this checkout (``local_server.engine_build``): the ``CMAKE_ARGS`` the
    compiled llama-server was built with, ``COURSE_LLAMA_SERVER=<path>`` when another binary is in use,
    or the engine and its version (``xllamacpp==…``, the Windows release)."""
    return local_server.engine_build()


def reply_of(line: dict) -> dict:
    """The part of a request-log line that is the model's reply."""
    return {key: line.get(key) for key in REPLY_KEYS}


def make_record(runs: list[dict], threads: str | None = None) -> dict:
    """A reference record from one run of the series (``series.run_series`` output)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True, encoding="utf-8", timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {
        "about": "every model reply of the notebook series, request by request (bench/reference.py)",
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "commit": commit,
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores",
        "build": build_flags(),
        "threads": threads or os.environ.get("COURSE_LOCAL_THREADS") or str(local_server.GENERATION_THREADS),
        "notebooks": {
            run["notebook"]: [{"cell": line.get("cell"), "request": line.get("request"), **reply_of(line)}
                              for line in run["requests"]]
            for run in runs
        },
    }


def merge_record(record: dict | None, new: dict) -> dict:
    """``record`` with the notebooks of ``new`` (a ``make_record`` of some notebooks) replaced or added.

    The other notebooks' entries are kept as they are, so the record stays one run's replies
    only when ``new`` was made on the record's build with its thread count.
    Raises:
        ValueError: no record yet, or ``new`` was made on another build or thread count
            (then the whole series must be recorded again: ``--record`` without ``--notebooks``).
    """
    if record is None:
        raise ValueError("no reference record to add to: record the whole series first")
    if (new["build"], new["threads"]) != (record["build"], record["threads"]):
        raise ValueError(f"this run is on {new['build']} / {new['threads']} threads, the record on "
                         f"{record['build']} / {record['threads']}: record the whole series instead")
    merged = {**record, "notebooks": {**record["notebooks"], **new["notebooks"]}}
    merged["added"] = [*record.get("added", []), {"notebooks": sorted(new["notebooks"]), "date": new["date"],
                                                   "commit": new["commit"], "machine": new["machine"]}]
    return merged


def load(path: Path = RECORD) -> dict | None:
    """The committed record, or None if there is none."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def save(record: dict, path: Path = RECORD) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def _short(reply: dict | None, width: int = 80) -> str:
    if reply is None:
        return "(no request)"
    if reply.get("tool_calls"):
        text = "; ".join(f"{c.get('name')}({c.get('arguments')})" for c in reply["tool_calls"])
    else:
        text = str(reply.get("content"))
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def compare(record: dict, now: dict[str, list[dict]]) -> dict:
    """Compare replies of a run with the record, request by request, per notebook.

    Args:
        record: a reference record (``load()``).
        now: notebook stem -> that run's request-log lines (each with ``"cell"``).
    Returns:
        ``{"replies": compared, "identical": n, "per_notebook": {stem: [identical, compared]},
        "differ": [{"notebook", "request": index, "cell", "reference", "now"}]}``; a
        request only one side made counts as different.  Notebooks missing from
        either side are left out.
    """
    per, differ = {}, []
    for stem, lines in now.items():
        ref = record.get("notebooks", {}).get(stem)
        if ref is None:
            continue
        same = 0
        for k in range(max(len(ref), len(lines))):
            a = reply_of(ref[k]) if k < len(ref) else None
            b = reply_of(lines[k]) if k < len(lines) else None
            if a == b:
                same += 1
            else:
                cell = (lines[k] if k < len(lines) else ref[k]).get("cell")
                differ.append({"notebook": stem, "request": k, "cell": cell, "reference": _short(a), "now": _short(b)})
        per[stem] = [same, max(len(ref), len(lines))]
    return {"replies": sum(v[1] for v in per.values()), "identical": sum(v[0] for v in per.values()),
            "per_notebook": per, "differ": differ}


def report(result: dict, record: dict) -> str:
    """The comparison as Markdown: the totals, one row per notebook, one row per differing reply."""
    lines = [f"# Replies compared with the reference run ({record.get('date')}, commit {record.get('commit')})", "",
             f"Reference build: `{record.get('build')}`, {record.get('threads')} threads, {record.get('machine')}.",
             f"This build: `{build_flags()}`.", "",
             f"**{result['identical']} of {result['replies']} replies identical.**", "",
             "| notebook | identical | replies |", "|---|---|---|"]
    lines += [f"| {stem} | {same} | {total} |" for stem, (same, total) in result["per_notebook"].items()]
    if result["differ"]:
        lines += ["", "| notebook | request | cell | reference run | this run |", "|---|---|---|---|---|"]
        lines += [f"| {d['notebook']} | {d['request']} | {d['cell']} | {d['reference'].replace('|', '/')} | "
                  f"{d['now'].replace('|', '/')} |" for d in result["differ"]]
    return "\n".join(lines) + "\n"
