"""``python -m bench`` (or ``python course.py bench``): measure the course on the local model.

Parts (``--parts``, default series, debugger and suite):
  series    every notebook headless, twice (wall time, every request's latency
            and tokens, and whether the second run repeats the first's replies),
            and the first run's replies compared with the reference record
            (``reference.py``: how many differ, in which cells; ``--record``
            makes this run the new record);
  debugger  notebook 06 up to its debugger, then one ``step()`` per click, timed;
  suite     the 40-task agent suite (bench/tasks.py) through the course loops
            and the peer frameworks (LangChain, smolagents) when installed;
  classroom N simulated students against one class model server (``classroom.py``;
            its own files classroom.json / .md / .png);
  bfcl      the Berkeley Function Calling Leaderboard's non-live categories
            through four configurations (``bfcl.py``; needs bfcl-eval, which
            ``python course.py bench`` installs; its own files bfcl.json / .md).

Not a part: ``python -m bench.mutants`` (the course's ``.venv`` alone, no model) measures how
strong each exercise checker is by mutation testing (``mutants.py``; results/mutants.md).

Writes ``results.json``, ``results.md`` and ``results.png`` to ``--out``
(default ``bench/results``).  Run it on an idle machine: anything else using
the CPU (tests, notebooks, a browser) distorts every figure; the load average
before the run is recorded in the results.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from course_runtime import local_server
from course_lib.providers import get_provider

from . import bfcl, classroom, loops, reference, report, series, suite, tasks
from .machine import meta

DEFAULT_OUT = Path(__file__).resolve().parent / "results"


CLICK_CELL = """
import json as _json, time as _time
_clicks = []
while not debugger.done and len(_clicks) < 8:
    _started = _time.perf_counter()
    _info = debugger.step()
    _clicks.append({"seconds": round(_time.perf_counter() - _started, 2), "error": debugger.error,
                    "prompt_tokens": getattr(_info, "prompt_tokens", None),
                    "completion_tokens": getattr(_info, "completion_tokens", None)})
    if _info is None:
        break
