"""Checkers for notebook 04 (the SportsEquipment SQLite tool).

04-1 runs the student's ``query_by_price_range`` beside a reference query on the real
database, on the ranges the exercise names and on generated ones (``first_difference``),
while watching every ``sqlite3.connect`` it makes: each connection must be read-only
(a connection the cell opened once, at module level, is checked too), and the SQL text
must not change when the prices change (SQL parameters, or no WHERE at all and the
rows filtered in Python; a price pasted in any format changes the text).

04-2 runs the student's ``run_tool_call`` beside a reference on generated calls to the
checker's own small tools: good calls, unknown names, broken JSON, wrong arguments and
a tool that fails.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import json
import re
import sqlite3
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..tools.products import connect_readonly, database_path
from . import CheckResult, described, exercise, first_difference, report, safely, short_repr, t
from .reference import solution


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



# -- a connection the cell opened once, at module level ------------------------------------


@dataclass
class _Held:
    """A ``sqlite3.Connection`` the student's function reaches through a global or a closure cell.

    ``place`` is the globals dict or the cell, ``name`` the global's name (None for a cell).
    ``stand_in`` is a recording, read-only connection to the same file, put in its place
    while the function runs (so its statements are seen), or None (an in-memory database).
    """

    place: Any
    name: str | None
    original: sqlite3.Connection
    stand_in: _RecordingConnection | None = None
    read_only: bool | None = None  # known once the original was probed (``_truly_read_only``)

    def swap(self, value: Any) -> None:
        """Put ``value`` where the function finds the connection."""
        if self.name is None:
            self.place.cell_contents = value
        else:
            self.place[self.name] = value


def _held_connections(function: Any) -> list[_Held]:
    """The open connections among the function's globals and closure cells (none for a non-function)."""
    found: list[_Held] = []
    space = getattr(function, "__globals__", None)
    if isinstance(space, dict):
        found += [_Held(space, name, value) for name, value in list(space.items())
                  if isinstance(value, sqlite3.Connection)]
    for cell in getattr(function, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(value, sqlite3.Connection):
            found.append(_Held(cell, None, value))
    open_ones = []
    for held in found:
        path = _database_file(held.original)
        if path is None:
            continue
        stand_in = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True, factory=_RecordingConnection)
        stand_in.row_factory = held.original.row_factory
        stand_in.text_factory = held.original.text_factory
        held.stand_in = stand_in
        open_ones.append(held)
    return open_ones


def _database_file(connection: sqlite3.Connection) -> str | None:
    """The file behind an open connection's main database; None when closed, in memory or unreadable."""
    try:
        cursor = sqlite3.Connection.cursor(connection)  # a plain cursor, whatever row_factory it has
        cursor.row_factory = None
        for _, name, path in cursor.execute("PRAGMA database_list").fetchall():
            if name == "main":
                return path or None
    except Exception:  # noqa: BLE001 - closed, or not a database we can read
        return None
    return None


def _truly_read_only(connection: sqlite3.Connection) -> bool:
    """Whether writing through ``connection`` fails (``mode=ro``, or ``PRAGMA query_only``).

    Tries to create a table inside a savepoint that is rolled back: the database is never changed.
    """
    try:
        cursor = sqlite3.Connection.cursor(connection)
        cursor.row_factory = None
        if connection.in_transaction:
            return False  # the student's own transaction is open: we do not touch it
        cursor.execute("SAVEPOINT course_probe")
    except Exception:  # noqa: BLE001
        return False
    try:
        cursor.execute("CREATE TABLE main.course_probe_table (x)")
        read_only = False
    except sqlite3.OperationalError as exc:
        read_only = "readonly" in str(exc).replace(" ", "") or "read-only" in str(exc)
    finally:
        with contextlib.suppress(Exception):
            cursor.execute("ROLLBACK TO course_probe")
            cursor.execute("RELEASE course_probe")
    return read_only


