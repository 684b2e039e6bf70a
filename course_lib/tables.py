"""Message chains and responses shown as tables (pandas).

Taught in notebook 01 (show_response, show_messages); the step tables in 05 and 06.

``show_messages(messages)`` and ``show_response(response)`` return small
objects that Jupyter renders as coloured HTML tables and that print as plain
text anywhere else (a terminal, a test, a front-end without HTML).  Nothing
is ever cut silently: with ``max_chars`` set, a shortened cell ends with an
explicit ``…[+N chars]`` marker.
"""

from __future__ import annotations

import html
import json
from typing import Any, Iterable

import pandas as pd

from .messages import to_dict
from .replies import read_usage

ROLE_COLOURS = {
    "system": "#eeeeee",
    "developer": "#eeeeee",
    "user": "#dbeafe",
    "assistant": "#dcfce7",
    "tool": "#fef3c7",
}
HIGHLIGHT_COLOUR = "#fde68a"


# Classes that keep MathJax (Jupyter's math typesetting) away from a table's cells:
# "mathjax_ignore" is MathJax 3's default ignoreHtmlClass (JupyterLab 4 keeps the default;
# checked in a real browser by tests/test_browser.py), "tex2jax_ignore" is MathJax 2's
# (classic Notebook, older JupyterLab).  Writing "$" as "&#36;" alone does not help: MathJax
# reads the page's text, where the entity is a "$" again.
NO_MATH_CLASS = "tex2jax_ignore mathjax_ignore"


def html_text(value: Any) -> str:
    """``str(value)`` escaped for an HTML table cell, with ``$`` written as ``&#36;``.

    Two ``$`` in a cell (``我有 $25 和 $30 两张券``) would otherwise be typeset
    as math by JupyterLab's MathJax; what stops that is the table's
    ``NO_MATH_CLASS``, the entity only keeps the raw HTML free of ``$``.
    Only the HTML is changed; the plain text (``str(table)``, the DataFrame)
    keeps the ``$``.
    """
    return html.escape(str(value)).replace("$", "&#36;")


def shorten(text: str, max_chars: int | None) -> str:
    """Return ``text``, or its first ``max_chars`` characters plus ``…[+N chars]``.

    Args:
        text: any string.
        max_chars: limit in characters; None means no limit.
    """
    if max_chars is None or len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}…[+{len(text) - max_chars} chars]"


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", json.dumps(p, ensure_ascii=False)) if isinstance(p, dict) else str(p) for p in content)
    return json.dumps(content, ensure_ascii=False, default=str)


def _calls_text(calls: list | None) -> str:
    lines = []
    for call in calls or []:
        fn = call.get("function") or {}
        args = fn.get("arguments")
        if not isinstance(args, str):
            args = json.dumps(args, ensure_ascii=False)
        lines.append(f"{fn.get('name', '?')}({args})  [id={call.get('id', '')}]")
    return "\n".join(lines)


def messages_frame(messages: Iterable[Any], max_chars: int | None = None) -> pd.DataFrame:
    """Return the message list as a DataFrame.

    Args:
        messages: dicts and/or openai SDK message objects, mixed.
        max_chars: shorten each cell to this many characters (marked), or None.
    Returns:
        Columns ``role, content, tool_calls, tool_call_id``; the index is the
        position in the list.  ``tool_calls`` reads ``name(arguments)  [id=...]``,
        one call per line.
    """
    rows = []
    for msg in messages:
        d = to_dict(msg)
        rows.append(
            {
                "role": d.get("role", ""),
                "content": shorten(_content_text(d.get("content")), max_chars),
                "tool_calls": shorten(_calls_text(d.get("tool_calls")), max_chars),
                "tool_call_id": d.get("tool_call_id", "") or "",
            }
        )
    frame = pd.DataFrame(rows, columns=["role", "content", "tool_calls", "tool_call_id"])
    frame.index.name = "#"
    return frame


class Table:
    """A DataFrame that shows as coloured HTML in Jupyter and as plain text elsewhere.

    Attributes:
        frame: the pandas DataFrame (for students who want to filter or plot it).
        title: optional caption.
    """

    def __init__(self, frame: pd.DataFrame, title: str = "", highlight: Iterable[int] = ()):
        self.frame = frame
        self.title = title
        self.highlight = set(highlight)

    def __len__(self) -> int:
        return len(self.frame)

    def __str__(self) -> str:
        body = self._plain()
        return f"{self.title}\n{body}" if self.title else body

    __repr__ = __str__

    def _plain(self) -> str:
        # One block per row keeps multi-line content readable in a terminal.
        blocks = []
        for idx, row in self.frame.iterrows():
            mark = " <- new" if idx in self.highlight else ""
            head = f"[{idx}]" + (f" {row['role']}" if "role" in row else "") + mark
            fields = [f"  {col}: " + str(val).replace("\n", "\n    ") for col, val in row.items() if col != "role" and str(val) != ""]
            blocks.append("\n".join([head, *fields]))
        return "\n".join(blocks) if blocks else "(empty)"

    def _repr_html_(self) -> str:
        def colour(row: pd.Series) -> list[str]:
            bg = HIGHLIGHT_COLOUR if row.name in self.highlight else ROLE_COLOURS.get(row.get("role", ""), "")
            return [f"background-color: {bg}; color: #111" if bg else ""] * len(row)

        styler = (
            self.frame.style.apply(colour, axis=1)
            .format(html_text)
            .set_properties(**{"white-space": "pre-wrap", "text-align": "left", "vertical-align": "top"})
            .set_table_styles([{"selector": "th", "props": "text-align: left;"}])
            .set_table_attributes(f'class="{NO_MATH_CLASS}"')
        )
        if self.title:
            styler = styler.set_caption(html_text(self.title))
        return styler.to_html()