print("BENCH_CLICKS=" + _json.dumps({"clicks": _clicks, "stopped_reason": debugger.stopped_reason}))
"""


def time_debugger() -> dict:
    """Notebook 06 run top to bottom up to its debugger cell, then every 「下一步」 click timed.

    The clicks run in the notebook's own kernel, right after the cells a
    class runs before them, so the prompt cache is in the state a teacher
    meets; one ``debugger.step()`` is one click's work without the browser's
    drawing.  Returns ``{"clicks": [{"seconds", "prompt_tokens",
    "completion_tokens", "error"}], "stopped_reason", "question"}``.
    """
    path = next(p for p in series.NOTEBOOKS if p.name.startswith("06_"))
    nb = nbformat.read(path, as_version=4)
    last = max(i for i, cell in enumerate(nb.cells) if "AgentDebugger(" in cell.source)
    nb.cells = nb.cells[: last + 1] + [nbformat.v4.new_code_cell(CLICK_CELL)]
    NotebookClient(nb, timeout=series.CELL_TIMEOUT_S, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    found = json.loads(text.split("BENCH_CLICKS=", 1)[1])
    found["question"] = next(line for line in nb.cells[last].source.splitlines() if "。" in line).strip().strip(",").strip("\"")
    return found


def keep_other_loops(earlier: dict | None, new: dict, loop_names: list[str]) -> dict:
    """``new`` suite results plus the rows of ``earlier``'s loops that were not re-run.

    Only when both ran the same tasks with the same limits; otherwise ``new`` alone.
    ``runs`` says, per loop, the date and load of the run its rows come from.
    """
    if not earlier or any(earlier.get(k) != new[k] for k in ("tasks", "max_steps", "max_tokens")):
        return new
    old_tasks = {row["task"] for row in earlier["rows"]}
    if old_tasks != {row["task"] for row in new["rows"]}:
        return new
    kept = [row for row in earlier["rows"] if row["loop"] not in loop_names]
    runs = {row["loop"]: earlier.get("runs", {}).get(row["loop"], {"date": earlier.get("date"),
                                                                    "load_before": earlier.get("load_before")})
            for row in kept}
    skipped = {k: v for k, v in earlier.get("skipped", {}).items() if k not in loop_names} | new["skipped"]
    return new | {"rows": kept + new["rows"], "skipped": skipped, "runs": runs | new["runs"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--parts", default="series,debugger,suite",
                        help="comma-separated: series, debugger, suite, classroom, bfcl")
    parser.add_argument("--loops", default=",".join(loops.LOOPS), help=f"comma-separated, of {', '.join(loops.LOOPS)}")
    parser.add_argument("--split", default="all", choices=["all", "tune", "held"], help="which half of the suite")
    parser.add_argument("--tasks", default="", help="comma-separated task ids (instead of --split)")
    parser.add_argument("--series-runs", type=int, default=2, help="how often to run the series (2 = check reproducibility)")
    parser.add_argument("--notebooks", default="", help="comma-separated notebook numbers, e.g. 00,06 (default: all)")
    parser.add_argument("--max-steps", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=300)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--record", action="store_true",
                        help="series: write this run's replies as the new reference record (bench/results/reference_replies.json); "
             "with --notebooks, replace only those notebooks' entries (same build and threads as the record)")
    parser.add_argument("--class-students", default=",".join(map(str, classroom.STUDENTS)),
                        help="classroom: comma-separated numbers of simulated students")
    parser.add_argument("--class-slots", default="", help="classroom: comma-separated slot counts (default: 1 and 4)")
    parser.add_argument("--class-max-seconds", type=float, default=600.0, help="classroom: time limit of one class run")
    parser.add_argument("--bfcl-sample", type=int, default=50,
                        help="bfcl: entries per category, drawn with --bfcl-seed (0 = the whole categories, about an hour)")
    parser.add_argument("--bfcl-seed", type=int, default=24, help="bfcl: the sample's seed")
    parser.add_argument("--bfcl-max-tokens", type=int, default=bfcl.Settings([]).max_tokens,
                        help="bfcl: max_tokens per request")
    parser.add_argument("--bfcl-max-minutes", type=float, default=None,
                        help="bfcl: ask no new entry after this many minutes (rows so far are kept; 0 = report only)")
    parser.add_argument("--bfcl-configs", default="a,b,c,d", help="bfcl: comma-separated, of " + ", ".join(bfcl.CONFIGS))
    parser.add_argument("--bfcl-categories", default=",".join(bfcl.CATEGORIES), help="bfcl: comma-separated categories")
    parser.add_argument("--bfcl-builtin-port", type=int, default=0,
                        help="bfcl (a): port of the second server, the GGUF's built-in template (default: course port + 1)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the parts of an earlier results.json in --out that this run does not redo "
                             "(and, for the suite, the rows of the loops not in --loops)")
    opts = parser.parse_args(argv)

    parts = {p.strip() for p in opts.parts.split(",") if p.strip()}
    unknown_parts = parts - {"series", "debugger", "suite", "classroom", "bfcl"}
    loop_names = [name.strip() for name in opts.loops.split(",") if name.strip()]
    unknown_loops = [name for name in loop_names if name not in loops.LOOPS]
    bfcl_configs = [c.strip() for c in opts.bfcl_configs.split(",") if c.strip()]
    bfcl_categories = [c.strip() for c in opts.bfcl_categories.split(",") if c.strip()]
    unknown_bfcl = [c for c in bfcl_configs if c not in bfcl.CONFIGS] + \
        [c for c in bfcl_categories if c not in bfcl.CATEGORIES]
    if unknown_parts or unknown_loops or unknown_bfcl:
        parser.error(f"unknown part(s) {sorted(unknown_parts)} / loop(s) {unknown_loops} / bfcl {unknown_bfcl}")
    if opts.record and "series" not in parts:
        parser.error("--record needs the series (--parts series)")
    provider = get_provider("local")
    base_url = local_server.ensure_server()
    results: dict = {}
    earlier = opts.out / "results.json"
    if opts.keep and earlier.exists():
        results = {k: v for k, v in json.loads(earlier.read_text(encoding="utf-8")).items() if k not in parts}
    results["meta"] = meta(" ".join(["python -m bench", *(argv if argv is not None else sys.argv[1:])]))
    print(f"bench: {results['meta']['machine']}; load {results['meta']['load_before']}")

    if "series" in parts:
        wanted = [n.strip() for n in opts.notebooks.split(",") if n.strip()]
        notebooks = [p for p in series.NOTEBOOKS if not wanted or p.name[:2] in wanted]
        log_dir = opts.out / "logs"
        log_dir.mkdir(parents=True, exist_ok=True)
        runs = []
        for k in range(opts.series_runs):
            log = log_dir / f"series_run{k + 1}.jsonl"
            log.unlink(missing_ok=True)
            print(f"== series, run {k + 1} of {opts.series_runs}")
            runs.append(series.run_series(log, notebooks, executed_dir=log_dir / f"executed_run{k + 1}"))
        results["series"] = {"runs": runs, "date": results["meta"]["date"], "load_before": results["meta"]["load_before"]}
        if len(runs) > 1:
            results["series"]["reproducibility"] = series.compare_runs(runs[0], runs[1])
        record = reference.load()
        if record is not None:
            found = reference.compare(record, {run["notebook"]: run["requests"] for run in runs[0]})
            results["series"]["vs_reference"] = {k: found[k] for k in ("replies", "identical", "per_notebook", "differ")}
            (opts.out / "divergence.md").write_text(reference.report(found, record), encoding="utf-8")
            print(f"== replies identical to the reference record: {found['identical']} of {found['replies']}"
                  f" (details: {opts.out / 'divergence.md'})")
        if opts.record and not wanted:
            print(f"wrote {reference.save(reference.make_record(runs[0]))}")
        elif opts.record:  # only these notebooks' entries are replaced, on the build the record was made on
            print(f"wrote {reference.save(reference.merge_record(record, reference.make_record(runs[0])))}")

    if "debugger" in parts:
        print("== debugger clicks")
        results["debugger"] = time_debugger() | {"date": results["meta"]["date"]}
        print(results["debugger"])

    if "suite" in parts:
        chosen = tasks.select(opts.split, [t.strip() for t in opts.tasks.split(",") if t.strip()] or None)
        print(f"== task suite: {len(chosen)} tasks x {len(loop_names)} loops")
        rows, skipped = suite.run_suite(loop_names, chosen, base_url, provider.model, opts.max_steps,
                                        opts.max_tokens, before_loop=local_server.clear_prompt_cache)
        now = {"date": results["meta"]["date"], "load_before": results["meta"]["load_before"]}
        results["suite"] = {"tasks": len(chosen), "max_steps": opts.max_steps, "max_tokens": opts.max_tokens,
                            "rows": rows, "skipped": skipped, **now, "runs": {name: now for name in loop_names}}
        if opts.keep and earlier.exists():
            results["suite"] = keep_other_loops(json.loads(earlier.read_text(encoding="utf-8")).get("suite"),
                                                results["suite"], loop_names)

    if "classroom" in parts:
        print("== classroom: simulated students against one class model server")
        args = ["--students", opts.class_students, "--max-seconds", str(opts.class_max_seconds)]
        classroom.main(args + (["--slots", opts.class_slots] if opts.class_slots else []), out=opts.out)
        if parts == {"classroom"}:
            return 0

    if "bfcl" in parts:
        print(f"== BFCL: {', '.join(bfcl_categories)} x configurations {', '.join(bfcl_configs)}")
        settings = bfcl.Settings(bfcl_categories, opts.bfcl_sample, opts.bfcl_seed, opts.bfcl_max_tokens)
        command = " ".join(["python -m bench", *(argv if argv is not None else sys.argv[1:])])
        try:
            found = bfcl.run_part(bfcl_configs, settings, base_url, provider.model,
                                  opts.bfcl_builtin_port or local_server.port() + 1, opts.out, command,
                                  keep=opts.keep, before_config=local_server.clear_prompt_cache,
                                  max_minutes=opts.bfcl_max_minutes)
            print(bfcl.markdown(found))
        except bfcl.BfclMissing as exc:
            print(f"bfcl: skipped ({exc})")
        if parts == {"bfcl"}:
            return 0

    paths = report.write(results, opts.out)
    print("\n".join(f"wrote {p}" for p in paths.values()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
