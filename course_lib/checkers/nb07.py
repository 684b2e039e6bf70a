"""Checkers for notebook 07 (comparison and wrap-up).

07-1 and 07-2 run the student's function beside a reference (``checkers.first_difference``) on
the cases the exercise names and on inputs made by hypothesis (fixed seed, small budget);
07-3 checks the structure of the request a fixed workflow sends (through
``checkers.recording``, answered with a canned reply, streamed when asked), not what the
model writes.
"""

from __future__ import annotations

import json
import math
from typing import Any

import httpx2
import pandas as pd

from ..messages import content_text
from ..tools import get_weather
from ..tools.weather import load_weather
from . import CheckResult, described, exercise, first_difference, recording, report, request_problem, safely, t
from .reference import solution
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
    ("1,2345", "12345", False),  # a separator has exactly three digits after it
    ("买 3, 400 元", "3400", False),  # ... and no space: "3, 400" is two numbers
    ("买 3, 400 元", "400", True),
    ("海拔 8848 86 米", "8848.86", False),  # "." in the number is a point, not any character
]


def _number_text() -> Any:
    """A hypothesis strategy of ``(answer, number)`` for 07-1: an answer made of well-formed numbers
    (whole, decimal, with thousands separators, half- or full-width) between words that cannot
    join two numbers, and a number that is one of them or a near miss (a digit less or more, the
    part before or after the point, one group of a separated number).

    Only texts on which every reading the exercise allows agrees are made: no decimal ends in 0
    ("2.50" against "2.5"), no group of more than three digits stands before a comma, no number
    starts with 0, and a "." that is not a decimal point ends the answer."""
    from hypothesis import strategies as st

    def whole(lo: int = 0, hi: int = 10**7) -> Any:
        return st.integers(min_value=lo, max_value=hi).map(str)

    decimal = st.tuples(whole(), st.integers(min_value=1, max_value=999)).map(
        lambda p: f"{p[0]}.{str(p[1]).rstrip('0')}")
    grouped = st.tuples(whole(1, 999), st.lists(st.integers(min_value=0, max_value=999), min_size=1, max_size=3),
                        st.one_of(st.just(""), st.integers(min_value=1, max_value=99).map(
                            lambda d: "." + str(d).rstrip("0")))).map(
        lambda p: p[0] + "".join(f",{g:03d}" for g in p[1]) + p[2])
    number = st.one_of(whole(), decimal, grouped)
    wide = str.maketrans("0123456789.,", "０１２３４５６７８９．，")
    written = st.tuples(number, st.booleans()).map(lambda p: p[0].translate(wide) if p[1] else p[0])
    words = st.sampled_from(["", "约", "共 ", "海拔 ", "预算", "买 "])
    between = st.sampled_from([" ", " 元，", "元和", "、", " 个，", "米；", "%，", "°C ", " 件 / ", ", ", "， "])
    ending = st.sampled_from(["", "。", ".", " 元", "！"])

    def build(parts: tuple) -> Any:
        start, numbers, gaps, end = parts
        text = start + "".join(n + (gaps[i] if i < len(numbers) - 1 else "") for i, n in enumerate(numbers)) + end
        plain = [n.translate(_HALF).replace(",", "") for n in numbers]
        near = set(plain)
        for n in plain:
            near |= {n[1:], n[:-1], n + "5", "1" + n, *n.split(".")}
        for n in numbers:
            near |= set(n.translate(_HALF).replace(".", ",").split(",")[1:2])
        for first, second in zip(plain, plain[1:]):  # two numbers read as one: "8848 86" is not 8848.86
            if "." not in first + second:
                near.add(f"{first}.{second}")
            if "." not in first:  # nor "3, 400" 3400
                near.add(first + second)
        ok = sorted(c for c in near if c and c[-1] != "." and c[0] != "." and not (c[0] == "0" and c[1:2].isdigit())
                    and not ("." in c and c.endswith("0")))
        return st.tuples(st.just(text), st.sampled_from(ok or plain))

    return st.tuples(words, st.lists(written, min_size=1, max_size=3), st.lists(between, min_size=2, max_size=2),
                     ending).flatmap(build)


