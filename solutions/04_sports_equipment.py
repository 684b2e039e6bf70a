# notebooks/04_sports_equipment.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 04-1
import json
import sqlite3

from course_lib.tools.products import connect_readonly, database_path


def query_by_price_range(min_price, max_price):
    """价格（元）在 min_price 和 max_price 之间（包括两端）的商品，以 JSON 字符串返回。"""
    for value in (min_price, max_price):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "错误：min_price 和 max_price 必须是数字（单位：元），例如 100"
    if min_price > max_price:
        return "错误：min_price 不能大于 max_price"
    connection = connect_readonly(database_path())
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "SELECT product_id, product_name, brand, price, stock_quantity FROM products "
            "WHERE price BETWEEN ? AND ? ORDER BY price LIMIT 20",
            (min_price, max_price),
        ).fetchall()
    finally:
        connection.close()
    return json.dumps([dict(row) for row in rows], ensure_ascii=False)


PRICE_TOOL = {
    "type": "function",
    "function": {
        "name": "query_by_price_range",
        "description": (
            "查找本店价格（元）在 min_price 和 max_price 之间（包括两端）的商品。"
            "返回 JSON 列表：商品名、品牌、价格和库存；[] 表示这个价格范围里没有商品。"
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "min_price": {"type": "number", "description": "最低价格（元），例如 100"},
                "max_price": {"type": "number", "description": "最高价格（元），例如 200"},
            },
            "required": ["min_price", "max_price"],
        },
    },
}

# %% exercise 04-2
import json


def run_tool_call(call, functions):
    """运行一个工具调用；绝不抛出异常：出了问题就返回以「错误」开头的字符串。"""
    name = call["function"]["name"]
    if name not in functions:
        return f"错误：没有工具 {name}。可用的工具：{', '.join(functions)}"
    try:
        args = json.loads(call["function"]["arguments"] or "{}")
    except json.JSONDecodeError as err:
        return f"错误：参数不是合法的 JSON（{err}），请重新调用 {name}"
    if not isinstance(args, dict):
        return f"错误：参数必须是 JSON 对象，例如 {{\"product_name\": \"球\"}}"
    try:
        return str(functions[name](**args))
    except TypeError as err:
        return f"错误：{name} 的参数不对：{err}"
    except Exception as err:  # 工具本身出错了
        return f"错误：{name} 出错：{type(err).__name__}: {err}"
