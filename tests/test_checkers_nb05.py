"""The 05-2 checker of notebook 05 (course_lib.checkers.nb05.check_next_user_message) on the reference
solution and on wrong answers that change what they are given (issue 29)."""

from __future__ import annotations

import pytest

from course_lib.checkers import nb05
from course_lib.react import run_tool
from course_lib.react_parser import corrective_observation
from notebook_cells import load_solution


def _solution():
    return load_solution("05_react", "05-2")["next_user_message"]


def test_the_reference_solution_passes(capsys):
    assert nb05.check_next_user_message(_solution()).passed is True
    assert "✅" in capsys.readouterr().out


def runs_another_tool_in_place(parsed, registry):
    """Replaces the action it was given by another one, then answers that one."""
    if parsed.kind != "action":
        return _solution()(parsed, registry)
    parsed.action, parsed.action_input = "calculate", "1 + 1"
    return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)


def drops_the_error_in_place(parsed, registry):
    """Blanks the parser's error before building the corrective message: the model never learns what was wrong."""
    if parsed.kind != "invalid":
        return _solution()(parsed, registry)
    parsed.error = ""
    return corrective_observation(parsed, "A", registry.names)


def unregisters_the_tool(parsed, registry):
    """Answers every action with the registry's error for a tool it removed from the registry."""
    if parsed.kind != "action":
        return _solution()(parsed, registry)
    registry._tools.pop(parsed.action, None)
    return "Observation: " + run_tool(registry, parsed.action, parsed.action_input)


@pytest.mark.parametrize("wrong", [runs_another_tool_in_place, drops_the_error_in_place, unregisters_the_tool],
                         ids=lambda f: f.__name__)
def test_answers_that_change_their_input_fail(wrong, capsys):
    result = nb05.check_next_user_message(wrong)
    assert result.passed is False and "❌" in capsys.readouterr().out
    assert nb05.check_next_user_message(_solution()).passed is True  # and the next check is not changed


def test_every_call_builds_new_cases():
    first, second = nb05._next_cases(), nb05._next_cases()
    assert first == second
    assert all(a is not b for a, b in zip(first, second))
    assert first[2].action_input is not second[2].action_input
