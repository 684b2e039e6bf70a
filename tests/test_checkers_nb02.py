"""The checkers of notebook 02 (course_lib.checkers.nb02): every taught style passes, plausible wrong answers fail."""

from __future__ import annotations

import copy

import pytest

from course_lib.checkers import nb02
from fakes import FakeLLM, sse_response


class BrokenRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


def _reply(client, messages, **extra):
    return client.chat.completions.create(model="m", messages=messages, max_tokens=50, **extra).choices[0].message


# ---------------------------------------------------------------------------------------------- 02-1
# Each answer is a function of the client (the notebook's global ``client``).

def good(client):
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = _reply(client, messages).content
        messages.append({"role": "assistant", "content": reply})
        return reply
    return chat_turn


def sdk_object(client):
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        message = _reply(client, messages)
        messages.append(message)  # the SDK object, not a dict
        return message.content
    return chat_turn


def extend_and_copy(client):
    def chat_turn(messages, user_text):
        messages += [{"role": "user", "content": user_text}]
        response = client.chat.completions.create(model="m", messages=list(messages), max_completion_tokens=80)
        text = response.choices[0].message.content
        messages.extend([{"role": "assistant", "content": text}])
        return text
    return chat_turn


def streamed(client):  # notebook 01, section 7, inside the turn
    def chat_turn(messages, user_text):
        messages.append({"role": "user", "content": user_text})
        stream = client.chat.completions.create(model="m", messages=messages, max_tokens=100, stream=True)
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        messages.append({"role": "assistant", "content": text})
        return text
    return chat_turn


def sse(*texts):
    return FakeLLM([sse_response([{"role": "assistant", "content": ""}] + [{"content": p} for p in t.split("|")])
                    for t in texts], default="（多余的请求）")


@pytest.mark.parametrize("make", [good, sdk_object, extend_and_copy, streamed], ids=lambda f: f.__name__)
def test_chat_turn_accepts_every_style(make):
    fake = sse("你好，|小红！", "你叫|小红。") if make is streamed else FakeLLM(["你好，小红！", "你叫小红。"])
    client = fake.client()
    assert nb02.check_chat_turn(make(client), client).passed is True
    assert len(fake.requests) == 2  # the checker's own longer conversation costs no request to the model


def forgets_reply(client):
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        return _reply(client, messages).content
    return chat_turn


def sends_last_only(client):
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = _reply(client, [messages[0], messages[-1]]).content
        messages.append({"role": "assistant", "content": reply})
        return reply
    return chat_turn


def sends_window(client):  # the last 4 messages: all of them in a two-turn check
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = _reply(client, messages[:1] + messages[1:][-3:]).content
        messages.append({"role": "assistant", "content": reply})
        return reply
    return chat_turn


def drops_system(client):
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = _reply(client, messages[1:]).content
        messages.append({"role": "assistant", "content": reply})
        return reply
    return chat_turn


def new_list(client):
    def chat_turn(messages, text):
        messages = messages + [{"role": "user", "content": text}]
        reply = _reply(client, messages).content
        messages = messages + [{"role": "assistant", "content": reply}]
        return reply
    return chat_turn


def returns_response(client):
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        response = client.chat.completions.create(model="m", messages=messages, max_tokens=50)
        messages.append({"role": "assistant", "content": response.choices[0].message.content})
        return response
    return chat_turn


def returns_input(client):
    def chat_turn(messages, text):
        good(client)(messages, text)
        return text
    return chat_turn


def reply_as_user(client):
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = _reply(client, messages).content
        messages.append({"role": "user", "content": reply})
        return reply
    return chat_turn


def echoes_question(client):
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = _reply(client, messages).content
        messages.append({"role": "assistant", "content": text})
        return reply
    return chat_turn


def user_first(client):
    def chat_turn(messages, text):
        messages.insert(0, {"role": "user", "content": text})
        reply = _reply(client, messages).content
        messages.append({"role": "assistant", "content": reply})
        return reply
    return chat_turn


def no_max_tokens(client):
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = client.chat.completions.create(model="m", messages=messages).choices[0].message.content
        messages.append({"role": "assistant", "content": reply})
        return reply
    return chat_turn


def hard_coded_name(client):  # right for the checker's "我叫小红" only
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = _reply(client, messages).content
        messages.append({"role": "assistant", "content": reply})
        return "你叫小红。" if "名字" in text else reply
    return chat_turn


