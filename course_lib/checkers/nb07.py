"""Checkers for notebook 07 (comparison and wrap-up).

07-1 and 07-2 check plain functions on fixed inputs; 07-3 checks the
structure of the requests a fixed workflow sends (through
``checkers.recording``, answered with a canned reply), not what the model writes.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from openai.types.chat import ChatCompletion

from ..tools import get_weather
from . import CheckResult, exercise, recording, report, safely, t
from .scripted import ScriptedModel

NUMBER_CASES = [
    ("20 * 15 等于 300。", "300", True),
    ("答案是300", "300", True),
    ("300元", "300", True),
    ("共 1300 元", "300", False),
    ("3000", "300", False),
    ("300.5", "300", False),
    ("约 300.", "300", True),  # a full stop after the number is fine
    ("全程 42.195 公里", "42.195", True),
    ("全程 42.1951 公里", "42.195", False),
    ("142.195", "42.195", False),
    ("湿度65%", "65", True),
    ("湿度165%", "65", False),
    ("相差6°C", "6", True),
    ("相差 6 度，湿度 65%", "6", True),
    ("湿度 65%", "6", False),
    ("", "300", False),
    (None, "300", False),
    # T4's answer, as the models write it: decimals, thousands separators, full-width digits
    ("珠穆朗玛峰海拔约 8848.86 米。", "8848.86", True),
    ("海拔 8,848.86 米", "8848.86", True),
    ("海拔８８４８．８６米", "8848.86", True),
    ("海拔 8848.8 米", "8848.86", False),
    ("共 1,300 元", "300", False),
    ("共１３００元", "300", False),
    ("３００元", "300", True),
    # issue 22: a thousands separator in any width joins one number; a list stays several numbers
    ("预算 2，000 元", "2000", True),
    ("预算２，０００元", "2000", True),
    ("人口 12,345,678", "12345678", True),
    ("1,2,3", "123", False),
    ("买 3, 40 元", "340", False),
    ("1,2345", "1234", False),
]


@exercise("07-1")
def check_contains_number(contains_number: object) -> CheckResult:
    """Exercise 07-1: ``contains_number(answer, number)`` finds ``number`` only as a whole number."""
    if not callable(contains_number):
        return report(False, t("check.07.contains_number.1"))
    for answer, number, expected in NUMBER_CASES:
        got, error = safely(contains_number, answer, number)
        if error:
            return report(False, t("check.07.contains_number.2", answer=repr(answer), number=repr(number), error=error))
        if bool(got) != expected or not isinstance(got, bool):
            return report(False, t("check.07.contains_number.3", answer=repr(answer), number=repr(number), expected=expected, got=repr(got)))
    return report(True, t("check.07.contains_number.4", n_number_cases=len(NUMBER_CASES)))


def _sample_results() -> pd.DataFrame:
    return pd.DataFrame([
        {"task": "T1", "loop": "react", "success": True, "prompt_tokens": 1000, "seconds": 10.0},
        {"task": "T2", "loop": "react", "success": False, "prompt_tokens": 2000, "seconds": 20.5},
        {"task": "T3", "loop": "react", "success": True, "prompt_tokens": 1500, "seconds": 12.0},
        {"task": "T1", "loop": "native", "success": True, "prompt_tokens": 800, "seconds": 8.0},
        {"task": "T2", "loop": "native", "success": True, "prompt_tokens": 900, "seconds": 9.0},
        {"task": "T3", "loop": "native", "success": False, "prompt_tokens": 1000, "seconds": 7.5},
        {"task": "T4", "loop": "native", "success": True, "prompt_tokens": 1100, "seconds": 6.0},
    ])


@exercise("07-2")
def check_summarize(summarize: object) -> CheckResult:
    """Exercise 07-2: ``summarize(results)`` -> DataFrame indexed by loop with
    success_rate, mean_prompt_tokens, total_seconds."""
    if not callable(summarize):
        return report(False, t("check.07.summarize.1"))
    got, error = safely(summarize, _sample_results())
    if error:
        return report(False, t("check.07.summarize.2", error=error))
    if not isinstance(got, pd.DataFrame):
        return report(False, t("check.07.summarize.3", name=type(got).__name__))
    want = {
        "react": {"success_rate": 2 / 3, "mean_prompt_tokens": 1500.0, "total_seconds": 42.5},
        "native": {"success_rate": 0.75, "mean_prompt_tokens": 950.0, "total_seconds": 30.5},
    }
    missing = [c for c in ("success_rate", "mean_prompt_tokens", "total_seconds") if c not in got.columns]
    if missing:
        return report(False, t("check.07.summarize.4", missing=missing, list_columns=list(got.columns)))
    if set(map(str, got.index)) != set(want):
        return report(False, t("check.07.summarize.5", sorted_want=sorted(want), list_index=list(got.index)))
    for loop, values in want.items():
        for column, value in values.items():
            actual = got.loc[loop, column]
            try:
                ok = math.isclose(float(actual), value, rel_tol=1e-6)
            except (TypeError, ValueError):
                ok = False
            if not ok:
                return report(False, t("check.07.summarize.6", loop=loop, column=column, value=value, actual=repr(actual)))
    return report(True, t("check.07.summarize.7"))


# Exercise 07-3 inputs: the second list has other cities with other weather, so text
# written for the first one (or cities looked up regardless of the argument) fails.
BRIEF_CITIES = (["北京", "广州"], ["成都", "哈尔滨", "昆明"])
BRIEF_REPLY = "出门记得看天气。"


def _canned_reply(kwargs: dict) -> Any:
    """A reply to ``kwargs`` made here, without asking the model: 07-3 checks only what is sent."""
    return ChatCompletion.model_validate(ScriptedModel().completion(BRIEF_REPLY, kwargs))


@exercise("07-3")
def check_weather_brief(weather_brief: object, client: object) -> CheckResult:
    """Exercise 07-3: ``weather_brief(cities)`` looks the cities up in code and sends ONE request
    without tools whose messages contain every weather result; returns the reply text.

    Tried on two city lists; the model is not asked (``recording`` answers with a canned reply)."""
    if not callable(weather_brief):
        return report(False, t("check.07.weather_brief.1"))
    for cities in BRIEF_CITIES:
        problem = _brief_problem(weather_brief, client, cities)
        if problem:
            return report(False, problem)
    return report(True, t("check.07.weather_brief.2"))


def _brief_problem(weather_brief: Any, client: Any, cities: list[str]) -> str | None:
    """What is wrong with ``weather_brief(cities)``, or None."""
    with recording(client, answer=_canned_reply) as seen:
        got, error = safely(weather_brief, list(cities))
    if error:
        return t("check.07.brief_problem.1", cities=repr(cities), error=error)
    if len(seen.requests) != 1:
        return t("check.07.brief_problem.2", cities=repr(cities), n_requests=len(seen.requests))
    kwargs = seen.requests[0]
    if any(k in kwargs for k in ("tools", "tool_choice", "parallel_tool_calls")):
        return t("check.07.brief_problem.3")
    if not kwargs.get("max_tokens"):
        return t("check.07.brief_problem.4")
    text = "\n".join(
        str(m.get("content") or "") if isinstance(m, dict) else str(getattr(m, "content", "") or "")
        for m in kwargs.get("messages") or []
    )
    for city in cities:
        if get_weather(city) not in text:
            return (t("check.07.brief_problem.5", cities=repr(cities), city=repr(city), get_weather_city=repr(get_weather(city))))
    if got != BRIEF_REPLY:
        return t("check.07.brief_problem.6")
    return None