@contextlib.contextmanager
def _using_stand_ins(held: list[_Held]) -> Iterator[list[_Opened]]:
    """While the block runs, each held connection is replaced by its recording stand-in.

    Yields one ``_Opened`` per held connection (its statements recorded; ``read_only`` that of the
    original, probed the first time it is used).  The originals are always put back.
    """
    entries = []
    for h in held:
        entry = _Opened("(模块顶层打开的连接)", True)
        h.stand_in._course_log = entry.statements  # type: ignore[union-attr]
        h.swap(h.stand_in)
        entries.append(entry)
    try:
        yield entries
    finally:
        for h, entry in zip(held, entries):
            h.swap(h.original)
            if entry.statements:
                if h.read_only is None:
                    h.read_only = _truly_read_only(h.original)
                entry.read_only = h.read_only


# -- 04-1 ---------------------------------------------------------------------------------


def _product_prices() -> list[float]:
    """Every price in the products table, sorted (the generated ranges start and end on them)."""
    connection = connect_readonly(database_path())
    try:
        return sorted(r[0] for r in connection.execute("SELECT price FROM products").fetchall())
    finally:
        connection.close()


def _expected_ids(low: float, high: float) -> list[str]:
    """The reference: the product_ids priced from ``low`` to ``high`` (both included), sorted."""
    connection = connect_readonly(database_path())
    try:
        rows = connection.execute(
            "SELECT product_id FROM products WHERE price BETWEEN ? AND ? ORDER BY product_id", (low, high)
        ).fetchall()
    finally:
        connection.close()
    return sorted(str(r[0]) for r in rows)


def _products() -> dict[str, dict[str, Any]]:
    """Every product's row, by ``product_id`` (a str): ``{"001": {"product_name": ..., "price": 120.0, ...}}``."""
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        return {str(row["product_id"]): dict(row) for row in connection.execute("SELECT * FROM products").fetchall()}
    finally:
        connection.close()


def _wrong_value(rows: list[dict]) -> tuple[str, str, Any, Any] | None:
    """The first ``(product_id, column, got, want)`` where a returned row's value is not the database's, or None.

    Values are checked, not only the columns' names: four names zipped onto a five-column SELECT keep
    every key and put the brand under ``price`` (issue 54).  A number equals its float (``120`` and
    ``120.0``); a column the table does not have (a student's own ``"price_yuan"``) is not checked.
    """
    products = _products()
    for row in rows:
        product = products.get(str(row.get("product_id")))
        for column, got in row.items():
            if product is None or column not in product:
                continue
            want = product[column]
            numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (got, want))
            if not (got == want if numbers else str(got) == str(want)):
                return str(row.get("product_id")), column, got, want
    return None


def _check_price_schema(tool: Any) -> str | None:
    """What is wrong with PRICE_TOOL (the first requirement of the exercise it breaks), or None."""
    if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(tool.get("function"), dict):
        return t("check.04.check_price_schema.1")
    fn = tool["function"]
    if fn.get("name") != "query_by_price_range":
        return t("check.04.check_price_schema.2", name=described(fn.get("name")))
    if not isinstance(fn.get("description"), str) or len(fn["description"].strip()) < 8:
        return t("check.04.check_price_schema.3")
    params = fn.get("parameters")
    if not isinstance(params, dict) or params.get("type") != "object" or not isinstance(params.get("properties"), dict):
        return t("check.04.check_price_schema.4")
    props = params["properties"]
    if set(props) != {"min_price", "max_price"}:
        return t("check.04.check_price_schema.5", sorted_props=sorted(map(str, props)))
    for name in ("min_price", "max_price"):
        spec = props[name]
        if not isinstance(spec, dict) or spec.get("type") != "number":
            return t("check.04.check_price_schema.6", name=name)
        if not isinstance(spec.get("description"), str) or not spec["description"].strip():
            return t("check.04.check_price_schema.7", name=name)
    required = params.get("required")
    if not isinstance(required, (list, tuple)) or sorted(map(str, required)) != ["max_price", "min_price"]:
        return t("check.04.check_price_schema.8", required=described(required))
    return None


