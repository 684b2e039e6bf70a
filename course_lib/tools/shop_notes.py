"""The shop's notes as a look-up tool: retrieval with SQLite FTS5 and BM25, no embeddings, no download.

Taught in notebook 11 (retrieval as a tool; the shop expert's second tool).

data/shop_notes.json holds about sixteen short notes of the SportsEquipment shop
(returns, warranty, delivery, member discount, care, sizes, opening hours), each
``{"id": "N01", "title", "text"}``.  ``search_notes(query)`` finds the notes that
fit a question best and returns them as text lines ``[N01] 标题：正文`` for the model
to read and cite.

How, in four small steps:

* ``tokens(text)``: FTS5's default tokenizer (``unicode61``) keeps a run of Chinese
  characters as ONE token - 「买了东西想退货」 would only match that exact run - so the
  text is split by hand: Chinese character bigrams (「退货」「货政」...) plus lower-cased
  ASCII words and numbers.  The same split is used for the notes and for the question.
* ``build_index(notes)``: an in-memory FTS5 table; the indexed columns hold the tokens
  joined by spaces, the original id, title and text are stored ``UNINDEXED`` to return.
* ``match_expression(query)``: the question's tokens, each in double quotes (a ``"``
  inside doubled), joined with ``OR``.  The user's text never becomes FTS5 syntax, so
  ``篮球"`` or ``AND (`` cannot raise - the same rule as parameterized SQL in notebook 04.
* ``search_notes``: ``... WHERE notes MATCH ? ORDER BY bm25(notes) LIMIT ?`` with both
  values as parameters.  ``bm25`` is FTS5's built-in ranking (lower is better): a rare
  token that occurs in a short note counts most (SQLite docs, "FTS5", section 5.1.1).

FTS5 is part of the SQLite inside python.org's Python (and of almost every Linux
distribution's); a Python built without it gets a clear sentence (``Fts5Missing``).
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata

from ..texts import t
from .data_files import DataFileError, read_records, tool_failure
from .failure import ToolFailure
from .products import PRODUCT_TOOL, _data_dir, query_by_product_name
from .registry import Tool, ToolRegistry

NOTES_NAME = "shop_notes.json"
DEFAULT_K = 3  # notes per answer: enough to cite, short enough for a small model's context

NOTES_TOOL = {
    "type": "function",
    "function": {
        "name": "search_notes",
        "description": (
            "查本店（体育用品店）的店铺说明：退换货、保修、配送和运费、会员折扣、保养方法、尺码建议、营业时间。"
            "返回最相关的几条说明，每条以编号开头，例如 [N01]。回答时写出查到的数字和说明的编号。"
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "要查的问题或关键词，例如 退货要几天"},
            },
            "required": ["query"],
        },
    },
}

# A run of Chinese characters (CJK unified ideographs and extension A) or of ASCII letters and digits.
TOKEN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+|[A-Za-z0-9]+")

CREATE_SQL = "CREATE VIRTUAL TABLE notes USING fts5(id UNINDEXED, title UNINDEXED, text UNINDEXED, title_words, text_words)"
SEARCH_SQL = "SELECT id, title, text FROM notes WHERE notes MATCH ? ORDER BY bm25(notes) LIMIT ?"


class Fts5Missing(RuntimeError):
    """This Python's sqlite3 was built without FTS5 (``no such module: fts5``); the message says the fix."""


def tokens(text: str) -> list[str]:
    """The search tokens of ``text``: Chinese character bigrams and lower-cased ASCII words, in order.

    Full-width letters and digits count as ASCII (NFKC).  A Chinese run of one character is
    kept as it is; a longer run gives its overlapping pairs.  Punctuation, spaces and emoji
    are dropped.  Example: ``tokens("退货要几天？Yonex 85g")`` ->
    ``["退货", "货要", "要几", "几天", "yonex", "85g"]``.
    """
    found = []
    for run in TOKEN_RE.findall(unicodedata.normalize("NFKC", text)):
        if run.isascii():
            found.append(run.lower())
        elif len(run) == 1:
            found.append(run)
        else:
            found.extend(run[i:i + 2] for i in range(len(run) - 1))
    return found


def quoted(word: str) -> str:
    """``word`` as one FTS5 string (a phrase): in double quotes, a ``"`` inside doubled (SQLite docs, FTS5 3.1)."""
    return '"' + word.replace('"', '""') + '"'


