"""Turn bench results into ``results.json``, ``results.md`` and ``results.png``.

The JSON holds everything (machine, versions, server command line, every row);
the Markdown holds the tables docs/performance.md quotes; the PNG is one chart with
notebook times, request latency and the suite's solved tasks per loop.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def percentile(values: list[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100, linear interpolation); None for no values."""
    if not values:
        return None
    return round(float(pd.Series(values).quantile(q / 100)), 2)


def latency(requests: list[dict]) -> dict:
    """p50 / p95 / max of request wall time (s) and the token sums of a list of request-log lines."""
    seconds = [r["seconds"] for r in requests if r.get("seconds") is not None]
    return {
        "requests": len(requests),
        "p50_s": percentile(seconds, 50),
        "p95_s": percentile(seconds, 95),
        "max_s": round(max(seconds), 2) if seconds else None,
        "prompt_tokens": sum(r.get("prompt_tokens") or 0 for r in requests),
        "completion_tokens": sum(r.get("completion_tokens") or 0 for r in requests),
    }


def _suite_runs(suite: dict) -> list[str]:
    """When and under what load the suite's rows were measured: one line, or one per loop if they differ."""
    runs = suite.get("runs") or {}
    if len({(r.get("date"), r.get("load_before")) for r in runs.values()}) <= 1:
        return [f"Run {suite.get('date', '')}; load average before: {suite.get('load_before', '?')}."]
    return ["Rows measured in separate runs (the loops not re-run keep their earlier rows):", "",
            *(f"- {loop}: {r.get('date')}; load average before: {r.get('load_before', '?')}" for loop, r in runs.items())]


def suite_table(rows: list[dict]) -> pd.DataFrame:
    """Per loop: solved on each half and in all, requests, tokens, seconds."""
    frame = pd.DataFrame(rows)
    out = []
    for loop, group in frame.groupby("loop", sort=False):
        entry = {"loop": loop}
        for split in ("tune", "held"):
            part = group[group["split"] == split]
            entry[f"solved_{split}"] = f"{int(part['solved'].sum())}/{len(part)}"
        entry["solved"] = f"{int(group['solved'].sum())}/{len(group)}"
        entry["requests"] = int(group["requests"].sum())
        entry["prompt_tokens"] = int(group["prompt_tokens"].sum())
        entry["completion_tokens"] = int(group["completion_tokens"].sum())
        entry["seconds"] = round(float(group["seconds"].sum()), 1)
        out.append(entry)
    return pd.DataFrame(out).set_index("loop")


