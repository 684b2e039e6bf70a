"""The rules added after the mutation run: requests the API refuses (03-3, 06-2, 07-3), 06-2's default max_steps."""

from __future__ import annotations

import pytest

from course_lib.checkers import nb03, nb06, nb07, request_problem
from notebook_cells import ROOT, solutions_for


def _mutated(stem: str, key: str, name: str, old: str, new: str, client=None):
    """The reference solution ``key`` with ``old`` replaced by ``new`` (which must occur), as a function."""
    source = solutions_for(ROOT / "notebooks" / f"{stem}.ipynb")[key]
    assert old in source
    namespace = {"client": client, "MODEL": "fake-model", "__name__": "__solution__"}
    exec(source.replace(old, new, 1), namespace)
    return namespace[name]


def test_request_problem_roles_and_keys():
    assert request_problem({"messages": [{"role": "user", "content": "hi"}]}) is None
    assert request_problem({"messages": [{"role": "", "content": "hi"}]}).key == "check.request.role"
    assert request_problem({"messages": [{"Xrole": "user", "content": "hi"}]}).key == "check.request.role"
    assert request_problem({"messages": [{"role": "assistant", "Xcontent": None}]}).key == "check.request.key"
    assert request_problem({"temperature": -1}).key == "check.request.range"


def test_03_reference_passes_and_misspelt_key_fails():
    assert nb03.check_single_step(_mutated("03_function_calling", "03-3", "single_step", "x", "x")).passed is True
    wrong = _mutated("03_function_calling", "03-3", "single_step", "max_tokens=200", "max_tokens=200, temperature=-1")
    result = nb03.check_single_step(wrong)
    assert result.passed is False and result.hint == "check.request.numbered"


def test_06_default_max_steps_must_stay_3():
    assert nb06.check_agent_loop(_mutated("06_agent_loop", "06-2", "agent_loop", "x", "x")).passed is True
    result = nb06.check_agent_loop(_mutated("06_agent_loop", "06-2", "agent_loop", "max_steps=3", "max_steps=4"))
    assert result.passed is False and result.hint == "check.06.agent_loop.default"


def test_06_assistant_message_with_misspelt_content_key_fails():
    wrong = _mutated("06_agent_loop", "06-2", "agent_loop", '"assistant", "content"', '"assistant", "Xcontent"')
    result = nb06.check_agent_loop(wrong)
    assert result.passed is False and result.hint == "check.request.numbered"


@pytest.mark.parametrize("old, new", [("temperature=0", "temperature=-1"), ('"role": "user"', '"role": "Xuser"')])
def test_07_refused_request_fails(old, new):
    from course_lib.checkers.scripted import ScriptedModel
    client = ScriptedModel([]).client()
    assert nb07.check_weather_brief(_mutated("07_comparison", "07-3", "weather_brief", "x", "x", client), client).passed
    result = nb07.check_weather_brief(_mutated("07_comparison", "07-3", "weather_brief", old, new, client), client)
    assert result.passed is False and result.hint.startswith("check.request.")
