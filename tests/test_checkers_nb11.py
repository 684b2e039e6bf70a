"""The checkers of notebook 11 (course_lib.checkers.nb11) on the reference solutions, the untouched
exercises, right answers in every style and plausible wrong answers: each wrong one fails with one
line, each right one passes, odd returns and crashing answers fail without raising."""

from __future__ import annotations

import copy
import json

import pytest

from fakes import BadRepr, checker_fails, checker_passes, yields_true
from course_lib.checkers import nb11
from course_lib.messages import has_text, to_dict
from course_lib.multi_agent import chosen_specialist as library_chosen
from course_lib.multi_agent import specialist_messages as library_messages
from course_lib.tools.shop_notes import quoted, tokens
from notebook_cells import load_solution

# The exercise cells as the notebook gives them (notes/nb11_exercise_cells.md has the same stubs).
UNTOUCHED = {
    "11-1": ('def or_query(words):\n    return " OR ".join(words)\n', "or_query"),
    "11-2": ('def specialist_messages(conversation, system):\n'
             '    return [{"role": "system", "content": system}] + conversation\n', "specialist_messages"),
    "11-3": ('def chosen_specialist(tool_calls, names):\n    for call in tool_calls:\n'
             '        return call.function.name\n', "chosen_specialist"),
}
CHECKERS = {"11-1": nb11.check_or_query, "11-2": nb11.check_specialist_messages,
            "11-3": nb11.check_chosen_specialist}


@pytest.mark.parametrize("key, name", [("11-1", "or_query"), ("11-2", "specialist_messages"),
                                       ("11-3", "chosen_specialist")])
def test_the_reference_passes_and_the_untouched_exercise_fails(key, name, capsys):
    checker_passes(CHECKERS[key], load_solution("11_multi_agent", key)[name], capsys)
    source, stub_name = UNTOUCHED[key]
    namespace: dict = {}
    exec(source, namespace)
    checker_fails(CHECKERS[key], namespace[stub_name], capsys)


ODD = {
    "raises": lambda *a: (_ for _ in ()).throw(RuntimeError("学生的错误")),
    "none": lambda *a: None,
    "bad_repr": lambda *a: BadRepr(),
    "generator": yields_true,
    "number": lambda *a: 2,
}


@pytest.mark.parametrize("key", sorted(CHECKERS))
@pytest.mark.parametrize("odd", sorted(ODD))
def test_odd_returns_and_crashing_answers_fail_with_one_line(key, odd, capsys):
    checker_fails(CHECKERS[key], ODD[odd], capsys)


@pytest.mark.parametrize("key", sorted(CHECKERS))
@pytest.mark.parametrize("value", [None, "or_query", 3])
def test_not_a_function_fails(key, value, capsys):
    checker_fails(CHECKERS[key], value, capsys, "check.11.not_callable")


# ---------------------------------------------------------------------------------------- 11-1

def or_query_comprehension(words):
    return " OR ".join(f'"{w.replace(chr(34), chr(34) * 2)}"' for w in words)


def or_query_percent(words):
    return " OR ".join('"%s"' % w.replace('"', '""') for w in words)


def or_query_concatenation(words):
    text = ""
    for word in list(words):
        text += ' OR "' + word.replace('"', '""') + '"'
    return text[len(" OR "):] if text else ""


def or_query_library(words):
    return " OR ".join(map(quoted, words))


RIGHT_OR = [or_query_comprehension, or_query_percent, or_query_concatenation, or_query_library]


def no_quotes(words):
    return " OR ".join(words)


def quotes_not_doubled(words):
    return " OR ".join(f'"{w}"' for w in words)


def quotes_removed(words):  # safe, but searches for something else
    return " OR ".join(f'"{w.replace(chr(34), "")}"' for w in words)


def backslash_escape(words):
    return " OR ".join('"' + w.replace('"', '\\"') + '"' for w in words)


def json_dumps(words):
    return " OR ".join(json.dumps(w, ensure_ascii=False) for w in words)


def single_quotes(words):
    return " OR ".join("'" + w.replace("'", "''") + "'" for w in words)


def deduplicated(words):
    return " OR ".join(quoted(w) for w in dict.fromkeys(words))


def sorted_words(words):
    return " OR ".join(quoted(w) for w in sorted(words))


def lower_or(words):
    return " or ".join(quoted(w) for w in words)


def and_instead(words):
    return " AND ".join(quoted(w) for w in words)


def none_for_empty(words):
    return " OR ".join(quoted(w) for w in words) if words else None


def stripped(words):
    return " OR ".join(quoted(w.strip()) for w in words)


def retokenized(words):  # the notebook's tokens() on the words: other words
    return " OR ".join(quoted(w) for w in tokens(" ".join(words)))


def no_spaces(words):
    return "OR".join(quoted(w) for w in words)


