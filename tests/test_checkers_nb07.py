"""The checkers of notebook 07 (course_lib.checkers.nb07) on typical right and wrong answers."""

from __future__ import annotations

import re

import pytest

from fakes import BadRepr, FakeLLM, yields_true
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


# ---- issue 42: behaviour beside a reference; every right style; odd returns --------------------

import unicodedata

import pandas as pd

from course_lib.number_check import has_number
from course_lib.tools.weather import load_weather


_generator = yields_true


ODD_RETURNS = {"none": lambda *a: None, "number": lambda *a: 2, "bad_repr": lambda *a: BadRepr(),
               "generator": _generator}


def _fails(result, capsys, key=None):
    out = capsys.readouterr().out
    assert result.passed is False, result.message
    assert "❌" in out and "Traceback" not in out
    if key:
        assert result.hint == key, (result.hint, result.message)
    return result


# 07-1 ------------------------------------------------------------------------------------------


def contains_number_by_hint(answer, number):
    """The three steps of the exercise's hint."""
    if answer is None:
        return False
    text = unicodedata.normalize("NFKC", answer)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None


def contains_number_by_reading(answer, number):
    """Reads every number and compares the values."""
    if not answer:
        return False
    text = answer.translate(str.maketrans("０１２３４５６７８９．，", "0123456789.,"))
    found = re.findall(r"\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?", text)
    return any(float(n.replace(",", "")) == float(number) for n in found)


RIGHT_CONTAINS = [contains_number_by_hint, contains_number_by_reading,
                  lambda answer, number: has_number(answer or "", number)]


def substring(answer, number):
    return bool(answer) and number in answer


def word_boundary(answer, number):
    return bool(answer) and re.search(r"\b" + re.escape(number) + r"\b", answer) is not None


def not_escaped(answer, number):
    if not answer:
        return False
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", unicodedata.normalize("NFKC", answer))
    return re.search(r"(?<![\d.])" + number + r"(?![\d]|\.\d)", text) is not None


def digit_lookbehind_only(answer, number):  # "2.65" has "65"
    if not answer:
        return False
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", unicodedata.normalize("NFKC", answer))
    return re.search(r"(?<!\d)" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None


def no_point_after(answer, number):  # "约 300." is refused
    if not answer:
        return False
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", unicodedata.normalize("NFKC", answer))
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d.])", text) is not None


def every_comma_removed(answer, number):  # "1,2,3" becomes 123
    if not answer:
        return False
    text = unicodedata.normalize("NFKC", answer).replace(",", "")
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None


def half_width_only(answer, number):
    if not answer:
        return False
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", answer)
    return re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)", text) is not None


def crashes_on_none(answer, number):
    return contains_number_by_hint(answer.strip(), number)


def integers_only(answer, number):  # "300.5" is read as 300 and 5
    return bool(answer) and number in re.findall(r"\d+", unicodedata.normalize("NFKC", answer).replace(",", ""))


def returns_a_match(answer, number):
    return answer and re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d]|\.\d)", answer)


def negated(answer, number):
    return not contains_number_by_hint(answer, number)


WRONG_CONTAINS = [substring, word_boundary, not_escaped, digit_lookbehind_only, no_point_after,
                  every_comma_removed, half_width_only, crashes_on_none, integers_only, returns_a_match, negated]


@pytest.mark.parametrize("right", RIGHT_CONTAINS)
def test_contains_number_right_styles_pass(right):
    assert nb07.check_contains_number(right).passed is True


@pytest.mark.parametrize("wrong", WRONG_CONTAINS, ids=lambda f: f.__name__)
def test_contains_number_wrong_answers_fail(wrong, capsys):
    _fails(nb07.check_contains_number(wrong), capsys)


def test_a_point_inside_a_longer_number_is_found_by_generated_cases(capsys):
    result = _fails(nb07.check_contains_number(digit_lookbehind_only), capsys)
    assert "contains_number(" in result.message


@pytest.mark.parametrize("odd", sorted(ODD_RETURNS))
def test_contains_number_odd_returns_fail_without_raising(odd, capsys):
    _fails(nb07.check_contains_number(ODD_RETURNS[odd]), capsys)


# 07-2 ------------------------------------------------------------------------------------------


def summarize_reference():
    return load_solution("07_comparison", "07-2")["summarize"]


