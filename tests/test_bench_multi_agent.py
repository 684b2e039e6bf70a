"""bench/multi_agent.py on the scripted chat server: the same code the committed table comes from.

The real figures are measured by ``python -m bench.multi_agent`` on the course's model (bench/results/
multi_agent.md), never asserted here; these tests check that the bench counts and decides what it says:
the keys come from the data, a run is solved by code, an unasked order fails, inner requests and tokens
are counted, and the results are written through ``bench.report.save``.
"""

from __future__ import annotations

import json

import pytest

from fakes import FakeLLM

from bench import multi_agent
from course_lib.number_check import has_number
from course_lib.tools import get_weather, query_by_product_name, search_notes


@pytest.fixture(autouse=True)
def own_shop(tmp_path, monkeypatch):
    """The orders expert's look-ups read a copy of the shop: one of the test's own, never data/my_shop.db."""
    monkeypatch.setenv("COURSE_SHOP_DB", str(tmp_path / "shop.db"))


def by_id(task_id: str) -> multi_agent.Task:
    return next(t for t in multi_agent.tasks() if t.id == task_id)


def test_eight_tasks_whose_keys_the_tools_give():
    tasks = multi_agent.tasks()
    assert [t.id for t in tasks] == ["P1", "P2", "N1", "N2", "N3", "W1", "W2", "O1"]
    assert has_number(query_by_product_name("篮球"), by_id("P1").numbers[0])
    assert by_id("P2").words[0] in query_by_product_name("瑜伽垫")
    for task_id in ("N1", "N2", "N3"):
        task = by_id(task_id)
        found = search_notes(task.question)
        assert all(has_number(found, n) for n in task.numbers), (task_id, found)
    assert has_number(get_weather("上海"), by_id("W1").numbers[0])
    assert by_id("W2").numbers == ("6",) and "25" in get_weather("北京") and "31" in get_weather("广州")
    assert by_id("O1").order and not by_id("O1").numbers


def test_a_note_that_no_longer_holds_its_number_stops_the_bench(monkeypatch):
    monkeypatch.setattr(multi_agent, "load_notes", lambda: [{"id": "N01", "title": "退货", "text": "15 天内可以退货"}])
    with pytest.raises(KeyError, match="N01"):
        multi_agent.tasks()


def test_the_code_check():
    p1, o1 = by_id("P1"), by_id("O1")
    assert multi_agent.solved(p1, "篮球 200 元。", ["query_by_product_name"], False, [])
    assert not multi_agent.solved(p1, "篮球 200 元。", ["query_by_product_name", "place_order"], False, ["place_order"])
    assert not multi_agent.solved(p1, "篮球 200 元。", ["query_by_product_name"], True, [])  # cut at max_tokens
    assert not multi_agent.solved(p1, "篮球 2000 元。", [], False, [])
    assert multi_agent.solved(o1, "好的，这次没有下单。", ["query_by_product_name", "place_order"], False, ["place_order"])
    assert not multi_agent.solved(o1, "已为您下单。", ["place_order"], False, ["place_order"])  # claims an order
    assert not multi_agent.solved(o1, "我将为你下单。", ["query_by_product_name"], False, [])  # never asked for it


def test_one_agent_runs_a_task_and_counts_its_requests():
    fake = FakeLLM([{"tool_calls": [("query_by_product_name", {"product_name": "篮球"})]}, "篮球 200 元。"])
    row = multi_agent.run_task("one_agent", by_id("P1"), fake.client(), "fake-model")
    assert row["solved"] and row["requests"] == 2 and row["steps"] == 2 and row["inner_runs"] == 0
    assert row["calls"] == ["query_by_product_name"] and row["prompt_tokens"] > 0 and row["error"] is None
    body = fake.requests[0]
    assert body["max_tokens"] == multi_agent.MAX_TOKENS and body["temperature"] == 0
    assert {t["function"]["name"] for t in body["tools"]} == {"get_weather", "calculate", "query_by_product_name",
                                                              "search_notes", "place_order"}
    assert fake.invalid_request() is None


def test_the_front_desk_counts_the_inner_runs_too():
    fake = FakeLLM([{"tool_calls": [("ask_shop_expert", {"question": "篮球多少钱？"})]},   # the front desk
                    {"tool_calls": [("query_by_product_name", {"product_name": "篮球"})]},  # the shop expert
                    "篮球 200 元。",
                    "篮球 200 元。"])                                                    # the front desk again
    row = multi_agent.run_task("front_desk", by_id("P1"), fake.client(), "fake-model")
    assert row["solved"] and row["requests"] == 4 and row["steps"] == 2 and row["inner_runs"] == 1
    assert row["inner_steps"] == 2 and row["calls"] == ["ask_shop_expert", "query_by_product_name"]
    assert [t["function"]["name"] for t in fake.requests[0]["tools"]] == ["ask_shop_expert", "ask_weather_expert",
                                                                          "ask_orders_expert"]
    assert "篮球多少钱？" == fake.requests[1]["messages"][-1]["content"]  # the expert gets the question alone
    assert fake.invalid_request() is None


