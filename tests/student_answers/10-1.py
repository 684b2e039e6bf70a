# Exercise 10-1: answers written from the task text alone (notebooks/10_evaluation.ipynb), without reading the checker.
# %% wrong: uses actual.index(name) (always the first occurrence) and a non-decreasing test, so a name expected twice passes when actual has it once
def in_order(actual, expected):
    """expected 里的工具名按顺序出现在 actual 里（中间可以有别的调用）。"""
    positions = []
    for name in expected:
        if name not in actual:
            return False
        positions.append(actual.index(name))
    return positions == sorted(positions)
# %% wrong: demands expected as a contiguous block of actual, so other calls in between are not allowed
def in_order(actual, expected):
    """expected 里的工具名按顺序出现在 actual 里（中间可以有别的调用）。"""
    n = len(expected)
    return any(actual[i:i + n] == expected for i in range(len(actual) - n + 1))
# %% wrong: keeps only the expected names from actual and compares for equality, so an extra repeat of an expected name makes it False
def in_order(actual, expected):
    """expected 里的工具名按顺序出现在 actual 里（中间可以有别的调用）。"""
    kept = [name for name in actual if name in expected]
    return kept == expected
# %% wrong: searches from the matched position without +1, so one occurrence in actual satisfies a name expected twice
def in_order(actual, expected):
    """expected 里的工具名按顺序出现在 actual 里（中间可以有别的调用）。"""
    pos = 0
    for name in expected:
        try:
            pos = actual.index(name, pos)
        except ValueError:
            return False
    return True
# %% wrong: an empty actual returns False before looking at expected, so in_order([], []) is False although an empty expected is always True
def in_order(actual, expected):
    """expected 里的工具名按顺序出现在 actual 里（中间可以有别的调用）。"""
    if not actual:
        return False
    i = 0
    for name in actual:
        if i < len(expected) and name == expected[i]:
            i += 1
    return i == len(expected)
# %% wrong: compares the last occurrence of each name, so [a, b, a] is judged not to contain a then b
def in_order(actual, expected):
    """expected 里的工具名按顺序出现在 actual 里（中间可以有别的调用）。"""
    last = {name: i for i, name in enumerate(actual)}
    previous = -1
    for name in expected:
        if name not in last or last[name] <= previous:
            return False
        previous = last[name]
    return True
# %% wrong: only compares position by position with zip (a prefix check), so calls in between break it
def in_order(actual, expected):
    """expected 里的工具名按顺序出现在 actual 里（中间可以有别的调用）。"""
    if len(expected) > len(actual):
        return False
    return all(a == e for a, e in zip(actual, expected))
# %% right: the iterator idiom - `in` on a shared iterator consumes it, so each match starts after the previous one
def in_order(actual, expected):
    """expected 里的工具名按顺序出现在 actual 里（中间可以有别的调用）。"""
    remaining = iter(actual)
    return all(name in remaining for name in expected)
# %% right: two pointers in an explicit loop over actual
def in_order(actual, expected):
    """expected 里的工具名按顺序出现在 actual 里（中间可以有别的调用）。"""
    i = 0
    for name in actual:
        if i == len(expected):
            break
        if name == expected[i]:
            i += 1
    return i == len(expected)
# %% right: list.index with a start just past the previous match, ValueError means missing
def in_order(actual, expected):
    """expected 里的工具名按顺序出现在 actual 里（中间可以有别的调用）。"""
    start = 0
    for name in expected:
        try:
            start = actual.index(name, start) + 1
        except ValueError:
            return False
    return True
