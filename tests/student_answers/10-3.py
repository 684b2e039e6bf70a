# Exercise 10-3: answers written from the task text alone (notebooks/10_evaluation.ipynb), without reading the checker.
# %% wrong: returns 1.0 when p_e is 1 (both sides give one verdict to everything), which the task explicitly forbids - it must be None
def kappa(judge, code):
    """Cohen's κ：扣掉碰巧一致以后，评委和代码检查的一致程度。"""
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    pj = sum(judge) / n
    pc = sum(code) / n
    p_e = pj * pc + (1 - pj) * (1 - pc)
    if p_e == 1:
        return 1.0
    return (p_o - p_e) / (1 - p_e)
# %% wrong: p_e forgets the fail term (only judge-pass x code-pass)
def kappa(judge, code):
    """Cohen's κ：扣掉碰巧一致以后，评委和代码检查的一致程度。"""
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    p_e = (sum(judge) / n) * (sum(code) / n)
    if p_e == 1:
        return None
    return (p_o - p_e) / (1 - p_e)
# %% wrong: returns None whenever the judge alone gives one verdict to everything, although p_e is then below 1 if the code is mixed (κ = 0.0 there)
def kappa(judge, code):
    """Cohen's κ：扣掉碰巧一致以后，评委和代码检查的一致程度。"""
    if len(set(judge)) == 1:
        return None
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    pj = sum(judge) / n
    pc = sum(code) / n
    p_e = pj * pc + (1 - pj) * (1 - pc)
    return (p_o - p_e) / (1 - p_e)
# %% wrong: copy-paste slip in p_e - the fail term uses the judge's fail rate twice instead of judge-fail x code-fail
def kappa(judge, code):
    """Cohen's κ：扣掉碰巧一致以后，评委和代码检查的一致程度。"""
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    judge_pass = sum(judge) / n
    code_pass = sum(code) / n
    p_e = judge_pass * code_pass + (1 - judge_pass) * (1 - judge_pass)
    if p_e == 1:
        return None
    return (p_o - p_e) / (1 - p_e)
# %% wrong: p_o counts only the answers both call pass, not the ones both call fail
def kappa(judge, code):
    """Cohen's κ：扣掉碰巧一致以后，评委和代码检查的一致程度。"""
    n = len(judge)
    p_o = sum(1 for j, c in zip(judge, code) if j and c) / n
    pj = sum(judge) / n
    pc = sum(code) / n
    p_e = pj * pc + (1 - pj) * (1 - pc)
    if p_e == 1:
        return None
    return (p_o - p_e) / (1 - p_e)
# %% wrong: undefined κ is returned as float("nan") instead of None
def kappa(judge, code):
    """Cohen's κ：扣掉碰巧一致以后，评委和代码检查的一致程度。"""
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    pj = sum(judge) / n
    pc = sum(code) / n
    p_e = pj * pc + (1 - pj) * (1 - pc)
    if p_e == 1:
        return float("nan")
    return (p_o - p_e) / (1 - p_e)
# %% wrong: the denominator is 1 - p_o instead of 1 - p_e (and None is returned when the two agree everywhere)
def kappa(judge, code):
    """Cohen's κ：扣掉碰巧一致以后，评委和代码检查的一致程度。"""
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    pj = sum(judge) / n
    pc = sum(code) / n
    p_e = pj * pc + (1 - pj) * (1 - pc)
    if p_o == 1:
        return None
    return (p_o - p_e) / (1 - p_o)
# %% right: the proportions straight from the formula, with an explicit p_e == 1 test
def kappa(judge, code):
    """Cohen's κ：扣掉碰巧一致以后，评委和代码检查的一致程度。"""
    n = len(judge)
    p_o = sum(j == c for j, c in zip(judge, code)) / n
    judge_pass = sum(judge) / n
    code_pass = sum(code) / n
    p_e = judge_pass * code_pass + (1 - judge_pass) * (1 - code_pass)
    if p_e == 1:
        return None  # 两边对每个回答都给同一个结论：κ 没有定义
    return (p_o - p_e) / (1 - p_e)
# %% right: integer counts of a 2x2 table (no float comparison for the undefined case), one division at the end
from collections import Counter


def kappa(judge, code):
    """Cohen's κ：扣掉碰巧一致以后，评委和代码检查的一致程度。"""
    n = len(judge)
    table = Counter(zip(judge, code))
    agree = table[(True, True)] + table[(False, False)]
    judge_pass = table[(True, True)] + table[(True, False)]
    code_pass = table[(True, True)] + table[(False, True)]
    chance = judge_pass * code_pass + (n - judge_pass) * (n - code_pass)  # = p_e * n * n
    if chance == n * n:
        return None
    return (agree * n - chance) / (n * n - chance)
# %% right: let the division by zero happen and turn ZeroDivisionError into None
def kappa(judge, code):
    """Cohen's κ：扣掉碰巧一致以后，评委和代码检查的一致程度。"""
    n = len(judge)
    p_o = len([1 for j, c in zip(judge, code) if j == c]) / n
    p_j = judge.count(True) / n
    p_c = code.count(True) / n
    p_e = p_j * p_c + (1 - p_j) * (1 - p_c)
    try:
        return (p_o - p_e) / (1 - p_e)
    except ZeroDivisionError:
        return None