_HALF = str.maketrans("０１２３４５６７８９．，", "0123456789.,")


def _contains_reference(answer: str | None, number: str) -> bool:
    """07-1's reference: ``solutions/07_comparison.py``'s ``contains_number``."""
    return solution("07-1", "contains_number")(answer, number)


def _same_bool(got: Any, want: bool) -> bool:
    return isinstance(got, bool) and got == want


@exercise("07-1")
def check_contains_number(contains_number: object) -> CheckResult:
    """Exercise 07-1: ``contains_number(answer, number) -> bool`` finds ``number`` only as a whole number.

    Beside the reference solution on ``NUMBER_CASES`` (the cases the exercise names) and on
    generated answers (``_number_text``); a result that is not a bool is wrong too.
    """
    if not callable(contains_number):
        return report(False, t("check.07.contains_number.1"))
    found = first_difference(contains_number, _contains_reference, inputs=_number_text(),
                             examples=[(answer, number) for answer, number, _ in NUMBER_CASES], same=_same_bool)
    if found is None:
        return report(True, t("check.07.contains_number.4", n_number_cases=len(NUMBER_CASES)))
    answer, number = found.args
    if found.error:
        return report(False, t("check.07.contains_number.2", answer=repr(answer), number=repr(number), error=found.error))
    return report(False, t("check.07.contains_number.3", answer=repr(answer), number=repr(number), expected=found.want,
                           got=described(found.got)))


SUMMARY_COLUMNS = ("success_rate", "mean_prompt_tokens", "total_seconds")
# Each column of the summary, the column of ``results`` it is made from and how (the exercise's words).
SUMMARY_SOURCES = {"success_rate": ("success", "check.07.summarize.how_rate"),
                   "mean_prompt_tokens": ("prompt_tokens", "check.07.summarize.how_mean"),
                   "total_seconds": ("seconds", "check.07.summarize.how_sum")}


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


def _uneven_results() -> pd.DataFrame:
    """Means that are not medians and not whole, sums with fractions, a loop of one row and rows out of order."""
    return pd.DataFrame([
        {"task": "T1", "loop": "native", "success": True, "prompt_tokens": 700, "seconds": 3.25},
        {"task": "T1", "loop": "react", "success": False, "prompt_tokens": 1200, "seconds": 11.3},
        {"task": "T2", "loop": "native", "success": False, "prompt_tokens": 800, "seconds": 4.1},
        {"task": "T2", "loop": "react", "success": False, "prompt_tokens": 4100, "seconds": 30.7},
        {"task": "T3", "loop": "native", "success": True, "prompt_tokens": 2000, "seconds": 9.05},
        {"task": "T3", "loop": "react", "success": True, "prompt_tokens": 1300, "seconds": 12.6},
        {"task": "T1", "loop": "plain", "success": True, "prompt_tokens": 333, "seconds": 1.7},
    ])


def _results_frames() -> Any:
    """A hypothesis strategy of ``(results,)``: 1 to 12 rows of up to four loops, with one column more."""
    from hypothesis import strategies as st

    row = st.fixed_dictionaries({
        "task": st.sampled_from(["T1", "T2", "T3", "T4", "M1"]),
        "loop": st.sampled_from(["react", "native", "plain", "react_v2"]),
        "success": st.booleans(),
        "prompt_tokens": st.integers(min_value=1, max_value=9000),
        "seconds": st.integers(min_value=1, max_value=60_000).map(lambda c: c / 100),
        "completion_tokens": st.integers(min_value=1, max_value=500),
    })
    return st.lists(row, min_size=1, max_size=12).map(lambda rows: (pd.DataFrame(rows),))


