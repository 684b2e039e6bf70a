"""Find and read JSON objects written inside free text (a model's reply).

Taught in notebook 05 (section 4.2, "JSON 也会被写歪"); used again in 04/06 when a
model writes its tool call as text.

A model writes JSON between prose, in code fences, with ``}`` or fences
*inside* string values, with trailing commas or single quotes.  A greedy
regex such as ``\\{.*\\}`` cuts such text in the wrong place, so this module
scans instead:

* ``outside_strings``  walks the text knowing whether each character is inside a string;
* ``matching_brace``   finds the ``}`` that closes a ``{`` (braces in strings do not count;
  ``matching_bracket`` is the same scan for any pair, e.g. the parentheses of ``calculate(2+3)``);
* ``load_object``      reads the snippet: JSON, then with Unicode spaces (U+3000 ...) made
  plain and without trailing commas, then Python literals (``ast.literal_eval`` - never ``eval``);
* ``scan_objects``     tries every ``{`` in turn and yields what it found.

Two readers are built on ``scan_objects``: ``react_parser`` (the ReAct JSON
blob ``{"action": ..., "action_input": ...}``, via ``find_json_object``) and
``tool_calls.find_text_calls`` (tool calls written in ``content``).
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any, Callable, Iterator, NamedTuple

# How many "{" positions one scan tries before giving up (keeps a degenerate
# reply such as "{{{{...." from taking seconds to reject).
MAX_JSON_CANDIDATES = 200

# Only spaces, then a closing "}" or "]" (used to spot trailing commas).
CLOSER_AHEAD_RE = re.compile(r"\s*[}\]]")

UNCLOSED = "JSON 对象不完整（括号没有闭合）"


def outside_strings(text: str, start: int = 0) -> Iterator[tuple[int, str, bool]]:
    """Yield ``(index, char, in_string)`` for every character from ``start`` on.

    ``in_string`` is True inside a double-quoted (JSON) or single-quoted
    (Python) string, honouring backslash escapes; the quotes themselves count
    as inside.  Both the brace matcher and the trailing-comma repair use it.
    """
    quote = None  # the quote character of the string we are in, or None
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:  # inside a string: only its closing quote matters
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            yield i, ch, True
        elif ch in "\"'":
            quote = ch
            yield i, ch, True
        else:
            yield i, ch, False


def matching_bracket(text: str, open_index: int, opens: str = "{", closes: str = "}",
                     skip_strings: bool = True) -> int | None:
    """Return the index of the bracket that closes the one at ``open_index``.

    Counts every character of ``opens`` as +1 and of ``closes`` as -1 (so
    ``opens="(（"``, ``closes=")）"`` accepts full-width parentheses too).  With
    ``skip_strings`` everything inside quoted strings is skipped (see
    ``outside_strings``), so a ``}`` or a code fence inside a string value does
    not end an object; without it (a ReAct input such as ``calculate(it's 2)``)
    quotes are ordinary characters.

    Returns:
        The index, or None if the bracket is never closed (a truncated reply).
    """
    scan = outside_strings(text, open_index) if skip_strings else ((i, text[i], False) for i in range(open_index, len(text)))
    depth = 0
    for i, ch, in_string in scan:
        if in_string:
            continue
        if ch in opens:
            depth += 1
        elif ch in closes:
            depth -= 1
            if depth == 0:
                return i
    return None


def matching_brace(text: str, open_index: int) -> int | None:
    """The ``}`` that closes the ``{`` at ``open_index`` (strings skipped): ``matching_bracket``'s default."""
    return matching_bracket(text, open_index)


def _drop_trailing_commas(snippet: str) -> str:
    """Remove commas directly before ``}`` or ``]`` (outside strings): ``{"a": 1,}`` -> ``{"a": 1}``."""
    return "".join(
        ch
        for i, ch, in_string in outside_strings(snippet)
        if in_string or ch != "," or not CLOSER_AHEAD_RE.match(snippet, i + 1)
    )


def _plain_spaces(snippet: str) -> str:
    """Turn every space JSON does not know (U+3000 ideographic space, U+00A0 ...) into " ", outside strings.

    JSON allows only space, tab, CR and LF between its tokens; a model writing Chinese
    sometimes puts a U+3000 there: ``{"action":\u3000"calculate"}``.  Inside strings
    nothing changes.
    """
    return "".join(
        " " if not in_string and ch.isspace() and ch not in " \t\r\n" else ch
        for _, ch, in_string in outside_strings(snippet)
    )


def load_object(snippet: str) -> Any:
    """Read a JSON object, repairing the usual small mistakes safely.

    Tried in order:
      1. ``json.loads`` (``strict=False``: raw newlines inside strings are allowed);
      2. the same after making Unicode spaces between the tokens plain spaces
         (``_plain_spaces``) and removing trailing commas;
      3. ``ast.literal_eval`` of that - Python literals such as ``{'action': 'x'}``.
         It only builds literals (str, numbers, dicts, lists ...); it never
         runs code, unlike ``eval``.
    There is no blanket ``'`` -> ``"`` replacement: it would break values like
    ``"it's"``.

    Args:
        snippet: the text of one object, ``{`` to ``}``.
    Returns:
        The value read (normally a dict).
    Raises:
        ValueError: none of the three could read it (message in Chinese, with line/column).
    """
    repaired = _drop_trailing_commas(_plain_spaces(snippet))
    for attempt in (snippet, repaired):
        try:
            return json.loads(attempt, strict=False)
        except json.JSONDecodeError as exc:
            error = exc
    try:
        return ast.literal_eval(repaired)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ValueError(f"JSON 格式错误: {error.msg}（第 {error.lineno} 行第 {error.colno} 列）") from None


class JsonCandidate(NamedTuple):
    """One ``{`` of the text and what could be read from it.

    Attributes:
        start: index of the ``{``.
        end: index just after its closing ``}``; ``len(text)`` when it never closes.
        value: the value read by ``load_object`` (normally a dict), or None.
        error: why nothing could be read (unclosed, malformed), or None.
    """

    start: int
    end: int
    value: Any
    error: str | None

    def snippet(self, text: str) -> str:
        """The candidate's text: ``text[start:end]``."""
        return text[self.start : self.end]


def _read_at(text: str, pos: int) -> JsonCandidate:
    close = matching_brace(text, pos)
    if close is None:
        return JsonCandidate(pos, len(text), None, UNCLOSED)
    try:
        return JsonCandidate(pos, close + 1, load_object(text[pos : close + 1]), None)
    except ValueError as exc:
        return JsonCandidate(pos, close + 1, None, str(exc))


def scan_objects(
    text: str, start: int = 0, end: int | None = None, skip_nested: Callable[[JsonCandidate], bool] | None = None
) -> Iterator[JsonCandidate]:
    """Try every ``{`` in ``text[start:end]`` from left to right.

    Args:
        text: the reply.
        start, end: where a ``{`` may start (the object itself may run past ``end``).
        skip_nested: called with each candidate; when it returns True the
            scan goes on after that object's end, so the objects nested in it
            are not tried again.
    Yields:
        One ``JsonCandidate`` per ``{`` tried, at most ``MAX_JSON_CANDIDATES``.
    """
    end = len(text) if end is None else end
    pos = text.find("{", start, end)
    tries = 0
    while pos != -1 and tries < MAX_JSON_CANDIDATES:
        tries += 1
        candidate = _read_at(text, pos)
        yield candidate
        resume = candidate.end if skip_nested is not None and skip_nested(candidate) else pos + 1
        pos = text.find("{", resume, end)


def find_json_object(text: str, start: int = 0, end: int | None = None) -> tuple[dict | None, int, str | None]:
    """Find the first object with an ``"action"`` key in ``text[start:end]`` (the ReAct JSON blob).

    Every ``{`` is a candidate (``scan_objects``); fences and prose around the
    object do not matter.

    Returns:
        ``(obj, position, problem)``: the object and where it starts, or
        ``(None, -1, problem)`` where ``problem`` describes the first failed
        candidate (Chinese, ending with "。"), or None if there was no ``{`` at all.
    """
    problem = None
    for candidate in scan_objects(text, start, end):
        if candidate.error is not None:
            problem = problem or f"{candidate.error}。"
        elif isinstance(candidate.value, dict) and "action" in candidate.value:
            return candidate.value, candidate.start, None
        else:
            problem = problem or 'JSON 对象里没有 "action" 字段。'
    return None, -1, problem
