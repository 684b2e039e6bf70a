"""The benchmark (bench/): its task suite and checks, and a small smoke run on the local model.

The smoke run (marked ``bench``) runs two tasks through the course loops,
notebook 00 once and the debugger, and checks that results.json, results.md
and results.png are written and well formed.  It asserts no timing: figures
are measured by ``python course.py bench`` on an idle machine, not here.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bench import tasks
from bench.loops import COURSE_LOOPS, LOOPS, PEER_LOOPS
from bench.meter import recording_tools
from course_lib.tools import calculate, get_weather, query_by_product_name, search_knowledge


def test_suite_has_forty_tasks_split_in_two_even_halves():
    assert len(tasks.TASKS) == 40
    assert len({t.id for t in tasks.TASKS}) == 40
    halves = Counter(t.split for t in tasks.TASKS)
    assert halves == {"tune": 20, "held": 20}
    for category in {t.id[0] for t in tasks.TASKS}:
        split = Counter(t.split for t in tasks.TASKS if t.id[0] == category)
        assert split["tune"] == split["held"], category


def test_notebook_07_tasks_are_in_the_suite():
    assert [tasks.by_id(i).id for i in tasks.NOTEBOOK_07] == tasks.NOTEBOOK_07


@pytest.mark.parametrize("text, number, expected", [
    ("答案是 300。", "300", True),
    ("一共 300元", "300", True),
    ("360.0 元", "360", True),
    ("1300", "300", False),
    ("3000", "300", False),
    ("300.5", "300", False),
    ("约 8848.86 米", "8848.86", True),
    ("约 8848.86 米", "8848", False),
    ("7,006,652", "7006652", True),
    (None, "1", False),
    # issue 22: thousands separators in every width, and lists that are not one number
    ("还剩 1，880 元", "1880", True),
    ("还剩１，８８０元", "1880", True),
    ("人口 12,345,678", "12345678", True),
    ("1,2,3", "123", False),
    ("3, 400", "3400", False),
    ("1,2345", "12345", False),
])
def test_number_in_matches_whole_numbers_only(text, number, expected):
    assert tasks.number_in(text, number) is expected


def test_expected_values_come_from_the_tools():
    assert calculate("20 * 15") == "300"
    assert calculate("(123 + 456) * 2") == "1158"
    assert calculate("1234 * 5678") == "7006652"
    assert calculate("2 ** 10") == "1024"
    assert calculate("100 / 8") == "12.5"
    assert calculate("360 * 0.8") == "288"
    assert "8848.86" in search_knowledge("珠穆朗玛峰") and "1406" in search_knowledge("故宫")
    assert "42.195" in search_knowledge("马拉松") and "乌拉圭" in search_knowledge("世界杯")
    assert "6300" in search_knowledge("长江") and "5464" in search_knowledge("黄河") and calculate("6300 - 5464") == "836"
    assert get_weather("上海") == "上海：多云，28°C，湿度65%"
    assert get_weather("北京", "fahrenheit").startswith("北京：晴，77°F")
    assert get_weather("拉萨").startswith("没有")
    balls = json.loads(query_by_product_name("球"))
    assert [p["product_id"] for p in balls] == ["001", "002", "003", "008"]
    assert json.loads(query_by_product_name("衣服")) == []
    assert json.loads(query_by_product_name("自行车头盔"))[0]["stock_quantity"] == 0
    assert json.loads(query_by_product_name("跑步鞋"))[0]["stock_quantity"] == 25
    assert json.loads(query_by_product_name("羽毛球拍"))[0]["price"] * 2 == 600


@pytest.mark.parametrize("task", tasks.TASKS, ids=[t.id for t in tasks.TASKS])
def test_each_check_accepts_its_expected_answer_and_rejects_a_wrong_one(task):
    tool = task.needs.split()[0].strip("+(")
    runs = [] if task.needs == "-" else [(tool, {})]
    assert task.check(task.expected, runs), task.expected
    assert not task.check("我不太确定，可能是 42。", [("get_weather", {})])
    assert not task.check("", runs)


def test_checks_that_need_a_look_up_fail_without_one():
    p3 = tasks.by_id("P3")
    assert p3.check("抱歉，我们没有卖衣服。", [("query_by_product_name", {"product_name": "衣服"})])
    assert not p3.check("抱歉，我们没有卖衣服。", [])  # answered from a guess


def test_recording_tools_record_what_ran():
    runs: list = []
    registry = recording_tools(runs)
    assert registry.names == ["get_weather", "calculate", "query_by_product_name", "search_knowledge"]
    assert registry.call("calculate", {"expression": "2 + 3"})[0] == "5"
    assert registry.call("calculate", {"nope": 1})[0].startswith("错误")  # refused before running
    assert runs == [("calculate", {"expression": "2 + 3"})]


def test_meter_counts_requests_tokens_and_the_last_finish_reason(fake_llm):
    import httpx2
    import openai

    from bench.meter import Meter

    fake_llm.add({"tool_calls": [("calculate", {"expression": "2 + 3"})]},
                 {"content": "5", "finish_reason": "length", "usage": {"prompt_tokens": 40, "completion_tokens": 9,
                                                                      "total_tokens": 49}})
    meter = Meter()
    client = openai.OpenAI(base_url="http://fake.local/v1", api_key="x", max_retries=0,
                           http_client=meter.http_client(httpx2.MockTransport(fake_llm)))
    for _ in range(2):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "2+3"}])
    totals = meter.totals()
    assert totals["requests"] == 2 and totals["last_finish_reason"] == "length"
    assert totals["prompt_tokens"] > 40  # the first request's count plus 40
    assert totals["completion_tokens"] == 7 + 9


def test_every_loop_is_listed_once():
    assert sorted(COURSE_LOOPS + PEER_LOOPS) == sorted(LOOPS)


@pytest.mark.bench
def test_bench_smoke_run_writes_well_formed_results(tmp_path):
    from bench.__main__ import main

    out = tmp_path / "results"
    code = main(["--parts", "series,debugger,suite", "--notebooks", "00", "--series-runs", "1",
                 "--tasks", "C1,N1", "--loops", ",".join(LOOPS), "--out", str(out)])
    assert code == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert {"date", "machine", "versions", "server", "load_before"} <= set(results["meta"])
    run = results["series"]["runs"][0]
    assert [nb["notebook"] for nb in run] == ["00_setup"] and run[0]["errors"] == []
    assert run[0]["requests"] and all(r["status"] == 200 for r in run[0]["requests"])
    clicks = results["debugger"]["clicks"]
    assert clicks and all(c["seconds"] > 0 and c.get("error") is None for c in clicks)
    suite = results["suite"]
    ran = {row["loop"] for row in suite["rows"]}
    assert set(COURSE_LOOPS) <= ran and ran | set(suite["skipped"]) == set(LOOPS)
    for row in suite["rows"]:
        assert row["task"] in ("C1", "N1") and row["error"] is None, row
        assert row["requests"] >= 1 and row["prompt_tokens"] > 0, row
    md = (out / "results.md").read_text(encoding="utf-8")
    assert "## Agent task suite" in md and "| native |" in md and "## Notebook series" in md
    assert (out / "results.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_lever_variants_change_what_they_name(monkeypatch, tmp_path):
    """Applying a variant needs no model: calc_last puts calculate last, template_numbers writes a
    template with the rule in it, guard swaps the Agent class, sys_numbers edits the system prompt."""
    from bench import levers, meter
    from course_lib.agent import DEFAULT_SYSTEM, Agent

    monkeypatch.setattr(levers, "OUT", tmp_path)
    monkeypatch.setattr(meter, "default_registry", meter.default_registry)  # restored after the test
    levers.calc_last(levers.Lever())
    assert meter.default_registry().names[-1] == "calculate"

    lever = levers.Lever()
    levers.template_numbers(lever)
    assert lever.template.parent == tmp_path and levers.TEMPLATE_NOTE in lever.template.read_text(encoding="utf-8")

    lever = levers.Lever()
    levers.guard(lever)
    assert issubclass(lever.agent_class, Agent) and lever.agent_class is not Agent

    lever = levers.Lever()
    levers.sys_numbers(lever)
    assert lever.system != DEFAULT_SYSTEM and "不能自己编" in lever.system


def test_lever_reask_variants_are_the_course_number_check():
    """bench/levers.py: base runs without the number check, reask_short with it as the course ships
    it (re-sent with max_tokens 100), reask_strict with it and the first request's max_tokens.
    (The check itself is tested in tests/test_number_check.py.)"""
    from fakes import FakeLLM

    from bench import levers
    from course_lib.agent import RECHECK_MAX_TOKENS
    from course_lib.tools.registry import default_registry

    def sent(variant):
        lever = levers.Lever()
        variant(lever)
        fake = FakeLLM([{"tool_calls": [("calculate", {"expression": "3 * 40"})]}], default="一共 360 元。")
        lever.agent_class(fake.client(), "fake-model", default_registry(), max_steps=4, trace=None,
                          max_tokens=300, check_numbers=lever.check_numbers).run("买 3 个足球一共多少钱？")
        return [(("calculate" in str(body["tools"])), body["max_tokens"]) for body in fake.requests]

    assert sent(levers.base)[:2] == [(True, 300), (True, 300)]          # the calculation ran; asked again
    assert sent(levers.reask_short)[:2] == [(True, 300), (False, RECHECK_MAX_TOKENS)]
    assert sent(levers.reask_strict)[:2] == [(True, 300), (False, 300)]


def test_lever_guard_mask_hides_calculate_after_a_refusal_only():
    """bench/levers.py's guard_mask variant: the refused call gets the guard's text as its tool
    result, and only the request right after a refusal leaves calculate out of ``tools``."""
    from fakes import FakeLLM

    from bench import levers
    from course_lib.tools.registry import default_registry

    lever = levers.Lever()
    levers.guard_mask(lever)
    fake = FakeLLM([{"tool_calls": [("calculate", {"expression": "3 * 40"})]},
                    {"tool_calls": [("query_by_product_name", {"product_name": "足球"})]},
                    {"tool_calls": [("calculate", {"expression": "3 * 120"})]},
                    "一共 360 元。"])
    result = lever.agent_class(fake.client(), "fake-model", default_registry(), max_steps=4, trace=None,
                               check_numbers=lever.check_numbers).run("买 3 个足球一共多少钱？")
    offered = [[tool["function"]["name"] for tool in body["tools"]] for body in fake.requests]
    assert ["calculate" in names for names in offered] == [True, False, True, True]
    refused = result.steps[0].tool_calls[0]
    assert refused.observation.startswith("错误：算式里的 40") and result.answer == "一共 360 元。"
    assert refused.ok is False  # the tool did not run


def test_lever_guard_refuses_through_the_answer_call_hook():
    """bench/levers.py's guard variant overrides only the public hook Agent.answer_call: a calculate call with
    numbers from nowhere is answered with the guard's text (ok False, the tool does not run); the
    others run as the course's Agent runs them, and ``refused`` is about the last step that ran calls."""
    from fakes import FakeLLM

    from bench import levers
    from course_lib.tools import Tool, ToolRegistry, default_registry

    ran = []
    registry = default_registry()
    calculate = registry.get("calculate")
    registry = ToolRegistry([Tool("calculate", lambda expression: ran.append(expression) or calculate.function(expression),
                                  calculate.schema), *[registry.get(n) for n in registry.names if n != "calculate"]])
    lever = levers.Lever()
    levers.guard(lever)
    fake = FakeLLM([{"tool_calls": [("calculate", {"expression": "3 * 40"}), ("query_by_product_name", {"product_name": "足球"})]},
                    {"tool_calls": [("calculate", {"expression": "3 * 120"})]},
                    "一共 360 元。"])
    agent = lever.agent_class(fake.client(), "fake-model", registry, max_steps=4, trace=None, check_numbers=False)
    agent.start("买 3 个足球一共多少钱？")
    agent.step()
    refused, looked_up = agent.steps[0].tool_calls
    assert agent.refused is True and refused.ok is False and looked_up.ok is True
    assert refused.observation == levers.GUARD_TEXT["guard"].format(missing="40") and ran == []
    agent.step()
    assert agent.refused is False and agent.steps[1].tool_calls[0].observation == "360" and ran == ["3 * 120"]
    agent.step()
    assert agent.answer == "一共 360 元。" and all("calculate" in str(body["tools"]) for body in fake.requests)