def _rows(result: Any, call: str) -> tuple[list | None, str | None]:
    """The JSON list of objects in ``result``, or the hint saying what came back instead."""
    if not isinstance(result, str):
        return None, t("check.04.rows.not_a_string", call=call, name=described(result))
    try:
        rows = json.loads(result)
    except (ValueError, RecursionError):
        return None, t("check.04.rows.bad_json", call=call, result=described(result))
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return None, t("check.04.rows.not_a_list", call=call, result=described(result))
    return rows, None


def _is_refusal(result: Any) -> bool:
    """A right answer to min_price > max_price: ``"[]"`` (any spacing) or a text starting with 错误."""
    if not isinstance(result, str):
        return False
    if result.strip().startswith("错误"):
        return True
    try:
        return json.loads(result) == []
    except (ValueError, RecursionError):
        return False


class _PriceRun:
    """Runs the student's function on one range while watching its connections."""

    def __init__(self, function: Any, held: list[_Held]):
        self.function = function
        self.held = held

    def __call__(self, low: float, high: float) -> tuple[Any, str | None, list[_Opened]]:
        """``(result, error, opened)``: what came back, the exception (or None), every connection used."""
        with _using_stand_ins(self.held) as kept, watching_sqlite() as opened:
            result, error = safely(self.function, low, high)
        return result, error, opened + [entry for entry in kept if entry.statements]

    def problem(self, low: float, high: float) -> str | None:
        """The hint for the first requirement broken on ``(low, high)``, or None (the reference's answer)."""
        call = f"query_by_price_range({low!r}, {high!r})"
        result, error, opened = self(low, high)
        if low > high:
            if error:
                return t("check.04.price_tool.11", error=error)
            return None if _is_refusal(result) else t("check.04.price_tool.12", result=described(result))
        if error:
            return t("check.04.price_tool.2", call=call, error=error)
        rows, problem = _rows(result, call)
        if problem:
            return problem
        want = _expected_ids(low, high)
        got = sorted(str(r.get("product_id")) for r in rows)
        if got != want:
            return t("check.04.price_tool.3", call=call, want=want, got=got)
        if not all({"product_id", "product_name", "price"} <= set(r) for r in rows):
            return t("check.04.price_tool.4", call=call)
        wrong = _wrong_value(rows)
        if wrong:
            return t("check.04.price_tool.value", call=call, product_id=wrong[0], column=wrong[1],
                     got=described(wrong[2]), want=described(wrong[3]))
        if "\\u" in result:
            return t("check.04.price_tool.5")
        if not opened:
            return t("check.04.price_tool.6", call=call)
        if not all(o.read_only for o in opened):
            return t("check.04.price_tool.7")
        return None

    def statements(self, low: float, high: float) -> set[str]:
        """The SQL texts of the SELECT statements run for ``(low, high)``."""
        _, _, opened = self(low, high)
        return {str(sql) for o in opened for sql, _ in o.statements if "select" in str(sql).lower()}


def _price_ranges(prices: list[float]) -> Any:
    """A hypothesis strategy of ``(min_price, max_price)``: shop prices, just above or below one, whole numbers
    and cents, in either order."""
    from hypothesis import strategies as st

    top = int(max(prices)) + 100
    near = st.tuples(st.sampled_from(prices), st.sampled_from([-0.5, -0.01, 0.01, 0.5])).map(lambda p: round(sum(p), 2))
    price = st.one_of(st.sampled_from(prices), near, st.integers(0, top),
                      st.floats(0, top, allow_nan=False).map(lambda x: round(x, 2)))
    return st.tuples(price, price)


