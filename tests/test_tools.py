"""Unit tests for course_lib.tools (offline: no model, no network)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from fakes import FakeLLM

from course_lib.agent import Agent
from course_lib.tools import (
    CALCULATOR_TOOL,
    KNOWLEDGE_TOOL,
    PRODUCT_TOOL,
    WEATHER_TOOL,
    Tool,
    ToolRegistry,
    build_database,
    calculate,
    default_registry,
    get_weather,
    query_by_product_name,
    search_knowledge,
)
from course_lib.tools import products
from course_lib.texts import t

REPO_DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A private copy of data/ so tests never touch the repo's database."""
    target = tmp_path / "data"
    shutil.copytree(REPO_DATA, target, ignore=shutil.ignore_patterns("*.db", "*.tmp"))
    monkeypatch.setenv("COURSE_DATA_DIR", str(target))
    return target


def write_csv(path: Path, rows: list[list]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(products.COLUMNS)
        writer.writerows(rows)
    return path


def count_rows(db_path: Path) -> int:
    connection = sqlite3.connect(db_path)
    try:
        return connection.execute("SELECT COUNT(*) FROM products").fetchone()[0]
    finally:
        connection.close()


def ids(result: str) -> list[str]:
    return [row["product_id"] for row in json.loads(result)]


# ---------------------------------------------------------------- products.csv


def test_products_csv_contract():
    with open(REPO_DATA / "products.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0].keys()) == products.COLUMNS
    by_id = {row["product_id"]: row for row in rows}
    assert len(by_id) == len(rows), "product_id must be unique"
    assert [r["product_id"] for r in rows if "球" in r["product_name"]] == ["001", "002", "003", "008"]
    assert list(by_id["001"].values()) == [
        "001", "足球", "高品质职业比赛用球，符合国际标准", "圆形，直径22 cm",
        "职业比赛、学校体育课", "耐克", "120.0", "50"]
    assert list(by_id["008"].values()) == [
        "008", "乒乓球拍套装", "包括两只拍子和三个球，适合家庭娱乐和业余训练",
        "标准尺寸，拍面防滑处理", "家庭、社区", "双鱼", "160.0", "35"]
    for row in rows:
        assert not any(c in row["product_name"] for c in ("衣服", "%", "_"))
    prices = [float(r["price"]) for r in rows]
    assert min(prices) < 50 and max(prices) > 500
    assert any(int(r["stock_quantity"]) == 0 for r in rows)


# ---------------------------------------------------------------- products tool


def test_ball_returns_exactly_the_four_ball_products(data_dir):
    rows = json.loads(query_by_product_name("球"))
    assert [r["product_id"] for r in rows] == ["001", "002", "003", "008"]
    assert set(rows[0]) == set(products.COLUMNS)
    assert rows[0]["product_name"] == "足球"
    assert rows[0]["price"] == 120.0 and rows[0]["stock_quantity"] == 50


def test_clothes_returns_empty_json_list(data_dir):
    assert query_by_product_name("衣服") == "[]"


def test_keyword_is_stripped_and_limit_applies(data_dir):
    assert ids(query_by_product_name("  球 ")) == ["001", "002", "003", "008"]
    assert ids(query_by_product_name("球", limit=2)) == ["001", "002"]
    assert query_by_product_name("球", limit=0).startswith("错误")


@pytest.mark.parametrize("bad", ["", "   ", None, 123, ["球"]])
def test_blank_or_non_string_name_is_an_error(data_dir, bad):
    result = query_by_product_name(bad)
    assert result.startswith("错误") and "product_name" in result


def test_percent_underscore_backslash_match_literally(tmp_path, monkeypatch):
    csv_path = write_csv(tmp_path / "products.csv", [
        ["001", "100%纯棉毛巾", "", "", "", "", 19.9, 5],
        ["002", "a_b", "", "", "", "", 1.0, 1],
        ["003", "axb", "", "", "", "", 1.0, 1],
        ["004", "100纯棉毛巾", "", "", "", "", 1.0, 1],
        ["005", "c\\d", "", "", "", "", 1.0, 1],
    ])
    db_path = build_database(csv_path=csv_path, db_path=tmp_path / products.DB_NAME)
    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path))
    assert count_rows(db_path) == 5
    assert ids(query_by_product_name("%")) == ["001"]
    assert ids(query_by_product_name("_")) == ["002"]
    assert ids(query_by_product_name("a_b")) == ["002"]
    assert ids(query_by_product_name("\\")) == ["005"]
    assert ids(query_by_product_name("' OR 1=1 --")) == []


