"""Exercise 09-1's checker (course_lib.checkers.nb09.check_compress) on the reference solution and on
typical wrong answers, each of which must fail with its own hint."""

from __future__ import annotations

import copy

import pytest

from course_lib.checkers import nb09
from course_lib.memory import summary_message
from course_lib.summary_memory import compress_messages
from course_lib.messages import validate
from course_lib.texts import TEXTS
from notebook_cells import load_solution

ZH = TEXTS["zh"]


def _split(messages):
    """(system list, rest, index of the last user message in rest)"""
    system, rest = messages[:1], messages[1:]
    starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
    return system, rest, starts[-1]


def right(messages, summarize):
    system, rest, last = _split(messages)
    if not rest[:last]:
        return list(messages)
    return system + [summary_message(summarize(rest[:last]))] + rest[last:]


def drops_system(messages, summarize):
    return right(messages, summarize)[1:] if len(messages) > 3 else list(messages)


def summary_first(messages, summarize):
    result = right(messages, summarize)
    return [result[1], result[0]] + result[2:] if len(messages) > 3 else result


def keeps_last_two_messages(messages, summarize):  # "the last turn" = the last 2 messages: an orphan tool reply
    return messages[:1] + [summary_message(summarize(messages[1:-2]))] + messages[-2:]


def drops_tool_replies(messages, summarize):  # keeps the turn without its tool messages
    result = right(messages, summarize)
    return [m for m in result if m["role"] != "tool"]


def never_summarizes(messages, summarize):
    system, rest, last = _split(messages)
    if not rest[:last]:
        return list(messages)
    return system + [summary_message(" ".join(str(m.get("content")) for m in rest[:last]))] + rest[last:]


def loses_last_user(messages, summarize):
    result = right(messages, summarize)
    return result[:2] + result[3:] if len(messages) > 3 else result


def in_place(messages, summarize):
    system, rest, last = _split(messages)
    if rest[:last]:
        messages[1:last + 1] = [summary_message(summarize(rest[:last]))]
    return messages


def summary_as_system(messages, summarize):
    result = right(messages, summarize)
    if len(result) > 1 and result[1] is not messages[1]:
        result[1] = {"role": "system", "content": result[1]["content"]}
    return result


def summarizes_everything(messages, summarize):  # gives summarize the last turn too
    system, rest, last = _split(messages)
    if not rest[:last]:
        return list(messages)
    return system + [summary_message(summarize(rest))] + rest[last:]


def summarizes_one_turn(messages, summarize):  # a summary even when there is nothing old
    system, rest, last = _split(messages)
    return system + [summary_message(summarize(rest[:last]))] + rest[last:]


def summarizes_each_turn(messages, summarize):  # one summarize call per old turn
    system, rest, last = _split(messages)
    if not rest[:last]:
        return list(messages)
    starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
    texts = [summarize(rest[a:b]) for a, b in zip(starts, starts[1:])]
    return system + [summary_message("".join(texts))] + rest[last:]


def test_the_reference_solution_passes(capsys):
    compress = load_solution("09_memory_and_mcp", "09-1")["compress"]
    assert nb09.check_compress(compress).passed is True
    assert "✅" in capsys.readouterr().out


def test_the_library_function_passes():
    assert nb09.check_compress(compress_messages).passed is True
    assert nb09.check_compress(right).passed is True


def _hint(key):
    """The fixed start of a hint (the text before its first placeholder)."""
    return ZH[key].split("{")[0]