@exercise("04-1")
def check_price_tool(query_by_price_range: object, PRICE_TOOL: object) -> CheckResult:  # noqa: N803 - the notebook's name
    """Exercise 04-1: a second database tool.

    Checks, in order: the schema (name, description, two ``number`` parameters with descriptions,
    both required); then ``query_by_price_range(min_price, max_price)`` beside a reference query
    on data/SportsEquipment.db, on the ranges the exercise names (both ends included, a
    single price, min > max) and on about 60 generated ones: a JSON string (a list of objects
    with ``product_id``, ``product_name`` and ``price``, rows in any order, Chinese not escaped),
    ``"[]"`` or a text starting with 错误 (never an exception) when min > max, a database opened
    read-only (in the function, or once at module level); and finally that the SELECT text is
    the same for two different ranges (the prices are parameters, never part of the SQL).
    """
    problem = _check_price_schema(PRICE_TOOL)
    if problem:
        return report(False, problem)
    if not callable(query_by_price_range):
        return report(False, t("check.04.price_tool.1"))
    prices = _product_prices()  # also builds the database (if needed) before we start watching connections
    held = _held_connections(query_by_price_range)
    try:
        run = _PriceRun(query_by_price_range, held)
        edges = [(100, 200), (0, 50), (2000, 5000), (120, 120), (prices[0], prices[0]), (prices[-1], prices[-1]),
                 (prices[0] - 0.5, prices[1] - 0.5), (prices[2] + 0.5, prices[5] + 0.5), (300, 100), (prices[-1], prices[0])]
        found = first_difference(run.problem, lambda low, high: None, inputs=_price_ranges(prices),
                                 examples=edges, same=lambda got, want: got is None, max_examples=50)
        if found:
            return report(False, found.got if found.got else t("check.04.price_tool.2", call="query_by_price_range",
                                                                 error=found.error))
        first, second = run.statements(123.25, 456.75), run.statements(87.5, 2345.5)
        if not first and not second:
            return report(False, t("check.04.price_tool.9"))
        # The prices must never be part of the SQL text: then the text does not change with them.
        if first != second:
            return report(False, t("check.04.price_tool.10"))
    finally:
        for h in held:
            if h.stand_in is not None:
                h.stand_in.close()
    return report(True, t("check.04.price_tool.13"))


# -- 04-2 ---------------------------------------------------------------------------------


def price_of(product_name, currency="元"):
    """A checker tool: one product's price line; raises ValueError for a currency it does not know."""
    if currency not in ("元", "美元"):
        raise ValueError(currency)
    return f"{product_name} 的价格：{len(str(product_name)) * 10} {currency}"


SHOPS = {"北京": 3, "上海": 2, "广州": 1}  # stock_of's cities (another city: a KeyError, as a dict lookup gives it)


def stock_of(product_name, city, exact=False):
    """A checker tool: how many pieces of a product a city's shop has (``exact`` a JSON true/false);
    raises KeyError for a city without a shop."""
    count = len(str(product_name)) * SHOPS[city]
    return f"{city} 店的 {product_name}：{count if exact else '有货'}"


def average_price(total, count):
    """A checker tool: ``total / count`` in yuan; raises ZeroDivisionError for ``count`` 0 (and TypeError for text)."""
    return f"平均每件 {total / count:g} 元"


class ShopClosed(Exception):
    """A tool's own exception class (tools raise more than the built-in ones)."""


def open_now(city):
    """A checker tool: raises ShopClosed for 广州 (closed), RuntimeError for a city it has never heard of."""
    if city == "广州":
        raise ShopClosed(city)
    if city not in SHOPS:
        raise RuntimeError(city)
    return f"{city} 店营业中"


def shop_hours():
    """A checker tool without parameters."""
    return "每天 9:00-21:00"


def _tool_functions() -> dict:
    """The ``functions`` the checker hands ``run_tool_call``: three small tools and the shop's real one."""
    from ..tools import query_by_product_name

    return {"query_by_product_name": query_by_product_name, "price_of": price_of, "stock_of": stock_of,
            "shop_hours": shop_hours, "average_price": average_price, "open_now": open_now}


