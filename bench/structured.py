"""``python -m bench.structured``: does the model answer in JSON, and in the schema, three ways of asking?

For notebook 10's judge (issue 31): a judge must answer ``{"verdict": "pass" | "fail",
"reason": "..."}`` so that code can read it.  Three ways of asking the course's
model for that object, on the same judge questions:

- ``prompt``       the system prompt describes the JSON; nothing else;
- ``json_object``  the same prompt and ``response_format={"type": "json_object"}``;
- ``json_schema``  the same prompt and ``response_format={"type": "json_schema", ...}``
                   with the schema below (llama-server turns it into a grammar).

Each reply is counted as parsed (``json.loads`` of the whole content gives a
dict) and as matching the schema (``course_lib.judge.read``: exactly the two keys,
verdict one of the two words, reason a non-empty string).  The schema, the judge
prompt and the request are notebook 10's (``course_lib/judge.py``): one implementation.  A separate probe asks for a verdict
outside the enum ("maybe") in the prompt: only a server that enforces the
schema answers "pass" or "fail" anyway.  The judge questions are bench tasks
with a right answer (the task's ``expected``) and a wrong one (a fact changed) each,
so the right verdict is known by construction and each mode's agreement is counted too.

Writes ``bench/results/structured.json`` and ``.md`` (``--out`` for another
folder).  Not part of ``python course.py test``: it sends 3 x 2 x len(TASKS) + 3
requests to the local model (about 2 minutes on two cores).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from course_lib.judge import MODES, SCHEMA, ask, judge_messages
from course_lib.providers import get_client, get_provider

from .machine import meta
from .tasks import by_id

RESULTS = Path(__file__).resolve().parent / "results"
# (task id, a wrong answer): the right answer is each task's ``expected``; the wrong one changes its fact.
TASKS = [("C1", "20 乘以 15 等于 350。"), ("W1", "上海现在的湿度是 56%。"), ("P1", "店里的篮球卖 120 元。"),
         ("K1", "世界上最长的河流是亚马孙河。"), ("S1", "买 3 个足球一共 300 元。"), ("P4", "瑜伽垫是李宁牌的。")]


def run() -> dict:
    """Every mode on every judge question (right and wrong answer), then the enum probe per mode."""
    provider = get_provider()
    client = get_client(provider)
    rows = []
    for mode in MODES:
        for task_id, wrong in TASKS:
            task = by_id(task_id)
            for answer, right_verdict in ((f"{task.expected}。", "pass"), (wrong, "fail")):
                row = ask(client, provider.model, judge_messages(task.question, task.expected, answer), mode)
                rows.append({"mode": mode, "task": task_id, "answer": answer, "right_verdict": right_verdict, **row})
                print(f"{mode:11} {task_id} {right_verdict:4} parsed={row['parsed']!s:5} schema={row['in_schema']!s:5} "
                      f"verdict={row['verdict']} {row['seconds']} s {str(row['content'])[:60]!r}", flush=True)
    probe_extra = '\n（这一次请把 verdict 写成 "maybe"。）'
    probes = []
    task = by_id("C1")
    for mode in MODES:
        row = ask(client, provider.model, judge_messages(task.question, task.expected, "300。", probe_extra), mode)
        probes.append({"mode": mode, **row})
        print(f"probe {mode:11} {str(row['content'])[:80]!r}", flush=True)
    return {**meta("python -m bench.structured"), "base_url": provider.base_url, "schema": SCHEMA,
            "rows": rows, "probes": probes}


def summary(result: dict) -> list[dict]:
    """Per mode: requests, parsed, in schema, verdict right (against the code's verdict), and apart from
    them the replies cut at max_tokens (``cut``: no verdict, ``judge.ask``) and the failed requests (``errors``)."""
    table = []
    for mode in MODES:
        rows = [r for r in result["rows"] if r["mode"] == mode]
        table.append({"mode": mode, "requests": len(rows), "parsed": sum(r["parsed"] for r in rows),
                      "in_schema": sum(r["in_schema"] for r in rows),
                      "verdict_right": sum(r["verdict"] == r["right_verdict"] for r in rows),
                      "cut": sum(bool(r.get("cut")) for r in rows), "errors": sum(bool(r.get("error")) for r in rows),
                      "seconds_mean": round(sum(r["seconds"] for r in rows) / max(len(rows), 1), 2)})
    return table


def markdown(result: dict) -> str:
    lines = [f"# Structured outputs on the course's model ({result['date']})", "",
             f"Model `{result['model']}` at {result['base_url']}; {result['machine']} (load before "
             f"{result['load_before']}); server `{result['server']}`; `{result['command']}` (its docstring says what is "
             "counted).", "",
             "| mode | requests | parsed as JSON | in the schema | verdict = code's verdict | cut at max_tokens | failed | mean s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in summary(result):
        lines.append(f"| {row['mode']} | {row['requests']} | {row['parsed']} | {row['in_schema']} | "
                     f"{row['verdict_right']} | {row['cut']} | {row['errors']} | {row['seconds_mean']} |")
    lines += ["", "Probe (the prompt asks for verdict \"maybe\", outside the schema's enum):", "",
              "| mode | reply | in the schema |", "|---|---|---|"]
    for probe in result["probes"]:
        shown = (probe["content"] or probe["error"] or "").replace("|", "\\|").replace("\n", " ")[:120]
        lines.append(f"| {probe['mode']} | `{shown}` | {probe['in_schema']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS)
    opts = parser.parse_args(argv)
    result = run()
    opts.out.mkdir(parents=True, exist_ok=True)
    (opts.out / "structured.json").write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (opts.out / "structured.md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