@pytest.mark.parametrize("wrong,key", [
    (drops_system, "check.09.summary.system_missing"),
    (summary_first, "check.09.summary.system_first"),
    (keeps_last_two_messages, "check.09.summary.split"),
    (drops_tool_replies, "check.09.summary.split"),
    (never_summarizes, "check.09.summary.no_call"),
    (loses_last_user, "check.09.summary.lost_last"),
    (in_place, "check.09.summary.modified"),
    (summary_as_system, "check.09.summary.summary_role"),
    (summarizes_everything, "check.09.summary.old_messages"),
    (summarizes_one_turn, "check.09.summary.nothing_old"),
    (summarizes_each_turn, "check.09.summary.calls"),
    (lambda messages, summarize: None, "check.09.summary.not_list"),
    (lambda messages: messages, "check.09.summary.error"),
    ("compress", "check.09.summary.not_function"),
], ids=lambda x: getattr(x, "__name__", None) if callable(x) else None)
def test_each_wrong_answer_fails_with_its_hint(wrong, key, capsys):
    result = nb09.check_compress(wrong)
    assert result.passed is False
    assert _hint(key) in result.message, result.message
    assert "❌" in capsys.readouterr().out


def test_split_hint_names_the_problem():
    message = nb09.check_compress(keeps_last_two_messages).message
    assert "call_sh" in message  # the orphan tool reply's id


def test_the_cases_are_valid_conversations():
    cases = nb09.summary_cases()
    for messages in cases:
        validate(messages)
        assert messages[0]["role"] == "system"
    assert any(m.get("tool_calls") for m in cases[0][-4:]), "one case ends with a tool-call turn"


# ---- issue 29: wrong answers that used to pass -------------------------------------------------


def counts_messages_not_turns(messages, summarize):
    """"One turn" taken as "at most 3 messages": a one-turn conversation with a tool call gets summarized."""
    system, rest, last = _split(messages)
    if len(messages) <= 3:
        return list(messages)
    return system + [summary_message(summarize(rest[:last]))] + rest[last:]


def finds_last_user_by_text(messages, summarize):
    """list.index finds the FIRST message equal to the last user message."""
    last_user = [m for m in messages if m["role"] == "user"][-1]
    start = messages.index(last_user)
    if start <= 1:
        return list(messages)
    return messages[:1] + [summary_message(summarize(messages[1:start]))] + messages[start:]


def keeps_what_is_not_old(messages, summarize):
    """Keeps every message that is not "in" the old ones: a repeated user sentence is dropped."""
    system, rest, last = _split(messages)
    old = rest[:last]
    if not old:
        return list(messages)
    return system + [summary_message(summarize(old))] + [m for m in rest if m not in old]


def returns_the_input_itself(messages, summarize):
    """Right, except that with nothing to compress it hands back the very list it was given."""
    system, rest, last = _split(messages)
    if not rest[:last]:
        return messages
    return system + [summary_message(summarize(rest[:last]))] + rest[last:]


@pytest.mark.parametrize("wrong,key", [
    (counts_messages_not_turns, "check.09.summary.nothing_old"),
    (finds_last_user_by_text, "check.09.summary.no_call"),
    (keeps_what_is_not_old, "check.09.summary.lost_last"),
    (returns_the_input_itself, "check.09.summary.returned_input"),
], ids=lambda x: getattr(x, "__name__", None) if callable(x) else None)
def test_answers_that_used_to_pass_fail_with_their_hint(wrong, key, capsys):
    result = nb09.check_compress(wrong)
    assert result.passed is False and "❌" in capsys.readouterr().out
    assert _hint(key) in result.message, result.message


@pytest.mark.parametrize("wrong", [finds_last_user_by_text, keeps_what_is_not_old])
def test_the_repeated_sentence_is_named_in_the_hint(wrong):
    message = nb09.check_compress(wrong).message
    assert _hint("check.09.summary.repeated_user") in message and "北京现在天气怎么样？" in message, message


def test_the_repeated_hint_is_only_added_where_the_sentence_repeats():
    assert _hint("check.09.summary.repeated_user") not in nb09.check_compress(counts_messages_not_turns).message


def test_the_new_cases_are_there():
    cases = nb09.summary_cases()
    one_turn_with_calls = [m for m in cases
                           if [x["role"] for x in m].count("user") == 1 and any(x.get("tool_calls") for x in m)]
    assert one_turn_with_calls and all(len(m) > 4 for m in one_turn_with_calls)
    assert any([x["role"] for x in m] == ["system", "user", "assistant", "user"] for m in cases)
    users = [[x["content"] for x in m if x["role"] == "user"] for m in cases]
    assert any(u[-1] in u[:-1] for u in users), "a case repeats its last user sentence"