def match_expression(query: str) -> str:
    """The FTS5 query for ``query``: its ``tokens``, each ``quoted``, joined with ``" OR "``; ``""`` when it has none.

    ``match_expression("篮球 AND (")`` -> ``'"篮球" OR "and"'``: what the user typed is only ever
    searched for, never read as FTS5 operators.
    """
    return " OR ".join(quoted(word) for word in tokens(query))


def load_notes() -> list[dict]:
    """Read data/shop_notes.json: a list of ``{"id", "title", "text"}`` dicts, all three text.

    UTF-8 with or without a BOM (``data_files.read_records``).
    Raises:
        DataFileError: the file is missing, not UTF-8, not JSON, or a note lacks a field or holds a
            non-text value - one Chinese sentence with the file, the line and the fix.
    """
    return read_records(_data_dir() / NOTES_NAME, {"id": "text", "title": "text", "text": "text"})


def build_index(notes: list[dict] | None = None) -> sqlite3.Connection:
    """An in-memory FTS5 table ``notes`` of ``notes`` (default ``load_notes()``).

    Columns: ``id``, ``title``, ``text`` (stored, not indexed: what a search returns) and
    ``title_words``, ``text_words`` (``tokens`` joined by spaces: what is searched).
    Returns:
        The open connection (close it when done).
    Raises:
        Fts5Missing: this Python's sqlite3 has no FTS5.
        DataFileError: ``notes`` is None and data/shop_notes.json cannot be read (``load_notes``).
    """
    notes = load_notes() if notes is None else notes
    connection = sqlite3.connect(":memory:")
    try:
        connection.execute(CREATE_SQL)
    except sqlite3.OperationalError as error:
        connection.close()
        if "fts5" in str(error):
            raise Fts5Missing(t("notes.no_fts5", version=sqlite3.sqlite_version)) from error
        raise
    rows = [(n["id"], n["title"], n["text"], " ".join(tokens(n["title"])), " ".join(tokens(n["text"])))
            for n in notes]
    connection.executemany("INSERT INTO notes VALUES (?, ?, ?, ?, ?)", rows)
    return connection


def search_notes(query: str, k: int = DEFAULT_K) -> str:
    """The notes that fit ``query`` best, as text for the model.

    Args:
        query: a question or keywords, e.g. "买的东西几天内可以退货？".
        k: at most this many notes (a whole number >= 1; not in ``NOTES_TOOL``: the model cannot choose it).
    Returns:
        Up to ``k`` lines ``[N01] 标题：正文``, best first (``bm25``); a "没有找到……" sentence when no
        note shares a token with the query.  A ``ToolFailure("错误：...")`` for a query that is not
        text, is blank or has nothing to search (only punctuation or emoji), for a bad ``k``, when
        this Python's sqlite3 has no FTS5, and when data/shop_notes.json cannot be read (a hand edit
        broke it: ``data_files.tool_failure``); then the sentence says the fix.  Never raises.
    Data: data/shop_notes.json, indexed anew in memory for each search (16 notes: about a millisecond).
    """
    if not isinstance(query, str) or not query.strip():
        return ToolFailure("错误：query 不能为空，请写出要查的问题或关键词，例如 退货")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        return ToolFailure("错误：k 必须是正整数")
    expression = match_expression(query)
    if not expression:
        return ToolFailure("错误：query 里没有可以查的字或词（只有标点或表情），请写出要查的内容，例如 退货")
    try:
        connection = build_index()
    except Fts5Missing as error:
        return ToolFailure(f"错误：{error}")
    except DataFileError as error:
        return tool_failure(error)
    try:
        rows = connection.execute(SEARCH_SQL, (expression, k)).fetchall()
    finally:
        connection.close()
    if not rows:
        asked = query.strip() if len(query.strip()) <= 30 else query.strip()[:30] + "…"
        return f"没有找到和「{asked}」有关的店铺说明。"
    return "\n".join(f"[{note_id}] {title}：{text}" for note_id, title, text in rows)


def shop_expert_registry() -> ToolRegistry:
    """The shop expert's tools (notebook 11): query_by_product_name (notebook 04, the master database,
    read-only) and search_notes.  No write tool: the expert answers, it never orders."""
    return ToolRegistry([
        Tool("query_by_product_name", query_by_product_name, PRODUCT_TOOL),
        Tool("search_notes", search_notes, NOTES_TOOL),
    ])
