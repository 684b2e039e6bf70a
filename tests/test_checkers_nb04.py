"""The checkers of notebook 04 (course_lib.checkers.nb04) on typical right and wrong answers.

Each answer is written as a notebook cell would be (source text run in a fresh namespace), so a
connection opened at the top of the cell is a global of the student's function, as in class.
"""

from __future__ import annotations

import json
import sqlite3
import textwrap
import time

import pytest

from course_lib.checkers import nb04
from course_lib.tools import query_by_product_name
from course_lib.tools.products import connect_readonly, database_path
from notebook_cells import load_solution

HEAD = """
import json
import sqlite3
import pandas as pd
from course_lib.tools.products import connect_readonly, database_path
SELECT = "SELECT product_id, product_name, price FROM products"
"""


def cell(source: str) -> dict:
    """Run ``source`` (dedented, after the usual imports) as a notebook cell; its namespace."""
    namespace = {"__name__": "__cell__"}
    exec(HEAD + textwrap.dedent(source), namespace)
    return namespace


def _price_tool():
    return load_solution("04_sports_equipment", "04-1")["PRICE_TOOL"]


def _price_function(body: str):
    return cell(body)["query_by_price_range"]


def _check_price(body: str, capsys=None):
    result = nb04.check_price_tool(_price_function(body), _price_tool())
    return result


# -- 04-1: right answers in every style the notebook teaches --------------------------

RIGHT_PRICE = {
    "reference": None,  # the solution itself
    "between_row_factory": """
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            try:
                rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (min_price, max_price)).fetchall()
            finally:
                connection.close()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """,
    "pandas_params": """
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            try:
                frame = pd.read_sql(SELECT + " WHERE price >= ? AND price <= ?", connection, params=(min_price, max_price))
            finally:
                connection.close()
            return frame.to_json(orient="records", force_ascii=False)
        """,
    "named_parameters": """
        def query_by_price_range(min_price, max_price):
            if min_price > max_price:
                return "错误：min_price 不能大于 max_price"
            with connect_readonly(database_path()) as connection:
                cursor = connection.cursor()
                cursor.execute(SELECT + " WHERE price BETWEEN :low AND :high ORDER BY price DESC",
                               {"low": min_price, "high": max_price})
                names = [d[0] for d in cursor.description]
                rows = [dict(zip(names, row)) for row in cursor.fetchall()]
            return json.dumps(rows, ensure_ascii=False, indent=2)
        """,
    "filter_in_python": """
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = [dict(r) for r in connection.execute("SELECT * FROM products").fetchall()]
            connection.close()
            return json.dumps([r for r in rows if min_price <= r["price"] <= max_price], ensure_ascii=False)
        """,
    "module_level_connection": """
        connection = connect_readonly(database_path())
        connection.row_factory = sqlite3.Row

        def query_by_price_range(min_price, max_price):
            rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (min_price, max_price)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """,
    "module_level_pandas": """
        connection = connect_readonly(database_path())

        def query_by_price_range(min_price, max_price):
            frame = pd.read_sql(SELECT + " WHERE price BETWEEN ? AND ?", connection, params=[min_price, max_price])
            return frame.to_json(orient="records", force_ascii=False)
        """,
    "uri_by_hand": """
        def query_by_price_range(min_price, max_price):
            connection = sqlite3.connect(f"file:{database_path()}?mode=ro", uri=True)
            try:
                cursor = connection.execute(SELECT + " WHERE ? <= price AND price <= ?", [min_price, max_price])
                rows = [dict(zip(("product_id", "product_name", "price"), row)) for row in cursor]
            finally:
                connection.close()
            return json.dumps(rows, ensure_ascii=False)
        """,
}


@pytest.mark.parametrize("name", RIGHT_PRICE)
def test_price_checker_accepts(name, capsys):
    body = RIGHT_PRICE[name]
    function = (load_solution("04_sports_equipment", "04-1")["query_by_price_range"] if body is None
                else _price_function(body))
    started = time.perf_counter()
    result = nb04.check_price_tool(function, _price_tool())
    assert result.passed is True, capsys.readouterr().out
    assert time.perf_counter() - started < 3


# -- 04-1: wrong answers --------------------------------------------------------------