def summarize_by_hand(results):
    rows = {}
    for loop in results["loop"].unique():
        part = results[results["loop"] == loop]
        rows[loop] = {"success_rate": part["success"].sum() / len(part),
                      "mean_prompt_tokens": part["prompt_tokens"].sum() / len(part),
                      "total_seconds": part["seconds"].sum()}
    return pd.DataFrame.from_dict(rows, orient="index")


def summarize_pivot(results):
    table = results.pivot_table(index="loop", values=["success", "prompt_tokens", "seconds"],
                                aggfunc={"success": "mean", "prompt_tokens": "mean", "seconds": "sum"})
    return table.rename(columns={"success": "success_rate", "prompt_tokens": "mean_prompt_tokens",
                                 "seconds": "total_seconds"})


def summarize_with_extra_column(results):
    out = summarize_reference()(results)
    out["n_tasks"] = results.groupby("loop").size()
    return out[["total_seconds", "n_tasks", "mean_prompt_tokens", "success_rate"]]


RIGHT_SUMMARIZE = [summarize_by_hand, summarize_pivot, summarize_with_extra_column]


def _agg(results, **columns):
    return results.groupby("loop").agg(**columns)


def median_tokens(results):
    return _agg(results, success_rate=("success", "mean"), mean_prompt_tokens=("prompt_tokens", "median"),
                total_seconds=("seconds", "sum"))


def rounded_tokens(results):
    out = summarize_reference()(results)
    out["mean_prompt_tokens"] = out["mean_prompt_tokens"].round()
    return out


def whole_seconds(results):
    out = summarize_reference()(results)
    out["total_seconds"] = out["total_seconds"].astype(int)
    return out


def count_successes(results):
    return _agg(results, success_rate=("success", "sum"), mean_prompt_tokens=("prompt_tokens", "mean"),
                total_seconds=("seconds", "sum"))


def sum_tokens(results):
    return _agg(results, success_rate=("success", "mean"), mean_prompt_tokens=("prompt_tokens", "sum"),
                total_seconds=("seconds", "sum"))


def mean_seconds(results):
    return _agg(results, success_rate=("success", "mean"), mean_prompt_tokens=("prompt_tokens", "mean"),
                total_seconds=("seconds", "mean"))


def percent(results):
    out = summarize_reference()(results)
    out["success_rate"] = out["success_rate"] * 100
    return out


def hard_coded(results):
    return pd.DataFrame({"success_rate": [2 / 3, 0.75], "mean_prompt_tokens": [1500.0, 950.0],
                         "total_seconds": [42.5, 30.5]}, index=["react", "native"])


def loop_as_column(results):
    return summarize_reference()(results).reset_index()


def successful_rows_only(results):
    out = summarize_reference()(results)
    out["mean_prompt_tokens"] = results[results["success"]].groupby("loop")["prompt_tokens"].mean()
    return out


def first_row(results):
    return _agg(results, success_rate=("success", "mean"), mean_prompt_tokens=("prompt_tokens", "first"),
                total_seconds=("seconds", "sum"))


def columns_swapped(results):
    out = summarize_reference()(results)
    return out.rename(columns={"mean_prompt_tokens": "total_seconds", "total_seconds": "mean_prompt_tokens"})


def returns_the_input(results):
    return results


WRONG_SUMMARIZE = [median_tokens, rounded_tokens, whole_seconds, count_successes, sum_tokens, mean_seconds,
                   percent, hard_coded, loop_as_column, successful_rows_only, first_row, columns_swapped,
                   returns_the_input]


@pytest.mark.parametrize("right", RIGHT_SUMMARIZE)
def test_summarize_right_styles_pass(right):
    assert nb07.check_summarize(right).passed is True


@pytest.mark.parametrize("wrong", WRONG_SUMMARIZE, ids=lambda f: f.__name__)
def test_summarize_wrong_answers_fail(wrong, capsys):
    _fails(nb07.check_summarize(wrong), capsys)


def test_a_median_gets_a_hint_with_the_numbers(capsys):
    result = _fails(nb07.check_summarize(median_tokens), capsys)
    assert "mean_prompt_tokens" in result.message and "prompt_tokens" in result.message


@pytest.mark.parametrize("odd", sorted(ODD_RETURNS))
def test_summarize_odd_returns_fail_without_raising(odd, capsys):
    _fails(nb07.check_summarize(ODD_RETURNS[odd]), capsys)


