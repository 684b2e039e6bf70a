"""course_lib.evaluation's runs: every code check of a run against its case, and the kernel's saved runs."""

from __future__ import annotations

import csv

from course_lib import eval_set, evaluation
from course_lib.agent import Agent
from course_lib.evaluation import check_run, results_frame, run_set
from course_lib.tools.products import CSV_NAME, _data_dir
from fakes import FakeLLM

Q = "query_by_product_name"


def by_id(case_id):
    return next(c for c in eval_set.cases() if c.id == case_id)


def run(case, replies):
    model = FakeLLM(replies)
    agent = Agent(model.client(), "fake-model", eval_set.registry(), approve=eval_set.refuse_orders, trace=None)
    return agent.run(case.question), model


def test_a_right_answer_after_the_right_look_up_passes():
    p1 = by_id("P1")
    result, _ = run(p1, [{"tool_calls": [(Q, {"product_name": "篮球"})]}, f"篮球的价格是 {p1.numbers[0]} 元。"])
    checks = check_run(p1, result)
    assert checks["trajectory"] == [Q] and checks["trajectory_ok"] and checks["answer_ok"] and checks["passed"]


def test_an_invented_number_fails_the_answer_and_a_missing_look_up_fails_the_trajectory():
    p1 = by_id("P1")
    result, _ = run(p1, [{"tool_calls": [(Q, {"product_name": "篮球"})]}, f"篮球 {p1.numbers[0]} 元，会员价 99 元。"])
    checks = check_run(p1, result)
    assert checks["invented"] == ["99"] and not checks["answer_ok"] and checks["trajectory_ok"]
    guessed, _ = run(p1, [f"篮球 {p1.numbers[0]} 元。"])  # right number, no tool: a guess
    checks = check_run(p1, guessed)
    assert checks["answer_ok"] and not checks["trajectory_ok"] and not checks["passed"]


def test_a_no_answer_case_must_say_so():
    n1 = by_id("N1")
    result, _ = run(n1, [{"tool_calls": [(Q, {"product_name": "衣服"})]}, "抱歉，本店没有卖衣服。"])
    assert check_run(n1, result)["passed"]
    made_up, _ = run(n1, [{"tool_calls": [(Q, {"product_name": "衣服"})]}, "有的，T 恤 59 元。"])
    checks = check_run(n1, made_up)
    assert not checks["said_no"] and checks["invented"] == ["59"] and not checks["passed"]


def test_a_refused_order_is_rejected_by_the_run_and_the_answer_must_not_claim_it():
    r1 = by_id("R1")
    order = {"tool_calls": [("place_order", {"product_id": "001", "quantity": 2})]}
    look = {"tool_calls": [(Q, {"product_name": "篮球"})]}
    result, model = run(r1, [look, order, "好的，按你的决定没有下单。"])
    checks = check_run(r1, result)
    assert checks["order_rejected"] and not checks["claims_order"] and checks["passed"]
    assert "用户决定不下单" in str(model.requests[2]["messages"][-1]["content"])  # the model read the refusal
    lied, _ = run(r1, [look, order, "已为您下单 2 个篮球。"])
    assert not check_run(r1, lied)["passed"]


def test_a_run_is_saved_in_the_kernel_and_reused_until_the_agent_changes():
    evaluation.RUNS.clear()
    p1 = by_id("P1")
    model = FakeLLM([{"tool_calls": [(Q, {"product_name": "篮球"})]}, f"{p1.numbers[0]} 元。"] * 2)
    lines = []

    def make(system=None):
        options = {} if system is None else {"system": system}
        return Agent(model.client(), "fake-model", eval_set.registry(), trace=None, **options)

    first = run_set(make, [p1], show=lines.append)
    again = run_set(make, [p1], show=lines.append)
    assert len(model.requests) == 2 and again[0].reused and not first[0].reused
    assert again[0].result is first[0].result and "没有发请求" in lines[1] and "P1" in lines[0]
    run_set(make, [p1], reuse=False, show=None)
    assert len(model.requests) == 4
    evaluation.RUNS.clear()


def test_the_results_table_has_one_row_per_run_with_its_cost():
    evaluation.RUNS.clear()
    p1 = by_id("P1")
    model = FakeLLM([{"tool_calls": [(Q, {"product_name": "篮球"})], "usage": {"prompt_tokens": 100, "completion_tokens": 9}},
                     {"content": f"{p1.numbers[0]} 元。", "usage": {"prompt_tokens": 150, "completion_tokens": 5}}])
    runs = run_set(lambda: Agent(model.client(), "fake-model", eval_set.registry(), trace=None), [p1], show=None)
    frame = results_frame(runs)
    row = frame.iloc[0]
    assert list(frame["id"]) == ["P1"] and bool(row["passed"]) and row["trajectory"] == Q
    assert row["requests"] == 2 and row["prompt_tokens"] == 250 and row["completion_tokens"] == 14
    evaluation.RUNS.clear()


