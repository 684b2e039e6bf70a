"""Offline knowledge search: a tiny keyword search over data/knowledge.json.

Taught in notebook 05 (the ReAct examples).

Each entry is ``{"title", "text", "keywords"}``.  An entry scores points for
every title/keyword that appears in the query (or that contains the query);
longer matches score more.  Good enough for 「世界上最长的河流是什么？」 -> 尼罗河.
"""

from __future__ import annotations

import os
from pathlib import Path

from .data_files import DataFileError, read_records, tool_failure
from .failure import ToolFailure

KNOWLEDGE_TOOL = {
    "type": "function",
    "function": {
        "name": "search_knowledge",
        "description": "查询离线百科（地理、天文、体育、名胜古迹）里的资料。",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "要查的内容，例如 珠穆朗玛峰",
                },
            },
            "required": ["query"],
        },
    },
}

_PUNCTUATION = " \t\n?？。.!！,，"


def _data_dir() -> Path:
    """The course data folder: $COURSE_DATA_DIR if set, else <repo>/data."""
    return Path(os.environ.get("COURSE_DATA_DIR") or Path(__file__).resolve().parents[2] / "data")


def load_knowledge() -> list[dict]:
    """Read data/knowledge.json: a list of ``{"title", "text", "keywords"}`` dicts (``keywords`` optional, a list).

    UTF-8 with or without a BOM (``data_files.read_records``).
    Raises:
        DataFileError: the file is missing, not UTF-8, not JSON, or an entry lacks a field or holds a
            value of the wrong kind - one Chinese sentence with the file, the line and the fix.
    """
    return read_records(_data_dir() / "knowledge.json", {"title": "text", "text": "text"}, {"keywords": "list"})


def score(entry: dict, query: str) -> int:
    """Points for one entry: the length of every title/keyword that is in the
    query, or that contains the query."""
    terms = {entry["title"], *entry.get("keywords", [])}
    points = 0
    for term in terms:
        term = term.lower()
        if term in query or query in term:
            points += len(term)
    return points


def search_knowledge(query: str) -> str:
    """Look ``query`` up in the offline knowledge base.

    Args:
        query: a question or keyword, e.g. "世界上最长的河流是什么？".
    Returns:
        The best entry as "title：text", plus a second entry (on a new line)
        when it scores at least half as well; "没有找到关于 X 的资料" when
        nothing matches; a string starting with "错误：" for empty input, and for a
        data/knowledge.json that cannot be read (which line, and the fix).
    Data: data/knowledge.json (offline, about 20 entries).
    """
    if not isinstance(query, str) or not query.strip(_PUNCTUATION):
        return ToolFailure("错误：query 不能为空")
    cleaned = query.strip(_PUNCTUATION).lower()

    try:
        entries = load_knowledge()
    except DataFileError as error:  # data/knowledge.json was edited by hand and is broken: say so, never raise
        return tool_failure(error)
    scored = [(score(entry, cleaned), entry) for entry in entries]
    scored = [(points, entry) for points, entry in scored if points > 0]
    if not scored:
        return f"没有找到关于 {query.strip()} 的资料"

    scored.sort(key=lambda pair: pair[0], reverse=True)  # stable: file order breaks ties
    best_points = scored[0][0]
    chosen = [entry for points, entry in scored[:2] if points * 2 >= best_points]
    return "\n".join(f"{entry['title']}：{entry['text']}" for entry in chosen)