# 07-3 ------------------------------------------------------------------------------------------


def _brief(client, make_messages, **options):
    def weather_brief(cities):
        response = client.chat.completions.create(model="m", messages=make_messages(cities),
                                                  **{"max_tokens": 100, **options})
        return response.choices[0].message.content
    return weather_brief


def _user(text):
    return [{"role": "user", "content": text}]


def _facts(cities):
    return "\n".join(get_weather(c) for c in cities)


def streamed(client):
    def weather_brief(cities):
        stream = client.chat.completions.create(model="m", messages=_user(f"出行建议：\n{_facts(cities)}"),
                                                max_tokens=100, stream=True)
        return "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    return weather_brief


def text_parts(client):
    return _brief(client, lambda cities: [{"role": "user", "content": [{"type": "text", "text": _facts(cities)}]}])


def system_and_user(client):
    return _brief(client, lambda cities: [{"role": "system", "content": "你是出行助手。"},
                                          {"role": "user", "content": "天气：" + "；".join(
                                              f"{c}——{get_weather(c)}" for c in cities)}])


def completion_tokens(client):
    def weather_brief(cities):
        response = client.chat.completions.create(model="m", messages=_user(_facts(cities)),
                                                  max_completion_tokens=100)
        return response.choices[0].message.content.strip()
    return weather_brief


RIGHT_BRIEFS = [streamed, text_parts, system_and_user, completion_tokens]


def untouched(client):
    return lambda cities: None


def two_requests(client):
    def weather_brief(cities):
        answers = [client.chat.completions.create(model="m", messages=_user(get_weather(c)), max_tokens=50)
                   for c in cities]
        return answers[-1].choices[0].message.content
    return weather_brief


def with_tools(client):
    from course_lib.tools import WEATHER_TOOL
    return _brief(client, lambda cities: _user(_facts(cities)), tools=[WEATHER_TOOL])


def no_max_tokens(client):
    def weather_brief(cities):
        return client.chat.completions.create(model="m", messages=_user(_facts(cities))).choices[0].message.content
    return weather_brief


def returns_the_message(client):
    def weather_brief(cities):
        response = client.chat.completions.create(model="m", messages=_user(_facts(cities)), max_tokens=100)
        return response.choices[0].message
    return weather_brief


def first_city_only(client):
    return _brief(client, lambda cities: _user(get_weather(cities[0])))


def every_city_known(client):  # looks up every city it knows, whatever it was given
    return _brief(client, lambda cities: _user("\n".join(get_weather(c) for c in load_weather())))


def names_only(client):
    return _brief(client, lambda cities: _user("、".join(cities) + " 的天气怎么样？"))


def returns_the_stream(client):
    def weather_brief(cities):
        return client.chat.completions.create(model="m", messages=_user(_facts(cities)), max_tokens=100, stream=True)
    return weather_brief


WRONG_BRIEFS = [untouched, two_requests, with_tools, no_max_tokens, returns_the_message, first_city_only,
                every_city_known, names_only, returns_the_stream]


@pytest.mark.parametrize("right", RIGHT_BRIEFS, ids=lambda f: f.__name__)
def test_weather_brief_right_styles_pass(right):
    fake = FakeLLM(default="不该被问到")
    client = fake.client()
    result = nb07.check_weather_brief(right(client), client)
    assert result.passed is True, result.message
    assert fake.requests == []


@pytest.mark.parametrize("wrong", WRONG_BRIEFS, ids=lambda f: f.__name__)
def test_weather_brief_wrong_answers_fail(wrong, capsys):
    fake = FakeLLM(default="不该被问到")
    client = fake.client()
    _fails(nb07.check_weather_brief(wrong(client), client), capsys)
    assert fake.requests == []


@pytest.mark.parametrize("odd", sorted(ODD_RETURNS))
def test_weather_brief_odd_returns_fail_without_raising(odd, capsys):
    client = FakeLLM(default="不该被问到").client()

    def weather_brief(cities):
        client.chat.completions.create(model="m", messages=_user(_facts(cities)), max_tokens=100)
        return ODD_RETURNS[odd]()
    _fails(nb07.check_weather_brief(weather_brief, client), capsys)


@pytest.mark.parametrize("checker", [nb07.check_contains_number, nb07.check_summarize])
def test_not_a_function_fails(checker, capsys):
    _fails(checker(None), capsys)