def test_rebuild_twice_keeps_the_same_rows(data_dir):
    first = build_database()
    n = count_rows(first)
    second = build_database()
    assert second == first == data_dir / products.DB_NAME
    assert count_rows(second) == n == 16
    assert not list(data_dir.glob("*.tmp"))


def test_database_is_rebuilt_when_csv_is_newer(data_dir):
    db_path = products.database_path()
    assert count_rows(db_path) == 16
    with open(data_dir / "products.csv", "a", encoding="utf-8") as f:
        f.write("017,测试护腕,,,,测试,1.0,1\n")
    future = time.time() + 10
    os.utime(data_dir / "products.csv", (future, future))
    assert ids(query_by_product_name("测试护腕")) == ["017"]


def test_readonly_connection_cannot_write(data_dir):
    connection = products.connect_readonly(products.database_path())
    try:
        with pytest.raises(sqlite3.OperationalError):
            connection.execute("DELETE FROM products")
    finally:
        connection.close()
    assert count_rows(data_dir / products.DB_NAME) == 16


def test_query_opens_the_database_with_mode_ro(data_dir, monkeypatch):
    products.database_path()  # build first, so only the query connects below
    seen = []
    real_connect = sqlite3.connect

    def spy(database, *args, **kwargs):
        seen.append((str(database), kwargs.get("uri")))
        return real_connect(database, *args, **kwargs)

    monkeypatch.setattr(products.sqlite3, "connect", spy)
    query_by_product_name("球")
    assert len(seen) == 1
    uri, uri_flag = seen[0]
    assert uri.startswith("file:") and uri.endswith("?mode=ro") and uri_flag is True


def test_failed_build_mid_write_keeps_previous_database(tmp_path):
    db_path = tmp_path / products.DB_NAME
    good = write_csv(tmp_path / "good.csv", [["001", "足球", "", "", "", "", 1.0, 1]])
    build_database(csv_path=good, db_path=db_path)
    # A duplicate primary key makes the INSERT fail half-way through the write.
    bad = write_csv(tmp_path / "bad.csv", [
        ["101", "甲", "", "", "", "", 1.0, 1],
        ["102", "乙", "", "", "", "", 1.0, 1],
        ["101", "丙", "", "", "", "", 1.0, 1],
    ])
    with pytest.raises(sqlite3.IntegrityError):
        build_database(csv_path=bad, db_path=db_path)
    assert count_rows(db_path) == 1
    assert not list(tmp_path.glob("*.tmp"))


def test_failed_replace_keeps_previous_database(tmp_path, monkeypatch):
    db_path = tmp_path / products.DB_NAME
    good = write_csv(tmp_path / "good.csv", [["001", "足球", "", "", "", "", 1.0, 1]])
    build_database(csv_path=good, db_path=db_path)
    bigger = write_csv(tmp_path / "bigger.csv", [
        [f"{i:03d}", f"商品{i}", "", "", "", "", 1.0, 1] for i in range(1, 6)])

    def broken_replace(src, dst):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(products.os, "replace", broken_replace)
    with pytest.raises(OSError):
        build_database(csv_path=bigger, db_path=db_path)
    monkeypatch.undo()
    assert count_rows(db_path) == 1
    assert not list(tmp_path.glob("*.tmp"))