WRONG_OR = [no_quotes, quotes_not_doubled, quotes_removed, backslash_escape, json_dumps, single_quotes, deduplicated,
            sorted_words, lower_or, and_instead, none_for_empty, stripped, retokenized, no_spaces]


@pytest.mark.parametrize("right", RIGHT_OR, ids=lambda f: f.__name__)
def test_or_query_right_styles_pass(right, capsys):
    checker_passes(nb11.check_or_query, right, capsys)


@pytest.mark.parametrize("wrong", WRONG_OR, ids=lambda f: f.__name__)
def test_or_query_wrong_answers_fail(wrong, capsys):
    checker_fails(nb11.check_or_query, wrong, capsys)


def test_an_unsafe_expression_is_caught_by_fts5_itself(capsys):
    result = checker_fails(nb11.check_or_query, quotes_not_doubled, capsys, "check.11.or_query_unsafe")
    assert "OperationalError" in result.message and '""' in result.message


# ---------------------------------------------------------------------------------------- 11-2

def messages_comprehension(conversation, system):
    return [{"role": "system", "content": system}] + [
        {"role": m["role"], "content": m["content"]} for m in conversation
        if m["role"] in ("user", "assistant") and (m.get("content") or "").strip()]


def messages_deepcopy_and_pop(conversation, system):
    kept = []
    for m in copy.deepcopy(conversation):
        if m["role"] not in ("user", "assistant") or not (m.get("content") or "").strip():
            continue
        for key in set(m) - {"role", "content"}:  # tool_calls, and any other key (name, refusal)
            m.pop(key)
        kept.append(m)
    kept.insert(0, dict(role="system", content=system))
    return kept


def messages_has_text(conversation, system):
    out = [{"role": "system", "content": system}]
    out += [{"role": m["role"], "content": m["content"]} for m in map(to_dict, conversation)
            if m["role"] != "system" and m["role"] != "tool" and has_text(m.get("content"))]
    return out


RIGHT_MESSAGES = [messages_comprehension, messages_deepcopy_and_pop, messages_has_text, library_messages]


def keeps_tool_messages(conversation, system):
    return [{"role": "system", "content": system}] + [m for m in conversation if m["role"] != "system"]


def keeps_tool_calls(conversation, system):
    return [{"role": "system", "content": system}] + [dict(m) for m in conversation if m["role"] in ("user", "assistant")]


def keeps_front_system(conversation, system):
    return [{"role": "system", "content": system}] + [{"role": m["role"], "content": m["content"]} for m in conversation
                                                      if m["role"] != "tool" and m.get("content")]


def users_only(conversation, system):
    return [{"role": "system", "content": system}] + [m for m in conversation if m["role"] == "user"]


def keeps_empty_assistant(conversation, system):
    return [{"role": "system", "content": system}] + [{"role": m["role"], "content": m.get("content")}
                                                      for m in conversation if m["role"] in ("user", "assistant")]


def drops_assistant_with_calls(conversation, system):  # "我帮你转接。" is text the user saw: it stays
    return [{"role": "system", "content": system}] + [
        {"role": m["role"], "content": m["content"]} for m in conversation
        if m["role"] in ("user", "assistant") and m.get("content") and "tool_calls" not in m]


def changes_the_input(conversation, system):
    conversation[:] = [m for m in conversation if m["role"] in ("user", "assistant") and m.get("content")]
    for m in conversation:
        m.pop("tool_calls", None)
    return [{"role": "system", "content": system}] + conversation


def pops_tool_calls_in_place(conversation, system):
    kept = [m for m in conversation if m["role"] in ("user", "assistant") and m.get("content")]
    for m in kept:
        m.pop("tool_calls", None)
    return [{"role": "system", "content": system}] + kept


def system_last(conversation, system):
    return messages_comprehension(conversation, system)[1:] + [{"role": "system", "content": system}]


def no_system(conversation, system):
    return messages_comprehension(conversation, system)[1:]


def returns_a_tuple(conversation, system):
    return tuple(messages_comprehension(conversation, system))


WRONG_MESSAGES = [keeps_tool_messages, keeps_tool_calls, keeps_front_system, users_only, keeps_empty_assistant,
                  drops_assistant_with_calls, changes_the_input, pops_tool_calls_in_place, system_last, no_system,
                  returns_a_tuple]


@pytest.mark.parametrize("right", RIGHT_MESSAGES, ids=lambda f: f.__name__)
def test_specialist_messages_right_styles_pass(right, capsys):
    checker_passes(nb11.check_specialist_messages, right, capsys)


@pytest.mark.parametrize("wrong", WRONG_MESSAGES, ids=lambda f: f.__name__)
def test_specialist_messages_wrong_answers_fail(wrong, capsys):
    checker_fails(nb11.check_specialist_messages, wrong, capsys)


