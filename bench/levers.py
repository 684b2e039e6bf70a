"""Issue 12's levers: one change to the prompt, the tools or the loop, measured on the suite.

    python -m bench.levers base --split tune
    python -m bench.levers guard --split tune --tasks S1,S3

Each variant changes exactly one thing against ``base`` (the course as it
ships) and runs the native loop (``course_lib.agent.Agent``) through the
chosen tasks, exactly as ``python -m bench --parts suite --loops native``
does: same server, same four tools, at most 4 requests, ``max_tokens`` 300,
temperature 0, the prompt cache cleared first.  A variant patches module-level
tool schemas or the template path, so run ONE variant per process (this
command does).  Results go to ``bench/results/levers/<variant>-<split>.json``;
``--report`` writes ``bench/results/levers.md`` from every file there.

The protocol of issue 12: a lever is tried on the tuning half; only a lever
that beats ``base`` there is run on the held-apart half.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time
from pathlib import Path
from typing import Callable

from course_runtime import local_server
from course_lib.agent import DEFAULT_SYSTEM, Agent
from course_lib.number_check import invented_numbers, without_tool
from course_lib.providers import get_provider
from course_lib.records import ToolResult
from course_lib.tools.calculator import CALCULATOR_TOOL
from course_lib.tools.knowledge import KNOWLEDGE_TOOL
from course_lib.tools.products import PRODUCT_TOOL
from course_lib.tools.weather import WEATHER_TOOL

from . import loops, meter, suite, tasks

OUT = Path(__file__).parent / "results" / "levers"
TEMPLATE_NOTE = (
    "Numbers you use (prices, temperatures, lengths, dates) must come from the user's message or from a "
    "function result. If a number is still missing, first call the function that looks it up; call calculate "
    "only after that result is back, never with made-up numbers.\n"
)


class Lever:
    """What a variant changes: the system prompt, the ``Agent`` class, the template file, the number check.

    Every lever is measured against the course as it was before the number check
    (``check_numbers`` False), the configuration the levers were tried on.
    """

    def __init__(self) -> None:
        self.system = DEFAULT_SYSTEM
        self.agent_class: Callable[..., Agent] = Agent
        self.template: Path | None = None
        self.check_numbers = False


VARIANTS: dict[str, tuple[str, Callable[[Lever], None]]] = {}


def variant(what: str) -> Callable:
    def register(apply: Callable[[Lever], None]) -> Callable[[Lever], None]:
        VARIANTS[apply.__name__] = (what, apply)
        return apply
    return register


def _fn(tool: dict) -> dict:
    return tool["function"]


@variant("the course before the number check (Agent(check_numbers=False)); it shipped this way until 2026-12-01")
def base(lever: Lever) -> None:
    pass


@variant("calculate's description: every number must come from the question or a tool result; no example numbers")
def calc_grounded(lever: Lever) -> None:
    _fn(CALCULATOR_TOOL)["description"] = (
        "计算一个算术表达式（数字、+ - * / // % ** 和括号）。表达式里的每个数字都必须来自用户的问题或之前的"
        "工具结果：价格、气温、长度要先用别的工具查到，再来计算。")
    _fn(CALCULATOR_TOOL)["parameters"]["properties"]["expression"]["description"] = "只含数字和运算符的算式"


@variant("calc_grounded, and no examples in any parameter description")
def calc_grounded_noex(lever: Lever) -> None:
    calc_grounded(lever)
    _fn(PRODUCT_TOOL)["parameters"]["properties"]["product_name"]["description"] = "商品名里的短关键词"
    _fn(WEATHER_TOOL)["parameters"]["properties"]["city"]["description"] = "城市名"
    _fn(KNOWLEDGE_TOOL)["parameters"]["properties"]["query"]["description"] = "要查的内容"


@variant("system prompt: the numbers in a calculation must already be looked up or given")
def sys_numbers(lever: Lever) -> None:
    anchor = "任何计算都用 calculate。"
    assert anchor in DEFAULT_SYSTEM, "DEFAULT_SYSTEM changed; update sys_numbers' anchor"
    lever.system = DEFAULT_SYSTEM.replace(anchor, "任何计算都用 calculate，但算式里的数字必须是已经查到的或用户给出的，不能自己编。")


@variant("calc_grounded_noex and sys_numbers together")
def both_prompts(lever: Lever) -> None:
    calc_grounded_noex(lever)
    sys_numbers(lever)


FEW_SHOT = """
示例（只演示顺序，数字以工具结果为准）：
用户：买 2 个瑜伽垫一共多少钱？
第 1 步：调用 query_by_product_name，参数 {"product_name": "瑜伽垫"}，得到价格 price。
第 2 步：调用 calculate，参数 {"expression": "2 * price 的数值"}。
第 3 步：用中文回答总价。"""


@variant("system prompt: one worked example (look the price up, then calculate, then answer)")
def few_shot(lever: Lever) -> None:
    lever.system = DEFAULT_SYSTEM + "\n" + FEW_SHOT


FEW_SHOT_CONCRETE = """
示例：
用户：买 2 个瑜伽垫一共多少钱？
助手调用 query_by_product_name，参数 {"product_name": "瑜伽垫"}
工具结果：[{"product_name": "瑜伽垫", "price": 89.0}]
助手调用 calculate，参数 {"expression": "2 * 89"}
工具结果：178
助手：2 个瑜伽垫一共 178 元。"""


@variant("system prompt: one worked example with concrete numbers (look up, calculate, answer)")
def few_shot_concrete(lever: Lever) -> None:
    lever.system = DEFAULT_SYSTEM + "\n" + FEW_SHOT_CONCRETE


@variant("tool order: calculate last instead of second")
def calc_last(lever: Lever) -> None:
    original = meter.default_registry

    def reordered():
        registry = original()
        order = ["get_weather", "query_by_product_name", "search_knowledge", "calculate"]
        return type(registry)([registry.get(name) for name in order])
    meter.default_registry = reordered


@variant("chat template: a rule that numbers come from the user or a function result (English, in the tools section)")
def template_numbers(lever: Lever) -> None:
    text = local_server.TEMPLATE_PATH.read_text(encoding="utf-8")
    anchor = "Only the functions listed above exist."
    assert anchor in text, "the course template changed; update TEMPLATE_NOTE's anchor"
    path = OUT / "template_numbers.jinja"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.replace(anchor, TEMPLATE_NOTE + anchor, 1), encoding="utf-8")
    lever.template = path


GUARD_FREE = {str(n) for n in range(11)}  # the guard variants were measured with 0..10 as numbers nobody has to give
GUARD_TEXT = {
    "guard": ("错误：算式里的 {missing} 既不在用户的问题里，也不在之前的工具结果里，calculate 没有运行。"
              "不要自己编数字：先用工具查到它（商品价格用 query_by_product_name，天气用 get_weather，"
              "资料用 search_knowledge），再用查到的数字计算。"),
    "guard_imperative": ("错误：calculate 没有运行，因为 {missing} 不是查到的数字，也不在用户的问题里。"
                         "现在就调用工具把缺的数字查出来（商品价格用 query_by_product_name，天气用 get_weather，"
                         "资料用 search_knowledge），查到以后再调用 calculate。不要回复文字。"),
}


def _guard_agent(text: str) -> type[Agent]:
    class GuardAgent(Agent):
        """``Agent`` that refuses a calculate call whose numbers come from nowhere (the tool is not run),
        through the public hook ``Agent.answer_call``.

        ``refused`` says whether the last step that ran calls refused one.
        """

        refused = False
        _calls_of = 0  # the step whose calls answer_call is answering

        def answer_call(self, call, step):  # type: ignore[override]
            if step != self._calls_of:  # the first call of a new step
                self.refused, self._calls_of = False, step
            missing = invented_numbers(call, self.messages, GUARD_FREE)
            if not missing:
                return super().answer_call(call, step)
            self.refused = True
            return ToolResult.not_run(call, text.format(missing="、".join(missing)))
    return GuardAgent


def _masking_agent(text: str) -> type[Agent]:
    class MaskingAgent(_guard_agent(text)):
        """The guard, and the request after a refused calculate call offers every tool EXCEPT calculate.

        llama-server builds its tool-call grammar from ``tools``, so the model cannot
        call calculate again there; it can only look something up (or answer).
        """

        def next_request(self, tools=None, max_tokens=None) -> dict:  # type: ignore[override]
            if self.refused and tools is None:
                tools = without_tool(self.tools)
            return super().next_request(tools, max_tokens)
    return MaskingAgent


def _long_recheck(*args, **options) -> Agent:
    """The course's number check with the re-sent request's ``max_tokens`` as high as the first's
    (the public parameter ``recheck_max_tokens``; ``min(max_tokens, it)`` is then ``max_tokens``)."""
    return Agent(*args, **options, recheck_max_tokens=10_000)


@variant("number check: a reply whose calculate call has numbers from nowhere is dropped; the request is "
         "re-sent without calculate, same max_tokens")
def reask_strict(lever: Lever) -> None:
    lever.check_numbers = True
    lever.agent_class = _long_recheck


@variant("the course's number check as it ships since 2026-12-01 (course_lib/number_check.py): reask_strict "
         "with max_tokens 100 on the re-sent request")
def reask_short(lever: Lever) -> None:
    lever.check_numbers = True


@variant("loop guard: a calculate call with numbers from nowhere is not run; the tool result says to look them up")
def guard(lever: Lever) -> None:
    lever.agent_class = _guard_agent(GUARD_TEXT["guard"])


@variant("guard, with an imperative result text (call a tool now, no text reply)")
def guard_imperative(lever: Lever) -> None:
    lever.agent_class = _guard_agent(GUARD_TEXT["guard_imperative"])


@variant("guard, and the next request offers the tools without calculate")
def guard_mask(lever: Lever) -> None:
    lever.agent_class = _masking_agent(GUARD_TEXT["guard"])


def run(name: str, split: str, task_ids: list[str] | None) -> dict:
    """Apply variant ``name``, run the native loop over the tasks, return ``{variant, what, split, rows, ...}``."""
    what, apply = VARIANTS[name]
    lever = Lever()
    apply(lever)

    agent_class = functools.partial(lever.agent_class, check_numbers=lever.check_numbers)
    loops.LOOPS["native"] = functools.partial(loops.run_native, agent_class=agent_class, system=lever.system)
    if lever.template is not None:
        local_server.stop_server()
        local_server.TEMPLATE_PATH = lever.template
    try:
        base_url = local_server.ensure_server()
        chosen = tasks.select(split, task_ids)
        started = time.perf_counter()
        rows, _ = suite.run_suite(["native"], chosen, base_url, get_provider("local").model,
                                  before_loop=local_server.clear_prompt_cache, progress=lambda line: None)
    finally:
        if lever.template is not None:
            local_server.stop_server()  # the next user gets the course template back
    label = split if not task_ids else "tasks " + ",".join(task_ids)  # a partial run is not a half
    return {"variant": name, "what": what, "split": label, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_before": " ".join(f"{x:.2f}" for x in os.getloadavg()),
            "seconds": round(time.perf_counter() - started, 1), "rows": rows}


def report(folder: Path = OUT) -> Path:
    """Write ``levers.md`` (one line per variant and split, then the failed tasks) from the JSON files."""
    results = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    order = list(VARIANTS)
    results.sort(key=lambda r: (order.index(r["variant"]) if r["variant"] in order else 99, r["split"]))
    lines = ["# Issue 12's levers on the task suite (native loop)", "",
             "One change at a time against `base`; `python -m bench.levers NAME --split tune`.", "",
             "`base` is the course before the number check; `reask_short` is the course as it ships since "
             "2026-12-01. Seconds are wall time for the whole split; some runs before 2026-12-01 shared the "
             "machine with other work (each JSON file has its `load_before`).", "",
             "| variant | what changes | split | solved | prompt tokens | seconds | not solved |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        rows = r["rows"]
        failed = " ".join(row["task"] for row in rows if not row["solved"])
        what = VARIANTS[r["variant"]][0] if r["variant"] in VARIANTS else r["what"]  # today's wording of the change
        lines.append(f"| {r['variant']} | {what} | {r['split']} | {sum(x['solved'] for x in rows)}/{len(rows)} | "
                     f"{sum(x['prompt_tokens'] for x in rows)} | {r.get('seconds', '')} | {failed} |")
    path = folder.parent / "levers.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.levers", description=__doc__.split("\n")[0])
    parser.add_argument("variant", nargs="?", choices=list(VARIANTS))
    parser.add_argument("--split", default="tune", choices=["all", "tune", "held"])
    parser.add_argument("--tasks", default="", help="comma-separated task ids (instead of --split)")
    parser.add_argument("--report", action="store_true", help="only write levers.md from the saved results")
    opts = parser.parse_args(argv)
    if not opts.report:
        if opts.variant is None:
            parser.error("name a variant, or --report")
        result = run(opts.variant, opts.split, [t for t in opts.tasks.split(",") if t] or None)
        OUT.mkdir(parents=True, exist_ok=True)
        suffix = opts.split if not opts.tasks else "tasks-" + opts.tasks.replace(",", "-")
        (OUT / f"{opts.variant}-{suffix}.json").write_text(json.dumps(result, ensure_ascii=False, indent=1),
                                                           encoding="utf-8")
        rows = result["rows"]
        print(f"{opts.variant} {suffix}: {sum(r['solved'] for r in rows)}/{len(rows)} in {result['seconds']} s")
        for row in rows:
            print("✅" if row["solved"] else "❌", row["task"], row["tool_calls"], (row["answer"] or "")[:70])
    print("wrote", report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