WRONG_PRICE = {
    # the prices pasted into the SQL text, in every format
    "f_string": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(f"{SELECT} WHERE price BETWEEN {min_price} AND {max_price}").fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, "check.04.price_tool.10"),
    "percent_d": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price BETWEEN %d AND %d" % (min_price, max_price)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, None),
    "format_2f": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            sql = SELECT + " WHERE price >= {:.2f} AND price <= {:.2f}".format(min_price, max_price)
            rows = connection.execute(sql).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, None),
    "percent_s_max_only": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price >= ? AND price <= %s" % max_price, (min_price,)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, "check.04.price_tool.10"),
    "pasted_on_module_connection": ("""
        connection = connect_readonly(database_path())
        connection.row_factory = sqlite3.Row

        def query_by_price_range(min_price, max_price):
            rows = connection.execute(f"{SELECT} WHERE price BETWEEN {min_price:g} AND {max_price:g}").fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, "check.04.price_tool.10"),
    # the rows
    "exclusive": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price > ? AND price < ?", (min_price, max_price)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, "check.04.price_tool.3"),
    "lower_bound_only": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price >= ?", (min_price,)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, "check.04.price_tool.3"),
    "swapped_bounds": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (max_price, min_price)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, "check.04.price_tool.3"),
    "limit_5": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ? LIMIT 5", (min_price, max_price)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, "check.04.price_tool.3"),
    "int_prices": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (int(min_price), int(max_price))).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, "check.04.price_tool.3"),
    "hard_coded_sample": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (100, 200)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, "check.04.price_tool.3"),
    "tuple_rows_lose_names": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (min_price, max_price)).fetchall()
            return json.dumps(rows, ensure_ascii=False)
        """, None),
    "escaped": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (min_price, max_price)).fetchall()
            return json.dumps([dict(r) for r in rows])
        """, "check.04.price_tool.5"),
    "python_list": ("""
        def query_by_price_range(min_price, max_price):
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            return [dict(r) for r in connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (min_price, max_price))]
        """, "check.04.rows.not_a_string"),
    "raises_when_reversed": ("""
        def query_by_price_range(min_price, max_price):
            if min_price > max_price:
                raise ValueError("min > max")
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (min_price, max_price)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, None),
    "reversed_swaps_silently": ("""
        def query_by_price_range(min_price, max_price):
            low, high = sorted((min_price, max_price))
            connection = connect_readonly(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (low, high)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, None),
    "writable": ("""
        def query_by_price_range(min_price, max_price):
            connection = sqlite3.connect(database_path())
            connection.row_factory = sqlite3.Row
            rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (min_price, max_price)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, "check.04.price_tool.7"),
    "writable_module_level": ("""
        connection = sqlite3.connect(database_path())
        connection.row_factory = sqlite3.Row

        def query_by_price_range(min_price, max_price):
            rows = connection.execute(SELECT + " WHERE price BETWEEN ? AND ?", (min_price, max_price)).fetchall()
            return json.dumps([dict(r) for r in rows], ensure_ascii=False)
        """, "check.04.price_tool.7"),
    "csv_without_database": ("""
        import csv
        from pathlib import Path
        import course_lib
        CSV = Path(course_lib.__file__).resolve().parent.parent / "data" / "products.csv"

        def query_by_price_range(min_price, max_price):
            with open(CSV, encoding="utf-8") as f:
                rows = [{"product_id": r["product_id"], "product_name": r["product_name"], "price": float(r["price"])}
                        for r in csv.DictReader(f)]
            return json.dumps([r for r in rows if min_price <= r["price"] <= max_price], ensure_ascii=False)
        """, "check.04.price_tool.6"),
}


@pytest.mark.parametrize("name", WRONG_PRICE)
def test_price_checker_rejects(name, capsys):
    body, key = WRONG_PRICE[name]
    result = nb04.check_price_tool(_price_function(body), _price_tool())
    out = capsys.readouterr().out
    assert result.passed is False, out
    assert "❌" in out and "Traceback" not in out
    if key:
        assert result.hint == key, out