def _summary_reference(results: pd.DataFrame) -> dict[str, dict[str, float]]:
    """``{loop: {column: value}}`` of ``solutions/07_comparison.py``'s ``summarize``."""
    frame = solution("07-2", "summarize")(results)
    return {str(loop): {column: float(row[column]) for column in SUMMARY_COLUMNS} for loop, row in frame.iterrows()}


def _summary_problem(got: Any, want: dict[str, dict[str, float]]) -> tuple | None:
    """What is wrong with ``got`` (a student's summary) against ``want``: None, or (key, fields)."""
    if not isinstance(got, pd.DataFrame):
        return "check.07.summarize.3", {"name": described(got)}
    try:
        columns = [str(c) for c in got.columns]
        index = [str(i) for i in got.index]
    except Exception:  # noqa: BLE001 - an odd frame is a wrong answer
        return "check.07.summarize.3", {"name": described(got)}
    missing = [c for c in SUMMARY_COLUMNS if c not in columns]
    if missing:
        return "check.07.summarize.4", {"missing": missing, "list_columns": columns}
    if sorted(index) != sorted(want) or len(set(index)) != len(index):
        return "check.07.summarize.5", {"sorted_want": sorted(want), "list_index": index}
    frame = got.copy()
    frame.index = index
    frame.columns = columns
    for loop, values in want.items():
        for column, value in values.items():
            actual = frame.loc[loop, column]
            try:
                ok = math.isclose(float(actual), value, rel_tol=1e-9, abs_tol=1e-9)
            except (TypeError, ValueError):
                ok = False
            if not ok:
                return "check.07.summarize.6", {"loop": loop, "column": column, "value": value,
                                                "actual": described(actual)}
    return None


@exercise("07-2")
def check_summarize(summarize: object) -> CheckResult:
    """Exercise 07-2: ``summarize(results) -> DataFrame`` indexed by loop with the columns
    success_rate (mean of success), mean_prompt_tokens (mean) and total_seconds (sum); other
    columns and any column order are fine.

    Beside ``_summary_reference`` (values within 1e-9) on the notebook's sample, on uneven data
    (means that are not medians, totals that are not whole) and on generated frames."""
    if not callable(summarize):
        return report(False, t("check.07.summarize.1"))
    found = first_difference(summarize, _summary_reference, inputs=_results_frames(),
                             examples=[(_sample_results(),), (_uneven_results(),)],
                             same=lambda got, want: _summary_problem(got, want) is None, max_examples=40)
    if found is None:
        return report(True, t("check.07.summarize.7"))
    if found.error:
        return report(False, t("check.07.summarize.2", error=found.error))
    key, fields = _summary_problem(found.got, found.want)
    message = t(key, **fields)
    if key == "check.07.summarize.6":
        results = found.args[0]
        source, how = SUMMARY_SOURCES[fields["column"]]
        rows = [v.item() if hasattr(v, "item") else v for v in results.loc[results["loop"] == fields["loop"], source]]
        message = t("check.07.summarize.values", message=message, loop=fields["loop"], source=source, rows=rows,
                    how=t(how))
    return report(False, message)


# Exercise 07-3 inputs: the second list has other cities with other weather, so text
# written for the first one (or cities looked up regardless of the argument) fails.
BRIEF_CITIES = (["北京", "广州"], ["成都", "哈尔滨", "昆明"])
BRIEF_REPLY = "出门记得看天气。"


class _BriefModel(ScriptedModel):
    """Answers every request with ``BRIEF_REPLY``: as one completion, or streamed in chunks when the
    request says ``stream=True`` (with a usage chunk when ``stream_options.include_usage``)."""

    def __init__(self) -> None:
        super().__init__(when_done=BRIEF_REPLY)

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content or b"{}")
        if not body.get("stream"):
            return super().__call__(request)
        self.requests.append(body)
        head = {"id": "chatcmpl-brief", "object": "chat.completion.chunk", "created": 0,
                "model": body.get("model") or self.model}
        pieces = [BRIEF_REPLY[:3], BRIEF_REPLY[3:]]
        chunks = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": piece} if i == 0
                                         else {"content": piece}, "finish_reason": None}]}
                  for i, piece in enumerate(pieces)]
        chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            chunks.append({**head, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                                            "total_tokens": 15}})
        text = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=text.encode())


