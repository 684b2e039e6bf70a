"""The time-per-group report of tests/conftest.py adds up the right tests."""
from conftest import duration_table


def test_groups_and_files_are_summed_and_ordered():
    seconds = {"tests/test_a.py::x": 2.0, "tests/test_a.py::y": 3.0,
               "tests/test_notebooks.py::run[01]": 50.0, "tests/test_b.py::z": 1.0}
    groups = {"tests/test_notebooks.py::run[01]": "notebook"}
    table = duration_table(seconds, groups, top=2)
    group_rows = [line for line in table.splitlines() if line.startswith("| notebook") or line.startswith("| unit")]
    assert group_rows == ["| notebook | 1 | 50 | 89 % |", "| unit | 3 | 6 | 11 % |"]
    file_rows = [line for line in table.splitlines() if line.startswith("| tests/")]
    assert file_rows == ["| tests/test_notebooks.py | 1 | 50 |", "| tests/test_a.py | 2 | 5 |"]
