"""course_lib.recording: what a client sent, for the checkers and the debugger."""

from __future__ import annotations

import pytest

from course_lib.checkers import recording as checkers_recording
from course_lib.recording import Recording, recording
from fakes import FakeLLM


def test_recording_keeps_copies_of_requests_and_the_responses():
    client = FakeLLM(["a", "b"]).client()
    messages = [{"role": "user", "content": "q"}]
    with recording(client) as seen:
        first = client.chat.completions.create(model="m", messages=messages)
        messages.append({"role": "assistant", "content": "a"})  # the caller keeps changing its list
        client.chat.completions.create(model="m", messages=messages)
    assert isinstance(seen, Recording) and len(seen.requests) == 2 and seen.responses[0] is first
    assert seen.requests[0]["messages"] == [{"role": "user", "content": "q"}]  # a copy, taken at call time
    assert checkers_recording is recording  # the checkers use the same recorder


def test_recording_restores_create_even_after_an_error():
    client = FakeLLM(["a"]).client()
    original = client.chat.completions.create
    with pytest.raises(RuntimeError):
        with recording(client):
            raise RuntimeError("boom")
    assert client.chat.completions.create == original


def test_recording_times_each_request():
    """``seconds[i]`` is request i's wall time: an answer that takes 0.2 s is timed at least that long."""
    import time

    def slow(kwargs):
        time.sleep(0.2)
        return {"answered": kwargs["model"]}

    client = FakeLLM(["a"]).client()
    with recording(client, answer=slow) as seen:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
        client.chat.completions.create(model="n", messages=[{"role": "user", "content": "q"}])
    assert len(seen.seconds) == len(seen.requests) == 2
    assert all(0.2 <= s < 5 for s in seen.seconds)
