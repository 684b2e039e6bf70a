"""Checkers of notebook 01 (course_lib.checkers.nb01): every taught style passes, plausible wrong answers fail."""

from __future__ import annotations

import pytest
from openai.types.chat import ChatCompletion

from course_lib.checkers import nb01
from fakes import FakeLLM, sse_response


class BrokenRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


def streamed(*pieces: str, usage: bool = False):
    """A FakeLLM whose first answer is streamed in ``pieces`` (SSE), as a real server sends it."""
    deltas = [{"role": "assistant", "content": ""}] + [{"content": p} for p in pieces]
    body = sse_response(deltas, usage={"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7} if usage else None)
    return FakeLLM([body], default="（多余的请求）")


# ---------------------------------------------------------------------------------------------- 01-1
# Each answer is a function of the client (the notebook's global ``client``).

def plain(client):
    def ask(question):
        response = client.chat.completions.create(
            model="m", messages=[{"role": "system", "content": "简洁。"}, {"role": "user", "content": question}],
            max_tokens=100, temperature=0)
        return response.choices[0].message.content
    return ask


def only_user(client):
    def ask(question):
        return client.chat.completions.create(model="m", messages=[{"role": "user", "content": question}]
                                              ).choices[0].message.content
    return ask


def stripped(client):
    def ask(question):
        return plain(client)(question).strip()
    return ask


def stream_loop(client):  # notebook 01, section 7
    def ask(question):
        stream = client.chat.completions.create(model="m", messages=[{"role": "user", "content": question}],
                                                max_tokens=100, stream=True)
        pieces = []
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                pieces.append(chunk.choices[0].delta.content)
        return "".join(pieces)
    return ask


def stream_with(client):
    def ask(question):
        with client.chat.completions.create(model="m", messages=[{"role": "user", "content": question}],
                                            stream=True, stream_options={"include_usage": True}) as stream:
            return "".join((c.choices[0].delta.content or "") for c in stream if c.choices)
    return ask


RIGHT = [plain, only_user, stripped, stream_loop, stream_with]


# Each style with the answer its request asks for: JSON for a plain request, server-sent events for stream=True.
STYLES = [(make, make.__name__.startswith("stream")) for make in RIGHT]


@pytest.mark.parametrize("make,stream", STYLES, ids=[f"{m.__name__}-{'sse' if s else 'json'}" for m, s in STYLES])
def test_ask_accepts_every_style(make, stream):
    fake = streamed("2", "。", usage=make is stream_with) if stream else FakeLLM(default=" 2 \n")
    client = fake.client()
    assert nb01.check_ask(make(client), client).passed
    assert len(fake.requests) == 1  # the checker's own extra question costs no request to the model


def returns_response(client):
    def ask(question):
        return client.chat.completions.create(model="m", messages=[{"role": "user", "content": question}])
    return ask


def returns_message(client):
    def ask(question):
        return client.chat.completions.create(model="m", messages=[{"role": "user", "content": question}]
                                              ).choices[0].message
    return ask


def prints(client):
    def ask(question):
        print(only_user(client)(question))
    return ask


def asks_twice(client):
    def ask(question):
        only_user(client)(question)
        return only_user(client)(question)
    return ask


def hard_coded_reply(client):  # right for the checker's question "1+1" on a model that answers "2"
    def ask(question):
        only_user(client)(question)
        return "2"
    return ask


def hard_coded_question(client):
    def ask(question):
        return only_user(client)("1+1 等于几？只回答数字。")
    return ask


def system_last(client):
    def ask(question):
        return client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": question}, {"role": "system", "content": "简洁。"}]
        ).choices[0].message.content
    return ask


def as_system(client):
    def ask(question):
        return client.chat.completions.create(model="m", messages=[{"role": "system", "content": question}]
                                              ).choices[0].message.content
    return ask


def wrapped_question(client):
    def ask(question):
        return only_user(client)(f"问题：{question}")
    return ask


def system_without_role(client):  # a message the API refuses
    def ask(question):
        return client.chat.completions.create(
            model="m", messages=[{"content": "简洁。"}, {"role": "user", "content": question}]).choices[0].message.content
    return ask


def returns_question(client):
    def ask(question):
        only_user(client)(question)
        return question
    return ask


def stream_first_piece(client):
    def ask(question):
        for chunk in client.chat.completions.create(model="m", messages=[{"role": "user", "content": question}],
                                                    stream=True):
            if chunk.choices and chunk.choices[0].delta.content:
                return chunk.choices[0].delta.content
    return ask


def stream_last_piece(client):
    def ask(question):
        text = ""
        for chunk in client.chat.completions.create(model="m", messages=[{"role": "user", "content": question}],
                                                    stream=True):
            if chunk.choices and chunk.choices[0].delta.content:
                text = chunk.choices[0].delta.content
        return text
    return ask


def stream_returned(client):
    def ask(question):
        return client.chat.completions.create(model="m", messages=[{"role": "user", "content": question}], stream=True)
    return ask


def raises(client):
    def ask(question):
        raise KeyError("choices")
    return ask


def temperature_below_zero(client):
    def ask(question):
        response = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": question}], max_tokens=100, temperature=-1)
        return response.choices[0].message.content
    return ask


def no_tokens(client):
    def ask(question):
        response = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": question}], max_tokens=0)
        return response.choices[0].message.content
    return ask


WRONG = [
    (temperature_below_zero, "check.request.range"), (no_tokens, "check.request.tokens"),
    (returns_response, "check.01.ask.5"), (returns_message, "check.01.ask.5"), (prints, "check.01.ask.5"),
    (asks_twice, "check.01.ask.3"), (hard_coded_reply, "check.01.ask.5"), (hard_coded_question, "check.01.ask.4"),
    (system_last, "check.01.ask.4"), (as_system, "check.01.ask.4"), (wrapped_question, "check.01.ask.4"),
    (returns_question, "check.01.ask.5"), (raises, "check.01.ask.2"), (system_without_role, "check.01.ask.7"),
]
WRONG_STREAMED = [(stream_first_piece, "check.01.ask.5"), (stream_last_piece, "check.01.ask.5"),
                  (stream_returned, "check.01.ask.5")]


@pytest.mark.parametrize("make,hint", WRONG, ids=[f.__name__ for f, _ in WRONG])
def test_ask_rejects_wrong_answers(make, hint, capsys):
    fake = FakeLLM(default="2")
    client = fake.client()
    result = nb01.check_ask(make(client), client)
    assert not result.passed
    assert result.hint == hint
    assert "Traceback" not in capsys.readouterr().out


@pytest.mark.parametrize("make,hint", WRONG_STREAMED, ids=[f.__name__ for f, _ in WRONG_STREAMED])
def test_ask_rejects_wrong_streamed_answers(make, hint):
    fake = streamed("1", "+", "1", "=", "2")
    client = fake.client()
    result = nb01.check_ask(make(client), client)
    assert not result.passed
    assert result.hint == hint


@pytest.mark.parametrize("value", [None, 42, "ask", BrokenRepr()], ids=lambda v: type(v).__name__)
def test_ask_that_is_not_a_function_fails_without_raising(value):
    assert not nb01.check_ask(value, FakeLLM(default="2").client()).passed


@pytest.mark.parametrize("value", [None, 42, BrokenRepr(), (x for x in "2"), ["2"]], ids=lambda v: type(v).__name__)
def test_ask_odd_returns_fail_without_raising(value, capsys):
    fake = FakeLLM(default="2")
    client = fake.client()

    def ask(question):
        only_user(client)(question)
        return value

    result = nb01.check_ask(ask, client)
    assert not result.passed and result.hint == "check.01.ask.5"
    assert "❌" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------- 01-2

def reference(response):
    return {"finish_reason": response.choices[0].finish_reason, "total_tokens": response.usage.total_tokens}


def by_sum(response):  # the same number, read another way
    usage = response.usage
    return {"finish_reason": response.choices[0].finish_reason,
            "total_tokens": usage.prompt_tokens + usage.completion_tokens}


def by_dump(response):
    data = response.model_dump()
    return dict(finish_reason=data["choices"][0]["finish_reason"], total_tokens=data["usage"]["total_tokens"])


@pytest.mark.parametrize("summarize", [reference, by_sum, by_dump], ids=lambda f: f.__name__)
def test_summarize_accepts_every_style(summarize):
    assert nb01.check_summarize(summarize).passed


WRONG_SUMMARIES = {
    "hard_coded": lambda r: {"finish_reason": "stop", "total_tokens": 21},
    "from_message": lambda r: {"finish_reason": r.choices[0].message.finish_reason, "total_tokens": r.usage.total_tokens},
    "prompt_tokens": lambda r: {"finish_reason": r.choices[0].finish_reason, "total_tokens": r.usage.prompt_tokens},
    "completion_tokens": lambda r: {"finish_reason": r.choices[0].finish_reason,
                                    "total_tokens": r.usage.completion_tokens},
    "last_choice": lambda r: {"finish_reason": r.choices[-1].finish_reason, "total_tokens": r.usage.total_tokens},
    "swapped": lambda r: {"finish_reason": r.usage.total_tokens, "total_tokens": r.choices[0].finish_reason},
    "as_text": lambda r: {"finish_reason": r.choices[0].finish_reason, "total_tokens": str(r.usage.total_tokens)},
    "extra_key": lambda r: {**reference(r), "prompt_tokens": r.usage.prompt_tokens},
    "wrong_names": lambda r: {"reason": r.choices[0].finish_reason, "tokens": r.usage.total_tokens},
    "tuple": lambda r: (r.choices[0].finish_reason, r.usage.total_tokens),
    "untouched": lambda r: {},
    "none": lambda r: None,
    "is_stop": lambda r: {"finish_reason": r.choices[0].finish_reason == "stop", "total_tokens": r.usage.total_tokens},
    "content_length": lambda r: {"finish_reason": r.choices[0].finish_reason,
                                 "total_tokens": len(r.choices[0].message.content)},
    "broken_repr": lambda r: BrokenRepr(),
    "generator": lambda r: (x for x in [r]),
}


@pytest.mark.parametrize("name", sorted(WRONG_SUMMARIES))
def test_summarize_rejects_wrong_answers(name, capsys):
    result = nb01.check_summarize(WRONG_SUMMARIES[name])
    assert not result.passed
    assert result.hint in ("check.01.summarize.2", "check.01.summarize.3")
    if name == "from_message":
        assert result.hint == "check.01.summarize.2"
    assert "❌" in capsys.readouterr().out


def test_summarize_names_the_case_that_failed(capsys):
    nb01.check_summarize(WRONG_SUMMARIES["hard_coded"])
    out = capsys.readouterr().out
    assert "finish_reason" in out and "total_tokens" in out


def test_summarize_that_is_not_a_function_fails():
    assert not nb01.check_summarize(None).passed
    assert not nb01.check_summarize({"finish_reason": "stop"}).passed


def test_summarize_gets_real_sdk_objects():
    seen = []
    nb01.check_summarize(lambda r: seen.append(r) or reference(r))
    assert seen and all(isinstance(r, ChatCompletion) for r in seen)
    assert len({(r.choices[0].finish_reason, r.usage.total_tokens) for r in seen}) >= 3
