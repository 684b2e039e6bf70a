# Exercise 10-2: answers written from the task text alone (notebooks/10_evaluation.ipynb), without reading the checker.
# %% wrong: no round(total, 2): 2 * 59.9 + 3 * 129.9 becomes "509.50000000000006", which is not found in 「一共 509.5 元」
from course_lib.number_check import has_number


def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    total = 2 * products["足球"] + 3 * products["篮球"]
    return has_number(answer, str(total))
# %% wrong: rounds to whole yuan with round(total), so a total with jiao/fen (509.5) is looked for as 510
from course_lib.number_check import has_number


def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    total = 2 * products["足球"] + 3 * products["篮球"]
    return has_number(answer, str(round(total)))
# %% wrong: quantities swapped (3 footballs and 2 basketballs), only right when both prices are equal
from course_lib.number_check import has_number


def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    total = 3 * products["足球"] + 2 * products["篮球"]
    return has_number(answer, str(round(total, 2)))
# %% wrong: plain substring test instead of has_number, so "1626" contains "626" and "626.0" is not matched by "626"
def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    total = round(2 * products["足球"] + 3 * products["篮球"], 2)
    if total == int(total):
        total = int(total)
    return str(total) in answer
# %% wrong: rounds to one decimal place only (round(total, 1)), so totals with fen such as 69.95 are looked for as 69.9/70.0
from course_lib.number_check import has_number


def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    total = 2 * products["足球"] + 3 * products["篮球"]
    return has_number(answer, str(round(total, 1)))
# %% wrong: int(total) to get rid of the ".0" cuts off jiao and fen, so 509.5 is looked for as 509
from course_lib.number_check import has_number


def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    total = 2 * products["足球"] + 3 * products["篮球"]
    return has_number(answer, str(int(total)))
# %% wrong: accepts any number within 1 yuan of the total instead of the complete number, so 「一共 509 元」 passes for 509.5
from course_lib.number_check import read_numbers


def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    total = 2 * products["足球"] + 3 * products["篮球"]
    return any(abs(float(n) - total) < 1 for n in read_numbers(answer))
# %% wrong: hard-codes the two prices (copied from one example) instead of reading them from products
from course_lib.number_check import has_number


def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    football, basketball = 120, 150  # 例子里的价格
    return has_number(answer, str(round(2 * football + 3 * basketball, 2)))
# %% right: the direct form - compute from products, round to fen, then has_number
from course_lib.number_check import has_number


def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    total = 2 * products["足球"] + 3 * products["篮球"]
    return has_number(answer, str(round(total, 2)))
# %% right: a quantity table summed with a generator, formatted with two decimals ("509.50" is the same number for has_number)
from course_lib.number_check import has_number

ORDER = {"足球": 2, "篮球": 3}


def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    total = sum(count * products[name] for name, count in ORDER.items())
    return has_number(answer, f"{round(total, 2):.2f}")
# %% right: exact decimal arithmetic via Decimal(str(price)), quantized to fen
from decimal import Decimal

from course_lib.number_check import has_number


def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    total = 2 * Decimal(str(products["足球"])) + 3 * Decimal(str(products["篮球"]))
    total = total.quantize(Decimal("0.01"))  # 算到分，例如 Decimal("509.50")
    return has_number(answer, str(total))
