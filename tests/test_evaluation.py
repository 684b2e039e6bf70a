"""course_lib.evaluation: trajectories and the three ways of matching them (ADK's names)."""

from __future__ import annotations

import pytest

from course_lib.agent import Agent
from course_lib.evaluation import MODES, agreement, missing_facts, trajectory, trajectory_match, unsupported_numbers
from course_lib.records import ActionStep, AnswerStep, ToolCall, ToolResult, WaitingStep
from course_lib.tools.registry import default_registry
from fakes import FakeLLM

Q, C, W = "query_by_product_name", "calculate", "get_weather"


@pytest.mark.parametrize("actual, expected, exact, in_order, any_order", [
    ([Q, C], [Q, C], True, True, True),
    ([C, Q], [Q, C], False, False, True),          # both calls, the other order
    ([Q, W, C], [Q, C], False, True, True),        # an extra call between
    ([Q], [Q, C], False, False, False),            # one call missing
    ([Q, Q], [Q], False, True, True),              # the same call again
    ([Q], [Q, Q], False, False, False),            # expected twice, called once
    ([C, Q, Q], [Q, C, Q], False, False, True),
    ([], [], True, True, True),                    # a question to answer without tools
    ([W], [], False, True, True),
    ([], [Q], False, False, False),
])
def test_the_three_modes(actual, expected, exact, in_order, any_order):
    got = [trajectory_match(actual, expected, mode) for mode in MODES]
    assert got == [exact, in_order, any_order]


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="in_order"):
        trajectory_match([Q], [Q], "IN-ORDER")


def test_the_trajectory_of_a_real_agent_run_in_order():
    fake = FakeLLM([{"tool_calls": [(Q, {"product_name": "足球"})]},
                    {"tool_calls": [(C, {"expression": "3 * 120"}), (W, {"city": "北京"})]},
                    "一共 360 元。"])
    result = Agent(fake.client(), "fake-model", default_registry(), trace=None).run("买 3 个足球多少钱？")
    assert trajectory(result.steps) == [Q, C, W]
    assert trajectory_match(trajectory(result.steps), [Q, C], "in_order")
    assert not trajectory_match(trajectory(result.steps), [Q, C], "exact")


def test_react_actions_count_and_waiting_calls_do_not():
    waiting = ToolResult.not_run(ToolCall("react-2", "place_order", {"product_id": "001"}, '{"product_id": "001"}'))
    steps = [ActionStep(number=1, action=Q, action_input="足球", observation="120 元"),
             WaitingStep(number=2, waiting=[waiting]), AnswerStep(number=3, text="好")]
    assert trajectory(steps) == [Q]


def test_missing_facts_reads_whole_numbers_and_words():
    assert missing_facts("篮球 200.0 元一个", ["200"], ["篮球"]) == []
    assert missing_facts("篮球 1200 元", ["200"], ["篮球", "斯伯丁"]) == ["200", "斯伯丁"]
    assert missing_facts(None, ["1"], []) == ["1"]


def test_unsupported_numbers_are_those_no_source_gave():
    sources = ["买 3 个足球一共多少钱？", '[{"product_name": "足球", "price": 120.0}]', "360"]
    assert unsupported_numbers("3 个足球 360.0 元（单价 120 元）。", sources) == []
    assert unsupported_numbers("一共 360 元，再加 15 元运费，共 375 元，15 元", sources) == ["15", "375"]
    assert unsupported_numbers("打八折是 288 元", ["原价 360 元，打八折", "288"]) == []
    assert unsupported_numbers("有 1 个", []) == []  # 0 and 1 are free


def test_agreement_counts_the_confusion_table_and_cohens_kappa():
    judge = [True, True, True, False, False, True, False, True, True, False]
    code = [True, True, False, False, False, True, True, True, True, False]
    result = agreement(judge, code)
    assert (result["both_pass"], result["both_fail"], result["judge_only"], result["code_only"]) == (5, 3, 1, 1)
    assert result["agreement"] == pytest.approx(0.8)
    # p_e = 0.6 * 0.6 + 0.4 * 0.4 = 0.52; kappa = (0.8 - 0.52) / 0.48
    assert result["kappa"] == pytest.approx(0.28 / 0.48)
    assert agreement([True, False], [False, True])["kappa"] == pytest.approx(-1.0)
    always_pass = agreement([True] * 4, [True, True, True, False])  # a judge that always says pass
    assert always_pass["agreement"] == 0.75 and always_pass["kappa"] == 0.0
    with pytest.raises(ValueError):
        agreement([True], [True, False])


def test_kappa_is_undefined_when_both_sides_give_one_and_the_same_verdict_to_every_run():
    # A judge that always says pass, on a set the code passes entirely: p_e = 1, kappa 0 / 0.
    every = agreement([True] * 4, [True] * 4)
    assert every["kappa"] is None and every["agreement"] == 1.0 and every["both_pass"] == 4
    assert "p_e = 1" in every["why"] and "pass" in every["why"]
    nothing = agreement([False] * 3, [False] * 3)
    assert nothing["kappa"] is None and "fail" in nothing["why"]
    # One side alone giving a single verdict is defined (kappa 0), and so is every mixed case.
    assert agreement([True] * 4, [False] * 4)["kappa"] == 0.0
    assert agreement([True] * 4, [True, True, True, False])["why"] is None


def test_kappa_interval_holds_kappa_and_is_wide_for_twenty_answers():
    from course_lib.evaluation import kappa_interval

    code = [True] * 15 + [False] * 5
    judge = [True] * 12 + [False] * 3 + [False] * 5  # three code passes the judge fails: kappa about 0.67
    found = agreement(judge, code)["kappa"]
    interval = kappa_interval(judge, code)
    assert interval["low"] < found < interval["high"]
    assert interval["high"] - interval["low"] > 0.3  # twenty answers cannot pin kappa down
    assert interval == kappa_interval(judge, code)  # seeded: the same interval every time
    bigger = kappa_interval(judge * 10, code * 10)
    assert bigger["high"] - bigger["low"] < interval["high"] - interval["low"]  # more answers, narrower


def test_kappa_interval_counts_draws_where_kappa_is_undefined_and_refuses_bad_arguments():
    from course_lib.evaluation import kappa_interval

    every = kappa_interval([True] * 5, [True] * 5, repeats=50)
    assert every["low"] is None and every["undefined"] == 1.0
    mostly = kappa_interval([True] * 9 + [False], [True] * 9 + [False], repeats=200)
    assert 0 < mostly["undefined"] < 1 and mostly["low"] == mostly["high"] == 1.0
    for bad in ({"repeats": 0}, {"level": 1.0}, {"level": 0}):
        with pytest.raises(ValueError, match="区间"):
            kappa_interval([True, False], [True, False], **bad)
    with pytest.raises(ValueError):
        kappa_interval([], [])