def test_changing_the_input_gets_its_own_hint(capsys):
    checker_fails(nb11.check_specialist_messages, changes_the_input, capsys, "check.11.messages_changed_input")
    checker_fails(nb11.check_specialist_messages, pops_tool_calls_in_place, capsys, "check.11.messages_changed_input")


def test_unanswered_tool_calls_are_named_as_what_the_api_refuses(capsys):
    result = checker_fails(nb11.check_specialist_messages, keeps_tool_calls, capsys, "check.11.messages_invalid")
    assert "tool_calls" in result.message


# ---------------------------------------------------------------------------------------- 11-3

def chosen_isinstance(tool_calls, names):
    for call in tool_calls or []:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        if name.removeprefix("transfer_to_") in names and name.startswith("transfer_to_"):
            return name.removeprefix("transfer_to_")
    return None


def chosen_getattr(tool_calls, names):
    if not tool_calls:
        return None
    wanted = {f"transfer_to_{n}": n for n in names}
    for call in tool_calls:
        function = getattr(call, "function", None) or call.get("function")
        name = function["name"] if isinstance(function, dict) else function.name
        if name in wanted:
            return wanted[name]
    return None


def chosen_model_dump(tool_calls, names):
    for call in tool_calls or ():
        data = call if isinstance(call, dict) else call.model_dump()
        for n in names:
            if data["function"]["name"] == "transfer_to_" + n:
                return n
    return None


def chosen_try_except(tool_calls, names):
    if tool_calls is None:
        return None
    for call in tool_calls:
        try:
            name = call.function.name
        except AttributeError:
            name = call["function"]["name"]
        prefix, _, rest = name.partition("transfer_to_")
        if prefix == "" and rest in names:
            return rest
    return None


RIGHT_CHOSEN = [chosen_isinstance, chosen_getattr, chosen_model_dump, chosen_try_except, library_chosen]


def sdk_only(tool_calls, names):
    for call in tool_calls or []:
        name = call.function.name
        if name.startswith("transfer_to_") and name[12:] in names:
            return name[12:]
    return None


def dict_only(tool_calls, names):
    for call in tool_calls or []:
        name = call["function"]["name"]
        if name.startswith("transfer_to_") and name[12:] in names:
            return name[12:]
    return None


def full_name(tool_calls, names):
    for call in tool_calls or []:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        if name.startswith("transfer_to_") and name[12:] in names:
            return name
    return None


def ignores_names(tool_calls, names):
    for call in tool_calls or []:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        if name.startswith("transfer_to_"):
            return name[12:]
    return None


def last_one(tool_calls, names):
    found = None
    for call in tool_calls or []:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        if name.startswith("transfer_to_") and name[12:] in names:
            found = name[12:]
    return found


def prefix_match(tool_calls, names):
    for call in tool_calls or []:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        for n in names:
            if name.startswith("transfer_to_" + n):
                return n
    return None


def substring(tool_calls, names):
    for call in tool_calls or []:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        for n in names:
            if n in name:
                return n
    return None


def names_first(tool_calls, names):  # the order of the names decides, not the order of the calls
    called = [c["function"]["name"] if isinstance(c, dict) else c.function.name for c in tool_calls or []]
    for n in names:
        if "transfer_to_" + n in called:
            return n
    return None


def crashes_on_none(tool_calls, names):
    for call in tool_calls:
        name = call["function"]["name"] if isinstance(call, dict) else call.function.name
        if name.startswith("transfer_to_") and name[12:] in names:
            return name[12:]
    return None


def empty_string_for_none(tool_calls, names):
    return library_chosen(tool_calls, names) or ""


WRONG_CHOSEN = [sdk_only, dict_only, full_name, ignores_names, last_one, prefix_match, substring, names_first,
                crashes_on_none, empty_string_for_none]


@pytest.mark.parametrize("right", RIGHT_CHOSEN, ids=lambda f: f.__name__)
def test_chosen_specialist_right_styles_pass(right, capsys):
    checker_passes(nb11.check_chosen_specialist, right, capsys)


@pytest.mark.parametrize("wrong", WRONG_CHOSEN, ids=lambda f: f.__name__)
def test_chosen_specialist_wrong_answers_fail(wrong, capsys):
    checker_fails(nb11.check_chosen_specialist, wrong, capsys)


@pytest.mark.parametrize("wrong, hint", [(sdk_only, "check.11.hint_styles"), (crashes_on_none, "check.11.hint_none"),
                                         (full_name, "check.11.hint_prefix"), (last_one, "check.11.hint_first")])
def test_chosen_specialist_hints_name_the_mistake(wrong, hint, capsys):
    result = checker_fails(nb11.check_chosen_specialist, wrong, capsys)
    from course_lib.texts import t

    assert t(hint) in result.message


def test_the_checker_uses_real_sdk_objects():
    call = nb11.sdk_call("transfer_to_shop")
    assert call.function.name == "transfer_to_shop" and not isinstance(call, dict)
    assert library_chosen([call], ["shop"]) == "shop"