def _call(name: str, arguments: str) -> dict:
    """A tool call in the dict form of the exercise."""
    return {"id": "call_x", "type": "function", "function": {"name": name, "arguments": arguments}}


def _case(call: dict, functions: dict) -> tuple[str, tuple]:
    """Which case of the task ``call`` is, for the hint: the texts key of the case and the names it must list."""
    name, arguments = call["function"]["name"], call["function"]["arguments"]
    if name not in functions:
        return "check.04.run_tool_call.case_unknown_tool", tuple(functions)
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return "check.04.run_tool_call.case_bad_json", ()
    if not isinstance(args, dict):
        return "check.04.run_tool_call.case_not_object", ()
    try:
        inspect.signature(functions[name]).bind(**args)
    except TypeError:
        return "check.04.run_tool_call.case_bad_name", ()
    return "check.04.run_tool_call.case_tool_failed", ()


def _reference_run(call: dict, functions: dict) -> tuple:
    """What ``run_tool_call`` must give: ``("ok", text)`` when the reference solution
    (``solutions/04_sports_equipment.py``) returns the tool's result, ``("error", the case's texts key,
    names it must list)`` when it returns a text starting with 「错误」."""
    got = solution("04-2", "run_tool_call")(call, functions)
    if isinstance(got, str) and got.startswith("错误"):
        return ("error", *_case(call, functions))
    return ("ok", got)