def raises(client):
    def chat_turn(messages, text):
        raise IndexError("list index out of range")
    return chat_turn


WRONG = {
    forgets_reply: "check.02.chat_turn.7", sends_last_only: "check.02.chat_turn.4", sends_window: "check.02.chat_turn.4",
    drops_system: "check.02.chat_turn.4", new_list: "check.02.chat_turn.7", returns_response: "check.02.chat_turn.9",
    returns_input: "check.02.chat_turn.9", reply_as_user: "check.02.chat_turn.7", echoes_question: "check.02.chat_turn.8",
    user_first: "check.02.chat_turn.4", no_max_tokens: "check.02.chat_turn.11", hard_coded_name: "check.02.chat_turn.9",
    raises: "check.02.chat_turn.2",
}


@pytest.mark.parametrize("make", list(WRONG), ids=lambda f: f.__name__)
def test_chat_turn_rejects_wrong_answers(make, capsys):
    fake = FakeLLM(default="你叫小红。")
    client = fake.client()
    result = nb02.check_chat_turn(make(client), client)
    assert result.passed is False
    assert result.hint == WRONG[make]
    assert "❌" in capsys.readouterr().out


def streamed_last_piece(client):
    def chat_turn(messages, user_text):
        messages.append({"role": "user", "content": user_text})
        text = ""
        for chunk in client.chat.completions.create(model="m", messages=messages, max_tokens=100, stream=True):
            if chunk.choices and chunk.choices[0].delta.content:
                text = chunk.choices[0].delta.content
        messages.append({"role": "assistant", "content": text})
        return text
    return chat_turn


def test_chat_turn_rejects_a_streamed_answer_that_keeps_one_piece():
    client = sse("你好，|小红！", "你叫|小红。").client()
    assert nb02.check_chat_turn(streamed_last_piece(client), client).passed is False


@pytest.mark.parametrize("value", [None, 5, BrokenRepr(), (x for x in "ab")], ids=lambda v: type(v).__name__)
def test_chat_turn_odd_returns_fail_without_raising(value, capsys):
    client = FakeLLM(default="好的").client()

    def chat_turn(messages, text):
        good(client)(messages, text)
        return value

    assert nb02.check_chat_turn(chat_turn, client).passed is False
    assert "❌" in capsys.readouterr().out
    assert nb02.check_chat_turn(value, client).passed is False


def test_chat_turn_with_odd_messages_fails_without_raising():
    client = FakeLLM(default="好的").client()

    def chat_turn(messages, text):
        good(client)(messages, text)
        messages.append(BrokenRepr())
        return "好的"

    assert nb02.check_chat_turn(chat_turn, client).passed is False


# ---------------------------------------------------------------------------------------------- 02-2

def by_turns(messages, n):
    rest = messages[1:]
    starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
    return messages[:1] + (rest if n >= len(starts) else rest[starts[-n]:])


def backwards(messages, n_turns):
    kept, turns = [], 0
    for message in reversed(messages[1:]):
        if turns == n_turns:
            break
        kept.insert(0, message)
        if message["role"] == "user":
            turns += 1
    while kept and kept[0]["role"] != "user" and turns == n_turns:  # never start inside a turn
        kept.pop(0)
    return [messages[0]] + kept


def as_tuple(messages, n_turns):
    return tuple(by_turns(messages, n_turns))


def deep_copies(messages, n_turns):
    return copy.deepcopy(by_turns(messages, n_turns))


@pytest.mark.parametrize("keep", [by_turns, backwards, as_tuple, deep_copies], ids=lambda f: f.__name__)
def test_keep_last_turns_accepts_every_style(keep):
    assert nb02.check_keep_last_turns(keep).passed is True


def mutating(messages, n):
    kept = by_turns(messages, n)
    del messages[1:len(messages) - len(kept) + 1]
    return kept


def returns_input_when_short(messages, n):
    rest = messages[1:]
    starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
    return messages if n >= len(starts) else messages[:1] + rest[starts[-n]:]


def one_turn_too_many(messages, n):
    return by_turns(messages, n + 1)


def one_turn_too_few(messages, n):
    return by_turns(messages, n - 1) if n > 1 else by_turns(messages, n)


def first_turns(messages, n):
    rest = messages[1:]
    starts = [i for i, m in enumerate(rest) if m["role"] == "user"] + [len(rest)]
    return messages[:1] + rest[:starts[n]] if n < len(starts) else messages[:]


