"""Checkers for notebook 04 (the SportsEquipment SQLite tool).

04-1 runs the student's ``query_by_price_range`` on the real database while
watching every ``sqlite3.connect`` it makes: the connection must be read-only
and the numbers must travel as SQL parameters, not be pasted into the SQL text.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..tools.products import connect_readonly, database_path
from . import CheckResult, report, safely


# -- watching sqlite3 ------------------------------------------------------------------


class _RecordingCursor(sqlite3.Cursor):
    def execute(self, sql, parameters=(), /):  # noqa: D102 - same as sqlite3.Cursor.execute
        self.connection._course_log.append((sql, parameters))
        return super().execute(sql, parameters)

    def executemany(self, sql, seq_of_parameters, /):  # noqa: D102
        self.connection._course_log.append((sql, "executemany"))
        return super().executemany(sql, seq_of_parameters)


class _RecordingConnection(sqlite3.Connection):
    def cursor(self, factory=_RecordingCursor):  # noqa: D102 - pandas.read_sql uses this
        return super().cursor(factory)

    def execute(self, sql, parameters=(), /):  # noqa: D102
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql, seq_of_parameters, /):  # noqa: D102
        return self.cursor().executemany(sql, seq_of_parameters)


@dataclass
class _Opened:
    database: str
    read_only: bool
    statements: list = field(default_factory=list)  # (sql, parameters)


@contextlib.contextmanager
def watching_sqlite() -> Iterator[list[_Opened]]:
    """Record every ``sqlite3.connect`` (and what is executed on it) inside the block.

    Yields a list of ``_Opened``: the database string, whether it was opened with the
    SQLite URI ``mode=ro`` (read-only), and the executed ``(sql, parameters)``.
    """
    original = sqlite3.connect
    opened: list[_Opened] = []

    def connect(database, *args, **kwargs):
        kwargs.setdefault("factory", _RecordingConnection)
        connection = original(database, *args, **kwargs)
        read_only = bool(kwargs.get("uri")) and "mode=ro" in str(database)
        entry = _Opened(str(database), read_only)
        if isinstance(connection, _RecordingConnection):
            connection._course_log = entry.statements
        opened.append(entry)
        return connection

    sqlite3.connect = connect
    try:
        yield opened
    finally:
        sqlite3.connect = original


# -- 04-1 ---------------------------------------------------------------------------------


def _expected_ids(low: float, high: float) -> list[str]:
    connection = connect_readonly(database_path())
    try:
        rows = connection.execute(
            "SELECT product_id FROM products WHERE price BETWEEN ? AND ? ORDER BY product_id", (low, high)
        ).fetchall()
    finally:
        connection.close()
    return [r[0] for r in rows]


def _check_price_schema(tool: Any) -> str | None:
    """Return what is wrong with PRICE_TOOL, or None."""
    if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(tool.get("function"), dict):
        return 'PRICE_TOOL 的外层应该是 {"type": "function", "function": {...}}'
    fn = tool["function"]
    if fn.get("name") != "query_by_price_range":
        return f"name 应该是 'query_by_price_range'（和函数同名），现在是 {fn.get('name')!r}"
    if not isinstance(fn.get("description"), str) or len(fn["description"].strip()) < 8:
        return "description 还空着：写清楚它查什么、价格的单位（元）、返回什么"
    params = fn.get("parameters")
    if not isinstance(params, dict) or params.get("type") != "object" or not isinstance(params.get("properties"), dict):
        return 'parameters 应该是 {"type": "object", "properties": {...}, "required": [...]}'
    props = params["properties"]
    if set(props) != {"min_price", "max_price"}:
        return f"properties 应该正好是 min_price 和 max_price，现在是 {sorted(props)}"
    for name in ("min_price", "max_price"):
        spec = props[name]
        if not isinstance(spec, dict) or spec.get("type") not in {"number", "integer"}:
            return f'{name} 是价格，类型应该是 "number"'
        if not isinstance(spec.get("description"), str) or not spec["description"].strip():
            return f"{name} 还缺 description（单位是元，举个例子）"
    required = params.get("required")
    if not isinstance(required, list) or set(required) != {"min_price", "max_price"}:
        return f"两个参数都必填：required 应该是 ['min_price', 'max_price']，现在是 {required!r}"
    return None


def _rows(result: Any, call: str) -> tuple[list | None, str | None]:
    if not isinstance(result, str):
        return None, f"{call} 应该返回一个 JSON 字符串（模型只能读文字），实际返回了 {type(result).__name__}"
    try:
        rows = json.loads(result)
    except json.JSONDecodeError:
        return None, f"{call} 的返回值不是合法的 JSON：{result[:80]!r}"
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return None, f"{call} 应该返回 JSON 列表，每个商品一个对象（保留列名），实际是 {result[:80]!r}"
    return rows, None


def check_price_tool(query_by_price_range: object, PRICE_TOOL: object) -> CheckResult:  # noqa: N803 - the notebook's name
    """Exercise 04-1: a second database tool.

    Checks the schema, then runs the function on data/SportsEquipment.db:
    the right rows for several ranges (inclusive, any order), a JSON list of objects
    with ``product_id``, ``product_name`` and ``price`` and readable Chinese, no
    exception when min > max, a read-only connection, and SQL parameters.
    """
    problem = _check_price_schema(PRICE_TOOL)
    if problem:
        return report(False, problem)
    if not callable(query_by_price_range):
        return report(False, "query_by_price_range 应该是一个函数")
    database_path()  # build the database (if needed) before we start watching connections

    for low, high in [(100, 200), (0, 50), (2000, 5000), (120, 120)]:
        call = f"query_by_price_range({low}, {high})"
        with watching_sqlite() as opened:
            result, error = safely(query_by_price_range, low, high)
        if error:
            return report(False, f"{call} 出错：{error}")
        rows, problem = _rows(result, call)
        if problem:
            return report(False, problem)
        want = _expected_ids(low, high)
        got = sorted(str(r.get("product_id")) for r in rows)
        if got != want:
            return report(False, f"{call} 应该找到 product_id {want}（两端都包含），实际是 {got}")
        if rows and not all({"product_id", "product_name", "price"} <= set(r) for r in rows):
            return report(False, f"{call} 的每个对象都要带上列名 product_id、product_name、price")
        if "\\u" in result:
            return report(False, "中文被转义成了 \\uXXXX：json.dumps(..., ensure_ascii=False)")
        if not opened:
            return report(False, f"{call} 没有打开数据库：用 connect_readonly(database_path())")
        if not all(o.read_only for o in opened):
            return report(False, "数据库要以只读方式打开：用 connect_readonly(database_path())（URI 里的 mode=ro）")

    with watching_sqlite() as opened:
        result, error = safely(query_by_price_range, 123.25, 456.75)
    if error:
        return report(False, f"query_by_price_range(123.25, 456.75) 出错：{error}")
    statements = [(sql, params) for o in opened for sql, params in o.statements if "select" in str(sql).lower()]
    if not statements:
        return report(False, "没有看到 SELECT 语句：请用 connection.execute(sql, 参数) 查询")
    for sql, params in statements:
        if "123.25" in str(sql) or "456.75" in str(sql) or not params:
            return report(
                False,
                "价格被直接拼进了 SQL 文本。请用占位符：... WHERE price BETWEEN ? AND ?，"
                "再把 (min_price, max_price) 作为第二个参数交给 execute",
            )

    result, error = safely(query_by_price_range, 300, 100)
    if error:
        return report(False, f"min_price 大于 max_price 时不应该抛出异常（返回 [] 或一条错误说明）：{error}")
    if not isinstance(result, str) or not (result.strip() == "[]" or result.startswith("错误")):
        return report(False, f"min_price 大于 max_price 时应该返回 \"[]\" 或以「错误」开头的说明，实际是 {result!r}")
    return report(True, "工具定义完整；结果正确、只读、参数化，中文可读")


# -- 04-2 ---------------------------------------------------------------------------------


def _fake_call(name: str, arguments: str, call_id: str = "call_x") -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def check_run_tool_call(run_tool_call: object) -> CheckResult:
    """Exercise 04-2: ``run_tool_call(call, functions)`` never raises and always returns a string:
    the result for a good call, and a message starting with "错误" for an unknown tool name
    (naming the available tools), arguments that are not valid JSON, and arguments the
    function does not accept.  ``call`` is the dict form ``{"id", "type", "function": {"name", "arguments"}}``."""
    if not callable(run_tool_call):
        return report(False, "run_tool_call 应该是一个函数")
    from ..tools import query_by_product_name

    functions = {"query_by_product_name": query_by_product_name}
    good, error = safely(run_tool_call, _fake_call("query_by_product_name", '{"product_name": "篮球"}'), functions)
    if error:
        return report(False, f"一个正常的调用出错了：{error}")
    if good != query_by_product_name("篮球"):
        return report(False, f"正常的调用应该返回工具的结果（字符串）：{query_by_product_name('篮球')[:60]}…，实际是 {good!r}")

    cases = [
        ("模型编了一个不存在的工具名", _fake_call("query_products", '{"product_name": "篮球"}'), "query_by_product_name"),
        ("arguments 不是合法的 JSON", _fake_call("query_by_product_name", '{"product_name": 篮球}'), None),
        ("参数名写错了", _fake_call("query_by_product_name", '{"name": "篮球"}'), None),
    ]
    for what, call, must_mention in cases:
        result, error = safely(run_tool_call, call, functions)
        if error:
            return report(False, f"{what}时 run_tool_call 抛出了异常（{error}）：应该返回一条错误说明，让模型自己改正")
        if not isinstance(result, str) or not result.startswith("错误"):
            return report(False, f"{what}时应该返回以「错误」开头的字符串，实际是 {result!r}")
        if must_mention and must_mention not in result:
            return report(False, f"{what}时，错误说明里要列出可用的工具名（{must_mention}），模型才知道该怎么改")
    return report(True, "正常调用返回结果；工具名不存在、JSON 坏了、参数名错了，都变成了给模型看的错误说明")
