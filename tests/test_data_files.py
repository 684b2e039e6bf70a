"""Hand-edited data files (issue 56, item 5): data/*.json and data/products.csv as a student may save them.

Students are invited to change the course's data.  Notepad on Windows writes a BOM; a trailing comma,
a missing quote, a file saved as GBK or a CSV row with one comma too many are the usual slips.  Each
is read (BOM) or named in ONE Chinese sentence with the file, the line (and column) and the fix
(``course_lib/tools/data_files.py``, ``DataFileError``); a tool never raises into the loop: it
answers that sentence as a ``ToolFailure`` starting with 「错误：」.  Every test works on a copy of
data/ in tmp_path (``$COURSE_DATA_DIR``; the orders' copy of the shop in ``$COURSE_SHOP_DB``).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from course_lib import eval_set
from course_lib.tools import get_weather, query_by_product_name, search_knowledge, search_notes
from course_lib.tools import knowledge, orders, products, shop_notes, weather
from course_lib.tools.failure import ToolFailure
from course_lib.tools.orders import get_reviews
from course_lib.tools.registry import Tool, ToolRegistry

REPO_DATA = Path(__file__).resolve().parents[1] / "data"
BOM = "\ufeff"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A private copy of data/ (no databases), and a private copy of the shop for the orders' tools."""
    target = tmp_path / "data"
    shutil.copytree(REPO_DATA, target, ignore=shutil.ignore_patterns("*.db", "*.tmp"))
    monkeypatch.setenv("COURSE_DATA_DIR", str(target))
    monkeypatch.setenv("COURSE_SHOP_DB", str(tmp_path / "shop" / "my_shop.db"))
    return target


def text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def line_of(text: str, index: int) -> int:
    """The 1-based line of character ``index`` of ``text``."""
    return text.count("\n", 0, index) + 1


def with_trailing_comma(path: Path) -> int:
    """Add a comma after the last entry of the JSON list in ``path``; returns the line of the ``]`` after it."""
    text = text_of(path)
    end = text.rindex("]")
    last = text.rindex("}", 0, end)
    broken = text[:last + 1] + "," + text[last + 1:]
    path.write_text(broken, encoding="utf-8")
    return line_of(broken, broken.rindex("]"))


def one_sentence(message: str) -> None:
    """A message is one Chinese sentence: one line, one full stop at the end."""
    assert "\n" not in message and message.endswith("。") and message.count("。") == 1, message
    assert not re.search(r"[A-Za-z]{4,}Error|Expecting|line \d", message), message  # nothing of Python's English


# ---------------------------------------------------------------- a BOM is read


def test_files_saved_with_a_bom_work_in_every_tool(data_dir):
    for name in ("shop_notes.json", "weather.json", "knowledge.json", "reviews.json", "products.csv"):
        path = data_dir / name
        path.write_text(BOM + text_of(path), encoding="utf-8")
    assert search_notes("退货", k=1).startswith("[N01]")
    assert get_weather("北京").startswith("北京：")
    assert search_knowledge("尼罗河").startswith("尼罗河：")
    assert json.loads(get_reviews("001"))["reviews"]
    assert json.loads(query_by_product_name("篮球"))[0]["price"] == 200
    assert eval_set.products(data_dir)["篮球"]["price"] == 200
    assert shop_notes.load_notes()[0]["id"] == "N01" and "北京" in weather.load_weather()


# ---------------------------------------------------------------- broken JSON


def test_a_trailing_comma_is_named_with_its_line_in_chinese(data_dir):
    from course_lib.tools.data_files import DataFileError

    line = with_trailing_comma(data_dir / "shop_notes.json")
    with pytest.raises(DataFileError) as caught:
        shop_notes.load_notes()
    message = str(caught.value)
    one_sentence(message)
    assert f"第 {line} 行" in message and "逗号" in message and "shop_notes.json" in message
    assert "git checkout" in message
    assert caught.value.line == line and isinstance(caught.value, ValueError)


def test_search_notes_answers_the_sentence_and_never_raises(data_dir):
    line = with_trailing_comma(data_dir / "shop_notes.json")
    answer = search_notes("退货")
    assert isinstance(answer, ToolFailure) and answer.startswith("错误：")
    assert f"第 {line} 行" in answer and "shop_notes.json" in answer
    text, ok = ToolRegistry([Tool("search_notes", search_notes, shop_notes.NOTES_TOOL)]).call(
        "search_notes", {"query": "退货"})
    assert ok is False and text == answer  # the tool's own sentence, not 「工具出错：JSONDecodeError」


