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


# -- sets made from templates (the capstone's practice and exam sets, issue 58) -----------------------
import csv as _csv
import json as _json
from decimal import Decimal
from pathlib import Path

DATA = Path(eval_set._data_dir())


def raw_products(folder: Path = DATA) -> dict[str, dict]:
    """products.csv read here with the csv module, apart from the course's reader."""
    with open(folder / "products.csv", encoding="utf-8-sig", newline="") as file:
        return {row["product_name"]: row for row in _csv.DictReader(file)}


def raw_weather() -> dict:
    return _json.loads((DATA / "weather.json").read_text(encoding="utf-8"))


def expected_key(case, shop, weather) -> tuple[set, set]:
    """The key of ``case`` worked out again from its question and the raw files."""
    name = next((n for n in sorted(shop, key=len, reverse=True) if n in case.question), None)
    city = next((c for c in weather if c in case.question), None)
    count = next((int(ch) for ch in case.question if ch.isdigit()), 1)
    kind = case.source
    if "price ×" in kind:
        return {eval_set.number_text(count * Decimal(shop[name]["price"]))}, set()
    if kind.endswith(" price"):
        return {eval_set.number_text(Decimal(shop[name]["price"]))}, set()
    if kind.endswith(" brand"):
        return set(), {shop[name]["brand"]}
    if kind.endswith(" stock_quantity"):
        return {shop[name]["stock_quantity"]}, set()
    if kind.endswith(" temperature_c"):
        return {str(weather[city]["temperature_c"])}, set()
    if kind.endswith(" humidity"):
        return {str(weather[city]["humidity"])}, set()
    return set(), set()


def test_the_same_seed_makes_the_same_set_and_another_seed_another():
    first, again, other = eval_set.generated_cases(3, 2), eval_set.generated_cases(3, 2), eval_set.generated_cases(4, 2)
    assert [(c.id, c.question, c.numbers, c.words) for c in first] == [(c.id, c.question, c.numbers, c.words) for c in again]
    assert [c.question for c in first] != [c.question for c in other]


@pytest.mark.parametrize("seed", [0, 1, 2026])
def test_every_generated_key_is_the_data_worked_out_again(seed):
    shop, weather = raw_products(), raw_weather()
    made = eval_set.generated_cases(seed, per_kind=3)
    assert len({c.id for c in made}) == len(made) and len({c.question for c in made}) == len(made)
    kinds = Counter(c.kind for c in made)
    assert kinds["answer"] >= 15 and kinds["no_answer"] >= 3 and kinds["refuse"] >= 2
    for case in made:
        assert case.mode in MODES and set(case.tools) <= TOOL_NAMES
        numbers, words = expected_key(case, shop, weather)
        assert (set(case.numbers), set(case.words)) == (numbers, words), case
        if case.kind == "answer":
            assert case.numbers or case.words
        else:
            assert not case.numbers and not case.words
    for case in made:  # a no-answer question has no answer in the data
        if case.source.endswith("的商品"):
            assert not any(word in name for name in shop for word in eval_set.NOT_SOLD if word in case.question)
        if "没有" in case.source and "weather" in case.source:
            assert not any(city in case.question for city in weather)
        if case.source.endswith("stock_quantity = 0"):
            assert any(shop[n]["stock_quantity"] == "0" for n in shop if n in case.question)


def test_a_changed_price_changes_the_generated_key(tmp_path):
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    before = {c.question: c for c in eval_set.generated_cases(5, 4, data_dir=folder)}
    rows = (folder / "products.csv").read_text(encoding="utf-8-sig").splitlines()
    rows = [rows[0]] + [_csv_row_with_price(line, "1234.5") for line in rows[1:]]
    (folder / "products.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    after = {c.question: c for c in eval_set.generated_cases(5, 4, data_dir=folder)}
    priced = [q for q, c in before.items() if c.source.endswith(" price")]
    assert priced and all(after[q].numbers == ("1234.5",) for q in priced)


def _csv_row_with_price(line: str, price: str) -> str:
    """One products.csv row with its price (the 7th cell) replaced."""
    import io

    cells = next(_csv.reader([line]))
    cells[6] = price
    out = io.StringIO()
    _csv.writer(out, lineterminator="").writerow(cells)
    return out.getvalue()


def test_a_teachers_new_wording_gets_its_key_from_the_data():
    """The teacher writes the words; the key still comes from code (TEACHER_GUIDE: adding a template)."""
    mine = (eval_set.Template("price", "{product}今天什么价？"), eval_set.Template("total", "{count} 个{product}要多少钱？"))
    shop = raw_products()
    made = eval_set.generated_cases(11, per_kind=4, templates=mine)
    prices = [c for c in made if c.source.endswith(" price")]
    assert len(made) == 8 and len(prices) == 4 and all(c.question.endswith("今天什么价？") for c in prices)
    for case in made:
        assert (set(case.numbers), set(case.words)) == expected_key(case, shop, raw_weather())


@pytest.mark.parametrize("template, said", [
    (eval_set.Template("price", "{city}的篮球多少钱？"), "{city}"),
    (eval_set.Template("refund", "{product}怎么退货？"), "refund"),
    (eval_set.Template("weather", "{city}的{product}天气"), "{product}"),
])
def test_a_wording_that_cannot_be_filled_is_one_chinese_sentence(template, said):
    with pytest.raises(KeyError) as err:
        eval_set.generated_cases(1, templates=(template,))
    text = str(err.value)
    assert said.strip("{}") in text and any("\u4e00" <= ch <= "\u9fff" for ch in text)
