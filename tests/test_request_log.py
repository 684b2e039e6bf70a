"""The request log (``COURSE_REQUEST_LOG``): what the bench and the reference record read.

Every line must hold the request that was sent and the whole reply - also
for a streamed reply, which is put together only as the caller reads it -
and never the key.
"""

from __future__ import annotations

import json

import httpx2

from fakes import FakeLLM, sse_response

from course_lib.providers import PRESETS, Provider, get_client
from course_lib.replies import collect_stream
from course_runtime.request_log import TeeStream, sse_chunks

KEY = "s" + "k-" + "LogTest0Key1" * 3


def logged_client(tmp_path, monkeypatch, fake):
    log = tmp_path / "requests.jsonl"
    monkeypatch.setenv("COURSE_REQUEST_LOG", str(log))
    prov = Provider(PRESETS["custom"], fake.base_url, "fake-model", KEY)
    return get_client(prov, transport=httpx2.MockTransport(fake), max_retries=0), log


def lines(log):
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_a_reply_and_its_request_are_logged(tmp_path, monkeypatch):
    fake = FakeLLM([{"tool_calls": [("get_weather", {"city": "北京"})]}, "北京晴。"])
    client, log = logged_client(tmp_path, monkeypatch, fake)
    messages = [{"role": "user", "content": "北京天气？"}]
    client.chat.completions.create(model="fake-model", messages=messages, tools=[], max_tokens=20)
    client.chat.completions.create(model="fake-model", messages=messages)
    first, second = lines(log)
    assert first["request"]["messages"] == messages and first["request"]["max_tokens"] == 20
    assert first["tool_calls"] == [{"name": "get_weather", "arguments": json.dumps({"city": "北京"}, ensure_ascii=False)}]
    assert first["finish_reason"] == "tool_calls" and first["stream"] is False
    assert second["content"] == "北京晴。" and second["tool_calls"] is None
    assert KEY not in log.read_text(encoding="utf-8")


class _Trickle(httpx2.SyncByteStream):
    """A response body that arrives piece by piece, as from a real server (not read in advance)."""

    def __init__(self, data: bytes):
        self.data = data

    def __iter__(self):
        for k in range(0, len(self.data), 7):
            yield self.data[k:k + 7]


def test_a_streamed_reply_is_logged_once_it_has_been_read(tmp_path, monkeypatch):
    usage = {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}
    canned = sse_response([{"role": "assistant", "content": "你"}, {"content": "好"}], usage=usage)

    def trickle(request):
        return httpx2.Response(200, headers=canned.headers, stream=_Trickle(canned.content))

    log = tmp_path / "requests.jsonl"
    monkeypatch.setenv("COURSE_REQUEST_LOG", str(log))
    prov = Provider(PRESETS["custom"], FakeLLM.base_url, "fake-model", KEY)
    client = get_client(prov, transport=httpx2.MockTransport(trickle), max_retries=0)
    stream = client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "hi"}],
                                            stream=True, stream_options={"include_usage": True})
    assert not log.exists()  # nothing is read behind the caller's back
    assert collect_stream(stream).text == "你好"
    (line,) = lines(log)
    assert line["stream"] is True and line["content"] == "你好" and line["finish_reason"] == "stop"
    assert line["prompt_tokens"] == 9 and line["request"]["stream"] is True


def test_a_streamed_reply_already_in_memory_is_logged_at_once(tmp_path, monkeypatch):
    fake = FakeLLM([sse_response([{"role": "assistant", "content": "好"}])])
    client, log = logged_client(tmp_path, monkeypatch, fake)
    stream = client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "hi"}], stream=True)
    assert collect_stream(stream).text == "好"
    assert [line["content"] for line in lines(log)] == ["好"]


def test_sse_chunks_reads_the_data_lines_only():
    body = 'data: {"a": 1}\n\n: keep-alive\ndata: not json\n\ndata:{"b": 2}\n\ndata: [DONE]\n\n'.encode()
    assert sse_chunks(body) == [{"a": 1}, {"b": 2}] and sse_chunks(b"") == []


def test_tee_stream_passes_every_byte_on_and_hands_them_over_when_closed():
    got = []

    class Inner:
        closed = False

        def __iter__(self):
            yield from (b"ab", b"c")

        def close(self):
            Inner.closed = True

    tee = TeeStream(Inner(), got.append)
    assert list(tee) == [b"ab", b"c"] and got == []
    tee.close()
    assert got == [b"abc"] and Inner.closed
