"""Thinking that streams with only a closing ``</think>`` (issue 11, leftover of items 1/3).

QwQ, DeepSeek-R1 (and distills) and Qwen3 "-Thinking" models get ``<think>``
from their chat template, so the streamed reply is the thinking, then
``</think>``, then the answer.  The chat box must never show that thinking
as the answer.  Streams come from the fake server through the real client.
"""

from __future__ import annotations

import json

import httpx2
import pytest

from fakes import FakeLLM

from course_lib import replies
from course_lib.replies import collect_stream
from course_lib.widgets import ChatBox, ChatSession

THINKING = ["用户在", "打招呼，", "我应该", "礼貌地回应。"]
ANSWER = ["\n\n你好！", "有什么可以", "帮你的？"]


@pytest.fixture(autouse=True)
def forget_learned_models(monkeypatch):
    monkeypatch.setattr(replies, "THINKS_WITHOUT_OPEN_TAG", set())


def stream(model: str, pieces: list[str]) -> httpx2.Response:
    head = {"id": "chatcmpl-t", "object": "chat.completion.chunk", "created": 0, "model": model}
    chunks = [{**head, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces]
    chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    body = "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


def watched_box(fake: FakeLLM, model: str) -> tuple[ChatBox, list[str]]:
    box = ChatBox(ChatSession(fake.client(), model, memory=True))
    seen: list[str] = []
    box.reply.observe(lambda change: seen.append(change["new"]), names="value")
    return box, seen


def shows_thinking(values: list[str]) -> bool:
    return any("打招呼" in v or "think" in v for v in values)


@pytest.mark.parametrize("model", ["qwq-32b", "deepseek-r1:7b", "DeepSeek-R1-Distill-Qwen-7B", "qwen3-30b-a3b-thinking-2507"])
def test_a_model_that_thinks_first_never_shows_its_thinking(model):
    fake = FakeLLM([stream(model, [*THINKING, "</think>", *ANSWER])])
    box, seen = watched_box(fake, model)
    box.text.value = "你好"
    box.send_button.click()
    assert seen and not shows_thinking(seen)
    assert "你好！有什么可以帮你的？" in box.reply.value
    assert box.session.history[-1] == {"role": "assistant", "content": "你好！有什么可以帮你的？"}


def test_an_unknown_model_is_corrected_at_once_and_remembered():
    fake = FakeLLM([stream("my-model", [*THINKING, "</", "think>", *ANSWER]),
                    stream("my-model", [*THINKING, "</think>", "再见！"])])
    box, seen = watched_box(fake, "my-model")
    box.text.value = "你好"
    box.send_button.click()
    # Before "</think>" nobody can know; once it arrives the box forgets what it showed.
    after = seen[next(i for i, v in enumerate(seen) if "你好！" in v):]
    assert not shows_thinking(after) and not shows_thinking([box.reply.value, box.table.value])
    seen.clear()
    box.text.value = "再见"
    box.send_button.click()
    assert seen and not shows_thinking(seen)  # the second reply of the same model: never shown
    assert box.session.history[-1]["content"] == "再见！"


def test_pieces_add_up_to_the_text_even_when_held_back():
    # A thinker that did not think this time: everything is passed at the end.
    fake = FakeLLM([stream("deepseek-r1:1.5b", ["直接", "回答。"]), stream("fake-model", ["a</th", "e>b"])])
    client = fake.client()
    messages = [{"role": "user", "content": "x"}]
    pieces: list[str] = []
    reply = collect_stream(client.chat.completions.create(model="m", messages=messages, stream=True), pieces.append)
    assert reply.text == "直接回答。" and "".join(pieces) == "直接回答。"
    # "</th" that turns out not to be a tag is held back a moment, then shown.
    pieces.clear()
    resets: list[int] = []
    reply = collect_stream(client.chat.completions.create(model="m", messages=messages, stream=True), pieces.append,
                           lambda: resets.append(1))
    assert reply.text == "a</the>b" and "".join(pieces) == "a</the>b" and resets == []


def test_reset_is_called_when_shown_text_was_thinking():
    fake = FakeLLM([stream("plain-model", ["想一想", "</think>", "答案"])])
    events: list[str] = []
    reply = collect_stream(fake.client().chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}],
                                                                 stream=True),
                           lambda piece: events.append(piece), lambda: events.append("<reset>"))
    assert events == ["想一想", "<reset>", "答案"]
    assert reply.text == "答案" and reply.reasoning == "想一想"
    assert "plain-model" in replies.THINKS_WITHOUT_OPEN_TAG
