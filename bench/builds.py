"""``python -m bench.builds``: does the model answer the same with another llama-server build?

Issue 20 asks which build of llama-server lets thirty different laptops see
the same replies.  This runs the notebook series once per configuration
(a llama-server binary and a thread count, given as ``NAME=BINARY@THREADS``),
from a fresh server each time, and reports:

* replies: how many of the series' replies are identical to the first
  configuration's, request by request (``reference.compare``);
* speed: prompt-reading and generation tokens per second, from llama-server's
  own ``timings`` in every reply (so the notebooks' own work is left out);
* cells: with ``--reference-outputs`` (the outputs of a run on another CPU,
  ``../shared/reference/executed-outputs-amd-avx2.json``), how many code cells
  print exactly what that run printed.

Writes ``builds.json`` and ``builds.md`` to ``--out`` (default bench/results).
Run it on an idle machine; each configuration takes one series (about 8
minutes on 2 cores).

Example::

    python -m bench.builds native=/opt/native/llama-server@2 portable=.venv/.../llama-server@2 \\
        portable-1t=.venv/.../llama-server@1 --reference-outputs ../shared/reference/executed-outputs-amd-avx2.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import nbformat

from course_runtime import local_server

from . import reference, series
from .machine import meta

DEFAULT_OUT = Path(__file__).resolve().parent / "results"


def speed(runs: list[dict]) -> dict:
    """Prompt and generation tokens per second over every reply of a series (llama-server's ``timings``)."""
    timings = [line["timings"] for run in runs for line in run["requests"] if line.get("timings")]
    prompt_n = sum(t.get("prompt_n") or 0 for t in timings)
    prompt_ms = sum(t.get("prompt_ms") or 0 for t in timings)
    predicted_n = sum(t.get("predicted_n") or 0 for t in timings)
    predicted_ms = sum(t.get("predicted_ms") or 0 for t in timings)
    return {"replies_timed": len(timings), "prompt_tokens": prompt_n, "prompt_s": round(prompt_ms / 1000, 1),
            "prompt_tok_s": round(prompt_n / prompt_ms * 1000, 1) if prompt_ms else None,
            "generated_tokens": predicted_n, "generation_s": round(predicted_ms / 1000, 1),
            "generation_tok_s": round(predicted_n / predicted_ms * 1000, 2) if predicted_ms else None,
            "series_s": round(sum(run["seconds"] for run in runs), 1)}


def cell_text(cell: dict) -> str:
    """What a code cell printed, as text: stream output and the ``text/plain`` of results, joined."""
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(output.get("text", ""))
        elif output.get("output_type") in ("execute_result", "display_data"):
            text = output.get("data", {}).get("text/plain", "")
            parts.append(text if isinstance(text, str) else "".join(text))
    return "".join(parts)


def compare_outputs(executed_dir: Path, reference_outputs: dict) -> dict:
    """Per notebook: how many code cells printed what the reference run printed, and which did not.

    Whitespace is not compared (the reference joins a cell's outputs its own way).
    """
    out = {}
    for name, cells in reference_outputs["notebooks"].items():
        path = executed_dir / name
        if not path.exists():
            continue
        nb = nbformat.read(path, as_version=4)
        differ = [c["cell"] for c in cells
                  if c["cell"] >= len(nb.cells) or cell_text(nb.cells[c["cell"]]).split() != c["out"].split()]
        out[Path(name).stem] = {"cells": len(cells), "identical": len(cells) - len(differ), "differ": differ}
    return out


def run_config(name: str, binary: str, threads: str, out: Path, notebooks: list[Path] | None = None) -> dict:
    """One series (or ``notebooks`` of it) from a fresh server with that binary and thread count."""
    os.environ["COURSE_LLAMA_SERVER"] = binary
    generation, _, batch = threads.partition("/")
    os.environ["COURSE_LOCAL_THREADS"] = generation
    os.environ["COURSE_LOCAL_THREADS_BATCH"] = batch or generation
    local_server.stop_server()
    local_server.ensure_server()
    log = out / "logs" / f"builds_{name}.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    print(f"== {name}: {binary}, {threads} threads", flush=True)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    runs = series.run_series(log, notebooks, executed_dir=out / "logs" / f"executed_{name}")
    local_server.stop_server()
    return {"name": name, "binary": Path(binary).name, "threads": threads, "load_before": load, "runs": runs}


def _same(a: dict, b: dict) -> tuple[int, int]:
    """How many replies of two configurations are identical, request by request per notebook."""
    record = {"notebooks": {stem: replies for stem, replies in a["replies"].items()}}
    found = reference.compare(record, b["replies"])
    return found["identical"], found["replies"]


def markdown(results: dict) -> str:
    configs = results["configs"]
    first = configs[0]["name"]
    lines = [f"# llama-server builds compared ({results['date']})", "",
             f"Machine: {results['machine']}. Each configuration ran the notebooks "
             f"({', '.join(n[:2] for n in results['notebooks'])}) once from a fresh server; replies are compared "
             f"request by request (content, tool calls and finish_reason).", "",
             f"| configuration | threads (generation/prompt) | identical to {first} | identical to the row above | "
             "prompt tok/s | generation tok/s | seconds | load before |", "|---|---|---|---|---|---|---|---|"]
    for k, c in enumerate(configs):
        sp = c["speed"]
        vs_first = "%d/%d" % _same(configs[0], c) if k else "-"
        vs_above = "%d/%d" % _same(configs[k - 1], c) if k > 1 else "-"
        lines.append(f"| {c['name']} | {c['threads']} | {vs_first} | {vs_above} | {sp['prompt_tok_s']} | "
                     f"{sp['generation_tok_s']} | {sp['series_s']} | {c['load_before']} |")
    if any(c.get("cells_vs_reference") for c in configs):
        lines += ["", f"Code cells that print what the reference run on another CPU printed "
                      f"({results.get('reference_outputs_about', '')}; whitespace ignored):", "",
                  "| configuration | " + " | ".join(configs[0]["cells_vs_reference"]) + " | all |",
                  "|---|" + "---|" * (len(configs[0]["cells_vs_reference"]) + 1)]
        for c in configs:
            per = c["cells_vs_reference"]
            total = (sum(v["identical"] for v in per.values()), sum(v["cells"] for v in per.values()))
            lines.append(f"| {c['name']} | " + " | ".join(f"{v['identical']}/{v['cells']}" for v in per.values())
                         + f" | {total[0]}/{total[1]} |")
    for k, c in enumerate(configs[1:], 1):
        found = reference.compare({"notebooks": configs[k - 1]["replies"]}, c["replies"])
        if found["differ"]:
            prev = configs[k - 1]["name"]
            lines += ["", f"The first replies of `{c['name']}` that differ from `{prev}`:", "",
                      f"| notebook | request | cell | {prev} | {c['name']} |", "|---|---|---|---|---|"]
            lines += [f"| {d['notebook']} | {d['request']} | {d['cell']} | {d['reference'].replace('|', '/')} | "
                      f"{d['now'].replace('|', '/')} |" for d in found["differ"][:6]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.builds", description=__doc__.split("\n")[0])
    parser.add_argument("configs", nargs="+", help="NAME=BINARY@THREADS[/BATCH_THREADS], the first is the baseline")
    parser.add_argument("--reference-outputs", type=Path, help="executed outputs of a run on another CPU (JSON)")
    parser.add_argument("--notebooks", default="", help="comma-separated notebook numbers (default: all)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--name", default="builds", help="results file name (NAME.json, NAME.md)")
    opts = parser.parse_args(argv)
    wanted = [n.strip() for n in opts.notebooks.split(",") if n.strip()]
    notebooks = [p for p in series.NOTEBOOKS if not wanted or p.name[:2] in wanted]
    os.environ["COURSE_IGNORE_DOTENV"] = "1"
    os.environ["COURSE_PROVIDER"] = "local"
    ref_outputs = json.loads(opts.reference_outputs.read_text(encoding="utf-8")) if opts.reference_outputs else None
    configs = []
    for spec in opts.configs:
        name, rest = spec.split("=", 1)
        binary, _, threads = rest.partition("@")
        configs.append(run_config(name, str(Path(binary).resolve()), threads or str(os.cpu_count() or 2), opts.out,
                                  notebooks))
    for c in configs:
        c["speed"] = speed(c["runs"])
        c["replies"] = {r["notebook"]: [{"cell": line.get("cell"), **reference.reply_of(line)} for line in r["requests"]]
                        for r in c["runs"]}
        if ref_outputs:
            c["cells_vs_reference"] = compare_outputs(opts.out / "logs" / f"executed_{c['name']}", ref_outputs)
    results = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "machine": meta("python -m bench.builds")["machine"],
               "notebooks": [p.stem for p in notebooks],
               "reference_outputs_about": (ref_outputs or {}).get("cpu", ""),
               "configs": [{k: v for k, v in c.items() if k != "runs"} for c in configs]}
    opts.out.mkdir(parents=True, exist_ok=True)
    (opts.out / f"{opts.name}.json").write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n",
                                               encoding="utf-8")
    (opts.out / f"{opts.name}.md").write_text(markdown(results), encoding="utf-8")
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
