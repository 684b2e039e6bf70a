"""The checkers of notebook 04 (course_lib.checkers.nb04) on typical right and wrong answers."""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import pytest

from course_lib.checkers import nb04
from course_lib.tools import query_by_product_name
from course_lib.tools.products import connect_readonly, database_path
from notebook_cells import load_solution


SELECT = "SELECT product_id, product_name, price FROM products"


def _price_tool():
    return load_solution("04_sports_equipment", "04-1")["PRICE_TOOL"]


def _rows_json(rows):
    return json.dumps([dict(r) for r in rows], ensure_ascii=False)


def test_price_checker_accepts_pandas_with_params():
    def with_pandas(low, high):
        connection = connect_readonly(database_path())
        try:
            frame = pd.read_sql(f"{SELECT} WHERE price >= ? AND price <= ?", connection, params=(low, high))
        finally:
            connection.close()
        return frame.to_json(orient="records", force_ascii=False)

    assert nb04.check_price_tool(with_pandas, _price_tool()).passed is True


def test_price_checker_rejects_sql_built_with_an_f_string(capsys):
    def pasted(low, high):
        connection = connect_readonly(database_path())
        connection.row_factory = sqlite3.Row
        try:
            return _rows_json(connection.execute(f"{SELECT} WHERE price BETWEEN {low} AND {high}").fetchall())
        finally:
            connection.close()

    assert nb04.check_price_tool(pasted, _price_tool()).passed is False
    assert "占位符" in capsys.readouterr().out


def test_price_checker_rejects_a_writable_connection(capsys):
    def writable(low, high):
        connection = sqlite3.connect(database_path())
        connection.row_factory = sqlite3.Row
        try:
            return _rows_json(connection.execute(f"{SELECT} WHERE price BETWEEN ? AND ?", (low, high)).fetchall())
        finally:
            connection.close()

    assert nb04.check_price_tool(writable, _price_tool()).passed is False
    assert "只读" in capsys.readouterr().out


@pytest.mark.parametrize("flaw", ["exclusive", "escaped", "list", "raises"])
def test_price_checker_rejects_wrong_results(flaw):
    def flawed(low, high):
        if flaw == "raises" and low > high:
            raise ValueError("min > max")
        connection = connect_readonly(database_path())
        connection.row_factory = sqlite3.Row
        sql = f"{SELECT} WHERE price > ? AND price < ?" if flaw == "exclusive" else f"{SELECT} WHERE price BETWEEN ? AND ?"
        try:
            rows = [dict(r) for r in connection.execute(sql, (low, high)).fetchall()]
        finally:
            connection.close()
        if flaw == "list":
            return rows
        return json.dumps(rows, ensure_ascii=flaw == "escaped")

    assert nb04.check_price_tool(flawed, _price_tool()).passed is False


def test_price_checker_checks_the_schema_first():
    tool = _price_tool()
    tool["function"]["parameters"]["properties"]["min_price"]["type"] = "string"
    assert nb04.check_price_tool(lambda low, high: "[]", tool).passed is False


def test_watching_sqlite_restores_connect_even_after_an_error():
    original = sqlite3.connect
    with pytest.raises(RuntimeError):
        with nb04.watching_sqlite():
            raise RuntimeError("boom")
    assert sqlite3.connect is original


def test_watching_sqlite_records_read_only_and_parameters():
    path = database_path()
    with nb04.watching_sqlite() as opened:
        connection = connect_readonly(path)
        connection.execute("SELECT 1 WHERE 1 = ?", (1,)).fetchall()
        connection.close()
    assert len(opened) == 1 and opened[0].read_only
    assert opened[0].statements == [("SELECT 1 WHERE 1 = ?", (1,))]


def test_run_tool_call_checker():
    def careless(call, functions):
        return str(functions[call["function"]["name"]](**json.loads(call["function"]["arguments"])))

    def no_tool_list(call, functions):
        if call["function"]["name"] not in functions:
            return "错误：没有这个工具"
        try:
            return str(functions[call["function"]["name"]](**json.loads(call["function"]["arguments"])))
        except Exception as err:  # noqa: BLE001
            return f"错误：{err}"

    solution = load_solution("04_sports_equipment", "04-2")["run_tool_call"]
    assert nb04.check_run_tool_call(solution).passed is True
    assert nb04.check_run_tool_call(careless).passed is False
    assert nb04.check_run_tool_call(no_tool_list).passed is False
    assert query_by_product_name("篮球") in solution(
        {"id": "x", "type": "function", "function": {"name": "query_by_product_name", "arguments": '{"product_name": "篮球"}'}},
        {"query_by_product_name": query_by_product_name},
    )


def test_price_checker_accepts_filtering_in_python():
    """Safe without SQL parameters: nothing from the caller goes into the SQL text."""

    def in_python(low, high):
        connection = connect_readonly(database_path())
        connection.row_factory = sqlite3.Row
        try:
            rows = [dict(r) for r in connection.execute(SELECT).fetchall()]
        finally:
            connection.close()
        return json.dumps([r for r in rows if low <= r["price"] <= high], ensure_ascii=False)

    assert nb04.check_price_tool(in_python, _price_tool()).passed is True
