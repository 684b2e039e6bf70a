"""course_lib.tools.shop_notes: notebook 11's retrieval tool (SQLite FTS5, BM25) over data/shop_notes.json."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from course_lib.number_check import read_numbers
from course_lib.tools import NOTES_TOOL, search_notes, shop_expert_registry
from course_lib.tools import shop_notes
from course_lib.tools.failure import ToolFailure
from course_lib.tools.products import read_products_csv
from course_lib.tools.registry import ToolRegistry, Tool
from notebook_cells import ROOT

LINE = re.compile(r"^\[(N\d\d)\] ([^：]+)：(.+)$")


def ids(answer: str) -> list[str]:
    """The note ids of a search answer, in order."""
    return [LINE.match(line).group(1) for line in answer.splitlines()]


def test_the_notes_file_is_utf8_json_with_numbers_and_known_products():
    notes = json.loads((ROOT / "data" / "shop_notes.json").read_text(encoding="utf-8"))
    assert 14 <= len(notes) <= 20
    assert [n["id"] for n in notes] == [f"N{k:02d}" for k in range(1, len(notes) + 1)]
    assert all(set(n) == {"id", "title", "text"} and n["title"] and read_numbers(n["text"]) for n in notes)
    rows = read_products_csv(ROOT / "data" / "products.csv")
    brands = {row[5] for row in rows}
    text = " ".join(n["text"] for n in notes)
    # The brands the notes name are the shop's own (products.csv), not made up.
    assert {"斯伯丁", "尤尼克斯", "亚瑟士", "捷安特"} <= brands and all(b in text for b in ("斯伯丁", "尤尼克斯", "亚瑟士", "捷安特"))
    assert "36 到 45 码" in text and "54 到 61 cm" in text  # as the products' specifications say


@pytest.mark.parametrize("text, expected", [
    ("退货", ["退货"]),
    ("退货要几天？", ["退货", "货要", "要几", "几天"]),
    ("Yonex 85g 球拍", ["yonex", "85g", "球拍"]),
    ("ＡＢＣ１２３ 和 Keep", ["abc123", "和", "keep"]),  # full-width letters are ASCII (NFKC)
    ("篮球\"AND(😀)", ["篮球", "and"]),
    ("？！……😀", []),
    ("", []),
])
def test_tokens_are_chinese_bigrams_and_lowercased_ascii_words(text, expected):
    assert shop_notes.tokens(text) == expected


@pytest.mark.parametrize("query, expected", [
    ("退货", '"退货"'),
    ("篮球 AND (", '"篮球" OR "and"'),
    ('"', ""),
    ("", ""),
])
def test_match_expression_quotes_every_token(query, expected):
    assert shop_notes.match_expression(query) == expected
    assert shop_notes.quoted('a"b') == '"a""b"'  # a quote inside is doubled


@pytest.mark.parametrize("question, first", [
    ("买了东西想退货怎么办？", "N01"),
    ("几天内可以退货？", "N01"),
    ("订单满多少钱免运费？", "N08"),
    ("篮球应该打多少气？", "N10"),
    ("羽毛球拍穿线拉力多少磅？", "N12"),
    ("会员有折扣吗", "N09"),
    ("周末几点开门？", "N16"),
    ("跑步机保修多久", "N05"),
])
def test_the_best_note_comes_first(question, first):
    answer = search_notes(question)
    assert ids(answer)[0] == first, answer


def test_k_is_respected_and_the_lines_carry_the_original_text():
    for k in (1, 2, 3, 5):
        assert len(ids(search_notes("保修 退货 运费 会员", k=k))) == k
    line = search_notes("退货", k=1)
    assert line.startswith("[N01] 退货政策：") and "7 天内" in line  # the stored text, not the tokens
    assert isinstance(search_notes("保修", k=0), ToolFailure) and isinstance(search_notes("保修", k=True), ToolFailure)


@pytest.mark.parametrize("query", [
    '篮球"', '"', '""', "AND (", "OR", "NOT 退货", "NEAR(退货 保修, 2)", "退货*", "title_words:退货", "^退货",
    "- 退货", "😀", "退货😀保修", "x" * 5000, "退" * 3000, "？？？", "'; DROP TABLE notes; --", "\x00退货", "{}[]()",
])
def test_hostile_queries_never_raise(query):
    answer = search_notes(query)
    assert isinstance(answer, str) and answer
    if isinstance(answer, ToolFailure):
        assert answer.startswith("错误：")
    else:
        assert answer.startswith(("[N", "没有找到")) and len(answer) < 1000


def test_blank_and_non_text_queries_are_tool_failures_the_registry_reports():
    for query in ("", "   ", "\n", "？！", None, 3):
        assert isinstance(search_notes(query), ToolFailure), query
    registry = shop_expert_registry()
    assert registry.names == ["query_by_product_name", "search_notes"]
    text, ok = registry.call("search_notes", {"query": " "})
    assert ok is False and text.startswith("错误：query 不能为空")
    text, ok = registry.call("search_notes", {"query": "退货"})
    assert ok is True and text.startswith("[N01]")
    assert json.loads(registry.call("query_by_product_name", {"product_name": "篮球"})[0])[0]["price"] == 200


def test_no_match_is_a_sentence_not_a_failure():
    answer = search_notes("衣服")
    assert answer.startswith("没有找到") and not isinstance(answer, ToolFailure)


def test_the_sql_is_parameterized(monkeypatch):
    seen = []

    class Spy:
        def __init__(self, connection):
            self.connection = connection

        def execute(self, sql, parameters=()):
            seen.append((sql, parameters))
            return self.connection.execute(sql, parameters)

        def close(self):
            self.connection.close()

    real = shop_notes.build_index
    monkeypatch.setattr(shop_notes, "build_index", lambda notes=None: Spy(real(notes)))
    search_notes("退货'; DROP TABLE notes; --", k=2)
    sql, parameters = seen[-1]
    assert sql == shop_notes.SEARCH_SQL and "DROP" not in sql and "退货" not in sql
    assert parameters == (shop_notes.match_expression("退货'; DROP TABLE notes; --"), 2)


def test_the_index_is_in_memory_and_searchable_by_hand():
    connection = shop_notes.build_index([{"id": "X1", "title": "保修", "text": "球拍保修 6 个月"}])
    try:
        rows = connection.execute(shop_notes.SEARCH_SQL, (shop_notes.match_expression("球拍保修多久"), 3)).fetchall()
        assert rows == [("X1", "保修", "球拍保修 6 个月")]
        assert connection.execute("PRAGMA database_list").fetchone()[2] == ""  # in memory: no file written
    finally:
        connection.close()


def test_a_python_without_fts5_gets_a_chinese_sentence_naming_the_fix(monkeypatch):
    class NoFts5:
        def __init__(self, connection):
            self.connection = connection

        def execute(self, sql, *args):
            if "fts5" in sql:
                raise sqlite3.OperationalError("no such module: fts5")
            return self.connection.execute(sql, *args)

        def close(self):
            self.connection.close()

    real_connect = sqlite3.connect
    monkeypatch.setattr(shop_notes.sqlite3, "connect", lambda *a, **k: NoFts5(real_connect(*a, **k)))
    with pytest.raises(shop_notes.Fts5Missing, match="FTS5.*python.org"):
        shop_notes.build_index()
    answer = search_notes("退货")
    assert isinstance(answer, ToolFailure) and "FTS5" in answer and "python.org" in answer
    text, ok = ToolRegistry([Tool("search_notes", search_notes, NOTES_TOOL)]).call("search_notes", {"query": "退货"})
    assert ok is False and "python.org" in text


def test_the_schema_is_sendable():
    from course_lib.messages import validate_tools

    validate_tools([NOTES_TOOL])
    assert NOTES_TOOL["function"]["parameters"]["required"] == ["query"]


def test_bm25_scores_two_columns_as_one_until_weights_are_given():
    """Notebook 11 says it: ``bm25()`` sums a token's hits over the columns (weight 1 each) and uses the
    whole row's length, so splitting title and text into two columns changes no score; weights do."""
    import sqlite3

    from course_lib.tools.shop_notes import load_notes, match_expression, tokens

    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE one USING fts5(id UNINDEXED, words)")
    db.execute("CREATE VIRTUAL TABLE two USING fts5(id UNINDEXED, title_words, text_words)")
    for note in load_notes():
        db.execute("INSERT INTO one VALUES (?, ?)", (note["id"], " ".join(tokens(note["title"] + " " + note["text"]))))
        db.execute("INSERT INTO two VALUES (?, ?, ?)", (note["id"], " ".join(tokens(note["title"])),
                                                         " ".join(tokens(note["text"]))))
    changed = 0
    for question in ["买了东西不想要，几天内可以退货？", "篮球打多少磅的气？", "跑步鞋怎么洗？", "运费多少", "会员打几折"]:
        match = match_expression(question)
        one = db.execute("SELECT id, round(bm25(one), 6) FROM one WHERE one MATCH ? ORDER BY id", [match]).fetchall()
        two = db.execute("SELECT id, round(bm25(two), 6) FROM two WHERE two MATCH ? ORDER BY id", [match]).fetchall()
        weighted = db.execute("SELECT id, round(bm25(two, 0, 5, 1), 6) FROM two WHERE two MATCH ? ORDER BY id",
                              [match]).fetchall()
        assert one and one == two
        changed += weighted != one
    assert changed == 5


def test_a_query_with_one_inserted_character_misses_the_returns_note():
    """Notebook 11's lesson from the reference run: 「退换货要几天」 shares no bigram with N01, so the returns note
    is not found at all (a miss, not a ranking); 「退货要几天」 finds it first."""
    from course_lib.tools.shop_notes import load_notes, search_notes, tokens

    n01 = next(n for n in load_notes() if n["id"] == "N01")
    assert not set(tokens("退换货要几天")) & set(tokens(n01["title"] + " " + n01["text"]))
    assert "[N01]" not in search_notes("退换货要几天")
    assert search_notes("退货要几天").startswith("[N01]")
