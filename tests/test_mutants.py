"""bench/mutants.py (issue 42): the mutation operators, the runner, and a smoke run on two real exercises.

No test asserts a killed share: the checkers change, and the figures are measured by
``python -m bench.mutants`` (bench/results/mutants.md), not here.
"""

from __future__ import annotations

import ast
import tempfile
import time

import pytest

from bench import mutants as M

SAMPLE = '''
def pick(items, limit, label="big"):
    """Items below limit, up to the first zero."""
    found = []
    seen = False
    for item in items:
        if item < limit and item != 0:
            found.append(item)
        else:
            break
    if not found:
        return None
    text = label if seen else None
    print(f"picked {len(found)}", end="")
    return found[0] + 1
'''

# operator -> mutated lines (stripped) that it must produce on SAMPLE
EXPECTED = {
    "first_last": ["return found[-1] + 1"],
    "compare_negate": ["if item >= limit and item != 0:", "if item < limit and item == 0:"],
    "compare_boundary": ["if item <= limit and item != 0:"],
    "and_or": ["if item < limit or item != 0:"],
    "arith": ["return found[0] - 1"],
    "constant_plus1": ["return found[0] + 2", "if item < limit and item != 1:"],
    "constant_minus1": ["return found[0] + 0"],
    "constant_flip": ["seen = True"],
    "constant_empty": ["def pick(items, limit, label=''):"],
    "constant_changed": ["def pick(items, limit, label='Xbig'):"],
    "constant_none": ["text = label if seen else ''"],
    "drop_arg": ["found.append()"],
    "drop_kwarg": ['print(f"picked {len(found)}")'],
    "swap_branches": ["text = None if seen else label"],
    "negate": ["if found:"],
    "return_first_arg": ["return items"],
    "return_none": ["return None"],
    "remove_stmt": ["pass"],
}


def mutated_lines(mutant: M.Mutant) -> set[str]:
    return {new.strip() for _, _, new in mutant.changes}


def test_every_operator_has_an_expectation():
    assert set(EXPECTED) == set(M.OPERATORS)


@pytest.mark.parametrize("operator", list(EXPECTED))
def test_each_operator_makes_the_expected_mutant(operator):
    made = M.mutants(SAMPLE, [operator])
    lines = set().union(*(mutated_lines(m) for m in made))
    for want in EXPECTED[operator]:
        assert want in lines, (operator, sorted(lines))
    assert all(m.operator == operator and m.id.startswith(operator + "@") for m in made)


def test_no_mutant_is_the_original_each_compiles_and_all_differ():
    original = ast.unparse(ast.parse(SAMPLE))
    made = M.mutants(SAMPLE)
    assert len(made) > 30
    keys = [ast.unparse(ast.parse(m.source)) for m in made]
    assert original not in keys
    assert len(set(keys)) == len(keys)
    assert len({m.id for m in made}) == len(made)
    for m in made:
        compile(m.source, m.id, "exec")


def test_the_docstring_is_left_alone_and_a_duplicate_keeps_the_first_operator():
    made = M.mutants(SAMPLE)
    assert not any("Items below limit" in old for m in made for _, old, _ in m.changes)
    last = [m for m in made if "return found[-1] + 1" in mutated_lines(m)]
    assert [m.operator for m in last] == ["first_last"]  # not also constant_minus1


def test_swap_and_remove_keep_the_layout_and_ids_are_stable():
    made = {m.id: m for m in M.mutants(SAMPLE)}
    removed = made["remove_stmt@found.append(item)#1"]
    assert removed.changes == ((8, "            found.append(item)", "            pass"),)
    assert M.mutants(SAMPLE)[5].id == list(made)[5]  # the same order every time
    # a change elsewhere in the block, or lines added above, rename no mutant on another line
    moved = {m.id for m in M.mutants(SAMPLE.replace("seen = False", "seen = False  # comment"))}
    assert "remove_stmt@found.append(item)#1" in moved
    shifted = {m.id for m in M.mutants("# a comment\n\n" + SAMPLE)}
    assert set(made) == shifted


def test_spread_keeps_a_cap_evenly():
    assert M.spread(list(range(10)), 5) == [0, 2, 4, 6, 8]
    assert M.spread([1, 2], 5) == [1, 2]
    assert M.spread([1, 2], None) == [1, 2]


