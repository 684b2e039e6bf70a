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
