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

from .messages import content_text, to_dict
from .replies import read_usage
from .texts import shorten  # noqa: F401 - the tables' shortener, used by their callers too

# The columns of the step tables (steps_frame; each records.Step's rows() gives them), in order.
STEP_COLUMNS = ["step", "kind", "reasoning", "thought", "tool", "input", "observation", "repeated", "answer",
                "finish_reason", "prompt_tokens", "completion_tokens"]

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


def _content_text(content: Any) -> str:
    """A content field for a table: its text (``messages.content_text``); parts that are not
    text (images ...) are shown as JSON after it, so the table hides nothing."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        others = [json.dumps(p, ensure_ascii=False, default=str) for p in content
                  if not (isinstance(p, dict) and p.get("type", "text") == "text" and isinstance(p.get("text"), str))]
        return "\n".join([content_text(content), *others]).strip("\n")
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

    def __init__(self, frame: pd.DataFrame, title: str = "", highlight: Iterable[int] = (), code: bool = False):
        self.frame = frame
        self.title = title
        self.highlight = set(highlight)
        self.code = code  # cells are source code: a monospace font in HTML

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
            .set_properties(**{"white-space": "pre-wrap", "text-align": "left", "vertical-align": "top",
                               **({"font-family": "monospace", "font-size": "85%"} if self.code else {})})
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


def side_by_side(sources: dict[str, str], title: str = "") -> Table:
    """Texts in columns, one row: e.g. a loop written by hand beside the library's ``step``.

    Args:
        sources: column title -> text (usually ``inspect.getsource(...)``), in display order.
        title: caption.
    Returns:
        A ``Table`` (monospace cells in HTML; as plain text, one column after the other).
    """
    frame = pd.DataFrame({name: [text.rstrip()] for name, text in sources.items()})
    return Table(frame, title, code=True)


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
# The steps of a loop run (records.Step lists) as tables
# ---------------------------------------------------------------------------


def _cell(value: Any, max_chars: int | None) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return shorten(text, max_chars)


def steps_frame(steps: Iterable[Any], max_chars: int | None = 120) -> pd.DataFrame:
    """The steps of any loop run as a DataFrame: each record's ``rows()`` (``STEP_COLUMNS``).

    A native step has one row per tool call (a call the number check dropped comes
    first, kind ``"dropped"``); a ReAct step is one row (``tool``/``input`` are its
    Action and Action Input).  Columns that are empty in every row (``thought`` in a
    native run, ``repeated`` in a ReAct run, ``reasoning`` for a model that does not
    think aloud) are left out.  A step's tokens are on its first row only.

    Args:
        steps: ``records.Step`` records (``result.steps``).
        max_chars: shorten text cells (with an explicit ``…[+N chars]`` marker); None keeps everything.
    """
    rows = [row for step in steps for row in step.rows()]
    for row in rows:  # before the frame is built: pandas would turn a None among strings into NaN
        for col in ("reasoning", "thought", "tool", "input", "observation", "answer"):
            row[col] = _cell(row[col], max_chars)
        row["repeated"] = "" if row["repeated"] is None else bool(row["repeated"])
    frame = pd.DataFrame(rows, columns=STEP_COLUMNS)
    for col in ("prompt_tokens", "completion_tokens"):
        frame[col] = frame[col].astype("Int64")
    empty = [col for col in ("reasoning", "thought", "repeated") if (frame[col] == "").all()]
    return frame.drop(columns=empty)