def _canned_reply(kwargs: dict) -> Any:
    """The reply to ``kwargs`` made here, without asking the model (07-3 checks only what is sent):
    what the openai SDK gives for these arguments - a ``ChatCompletion``, or a ``Stream`` of
    chunks for ``stream=True``.  Arguments the SDK refuses raise as they would with the model."""
    return _BriefModel().client().chat.completions.create(**kwargs)


@exercise("07-3")
def check_weather_brief(weather_brief: object, client: object) -> CheckResult:
    """Exercise 07-3: ``weather_brief(cities)`` looks the cities up in code and sends ONE request
    without tools, with ``max_tokens`` (or ``max_completion_tokens``), whose user message holds the
    weather of every city given (as the task says) and no message that of another city; returns the
    reply text (streamed or not).

    Tried on two city lists; the model is not asked (``recording`` answers with a canned reply)."""
    if not callable(weather_brief):
        return report(False, t("check.07.weather_brief.1"))
    for cities in BRIEF_CITIES:
        problem = _brief_problem(weather_brief, client, cities)
        if problem:
            return report(False, problem)
    return report(True, t("check.07.weather_brief.2"))


def _message_text(message: Any) -> str:
    """The text of one message (a dict or an SDK object; content a string or a list of parts)."""
    content = message.get("content") if isinstance(message, dict) else getattr(message, "content", "")
    return content_text(content) if isinstance(content, (str, list)) else str(content or "")


def _role(message: Any) -> Any:
    """A message's role (a dict or an SDK object)."""
    return message.get("role") if isinstance(message, dict) else getattr(message, "role", None)


def _brief_problem(weather_brief: Any, client: Any, cities: list[str]) -> str | None:
    """What is wrong with ``weather_brief(cities)``, or None."""
    with recording(client, answer=_canned_reply) as seen:
        got, error = safely(weather_brief, list(cities))
    if error and len(seen.requests) != 1:
        return t("check.07.brief_problem.1", cities=repr(cities), error=error)
    if len(seen.requests) != 1:
        return t("check.07.brief_problem.2", cities=repr(cities), n_requests=len(seen.requests))
    kwargs = seen.requests[0]
    if any(k in kwargs for k in ("tools", "tool_choice", "parallel_tool_calls", "functions")):
        return t("check.07.brief_problem.3")
    if not (kwargs.get("max_tokens") or kwargs.get("max_completion_tokens")):
        return t("check.07.brief_problem.4")
    refused = request_problem(kwargs)  # what the API would refuse (temperature=-1, a role misspelt, a typed-in model)
    if refused:
        return refused
    messages = kwargs.get("messages") or []
    messages = messages if isinstance(messages, (list, tuple)) else []
    text = "\n".join(_message_text(m) for m in messages)
    user_text = "\n".join(_message_text(m) for m in messages if _role(m) == "user")  # the task: in the user message
    for city in cities:
        if get_weather(city) not in user_text:
            key = "check.07.brief_problem.not_user" if get_weather(city) in text else "check.07.brief_problem.5"
            return t(key, cities=repr(cities), city=repr(city), get_weather_city=repr(get_weather(city)))
    for city in load_weather():
        if city not in cities and get_weather(city) in text:
            return t("check.07.brief_problem.other_city", cities=repr(cities), city=repr(city))
    if error:
        return t("check.07.brief_problem.1", cities=repr(cities), error=error)
    if not (isinstance(got, str) and got.strip() == BRIEF_REPLY):
        return t("check.07.brief_problem.6", got=described(got))
    return None
