"""Where the series re-reads prompt tokens (issue 24): each request, by how its prompt relates to the last one.

llama-server keeps the last prompt of its one slot and reads only what comes
after the longest common prefix.  A request that continues the previous one
(same tools, the earlier messages unchanged) reads only its new messages; a
request whose tool list or first message changed must read almost all of its
prompt again, because both sit at the very start of the rendered prompt (the
course template puts the system message and the tools first).

    python -m bench.prefixes bench/results/logs/series_run1.jsonl [OTHER.jsonl ...]

prints, for each series log (``bench/series.py`` writes one line per request
with llama-server's own ``timings``: ``cache_n`` tokens reused, ``prompt_n``
tokens read), the tokens read per kind of request, and per notebook when the
log has as many requests as the reference record.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from . import reference
from .series import read_log

# How a request's prompt relates to the one before it (the order is the order of the tables).
KINDS = {
    "continues": "continues the previous request (same tools, earlier messages unchanged)",
    "history": "same tools and first message, other history (a new question, a trimmed memory)",
    "tools": "tool list changed, same first message",
    "first": "first message changed, same tools",
    "both": "tool list and first message changed (a new conversation)",
    "start": "first request of the log",
}


def kind(previous: dict | None, request: dict) -> str:
    """Classify ``request`` (a chat request body) against the ``previous`` one (None = none yet).

    Returns:
        A key of ``KINDS``.
    """
    if not previous or not previous.get("messages") or not request.get("messages"):
        return "start"
    same_tools = json.dumps(previous.get("tools"), sort_keys=True) == json.dumps(request.get("tools"), sort_keys=True)
    old, new = previous["messages"], request["messages"]
    if same_tools and new[:len(old)] == old:
        return "continues"
    if old[0] == new[0]:
        return "history" if same_tools else "tools"
    return "first" if same_tools else "both"


def summarize(rows: list[dict], cells: list[tuple[str, int]] | None = None) -> dict:
    """Add up a series log.

    Args:
        rows: the log's lines (dicts with ``timings`` and, for non-streamed requests, ``request``);
            a streamed request has no body and counts as continuing the last one it follows.
        cells: ``(notebook, cell)`` per row, from the reference record, or None.
    Returns:
        ``{"requests", "prompt_tokens", "read", "reused", "prompt_s", "generate_s",
        "kinds": {kind: {"requests", "read", "reused"}}, "notebooks": {name: {kind: read}}}``;
        tokens as llama-server counts them, seconds from its timings.
    """
    seconds = {"prompt_s": 0.0, "generate_s": 0.0}
    kinds: dict = defaultdict(lambda: {"requests": 0, "read": 0, "reused": 0})
    notebooks: dict = defaultdict(lambda: defaultdict(int))
    previous = None
    for index, row in enumerate(rows):
        timings = row.get("timings") or {}
        read, reused = timings.get("prompt_n", 0), timings.get("cache_n", 0)
        request = row.get("request")
        what = kind(previous, request) if request else "continues"
        previous = request or previous
        seconds["prompt_s"] += timings.get("prompt_ms", 0) / 1000
        seconds["generate_s"] += timings.get("predicted_ms", 0) / 1000
        kinds[what]["requests"] += 1
        kinds[what]["read"] += read
        kinds[what]["reused"] += reused
        if cells:
            notebooks[cells[index][0]][what] += read
    totals = {key: sum(k[key] for k in kinds.values()) for key in ("requests", "read", "reused")}
    return {**totals, "prompt_tokens": totals["read"] + totals["reused"], **seconds,
            "kinds": {k: dict(v) for k, v in kinds.items()}, "notebooks": {n: dict(v) for n, v in notebooks.items()}}


def record_cells(record: dict | None) -> list[tuple[str, int]]:
    """``(notebook, cell)`` of every request in the reference record (``reference.load()``), in order;
    empty when there is no record."""
    if not record:
        return []
    return [(name, entry["cell"]) for name, entries in record["notebooks"].items() for entry in entries]


def markdown(name: str, found: dict) -> str:
    """One log's summary as Markdown (a line of totals, a table per kind, a table per notebook)."""
    share = lambda n: f"{100 * n / found['read']:.0f} %" if found["read"] else "-"  # noqa: E731
    lines = [f"**{name}**: {found['requests']} requests, {found['prompt_tokens']} prompt tokens, "
             f"{found['read']} read ({found['prompt_s']:.0f} s), {found['reused']} reused from the cache; "
             f"generating {found['generate_s']:.0f} s (llama-server's timings)", "",
             "| request | requests | tokens read | share of read | tokens reused |", "|---|---:|---:|---:|---:|"]
    for key in KINDS:
        if key in found["kinds"]:
            k = found["kinds"][key]
            lines.append(f"| {KINDS[key]} | {k['requests']} | {k['read']} | {share(k['read'])} | {k['reused']} |")
    if found["notebooks"]:
        keys = [k for k in KINDS if k in found["kinds"]]
        lines += ["", "| notebook | " + " | ".join(keys) + " |", "|---|" + "---:|" * len(keys)]
        for notebook, counts in found["notebooks"].items():
            lines.append(f"| {notebook} | " + " | ".join(str(counts.get(k, 0)) for k in keys) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    cells = record_cells(reference.load())
    for arg in argv:
        rows = read_log(Path(arg))
        print(markdown(arg, summarize(rows, cells if len(rows) == len(cells) else None)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
