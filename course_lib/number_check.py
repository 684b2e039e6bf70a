"""Where do the numbers of a calculation come from?  The native loop's number check.

Taught in notebook 06 (section 5); measured in ``bench/levers.py`` (issue 12).

A small model often calls the calculator with a number it never looked up:
asked 「买 3 个足球一共多少钱？」, it writes ``calculate("3 * 40")`` before (or
instead of) asking the product tool for the price.  The calculator then
computes a wrong result correctly, and the answer looks well-founded.

The check is plain text matching: every number of a ``calculate`` expression
must appear in a user message or in a tool result of the conversation.  The
few numbers nobody has to give (``FREE_NUMBERS``: 0 and 1) always pass, and a
user's Chinese numerals count as numbers (「两个」 gives 2, 「打八折」 gives 8 and
0.8).  It is deliberately rough: it does not know that 3 °C became 37.4 °F by
a formula, and a number that happens to appear somewhere passes.  When
calculate is the only tool offered, there is nothing to look a number up
with, and the loop runs the call as asked.

Reading a number from text is done here, once, for the whole course
(``read_numbers`` / ``has_number``): this check, the bench's answer checks
(``bench/tasks.py``) and the cases of exercise 07-1 (``checkers/nb07.py``) all
read 「预算 2,000 元」 as 2000 - not as 2 and 0, which made the check drop a right
calculation - and 「２，０００」 and 「12,345,678」 too, while a list such as
``1,2,3`` or ``3, 40`` stays a list.

``agent.Agent.step`` uses it through one call, ``check_calls``: a reply whose
calculate call fails the check is dropped (nothing of it enters ``messages``)
and the same request is sent once more without calculate among the ``tools``.  llama-server builds the grammar
of tool calls from ``tools``, so that second reply cannot call calculate: it
looks the number up or answers.  On the bench suite this solved 32 of 40 tasks
against 29 without it (``bench/results/levers.md``).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, Iterable

from .records import ToolResult
from .texts import t

CHECKED_TOOL = "calculate"  # the tool whose arguments are checked (course_lib.tools.calculator)
FREE_NUMBERS = {"0", "1"}  # numbers nobody has to give (as _canonical writes them)
# Full-width digits, comma and decimal point -> ASCII, before any number is read: "２，０００" -> "2,000".
FULL_WIDTH = str.maketrans("０１２３４５６７８９，．", "0123456789,.")
# A number: digits with an optional decimal part.  The first alternative is a number with thousands
# separators: 1-3 digits, then groups of EXACTLY three digits each after a comma ("12,345,678",
# "2,000.5").  "1,2,3", "3, 40" (a space) and "1,2345" (four digits) are not: they are several numbers.
NUMBER = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?")
CHINESE_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
DISCOUNT = re.compile(r"([一二三四五六七八九0-9])([一二三四五六七八九0-9]?)\s*折")  # 八折/8折 = 0.8, 八五折 = 0.85
# 20% = 0.2; a number starts where no digit or point comes before it (else a long run of digits without
# a % is tried from each of its digits: quadratic, 82 s for 60,000 digits of a student's submission).
PERCENT = re.compile(r"(?<![0-9.])([0-9]+(?:\.[0-9]+)?)\s*[%％]")
DIGIT_OF = {**{ch: str(n) for ch, n in CHINESE_DIGITS.items()}, **{str(d): str(d) for d in range(10)}}  # for DISCOUNT


def _canonical(number: str) -> str:
    """``"40"``, ``"40.0"`` and ``"040"`` are the same number: ``"40"``; ``"0.80"`` is ``"0.8"``.

    Exact for any length (``decimal``): the calculator's results may have hundreds of digits.
    """
    return format(Decimal(number).normalize(), "f")


def read_numbers(text: str) -> list[str]:
    """Every number written with digits in ``text``, in order, as plain ASCII without separators.

    Full-width digits, comma and point count (``FULL_WIDTH``); a thousands separator joins
    groups of exactly three digits (``NUMBER``).  Signs are not read ("-3" gives "3").

    Example: ``read_numbers("预算２，０００元，买 3, 40 元的")`` → ``["2000", "3", "40"]``.
    """
    return [number.replace(",", "") for number in NUMBER.findall(text.translate(FULL_WIDTH))]


def has_number(text: str, number: str) -> bool:
    """True if ``number`` (e.g. ``"300"``, ``"8848.86"``) is one of the numbers of ``text`` (``read_numbers``).

    A whole number only: "1300", "3000" and "300.5" do not have "300"; "300元", "300。",
    "360.0" (for "360") and "1,300" (for "1300") do.
    """
    return _canonical(number) in {_canonical(found) for found in read_numbers(text)}


def numbers_in(text: str) -> set[str]:
    """The numbers a text gives, canonical (``_canonical``): its numbers written with digits
    (``read_numbers``: 「2,000」 is 2000), its single Chinese numerals (「十二」 gives 10 and 2,
    not 12), discounts (「八折」 0.8) and percentages (「20%」 0.2).

    Example: ``numbers_in("打八折以后 360 元")`` → ``{"8", "0.8", "360"}``.
    """
    found = {_canonical(n) for n in read_numbers(text)}
    text = text.translate(FULL_WIDTH)  # "８折", "２０％" as well
    found |= {str(CHINESE_DIGITS[ch]) for ch in text if ch in CHINESE_DIGITS}
    for first, second in DISCOUNT.findall(text):
        found.add(_canonical(f"0.{DIGIT_OF[first]}{DIGIT_OF[second] if second else ''}"))
    found |= {_canonical(str(Decimal(n) / 100)) for n in PERCENT.findall(text)}
    return found


def ungrounded_numbers(expression: str, messages: list[dict], free: set[str] = FREE_NUMBERS,
                       failed: Iterable[str] = ()) -> list[str]:
    """The numbers of ``expression`` that appear in no user message and no tool result.

    Args:
        expression: a calculate argument, e.g. ``"3 * 40"``.
        messages: the conversation so far (OpenAI message dicts).  Only
            ``role`` ``"user"`` and ``"tool"`` count as sources.
        free: numbers never missing, canonical (default ``FREE_NUMBERS``: 0 and 1).
        failed: the ``tool_call_id`` of tool messages that are not results (the tool did
            not run: ``records.ToolResult.ok`` False); their text is no source.
    Returns:
        The missing numbers as read from ``expression`` (``read_numbers``: ASCII, no
        separators), in order, without repeats (``[]`` = every number is grounded).
    Example:
        ``ungrounded_numbers("3 * 40", [{"role": "user", "content": "买 3 个足球多少钱？"}])`` → ``["40"]``.
    """
    failed = set(failed)
    texts = [str(m.get("content") or "") for m in messages
             if m.get("role") == "user" or (m.get("role") == "tool" and m.get("tool_call_id") not in failed)]
    known = set(free).union(*(numbers_in(text) for text in texts))
    missing: list[str] = []
    for number in read_numbers(expression):
        if _canonical(number) not in known and number not in missing:
            missing.append(number)
    return missing


def invented_numbers(call: Any, messages: list[dict], free: set[str] = FREE_NUMBERS,
                     failed: Iterable[str] = ()) -> list[str]:
    """``ungrounded_numbers`` of a readable calculate call; ``[]`` for any other call.

    Args:
        call: a ``records.ToolCall`` (``name``, ``arguments`` dict or None, ``error``).
        messages: the conversation the call answers (the reply itself is not in it).
        free, failed: as for ``ungrounded_numbers``.
    Returns:
        The numbers of ``call.arguments["expression"]`` found nowhere in
        ``messages`` (see ``ungrounded_numbers``).
    """
    if call.name != CHECKED_TOOL or call.error is not None or not isinstance(call.arguments, dict):
        return []
    return ungrounded_numbers(str(call.arguments.get("expression", "")), messages, free, failed)


def check_calls(calls: list[Any], messages: list[dict], failed: Iterable[str] = ()) -> list[ToolResult]:
    """The number check of one reply: all its calls, dropped, if one of them calculates with
    invented numbers; else ``[]`` (the reply stands).

    Args:
        calls: the reply's ``records.ToolCall`` list.
        messages, failed: the conversation so far (see ``ungrounded_numbers``).
    Returns:
        One ``records.ToolResult`` per call, none of them run (``ok`` False): a calculate call
        with invented numbers has them in ``missing_numbers`` and its ``observation`` names them;
        every other call's ``observation`` says the whole reply was dropped.
    """
    missing = [invented_numbers(call, messages, FREE_NUMBERS, failed) for call in calls]
    if not any(missing):
        return []
    return [ToolResult.not_run(call, t("agent.dropped_why", missing=t("agent.list_separator").join(numbers)) if numbers
                               else t("agent.dropped_with"), missing_numbers=numbers)
            for call, numbers in zip(calls, missing)]


def without_tool(tools: list[dict], name: str = CHECKED_TOOL) -> list[dict]:
    """``tools`` (OpenAI tool schemas) without the one called ``name``; the others unchanged, in order."""
    return [tool for tool in tools if (tool.get("function") or {}).get("name") != name]
