"""A ``.env`` that is not named ``.env`` (issue 30, part 5): noticed and named, never silently ignored.

Windows Explorer hides known extensions, so a ``.env`` written in Notepad is
saved as ``.env.txt`` and still shows as ``.env``; Explorer also used to refuse
a name that starts with a dot, so people type ``env``.  The course then read no
settings at all: a student who chose ``COURSE_PROVIDER=classroom`` got the local
model (and ``python course.py setup`` compiled llama-server for nothing).  Now
``settings.load_env`` (every ``get_provider()``) and the set-up's pre-check
(``setup_check.misnamed_dotenv``, which settings uses too) name the file and say how to rename it.
"""

from __future__ import annotations

import pytest

from course_runtime import settings, setup_check
from course_lib.providers import ProviderError, get_provider

LINES = "COURSE_PROVIDER=classroom\nCOURSE_BASE_URL=http://192.168.1.23:8766/v1\nCOURSE_CLASS_KEY=course-class-0123\n"
SETTINGS = ["COURSE_PROVIDER", "COURSE_BASE_URL", "COURSE_CLASS_KEY", "COURSE_MODEL", "COURSE_EXTRA_BODY"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project folder whose .env ``get_provider`` reads (nothing else from the real one)."""
    monkeypatch.delenv("COURSE_IGNORE_DOTENV", raising=False)
    monkeypatch.setattr(settings, "PROJECT_ROOT", tmp_path)
    monkeypatch.setattr(settings, "_FROM_DOTENV", {})
    monkeypatch.setattr(settings, "_DOTENV_VALUES", {})
    for name in SETTINGS:
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    return tmp_path


@pytest.mark.parametrize("name", [".env.txt", "env", "env.txt", ".ENV"])
def test_a_dotenv_under_another_name_is_named_with_the_fix(project, name):
    (project / name).write_text(LINES, encoding="utf-8")
    if (project / ".env").is_file():
        pytest.skip(f"this disk does not tell {name} from .env (macOS, Windows): python-dotenv reads it")
    with pytest.raises(ProviderError) as err:
        get_provider()
    text = str(err.value)
    assert name in text and str(project) in text and "改名" in text and ".env" in text
    assert "course-class-0123" not in text  # the file's contents are never shown
    with pytest.raises(settings.EnvFileError):
        settings.load_env()


def test_the_set_up_names_it_before_installing_anything(project, monkeypatch):
    (project / ".env.txt").write_text(LINES, encoding="utf-8")
    assert setup_check.misnamed_dotenv(project) == project / ".env.txt"
    monkeypatch.setattr(setup_check, "ROOT", project)
    problems = setup_check.run(install=False, build=False, local_model=False)
    assert any(".env.txt" in problem and "改名" in problem for problem in problems), problems


def test_variant_a_venv_folder_named_env_and_a_real_dotenv_are_left_alone(project):
    (project / "env").mkdir()  # python -m venv env: a folder, not a settings file
    assert setup_check.misnamed_dotenv(project) is None
    assert get_provider().name == "local"
    (project / ".env").write_text(LINES, encoding="utf-8")
    (project / ".env.txt").write_text("COURSE_PROVIDER=deepseek\n", encoding="utf-8")  # a backup beside the real one
    assert setup_check.misnamed_dotenv(project) is None
    assert get_provider().name == "classroom"


@pytest.mark.parametrize("names", [[".env.txt"], ["env"], ["Env.TXT"], [".env.txt.txt"], ["env.example"], [".envrc"],
                                   [".env", "env"], []])
def test_the_set_up_and_the_notebooks_use_one_check(tmp_path, names):
    """One function (setup_check runs before python-dotenv is installed; settings imports it)."""
    assert settings.misnamed_dotenv is setup_check.misnamed_dotenv
    for name in names:
        (tmp_path / name).write_text("X=1\n", encoding="utf-8")
    expected = names[0] if names and names[0] not in ("env.example", ".envrc", ".env") else None
    found = setup_check.misnamed_dotenv(tmp_path)
    assert (found.name if found else None) == expected