ODD_RETURNS = {
    "none": lambda low, high: None,
    "number": lambda low, high: 3,
    "generator": lambda low, high: (x for x in "[]"),
    "bad_repr": lambda low, high: type("Odd", (), {"__repr__": lambda self: 1 / 0})(),
    "list_of_numbers": lambda low, high: "[1, 2]",
    "dict": lambda low, high: '{"product_id": "P1"}',
    "raises": lambda low, high: 1 / 0,
}


@pytest.mark.parametrize("name", ODD_RETURNS)
def test_price_checker_odd_returns_fail_without_raising(name, capsys):
    result = nb04.check_price_tool(ODD_RETURNS[name], _price_tool())
    out = capsys.readouterr().out
    assert result.passed is False and "❌" in out
    assert result.hint != "check.crashed", out


@pytest.mark.parametrize("flaw", ["integer", "string", "no_description", "required_one", "extra_property",
                                  "wrong_name", "not_a_dict", "empty_description"])
def test_price_schema_flaws(flaw, capsys):
    tool = _price_tool()
    fn = tool["function"]
    props = fn["parameters"]["properties"]
    if flaw == "integer":
        props["min_price"]["type"] = "integer"
    elif flaw == "string":
        props["max_price"]["type"] = "string"
    elif flaw == "no_description":
        del props["max_price"]["description"]
    elif flaw == "required_one":
        fn["parameters"]["required"] = ["min_price"]
    elif flaw == "extra_property":
        props["limit"] = {"type": "integer", "description": "最多几条"}
    elif flaw == "wrong_name":
        fn["name"] = "price_range"
    elif flaw == "not_a_dict":
        tool = [tool]
    elif flaw == "empty_description":
        fn["description"] = "  "
    solution = load_solution("04_sports_equipment", "04-1")["query_by_price_range"]
    result = nb04.check_price_tool(solution, tool)
    assert result.passed is False and result.hint.startswith("check.04.check_price_schema"), capsys.readouterr().out


def test_price_schema_accepts_a_tuple_for_required():
    tool = _price_tool()
    tool["function"]["parameters"]["required"] = ("max_price", "min_price")
    solution = load_solution("04_sports_equipment", "04-1")["query_by_price_range"]
    assert nb04.check_price_tool(solution, tool).passed is True


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


def test_a_module_level_connection_is_given_back_unchanged():
    namespace = cell(RIGHT_PRICE["module_level_connection"])
    original = namespace["connection"]
    assert nb04.check_price_tool(namespace["query_by_price_range"], _price_tool()).passed is True
    assert namespace["connection"] is original
    assert original.execute("SELECT COUNT(*) FROM products").fetchone()[0] > 0  # still open


def test_the_database_is_not_changed_by_the_read_only_probe():
    namespace = cell(WRONG_PRICE["writable_module_level"][0])
    nb04.check_price_tool(namespace["query_by_price_range"], _price_tool())
    connection = connect_readonly(database_path())
    try:
        tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    finally:
        connection.close()
    assert tables == ["products"]


# -- 04-2 -------------------------------------------------------------------------------

RIGHT_RUN = {
    "reference": None,
    "one_try": """
        def run_tool_call(call, functions):
            name = call["function"]["name"]
            if name not in functions:
                return f"错误：没有 {name} 这个工具，可用的工具有 {list(functions)}"
            try:
                args = json.loads(call["function"]["arguments"])
                return str(functions[name](**args))
            except json.JSONDecodeError:
                return "错误：arguments 不是合法的 JSON"
            except Exception as err:
                return f"错误：{type(err).__name__}: {err}"
        """,
    "get_and_broad_except": """
        def run_tool_call(call, functions):
            function = functions.get(call["function"]["name"])
            if function is None:
                return "错误：未知的工具。可用：" + "、".join(functions.keys())
            try:
                arguments = json.loads(call["function"]["arguments"])
            except ValueError as e:
                return f"错误：JSON 解析失败 {e}"
            try:
                return function(**arguments)
            except Exception as e:
                return f"错误：调用失败：{e}"
        """,
}