def test_bad_csv_header_is_refused(tmp_path):
    path = tmp_path / "wrong.csv"
    path.write_text("id,name\n001,足球\n", encoding="utf-8")
    with pytest.raises(ValueError):
        build_database(csv_path=path, db_path=tmp_path / "x.db")
    assert not (tmp_path / "x.db").exists()


# ---------------------------------------------------------------- calculator


@pytest.mark.parametrize("expression, expected", [
    ("20 * 15", "300"),
    ("2**10", "1024"),
    ("-3 + 4", "1"),
    ("7 // 2", "3"),
    ("7 % 3", "1"),
    ("1/3", "0.3333333333"),
    ("10 / 4", "2.5"),
    ("10 / 2", "5"),
    ("2**-1", "0.5"),
    ("+5", "5"),
    ("(1 + 2) * 3", "9"),
    ("6 × 7 ÷ 2", "21"),
    ("（1 + 2）× 3", "9"),
    ("０.1 + 0.2", "0.3"),
])
def test_calculator_results(expression, expected):
    assert calculate(expression) == expected


@pytest.mark.parametrize("expression", ["1/0", "5 // 0", "5 % 0", "1 / 0.0", "0 ** -1"])
def test_calculator_division_by_zero(expression):
    assert calculate(expression) == "错误：除数不能为零"


@pytest.mark.parametrize("expression", [
    "__import__('os')", "a+1", "abs(-1)", "(1).real", "[1][0]", "1 < 2",
    "'a' * 3", "True + 1", "1j", "2 ^ 10", "lambda: 1", "x if 1 else 2",
])
def test_calculator_refuses_unsupported_syntax(expression):
    result = calculate(expression)
    assert result.startswith("错误：不支持的")


def test_calculator_refuses_garbage_and_bad_input():
    assert calculate("1 +").startswith("错误：无法解析")
    assert calculate("").startswith("错误")
    assert calculate(None).startswith("错误")
    assert calculate("1+" * 150 + "1").startswith("错误：表达式太长")


@pytest.mark.parametrize("expression", [
    "9**9**9**9", "(10**10)**(10**10)", "10**10**10", "2**100000", "10**1001",
    "10**999 * 10**999", "1e308*10", "1e999", "10.0**400", "10**1000 / 3",
])
def test_calculator_refuses_huge_results_quickly(expression):
    start = time.monotonic()
    result = calculate(expression)
    assert time.monotonic() - start < 1.0
    assert result.startswith("错误：结果太大"), result


def test_calculator_refuses_complex_results():
    assert calculate("(-8) ** 0.5") == "错误：结果不是实数"


@pytest.mark.parametrize("expression, expected", [
    ("7²", "49"), ("2¹⁰", "1024"), ("(1+2)³", "27"), ("10⁻²", "0.01"), ("3² + 4²", "25"),
    ("-2²", "-4"),                         # like -2**2: the power binds first
    ("７²", "49"), ("７＊８", "56"), ("（１＋２）", "3"), ("２＊＊３", "8"),  # full width keeps working
])
def test_calculator_reads_superscript_digits_as_a_power(expression, expected):
    """NFKC alone turns 7² into 72: a different number, computed without a word of warning."""
    assert calculate(expression) == expected


@pytest.mark.parametrize("expression", ["2₃", "H₂O", "①+1", "²3"])
def test_calculator_refuses_other_digit_lookalikes_rather_than_change_the_number(expression):
    """A subscript (2₃ would become 23), a circled digit, a superscript with nothing before it: refused."""
    result = calculate(expression)
    assert result.startswith("错误："), result


def test_a_superscript_power_in_the_native_loop_is_computed_as_a_power():
    fake = FakeLLM([{"tool_calls": [("calculate", {"expression": "7²"})]}, "7 的平方是 49。"])
    result = Agent(fake.client(), "fake-model", ToolRegistry([default_registry().get("calculate")]), trace=None).run("7 的平方是多少？")
    assert result.steps[0].tool_calls[0].observation == "49"
    assert fake.requests[1]["messages"][-1]["content"] == "49"


