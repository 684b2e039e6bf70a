"""Checkers for notebook 04 (the SportsEquipment SQLite tool).

04-1 runs the student's ``query_by_price_range`` on the real database while
watching every ``sqlite3.connect`` it makes: the connection must be read-only
and the numbers must never be pasted into the SQL text: SQL parameters, or
no WHERE at all and the rows filtered in Python (safe too, only slower).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..tools.products import connect_readonly, database_path
from . import CheckResult, exercise, report, safely, t


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
        return t("check.04.check_price_schema.1")
    fn = tool["function"]
    if fn.get("name") != "query_by_price_range":
        return t("check.04.check_price_schema.2", name=repr(fn.get('name')))
    if not isinstance(fn.get("description"), str) or len(fn["description"].strip()) < 8:
        return t("check.04.check_price_schema.3")
    params = fn.get("parameters")
    if not isinstance(params, dict) or params.get("type") != "object" or not isinstance(params.get("properties"), dict):
        return t("check.04.check_price_schema.4")
    props = params["properties"]
    if set(props) != {"min_price", "max_price"}:
        return t("check.04.check_price_schema.5", sorted_props=sorted(props))
    for name in ("min_price", "max_price"):
        spec = props[name]
        if not isinstance(spec, dict) or spec.get("type") not in {"number", "integer"}:
            return t("check.04.check_price_schema.6", name=name)
        if not isinstance(spec.get("description"), str) or not spec["description"].strip():
            return t("check.04.check_price_schema.7", name=name)
    required = params.get("required")
    if not isinstance(required, list) or set(required) != {"min_price", "max_price"}:
        return t("check.04.check_price_schema.8", required=repr(required))
    return None


def _rows(result: Any, call: str) -> tuple[list | None, str | None]:
    if not isinstance(result, str):
        return None, t("check.04.rows.not_a_string", call=call, name=type(result).__name__)
    try:
        rows = json.loads(result)
    except json.JSONDecodeError:
        return None, t("check.04.rows.bad_json", call=call, result=repr(result[:80]))
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return None, t("check.04.rows.not_a_list", call=call, result=repr(result[:80]))
    return rows, None


@exercise("04-1")
def check_price_tool(query_by_price_range: object, PRICE_TOOL: object) -> CheckResult:  # noqa: N803 - the notebook's name
    """Exercise 04-1: a second database tool.

    Checks the schema, then runs the function on data/SportsEquipment.db:
    the right rows for several ranges (inclusive, any order), a JSON list of objects
    with ``product_id``, ``product_name`` and ``price`` and readable Chinese, no
    exception when min > max, a read-only connection, and prices that never appear in
    the SQL text (parameters, or filtering in Python).
    """
    problem = _check_price_schema(PRICE_TOOL)
    if problem:
        return report(False, problem)
    if not callable(query_by_price_range):
        return report(False, t("check.04.price_tool.1"))
    database_path()  # build the database (if needed) before we start watching connections

    for low, high in [(100, 200), (0, 50), (2000, 5000), (120, 120)]:
        call = f"query_by_price_range({low}, {high})"
        with watching_sqlite() as opened:
            result, error = safely(query_by_price_range, low, high)
        if error:
            return report(False, t("check.04.price_tool.2", call=call, error=error))
        rows, problem = _rows(result, call)
        if problem:
            return report(False, problem)
        want = _expected_ids(low, high)
        got = sorted(str(r.get("product_id")) for r in rows)
        if got != want:
            return report(False, t("check.04.price_tool.3", call=call, want=want, got=got))
        if rows and not all({"product_id", "product_name", "price"} <= set(r) for r in rows):
            return report(False, t("check.04.price_tool.4", call=call))
        if "\\u" in result:
            return report(False, t("check.04.price_tool.5"))
        if not opened:
            return report(False, t("check.04.price_tool.6", call=call))
        if not all(o.read_only for o in opened):
            return report(False, t("check.04.price_tool.7"))

    with watching_sqlite() as opened:
        result, error = safely(query_by_price_range, 123.25, 456.75)
    if error:
        return report(False, t("check.04.price_tool.8", error=error))
    statements = [(sql, params) for o in opened for sql, params in o.statements if "select" in str(sql).lower()]
    if not statements:
        return report(False, t("check.04.price_tool.9"))
    # The prices must never be part of the SQL text; filtering the rows in Python (no WHERE) is safe too.
    for sql, params in statements:
        if "123.25" in str(sql) or "456.75" in str(sql):
            return report(False, t("check.04.price_tool.10"))

    result, error = safely(query_by_price_range, 300, 100)
    if error:
        return report(False, t("check.04.price_tool.11", error=error))
    if not isinstance(result, str) or not (result.strip() == "[]" or result.startswith("错误")):
        return report(False, t("check.04.price_tool.12", result=repr(result)))
    return report(True, t("check.04.price_tool.13"))


# -- 04-2 ---------------------------------------------------------------------------------


def _fake_call(name: str, arguments: str, call_id: str = "call_x") -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


@exercise("04-2")
def check_run_tool_call(run_tool_call: object) -> CheckResult:
    """Exercise 04-2: ``run_tool_call(call, functions)`` never raises and always returns a string:
    the result for a good call, and a message starting with "错误" for an unknown tool name
    (naming the available tools), arguments that are not valid JSON, and arguments the
    function does not accept.  ``call`` is the dict form ``{"id", "type", "function": {"name", "arguments"}}``."""
    if not callable(run_tool_call):
        return report(False, t("check.04.run_tool_call.1"))
    from ..tools import query_by_product_name

    functions = {"query_by_product_name": query_by_product_name}
    good, error = safely(run_tool_call, _fake_call("query_by_product_name", '{"product_name": "篮球"}'), functions)
    if error:
        return report(False, t("check.04.run_tool_call.2", error=error))
    if good != query_by_product_name("篮球"):
        return report(False, t("check.04.run_tool_call.3", query_by_product_name_value=query_by_product_name('篮球')[:60], good=repr(good)))

    cases = [
        (t("check.04.run_tool_call.case_unknown_tool"), _fake_call("query_products", '{"product_name": "篮球"}'), "query_by_product_name"),
        (t("check.04.run_tool_call.case_bad_json"), _fake_call("query_by_product_name", '{"product_name": 篮球}'), None),
        (t("check.04.run_tool_call.case_bad_name"), _fake_call("query_by_product_name", '{"name": "篮球"}'), None),
    ]
    for what, call, must_mention in cases:
        result, error = safely(run_tool_call, call, functions)
        if error:
            return report(False, t("check.04.run_tool_call.4", what=what, error=error))
        if not isinstance(result, str) or not result.startswith("错误"):
            return report(False, t("check.04.run_tool_call.5", what=what, result=repr(result)))
        if must_mention and must_mention not in result:
            return report(False, t("check.04.run_tool_call.6", what=what, must_mention=must_mention))
    return report(True, t("check.04.run_tool_call.7"))
