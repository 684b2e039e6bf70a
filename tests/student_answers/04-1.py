# Exercise 04-1: answers written from the task text alone (notebooks/04_sports_equipment.ipynb), without reading the checker.
# %% wrong: the prices are put into the SQL text with an f-string instead of being passed as ? parameters
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return "[]"
    connection = connect_readonly(database_path())
    connection.row_factory = sqlite3.Row
    try:
        sql = f"SELECT * FROM products WHERE price BETWEEN {min_price} AND {max_price} ORDER BY price"
        rows = [dict(row) for row in connection.execute(sql).fetchall()]
    finally:
        connection.close()
    return json.dumps(rows, ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询本店的商品，两端都包含。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: strict comparisons (> and <) leave out products whose price equals min_price or max_price; both ends must be included
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return "[]"
    connection = connect_readonly(database_path())
    connection.row_factory = sqlite3.Row
    try:
        rows = connection.execute(
            "SELECT * FROM products WHERE price > ? AND price < ? ORDER BY price",
            (min_price, max_price),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(r) for r in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询本店的商品。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: opens the database with plain sqlite3.connect (read-write) instead of connect_readonly
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return "[]"
    connection = sqlite3.connect(database_path())
    connection.row_factory = sqlite3.Row
    try:
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY price",
            (min_price, max_price),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(r) for r in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询本店的商品，两端都包含。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: no row_factory, so json.dumps writes each row as a bare list and the column names are lost
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return "[]"
    connection = connect_readonly(database_path())
    try:
        rows = connection.execute(
            "SELECT product_id, product_name, price FROM products WHERE price BETWEEN ? AND ?",
            (min_price, max_price),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps(rows, ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询本店的商品，两端都包含。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: json.dumps without ensure_ascii=False, so the Chinese product names come back as \uXXXX escapes
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return "[]"
    connection = connect_readonly(database_path())
    connection.row_factory = sqlite3.Row
    try:
        rows = connection.execute(
            "SELECT * FROM products WHERE price >= ? AND price <= ? ORDER BY price",
            (min_price, max_price),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(r) for r in rows])


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询本店的商品，两端都包含。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: when min_price > max_price the two are swapped and products are returned, instead of "[]" or an 错误 message
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    low, high = sorted((min_price, max_price))  # 模型把两个数写反了也没关系
    connection = connect_readonly(database_path())
    connection.row_factory = sqlite3.Row
    try:
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY price",
            (low, high),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(r) for r in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询本店的商品，两端都包含。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: min_price > max_price raises ValueError instead of returning "[]" or an 错误 message
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        raise ValueError("min_price 不能大于 max_price")
    connection = connect_readonly(database_path())
    connection.row_factory = sqlite3.Row
    try:
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY price",
            (min_price, max_price),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(r) for r in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询本店的商品，两端都包含。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: the query keeps only product_name and price, so product_id (a required key) is missing from every object
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return "[]"
    connection = connect_readonly(database_path())
    connection.row_factory = sqlite3.Row
    try:
        rows = connection.execute(
            "SELECT product_name, price FROM products WHERE price BETWEEN ? AND ? ORDER BY price",
            (min_price, max_price),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(r) for r in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询本店的商品，两端都包含。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: the function is right but PRICE_TOOL declares the parameters as "integer", not "number", and max_price has no description
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return "[]"
    connection = connect_readonly(database_path())
    connection.row_factory = sqlite3.Row
    try:
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY price",
            (min_price, max_price),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(r) for r in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询本店的商品，两端都包含。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "integer", "description": "最低价格（元）"},
                "max_price": {"type": "integer"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: the function is right but PRICE_TOOL lists only min_price as required (max_price left optional)
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return "[]"
    connection = connect_readonly(database_path())
    connection.row_factory = sqlite3.Row
    try:
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY price",
            (min_price, max_price),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(r) for r in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询本店的商品，两端都包含。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元），不填表示不限"},
            },
            "required": ["min_price"],
        },
    },
}
# %% right: parameterized BETWEEN with sqlite3.Row rows turned into dicts; min > max answered with "[]"
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return "[]"
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY price, product_id",
            (min_price, max_price),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间查询本店（体育用品店）的商品，价格单位是元，两端都包含。返回 [] 表示这个区间里没有商品。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元），包含这个价格"},
                "max_price": {"type": "number", "description": "最高价格（元），包含这个价格"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% right: read every row (no user value in the SQL at all), build dicts from cursor.description and filter in Python; min > max gives an 错误 sentence
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return f"错误：min_price（{min_price}）不能大于 max_price（{max_price}）"
    connection = connect_readonly(database_path())
    try:
        cursor = connection.execute("SELECT * FROM products ORDER BY product_id")
        columns = [d[0] for d in cursor.description]
        all_rows = cursor.fetchall()
    finally:
        connection.close()
    products = []
    for values in all_rows:
        item = dict(zip(columns, values))
        if min_price <= item["price"] <= max_price:
            products.append(item)
    return json.dumps(products, ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "找出价格（元）在 min_price 和 max_price 之间的商品（包括两端），返回 JSON 列表。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "价格下限，单位元"},
                "max_price": {"type": "number", "description": "价格上限，单位元"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% right: >= ? AND <= ? with a context-managed closing() connection and an explicit column list; empty range falls out of the query as "[]"
import json
import sqlite3
from contextlib import closing

from course_lib.tools.products import connect_readonly, database_path

COLUMNS = ("product_id", "product_name", "brand", "price", "stock_quantity")


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    sql = (
        "SELECT " + ", ".join(COLUMNS) + " FROM products "
        "WHERE price >= ? AND price <= ? ORDER BY price"
    )
    with closing(connect_readonly(database_path())) as connection:
        rows = connection.execute(sql, [min_price, max_price]).fetchall()
    return json.dumps([dict(zip(COLUMNS, row)) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "查询价格在某个区间（单位：元，包括两端）的商品。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "区间的最低价（元）"},
                "max_price": {"type": "number", "description": "区间的最高价（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: the prices are put into the SQL text with an f-string instead of ? placeholders (not parameterized)
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        sql = f"SELECT * FROM products WHERE price BETWEEN {float(min_price)} AND {float(max_price)} ORDER BY price"
        rows = connection.execute(sql).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询本店商品，两端都包含。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: strict comparisons (price > ? AND price < ?) leave out the products priced exactly at either end
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return "[]"
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT * FROM products WHERE price > ? AND price < ? ORDER BY product_id", (min_price, max_price)
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "查询价格在 min_price 和 max_price 之间的商品。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "价格下限（元）"},
                "max_price": {"type": "number", "description": "价格上限（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: opens the database with plain sqlite3.connect (read-write) instead of connect_readonly
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    connection = sqlite3.connect(database_path())
    connection.row_factory = sqlite3.Row
    rows = connection.execute(
        "SELECT * FROM products WHERE price >= ? AND price <= ? ORDER BY product_id", (min_price, max_price)
    ).fetchall()
    connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间查找商品（单位：元，包含两端）。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价（元）"},
                "max_price": {"type": "number", "description": "最高价（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: rows are dumped as plain lists (no row_factory), so the column names product_id/product_name/price are lost
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    connection = connect_readonly(database_path())
    try:
        rows = connection.execute(
            "SELECT product_id, product_name, price FROM products WHERE price BETWEEN ? AND ?",
            (min_price, max_price),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps(rows, ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "查询某个价格区间（元）内的商品。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: json.dumps without ensure_ascii=False, so the Chinese product names come back as \uXXXX escapes
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY product_id", (min_price, max_price)
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows])


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "查询价格在某个区间（元，含两端）的商品。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: min_price > max_price raises ValueError instead of returning "[]" or an 错误 sentence
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        raise ValueError("min_price 不能大于 max_price")
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY product_id", (min_price, max_price)
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询商品，包含两端。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: min_price > max_price returns a message that starts with 参数错误 (not with 错误)
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return f"参数错误：min_price（{min_price}）大于 max_price（{max_price}）"
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY product_id", (min_price, max_price)
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询商品，包含两端。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: swaps the bounds when min_price > max_price and returns products, instead of "[]" or an 错误 sentence
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    low, high = min(min_price, max_price), max(min_price, max_price)
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY product_id", (low, high)
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询商品，包含两端；两个价格顺序写反了也没关系。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: PRICE_TOOL types both prices as "integer" although the task asks for number parameters
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY product_id", (min_price, max_price)
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询商品，包含两端。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "integer", "description": "最低价格（元）"},
                "max_price": {"type": "integer", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: PRICE_TOOL lists only min_price as required (max_price must be required too)
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY product_id", (min_price, max_price)
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询商品，包含两端。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元），不填就不设上限"},
            },
            "required": ["min_price"],
        },
    },
}
# %% wrong: a LIMIT 10 copied from the name query cuts the answer short, so a wide range does not return all the products in it
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT * FROM products WHERE price BETWEEN ? AND ? ORDER BY product_id LIMIT ?",
            (min_price, max_price, 10),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询商品，包含两端。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% wrong: the SQL is built with %-formatting ("price >= %s" % ...), which still pastes the prices into the SQL text
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return "[]"
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        sql = "SELECT * FROM products WHERE price >= %s AND price <= %s ORDER BY product_id" % (min_price, max_price)
        rows = connection.execute(sql).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间（元）查询商品，包含两端。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元）"},
                "max_price": {"type": "number", "description": "最高价格（元）"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% right: named placeholders (:low, :high), column names from cursor.description, an 错误 sentence when the range is reversed
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    if min_price > max_price:
        return f"错误：min_price（{min_price}）不能大于 max_price（{max_price}）"
    connection = connect_readonly(database_path())
    try:
        cursor = connection.execute(
            "SELECT product_id, product_name, brand, price, stock_quantity FROM products "
            "WHERE :low <= price AND price <= :high ORDER BY price, product_id",
            {"low": min_price, "high": max_price},
        )
        names = [column[0] for column in cursor.description]
        products = [dict(zip(names, row)) for row in cursor.fetchall()]
    finally:
        connection.close()
    return json.dumps(products, ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "查找本店价格（元）在 min_price 到 max_price 之间（两端都包含）的所有商品，返回商品编号、名称、品牌、价格和库存。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "价格下限，单位元，例如 100"},
                "max_price": {"type": "number", "description": "价格上限，单位元，例如 200；不能小于 min_price"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
# %% right: reads every row on the read-only connection and filters in Python, closing with contextlib.closing
import json
import sqlite3
from contextlib import closing

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    with closing(connect_readonly(database_path())) as connection:
        connection.row_factory = sqlite3.Row
        every_row = connection.execute("SELECT * FROM products ORDER BY product_id").fetchall()
    chosen = [dict(row) for row in every_row if min_price <= row["price"] <= max_price]
    return json.dumps(chosen, ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "Find the shop's products whose price in yuan lies between min_price and max_price, both ends included. Returns a JSON list.",
        "parameters": {
            "type": "object",
            "properties": {
                "max_price": {"type": "number", "description": "Highest price in yuan (included)."},
                "min_price": {"type": "number", "description": "Lowest price in yuan (included)."},
            },
            "required": ["max_price", "min_price"],
        },
    },
}
# %% right: BETWEEN ? AND ? with sqlite3.Row and a try/except that turns a database error into an 错误 sentence
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path

PRICE_SQL = """
SELECT product_id, product_name, description, specifications, usage, brand, price, stock_quantity
FROM products
WHERE price BETWEEN ? AND ?
ORDER BY product_id
"""


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(PRICE_SQL, (min_price, max_price)).fetchall()
    except sqlite3.Error as error:
        return f"错误：数据库查询失败：{error}"
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": "按价格区间查询本店商品：返回价格（元）不低于 min_price、不高于 max_price 的商品列表（JSON）。",
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元），包含这个价格"},
                "max_price": {"type": "number", "description": "最高价格（元），包含这个价格"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}
