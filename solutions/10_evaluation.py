# notebooks/10_evaluation.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 10-1
def in_order(actual, expected):
    """expected 里的工具名按顺序出现在 actual 里（中间可以有别的调用）。"""
    position = 0
    for name in expected:
        while position < len(actual) and actual[position] != name:
            position += 1
        if position == len(actual):  # 找到头也没找到这个名字
            return False
        position += 1  # 下一个名字从它后面接着找：用过的调用不能再用一次
    return True


# %% exercise 10-2
from course_lib.number_check import has_number


def check_football_basketball(answer, products):
    """回答里有正确的总价：2 个足球 + 3 个篮球，价格来自 products。"""
    # 算到分：价格是小数时，浮点数相加会有误差（2 * 59.9 + 3 * 129.9 得到 509.50000000000006）。
    total = round(2 * products["足球"] + 3 * products["篮球"], 2)
    return has_number(answer, str(total))


# %% exercise 10-3
def kappa(judge, code):
    """Cohen's κ：扣掉碰巧一致以后，评委和代码检查的一致程度。"""
    n = len(judge)
    observed = sum(j == c for j, c in zip(judge, code)) / n
    judge_pass, code_pass = sum(judge) / n, sum(code) / n
    chance = judge_pass * code_pass + (1 - judge_pass) * (1 - code_pass)
    if chance == 1:  # 两边对每个回答都给同一个结论：公式要除以 0，κ 没有定义
        return None
    return (observed - chance) / (1 - chance)