def test_a_suite_rerun_of_one_loop_keeps_the_other_loops_rows():
    """``python -m bench --parts suite --loops native --keep``: the re-run loop's rows are replaced,
    the others kept with the date of their own run; different tasks or limits keep nothing."""
    from bench.__main__ import keep_other_loops
    from bench.report import _suite_runs

    def rows(loop, solved):
        return [{"task": task, "loop": loop, "solved": solved} for task in ("C1", "N1")]

    earlier = {"tasks": 2, "max_steps": 4, "max_tokens": 300, "date": "old", "load_before": "1.0",
               "rows": rows("native", False) + rows("langchain", True), "skipped": {"smolagents": "not installed"}}
    new = {"tasks": 2, "max_steps": 4, "max_tokens": 300, "date": "new", "load_before": "0.1",
           "rows": rows("native", True), "skipped": {}, "runs": {"native": {"date": "new", "load_before": "0.1"}}}
    merged = keep_other_loops(earlier, new, ["native"])
    assert sorted((r["loop"], r["solved"]) for r in merged["rows"]) == [("langchain", True)] * 2 + [("native", True)] * 2
    assert merged["runs"]["langchain"]["date"] == "old" and merged["runs"]["native"]["date"] == "new"
    assert merged["skipped"] == {"smolagents": "not installed"}
    assert any("langchain: old" in line for line in _suite_runs(merged))
    assert keep_other_loops(earlier | {"max_steps": 5}, new, ["native"]) is new


