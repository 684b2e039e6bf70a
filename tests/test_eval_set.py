"""course_lib.eval_set: notebook 10's answer keys come from data/ by code, and the tools agree with them."""

from __future__ import annotations

import shutil
from collections import Counter

import pytest

from course_lib import eval_set
from course_lib.evaluation import MODES
from course_lib.number_check import has_number
from course_lib.tools import calculate, get_weather, query_by_product_name
from course_lib.tools.orders import shop_registry
from course_lib.tools.registry import default_registry

CASES = eval_set.cases()
TOOL_NAMES = set(default_registry().names) | set(shop_registry().names)


def test_the_set_has_its_kinds_and_two_halves():
    assert 15 <= len(CASES) <= 30
    assert len({case.id for case in CASES}) == len(CASES)
    kinds = Counter(case.kind for case in CASES)
    assert kinds["answer"] >= 10 and kinds["no_answer"] >= 2 and kinds["refuse"] >= 2
    for kind in kinds:  # both halves hold every kind of question
        assert {case.split for case in CASES if case.kind == kind} == {"tune", "held"}
    groups = {case.id[0] for case in CASES}
    assert groups == set("PWMSCNR")  # the seven lettered groups notebook 10 names
    for group in groups:  # ... and each is in both halves
        assert {case.split for case in CASES if case.id[0] == group} == {"tune", "held"}, group
    for case in CASES:
        assert case.mode in MODES and set(case.tools) <= TOOL_NAMES and case.tools
        assert (case.numbers or case.words) if case.kind == "answer" else not (case.numbers or case.words)


@pytest.mark.parametrize("case", [c for c in CASES if c.kind == "answer" and c.tools in (
    ("query_by_product_name",), ("get_weather",))], ids=lambda c: c.id)
def test_a_one_look_up_key_is_what_the_tool_answers(case):
    """The key was computed from the data files; the tool reads the database and the JSON: they agree."""
    subject = next(word for word in ["篮球", "瑜伽垫", "跑步鞋", "可调节哑铃", "上海", "北京", "哈尔滨"] if word in case.question)
    observation = query_by_product_name(subject) if case.tools[0] == "query_by_product_name" else get_weather(subject)
    assert all(has_number(observation, n) for n in case.numbers), (observation, case.numbers)
    assert all(word in observation for word in case.words)


def test_calculated_keys_are_what_the_calculator_gives():
    by_id = {case.id: case for case in CASES}
    assert has_number(calculate("3 * 120"), by_id["S1"].numbers[0])
    assert has_number(calculate("1234 * 5678"), by_id["C1"].numbers[0])
    assert by_id["C2"].numbers == ("288",) and by_id["S2"].numbers == ("1080",) and by_id["M2"].numbers == ("6",)


def test_no_answer_cases_have_no_answer_in_the_tools():
    assert "没有" in get_weather("拉萨")
    assert query_by_product_name("衣服") == "[]"
    assert '"stock_quantity": 0' in query_by_product_name("自行车头盔")


def test_a_changed_price_changes_the_key(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(eval_set._data_dir(), data)
    csv = data / "products.csv"
    csv.write_text(csv.read_text(encoding="utf-8").replace(",斯伯丁,200.0,", ",斯伯丁,250.0,"), encoding="utf-8")
    changed = {case.id: case for case in eval_set.cases(data)}
    assert changed["P1"].numbers == ("250",) and changed["S2"].numbers == ("1180",)
    assert eval_set.number_text(200.0) == "200" and eval_set.number_text(12.5) == "12.5"
