"""Notebook 10's test set: questions whose answer keys are computed by code from ``data/``, never by a model.

Each ``Case`` says what a right answer must contain (numbers, words), which
tools a good run calls (its expected trajectory, matched in the case's mode:
``course_lib.evaluation``), and what kind of question it is:

``answer``      the data hold the answer;
``no_answer``   the shop does not sell it, or there is no weather for the city:
                a right answer says so (one of ``NO_ANSWER_WORDS``) and invents nothing;
``refuse``      the question asks for an order (a write): the person rejects it in
                the run, so a right run makes no order and its answer says none was made.

Where every key comes from: prices, brands and stock from data/products.csv
(``tools.products.read_products_csv``, the file the database is built from),
weather from data/weather.json (``tools.weather.load_weather``), arithmetic
done here in Python on those values.  ``cases()`` reads the files each time,
so a changed price changes the key.

The set is split once into two halves, ``"tune"`` and ``"held"``, alternating
inside each kind of question (as ``bench/tasks.py`` does): look at the tune half
while changing a prompt or a tool description, report the held half.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from .approval import Decision
from .tools.orders import shop_registry
from .tools.products import CSV_NAME, _data_dir, read_products_csv
from .tools.registry import ToolRegistry, default_registry
from .tools.weather import load_weather

Q, C, W = "query_by_product_name", "calculate", "get_weather"
# Words by which an answer says the shop has no such thing (the bench's P3 / P5 checks use the same list).
NO_ANSWER_WORDS = ("没有", "不卖", "暂无", "无货", "缺货", "售罄", "卖完", "不提供", "没货", "抱歉", "库存为0", "库存为 0",
                   "库存是0", "库存是 0")


@dataclass(frozen=True)
class Case:
    """One question of the test set and its answer key.

    Attributes:
        id: e.g. ``"P1"``; the letter is the kind of work (P shop, W weather,
            M two look-ups, S several steps, C calculation, N no answer, R refuse).
        question: what the user asks, in Chinese.
        numbers: numbers a right answer contains (canonical text, ``"200"``, ``"12.5"``).
        words: words a right answer contains (a product name, a brand, a condition).
        tools: the expected trajectory, tool names in order.
        mode: how ``tools`` is matched: ``"exact"``, ``"in_order"`` or ``"any_order"``.
        kind: ``"answer"``, ``"no_answer"`` or ``"refuse"`` (module docstring).
        source: where the key was computed from, in words (shown in the notebook's table).
        split: ``"tune"`` or ``"held"``.
    """

    id: str
    question: str
    numbers: tuple[str, ...]
    words: tuple[str, ...]
    tools: tuple[str, ...]
    mode: str
    kind: str
    source: str
    split: str = "tune"


def number_text(value: float | int | Decimal) -> str:
    """A number as an answer writes it: ``200.0`` → ``"200"``, ``12.5`` → ``"12.5"`` (no exponent)."""
    return format(Decimal(str(value)).normalize(), "f")


def products(data_dir: Path | None = None) -> dict[str, dict]:
    """``{product_name: {"id", "brand", "price" (yuan, float), "stock" (pieces)}}`` from data/products.csv.

    Raises:
        DataFileError: the CSV cannot be read (``read_products_csv``: one Chinese sentence with the line).
    """
    rows = read_products_csv((data_dir or _data_dir()) / CSV_NAME)
    return {row[1]: {"id": row[0], "brand": row[5], "price": row[6], "stock": row[7]} for row in rows}


def cases(data_dir: Path | None = None) -> list[Case]:
    """The test set, its keys computed now from the data files (module docstring).

    Raises:
        KeyError: a product or a city the set asks about is no longer in the data
            (then the set itself must change, not its keys).
        DataFileError: data/products.csv or data/weather.json cannot be read (a hand edit broke it;
            ``tools.data_files``: one Chinese sentence with the file, the line and the fix).
    """
    shop = products(data_dir)
    weather = load_weather()
    price = {name: shop[name]["price"] for name in shop}
    csv = "data/products.csv"
    rows = [
        # P: one product, one look-up
        ("P1", "店里的篮球多少钱？", [price["篮球"]], [], [Q], "exact", "answer", f"{csv}：篮球 price"),
        ("P2", "瑜伽垫是什么品牌的？", [], [shop["瑜伽垫"]["brand"]], [Q], "exact", "answer", f"{csv}：瑜伽垫 brand"),
        ("P3", "跑步鞋还有多少库存？", [shop["跑步鞋"]["stock"]], [], [Q], "exact", "answer",
         f"{csv}：跑步鞋 stock_quantity"),
        # W: one city's weather
        ("W1", "上海现在的湿度是多少？", [weather["上海"]["humidity"]], [], [W], "exact", "answer",
         "data/weather.json：上海 humidity"),
        ("W2", "北京今天天气怎么样？", [weather["北京"]["temperature_c"]], [weather["北京"]["condition"]], [W], "exact",
         "answer", "data/weather.json：北京 condition, temperature_c"),
        # M: two look-ups, in any order
        ("M1", "篮球和跑步鞋分别多少钱？", [price["篮球"], price["跑步鞋"]], [], [Q, Q], "any_order", "answer",
         f"{csv}：两行 price"),
        ("M2", "北京和广州现在的气温相差多少度？",
         [abs(weather["广州"]["temperature_c"] - weather["北京"]["temperature_c"])], [], [W, W], "in_order", "answer",
         "data/weather.json：两城 temperature_c 之差"),
        # S: a look-up, then a calculation on what it found
        ("S1", "买 3 个足球一共多少钱？", [3 * Decimal(str(price["足球"]))], [], [Q, C], "in_order", "answer",
         f"{csv}：足球 price × 3"),
        ("S2", "买 2 个篮球和 1 双跑步鞋一共多少钱？",
         [2 * Decimal(str(price["篮球"])) + Decimal(str(price["跑步鞋"]))], [], [Q, Q, C], "in_order", "answer",
         f"{csv}：篮球 price × 2 + 跑步鞋 price"),
        # C: a calculation only
        ("C1", "1234 乘以 5678 是多少？", [1234 * 5678], [], [C], "exact", "answer", "Python：1234 * 5678"),
        ("C2", "一件商品原价 360 元，打八折以后是多少钱？", [Decimal(360) * Decimal("0.8")], [], [C], "exact", "answer",
         "Python：360 * 0.8"),
        # N: the data have no answer
        ("N1", "你们卖衣服吗？", [], [], [Q], "exact", "no_answer", f"{csv}：没有名字含「衣服」的商品"),
        ("N2", "自行车头盔还有货吗？", [], [], [Q], "exact", "no_answer",
         f"{csv}：自行车头盔 stock_quantity = {shop['自行车头盔']['stock']}"),
        ("N3", "拉萨今天天气怎么样？", [], [], [W], "exact", "no_answer", "data/weather.json：没有拉萨"),
        # R: a write the person refuses
        ("R1", "帮我下单买 2 个篮球。", [], [], [Q, "place_order"], "in_order", "refuse",
         f"{csv}：篮球 product_id {shop['篮球']['id']}；下单被拒绝"),
        ("R2", "给我订一个瑜伽垫。", [], [], [Q, "place_order"], "in_order", "refuse",
         f"{csv}：瑜伽垫 product_id {shop['瑜伽垫']['id']}；下单被拒绝"),
    ]
    if shop["自行车头盔"]["stock"] != 0 or any("衣服" in name for name in shop) or "拉萨" in weather:
        raise KeyError("eval_set: a no-answer question has an answer in the data now")
    seen: dict[str, int] = {}
    built = []
    for case_id, question, numbers, words, tools, mode, kind, source in rows:
        k = seen.get(case_id[0], 0)
        seen[case_id[0]] = k + 1
        built.append(Case(case_id, question, tuple(number_text(n) for n in numbers), tuple(words), tuple(tools),
                          mode, kind, source, "tune" if k % 2 == 0 else "held"))
    return built


# The tools of the runs: weather, calculator, the shop's look-up and its one write tool.
ORDER_REFUSED_REASON = "用户决定不下单。"  # what the model reads when the evaluation's person says no


def registry() -> ToolRegistry:
    """The tools notebook 10's agent is given: get_weather, calculate, query_by_product_name
    (the shop's master database, read-only) and place_order (notebook 08's write tool on the
    student's copy, ``needs_approval``: in an evaluation run ``refuse_orders`` always says no)."""
    course, shop = default_registry(), shop_registry()
    return ToolRegistry([*(course.get(name) for name in (W, C, Q)), shop.get("place_order")])


def refuse_orders(call: object) -> Decision:
    """The approval hook of an evaluation run: every call that needs a person's yes is rejected
    (``ORDER_REFUSED_REASON``), so no order is ever placed and the ``refuse`` cases can be checked."""
    return Decision("reject", reason=ORDER_REFUSED_REASON, by="评测")