def test_execute_cells_second_pass_keeps_the_first_pass_and_reports_what_breaks(tmp_path):
    """``series.execute_cells(..., rerun_errors=[])``: every code cell once more in the same kernel;
    the notebook keeps its first outputs, and a cell that cannot run twice is reported by number."""
    import nbformat

    from bench import series

    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    nb.cells = [nbformat.v4.new_markdown_cell("# x"), nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_code_cell("x += 1\nassert x < 3, 'ran twice'\nprint('x =', x)")]
    rerun: list[str] = []
    rerun_requests: list[dict] = []
    seconds: dict[str, float] = {}
    errors, requests = series.execute_cells(nb, tmp_path / "nb.ipynb", tmp_path / "log.jsonl", rerun_errors=rerun,
                                            rerun_requests=rerun_requests, seconds=seconds)
    assert errors == [] and requests == [] and rerun_requests == []
    assert nb.cells[2].outputs[0]["text"] == "x = 2\n"  # the first pass's output, not the second's
    # nbclient writes each executed cell back into the notebook: the second pass would leave counts 3 and 4
    assert [cell.execution_count for cell in nb.cells[1:]] == [1, 2]
    assert set(seconds) == {"first_pass", "second_pass"} and all(value >= 0 for value in seconds.values())
    # The second pass set x = 1 again, so cell 2 ran twice without trouble; a cell 1 that keeps x breaks it:
    assert rerun == []
    nb.cells[1].source = "x = globals().get('x', 0) + 1"
    rerun = []
    errors, _ = series.execute_cells(nb, tmp_path / "nb.ipynb", tmp_path / "log.jsonl", rerun_errors=rerun)
    assert errors == [] and len(rerun) == 1 and rerun[0].startswith("cell 2: ") and "ran twice" in rerun[0]