def test_an_equivalent_is_named_by_id_or_by_its_mutated_line():
    mutant = next(m for m in M.mutants(SAMPLE, ["first_last"]))
    assert M._equivalent_reason(mutant, [{"line": mutant.id, "why": "by id"}]) == "by id"
    assert M._equivalent_reason(mutant, [{"line": "return found[-1] + 1", "why": "by line"}]) == "by line"
    assert M._equivalent_reason(mutant, [{"line": "return found[0] + 1", "why": "no"}]) is None


# --- the runner -------------------------------------------------------------------------------

RESULT = "class R:\n    def __init__(self, ok):\n        self.passed = ok\n"
HARD_CODED = "\ndef double(x):\n    if x == 2:\n        return 4\n    return x * 2\n"


@pytest.fixture(scope="module")
def workers():
    with tempfile.TemporaryDirectory(prefix="test-mutants-") as folder:
        pool = M.start_workers(2, folder)
        yield pool
        for worker in pool:
            worker.close()


def test_a_checker_of_one_sample_lets_the_untried_line_survive(workers):
    weak = M.Exercise("t-1", HARD_CODED, RESULT + "R(double(2) == 4)\n")
    result = M.run_exercise(weak, workers, timeout=10, cap=None, operators=["arith", "return_none"])
    assert result["reference"] == "passes"
    survivors = {new.strip() for s in result["survivors"] for _, new in s["changes"]}
    assert "return x / 2" in survivors and "return None" in survivors
    assert result["survived"] >= 2 and result["share"] < 1

    strong = M.Exercise("t-1", HARD_CODED, RESULT + "R(all(double(n) == 2 * n for n in range(-3, 4)))\n")
    result = M.run_exercise(strong, workers, timeout=10, cap=None, operators=["arith", "return_none"])
    assert result["survived"] == 0 and result["killed"] == result["mutants"] > 0 and result["share"] == 1


def test_a_mutant_that_loops_is_killed_by_the_time_limit(workers):
    counting = M.Exercise("t-2", "\ndef count(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n",
                          RESULT + "R(count(3) == 3)\n")
    started = time.perf_counter()
    result = M.run_exercise(counting, workers, timeout=1, cap=None, operators=["remove_stmt"])
    assert result["killed_by"].get("timeout") == 1  # i += 1 removed
    assert result["killed_by"].get("error") == 1  # i = 0 removed: the cell raises
    assert result["killed"] == result["mutants"] == 3
    assert time.perf_counter() - started < 15


def test_a_reference_that_fails_its_checker_is_reported_and_nothing_runs(workers):
    wrong = M.Exercise("t-3", HARD_CODED, RESULT + "R(double(3) == 7)\n")
    result = M.run_exercise(wrong, workers, timeout=10, cap=None)
    assert result["reference"].startswith("fails")
    assert result["mutants"] == 0 and result["share"] is None
    assert "reference fails" in M.markdown({"date": "d", "python": "3", "workers": 2, "timeout_s": 10, "cap": None,
                                            "seconds": 1, "exercises": {"t-3": result}})


def test_smoke_two_real_exercises(tmp_path):
    results = M.run(["01-2", "10-3"], workers=2, timeout=10, cap=None)
    for key in ("01-2", "10-3"):
        r = results["exercises"][key]
        assert r["reference"] == "passes", f"the reference solution of {key} fails its own checker"
        assert r["mutants"] > 0 and r["killed"] > 0
        assert r["killed"] + r["equivalent"] + r["survived"] == r["mutants"]
    json_path, md_path = M.write(results, tmp_path)
    assert "| 10-3 |" in md_path.read_text(encoding="utf-8")
    assert json_path.stat().st_size > 0


def test_the_equivalence_list_survives_lines_added_above():
    """A comment line added at the top of every solution block renames no mutant: every argued
    equivalent still names its mutant (issue 54: ids by line number dropped a score from 100 % to 89 %)."""
    equivalents = M.load_equivalents()
    for key, exercise in M.exercises().items():
        entries = equivalents.get(key, [])
        if not entries:
            continue
        head, _, rest = exercise.solution.partition("\n")
        moved = f"{head}\n# 老师加的一行注释\n\n{rest}"

        def argued(source: str) -> list[str]:
            return sorted(m.id for m in M.mutants(source) if M._equivalent_reason(m, entries) is not None)

        assert argued(moved) == argued(exercise.solution), key
        assert argued(exercise.solution), key  # the list names real mutants of today's block