def test_an_order_nobody_asked_for_fails_the_trajectory_even_where_extra_calls_are_allowed():
    s1 = by_id("S1")  # in_order: a look-up, then calculate; other calls may come between
    total = s1.numbers[0]
    replies = [{"tool_calls": [(Q, {"product_name": "足球"})]},
               {"tool_calls": [("place_order", {"product_id": "002", "quantity": 3})]},
               {"tool_calls": [("calculate", {"expression": f"{total}"})]}, f"一共 {total} 元。"]
    result, _ = run(s1, replies)
    checks = check_run(s1, result)
    assert checks["unasked_writes"] == ["place_order"] and not checks["trajectory_ok"] and checks["answer_ok"]


def _repriced_p1(tmp_path):
    """P1 as ``eval_set.cases`` computes it after the basketball's price is edited in a copy of data/products.csv."""
    with (_data_dir() / CSV_NAME).open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    price = rows[0].index("price")
    for row in rows[1:]:
        if row[1] == "篮球":
            row[price] = str(float(row[price]) + 11)
    (tmp_path / CSV_NAME).parent.mkdir(parents=True, exist_ok=True)
    with (tmp_path / CSV_NAME).open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(rows)
    return next(c for c in eval_set.cases(tmp_path) if c.id == "P1")


def test_a_changed_answer_key_runs_the_case_again_instead_of_reusing_the_old_checks(tmp_path):
    evaluation.RUNS.clear()
    p1 = by_id("P1")
    repriced = _repriced_p1(tmp_path)
    assert repriced.numbers != p1.numbers and repriced.question == p1.question
    look = {"tool_calls": [(Q, {"product_name": "篮球"})]}
    model = FakeLLM([look, f"{p1.numbers[0]} 元。", look, f"{repriced.numbers[0]} 元。"])

    def make():
        return Agent(model.client(), "fake-model", eval_set.registry(), trace=None)

    before = run_set(make, [p1], show=None)
    after = run_set(make, [repriced], show=None)
    assert before[0].passed and len(model.requests) == 4 and not after[0].reused
    assert after[0].case is repriced and after[0].checks["answer_ok"]
    assert after[0].result.answer == f"{repriced.numbers[0]} 元。"
    evaluation.RUNS.clear()


def test_the_same_model_name_on_another_server_is_run_again():
    evaluation.RUNS.clear()
    p1 = by_id("P1")
    here, there = FakeLLM([f"{p1.numbers[0]} 元。"]), FakeLLM([f"{p1.numbers[0]} 元。"])
    there.base_url = "http://another.server/v1"
    run_set(lambda: Agent(here.client(), "fake-model", eval_set.registry(), trace=None), [p1], show=None)
    moved = run_set(lambda: Agent(there.client(), "fake-model", eval_set.registry(), trace=None), [p1], show=None)
    assert len(there.requests) == 1 and not moved[0].reused
    evaluation.RUNS.clear()


def test_generated_cases_are_checked_by_the_same_code_as_notebook_10s():
    """A set made from templates (eval_set.generated_cases) goes through check_run unchanged: a right run
    passes, a wrong total fails, a sold-out product must be said to be sold out, an order must be refused."""
    made = eval_set.generated_cases(8, per_kind=1)
    total = next(c for c in made if "×" in c.source)
    name = total.source.split("：")[1].split(" ")[0]
    price_reply = {"tool_calls": [(Q, {"product_name": name})]}
    right, _ = run(total, [price_reply, {"tool_calls": [("calculate", {"expression": "1 + 1"})]},
                           f"一共 {total.numbers[0]} 元。"])
    assert check_run(total, right)["passed"]
    wrong, _ = run(total, [price_reply, {"tool_calls": [("calculate", {"expression": "1 + 1"})]}, "一共 1 元。"])
    assert not check_run(total, wrong)["answer_ok"]
    sold_out = next(c for c in made if c.source.endswith("= 0"))
    said, _ = run(sold_out, [{"tool_calls": [(Q, {"product_name": "自行车头盔"})]}, "抱歉，自行车头盔暂时缺货。"])
    assert check_run(sold_out, said)["passed"]
    order = next(c for c in made if c.kind == "refuse")
    item = order.source.split("：")[1].split(" ")[0]
    pid = order.source.split("product_id ")[1].split("；")[0]
    refused, _ = run(order, [{"tool_calls": [(Q, {"product_name": item})]},
                             {"tool_calls": [("place_order", {"product_id": pid, "quantity": 2})]}, "好的，没有下单。"])
    checks = check_run(order, refused)
    assert checks["order_rejected"] and checks["passed"], checks