def by_assistant_replies(messages, n):  # a turn counted by its final answer: wrong while a question waits
    rest = messages[1:]
    ends = [i for i, m in enumerate(rest) if m["role"] == "assistant" and not m.get("tool_calls")]
    if n >= len(ends):
        return messages[:]
    return messages[:1] + rest[ends[-n - 1] + 1:]


def hard_coded(messages, n):  # written for the 13-message sample conversation
    return messages[:1] + messages[{1: -2, 2: -6, 3: -12}.get(n, 1):]


def pairs(messages, n):
    return messages[:1] + messages[1:][-2 * n:]


WRONG_TRIMS = {
    "naive": (lambda m, n: m[-2 * n:], "check.02.keep_last_turns.hint_system"),
    "drops_system": (lambda m, n: by_turns(m, n)[1:], "check.02.keep_last_turns.hint_system"),
    "mutating": (mutating, "check.02.keep_last_turns.3"),
    "returns_input": (returns_input_when_short, "check.02.keep_last_turns.8"),
    "too_many": (one_turn_too_many, None),
    "too_few": (one_turn_too_few, None),
    "first_turns": (first_turns, None),
    "by_assistant_replies": (by_assistant_replies, None),
    "hard_coded": (hard_coded, None),
    "pairs": (pairs, None),
    "system_only": (lambda m, n: m[:1], None),
    "everything": (lambda m, n: list(m), None),
    "not_a_list": (lambda m, n: None, "check.02.keep_last_turns.4"),
    "generator": (lambda m, n: (x for x in by_turns(m, n)), "check.02.keep_last_turns.4"),
    "broken_repr": (lambda m, n: BrokenRepr(), "check.02.keep_last_turns.4"),
    "raises": (lambda m, n: m[10 ** 6], "check.02.keep_last_turns.2"),
}


@pytest.mark.parametrize("name", sorted(WRONG_TRIMS))
def test_keep_last_turns_rejects_wrong_answers(name, capsys):
    keep, hint = WRONG_TRIMS[name]
    result = nb02.check_keep_last_turns(keep)
    assert result.passed is False
    if hint:
        assert result.hint == hint
    assert "❌" in capsys.readouterr().out


def test_keep_last_turns_rejects_trim_messages():
    from course_lib.memory import trim_messages

    # trim_messages bounds messages, not turns: with n=2 it would keep 2 messages
    assert nb02.check_keep_last_turns(lambda m, n: trim_messages(m, n)).passed is False


def test_keep_last_turns_odd_values():
    assert nb02.check_keep_last_turns(None).passed is False
    assert nb02.check_keep_last_turns([]).passed is False


def test_sample_conversation_is_valid():
    from course_lib.messages import validate

    validate(nb02.sample_conversation())


@pytest.mark.parametrize("arguments", ["model=MODEL, temperature=5", "model=MODEL, n=2", "model='gpt-4o-mini'"])
def test_02_1_reads_the_request_a_provider_would_refuse(arguments):
    """Issue 54: 02-1 did not run request_problem - sampling values an API refuses and typed-in models passed."""
    namespace = {"client": FakeLLM(default="好的。").client(), "MODEL": "fake-model"}
    exec("def chat_turn(messages, user_text):\n"
         "    messages.append({'role': 'user', 'content': user_text})\n"
         f"    r = client.chat.completions.create({arguments}, messages=messages, max_tokens=100)\n"
         "    reply = r.choices[0].message.content\n"
         "    messages.append({'role': 'assistant', 'content': reply})\n"
         "    return reply\n", namespace)
    result = nb02.check_chat_turn(namespace["chat_turn"], namespace["client"])
    assert result.passed is False and result.hint.startswith("check.request."), result.message


def test_02_1_an_extra_key_on_a_message_is_refused():
    namespace = {"client": FakeLLM(default="好的。").client(), "MODEL": "fake-model"}
    exec("def chat_turn(messages, user_text):\n"
         "    messages.append({'role': 'user', 'content': user_text, 'time': '10:00'})\n"
         "    r = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)\n"
         "    reply = r.choices[0].message.content\n"
         "    messages.append({'role': 'assistant', 'content': reply})\n"
         "    return reply\n", namespace)
    result = nb02.check_chat_turn(namespace["chat_turn"], namespace["client"])
    assert result.passed is False and result.hint == "check.request.key", result.message