def md_table(frame: pd.DataFrame) -> str:
    """A DataFrame as a Markdown table, index first (pandas' own ``to_markdown`` needs tabulate)."""
    frame = frame.reset_index()
    head = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join("" if pd.isna(v) else str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def markdown(results: dict) -> str:
    """The Markdown report."""
    lines = [f"# Benchmark results ({results['meta']['date']})", ""]
    meta = results["meta"]
    lines += [f"- machine: {meta['machine']}", f"- load before the run: {meta['load_before']}",
              f"- versions: {', '.join(f'{k} {v}' for k, v in meta['versions'].items())}",
              f"- model: {meta['model']}", f"- server: `{meta['server']}`",
              f"- command: `{meta['command']}`", ""]
    series = results.get("series")
    if series:
        lines += ["## Notebook series (headless, fresh kernel each)", "",
                  f"Run {series.get('date', '')}; load average before: {series.get('load_before', '?')}.", "",
                  "| notebook | seconds | requests | p50 s | p95 s | max s | prompt tokens | completion tokens |",
                  "|---|---|---|---|---|---|---|---|"]
        for nb in series["runs"][0]:
            lat = latency(nb["requests"])
            lines.append(f"| {nb['notebook']} | {nb['seconds']} | {lat['requests']} | {lat['p50_s']} | {lat['p95_s']} "
                         f"| {lat['max_s']} | {lat['prompt_tokens']} | {lat['completion_tokens']} |")
        total = latency([r for nb in series["runs"][0] for r in nb["requests"]])
        lines += [f"| **all** | **{round(sum(nb['seconds'] for nb in series['runs'][0]), 1)}** | {total['requests']} "
                  f"| {total['p50_s']} | {total['p95_s']} | {total['max_s']} | {total['prompt_tokens']} "
                  f"| {total['completion_tokens']} |", ""]
        if series.get("reproducibility"):
            rep = series["reproducibility"]
            lines += [f"Reproducibility: a second top-to-bottom run of the series gave the identical reply in "
                      f"**{rep['identical']} of {rep['requests']}** requests "
                      f"({', '.join(f'{k} {v[0]}/{v[1]}' for k, v in rep['per_notebook'].items())}).", ""]
    debugger = results.get("debugger")
    if debugger:
        lines += ["## Debugger clicks (notebook 06's debugger, one `step()` = one click's work)", "",
                  "| click | seconds | prompt tokens | completion tokens |", "|---|---|---|---|"]
        for k, click in enumerate(debugger["clicks"], 1):
            lines.append(f"| {k} | {click['seconds']} | {click['prompt_tokens']} | {click['completion_tokens']} |")
        lines.append("")
    suite = results.get("suite")
    if suite and suite["rows"]:
        table = suite_table(suite["rows"])
        lines += [f"## Agent task suite ({suite['tasks']} tasks, at most {suite['max_steps']} steps, "
                  f"max_tokens {suite['max_tokens']}, temperature 0)", "",
                  *_suite_runs(suite), "",
                  md_table(table), ""]
        for loop, why in suite.get("skipped", {}).items():
            lines.append(f"- {loop}: not run ({why})")
        lines += ["", "Per task (✅ solved, ❌ not):", "", md_table(_per_task(suite["rows"])), ""]
    return "\n".join(lines) + "\n"


def _per_task(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    frame["mark"] = frame["solved"].map({True: "✅", False: "❌"})
    pivot = frame.pivot_table(index=["task", "split"], columns="loop", values="mark", aggfunc="first", sort=False)
    return pivot


def chart(results: dict, path: Path) -> None:
    """One PNG: notebook seconds, request latency, and solved tasks / prompt tokens per loop."""
    panels = [k for k in ("series", "suite") if results.get(k)]
    fig, axes = plt.subplots(1, 1 + len(panels), figsize=(5.2 * (1 + len(panels)), 4))
    axes = list(axes) if hasattr(axes, "__len__") else [axes]
    ax_i = 0
    if results.get("series"):
        runs = results["series"]["runs"][0]
        names = [nb["notebook"][:2] for nb in runs]
        axes[0].bar(names, [nb["seconds"] for nb in runs], color="tab:blue")
        axes[0].set_title(f"notebook wall time (s), total {sum(nb['seconds'] for nb in runs):.0f} s")
        axes[0].set_xlabel("notebook")
        axes[0].grid(axis="y", alpha=0.3)
        seconds = [r["seconds"] for nb in runs for r in nb["requests"]]
        axes[1].hist(seconds, bins=30, color="tab:green")
        axes[1].set_title(f"request latency (s): p50 {percentile(seconds, 50)}, p95 {percentile(seconds, 95)}")
        axes[1].set_xlabel("seconds per request")
        ax_i = 2
    if results.get("suite") and results["suite"]["rows"]:
        frame = pd.DataFrame(results["suite"]["rows"])
        ax = axes[ax_i] if ax_i < len(axes) else axes[-1]
        loops = list(dict.fromkeys(frame["loop"]))
        held = [int(frame[(frame.loop == lp) & (frame.split == "held")]["solved"].sum()) for lp in loops]
        tune = [int(frame[(frame.loop == lp) & (frame.split == "tune")]["solved"].sum()) for lp in loops]
        xs = range(len(loops))
        ax.bar([x - 0.2 for x in xs], tune, 0.4, label="tune half")
        ax.bar([x + 0.2 for x in xs], held, 0.4, label="held-apart half")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(loops, rotation=15)
        ax.set_ylim(0, max(1, len(frame) // max(1, len(loops)) // 2) + 1)
        ax.set_title("tasks solved per loop")
        ax.legend()
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def save(folder: Path, name: str, results: dict, text: str) -> tuple[Path, Path]:
    """Write ``results`` as ``<name>.json`` (indented, UTF-8) and ``text`` as ``<name>.md`` into ``folder``
    (created if needed): how the class benches (classroom, fairness, class_cost) keep a result; returns both paths."""
    folder.mkdir(parents=True, exist_ok=True)
    as_json, as_md = folder / f"{name}.json", folder / f"{name}.md"
    as_json.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    as_md.write_text(text, encoding="utf-8")
    return as_json, as_md


def write(results: dict, folder: Path) -> dict[str, Path]:
    """Write ``results.json``, ``results.md`` and ``results.png`` into ``folder``; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"json": folder / "results.json", "md": folder / "results.md", "png": folder / "results.png"}
    paths["json"].write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    paths["md"].write_text(markdown(results), encoding="utf-8")
    chart(results, paths["png"])
    return paths
