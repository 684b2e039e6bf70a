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

``generated_cases(seed)`` makes sets of any size the same way, from wordings
(``Template``: a kind and a question with ``{product}``, ``{count}``, ``{city}``)
and a seeded draw of products, counts and cities; the key of each question is
``template_key``'s, computed from the data files whatever the wording says.  They
are ``Case`` objects, so ``evaluation.check_run`` checks them unchanged (the
capstone's practice set, and a teacher's exam from a seed kept private).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from .approval import Decision
from .tools.orders import shop_registry
from .tools.products import CSV_NAME, _data_dir, read_products_csv
from .tools.registry import ToolRegistry, default_registry
from .texts import t
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

    def key(kind: str, **slots: object) -> tuple:  # one look-up: template_key's key (and its no-answer check)
        return template_key(kind, shop, weather, **slots)

    rows = [  # (id, question, (numbers, words, source), tools, mode, kind)
        # P: one product, one look-up
        ("P1", "店里的篮球多少钱？", key("price", product="篮球"), [Q], "exact", "answer"),
        ("P2", "瑜伽垫是什么品牌的？", key("brand", product="瑜伽垫"), [Q], "exact", "answer"),
        ("P3", "跑步鞋还有多少库存？", key("stock", product="跑步鞋"), [Q], "exact", "answer"),
        # W: one city's weather
        ("W1", "上海现在的湿度是多少？", key("humidity", city="上海"), [W], "exact", "answer"),
        ("W2", "北京今天天气怎么样？", ([weather["北京"]["temperature_c"]], [weather["北京"]["condition"]],
                                      "data/weather.json：北京 condition, temperature_c"), [W], "exact", "answer"),
        # M: two look-ups, in any order
        ("M1", "篮球和跑步鞋分别多少钱？", ([price["篮球"], price["跑步鞋"]], [], f"{csv}：两行 price"), [Q, Q],
         "any_order", "answer"),
        ("M2", "北京和广州现在的气温相差多少度？",
         ([abs(weather["广州"]["temperature_c"] - weather["北京"]["temperature_c"])], [],
          "data/weather.json：两城 temperature_c 之差"), [W, W], "in_order", "answer"),
        # S: a look-up, then a calculation on what it found
        ("S1", "买 3 个足球一共多少钱？", key("total", product="足球", count=3), [Q, C], "in_order", "answer"),
        ("S2", "买 2 个篮球和 1 双跑步鞋一共多少钱？",
         ([2 * Decimal(str(price["篮球"])) + Decimal(str(price["跑步鞋"]))], [], f"{csv}：篮球 price × 2 + 跑步鞋 price"),
         [Q, Q, C], "in_order", "answer"),
        # C: a calculation only
        ("C1", "1234 乘以 5678 是多少？", ([1234 * 5678], [], "Python：1234 * 5678"), [C], "exact", "answer"),
        ("C2", "一件商品原价 360 元，打八折以后是多少钱？", ([Decimal(360) * Decimal("0.8")], [], "Python：360 * 0.8"), [C],
         "exact", "answer"),
        # N: the data have no answer (template_key raises KeyError when they have one now)
        ("N1", "你们卖衣服吗？", key("missing_product", product="衣服"), [Q], "exact", "no_answer"),
        ("N2", "自行车头盔还有货吗？", key("sold_out", product="自行车头盔"), [Q], "exact", "no_answer"),
        ("N3", "拉萨今天天气怎么样？", key("missing_city", city="拉萨"), [W], "exact", "no_answer"),
        # R: a write the person refuses
        ("R1", "帮我下单买 2 个篮球。", key("order", product="篮球"), [Q, "place_order"], "in_order", "refuse"),
        ("R2", "给我订一个瑜伽垫。", key("order", product="瑜伽垫"), [Q, "place_order"], "in_order", "refuse"),
    ]
    seen: dict[str, int] = {}
    built = []
    for case_id, question, (numbers, words, source), tools, mode, kind in rows:
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


# -- sets made from templates: as many questions as wanted, each key still computed by code ----------


