"""A student's code cannot break a check (issue 54): loops, sys.exit, Ctrl-C, output floods, a broken checker file."""

from __future__ import annotations

import sys
import time

import pytest

from course_runtime import progress
from course_lib.checkers import nb02, nb06, nb07, safely, student_calls


@pytest.fixture
def short_limit(monkeypatch):
    monkeypatch.setattr(student_calls, "CALL_LIMIT_S", 0.5)


def forever(*args, **kwargs):
    n = 0
    while True:
        n += 1


def swallows_everything(*args, **kwargs):
    """A loop that catches Exception on every pass (the stop is a BaseException, raised again and again)."""
    n = 0
    while True:
        try:
            n += 1
        except Exception:  # noqa: BLE001 - what a student writes
            pass


@pytest.mark.parametrize("loop", [forever, swallows_everything])
def test_a_function_that_never_returns_gets_a_sentence_not_a_hang(short_limit, capsys, loop):
    start = time.monotonic()
    result = nb02.check_keep_last_turns(loop)
    took = time.monotonic() - start
    assert result.passed is False and "0.5 秒内没有返回" in result.message, result.message
    assert took < 5, took  # stopped at the first call: no shrinking of a loop for minutes
    assert "❌" in capsys.readouterr().out
    assert progress.read_results()[-1]["exercise"] == "02-2"
    # and nothing is left pending for the code after it
    time.sleep(3 * student_calls.RETRY_S)
    assert safely(lambda: sum(range(1000)))[0] == 499500


def test_a_stop_never_lands_after_the_call_is_over():
    """Calls that end right at the limit (returned or stopped): the statements after them never see a stray stop."""
    outcomes = set()
    for _ in range(40):
        try:
            student_calls.within_limit(time.sleep, (0.01,), seconds=0.01)
            outcomes.add("returned")
        except student_calls.CallTimedOut:
            outcomes.add("stopped")
        deadline = time.monotonic() + 0.05
        while time.monotonic() < deadline:  # bytecodes running: a pending stop would be raised here
            pass
    assert outcomes


def test_sys_exit_in_a_student_function_is_a_result_not_the_end_of_run_all(capsys):
    def exits(*args):
        sys.exit(0)

    result = nb06.check_call_key(exits)
    assert result.passed is False and "sys.exit()" in result.message
    assert progress.read_results()[-1]["exercise"] == "06-1"
    assert "❌" in capsys.readouterr().out


def test_sys_exit_outside_safely_is_caught_by_the_decorator(capsys, monkeypatch):
    def exits(*args, **kwargs):
        raise SystemExit(3)

    monkeypatch.setattr(nb07, "first_difference", exits)  # the checker itself meets the SystemExit
    result = nb07.check_contains_number(lambda a, n: True)
    assert result.passed is False and result.hint == "check.exited" and "3" in result.message


def test_ctrl_c_records_the_failure_and_still_stops(capsys):
    def interrupted(*args):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        nb06.check_call_key(interrupted)
    kept = progress.read_results()[-1]
    assert (kept["exercise"], kept["passed"], kept["hint"]) == ("06-1", False, "interrupted")
    assert "❌" in capsys.readouterr().out


def test_an_output_flood_is_cut_and_the_verdict_still_shows(capsys):
    def chatty(name, arguments_json):
        for i in range(20000):
            print(f"调试 {i}：{name} {arguments_json}")
        return (name, arguments_json)

    result = nb06.check_call_key(chatty)
    out = capsys.readouterr().out
    assert result.passed is False
    assert len(out) < student_calls.OUTPUT_LIMIT + 2000, len(out)
    assert "❌ 未通过" in out and "省略了" in out
    assert out.index("❌ 未通过") > out.index("调试 0")  # the student's first lines, then the verdict


def test_a_checker_file_in_gbk_or_with_a_bom_stops_no_other_exercise(tmp_path, capsys):
    from course_runtime.progress import CHECKERS_DIR, exercise_ids

    for path in CHECKERS_DIR.glob("nb*.py"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    gbk = tmp_path / "nb04.py"
    gbk.write_bytes(gbk.read_text(encoding="utf-8").encode("gbk", errors="replace"))
    bom = tmp_path / "nb05.py"
    bom.write_bytes(b"\xef\xbb\xbf" + bom.read_bytes())
    assert exercise_ids(tmp_path) == progress.EXERCISES
    said = capsys.readouterr().err
    assert "nb04.py" in said and "UTF-8" in said and "nb05.py" not in said


def test_a_generic_hint_shows_the_whole_input_and_where_the_results_differ(capsys):
    """Hints used to cut every argument and value at 60-80 characters from the start (issue 54): with a
    long input both results began alike, and the part that differed was never shown."""
    from course_lib.checkers import same_behaviour

    text = "前言" * 40 + "，结尾不同"
    result = same_behaviour(lambda s: s.upper(), lambda s: s.replace("结尾", "末尾").upper(), "shout", examples=[(text,)])
    assert result.passed is False
    assert "结尾不同" in result.message  # the end of the input is in the call shown
    assert "末尾不同" in result.message and "…" in result.message  # the differing part of the results, cut marked


def test_waiting_for_the_real_model_is_not_charged_to_the_student():
    """A reply that takes long in a busy class is not a loop: only the student's own time counts."""
    def slow_model_reply():
        with student_calls.waiting_for_model():
            time.sleep(0.6)
        return "回答"

    assert student_calls.within_limit(slow_model_reply, seconds=0.3) == "回答"


def test_a_loop_of_real_requests_is_stopped(short_limit, capsys):
    """01-1 and 02-1 send the student's requests to the real model: a loop of them ends in ❌, not forever."""
    from fakes import FakeLLM

    from course_lib.checkers import nb01

    client = FakeLLM(default="2").client()
    namespace = {"client": client, "MODEL": "fake-model"}
    exec("def ask(question):\n"
         "    while True:\n"
         "        try:\n"
         "            client.chat.completions.create(model=MODEL, messages=[{'role': 'user', 'content': question}])\n"
         "        except Exception:\n"
         "            pass\n", namespace)
    start = time.monotonic()
    result = nb01.check_ask(namespace["ask"], client)
    assert result.passed is False and time.monotonic() - start < 10
