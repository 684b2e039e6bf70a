"""Parse prompt-based ReAct replies.

Taught in notebook 05 (sections 2 and 4).

A model without native function calling can still use tools if the system
prompt defines a text protocol and our code reads the reply.  The course uses
two protocols:

Protocol A - the line protocol::

    Thought: 我需要计算 20 * 15
    Action: calculate: 20 * 15
    PAUSE

  Our code runs the tool and replies ``Observation: 300``; the model finishes
  with ``Answer: 20 * 15 = 300``.

Protocol B - the LangChain-style JSON blob::

    Thought: 我需要计算 20 * 15
    Action:
    ```json
    {"action": "calculate", "action_input": "20 * 15"}
    ```

  and finishes with ``Final Answer: ...``.  (The request uses
  ``stop=["Observation:"]`` so that the model stops before inventing a result.)

Real models do not follow a format to the letter.  This parser copes with:

* labels in any case, spaced, with a full-width colon ``：``, in markdown
  (``**Action:**``, ``- Action:``: ``LABEL_RE``) or in Chinese (``思考：``,
  ``行动：``, ``最终答案：``: ``CHINESE_LABELS``); any space, U+3000 too (``SP``);
* quotes around the whole input, ASCII or Chinese, taken off
  (``tools.registry.unquote``); tool names in any script, case or backticks,
  looked up in the registry we were given (its spelling is returned);
* the JSON object fenced or not, with prose around it and fences inside its
  strings (``json_scan.find_json_object``: brace matching, never a greedy
  regex), single-quoted (``ast.literal_eval``: literals only) or with trailing
  commas (``json_scan.load_object``);
* a half-written stop word at the end (``"\\nObserv"``), and an ``Observation:``
  the model wrote itself (invented: dropped);
* Action and Answer in one reply (the first in the text decides); LangChain's
  ``Action: tool`` + ``Action Input: text``, on two lines or one; a line with
  two labels (``Action: x Final Answer:``) is invalid (``TWO_LABELS``).

Anything else gives a ``ParsedReply`` of kind ``"invalid"`` whose ``error`` says what was
wrong; ``corrective_observation`` turns it into the next message for the model.
Each parse handles ONE step: if a reply contains several Actions, only the
first is used (the model will see its Observation and can ask for the next).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, Literal, NamedTuple

from .json_scan import find_json_object, matching_bracket
from .texts import t
from .tools.registry import (NAME_MARKS, available_text, bare_name, lookup_tool, tool_key, unknown_tool_text, unquote,
                             unquote_values, unwrap)

# What the parser can make of one reply (ParsedReply.kind).
ParsedKind = Literal["action", "answer", "invalid"]


@dataclass
class ParsedReply:
    """What the parser read from one model reply (one ReAct step's decision).

    Attributes:
        kind: ``"action"`` (run a tool), ``"answer"`` (finished) or ``"invalid"``
            (a ``ParsedKind``).
        thought: the model's reasoning text, or None if it wrote none.
        action: the tool to run, spelled as in the registry (kind ``"action"`` only).
        action_input: the tool input: a str for protocol A; a str or dict for
            protocol B (``""`` when the JSON had no ``action_input``).
        answer: the final answer text (kind ``"answer"`` only).
        error: for kind ``"invalid"``, what was wrong (in words the model can act on).
        raw: the text actually parsed, after cleanup (stop-word fragment and
            any model-invented Observation removed).
    """

    kind: ParsedKind
    thought: str | None = None
    action: str | None = None
    action_input: Any = None
    answer: str | None = None
    error: str | None = None
    raw: str = ""


# ---------------------------------------------------------------------------
# 1. Regular expressions
# ---------------------------------------------------------------------------

# The spaces of a line, for a regex character class "[...]": space, tab and the Unicode
# spaces a model writes in Chinese text (U+3000 ideographic space, U+00A0 no-break space,
# U+2000-U+200A ...), but no line break.  "[{SP}]*" reads "any spaces".
SP = r" \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"

# Labels a small model translates under a Chinese prompt, and the English label each one is read as
# (the kinds of ``find_labels``).  Longer words first: "行动输入" before "行动", "最终答案" before "答案".
CHINESE_LABELS = {"最终答案": "answer", "答案": "answer", "思考": "thought", "行动输入": "input", "行动": "action"}

# A label such as "Thought:", "Action:", "Answer:" or "Final Answer:" (or one of
# CHINESE_LABELS: "行动：") at the start of a line.  Group "label" holds the word, group
# "open" the markdown decoration in front of it (if any).  The match ends where the
# content starts.
LABEL_RE = re.compile(
    rf"""
    ^[{SP}>#]*                   # line start; indentation, quote '>' or heading '#'
    (?:[-+*][{SP}]+)?            # an optional list bullet: "- ", "* ", "+ "
    (?P<open>[*_`]+)?            # opening decoration: ** or __ or `
    (?P<label>
        final[{SP}_]*answer      # "Final Answer" (try this before plain "answer")
      | thought
      | action[{SP}_]*input     # LangChain's classic "Action Input:" (before plain "action")
      | action
      | answer
      | 最终答案 | 答案 | 思考 | 行动输入 | 行动   # CHINESE_LABELS, longer words first
    )
    [{SP}]*                      # spaces before the colon: "Action :"
    (?:[*_`]+[{SP}]*)?           # "**Action**:" - decoration before the colon
    [:：]                        # ASCII colon or full-width colon
    (?(open)[*_`]*)              # "**Action:**" - closing decoration, only if one opened
    [{SP}]*                      # spaces before the content
    """,
    re.IGNORECASE | re.MULTILINE | re.VERBOSE,
)

# A line that starts with "Observation" (colon or not) or "观察：" (with a colon: 「观察到……」 is
# a thought): the model is writing the tool result itself.  Everything from here on is invented.
OBSERVATION_RE = re.compile(
    rf"""
    ^[{SP}>#]*                   # line start, as in LABEL_RE
    (?:[-+*][{SP}]+)?            # optional list bullet
    [*_`]*                       # optional decoration
    (?:observation\b             # the word itself
      | 观察[{SP}]*[*_`]*[:：])    # or in Chinese, with its colon
    """,
    re.IGNORECASE | re.MULTILINE | re.VERBOSE,
)

# A second label inside a decision line: "Action: get_weather Final Answer:".
INLINE_LABEL_RE = re.compile(
    rf"(?<!\w)(?:final[{SP}_]*answer|answer|action|thought|最终答案|答案|行动|思考)[{SP}]*[*_`]*[:：]", re.IGNORECASE)

# LangChain's "Action Input:" written on the Action line itself: "Action: get_weather Action Input: 北京"
# (or "行动输入：", which needs no space before it: "行动：get_weather行动输入：北京").
INLINE_INPUT_RE = re.compile(
    rf"[{SP}]*[*_`]*(?:(?<!\w)action[{SP}_]*input|行动输入)[{SP}]*[*_`]*[:：](?:[*_`]+(?=[{SP}]))?[{SP}]*", re.IGNORECASE)

# A line that is only "PAUSE" (protocol A's end-of-action marker).
PAUSE_LINE_RE = re.compile(rf"^[{SP}*_`]*PAUSE[{SP}*_`.!。]*$", re.IGNORECASE | re.MULTILINE)

# "PAUSE" written at the end of the Action line itself: "Action: calculate: 2+3 PAUSE".
# (The look-behind makes the search start only at the first of several spaces.)
TRAILING_PAUSE_RE = re.compile(rf"(?<![{SP}])[{SP}]+PAUSE[{SP}.]*$")

# Markdown decoration wrapped around a whole value: **x**, __x__, `x`, ``x``, *x*.

# The name an unknown Action line starts with (for the error message only).
# A namespace some models write in front of a tool name: "functions." in "functions.get_weather".
NAMESPACE_RE = re.compile(r"[A-Za-z_]\w*\.(?=\w)")
CANDIDATE_NAME_RE = re.compile(r"[^\s:：(（`*]+")

# A fence opener left at the end of the thought when the JSON blob had no label.
FENCE_TAIL_RE = re.compile(r"(?:```|~~~)[\w-]*\s*$")

_SEPARATORS = (":", "：")
_OPEN_PARENS = {"(": ")", "（": "）"}
_PARENS = ("".join(_OPEN_PARENS), "".join(_OPEN_PARENS.values()))  # (opens, closes) for matching_bracket

_FINAL_ANSWER_NAMES = {"final answer", "final_answer", "finalanswer", "final-answer"}


class Label(NamedTuple):
    """A label found by ``find_labels``."""

    kind: str  # "thought" | "action" | "input" (classic "Action Input:") | "answer"
    start: int  # where the label's line starts
    end: int  # where its content starts


def find_labels(text: str) -> list[Label]:
    """Return every label in ``text`` in order; "Final Answer" is reported as kind "answer",
    a Chinese label as the kind of its English one (``CHINESE_LABELS``: "行动" -> "action")."""
    labels = []
    for m in LABEL_RE.finditer(text):
        word = m.group("label").lower()
        if word in CHINESE_LABELS:
            kind = CHINESE_LABELS[word]
        else:
            kind = "answer" if word.endswith("answer") else "input" if word.endswith("input") else word
        labels.append(Label(kind, m.start(), m.end()))
    return labels


# ---------------------------------------------------------------------------
# 2. Cleanup: the stop-word fragment and invented observations
# ---------------------------------------------------------------------------


def _squash(text: str) -> str:
    """Lower-case ``text`` without spaces/decoration, with ``：`` read as ``:``."""
    return re.sub(r"[\s*_`]", "", text).replace("：", ":").casefold()


def strip_partial_stop_word(text: str, stop_words: Iterable[str] = ("Observation:",)) -> str:
    """Remove a last line that is the beginning of a stop word.

    With ``stop=["Observation:"]`` some servers still return the part of the
    stop word they had already produced, e.g. ``"...\\nObserv"``, ``"\\nObs"``
    or ``"\\nObservation"`` without the colon.  Such a line carries nothing.

    Args:
        text: the reply.
        stop_words: the stop words used for the request.
    Returns:
        ``text`` without trailing whitespace and without that line.
    """
    text = text.rstrip()
    head, _, last = text.rpartition("\n")
    probe = _squash(last)
    if probe and any(_squash(word).startswith(probe) for word in stop_words if _squash(word)):
        return head.rstrip()
    return text


def _clean(text: str | None, stop_words: Iterable[str]) -> tuple[str, bool]:
    """Return (cleaned text, whether an invented Observation was cut off)."""
    text = strip_partial_stop_word(text or "", stop_words)
    m = OBSERVATION_RE.search(text)
    if m:
        return text[: m.start()].strip(), True
    return text.strip(), False


# ---------------------------------------------------------------------------
# 3. Tool names: matched against the registry, never against \w+
# ---------------------------------------------------------------------------


def _registry(tool_names: Iterable[str]) -> dict[str, str]:
    """Map comparison key (``tools.registry.tool_key``) -> the registered spelling."""
    if isinstance(tool_names, str):
        tool_names = [tool_names]
    return {tool_key(name): name for name in tool_names}


# ---------------------------------------------------------------------------
# 4. Shared pieces: thought and answer
# ---------------------------------------------------------------------------


def _thought(text: str, labels: list[Label], decision_at: int) -> str | None:
    """The reasoning before the decisive Action/Answer (at ``decision_at``).

    The text after a ``Thought:`` label up to the next label; without such a
    label, whatever was written before the first label (LangChain prompts end
    with "Thought:", so the reply starts with the thought itself).
    """
    before = [lab for lab in labels if lab.start < decision_at]
    thoughts = [lab for lab in before if lab.kind == "thought"]
    if thoughts:
        start = thoughts[0].end
        following = [lab.start for lab in labels if lab.start > thoughts[0].start]
        end = min(following + [decision_at])
    else:
        start, end = 0, min([lab.start for lab in before] + [decision_at])
    piece = PAUSE_LINE_RE.sub("", text[start:end])
    piece = FENCE_TAIL_RE.sub("", piece).strip()
    return piece or None


def _answer(raw: str, labels: list[Label], label: Label, thought: str | None, word: str) -> ParsedReply:
    """The answer runs from its label to the next label (an Action after it is ignored) or the end."""
    end = min([lab.start for lab in labels if lab.start > label.start] + [len(raw)])
    text = PAUSE_LINE_RE.sub("", raw[label.end : end]).strip()
    if not text:
        return ParsedReply("invalid", thought=thought, error=f"{word} 后面没有内容。", raw=raw)
    return ParsedReply("answer", thought=thought, answer=text, raw=raw)


TWO_LABELS = "一行里同时写了两个标签（{line}），既不算 Action 也不算答案：每次只能写一个 Action，或者一个最终答案。"


def _two_labels(raw: str, label: Label) -> str | None:
    """The error for a decision line that holds a second label (``Action: x Final Answer:``), or None."""
    line_end = raw.find("\n", label.end)
    line = raw[label.end : line_end if line_end != -1 else len(raw)].split("{", 1)[0]  # not inside a JSON blob
    if INLINE_LABEL_RE.search(line):
        return TWO_LABELS.format(line=raw[label.start : line_end if line_end != -1 else len(raw)].strip())
    return None


def _classic_input(raw: str, labels: list[Label], label: Label) -> str | None:
    """LangChain's classic form ``Action: tool`` + ``Action Input: text``: the text, or None.

    The ``Action Input:`` label must be the label right after the Action;
    its text runs to the next label or the end (a trailing ``PAUSE`` and
    quotes around the whole input removed; the stop-word fragment is already
    gone).
    """
    following = [lab for lab in labels if lab.start > label.start]
    if not following or following[0].kind != "input":
        return None
    end = following[1].start if len(following) > 1 else len(raw)
    return _input_text(raw[following[0].end : end])


def _input_text(text: str) -> str:
    """An ``Action Input:`` text: a ``PAUSE`` line or trailing ``PAUSE`` and one pair of quotes
    around it all (ASCII or Chinese: ``tools.registry.unquote``) removed."""
    value = PAUSE_LINE_RE.sub("", text).strip()
    value = TRAILING_PAUSE_RE.sub("", value).strip()
    return unquote(value)


def _inline_input(raw: str, labels: list[Label], label: Label) -> tuple[str, str] | None:
    """The classic form on ONE line, ``Action: tool Action Input: text``: ``(tool text, input)``, or None.

    The input runs from the inline ``Action Input:`` to the next label (or the end).
    """
    line_end = raw.find("\n", label.end)
    line = raw[label.end : line_end if line_end != -1 else len(raw)]
    found = INLINE_INPUT_RE.search(line)
    if found is None or not line[: found.start()].strip():
        return None
    following = [lab for lab in labels if lab.start > label.start]
    end = following[0].start if following else len(raw)
    return line[: found.start()].strip(), _input_text(raw[label.end + found.end() : end])


def _invalid(raw: str, error: str, invented: bool, thought: str | None = None) -> ParsedReply:
    if invented:
        error += " 不要自己编写 Observation：它由系统在执行工具之后提供。"
    return ParsedReply("invalid", thought=thought, error=error, raw=raw)


# ---------------------------------------------------------------------------
# 5. Protocol A: "Action: tool_name: input"
# ---------------------------------------------------------------------------


def _line_input(rest: str) -> str:
    """Turn what follows the tool name into the tool input.

    Accepted forms (after the tool name):
      ``: input`` or ``： input``  -> ``input``        (the documented form)
      ``(input)`` or ``（input）``  -> ``input``        (call syntax; a single quoted
                                                      string literal is unquoted)
      `` input``                   -> ``input``        (space only; U+3000 is a space too)
      nothing                      -> ``""``
    A trailing ``PAUSE`` and one pair of quotes around the whole input - ASCII,
    backticks or Chinese: ``“跑步鞋”`` -> ``跑步鞋`` (``tools.registry.unquote``) - are removed.
    """
    rest = rest.strip()
    if rest[:1] in _SEPARATORS:
        value = rest[1:].strip()
    elif rest[:1] in _OPEN_PARENS and matching_bracket(rest, 0, *_PARENS, skip_strings=False) == len(rest) - 1:
        value = rest[1:-1].strip()
        try:  # calculate("20*15") -> 20*15 ; only a plain string literal is unquoted
            literal = ast.literal_eval(value)
            if isinstance(literal, str):
                value = literal
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
    else:
        value = rest
    value = TRAILING_PAUSE_RE.sub("", value).strip()
    return unquote(value)


def _action_content(raw: str, label: Label) -> str:
    """The rest of the Action line; if it is empty, the next non-empty line (unless that is a label)."""
    line_end = raw.find("\n", label.end)
    content = raw[label.end : line_end if line_end != -1 else len(raw)].strip()
    if content or line_end == -1:
        return content
    for line in raw[line_end + 1 :].splitlines():
        if line.strip():
            if LABEL_RE.match(line) or PAUSE_LINE_RE.match(line):
                return ""
            return line.strip()
    return ""


def parse_line_protocol(
    text: str | None, tool_names: Iterable[str], stop_words: Iterable[str] = ("Observation:",)
) -> ParsedReply:
    """Parse one reply written in protocol A (``Thought`` / ``Action: tool: input`` / ``PAUSE`` / ``Answer``).

    Args:
        text: the model's reply (``message.content``; None counts as empty).
        tool_names: the registered tool names (a list, or a dict name -> function).
        stop_words: stop words used for the request; a half-written one at the
            end of the reply is removed.
    Returns:
        A ``ParsedReply``: kind ``"action"`` with ``action`` (registry spelling)
        and ``action_input`` (str), kind ``"answer"`` with ``answer``, or kind
        ``"invalid"`` with ``error``.  Never raises for a bad reply.
    """
    registry = _registry(tool_names)
    raw, invented = _clean(text, stop_words)
    if not raw:
        return _invalid(raw, "回复是空的。", invented)

    labels = find_labels(raw)
    decisive = next((lab for lab in labels if lab.kind in ("action", "answer")), None)
    if decisive is None:
        return _invalid(raw, "没有找到 Action 行，也没有找到 Answer 行。", invented, _thought(raw, labels, len(raw)))
    thought = _thought(raw, labels, decisive.start)
    two = _two_labels(raw, decisive)
    if two:
        return _invalid(raw, two, invented, thought)
    if decisive.kind == "answer":
        return _answer(raw, labels, decisive, thought, "Answer:")

    # The first label is an Action: read "tool_name: input".
    inline = _inline_input(raw, labels, decisive)  # "Action: tool Action Input: text" on one line
    content = unwrap(inline[0] if inline else _action_content(raw, decisive))
    if not content:
        return _invalid(raw, "Action: 后面没有写工具名。", invented, thought)
    content = content.lstrip(NAME_MARKS)  # "`calculate`", "“calculate”"
    namespace = NAMESPACE_RE.match(content)  # "functions.get_weather: 北京": the namespace is dropped
    if namespace and lookup_tool(CANDIDATE_NAME_RE.match(content).group(0), registry.values()):
        content = content[namespace.end():]
    # Try the longest names first, so "search_web" wins over "search".
    for key, name in sorted(registry.items(), key=lambda kv: -len(kv[1])):
        if tool_key(content[: len(name)]) != key:
            continue
        rest = content[len(name) :].lstrip(NAME_MARKS)  # "`calculate`: 2+3"
        # After the name: nothing, a space (any Unicode space: U+3000 too), a colon or a parenthesis.
        if rest[:1] in ("", *_SEPARATORS, *_OPEN_PARENS) or rest[:1].isspace():
            value = _line_input(rest)
            if not value and inline:
                value = inline[1]
            elif not value:  # the classic two-line form: "Action: tool" + "Action Input: text"
                value = _classic_input(raw, labels, decisive) or ""
            return ParsedReply("action", thought=thought, action=name, action_input=value, raw=raw)
    m = CANDIDATE_NAME_RE.match(content)
    unknown = m.group(0) if m else content
    return _invalid(raw, unknown_tool_text(unknown, registry.values()) + "。", invented, thought)


# ---------------------------------------------------------------------------
# 6. Protocol B: "Action:" + a JSON object {"action": ..., "action_input": ...}
# ---------------------------------------------------------------------------


def _json_reply(obj: dict, registry: dict[str, str], raw: str, thought: str | None, invented: bool) -> ParsedReply:
    """Turn ``{"action": ..., "action_input": ...}`` into a parsed reply."""
    name = obj.get("action")
    if not isinstance(name, str) or not name.strip():
        return _invalid(raw, '"action" 必须是工具名（字符串）。', invented, thought)
    value = obj.get("action_input", "")
    # action_input stays a str or a dict (quotes around a whole string taken off: "“跑步鞋”" -> "跑步鞋");
    # other JSON values become JSON text.
    if value is None:
        value = ""
    elif isinstance(value, str):
        value = unquote(value)
    elif isinstance(value, dict):
        value = unquote_values(value)
    else:
        value = json.dumps(value, ensure_ascii=False)
    canonical = lookup_tool(name, registry.values())
    if canonical is None and tool_key(name) in _FINAL_ANSWER_NAMES:
        # {"action": "Final Answer", "action_input": "..."} - the LangChain JSON-chat way to finish.
        answer = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return ParsedReply("answer", thought=thought, answer=answer, raw=raw)
    if canonical is None:
        return _invalid(raw, unknown_tool_text(name, registry.values()) + "。", invented, thought)
    return ParsedReply("action", thought=thought, action=canonical, action_input=value, raw=raw)


def parse_json_protocol(
    text: str | None, tool_names: Iterable[str], stop_words: Iterable[str] = ("Observation:",)
) -> ParsedReply:
    """Parse one reply written in protocol B (``Action:`` + JSON blob / ``Final Answer:``).

    The decisive part is whichever comes first in the (cleaned) reply:
      * an ``Action:`` label - the first JSON object after it is the action;
      * a JSON object with an ``"action"`` key written without the label;
      * a ``Final Answer:`` (or ``Answer:``) label.
    ``{"action": "Final Answer", "action_input": "..."}`` also counts as an
    answer (unless a tool with that name is registered).

    Args:
        text: the model's reply (None counts as empty).
        tool_names: the registered tool names (a list, or a dict name -> function).
        stop_words: the request's stop words; a half-written one at the end is removed.
    Returns:
        A ``ParsedReply``; for kind ``"action"``, ``action_input`` is a str or a dict.
        Never raises for a bad reply.
    """
    registry = _registry(tool_names)
    raw, invented = _clean(text, stop_words)
    if not raw:
        return _invalid(raw, "回复是空的。", invented)

    labels = find_labels(raw)
    action_label = next((lab for lab in labels if lab.kind == "action"), None)
    answer_label = next((lab for lab in labels if lab.kind == "answer"), None)
    answer_at = answer_label.start if answer_label else len(raw)

    if action_label is not None and action_label.start < answer_at:
        # "Action:" comes first: the JSON must follow it.
        thought = _thought(raw, labels, action_label.start)
        two = _two_labels(raw, action_label)
        if two:
            return _invalid(raw, two, invented, thought)
        inline = _inline_input(raw, labels, action_label)  # "Action: tool Action Input: text" on one line
        name = bare_name(inline[0] if inline else _action_content(raw, action_label))
        if inline and not name.startswith(("{", "```", "~~~")):
            classic = inline[1]
        else:
            classic = None if name.startswith(("{", "```", "~~~")) else _classic_input(raw, labels, action_label)
        if name and classic is not None:  # the classic two-line form: "Action: tool" + "Action Input: text"
            try:  # "Action Input: {"city": "北京"}" - an object stays an object
                loaded = json.loads(classic)
                classic = loaded if isinstance(loaded, dict) else classic
            except ValueError:
                pass
            return _json_reply({"action": name, "action_input": classic}, registry, raw, thought, invented)
        obj, _, problem = find_json_object(raw, action_label.end)
        if obj is None:
            example = '{"action": "工具名", "action_input": "输入"}'
            return _invalid(raw, problem or f"Action: 后面没有找到 JSON 对象 {example}。", invented, thought)
        return _json_reply(obj, registry, raw, thought, invented)

    # No Action label before the answer: is there an unlabeled JSON blob first?
    obj, position, _ = find_json_object(raw, 0, answer_at)
    if obj is not None:
        return _json_reply(obj, registry, raw, _thought(raw, labels, position), invented)

    if answer_label is not None:
        return _answer(raw, labels, answer_label, _thought(raw, labels, answer_label.start), "Final Answer:")
    problem = "没有找到 Action（带 JSON 对象），也没有找到 Final Answer。"
    return _invalid(raw, problem, invented, _thought(raw, labels, len(raw)))


# ---------------------------------------------------------------------------
# 7. Telling the model what went wrong
# ---------------------------------------------------------------------------


def format_reminder(protocol: str, tool_names: Iterable[str]) -> str:
    """The reply format of protocol ``"A"`` or ``"B"`` with the tool names, as text for the model.

    Raises:
        ValueError: ``protocol`` is not "A" or "B".
    """
    tools = available_text(_registry(tool_names).values())
    protocol = str(protocol).strip().upper()
    if protocol == "A":
        return (
            "Thought: 你的思考\n"
            "Action: 工具名: 输入\n"
            "PAUSE\n"
            "\n"
            "知道答案后:\n"
            "Thought: 你的思考\n"
            "Answer: 最终答案\n"
            "\n"
            f"可用的工具: {tools}"
        )
    if protocol == "B":
        return (
            "Thought: 你的思考\n"
            "Action:\n"
            "```json\n"
            '{"action": "工具名", "action_input": "工具的输入"}\n'
            "```\n"
            "\n"
            "知道答案后:\n"
            "Thought: 我现在知道最终答案了\n"
            "Final Answer: 最终答案\n"
            "\n"
            f'"action" 必须是以下之一: {tools}'
        )
    raise ValueError(f'protocol must be "A" or "B", not {protocol!r}')


def corrective_observation(
    parsed: ParsedReply, protocol: str, tool_names: Iterable[str], prefix: str = "Observation: "
) -> str:
    """Build the message sent back when a reply could not be parsed.

    It names the problem (``parsed.error``) and restates the format, e.g.
    ``"Observation: 格式错误：没有找到 Action 行…… 请严格按照以下格式回复:\\nThought: ..."``.
    The loop sends it like a tool result and counts it as a step.

    Args:
        parsed: the (invalid) parsed reply; its ``error`` is quoted.
        protocol: ``"A"`` (line protocol) or ``"B"`` (JSON blob).
        tool_names: the registered tool names.
        prefix: put in front; use ``""`` if your loop adds "Observation: " itself.
    Returns:
        The message text.
    Raises:
        ValueError: ``protocol`` is not "A" or "B".
    """
    problem = parsed.error or "回复里没有可以解析的 Action 或 Answer。"
    return f"{prefix}格式错误：{problem} 请严格按照以下格式回复:\n{format_reminder(protocol, tool_names)}"
