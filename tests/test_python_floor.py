"""The Python version the course says it needs is one every pinned client package installs on.

A student with an older Python would otherwise get a pip error about one package
("No matching distribution found for ipykernel==…") instead of course.py's sentence.
"""
import re
from importlib.metadata import PackageNotFoundError, metadata
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parent.parent


def stated_floor() -> tuple[int, int]:
    pyproject = re.search(r'requires-python = ">=(\d+)\.(\d+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    script = re.search(r"^MIN_PYTHON = \((\d+), (\d+)\)", (ROOT / "course.py").read_text(encoding="utf-8"), re.M)
    assert pyproject and script
    floor = (int(pyproject[1]), int(pyproject[2]))
    assert floor == (int(script[1]), int(script[2])), "pyproject.toml and course.py name different Python versions"
    return floor


def pins():
    for line in (ROOT / "requirements-client.txt").read_text(encoding="utf-8").splitlines():
        match = re.match(r"\s*([A-Za-z0-9_.\-]+)==", line)
        if match:
            yield match[1]


@pytest.mark.parametrize("package", list(pins()))
def test_every_pinned_client_package_installs_on_the_stated_python(package):
    major, minor = stated_floor()
    try:
        wanted = metadata(package).get("Requires-Python")
    except PackageNotFoundError:
        pytest.skip(f"{package} is not installed here")
    if wanted:
        assert f"{major}.{minor}.0" in SpecifierSet(wanted), f"{package} needs Python {wanted}"


def test_the_readme_names_the_same_python():
    major, minor = stated_floor()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"Python (\d+\.\d+)\+", readme))
    assert named == {f"{major}.{minor}"}, named


def test_the_bash_wrapper_names_the_same_python():
    """course.sh says which Python is needed when it finds none to run course.py with."""
    major, minor = stated_floor()
    assert f"Python {major}.{minor} 或更新的版本" in (ROOT / "course.sh").read_text(encoding="utf-8")


def test_the_setup_notebook_asks_for_the_stated_python():
    """00's first check (its assert and the sentence above it) names the version course.py and
    pyproject.toml require, so a student is not told an older Python is enough."""
    import nbformat

    major, minor = stated_floor()
    nb = nbformat.read(ROOT / "notebooks" / "00_setup.ipynb", as_version=4)
    text = "\n".join(cell.source for cell in nb.cells)
    asserts = re.findall(r"assert sys\.version_info >= \((\d+), (\d+)\), \"([^\"]*)\"", text)
    assert asserts, "00 checks the Python version with an assert"
    for found_major, found_minor, message in asserts:
        assert (int(found_major), int(found_minor)) == (major, minor), (found_major, found_minor)
        assert f"{major}.{minor}" in message, message
    named = set(re.findall(r"Python (3\.\d+)", text))
    assert named == {f"{major}.{minor}"}, f"00 names Python versions {sorted(named)}"