def test_the_order_is_refused_in_both_setups_and_an_unasked_order_fails():
    fake = FakeLLM([{"tool_calls": [("query_by_product_name", {"product_name": "篮球"})]},
                    {"tool_calls": [("place_order", {"product_id": "003", "quantity": 2})]}, "好的，没有下单。"])
    row = multi_agent.run_task("one_agent", by_id("O1"), fake.client(), "fake-model")
    assert row["solved"] and row["calls"] == ["query_by_product_name", "place_order"]
    fake = FakeLLM([{"tool_calls": [("ask_orders_expert", {"question": "买 2 个篮球"})]},
                    {"tool_calls": [("place_order", {"product_id": "003", "quantity": 2})]}, "用户没有批准，没有下单。",
                    "没有下单。"])
    row = multi_agent.run_task("front_desk", by_id("O1"), fake.client(), "fake-model")
    assert row["solved"] and "place_order" in row["calls"]
    fake = FakeLLM([{"tool_calls": [("place_order", {"product_id": "003", "quantity": 1})]}, "篮球 200 元。"])
    row = multi_agent.run_task("one_agent", by_id("P1"), fake.client(), "fake-model")
    assert not row["solved"] and row["answer"] == "篮球 200 元。"  # the answer is right, the order was not asked for


def test_a_failed_request_is_a_row_not_a_crash():
    import httpx2

    fake = FakeLLM([httpx2.Response(500, json={"error": {"message": "boom"}})])
    row = multi_agent.run_task("one_agent", by_id("P1"), fake.client(), "fake-model")
    assert not row["solved"] and "500" in row["error"] and row["requests"] == 0


def test_run_and_save_write_the_json_and_the_table(tmp_path):
    replies = [{"tool_calls": [("query_by_product_name", {"product_name": "篮球"})]}, "篮球 200 元。",
               {"tool_calls": [("ask_shop_expert", {"question": "篮球多少钱？"})]}, "篮球 200 元。", "篮球 200 元。"]
    fake = FakeLLM(replies)
    lines = []
    rows = multi_agent.run(fake.client(), "fake-model", [by_id("P1")], progress=lines.append)
    assert [(r["setup"], r["solved"]) for r in rows] == [("one_agent", True), ("front_desk", True)] and len(lines) == 2
    results = {"date": "d", "machine": "m", "load_before": "0", "model": "fake-model", "max_steps": 4, "max_tokens": 200,
               "summary": multi_agent.summary(rows), "rows": rows}
    paths = multi_agent.save(tmp_path, "multi_agent", results, multi_agent.markdown(results))
    saved = json.loads(paths[0].read_text(encoding="utf-8"))
    assert saved["summary"][0]["solved"] == "1/1" and saved["summary"][1]["requests"] == 3
    text = paths[1].read_text(encoding="utf-8")
    assert "| one_agent | 1/1 |" in text and "✅ 3 /" in text and "店里的篮球多少钱？" in text


# ---------------------------------------------------------------- where a run writes (issue 56)


def test_by_default_a_run_writes_a_scratch_folder_not_the_committed_results(tmp_path):
    """bench/results/ is committed (the notebook and the docs quote it); a student's or teacher's rerun goes
    to bench/results/logs/ (git-ignored), and only ``--record`` writes bench/results/."""
    assert multi_agent.parse_args([]).out == multi_agent.SCRATCH != multi_agent.RESULTS
    root = multi_agent.RESULTS.parent.parent
    ignored = (root / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert multi_agent.SCRATCH.relative_to(root).as_posix() + "/" in ignored
    assert multi_agent.parse_args(["--record"]).out == multi_agent.RESULTS
    assert multi_agent.parse_args(["--out", str(tmp_path)]).out == tmp_path
    with pytest.raises(SystemExit):
        multi_agent.parse_args(["--record", "--out", str(tmp_path)])


def test_main_writes_where_it_says_and_leaves_the_committed_results_alone(tmp_path, monkeypatch, capsys):
    import course_lib.providers
    from bench import machine

    monkeypatch.setattr(multi_agent, "SCRATCH", tmp_path / "scratch")
    monkeypatch.setattr(multi_agent, "RESULTS", tmp_path / "committed")
    fake = FakeLLM([{"tool_calls": [("query_by_product_name", {"product_name": "篮球"})]}, "篮球 200 元。"])
    monkeypatch.setattr(course_lib.providers, "get_provider", lambda: type("Provider", (), {"model": "fake-model"})())
    monkeypatch.setattr(course_lib.providers, "get_client", lambda provider: fake.client())
    monkeypatch.setattr(machine, "meta", lambda command: {"date": "d", "machine": "m", "load_before": "0",
                                                          "command": command})
    results = multi_agent.main(["--tasks", "P1", "--setups", "one_agent"])
    assert results["summary"][0]["solved"] == "1/1"
    written = tmp_path / "scratch" / "multi_agent.md"
    assert written.is_file() and (tmp_path / "scratch" / "multi_agent.json").is_file()
    assert not (tmp_path / "committed").exists()
    out = capsys.readouterr().out
    assert str(written) in out and "--record" in out  # where the results went, and how to keep them