def test_calculator_never_uses_eval():
    source = Path(products.__file__).with_name("calculator.py").read_text(encoding="utf-8")
    assert "eval(" not in source.replace("mode=\"eval\"", "")


# ---------------------------------------------------------------- weather


def test_weather_known_cities():
    assert get_weather("北京") == "北京：晴，25°C，湿度40%"
    assert get_weather("上海") == "上海：多云，28°C，湿度65%"
    assert get_weather(" 北京市 ") == "北京：晴，25°C，湿度40%"


def test_weather_fahrenheit():
    assert get_weather("北京", "fahrenheit") == "北京：晴，77°F，湿度40%"
    assert get_weather("上海", unit="fahrenheit") == "上海：多云，82.4°F，湿度65%"


def test_weather_unknown_city_is_a_plain_string():
    assert get_weather("火星") == "没有 火星 的天气数据"


@pytest.mark.parametrize("unit", ["kelvin", "", 5])
def test_weather_bad_unit_is_an_error_string(unit):
    result = get_weather("北京", unit)
    assert result.startswith("错误") and "unit" in result


def test_weather_blank_city_is_an_error_string():
    assert get_weather("  ").startswith("错误")


def test_weather_data_has_the_course_cities():
    data = json.loads((REPO_DATA / "weather.json").read_text(encoding="utf-8"))
    for city in ["北京", "上海", "广州", "深圳", "杭州", "成都", "西安", "哈尔滨"]:
        assert set(data[city]) == {"condition", "temperature_c", "humidity"}


# ---------------------------------------------------------------- knowledge


def test_knowledge_finds_the_longest_river():
    result = search_knowledge("世界上最长的河流是什么？")
    assert result.startswith("尼罗河") and "6650" in result


@pytest.mark.parametrize("query, title", [
    ("亚马逊河", "亚马逊河"), ("流量最大的河", "亚马逊河"), ("珠穆朗玛峰有多高", "珠穆朗玛峰"),
    ("长城", "长城"), ("太平洋", "太平洋"),
])
def test_knowledge_finds_entries(query, title):
    assert search_knowledge(query).startswith(title)


def test_knowledge_nothing_found():
    assert search_knowledge("量子计算机") == "没有找到关于 量子计算机 的资料"
    assert search_knowledge("  ").startswith("错误")


# ---------------------------------------------------------------- schemas and registry


@pytest.mark.parametrize("schema, name", [
    (WEATHER_TOOL, "get_weather"), (CALCULATOR_TOOL, "calculate"),
    (PRODUCT_TOOL, "query_by_product_name"), (KNOWLEDGE_TOOL, "search_knowledge"),
])
def test_schemas_are_valid_openai_tools(schema, name):
    assert schema["type"] == "function"
    function = schema["function"]
    assert function["name"] == name and function["description"]
    parameters = function["parameters"]
    assert parameters["type"] == "object"
    assert set(parameters["required"]) <= set(parameters["properties"])
    json.dumps(schema)


def test_weather_schema_unit_enum():
    unit = WEATHER_TOOL["function"]["parameters"]["properties"]["unit"]
    assert unit["enum"] == ["celsius", "fahrenheit"]
    assert WEATHER_TOOL["function"]["parameters"]["required"] == ["city"]


def test_default_registry(data_dir):
    registry = default_registry()
    assert registry.names == ["get_weather", "calculate", "query_by_product_name", "search_knowledge"]
    assert "calculate" in registry and "eval" not in registry
    assert [s["function"]["name"] for s in registry.schemas()] == registry.names
    assert registry.call("calculate", {"expression": "20 * 15"})[0] == "300"
    assert registry.call("get_weather", {"city": "北京"})[0] == "北京：晴，25°C，湿度40%"
    assert ids(registry.call("query_by_product_name", {"product_name": "球"})[0]) == ["001", "002", "003", "008"]