def show_messages(messages: Iterable[Any], max_chars: int | None = None, title: str = "", highlight: Iterable[int] = ()) -> Table:
    """Show a message chain as a table: index, role, content, tool calls, tool_call_id.

    Args:
        messages: dicts and/or SDK message objects.
        max_chars: shorten long cells (with an explicit marker); default: never.
        title: caption.
        highlight: indices to mark as new (yellow / ``<- new``).
    Returns:
        A ``Table``: Jupyter displays it; ``print()`` gives the plain-text form.
    """
    return Table(messages_frame(messages, max_chars), title, highlight)


def response_frame(response: Any) -> pd.DataFrame:
    """Return the anatomy of a chat completion as a two-column DataFrame.

    Rows: ``choices[0].message.content``, ``choices[0].message.tool_calls``,
    ``choices[0].finish_reason``, ``usage.prompt_tokens``,
    ``usage.completion_tokens``, ``usage.total_tokens``, ``model``, ``id``.
    Accepts an SDK ``ChatCompletion`` or the equivalent dict.
    """
    d = to_dict(response)
    choice = (d.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    usage = read_usage(d) or {}
    rows = [
        ("choices[0].message.content", _content_text(message.get("content")) if message.get("content") is not None else "None"),
        ("choices[0].message.tool_calls", _calls_text(message.get("tool_calls")) or "None"),
        ("choices[0].finish_reason", choice.get("finish_reason")),
        ("usage.prompt_tokens", usage.get("prompt_tokens")),
        ("usage.completion_tokens", usage.get("completion_tokens")),
        ("usage.total_tokens", usage.get("total_tokens")),
        ("model", d.get("model")),
        ("id", d.get("id")),
    ]
    frame = pd.DataFrame(rows, columns=["field", "value"]).set_index("field")
    frame["value"] = frame["value"].map(lambda v: "None" if v is None else str(v))
    return frame


def show_response(response: Any, title: str = "") -> Table:
    """Show the anatomy of one response: content, tool_calls, finish_reason, usage, model, id."""
    return Table(response_frame(response), title)


# ---------------------------------------------------------------------------
# The steps of a loop run (loop.Step lists) as tables
# ---------------------------------------------------------------------------

REACT_STEP_COLUMNS = ["step", "kind", "reasoning", "thought", "action", "action_input", "observation", "answer",
                      "finish_reason", "prompt_tokens", "completion_tokens"]
AGENT_STEP_COLUMNS = ["step", "kind", "reasoning", "tool", "arguments", "observation", "repeated", "answer",
                      "finish_reason", "prompt_tokens", "completion_tokens"]


def _cell(value: Any, max_chars: int | None) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return shorten(text, max_chars)


def react_steps_frame(steps: Iterable[Any], max_chars: int | None = 120) -> pd.DataFrame:
    """The steps of a ReAct run (notebook 05) as a DataFrame, one row per request.

    Args:
        steps: ``loop.Step`` records of ``react.LineReAct`` / ``react.JsonReAct``.
        max_chars: shorten text cells (with an explicit ``…[+N chars]`` marker); None keeps everything.
    Returns:
        Columns ``REACT_STEP_COLUMNS`` indexed by ``step``; a dict ``action_input`` is shown as JSON.
    """
    rows = []
    for s in steps:
        row = {col: getattr(s, col) for col in REACT_STEP_COLUMNS}
        for key in ("reasoning", "thought", "action", "action_input", "observation", "answer"):
            row[key] = _cell(row[key], max_chars)
        rows.append(row)
    return pd.DataFrame(rows, columns=REACT_STEP_COLUMNS).set_index("step")


def agent_steps_frame(steps: Iterable[Any], max_chars: int | None = 120) -> pd.DataFrame:
    """The steps of a native run (notebook 06): one row per tool call, and one per step without calls.

    Args:
        steps: ``loop.Step`` records of ``agent.Agent``.
        max_chars: shorten text cells (marked); None keeps everything.
    Returns:
        Columns ``AGENT_STEP_COLUMNS``: ``observation`` is the tool result (or
        the corrective message of an unusable reply), ``answer`` the answer
        text; a step's tokens are shown on its first row only.  A call the
        number check dropped (``Step.dropped``) comes first, with kind
        ``"dropped"`` and why in ``observation``.
    """
    rows = []
    for s in steps:
        tokens = {"reasoning": _cell(s.reasoning, max_chars), "finish_reason": s.finish_reason,
                  "prompt_tokens": s.prompt_tokens, "completion_tokens": s.completion_tokens}
        for c in getattr(s, "dropped", []):
            rows.append({"step": s.step, "kind": "dropped", "tool": c.name, "arguments": c.arguments_text,
                         "observation": _cell(c.observation, max_chars), "repeated": False, "answer": "", **tokens})
            tokens = {**tokens, "reasoning": "", "prompt_tokens": None, "completion_tokens": None}
        for c in s.tool_calls:
            rows.append({"step": s.step, "kind": s.kind, "tool": c.name, "arguments": c.arguments_text,
                         "observation": _cell(c.observation, max_chars), "repeated": c.repeated, "answer": "", **tokens})
            tokens = {"reasoning": "", "finish_reason": s.finish_reason,
                      "prompt_tokens": None, "completion_tokens": None}  # count each request once
        if not s.tool_calls:
            rows.append({"step": s.step, "kind": s.kind, "tool": "", "arguments": "",
                         "observation": _cell(s.observation, max_chars), "repeated": False,
                         "answer": _cell(s.answer, max_chars), **tokens})
    frame = pd.DataFrame(rows, columns=AGENT_STEP_COLUMNS)
    for col in ("prompt_tokens", "completion_tokens"):
        frame[col] = frame[col].astype("Int64")
    return frame