WRONG_RUN = {
    "tool_names_glued": ("""
        def run_tool_call(call, functions):
            name = call["function"]["name"]
            if name not in functions:
                return f"错误：没有工具 {name}。可用的工具：{''.join(functions)}"
            try:
                return str(functions[name](**json.loads(call["function"]["arguments"])))
            except Exception as err:
                return f"错误：{err}"
        """, "check.04.run_tool_call.8"),
    "tool_names_with_a_letter": ("""
        def run_tool_call(call, functions):
            name = call["function"]["name"]
            if name not in functions:
                return f"错误：没有工具 {name}。可用的工具：{'X, '.join(functions)}"
            try:
                return str(functions[name](**json.loads(call["function"]["arguments"])))
            except Exception as err:
                return f"错误：{err}"
        """, "check.04.run_tool_call.8"),
    "untouched": ("""
        def run_tool_call(call, functions):
            name = call["function"]["name"]
            args = json.loads(call["function"]["arguments"])
            return str(functions[name](**args))
        """, None),
    "no_tool_list": ("""
        def run_tool_call(call, functions):
            name = call["function"]["name"]
            if name not in functions:
                return "错误：没有这个工具"
            try:
                return str(functions[name](**json.loads(call["function"]["arguments"])))
            except Exception as err:
                return f"错误：{err}"
        """, "check.04.run_tool_call.6"),
    "eval_instead_of_json": ("""
        def run_tool_call(call, functions):
            name = call["function"]["name"]
            if name not in functions:
                return f"错误：没有工具 {name}。可用的工具：{', '.join(functions)}"
            try:
                return str(functions[name](**eval(call["function"]["arguments"])))
            except Exception as err:
                return f"错误：{err}"
        """, "check.04.run_tool_call.3"),
    "only_type_error": ("""
        def run_tool_call(call, functions):
            name = call["function"]["name"]
            if name not in functions:
                return f"错误：没有工具 {name}。可用的工具：{', '.join(functions)}"
            try:
                args = json.loads(call["function"]["arguments"])
            except json.JSONDecodeError:
                return "错误：JSON 不合法"
            try:
                return str(functions[name](**args))
            except TypeError as err:
                return f"错误：{err}"
        """, "check.04.run_tool_call.4"),
    "ignores_functions": ("""
        from course_lib.tools import query_by_product_name

        def run_tool_call(call, functions):
            name = call["function"]["name"]
            if name not in functions:
                return f"错误：没有工具 {name}。可用的工具：{', '.join(functions)}"
            try:
                return str(query_by_product_name(**json.loads(call["function"]["arguments"])))
            except Exception as err:
                return f"错误：{err}"
        """, "check.04.run_tool_call.3"),
    "error_in_english": ("""
        def run_tool_call(call, functions):
            name = call["function"]["name"]
            if name not in functions:
                return f"Error: unknown tool {name}; available: {', '.join(functions)}"
            try:
                return str(functions[name](**json.loads(call["function"]["arguments"])))
            except Exception as err:
                return f"Error: {err}"
        """, "check.04.run_tool_call.5"),
    "raises_on_unknown_tool": ("""
        def run_tool_call(call, functions):
            name = call["function"]["name"]
            try:
                args = json.loads(call["function"]["arguments"])
            except json.JSONDecodeError:
                return "错误：JSON 不合法"
            try:
                return str(functions[name](**args))
            except TypeError as err:
                return f"错误：{err}"
        """, "check.04.run_tool_call.4"),
    "drops_arguments": ("""
        def run_tool_call(call, functions):
            name = call["function"]["name"]
            if name not in functions:
                return f"错误：没有工具 {name}。可用的工具：{', '.join(functions)}"
            try:
                args = json.loads(call["function"]["arguments"])
                first = next(iter(args.values()))
                return str(functions[name](first))
            except Exception as err:
                return f"错误：{err}"
        """, "check.04.run_tool_call.3"),
    "returns_the_call": ("""
        def run_tool_call(call, functions):
            return call["function"]["arguments"]
        """, None),
}


def _run_function(body):
    if body is None:
        return load_solution("04_sports_equipment", "04-2")["run_tool_call"]
    return cell(body)["run_tool_call"]


@pytest.mark.parametrize("name", RIGHT_RUN)
def test_run_tool_call_checker_accepts(name, capsys):
    started = time.perf_counter()
    result = nb04.check_run_tool_call(_run_function(RIGHT_RUN[name]))
    assert result.passed is True, capsys.readouterr().out
    assert time.perf_counter() - started < 3


