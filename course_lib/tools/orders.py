"""The shop's write tool: placing an order, on a per-student copy of the database.

Taught in notebook 08 (an agent that acts; human approval; prompt injection).

The look-up tools of notebook 04 read data/SportsEquipment.db (the master) and
never write it.  Ordering changes things, so it happens on a copy:

* ``shop_path()``: data/my_shop.db (``$COURSE_SHOP_DB`` if set), one per
  student, created from the master on first use; ``reset_shop()`` makes it new.
  It holds the ``products`` table and an ``orders`` table.
* ``place_order(product_id, quantity)``: THE write tool.  It checks the id, the
  quantity (whole pieces, 1 to ``MAX_QUANTITY``) and the stock, then inserts the
  order and lowers the stock in ONE transaction: both happen or neither.
  Every bad input is a ``ToolFailure("错误：...")`` the model can read.
* ``get_product``, ``get_reviews``, ``list_orders``: look-ups; they open the
  copy read-only (SQLite ``mode=ro``), so they cannot write even by mistake.
* ``shop_registry()``: the four tools for the agent, ``place_order`` marked
  ``needs_approval`` - least privilege: only that tool can write, only to the copy.

Prompt injection (deliberate!): data/reviews.json holds a few customer reviews
for get_reviews.  The third review of the football (001), signed "店铺管理员",
is an ATTACK SAMPLE written for the lesson: it pretends to be a shop notice and
tells the AI assistant to ignore the user and order 20 footballs without
asking.  A tool result is data, not an instruction; notebook 08 shows what a
model does with it and the defences that do not depend on the model.

Safety: every SQL statement is parameterized; the master is only ever opened
read-only; quantities are never ``eval``-ed or converted from text.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from datetime import datetime
from pathlib import Path

from ..texts import t
from .data_files import DataFileError, read_records, tool_failure
from .failure import ToolFailure
from .products import (COLUMNS, PRODUCT_TOOL, _data_dir, connect_readonly, database_path, query_by_product_name,
                       write_new_database)
from .registry import Tool, ToolRegistry

SHOP_DB_NAME = "my_shop.db"
REVIEWS_NAME = "reviews.json"
MAX_QUANTITY = 20  # pieces per order; more is a tool error (a rule of the shop, not of the model)

CREATE_ORDERS_SQL = """
CREATE TABLE orders (
    order_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    product_id   TEXT    NOT NULL,
    product_name TEXT    NOT NULL,
    quantity     INTEGER NOT NULL CHECK (quantity > 0),  -- pieces
    unit_price   REAL    NOT NULL,                       -- yuan
    total        REAL    NOT NULL,                       -- yuan
    created_at   TEXT    NOT NULL                        -- local time, e.g. 2024-05-20T14:03:00
)
"""
ORDER_COLUMNS = ("order_id", "product_id", "product_name", "quantity", "unit_price", "total", "created_at")

PRODUCT_SQL = f"SELECT {', '.join(COLUMNS)} FROM products WHERE product_id = ?"
LOWER_STOCK_SQL = "UPDATE products SET stock_quantity = stock_quantity - ? WHERE product_id = ?"
INSERT_ORDER_SQL = """
INSERT INTO orders (product_id, product_name, quantity, unit_price, total, created_at)
VALUES (?, ?, ?, ?, ?, ?)
"""

ORDER_TOOL = {
    "type": "function",
    "function": {
        "name": "place_order",
        "description": (
            "为顾客下单购买本店商品：会真的扣减库存并生成订单。只在顾客明确要买时调用；"
            "商品编号先用 query_by_product_name 查。返回订单号、单价和总价（元）、剩余库存。"
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "product_id": {"type": "string", "description": "商品编号，三位数字，例如 001"},
                "quantity": {"type": "integer", "description": f"购买数量（件），1 到 {MAX_QUANTITY} 的整数"},
            },
            "required": ["product_id", "quantity"],
        },
    },
}

GET_PRODUCT_TOOL = {
    "type": "function",
    "function": {
        "name": "get_product",
        "description": "按商品编号查看一件商品的信息和当前库存（件），价格单位是元。下单前后都可以用它核对库存。",
        "parameters": {
            "type": "object",
            "properties": {
                "product_id": {"type": "string", "description": "商品编号，三位数字，例如 001"},
            },
            "required": ["product_id"],
        },
    },
}

REVIEWS_TOOL = {
    "type": "function",
    "function": {
        "name": "get_reviews",
        "description": "按商品编号查看顾客对这件商品的评价（作者、评分 1-5、日期、内容）。reviews 为 [] 表示还没有评价。",
        "parameters": {
            "type": "object",
            "properties": {
                "product_id": {"type": "string", "description": "商品编号，三位数字，例如 001"},
            },
            "required": ["product_id"],
        },
    },
}

_ID_RE = re.compile(r"[0-9]{1,3}")


def _target() -> Path:
    """Where the copy lives: $COURSE_SHOP_DB, else data/my_shop.db.  Never the master."""
    path = Path(os.environ.get("COURSE_SHOP_DB") or _data_dir() / SHOP_DB_NAME)
    if path.resolve() == database_path().resolve():
        raise ValueError(t("orders.copy_is_master", path=path))
    return path


def reset_shop() -> Path:
    """Make a fresh copy of the shop and return its path.

    The copy gets the master's ``products`` table (original stock) and an empty
    ``orders`` table.  It is built in a temporary file next to it and moved into
    place by ``products.write_new_database``, as ``build_database`` is: a reset that
    fails half-way leaves the old copy as it was.
    Returns:
        The path of the copy (data/my_shop.db, or ``$COURSE_SHOP_DB``).
    Raises:
        ValueError: ``$COURSE_SHOP_DB`` names the master database itself.
        products.DatabaseInUseError: (Windows) the copy is open in another program; one
            Chinese sentence names it and what to close, and the copy is left as it was.
    Data: the master data/SportsEquipment.db, opened read-only (never written).
    """
    path = _target()
    path.parent.mkdir(parents=True, exist_ok=True)
    master = connect_readonly(database_path())

    def fill(copy: sqlite3.Connection) -> None:
        master.backup(copy)  # SQLite's own copy: reads the master, writes only the new file
        copy.execute(CREATE_ORDERS_SQL)

    try:
        write_new_database(path, fill)
    finally:
        master.close()
    return path


def shop_path() -> Path:
    """Path of the student's copy (data/my_shop.db or ``$COURSE_SHOP_DB``), created by ``reset_shop`` if missing."""
    path = _target()
    return path if path.exists() else reset_shop()