def _named(name: str, text: str) -> bool:
    """``name`` stands in ``text`` as a name of its own: no ASCII letter, digit or _ glued on either side."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def _same_run(got: Any, want: tuple) -> bool:
    if want[0] == "ok":
        return isinstance(got, str) and got == want[1]
    return isinstance(got, str) and got.startswith("错误") and all(_named(n, got) for n in want[2])


def _tool_calls() -> Any:
    """A hypothesis strategy of ``(call, functions)``: good calls, wrong arguments, broken JSON, unknown tools."""
    from hypothesis import strategies as st

    text = st.sampled_from(["篮球", "跑步鞋", "球", "羽毛球拍", "瑜伽垫"])
    city = st.sampled_from(["北京", "上海", "广州", "深圳"])  # 深圳: stock_of raises KeyError, open_now RuntimeError
    good = st.one_of(
        st.tuples(st.just("price_of"), st.fixed_dictionaries(
            {"product_name": text}, optional={"currency": st.sampled_from(["元", "美元", "日元"])})),
        st.tuples(st.just("stock_of"), st.fixed_dictionaries(
            {"product_name": text, "city": city}, optional={"exact": st.booleans()})),
        st.tuples(st.just("shop_hours"), st.just({})),
        st.tuples(st.just("average_price"), st.fixed_dictionaries({"total": st.integers(0, 500),
                                                                   "count": st.integers(0, 3)})),
        st.tuples(st.just("open_now"), st.fixed_dictionaries({"city": city})),
        st.tuples(st.just("query_by_product_name"), st.fixed_dictionaries({"product_name": text})),
    )
    any_args = st.dictionaries(st.sampled_from(["product_name", "name", "city", "currency", "exact"]),
                               st.one_of(text, st.integers(-2, 2), st.none(), st.booleans()), max_size=3)
    wrong = st.tuples(st.sampled_from(list(_tool_functions())), any_args)
    objects = st.one_of(good, wrong).flatmap(lambda pair: st.tuples(
        st.just(pair[0]), st.sampled_from([None, 2]).map(
            lambda indent: json.dumps(pair[1], ensure_ascii=False, indent=indent))))
    broken = st.tuples(st.sampled_from(list(_tool_functions())), st.sampled_from([
        '{"product_name": 篮球}', "{'product_name': '篮球'}", '{"product_name": "篮球"', '{"city": "北京",}',
        "篮球", "[]", '["篮球"]', "3", '"篮球"', "null"]))
    unknown = st.tuples(st.sampled_from(["query_products", "get_weather", "price", "Price_of"]),
                        any_args.map(lambda a: json.dumps(a, ensure_ascii=False)))
    return st.one_of(objects, broken, unknown).map(lambda pair: (_call(*pair), _tool_functions()))


@exercise("04-2")
def check_run_tool_call(run_tool_call: object) -> CheckResult:
    """Exercise 04-2: ``run_tool_call(call, functions)`` never raises and returns a string.

    ``call`` is ``{"id", "type", "function": {"name", "arguments": "<JSON>"}}``, ``functions``
    ``{name: function}``.  Run beside a reference on the cases the exercise names and on about 60
    generated calls to the checker's own tools: a good call returns the tool's result as a string
    (exactly); an unknown tool name, arguments that are not valid JSON (``eval`` does not count),
    arguments that are not a JSON object, arguments the function does not accept, and a tool that
    raises all give a text starting with "错误" (for an unknown name, one that lists every
    available tool, each name standing apart: ``''.join(functions)`` glues them into one word).
    """
    if not callable(run_tool_call):
        return report(False, t("check.04.run_tool_call.1"))
    examples = [
        (_call("query_by_product_name", '{"product_name": "篮球"}'), _tool_functions()),
        (_call("stock_of", '{"product_name": "篮球", "city": "北京", "exact": true}'), _tool_functions()),
        (_call("query_products", '{"product_name": "篮球"}'), _tool_functions()),
        (_call("query_by_product_name", '{"product_name": 篮球}'), _tool_functions()),
        (_call("query_by_product_name", '{"name": "篮球"}'), _tool_functions()),
        (_call("price_of", '{"product_name": "篮球", "currency": "日元"}'), _tool_functions()),
        (_call("price_of", "{'product_name': '篮球'}"), _tool_functions()),
        # a tool fails in more ways than one: every exception type is a text starting with 「错误」
        (_call("stock_of", '{"product_name": "篮球", "city": "深圳"}'), _tool_functions()),
        (_call("average_price", '{"total": 100, "count": 0}'), _tool_functions()),
        (_call("open_now", '{"city": "广州"}'), _tool_functions()),
        (_call("open_now", '{"city": "深圳"}'), _tool_functions()),
    ]
    for call, functions in examples:  # the caller's call is the assistant message's: it is sent again as it is
        given = copy.deepcopy(call)
        safely(run_tool_call, given, functions)
        if given != call:
            return report(False, t("check.04.run_tool_call.changed",
                                   call=f"{call['function']['name']}({call['function']['arguments']})",
                                   before=short_repr(call, 160), after=short_repr(given, 160)))
    found = first_difference(run_tool_call, _reference_run, inputs=_tool_calls(), examples=examples,
                             same=_same_run, max_examples=60)
    if found is None:
        return report(True, t("check.04.run_tool_call.7"))
    call, _ = found.args
    shown = f"{call['function']['name']}({call['function']['arguments']})"
    if found.want[0] == "ok":
        if found.error:
            return report(False, t("check.04.run_tool_call.2", call=shown, error=found.error))
        return report(False, t("check.04.run_tool_call.3", call=shown, want=found.want[1], got=described(found.got)))
    what = t(found.want[1])
    if found.error:
        return report(False, t("check.04.run_tool_call.4", what=what, call=shown, error=found.error))
    if not isinstance(found.got, str) or not found.got.startswith("错误"):
        return report(False, t("check.04.run_tool_call.5", what=what, call=shown, result=described(found.got)))
    if all(n in found.got for n in found.want[2]):  # every name is there, but glued to another word
        return report(False, t("check.04.run_tool_call.8", what=what, result=described(found.got, 160)))
    return report(False, t("check.04.run_tool_call.6", what=what, must_mention="、".join(found.want[2])))