@dataclass(frozen=True)
class Template:
    """A kind of question with its wording; the key comes from code, never from the wording's writer.

    Attributes:
        kind: one of ``TEMPLATE_KINDS`` - what the question asks and so how its key is computed
            (``template_key``).
        question: the wording, with ``{product}``, ``{count}`` and ``{city}`` where the chosen
            product, number of pieces and city go, e.g. ``"店里的{product}卖多少钱？"``.
    """

    kind: str
    question: str


# kind -> (case-id letter, tools of a right run, trajectory mode, case kind, what the slots are drawn from)
TEMPLATE_KINDS = {
    "price": ("P", (Q,), "exact", "answer", "product"),
    "brand": ("P", (Q,), "exact", "answer", "product"),
    "stock": ("P", (Q,), "exact", "answer", "product"),
    "total": ("S", (Q, C), "in_order", "answer", "product"),
    "weather": ("W", (W,), "exact", "answer", "city"),
    "humidity": ("W", (W,), "exact", "answer", "city"),
    "missing_product": ("N", (Q,), "exact", "no_answer", "missing_product"),
    "missing_city": ("N", (W,), "exact", "no_answer", "missing_city"),
    "sold_out": ("N", (Q,), "exact", "no_answer", "sold_out"),
    "order": ("R", (Q, "place_order"), "in_order", "refuse", "product"),
}
# The course's own wordings, two per kind; a teacher adds more: generated_cases(seed, templates=TEMPLATES + (...)).
TEMPLATES = (
    Template("price", "店里的{product}多少钱？"), Template("price", "{product}卖多少钱一个？"),
    Template("brand", "{product}是什么品牌的？"), Template("brand", "你们的{product}是哪个牌子？"),
    Template("stock", "{product}还有多少库存？"), Template("stock", "{product}现在还剩几件？"),
    Template("total", "买 {count} 个{product}一共多少钱？"), Template("total", "我要 {count} 件{product}，总共要付多少钱？"),
    Template("weather", "{city}现在多少度？"), Template("weather", "{city}今天的气温是多少？"),
    Template("humidity", "{city}现在的湿度是多少？"), Template("humidity", "{city}空气湿度多少？"),
    Template("missing_product", "你们卖{product}吗？"), Template("missing_product", "店里有{product}吗？"),
    Template("missing_city", "{city}今天天气怎么样？"), Template("missing_city", "{city}现在多少度？"),
    Template("sold_out", "{product}还有货吗？"), Template("sold_out", "我想买{product}，现在能买到吗？"),
    Template("order", "帮我下单买 {count} 个{product}。"), Template("order", "给我订 {count} 件{product}。"),
)
# Things the shop does not sell and cities without weather: each is checked against the data when a set is made.
NOT_SOLD = ("衣服", "自行车", "滑板", "网球拍", "冲浪板", "帐篷")
NO_WEATHER = ("拉萨", "乌鲁木齐", "呼和浩特", "南宁", "海口", "银川")


def template_key(kind: str, shop: dict[str, dict], weather: dict[str, dict], product: str | None = None,
                 city: str | None = None, count: int = 1) -> tuple[list, list[str], str]:
    """The key of one question of ``kind`` about ``product`` / ``city`` / ``count``: computed here, from the data.

    Returns:
        ``(numbers, words, source)``: numbers a right answer contains (Decimal or int), words it
        contains, and where they came from in words.
    Raises:
        KeyError: ``kind`` is not one of ``TEMPLATE_KINDS``, the product or the city is not in the
            data, or a no-answer question has an answer there (a product sold, a city with weather,
            a product in stock).
    """
    csv = "data/products.csv"
    if kind == "price":
        return [Decimal(str(shop[product]["price"]))], [], f"{csv}：{product} price"
    if kind == "brand":
        return [], [shop[product]["brand"]], f"{csv}：{product} brand"
    if kind == "stock":
        return [shop[product]["stock"]], [], f"{csv}：{product} stock_quantity"
    if kind == "total":
        return [count * Decimal(str(shop[product]["price"]))], [], f"{csv}：{product} price × {count}"
    if kind == "weather":
        return [weather[city]["temperature_c"]], [], f"data/weather.json：{city} temperature_c"
    if kind == "humidity":
        return [weather[city]["humidity"]], [], f"data/weather.json：{city} humidity"
    if kind == "missing_product":
        if any(product in name for name in shop):
            raise KeyError(f"eval_set: the shop sells {product} now")
        return [], [], f"{csv}：没有名字含「{product}」的商品"
    if kind == "missing_city":
        if city in weather:
            raise KeyError(f"eval_set: data/weather.json has {city} now")
        return [], [], f"data/weather.json：没有{city}"
    if kind == "sold_out":
        if shop[product]["stock"] != 0:
            raise KeyError(f"eval_set: {product} is in stock now")
        return [], [], f"{csv}：{product} stock_quantity = 0"
    if kind == "order":
        return [], [], f"{csv}：{product} product_id {shop[product]['id']}；下单被拒绝"
    raise KeyError(t("eval_set.unknown_kind", kind=kind, kinds="、".join(TEMPLATE_KINDS)))