@pytest.mark.parametrize("name, tool, argument", [
    ("weather.json", get_weather, "北京"),
    ("knowledge.json", search_knowledge, "尼罗河"),
    ("reviews.json", get_reviews, "001"),
])
def test_the_other_json_tools_answer_the_sentence_too(data_dir, name, tool, argument):
    path = data_dir / name
    text = text_of(path)
    cut = text.index('"', text.index("{", 1) + 1)  # the first key inside the first inner object loses its quote
    broken = text[:cut] + text[cut + 1:]
    path.write_text(broken, encoding="utf-8")
    answer = tool(argument)
    assert isinstance(answer, ToolFailure) and answer.startswith("错误：") and name in answer, answer
    assert f"第 {line_of(broken, cut)} 行" in answer, answer
    one_sentence(answer)


def test_a_file_saved_as_gbk_is_named_with_its_line(data_dir):
    from course_lib.tools.data_files import DataFileError

    path = data_dir / "shop_notes.json"
    data = text_of(path).encode("gbk")
    first = next(i for i, byte in enumerate(data) if byte >= 0x80)
    path.write_bytes(data)
    with pytest.raises(DataFileError) as caught:
        shop_notes.load_notes()
    message = str(caught.value)
    one_sentence(message)
    line = data.count(b"\n", 0, first) + 1
    assert f"第 {line} 行" in message and "UTF-8" in message and caught.value.line == line
    answer = search_notes("退货")
    assert isinstance(answer, ToolFailure) and answer.startswith("错误：") and "UTF-8" in answer


def test_chinese_punctuation_in_place_of_json_syntax_is_named(data_dir):
    from course_lib.tools.data_files import DataFileError

    path = data_dir / "weather.json"
    text = text_of(path)
    broken = text.replace('"晴", "temperature_c"', '"晴"， "temperature_c"', 1)
    assert broken != text
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(DataFileError, match="中文") as caught:
        weather.load_weather()
    assert caught.value.line == line_of(broken, broken.index("，"))


def test_a_note_without_its_id_is_named_with_its_line(data_dir):
    from course_lib.tools.data_files import DataFileError

    path = data_dir / "shop_notes.json"
    notes = json.loads(text_of(path))
    del notes[2]["id"]
    text = "[\n" + ",\n".join(json.dumps(n, ensure_ascii=False) for n in notes) + "\n]\n"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataFileError) as caught:
        shop_notes.load_notes()
    message = str(caught.value)
    one_sentence(message)
    assert "第 4 行" in message and '"id"' in message  # line 1 is "[", the third note is on line 4
    assert "缺少" in search_notes("退货")


def test_a_value_of_the_wrong_kind_is_named(data_dir):
    from course_lib.tools.data_files import DataFileError

    path = data_dir / "weather.json"
    path.write_text(text_of(path).replace('"temperature_c": 25', '"temperature_c": "25度"', 1), encoding="utf-8")
    with pytest.raises(DataFileError, match="temperature_c") as caught:
        weather.load_weather()
    assert caught.value.line == 2  # 北京 is the first city
    assert get_weather("上海").startswith("错误：")


def test_a_missing_file_is_named(data_dir):
    from course_lib.tools.data_files import DataFileError

    (data_dir / "knowledge.json").unlink()
    with pytest.raises(DataFileError, match="knowledge.json"):
        knowledge.load_knowledge()
    assert search_knowledge("尼罗河").startswith("错误：")


# ---------------------------------------------------------------- broken CSV


def test_a_csv_row_with_one_field_too_many_is_named_with_its_line(data_dir):
    from course_lib.tools.data_files import DataFileError

    path = data_dir / "products.csv"
    lines = text_of(path).splitlines()
    lines[5] = lines[5].replace("，", ",", 1) if "，" in lines[5] else lines[5] + ",多的一格"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataFileError) as caught:
        products.read_products_csv(path)
    message = str(caught.value)
    one_sentence(message)
    assert "第 6 行" in message and "products.csv" in message and caught.value.line == 6
    answer = query_by_product_name("篮球")
    assert isinstance(answer, ToolFailure) and answer.startswith("错误：") and "第 6 行" in answer
    with pytest.raises(DataFileError):
        eval_set.products(data_dir)  # not a tool: the clear error, raised


def test_a_csv_price_that_is_not_a_number_is_named(data_dir):
    from course_lib.tools.data_files import DataFileError

    path = data_dir / "products.csv"
    path.write_text(text_of(path).replace(",120.0,50", ",120元,50", 1), encoding="utf-8")
    with pytest.raises(DataFileError, match="price") as caught:
        products.read_products_csv(path)
    assert caught.value.line == 2
    one_sentence(str(caught.value))


def test_a_csv_saved_as_gbk_is_named(data_dir):
    from course_lib.tools.data_files import DataFileError

    path = data_dir / "products.csv"
    path.write_bytes(text_of(path).encode("gbk"))
    with pytest.raises(DataFileError, match="第 2 行.*UTF-8"):
        products.read_products_csv(path)
    answer = get_reviews("001")  # the orders' copy is built from the CSV: the sentence, not a raise
    assert isinstance(answer, ToolFailure) and answer.startswith("错误：") and "UTF-8" in answer
    assert orders.place_order("001", 1).startswith("错误：")
