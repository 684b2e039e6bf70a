"""The checkers of notebook 07 (course_lib.checkers.nb07) on typical right and wrong answers."""

from __future__ import annotations

import re

import pytest

from fakes import FakeLLM
from notebook_cells import load_solution

from course_lib.checkers import nb07
from course_lib.tools import get_weather


def _old_reference(answer, number):
    """The first reference answer: right for "1300"/"300.5", wrong for "8,848.86" and full-width digits."""
    if not answer:
        return False
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?!\d)(?!\.\d)", answer) is not None


@pytest.mark.parametrize("answer, number, expected", [
    ("珠穆朗玛峰海拔约 8848.86 米。", "8848.86", True),   # T4 of notebook 07
    ("海拔 8,848.86 米", "8848.86", True),
    ("海拔８８４８．８６米", "8848.86", True),
    ("海拔 8848.8 米", "8848.86", False),
    ("共 1,300 元", "300", False),
    ("约 300.", "300", True),
    ("300.5", "300", False),
    ("湿度 65%", "6", False),
    (None, "300", False),
])
def test_reference_contains_number(answer, number, expected):
    contains_number = load_solution("07_comparison", "07-1")["contains_number"]
    assert contains_number(answer, number) is expected


def test_contains_number_checker_fails_the_old_reference():
    assert nb07.check_contains_number(_old_reference).passed is False
    assert nb07.check_contains_number(load_solution("07_comparison", "07-1")["contains_number"]).passed is True


def _weather_brief(client, facts_for):
    def weather_brief(cities):
        facts = facts_for(cities)
        response = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": f"根据下面的天气给出出行建议：\n{facts}"}], max_tokens=100)
        return response.choices[0].message.content
    return weather_brief


def test_weather_brief_checker_fails_hard_coded_weather(capsys):
    fake = FakeLLM(default="不该被问到")
    client = fake.client()
    right = _weather_brief(client, lambda cities: "\n".join(get_weather(c) for c in cities))
    hard_coded = _weather_brief(client, lambda cities: "北京：晴，25°C，湿度40%\n广州：雷阵雨，31°C，湿度85%")
    fixed_cities = _weather_brief(client, lambda cities: "\n".join(get_weather(c) for c in ["北京", "广州"]))
    assert nb07.check_weather_brief(right, client).passed is True
    assert nb07.check_weather_brief(hard_coded, client).passed is False
    assert "成都" in capsys.readouterr().out
    assert nb07.check_weather_brief(fixed_cities, client).passed is False
    assert fake.requests == []  # the checker answers itself: the model is never asked


def test_the_contains_number_cases_read_numbers_as_the_library_does():
    """One rule for reading a number (number_check.has_number): the exercise's cases say the same,
    thousands separators in every width included, and lists of numbers are not merged."""
    from course_lib.number_check import has_number
    for answer, number, expected in nb07.NUMBER_CASES:
        assert has_number(answer or "", number) is expected, (answer, number)
    cases = {(answer, number) for answer, number, _ in nb07.NUMBER_CASES}
    assert {("预算 2，000 元", "2000"), ("预算２，０００元", "2000"), ("1,2,3", "123"), ("买 3, 40 元", "340")} <= cases
    assert nb07.check_contains_number(lambda answer, number: has_number(answer or "", number)).passed