def generated_cases(seed: int, per_kind: int = 1, templates: tuple[Template, ...] = TEMPLATES,
                    data_dir: Path | None = None, prefix: str = "G") -> list[Case]:
    """A set of questions made from ``templates`` with the random generator seeded by ``seed``: same seed,
    same set; every key computed from the data files by ``template_key``.

    For each kind that ``templates`` has, ``per_kind`` questions: a wording of that kind and a product,
    city and count drawn for it (products in stock for price/brand/stock/total/order, 2-5 pieces; the
    sold-out products, ``NOT_SOLD`` and ``NO_WEATHER`` for the no-answer kinds, only those the data
    confirm).  No question is asked twice; a kind runs out of questions when its draws do.

    Args:
        seed: the generator's seed (a teacher keeps the exam's seed; the practice set has its own).
        per_kind: questions per kind.
        templates: the wordings (``TEMPLATES`` and any a teacher adds).
        data_dir: where products.csv and weather.json are (default data/).
        prefix: the first letter of every id (``"G1-P3"``: set G, kind P, number 3).
    Returns:
        ``Case`` objects, as ``cases()`` gives them, ``split`` alternating tune / held inside each kind.
    Raises:
        KeyError: a template of an unknown kind, or a wording with a slot its kind does not fill.
        DataFileError: a data file cannot be read.
    """
    shop, weather = products(data_dir), load_weather()
    rng = random.Random(seed)
    pools = {"product": sorted(n for n, row in shop.items() if row["stock"] > 0),
             "city": sorted(weather),
             "missing_product": [n for n in NOT_SOLD if not any(n in name for name in shop)],
             "missing_city": [c for c in NO_WEATHER if c not in weather],
             "sold_out": sorted(n for n, row in shop.items() if row["stock"] == 0)}
    by_kind: dict[str, list[Template]] = {}
    for template in templates:
        if template.kind not in TEMPLATE_KINDS:
            raise KeyError(t("eval_set.unknown_kind", kind=template.kind, kinds="、".join(TEMPLATE_KINDS)))
        by_kind.setdefault(template.kind, []).append(template)
    built, asked, numbered = [], set(), {}
    for kind, wordings in by_kind.items():
        letter, tools, mode, case_kind, pool = TEMPLATE_KINDS[kind]
        slot = "city" if pool in ("city", "missing_city") else "product"
        draws = [(w, item, count) for w in wordings for item in pools[pool] for count in range(2, 6)]
        rng.shuffle(draws)
        made = 0
        for wording, item, count in draws:
            if made == per_kind:
                break
            try:
                question = wording.question.format(**{slot: item, "count": count})
            except (KeyError, IndexError, ValueError) as exc:  # {city} in a product's wording, a stray brace ...
                raise KeyError(t("eval_set.bad_wording", question=wording.question, kind=kind,
                                 slots="{" + slot + "}、{count}", error=exc)) from None
            if question in asked:
                continue
            asked.add(question)
            numbers, words, source = template_key(kind, shop, weather, count=count, **{slot: item})
            numbered[letter] = numbered.get(letter, 0) + 1
            built.append(Case(f"{prefix}{seed}-{letter}{numbered[letter]}", question,
                              tuple(number_text(n) for n in numbers), tuple(words), tools, mode, case_kind, source,
                              "tune" if made % 2 == 0 else "held"))
            made += 1
    return built
