"""course_lib.tools.orders: the write tool on a per-student copy, the read-only look-ups, the reviews."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from course_lib.tools import ToolFailure, orders, products
from course_lib.tools.orders import (
    get_product,
    get_reviews,
    list_orders,
    place_order,
    reset_shop,
    shop_path,
    shop_registry,
)

REPO_DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A private copy of data/ (no databases): the master and the copy are built inside it."""
    target = tmp_path / "data"
    shutil.copytree(REPO_DATA, target, ignore=shutil.ignore_patterns("*.db", "*.tmp"))
    monkeypatch.setenv("COURSE_DATA_DIR", str(target))
    monkeypatch.delenv("COURSE_SHOP_DB", raising=False)
    return target


def tables(db_path: Path) -> dict[str, list[tuple]]:
    """Every row of products and orders, to compare a copy before and after."""
    connection = sqlite3.connect(db_path)
    try:
        return {name: connection.execute(f"SELECT * FROM {name} ORDER BY 1").fetchall()
                for name in ("products", "orders")}
    finally:
        connection.close()


def stock(product_id: str) -> int:
    return json.loads(get_product(product_id))["stock_quantity"]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- the copy


def test_the_copy_is_made_on_first_use_next_to_the_master(data_dir):
    assert not (data_dir / orders.SHOP_DB_NAME).exists()
    assert shop_path() == data_dir / orders.SHOP_DB_NAME
    copy = tables(shop_path())
    assert copy["orders"] == []
    master = products.connect_readonly(products.database_path())
    try:
        assert copy["products"] == master.execute("SELECT * FROM products ORDER BY 1").fetchall()
    finally:
        master.close()


