"""The checkers of notebook 02 (course_lib.checkers.nb02) on typical right and wrong answers."""

from __future__ import annotations

from course_lib.checkers import nb02
from fakes import FakeLLM


def _chat_turn_good(client):
    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = client.chat.completions.create(model="m", messages=messages, max_tokens=50).choices[0].message.content
        messages.append({"role": "assistant", "content": reply})
        return reply

    return chat_turn


def test_chat_turn_checker_accepts_sdk_message_objects():
    client = FakeLLM(default="小红").client()

    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        message = client.chat.completions.create(model="m", messages=messages).choices[0].message
        messages.append(message)  # the SDK object, not a dict
        return message.content

    assert nb02.check_chat_turn(chat_turn, client).passed is True
    assert nb02.check_chat_turn(_chat_turn_good(client), client).passed is True


def test_chat_turn_checker_rejects_forgetting_the_reply(capsys):
    client = FakeLLM(default="ok").client()

    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        return client.chat.completions.create(model="m", messages=messages).choices[0].message.content

    assert nb02.check_chat_turn(chat_turn, client).passed is False
    assert "assistant" in capsys.readouterr().out


def test_chat_turn_checker_rejects_sending_only_the_last_message():
    client = FakeLLM(default="ok").client()

    def chat_turn(messages, text):
        messages.append({"role": "user", "content": text})
        reply = client.chat.completions.create(model="m", messages=[messages[0], messages[-1]]).choices[0].message.content
        messages.append({"role": "assistant", "content": reply})
        return reply

    assert nb02.check_chat_turn(chat_turn, client).passed is False


def test_keep_last_turns_checker():
    from course_lib.memory import trim_messages

    def by_turns(messages, n):
        rest = messages[1:]
        starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
        return messages[:1] + (rest if n >= len(starts) else rest[starts[-n]:])

    def mutating(messages, n):
        kept = by_turns(messages, n)
        del messages[1:-len(kept) + 1]
        return kept

    def drops_system(messages, n):
        return by_turns(messages, n)[1:]

    assert nb02.check_keep_last_turns(by_turns).passed is True
    assert nb02.check_keep_last_turns(lambda m, n: m[-2 * n:]).passed is False
    assert nb02.check_keep_last_turns(drops_system).passed is False
    assert nb02.check_keep_last_turns(mutating).passed is False
    # trim_messages bounds messages, not turns: with n=2 it would keep 2 messages
    assert nb02.check_keep_last_turns(lambda m, n: trim_messages(m, n)).passed is False


def test_sample_conversation_is_valid():
    from course_lib.messages import validate

    validate(nb02.sample_conversation())