def test_registry_unknown_tool_lists_available_names():
    result = default_registry().call("get_stock_price", {"symbol": "X"})[0]
    assert result.startswith("错误") and "get_stock_price" in result
    for name in ["get_weather", "calculate", "query_by_product_name", "search_knowledge"]:
        assert name in result
    assert default_registry().call(None, {})[0].startswith("错误")


def test_registry_missing_required_argument():
    result = default_registry().call("get_weather", {"unit": "celsius"})[0]
    assert result.startswith("错误") and "city" in result and "缺少" in result


def test_registry_unexpected_argument():
    result = default_registry().call("get_weather", {"city": "北京", "date": "明天"})[0]
    assert result.startswith("错误") and "date" in result and "city" in result


@pytest.mark.parametrize("arguments", ['{"city": "北京"}', None, ["北京"]])
def test_registry_arguments_must_be_a_dict(arguments):
    result = default_registry().call("get_weather", arguments)[0]
    assert result.startswith("错误") and "dict" in result


def _schema(name, properties=(), required=()):
    return {"type": "function", "function": {
        "name": name, "description": "test",
        "parameters": {"type": "object",
                       "properties": {p: {"type": "string"} for p in properties},
                       "required": list(required)}}}


def test_registry_tool_raising_becomes_a_string():
    def boom(x):
        raise ValueError("bad x")

    registry = ToolRegistry([Tool("boom", boom, _schema("boom", ["x"], ["x"]))])
    assert registry.call("boom", {"x": "1"})[0] == "错误：工具 boom 出错：ValueError: bad x"


def test_registry_turns_results_into_strings():
    registry = ToolRegistry()
    registry.add(Tool("as_dict", lambda: {"城市": "北京", "n": 1}, _schema("as_dict")))
    registry.add(Tool("as_none", lambda: None, _schema("as_none")))
    registry.add(Tool("as_int", lambda: 42, _schema("as_int")))
    assert registry.call("as_dict", {})[0] == '{"城市": "北京", "n": 1}'
    assert registry.call("as_none", {})[0] == t("tools.no_result")
    assert registry.call("as_int", {})[0] == "42"
    assert len(registry) == 3


@pytest.mark.parametrize("value", [True, (1, 2), [1, "二"], {"a": None}, 2.5, None, "text", object])
def test_registry_and_execute_convert_results_the_same_way(value):
    """One converter: ToolRegistry.call, tool_calls.execute and messages.tool_content agree."""
    from course_lib.messages import tool_content
    from course_lib.tool_calls import ToolCall, execute

    registry = ToolRegistry([Tool("give", lambda: value, _schema("give"))])
    via_execute = execute([ToolCall("c1", "give", {}, "{}")], {"give": lambda: value})[0]["content"]
    assert registry.call("give", {})[0] == tool_content(value) == via_execute


def test_tool_name_must_match_schema():
    with pytest.raises(ValueError):
        Tool("a", lambda: None, _schema("b"))


def test_a_tools_own_error_is_a_failure_not_a_result():
    # The course tools answer bad input with a sentence, typed ToolFailure; the registry says ok False.
    from course_lib.tools import ToolFailure, default_registry

    registry = default_registry()
    for name, arguments in [("calculate", {"expression": "1 / 0"}), ("get_weather", {"city": ""}),
                            ("query_by_product_name", {"product_name": " "}), ("search_knowledge", {"query": ""})]:
        text, ok = registry.call(name, arguments)
        assert text.startswith("错误：") and ok is False, name
        assert type(text) is str  # sent as a plain str
    assert registry.call("calculate", {"expression": "20 * 15"}) == ("300", True)
    assert registry.call("get_weather", {"city": "火星"})[1] is True  # "no data" is an answer, not a failure
    failure = ToolFailure("错误：x")
    assert failure == "错误：x" and isinstance(failure, str) and repr(failure) == "'错误：x'"
