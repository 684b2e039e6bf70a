"""The SportsEquipment shop: a SQLite products table and a read-only query tool.

Taught in notebook 04.

data/products.csv is the source of truth.  ``build_database()`` turns it into
data/SportsEquipment.db; ``query_by_product_name()`` is the tool the model
calls.  Safety rules (course section 04):

* the query is parameterized (user text never becomes SQL);
* % and _ typed by a user are matched literally, not as LIKE wildcards;
* the tool opens the database read-only;
* an empty product name is an error, not "return the whole table".
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Callable

from ..texts import t
from .data_files import DataFileError, read_csv, tool_failure
from .failure import ToolFailure

DB_NAME = "SportsEquipment.db"
CSV_NAME = "products.csv"

COLUMNS = (
    "product_id",
    "product_name",
    "description",
    "specifications",
    "usage",
    "brand",
    "price",           # yuan (元)
    "stock_quantity",  # pieces in stock
)

CREATE_TABLE_SQL = """
CREATE TABLE products (
    product_id     TEXT PRIMARY KEY,
    product_name   TEXT,
    description    TEXT,
    specifications TEXT,
    usage          TEXT,
    brand          TEXT,
    price          REAL,
    stock_quantity INTEGER
)
"""

QUERY_SQL = f"""
SELECT {", ".join(COLUMNS)}
FROM products
WHERE product_name LIKE ? ESCAPE '\\'
ORDER BY product_id
LIMIT ?
"""

PRODUCT_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_product_name",
        "description": (
            "按商品名关键词查询本店（体育用品店）的商品，返回价格（元）、品牌、库存等。"
            "返回 [] 表示本店不卖。回答商品问题之前都要先查。"
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "product_name": {
                    "type": "string",
                    "description": "商品名里的短关键词，例如 球、跑步鞋",
                },
            },
            "required": ["product_name"],
        },
    },
}


def _data_dir() -> Path:
    """The course data folder: $COURSE_DATA_DIR if set, else <repo>/data."""
    return Path(os.environ.get("COURSE_DATA_DIR") or Path(__file__).resolve().parents[2] / "data")


def read_products_csv(csv_path: str | Path) -> list[tuple]:
    """Read the products CSV with the csv module (``data_files.read_csv``: UTF-8, a BOM allowed).

    Returns:
        One tuple per row in ``COLUMNS`` order; product_id stays text ("001"),
        price becomes float (yuan), stock_quantity int.  Blank rows are skipped.
    Raises:
        DataFileError (a ``ValueError``): the header is not exactly ``COLUMNS``, a row has
            another number of cells, a number is bad, or the file is not UTF-8 - one Chinese
            sentence with the file and the line.
    """
    return read_csv(csv_path, COLUMNS, {"price": float, "stock_quantity": int})


class DatabaseInUseError(PermissionError):
    """A database could not be replaced because another program has it open (Windows); nothing was changed."""


def write_new_database(db_path: Path, fill: Callable[[sqlite3.Connection], None]) -> Path:
    """Write a new SQLite database at ``db_path`` in one step, replacing any old one.

    ``fill(connection)`` writes the tables into a temporary file in the same
    folder; it is committed, closed and moved into place with ``os.replace``
    (atomic on one file system).  If ``fill`` raises, the temporary file is
    deleted and the old database at ``db_path`` is left as it was.
    Used by ``build_database`` and by ``orders.reset_shop``.

    Args:
        db_path: where the database goes (its folder must exist).
        fill: writes the tables through the connection it is given.
    Returns:
        ``db_path``.
    Raises:
        DatabaseInUseError: Windows refused to replace ``db_path`` because another
            program has it open (another kernel's connection, DB Browser for
            SQLite); the sentence names the file and what to close.
        Whatever else ``fill`` or sqlite3 raise (``sqlite3.Error``, ``OSError``).
    """
    fd, tmp_name = tempfile.mkstemp(prefix=db_path.name + ".", suffix=".tmp", dir=db_path.parent)
    os.close(fd)
    try:
        connection = sqlite3.connect(tmp_name)
        try:
            fill(connection)
            connection.commit()
        finally:
            connection.close()
        try:
            os.replace(tmp_name, db_path)
        except PermissionError as exc:  # Windows: the old file is open elsewhere (SQLite shares it without delete)
            raise DatabaseInUseError(t("orders.database_in_use", path=db_path, error=exc)) from exc
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return db_path


def build_database(csv_path: str | Path | None = None, db_path: str | Path | None = None) -> Path:
    """(Re)build the SQLite database from the CSV and return its path.

    Args:
        csv_path: default data/products.csv.
        db_path: default data/SportsEquipment.db.
    Returns:
        The database path.
    The new database is written to a temporary file in the same folder and
    then moved into place with ``os.replace``: rebuilding never duplicates
    rows, and a build that fails half-way leaves the previous database as it was.
    Raises:
        DataFileError: the CSV cannot be read (``read_products_csv``); the old database stays.
    """
    csv_path = Path(csv_path) if csv_path else _data_dir() / CSV_NAME
    db_path = Path(db_path) if db_path else _data_dir() / DB_NAME
    rows = read_products_csv(csv_path)

    def fill(connection: sqlite3.Connection) -> None:
        connection.execute(CREATE_TABLE_SQL)
        placeholders = ", ".join("?" for _ in COLUMNS)
        connection.executemany(f"INSERT INTO products VALUES ({placeholders})", rows)

    write_new_database(db_path, fill)
    return db_path


def database_path() -> Path:
    """Path of data/SportsEquipment.db, (re)built if missing or older than the CSV.

    Raises:
        DataFileError: it had to be built and data/products.csv cannot be read (``read_products_csv``).
    """
    csv_path = _data_dir() / CSV_NAME
    db_path = _data_dir() / DB_NAME
    if not db_path.exists() or db_path.stat().st_mtime < csv_path.stat().st_mtime:
        build_database(csv_path, db_path)
    return db_path


def connect_readonly(db_path: str | Path) -> sqlite3.Connection:
    """Open the database read-only (SQLite URI ``mode=ro``): any write fails."""
    return sqlite3.connect(f"{Path(db_path).resolve().as_uri()}?mode=ro", uri=True)


def escape_like(text: str) -> str:
    r"""Escape \ % _ so that LIKE ... ESCAPE '\' matches them literally."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def query_by_product_name(product_name: str, limit: int = 20, *, db_path: str | Path | None = None) -> str:
    """Find products whose name contains ``product_name``.

    Args:
        product_name: a keyword such as "球" (partial match; % and _ are
            matched literally; surrounding spaces are ignored).
        limit: at most this many rows (default 20).
        db_path: the database to read (default data/SportsEquipment.db); notebook 08's
            shop reads the student's copy, whose stock goes down with every order.
            Not in ``PRODUCT_TOOL``: the model cannot choose it.
    Returns:
        A JSON string: a list of objects with all ``COLUMNS``
        (price in yuan), ordered by product_id; "[]" when nothing matches.
        Bad input (empty or not a string) gives a string starting with "错误：", and so does a
        data/products.csv that cannot be read (``data_files.tool_failure``: the file, the line, the fix).
    Data: data/SportsEquipment.db (built from data/products.csv), opened read-only.
    """
    if not isinstance(product_name, str):
        return ToolFailure("错误：product_name 必须是字符串，例如 \"球\"")
    keyword = product_name.strip()
    if not keyword:
        return ToolFailure("错误：product_name 不能为空，请给出商品名关键词，例如 球")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        return ToolFailure("错误：limit 必须是正整数")

    pattern = "%" + escape_like(keyword) + "%"
    try:
        connection = connect_readonly(db_path or database_path())
    except DataFileError as error:  # data/products.csv was edited and cannot be read: say so, never raise
        return tool_failure(error)
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(QUERY_SQL, (pattern, limit)).fetchall()
    except sqlite3.Error as error:
        return ToolFailure(f"错误：数据库查询失败：{error}")
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)
