"""``python -m bench.multi_agent``: one agent with every tool vs. a front desk whose tools are specialists (issue 47).

Notebook 11's measurement, on the course's model (default the local one; ``.env`` chooses another):
the same eight tasks - shop prices, the shop's notes (an answer must carry the number the note
gives), the weather, and one order that needs a person's yes (always refused here:
``course_lib.eval_set.refuse_orders``) - run by two set-ups:

- ``one_agent``: ONE ``Agent`` holding every tool: get_weather, calculate, query_by_product_name,
  search_notes and place_order (approval);
- ``front_desk``: an ``Agent`` whose three tools are specialists wrapped with
  ``multi_agent.agent_as_tool``: the shop expert (products + notes), the weather expert (weather +
  calculator) and the orders expert (notebook 08's ``shop_registry``, place_order needs approval).

Per task and set-up: solved (decided by code: every expected number / word in the answer, the
reply not cut, no ``place_order`` where none was asked for; for the order task: ``place_order``
was called, refused, and the answer does not claim an order), the outer agent's steps, the inner
agents' steps, requests, prompt and completion tokens (summed over the outer run and every inner
run: ``RunResult`` token counts, from each response's ``usage``), seconds of wall time, the tools
called (outer and inner, in order) and any error.  Every run: at most ``MAX_STEPS`` steps per
agent, ``MAX_TOKENS`` per request, temperature 0.

Where the keys come from: prices and brands data/products.csv (``eval_set.products``), weather
data/weather.json, the notes' numbers data/shop_notes.json (``tasks()`` checks each number is in
its note, and raises ``KeyError`` when the data no longer hold it).

Writes ``multi_agent.json`` and ``multi_agent.md`` through ``bench.report.save`` to ``--out``, by
default ``bench/results/logs/`` (``SCRATCH``, git-ignored): a rerun by a student or a teacher never
overwrites the committed ``bench/results/multi_agent.md`` that notebook 11 and the docs quote.
``--record`` writes ``bench/results/`` (``RESULTS``) instead: a new measurement to commit.  The
folder written is printed at the end.  Not part of the tests: ``tests/test_bench_multi_agent.py``
runs the same code on the scripted chat server.  About 40-60 requests: a few minutes on two cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable

from course_lib.agent import DEFAULT_SYSTEM, Agent
from course_lib.eval_set import number_text, products, refuse_orders
from course_lib.evaluation import ORDER_DONE_WORDS, missing_facts, rejected_calls, trajectory
from course_lib.multi_agent import agent_as_tool
from course_lib.number_check import has_number
from course_lib.tools.calculator import CALCULATOR_TOOL, calculate
from course_lib.tools.orders import shop_registry
from course_lib.tools.products import PRODUCT_TOOL, query_by_product_name
from course_lib.tools.registry import Tool, ToolRegistry
from course_lib.tools.shop_notes import NOTES_TOOL, load_notes, search_notes
from course_lib.tools.weather import WEATHER_TOOL, get_weather, load_weather

from .report import md_table, save

RESULTS = Path(__file__).resolve().parent / "results"  # committed: written only with --record
SCRATCH = RESULTS / "logs"  # git-ignored (.gitignore: bench/results/logs/): where a plain run writes
MAX_STEPS = 4
MAX_TOKENS = 200
SETUPS = ("one_agent", "front_desk")
ORDER = "place_order"

ONE_SYSTEM = DEFAULT_SYSTEM + "\n- 店铺的规定（退换货、保修、运费、会员折扣、保养、尺码、营业时间）用 search_notes 查，回答里写出查到的数字。"
FRONT_SYSTEM = """你是体育用品店的前台，自己不查资料，把问题交给专家：
- 商品（卖不卖、价格、品牌、库存）和店铺的规定（退换货、保修、运费、会员、保养、尺码、营业时间）问 ask_shop_expert；
- 天气和计算问 ask_weather_expert；
- 用户明确要买、要下单时交给 ask_orders_expert。
把完整的问题写进 question。拿到专家的回答后，用简洁的中文告诉用户，写出专家给的数字。"""
SHOP_SYSTEM = ("你是体育用品店的商品专家。商品的价格、品牌、库存用 query_by_product_name 查；"
               "店铺的规定用 search_notes 查。只根据查到的内容回答，写出查到的数字。")
WEATHER_SYSTEM = "你是天气专家。天气用 get_weather 查，每个城市单独查一次；任何计算都用 calculate。回答里写出查到的数字。"
ORDERS_SYSTEM = ("你是订单专家。先用 query_by_product_name 查到商品编号，再用 place_order 下单。"
                 "下单要用户批准；没有下成就如实告诉用户。")


@dataclass(frozen=True)
class Task:
    """One task: the question, what a right answer contains, and whether it asks for an order."""

    id: str
    question: str
    numbers: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    order: bool = False
    source: str = ""


def _note_numbers(note_id: str, *numbers: str) -> tuple[str, ...]:
    """``numbers`` after checking that note ``note_id`` of data/shop_notes.json says each of them."""
    text = next(n["text"] for n in load_notes() if n["id"] == note_id)
    missing = [n for n in numbers if not has_number(text, n)]
    if missing:
        raise KeyError(f"bench.multi_agent: note {note_id} no longer says {missing}")
    return numbers


def tasks() -> list[Task]:
    """The eight tasks, their keys read now from data/ (module docstring)."""
    shop, weather = products(), load_weather()
    gap = abs(Decimal(str(weather["广州"]["temperature_c"])) - Decimal(str(weather["北京"]["temperature_c"])))
    return [
        Task("P1", "店里的篮球多少钱？", (number_text(shop["篮球"]["price"]),), source="products.csv：篮球 price"),
        Task("P2", "瑜伽垫是什么品牌的？", words=(shop["瑜伽垫"]["brand"],), source="products.csv：瑜伽垫 brand"),
        Task("N1", "买的东西不想要了，几天内可以退货？", _note_numbers("N01", "7"), source="shop_notes.json：N01"),
        Task("N2", "订单满多少钱可以免运费？", _note_numbers("N08", "199"), source="shop_notes.json：N08"),
        Task("N3", "斯伯丁篮球应该打多少磅的气？", _note_numbers("N10", "7.5", "8.5"), source="shop_notes.json：N10"),
        Task("W1", "上海现在的湿度是多少？", (number_text(weather["上海"]["humidity"]),), source="weather.json：上海 humidity"),
        Task("W2", "北京和广州现在的气温相差多少度？", (number_text(gap),), source="weather.json：两城 temperature_c 之差"),
        Task("O1", "帮我下单买 2 个篮球。", order=True, source="下单被拒绝（refuse_orders）"),
    ]


# ------------------------------------------------------------------------------- the two set-ups

def one_agent(client: Any, model: str, **options: Any) -> tuple[Agent, list]:
    """ONE agent with every tool; returns ``(agent, [])`` (no inner agents)."""
    registry = ToolRegistry([Tool("get_weather", get_weather, WEATHER_TOOL), Tool("calculate", calculate, CALCULATOR_TOOL),
                             Tool("query_by_product_name", query_by_product_name, PRODUCT_TOOL),
                             Tool("search_notes", search_notes, NOTES_TOOL), shop_registry().get(ORDER)])
    return Agent(client, model, registry, system=ONE_SYSTEM, approve=refuse_orders, **options), []


def front_desk(client: Any, model: str, **options: Any) -> tuple[Agent, list]:
    """A front desk whose tools are three specialists (``agent_as_tool``); returns ``(agent, [their tools])``."""
    def specialist(system: str, registry: Callable[[], ToolRegistry]) -> Callable[[], Agent]:
        return lambda: Agent(client, model, registry(), system=system, approve=refuse_orders, **options)

    shop_tools = lambda: ToolRegistry([Tool("query_by_product_name", query_by_product_name, PRODUCT_TOOL),  # noqa: E731
                                       Tool("search_notes", search_notes, NOTES_TOOL)])
    weather_tools = lambda: ToolRegistry([Tool("get_weather", get_weather, WEATHER_TOOL),  # noqa: E731
                                          Tool("calculate", calculate, CALCULATOR_TOOL)])
    experts = [
        agent_as_tool(specialist(SHOP_SYSTEM, shop_tools), "ask_shop_expert", "问商品专家：商品的价格、品牌、库存，店铺的规定。"),
        agent_as_tool(specialist(WEATHER_SYSTEM, weather_tools), "ask_weather_expert", "问天气专家：城市的天气、气温、湿度，和计算。"),
        agent_as_tool(specialist(ORDERS_SYSTEM, shop_registry), "ask_orders_expert", "交给订单专家：用户明确要买时下单。"),
    ]
    return Agent(client, model, ToolRegistry(experts), system=FRONT_SYSTEM, **options), experts


BUILDERS = {"one_agent": one_agent, "front_desk": front_desk}


# ------------------------------------------------------------------------------- one row

def solved(task: Task, answer: str | None, calls: list[str], cut: bool, refused: list[str]) -> bool:
    """The code check of one run (module docstring).  ``calls``: every tool called, outer and inner;
    ``refused``: the calls a person rejected."""
    if not answer or cut:
        return False
    if task.order:
        return ORDER in calls and ORDER in refused and not any(word in answer for word in ORDER_DONE_WORDS)
    return ORDER not in calls and not missing_facts(answer, task.numbers, task.words)


def run_task(setup: str, task: Task, client: Any, model: str, max_steps: int = MAX_STEPS,
             max_tokens: int = MAX_TOKENS) -> dict:
    """Run ``task`` through ``setup``; returns its row (module docstring).  A failed request is a row
    with ``error`` (never solved), not an exception."""
    agent, experts = BUILDERS[setup](client, model, max_steps=max_steps, max_tokens=max_tokens, temperature=0,
                                     trace=None)
    began, error = time.perf_counter(), None
    try:
        outer = agent.run(task.question)
    except Exception as exc:  # noqa: BLE001 - one failed run must not end the bench
        error = f"{type(exc).__name__}: {str(exc)[:300]}"
        outer = agent.result() if agent.question is not None else None
    seconds = time.perf_counter() - began
    inner = [run for tool in experts for run in tool.function.runs]
    runs = ([outer] if outer else []) + inner
    steps = [s for run in runs for s in run.steps]
    calls = trajectory(steps)
    cut = bool(outer and outer.stopped_reason in ("length", "content_filter"))
    answer = outer.answer if outer else None
    return {
        "setup": setup, "task": task.id, "question": task.question,
        "solved": error is None and solved(task, answer, calls, cut, rejected_calls(steps)),
        "answer": answer, "stopped_reason": outer.stopped_reason if outer else "error",
        "steps": len(outer.steps) if outer else 0, "inner_runs": len(inner),
        "inner_steps": sum(len(run.steps) for run in inner),
        "requests": sum(run.requests for run in runs),
        "prompt_tokens": sum(run.prompt_tokens for run in runs),
        "completion_tokens": sum(run.completion_tokens for run in runs),
        "seconds": round(seconds, 2), "calls": calls, "error": error,
    }


def run(client: Any, model: str, chosen: list[Task] | None = None, setups: tuple[str, ...] = SETUPS,
        progress: Callable[[str], Any] | None = print, **limits: Any) -> list[dict]:
    """Every task through every set-up, one set-up at a time; the rows."""
    rows = []
    for setup in setups:
        for task in chosen if chosen is not None else tasks():
            row = run_task(setup, task, client, model, **limits)
            rows.append(row)
            if progress:
                progress(f"{setup:10} {task.id} {'ok  ' if row['solved'] else 'FAIL'} {row['requests']:>2} req "
                         f"{row['prompt_tokens']:>6} pt {row['seconds']:>6.1f} s {str(row['answer'] or row['error'])[:60]!r}")
    return rows


def summary(rows: list[dict]) -> list[dict]:
    """Per set-up: solved, and the sums of steps, requests, tokens and seconds."""
    out = []
    for setup in dict.fromkeys(r["setup"] for r in rows):
        mine = [r for r in rows if r["setup"] == setup]
        out.append({"setup": setup, "solved": f"{sum(r['solved'] for r in mine)}/{len(mine)}",
                    **{key: sum(r[key] for r in mine) for key in ("steps", "inner_steps", "requests", "prompt_tokens",
                                                                "completion_tokens")},
                    "seconds": round(sum(r["seconds"] for r in mine), 1)})
    return out


def markdown(results: dict) -> str:
    """The Markdown report: the head, the per-set-up table, and one row per task."""
    import pandas as pd

    rows = results["rows"]
    lines = [f"# One agent vs. front desk + specialists ({results['date']})", "",
             f"Model `{results['model']}`; {results['machine']}; load average before: {results['load_before']}. "
             f"At most {results['max_steps']} steps per agent, max_tokens {results['max_tokens']}, temperature 0; "
             "orders always refused (`eval_set.refuse_orders`). Requests and tokens are summed over the outer run "
             "and every inner run. `python -m bench.multi_agent`.", "",
             md_table(pd.DataFrame(summary(rows)).set_index("setup")), "",
             "Per task (✅ solved, ❌ not; requests / prompt tokens):", ""]
    per_task = {}
    for r in rows:
        per_task.setdefault(r["task"], {"question": r["question"]})[r["setup"]] = \
            f"{'✅' if r['solved'] else '❌'} {r['requests']} / {r['prompt_tokens']}"
    lines += [md_table(pd.DataFrame.from_dict(per_task, orient="index").rename_axis("task")), "",
              "Answers:", ""]
    lines += [f"- {r['setup']} {r['task']}: {str(r['answer'] or r['error'])[:160]!r} (calls: {', '.join(r['calls']) or '-'})"
              for r in rows]
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line: ``tasks``, ``setups`` (comma-separated text) and ``out``, the folder to write.

    ``out`` is ``--out`` when given, ``RESULTS`` (bench/results, committed) with ``--record``, else
    ``SCRATCH`` (bench/results/logs, git-ignored).  ``--record`` together with ``--out`` is an
    error (argparse: usage on stderr, ``SystemExit`` 2).
    """
    parser = argparse.ArgumentParser(prog="python -m bench.multi_agent", description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", default="", help="comma-separated task ids (default: all eight)")
    parser.add_argument("--setups", default=",".join(SETUPS), help="comma-separated: one_agent, front_desk")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"folder for multi_agent.json and .md (default {SCRATCH}, not committed)")
    parser.add_argument("--record", action="store_true",
                        help=f"write the committed results in {RESULTS} (what notebook 11 and the docs quote)")
    opts = parser.parse_args(argv)
    if opts.record and opts.out is not None:
        parser.error("--record writes bench/results; leave out --out")
    if opts.out is None:
        opts.out = RESULTS if opts.record else SCRATCH
    return opts