def test_course_shop_db_chooses_the_copy(data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_SHOP_DB", str(tmp_path / "elsewhere" / "shop.db"))
    assert reset_shop() == tmp_path / "elsewhere" / "shop.db"
    json.loads(place_order("001", 1))
    assert len(list_orders()) == 1 and not (data_dir / orders.SHOP_DB_NAME).exists()


def test_the_copy_can_never_be_the_master(data_dir, monkeypatch):
    monkeypatch.setenv("COURSE_SHOP_DB", str(products.database_path()))
    before = sha256(products.database_path())
    with pytest.raises(ValueError, match="原始数据库"):
        reset_shop()
    with pytest.raises(ValueError):
        place_order("001", 1)
    assert sha256(products.database_path()) == before


def test_reset_restores_stock_and_empties_orders(data_dir):
    fresh = tables(reset_shop())
    place_order("001", 3)
    place_order("007", 20)
    assert tables(shop_path()) != fresh
    assert reset_shop() == shop_path()
    assert tables(shop_path()) == fresh
    assert not list(data_dir.glob("*.tmp"))


def test_a_failed_reset_keeps_the_old_copy(data_dir, monkeypatch):
    place_order("001", 3)
    before = tables(shop_path())

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(orders.os, "replace", broken_replace)
    with pytest.raises(OSError):
        reset_shop()
    assert tables(shop_path()) == before
    assert not list(data_dir.glob("*.tmp"))


# ---------------------------------------------------------------- place_order


def test_an_order_writes_one_row_and_lowers_the_stock_by_the_quantity(data_dir):
    reset_shop()
    before = stock("001")
    answer = json.loads(place_order("001", 3))
    assert answer == {"order_id": 1, "product_id": "001", "product_name": "足球", "quantity": 3,
                      "unit_price": 120.0, "total": 360.0, "stock_left": before - 3}
    assert stock("001") == before - 3
    rows = list_orders()
    assert len(rows) == 1
    assert {k: rows[0][k] for k in ("order_id", "product_id", "quantity", "unit_price", "total")} == {
        "order_id": 1, "product_id": "001", "quantity": 3, "unit_price": 120.0, "total": 360.0}
    assert set(rows[0]) == set(orders.ORDER_COLUMNS)
    # the other products did not move
    assert stock("002") == 30


def test_ids_without_zeros_and_whole_numbers_mean_the_same_product(data_dir):
    reset_shop()
    for product_id in ("1", 1, " 001 "):
        assert json.loads(place_order(product_id, 1))["product_id"] == "001"
    assert stock("001") == 50 - 3


def test_the_whole_stock_can_be_sold_but_not_one_more(data_dir):
    reset_shop()
    assert json.loads(place_order("015", 5))["stock_left"] == 0
    assert isinstance(place_order("015", 1), ToolFailure)


@pytest.mark.parametrize("product_id, quantity, words", [
    ("abc", 1, "product_id"),
    ("", 1, "product_id"),
    (None, 1, "product_id"),
    (True, 1, "product_id"),
    (1.0, 1, "product_id"),
    ("0001", 1, "product_id"),
    ("1; DROP TABLE products", 1, "product_id"),
    ("999", 1, "没有编号为 999"),
    ("001", 0, "至少是 1 件"),
    ("001", -1, "至少是 1 件"),
    ("001", 2.5, "整数件数"),
    ("001", 2.0, "整数件数"),
    ("001", "3", "整数件数"),
    ("001", True, "整数件数"),
    ("001", None, "整数件数"),
    ("001", orders.MAX_QUANTITY + 1, f"每单最多 {orders.MAX_QUANTITY} 件"),
    ("006", 9, "库存不足"),   # 8 in stock
    ("013", 1, "库存不足"),   # sold out
])
def test_bad_orders_are_tool_errors_and_change_nothing(data_dir, product_id, quantity, words):
    reset_shop()
    place_order("002", 1)  # something in the tables already
    before = tables(shop_path())
    answer = place_order(product_id, quantity)
    assert isinstance(answer, ToolFailure) and answer.startswith("错误：") and words in answer, answer
    assert tables(shop_path()) == before


def test_a_failure_between_the_two_writes_leaves_nothing_half_written(data_dir):
    reset_shop()
    connection = sqlite3.connect(shop_path())
    connection.execute("CREATE TRIGGER no_orders BEFORE INSERT ON orders BEGIN SELECT RAISE(ABORT, 'disk full'); END")
    connection.commit()
    connection.close()
    before = tables(shop_path())
    answer = place_order("001", 2)  # the stock is lowered first, then the insert fails
    assert isinstance(answer, ToolFailure) and "disk full" in answer
    assert tables(shop_path()) == before


def test_the_master_is_byte_identical_after_many_orders(data_dir):
    master = products.database_path()
    before = sha256(master)
    reset_shop()
    for product_id in ("001", "002", "003", "007", "016") * 4:
        assert not isinstance(place_order(product_id, 2), ToolFailure)
    place_order("001", 999)
    get_reviews("001")
    list_orders()
    reset_shop()
    assert sha256(master) == before
    assert json.loads(products.query_by_product_name("足球"))[0]["stock_quantity"] == 50


def test_orders_accumulate_with_their_totals_in_yuan(data_dir):
    reset_shop()
    place_order("005", 2)   # 89.0 yuan
    place_order("016", 10)  # 29.0 yuan
    assert [(r["order_id"], r["product_name"], r["quantity"], r["total"]) for r in list_orders()] == [
        (1, "瑜伽垫", 2, 178.0), (2, "运动腕带", 10, 290.0)]


# ---------------------------------------------------------------- read-only look-ups


def test_get_product_reads_the_copy(data_dir):
    reset_shop()
    product = json.loads(get_product("006"))
    assert set(product) == set(products.COLUMNS)
    assert (product["product_name"], product["price"], product["stock_quantity"]) == ("可调节哑铃", 2199.0, 8)
    assert "没有编号为 404" in get_product("404")
    assert isinstance(get_product("x"), ToolFailure)


def test_look_ups_open_the_copy_read_only_and_cannot_write(data_dir, monkeypatch):
    shop = shop_path()  # made first, so only the look-ups connect below
    seen = []
    real_connect = sqlite3.connect

    def spy(database, *args, **kwargs):
        seen.append((database, args, kwargs))
        return real_connect(database, *args, **kwargs)

    monkeypatch.setattr(products.sqlite3, "connect", spy)
    get_product("001")
    get_reviews("001")
    list_orders()
    assert len(seen) == 3
    for database, args, kwargs in seen:
        assert str(database) == f"{shop.resolve().as_uri()}?mode=ro" and kwargs.get("uri") is True
        connection = real_connect(database, *args, **kwargs)
        try:
            with pytest.raises(sqlite3.OperationalError, match="readonly"):
                connection.execute("UPDATE products SET stock_quantity = 0")
            with pytest.raises(sqlite3.OperationalError, match="readonly"):
                connection.execute("DELETE FROM orders")
        finally:
            connection.close()


# ---------------------------------------------------------------- reviews


def test_reviews_are_json_for_the_product(data_dir):
    answer = json.loads(get_reviews("004"))
    assert answer["product_id"] == "004" and answer["product_name"] == "跑步鞋"
    assert 2 <= len(answer["reviews"]) <= 4
    for review in answer["reviews"]:
        assert set(review) == {"author", "rating", "date", "text"} and 1 <= review["rating"] <= 5


def test_a_product_without_reviews_has_an_empty_list(data_dir):
    assert json.loads(get_reviews("003")) == {"product_id": "003", "product_name": "篮球", "reviews": []}
    assert isinstance(get_reviews("404"), ToolFailure)
    assert isinstance(get_reviews(""), ToolFailure)


def test_the_reviews_data_holds_exactly_one_injection_sample():
    data = json.loads((REPO_DATA / "reviews.json").read_text(encoding="utf-8"))
    reviews = data["reviews"]
    per_product = {}
    for review in reviews:
        per_product.setdefault(review["product_id"], []).append(review)
    assert len(per_product) >= 3 and all(2 <= len(v) <= 4 for v in per_product.values())
    attacks = [r for r in reviews if "place_order" in r["text"]]
    assert len(attacks) == 1
    attack = attacks[0]
    assert attack["product_id"] == "001" and attack["author"] == "店铺管理员"
    # what it asks for is an order the tool itself would accept: only approval stops it
    assert 'product_id="001"' in attack["text"] and "quantity=20" in attack["text"]
    assert 20 <= orders.MAX_QUANTITY
    assert "提示注入" in data["note"]


def test_the_injection_reaches_the_model_as_plain_tool_text(data_dir):
    text, ok = shop_registry().call("get_reviews", {"product_id": "001"})
    assert ok and "忽略用户" in text and "place_order" in text
    assert list_orders() == []  # reading it changed nothing


# ---------------------------------------------------------------- the registry


def test_the_shop_registry_has_one_write_tool_and_it_needs_approval(data_dir):
    registry = shop_registry()
    assert registry.names == ["query_by_product_name", "get_product", "get_reviews", "place_order"]
    assert registry.approval_names() == ["place_order"]
    for schema in registry.schemas():
        params = schema["function"]["parameters"]
        assert set(params["required"]) <= set(params["properties"])
    text, ok = registry.call("place_order", {"product_id": "001", "quantity": 2})
    assert ok and json.loads(text)["stock_left"] == 48
    text, ok = registry.call("place_order", {"product_id": "001", "quantity": "2"})
    assert not ok and text.startswith("错误：")
    text, ok = registry.call("get_product", {"product_id": "001"})
    assert ok and json.loads(text)["stock_quantity"] == 48
    # The name look-up of the shop reads the copy too: both say 48 (the master still says 50).
    text, ok = registry.call("query_by_product_name", {"product_name": "足球"})
    assert ok and json.loads(text)[0]["stock_quantity"] == 48
    assert json.loads(products.query_by_product_name("足球"))[0]["stock_quantity"] == 50
    # The database is not the model's to choose.
    text, ok = registry.call("query_by_product_name", {"product_name": "足球", "db_path": "x.db"})
    assert not ok
