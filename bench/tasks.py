"""The agent task suite: 40 questions whose right answers come from the course tools' data.

Every task has a code check, so "solved" is decided by code, not by eye.
A check receives the final answer text and the tool calls that really ran
(``[(tool name, arguments dict), ...]``, recorded by the bench's tool
wrappers, so it is the same for every loop and framework) and returns True
or False.

The suite is split once, before any tuning, into two halves of 20 tasks:
``"tune"`` (look at these while changing prompts, templates or tools) and
``"held"`` (held apart: only their score is reported).  Within each
category the tasks alternate tune / held, so both halves cover the same kinds
of work.  Do not move a task between halves after the fact.

Where the expected values come from: data/weather.json, data/products.csv,
data/knowledge.json and the calculator (see ``test_bench.py``, which checks
every expected value against the tools themselves).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from course_lib.eval_set import NO_ANSWER_WORDS
from course_lib.number_check import has_number

ToolRuns = list[tuple[str, dict]]
Check = Callable[[str, ToolRuns], bool]


def number_in(answer: str | None, number: str) -> bool:
    """True if ``number`` (e.g. "300", "42.195") appears in ``answer`` as a whole number.

    Read by the course's one number reader (``course_lib.number_check.has_number``):
    "1300", "3000" and "300.5" do not contain "300"; "300。" and "300元" do; a trailing
    ".0" is accepted ("360.0" contains "360"); thousands separators in any width join
    a number ("7,006,652", "１，８８０"), a list does not ("1,2,3", "3, 400").
    """
    return has_number(answer or "", number)


def numbers(*wanted: str) -> Check:
    """Every number in ``wanted`` appears as a whole number in the answer."""
    return lambda answer, runs: all(number_in(answer, n) for n in wanted)


def any_number(*wanted: str) -> Check:
    """At least one of the numbers appears."""
    return lambda answer, runs: any(number_in(answer, n) for n in wanted)


def words(*wanted: str) -> Check:
    """Every word appears in the answer."""
    return lambda answer, runs: all(w in (answer or "") for w in wanted)


def any_word(*wanted: str) -> Check:
    """At least one of the words appears in the answer."""
    return lambda answer, runs: any(w in (answer or "") for w in wanted)


def used(tool: str, check: Check) -> Check:
    """``check`` holds AND ``tool`` really ran (the answer must come from a look-up)."""
    return lambda answer, runs: any(name == tool for name, _ in runs) and check(answer, runs)


def both(first: Check, second: Check) -> Check:
    return lambda answer, runs: first(answer, runs) and second(answer, runs)


def no_tool(answer: str | None, runs: ToolRuns) -> bool:
    """A plain answer with no tool call at all."""
    return bool((answer or "").strip()) and not runs


NO_WORDS = NO_ANSWER_WORDS  # one list with notebook 10 (course_lib.eval_set)


@dataclass(frozen=True)
class Task:
    """One benchmark task.

    Attributes:
        id: short id, e.g. ``"C1"`` (the letter is the category).
        question: what the user asks, in plain Chinese.
        check: ``check(answer, tool_runs) -> bool``.
        expected: the right answer in words, for the results table.
        needs: which tools a good solution uses.
        split: ``"tune"`` or ``"held"``.
    """

    id: str
    question: str
    check: Check
    expected: str
    needs: str
    split: str


def _suite(rows: list[tuple[str, str, Check, str, str]]) -> list[Task]:
    """Tasks alternate tune / held inside each category (the id's letter)."""
    seen: dict[str, int] = {}
    tasks = []
    for task_id, question, check, expected, needs in rows:
        k = seen.get(task_id[0], 0)
        seen[task_id[0]] = k + 1
        tasks.append(Task(task_id, question, check, expected, needs, "tune" if k % 2 == 0 else "held"))
    return tasks


TASKS: list[Task] = _suite([
    # C: arithmetic (calculate)
    ("C1", "20 * 15 等于多少？", numbers("300"), "300", "calculate"),
    ("C2", "(123 + 456) * 2 等于多少？", numbers("1158"), "1158", "calculate"),
    ("C3", "1234 乘以 5678 是多少？", numbers("7006652"), "7006652", "calculate"),
    ("C4", "2 的 10 次方是多少？", numbers("1024"), "1024", "calculate"),
    ("C5", "100 除以 8 等于几？", numbers("12.5"), "12.5", "calculate"),
    ("C6", "一件商品原价 360 元，打八折以后是多少钱？", numbers("288"), "288", "calculate"),
    # K: offline knowledge (search_knowledge)
    ("K1", "世界上最长的河流是什么？", words("尼罗河"), "尼罗河", "search_knowledge"),
    ("K2", "珠穆朗玛峰海拔多少米？", any_number("8848.86", "8848"), "8848.86 米", "search_knowledge"),
    ("K3", "马拉松全程是多少公里？", numbers("42.195"), "42.195 公里", "search_knowledge"),
    ("K4", "世界上最深的湖是哪个？", words("贝加尔湖"), "贝加尔湖", "search_knowledge"),
    ("K5", "故宫始建于哪一年？", numbers("1406"), "1406 年", "search_knowledge"),
    ("K6", "首届足球世界杯是在哪个国家举办的？", words("乌拉圭"), "乌拉圭", "search_knowledge"),
    # W: one city's weather (get_weather)
    ("W1", "上海现在的湿度是多少？", numbers("65"), "65%", "get_weather"),
    ("W2", "北京今天天气怎么样？", both(words("晴"), numbers("25")), "晴，25°C", "get_weather"),
    ("W3", "哈尔滨现在多少度？", numbers("16"), "16°C", "get_weather"),
    ("W4", "广州现在是什么天气？", words("雷阵雨"), "雷阵雨", "get_weather"),
    ("W5", "用华氏度告诉我北京现在的气温。", numbers("77"), "77°F", "get_weather"),
    ("W6", "拉萨今天天气怎么样？", used("get_weather", any_word("没有", "暂无", "无法", "查不到", "没查到", "不知道")),
               "没有拉萨的数据", "get_weather"),
    # M: two items at once
    ("M1", "北京和上海现在哪个城市更热？", both(words("上海"), numbers("28", "25")), "上海（28°C > 25°C）", "get_weather ×2"),
    ("M2", "北京和广州现在的气温相差多少度？", numbers("6"), "6 度", "get_weather ×2 (+ calculate)"),
    ("M3", "篮球和跑步鞋分别多少钱？", numbers("200", "680"), "200 元、680 元", "query_by_product_name ×2"),
    ("M4", "成都和重庆现在的湿度分别是多少？", numbers("70", "75"), "70%、75%", "get_weather ×2"),
    ("M5", "篮球和足球一共多少钱？", numbers("320"), "320 元", "query_by_product_name ×2 (+ calculate)"),
    ("M6", "西安和昆明现在哪个城市湿度更低？", both(words("西安"), numbers("35", "55")), "西安（35% < 55%）", "get_weather ×2"),
    # P: the shop's products (query_by_product_name)
    ("P1", "店里的篮球多少钱？", numbers("200"), "200 元", "query_by_product_name"),
    ("P2", "你家都卖什么球？", words("足球", "羽毛球拍", "篮球", "乒乓球拍"), "足球、羽毛球拍、篮球、乒乓球拍套装",
               "query_by_product_name"),
    ("P3", "你们卖衣服吗？", used("query_by_product_name", any_word(*NO_WORDS)), "不卖（查询结果为空）", "query_by_product_name"),
    ("P4", "瑜伽垫是什么品牌的？", words("Keep"), "Keep", "query_by_product_name"),
    ("P5", "自行车头盔还有货吗？", used("query_by_product_name", any_word(*NO_WORDS)), "没有货（库存 0）",
               "query_by_product_name"),
    ("P6", "跑步鞋还有多少库存？", numbers("25"), "25", "query_by_product_name"),
    # S: several steps, the second depends on the first
    ("S1", "买 3 个足球一共多少钱？", numbers("360"), "360 元", "query_by_product_name + calculate"),
    ("S2", "查一下北京的气温，然后算出这个温度乘以 3 是多少。", numbers("75"), "75", "get_weather + calculate"),
    ("S3", "买 2 个篮球和 1 双跑步鞋一共多少钱？", numbers("1080"), "1080 元", "query_by_product_name ×2 + calculate"),
    ("S4", "上海的气温比杭州高几度？", numbers("4"), "4 度", "get_weather ×2 (+ calculate)"),
    ("S5", "长江比黄河长多少公里？", numbers("836"), "836 公里", "search_knowledge ×2 + calculate"),
    ("S6", "我有 500 元预算，够买 2 个羽毛球拍吗？", both(any_word("不够", "不足", "不能", "买不起", "超出", "超过"), numbers("600")),
               "不够（要 600 元）", "query_by_product_name + calculate"),
    # N: no tool needed
    ("N1", "你好，在吗？", no_tool, "直接回答，不调用工具", "-"),
    ("N2", "请用一句话介绍一下你自己。", no_tool, "直接回答，不调用工具", "-"),
    ("N3", "谢谢你的帮助！", no_tool, "直接回答，不调用工具", "-"),
    ("N4", "给我讲一个很短的笑话。", no_tool, "直接回答，不调用工具", "-"),
])

# Notebook 07's eight tasks, so the bench and the notebook can be compared.
NOTEBOOK_07 = ["C1", "C2", "K1", "K2", "W1", "M2", "P1", "S1"]


def by_id(task_id: str) -> Task:
    """The task called ``task_id``.  Raises KeyError for an unknown id."""
    for task in TASKS:
        if task.id == task_id:
            return task
    raise KeyError(task_id)


def select(split: str = "all", ids: list[str] | None = None) -> list[Task]:
    """Tasks of one half (``"tune"``, ``"held"``) or ``"all"``; ``ids`` picks by id instead.

    Raises:
        ValueError: an unknown split; KeyError: an unknown id.
    """
    if ids:
        return [by_id(i) for i in ids]
    if split == "all":
        return list(TASKS)
    if split not in ("tune", "held"):
        raise ValueError(f"split must be 'all', 'tune' or 'held', not {split!r}")
    return [t for t in TASKS if t.split == split]