def changes_the_system_prompt(messages, summarize):
    """Writes into the messages it was given (and so into a shared sample, if there were one)."""
    messages[0]["content"] = "你什么都不用记。"
    for message in messages:
        message["content"] = message.get("content") or ""
    return right(messages, summarize)


def test_a_mutating_answer_fails_and_changes_nothing_the_next_check_sees():
    before = copy.deepcopy(nb09.summary_cases())  # a copy: shares nothing the answer could change
    result = nb09.check_compress(changes_the_system_prompt)
    assert result.passed is False and _hint("check.09.summary.modified") in result.message
    assert nb09.summary_cases() == before
    assert nb09.check_compress(right).passed is True
    assert nb09.check_compress(returns_the_input_itself).passed is False


def test_every_call_builds_new_cases_sharing_no_message():
    first, second = nb09.summary_cases(), nb09.summary_cases()
    assert first == second
    ids = [id(m) for case in first for m in case]
    assert len(ids) == len(set(ids)), "no message object is in two cases"
    assert not set(ids) & {id(m) for case in second for m in case}


# ---- issue 42: generated conversations; the system message is not for summarize; odd returns ---


def gives_summarize_the_system_message(messages, summarize):
    system, rest, last = _split(messages)
    if not rest[:last]:
        return list(messages)
    return system + [summary_message(summarize(messages[:last + 1]))] + rest[last:]


def keeps_two_turns(messages, summarize):  # "the last turn" taken as the last two user messages on
    system, rest = messages[:1], messages[1:]
    starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
    cut = starts[-2] if len(starts) > 1 else starts[-1]
    if not rest[:cut]:
        return list(messages)
    return system + [summary_message(summarize(rest[:cut]))] + rest[cut:]


def first_user_as_last_turn(messages, summarize):  # first <-> last
    system, rest = messages[:1], messages[1:]
    first = next(i for i, m in enumerate(rest) if m["role"] == "user")
    if not rest[:first]:
        return list(messages)
    return system + [summary_message(summarize(rest[:first]))] + rest[first:]


def drops_the_earlier_summary(messages, summarize):
    system, rest, last = _split(messages)
    old = [m for m in rest[:last] if not m["content"] or not str(m["content"]).startswith("这是到目前为止")]
    if not rest[:last]:
        return list(messages)
    return system + [summary_message(summarize(old))] + rest[last:]


def copies_deeply(messages, summarize):
    return copy.deepcopy(right(copy.deepcopy(messages), summarize))


def passes_a_tuple(messages, summarize):
    system, rest, last = _split(messages)
    if not rest[:last]:
        return [dict(m) for m in messages]
    return system + [{"role": "user", "content": "摘要：" + summarize(tuple(rest[:last]))}] + rest[last:]


class _BadRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


@pytest.mark.parametrize("wrong", [gives_summarize_the_system_message, keeps_two_turns, first_user_as_last_turn,
                                   drops_the_earlier_summary])
def test_wrong_answers_of_issue_42_fail(wrong, capsys):
    result = nb09.check_compress(wrong)
    assert result.passed is False and "❌" in capsys.readouterr().out, (wrong.__name__, result.message)


def test_the_system_message_given_to_summarize_gets_its_hint():
    assert nb09.check_compress(gives_summarize_the_system_message).hint == "check.09.summary.old_messages"


@pytest.mark.parametrize("right_style", [copies_deeply, passes_a_tuple])
def test_other_right_styles_pass(right_style):
    result = nb09.check_compress(right_style)
    assert result.passed is True, result.message


@pytest.mark.parametrize("odd", [lambda m, s: None, lambda m, s: 3, lambda m, s: _BadRepr(),
                                 lambda m, s: (x for x in m), lambda m, s: [_BadRepr()]])
def test_odd_returns_fail_without_raising(odd, capsys):
    result = nb09.check_compress(odd)
    out = capsys.readouterr().out
    assert result.passed is False and "❌" in out and "Traceback" not in out