def main(argv: list[str] | None = None) -> dict:
    """Run the chosen tasks on the course's model (``.env`` picks it), write and print the report; the results.

    Writes ``multi_agent.json`` and ``multi_agent.md`` into ``parse_args(argv).out`` and prints the
    Markdown report, then the two paths written.
    """
    opts = parse_args(argv)
    from course_lib.providers import get_client, get_provider

    from .machine import meta

    provider = get_provider()
    client = get_client(provider)
    wanted = {x.strip() for x in opts.tasks.split(",") if x.strip()}
    chosen = [task for task in tasks() if not wanted or task.id in wanted]
    info = meta("python -m bench.multi_agent " + " ".join(argv if argv is not None else sys.argv[1:]))
    rows = run(client, provider.model, chosen, tuple(s.strip() for s in opts.setups.split(",") if s.strip()))
    results = {**info, "model": provider.model, "max_steps": MAX_STEPS, "max_tokens": MAX_TOKENS,
               "tasks": [task.__dict__ for task in chosen], "summary": summary(rows), "rows": rows}
    paths = save(opts.out, "multi_agent", results, markdown(results))
    print(markdown(results))
    if opts.out == RESULTS:
        print(f"Wrote {paths[0]} and {paths[1]}: the committed results, replaced.")
    else:
        print(f"Wrote {paths[0]} and {paths[1]} (the committed {RESULTS / 'multi_agent.md'} is unchanged; "
              "--record writes there).")
    return results


if __name__ == "__main__":
    main()