@pytest.mark.parametrize("name", WRONG_RUN)
def test_run_tool_call_checker_rejects(name, capsys):
    body, key = WRONG_RUN[name]
    result = nb04.check_run_tool_call(_run_function(body))
    out = capsys.readouterr().out
    assert result.passed is False and "❌" in out, out
    if key:
        assert result.hint == key, out


@pytest.mark.parametrize("odd", [lambda c, f: None, lambda c, f: 3, lambda c, f: (x for x in "错误"),
                                 lambda c, f: type("Odd", (), {"__repr__": lambda self: 1 / 0})(),
                                 lambda c, f: c["nope"]])
def test_run_tool_call_checker_odd_returns(odd, capsys):
    result = nb04.check_run_tool_call(odd)
    out = capsys.readouterr().out
    assert result.passed is False and "❌" in out and result.hint != "check.crashed", out


def test_reference_run_tool_call_answers_a_good_call():
    solution = _run_function(None)
    assert query_by_product_name("篮球") in solution(
        {"id": "x", "type": "function", "function": {"name": "query_by_product_name", "arguments": '{"product_name": "篮球"}'}},
        {"query_by_product_name": query_by_product_name},
    )


def test_values_are_checked_not_only_the_column_names():
    """Issue 54: four names zipped onto a five-column SELECT keep every key and put the brand under price."""
    code = '''
import json
from course_lib.tools.products import connect_readonly, database_path

def query_by_price_range(min_price, max_price):
    if min_price > max_price:
        return "[]"
    connection = connect_readonly(database_path())
    rows = connection.execute("SELECT product_id, product_name, brand, price, stock_quantity FROM products "
                              "WHERE price BETWEEN ? AND ?", (min_price, max_price)).fetchall()
    connection.close()
    names = ["product_id", "product_name", "price", "stock_quantity"]
    return json.dumps([dict(zip(names, row)) for row in rows], ensure_ascii=False)
'''
    namespace: dict = {}
    exec(code, namespace)
    result = nb04.check_price_tool(namespace["query_by_price_range"], _price_tool())
    assert result.passed is False and result.hint == "check.04.price_tool.value", result.message


def test_04_2_catching_one_exception_type_is_not_enough():
    """Issue 54: the only failing tool raised ValueError, so `except ValueError` passed."""
    code = '''
import json

def run_tool_call(call, functions):
    name = call["function"]["name"]
    if name not in functions:
        return "错误：没有工具 " + name + "。可用的工具：" + ", ".join(functions)
    try:
        args = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError:
        return "错误：参数不是合法的 JSON"
    if not isinstance(args, dict):
        return "错误：参数必须是 JSON 对象"
    try:
        return str(functions[name](**args))
    except TypeError as err:
        return f"错误：参数不对：{err}"
    except ValueError as err:
        return f"错误：{name} 出错：{err}"
'''
    namespace: dict = {}
    exec(code, namespace)
    result = nb04.check_run_tool_call(namespace["run_tool_call"])
    assert result.passed is False and "stock_of" in result.message + str(result), result.message


def test_04_2_the_callers_call_is_not_changed():
    """The call is the assistant message's: writing the parsed arguments back into it breaks the next request."""
    code = '''
import json

def run_tool_call(call, functions):
    name = call["function"]["name"]
    if name not in functions:
        return "错误：没有工具 " + name + "。可用的工具：" + ", ".join(functions)
    try:
        call["function"]["arguments"] = json.loads(call["function"]["arguments"] or "{}")
    except json.JSONDecodeError:
        return "错误：参数不是合法的 JSON"
    if not isinstance(call["function"]["arguments"], dict):
        return "错误：参数必须是 JSON 对象"
    try:
        return str(functions[name](**call["function"]["arguments"]))
    except TypeError as err:
        return f"错误：参数不对：{err}"
    except Exception as err:
        return f"错误：{name} 出错：{err}"
'''
    namespace: dict = {}
    exec(code, namespace)
    result = nb04.check_run_tool_call(namespace["run_tool_call"])
    assert result.passed is False and result.hint == "check.04.run_tool_call.changed", result.message