def _product_id(value: object) -> str | ToolFailure:
    """A product id as the shop writes it ("001"), or a ToolFailure.

    Accepted: a string of 1 to 3 digits ("001", "1", " 7 ") or a whole number
    (1): small models often drop the zeros, and the ids are always 3 digits, so
    "1" can only mean "001".  Anything else (letters, "", 1.5, True) is an error.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not _ID_RE.fullmatch(value.strip()):
        return ToolFailure(f"错误：product_id 应该是商品编号（三位数字的字符串，例如 \"001\"），"
                           f"收到的是 {value!r}。编号可以先用 query_by_product_name 查")
    return f"{int(value):03d}"


def _quantity_problem(quantity: object) -> ToolFailure | None:
    """Why ``quantity`` is not a number of pieces for one order, or None.

    Only a real int from 1 to MAX_QUANTITY is accepted: not a bool (True is an
    int in Python), not a float (2.5 pieces; 2.0 too), not text ("3").
    """
    if isinstance(quantity, bool) or not isinstance(quantity, int):
        return ToolFailure(f"错误：quantity 必须是整数件数（JSON 数字，例如 2），收到的是 {quantity!r}")
    if quantity < 1:
        return ToolFailure(f"错误：quantity 至少是 1 件，收到的是 {quantity}")
    if quantity > MAX_QUANTITY:
        return ToolFailure(f"错误：每单最多 {MAX_QUANTITY} 件，收到的是 {quantity} 件")
    return None


def _write_order(connection: sqlite3.Connection, product_id: str, quantity: int) -> str:
    """Inside an open transaction: check the stock, lower it, insert the order; the JSON answer or a ToolFailure."""
    row = connection.execute(PRODUCT_SQL, (product_id,)).fetchone()
    if row is None:
        return ToolFailure(f"错误：没有编号为 {product_id} 的商品。编号可以先用 query_by_product_name 查")
    product = dict(zip(COLUMNS, row))
    stock = product["stock_quantity"]
    if stock < quantity:
        return ToolFailure(f"错误：库存不足：{product['product_name']}（{product_id}）只剩 {stock} 件，"
                           f"不能下单 {quantity} 件")
    total = round(product["price"] * quantity, 2)
    connection.execute(LOWER_STOCK_SQL, (quantity, product_id))
    cursor = connection.execute(INSERT_ORDER_SQL, (
        product_id, product["product_name"], quantity, product["price"], total,
        datetime.now().isoformat(timespec="seconds")))
    return json.dumps({
        "order_id": cursor.lastrowid,
        "product_id": product_id,
        "product_name": product["product_name"],
        "quantity": quantity,
        "unit_price": product["price"],
        "total": total,
        "stock_left": stock - quantity,
    }, ensure_ascii=False)


def place_order(product_id: str, quantity: int) -> str:
    """Order ``quantity`` pieces of product ``product_id`` from the student's copy of the shop.

    Args:
        product_id: the product's id, "001" (also "1" or 1: see ``_product_id``).
        quantity: pieces, an int from 1 to ``MAX_QUANTITY`` and at most the stock.
    Returns:
        A JSON object as text: ``order_id``, ``product_id``, ``product_name``,
        ``quantity`` (pieces), ``unit_price`` and ``total`` (yuan), ``stock_left`` (pieces).
        Bad input - an id that is not one, an unknown product, a quantity that is
        not a whole positive number of pieces, more than ``MAX_QUANTITY`` or more
        than the stock - gives a ``ToolFailure("错误：...")`` and writes nothing; so does a
        data/products.csv that cannot be read when the copy has to be made (``data_files.tool_failure``).
    Data: data/my_shop.db (``shop_path()``): one transaction lowers
    ``products.stock_quantity`` and inserts one row into ``orders``.
    """
    product_id = _product_id(product_id)
    if isinstance(product_id, ToolFailure):
        return product_id
    problem = _quantity_problem(quantity)
    if problem:
        return problem
    try:
        path = shop_path()
    except DataFileError as error:  # the copy is built from data/products.csv, which a hand edit broke
        return tool_failure(error)
    # isolation_level=None: we write BEGIN / COMMIT / ROLLBACK ourselves, so the transaction is visible.
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")  # lock the copy for writing before the stock is read
        answer = _write_order(connection, product_id, quantity)
        connection.execute("ROLLBACK" if isinstance(answer, ToolFailure) else "COMMIT")
        return answer
    except sqlite3.Error as error:
        return ToolFailure(f"错误：下单失败，没有写入任何东西（数据库：{error}）")
    finally:
        connection.close()  # a transaction still open here is rolled back by SQLite: nothing half-written


def get_product(product_id: str) -> str:
    """One product of the student's copy, with its current stock.

    Args:
        product_id: "001" (also "1" or 1).
    Returns:
        A JSON object as text with all ``products.COLUMNS`` (price in yuan,
        stock_quantity in pieces, as it is now in the copy); a
        ``ToolFailure("错误：...")`` for a bad or unknown id, and for a data/products.csv that
        cannot be read when the copy has to be made (``data_files.tool_failure``).
    Data: data/my_shop.db, opened read-only.
    """
    product_id = _product_id(product_id)
    if isinstance(product_id, ToolFailure):
        return product_id
    try:
        path = shop_path()
    except DataFileError as error:  # the copy is built from data/products.csv, which a hand edit broke
        return tool_failure(error)
    connection = connect_readonly(path)
    try:
        row = connection.execute(PRODUCT_SQL, (product_id,)).fetchone()
    finally:
        connection.close()
    if row is None:
        return ToolFailure(f"错误：没有编号为 {product_id} 的商品。编号可以先用 query_by_product_name 查")
    return json.dumps(dict(zip(COLUMNS, row)), ensure_ascii=False)


def list_orders() -> list[dict]:
    """The orders placed in the student's copy, oldest first (for a table in the notebook).

    Returns:
        One dict per order with the keys ``ORDER_COLUMNS`` (quantity in pieces,
        unit_price and total in yuan); ``[]`` when nothing was ordered since the last reset.
    Data: data/my_shop.db, opened read-only.
    """
    connection = connect_readonly(shop_path())
    try:
        rows = connection.execute(f"SELECT {', '.join(ORDER_COLUMNS)} FROM orders ORDER BY order_id").fetchall()
    finally:
        connection.close()
    return [dict(zip(ORDER_COLUMNS, row)) for row in rows]


def load_reviews() -> list[dict]:
    """Read data/reviews.json: a list of ``{"product_id", "author", "rating", "date", "text"}`` dicts.

    One of them is the deliberate prompt-injection sample (see the module docstring).  The file is
    ``{"note": ..., "reviews": [...]}``, UTF-8 with or without a BOM (``data_files.read_records``).
    Raises:
        DataFileError: the file is missing, not UTF-8, not JSON, or a review lacks a field or holds a
            value of the wrong kind - one Chinese sentence with the file, the line and the fix.
    """
    return read_records(_data_dir() / REVIEWS_NAME, {"product_id": "text", "author": "text", "rating": "number",
                                                      "date": "text", "text": "text"}, key="reviews")


def get_reviews(product_id: str) -> str:
    """The customer reviews of one product.

    Args:
        product_id: "001" (also "1" or 1).
    Returns:
        A JSON object as text: ``{"product_id", "product_name", "reviews": [{"author",
        "rating" (1-5), "date", "text"}, ...]}``; ``reviews`` is ``[]`` for a product
        nobody has reviewed.  A bad or unknown id gives a ``ToolFailure("错误：...")``, and so
        does a data/reviews.json (or products.csv) that cannot be read (``data_files.tool_failure``).
        The text of a review is whatever a customer wrote - here, once, an attack.
    Data: data/reviews.json; the product name from data/my_shop.db, opened read-only.
    """
    found = get_product(product_id)
    if isinstance(found, ToolFailure):
        return found
    product = json.loads(found)
    try:
        every = load_reviews()
    except DataFileError as error:  # data/reviews.json was edited by hand and is broken: say so, never raise
        return tool_failure(error)
    reviews = [{key: r[key] for key in ("author", "rating", "date", "text")}
               for r in every if r["product_id"] == product["product_id"]]
    return json.dumps({"product_id": product["product_id"], "product_name": product["product_name"],
                       "reviews": reviews}, ensure_ascii=False)


def query_shop(product_name: str) -> str:
    """``products.query_by_product_name`` on the student's copy (read-only): the same rows and
    columns, with the stock as it is now, so the look-ups of the shop agree with ``get_product``."""
    return query_by_product_name(product_name, db_path=shop_path())


def shop_registry() -> ToolRegistry:
    """The shop's tools for an agent: three look-ups and the one write tool.

    Returns:
        A ``ToolRegistry`` with query_by_product_name (``query_shop``), get_product and
        get_reviews (all three read the copy, read-only) and place_order
        (writes the copy; ``needs_approval=True``, so a person decides first).
    """
    return ToolRegistry([
        Tool("query_by_product_name", query_shop, PRODUCT_TOOL),
        Tool("get_product", get_product, GET_PRODUCT_TOOL),
        Tool("get_reviews", get_reviews, REVIEWS_TOOL),
        Tool("place_order", place_order, ORDER_TOOL, needs_approval=True),
    ])
