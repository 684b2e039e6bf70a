"""course_runtime.request_replay: the notebook tests' second pass answered from the first pass's record.

A recorded answer comes back byte for byte (a stream too, read as a live one is),
a request that was not recorded goes to the server, nothing is stored or
replayed without ``COURSE_REPLAY_DIR``, and the request log marks what was
replayed.  No model: a fake server behind ``httpx2.MockTransport``, put where
``get_client`` puts the local server's transport.
"""

from __future__ import annotations

import errno
import json
from pathlib import Path

import httpx2
import nbformat
import pytest

from fakes import FakeLLM, sse_response

from course_lib import providers
from course_runtime import http_client, local_server, request_replay
from course_lib.providers import PRESETS, Provider, get_client
from course_lib.replies import collect_stream
from course_runtime.request_replay import DIR_ENV, MODE_ENV

MESSAGES = [{"role": "user", "content": "北京天气？"}]


class Trickle(httpx2.SyncByteStream):
    """A body that arrives piece by piece, as from a real server (not read in advance)."""

    def __init__(self, data: bytes):
        self.data = data

    def __iter__(self):
        for k in range(0, len(self.data), 7):
            yield self.data[k:k + 7]


class Server:
    """The fake network: answers from a FakeLLM script, each body trickled in as a real server sends it."""

    def __init__(self, replies: list):
        self.fake = FakeLLM(replies)

    @property
    def requests(self) -> list[dict]:
        return self.fake.requests

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        canned = self.fake(request)
        canned.read()
        return httpx2.Response(canned.status_code, headers=canned.headers, stream=Trickle(canned.content))


@pytest.fixture
def local(monkeypatch, tmp_path):
    """``make(server)``: a ``get_client`` client for the local provider whose network is ``server``."""
    for name in (DIR_ENV, MODE_ENV, "COURSE_REQUEST_LOG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(local_server, "ensure_server", lambda *a, **k: None)

    def make(server):
        monkeypatch.setattr(http_client, "RestartingTransport", lambda: httpx2.MockTransport(server))
        provider = Provider(PRESETS["local"], local_server.base_url(), local_server.MODEL_ALIAS)
        assert provider.is_local
        return get_client(provider)

    return make


def record_env(monkeypatch, tmp_path, mode="record") -> Path:
    folder = tmp_path / "record"
    monkeypatch.setenv(DIR_ENV, str(folder))
    monkeypatch.setenv(MODE_ENV, mode)
    return folder


def raw_exchange(client, body: dict) -> tuple[int, str, bytes]:
    """POST ``body`` through the client's own HTTP client (rules, hooks and all): status, type, the bytes."""
    with client._client.stream("POST", f"{client.base_url}chat/completions", json=body) as response:
        return response.status_code, response.headers.get("content-type", ""), response.read()


def test_record_then_replay_gives_the_same_bytes_streamed_or_not(local, monkeypatch, tmp_path):
    streamed = sse_response([{"role": "assistant", "content": "北京"}, {"content": "晴。"}],
                            usage={"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12})
    server = Server(["多云。", streamed])
    folder = record_env(monkeypatch, tmp_path)
    client = local(server)
    plain = {"model": "m", "messages": MESSAGES, "max_tokens": 20}
    stream = {"model": "m", "messages": MESSAGES, "stream": True}
    live = [raw_exchange(client, plain), raw_exchange(client, stream)]
    assert len(server.requests) == 2 and len(list(folder.glob("*.json"))) == 2
    assert "event-stream" in live[1][1] and b"data: [DONE]" in live[1][2]

    monkeypatch.setenv(MODE_ENV, "replay")  # the same client: the mode is read per request
    again = [raw_exchange(client, plain), raw_exchange(client, stream)]
    assert again == live and len(server.requests) == 2  # nothing reached the server

    # and the SDK reads them as it read them live (a fresh client: the record is the folder's)
    server.fake.add("多云。", streamed)
    monkeypatch.setenv(MODE_ENV, "record")
    client = local(server)
    first = client.chat.completions.create(model="m", messages=MESSAGES, temperature=0)
    chunks = list(client.chat.completions.create(model="m", messages=MESSAGES, temperature=0, stream=True))
    monkeypatch.setenv(MODE_ENV, "replay")
    sent = len(server.requests)
    assert client.chat.completions.create(model="m", messages=MESSAGES, temperature=0).model_dump() == first.model_dump()
    replayed = list(client.chat.completions.create(model="m", messages=MESSAGES, temperature=0, stream=True))
    assert [c.model_dump() for c in replayed] == [c.model_dump() for c in chunks]
    assert collect_stream(iter(replayed)).text == "北京晴。" and len(server.requests) == sent


def test_the_same_request_twice_gets_its_answers_in_order_then_goes_live(local, monkeypatch, tmp_path):
    server = Server(["一", "二", "三"])
    record_env(monkeypatch, tmp_path)
    client = local(server)
    ask = lambda: client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content  # noqa: E731
    assert [ask(), ask()] == ["一", "二"]
    monkeypatch.setenv(MODE_ENV, "replay")
    assert [ask(), ask(), ask()] == ["一", "二", "三"]  # the third was never recorded: the server's answer
    assert len(server.requests) == 3


def test_a_request_not_recorded_goes_live(local, monkeypatch, tmp_path):
    server = Server(["晴。", "雨。"])
    record_env(monkeypatch, tmp_path)
    client = local(server)
    client.chat.completions.create(model="m", messages=MESSAGES)
    monkeypatch.setenv(MODE_ENV, "replay")
    other = [{"role": "user", "content": "上海天气？"}]
    assert client.chat.completions.create(model="m", messages=other).choices[0].message.content == "雨。"
    assert server.requests[-1]["messages"] == other


def test_the_canonical_body_is_the_key():
    def key(content: bytes) -> str:
        return request_replay.request_key(httpx2.Request("POST", "http://x/v1/chat/completions", content=content))

    assert key(b'{"a": 1, "b": [1, 2]}') == key(b'{"b":[1,2],"a":1}')
    assert key(b'{"a": 1}') != key(b'{"a": 2}')


def test_without_the_variable_nothing_is_stored_or_replayed(local, monkeypatch, tmp_path):
    server = Server(["晴。", "晴。", "晴。"])
    monkeypatch.setenv(MODE_ENV, "record")  # the mode alone does nothing
    monkeypatch.chdir(tmp_path)
    client = local(server)
    assert isinstance(client._client._transport, httpx2.MockTransport)  # the client a student gets: unwrapped
    client.chat.completions.create(model="m", messages=MESSAGES)
    monkeypatch.setenv(MODE_ENV, "replay")
    client.chat.completions.create(model="m", messages=MESSAGES)
    assert len(server.requests) == 2 and list(tmp_path.iterdir()) == []
    # a wrapped transport whose folder has gone also just sends
    wrapped = request_replay.ReplayTransport(httpx2.MockTransport(server))
    assert request_replay.wrap(wrapped.inner) is wrapped.inner
    assert wrapped.handle_request(httpx2.Request("POST", "http://x/v1/chat/completions", json={})).status_code == 200
    assert len(server.requests) == 3 and list(tmp_path.iterdir()) == []


def test_a_transport_given_to_get_client_is_never_wrapped(monkeypatch, tmp_path):
    record_env(monkeypatch, tmp_path)
    fake = FakeLLM(["晴。"])
    client = get_client(Provider(PRESETS["custom"], fake.base_url, "m", "x"), transport=httpx2.MockTransport(fake))
    assert isinstance(client._client._transport, httpx2.MockTransport)


def test_off_and_unread_or_failed_answers_are_not_stored(local, monkeypatch, tmp_path):
    server = Server([sse_response([{"content": "一"}, {"content": "二"}]), httpx2.Response(500, json={"error": "x"}), "晴。"])
    folder = record_env(monkeypatch, tmp_path)
    client = local(server)
    stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    next(iter(stream))
    stream.close()  # the caller stopped reading half-way
    with pytest.raises(Exception):
        client.chat.completions.create(model="m", messages=MESSAGES)
    monkeypatch.setenv(MODE_ENV, "off")
    client.chat.completions.create(model="m", messages=MESSAGES)
    assert list(folder.glob("*")) == []


def answers(folder: Path) -> dict[str, list[Path]]:
    """The ``.json`` files of the folder by request key, in order of n."""
    out: dict[str, list[Path]] = {}
    for path in sorted(folder.glob("*.json"), key=lambda p: int(p.name.split(".")[1])):
        out.setdefault(path.name.split(".")[0], []).append(path)
    return out


def test_a_recording_torn_mid_write_is_never_replayed(local, monkeypatch, tmp_path):
    """Issue 44: an answer whose recording stopped mid-write (the kernel killed, a full disk) is treated as missing:
    that request goes to the server again, and the next one still gets the answer recorded for it."""
    server = Server(["一", "二", "三", "北京晴，25°C。", "四", "五", "上海多云。"])
    folder = record_env(monkeypatch, tmp_path)
    client = local(server)
    ask = lambda: client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content  # noqa: E731
    other = [{"role": "user", "content": "上海天气？"}]
    stream = lambda: collect_stream(client.chat.completions.create(model="m", messages=other, stream=True)).text  # noqa: E731
    assert [ask(), ask(), ask(), stream()] == ["一", "二", "三", "北京晴，25°C。"]
    (asked, streamed) = sorted(answers(folder).values(), key=len, reverse=True)
    assert len(asked) == 3 and len(streamed) == 1
    asked[0].write_text(asked[0].read_text(encoding="utf-8")[:25], encoding="utf-8")  # answer 0: its .json cut short
    asked[1].unlink()  # answer 1: stopped after its body, before its .json
    body = streamed[0].with_suffix(".body")
    events = body.read_bytes().split(b"\n\n")
    body.write_bytes(b"\n\n".join(events[:2]) + b"\n\n")  # the stream: cut after its second event, no [DONE]
    sent = len(server.requests)

    monkeypatch.setenv(MODE_ENV, "replay")
    assert [ask(), ask(), ask()] == ["四", "五", "三"]  # 0 and 1 from the server again, 2 as it was recorded
    assert stream() == "上海多云。"  # not the first two pieces of "北京晴，25°C。" as if that were all
    assert len(server.requests) == sent + 3


def test_a_full_disk_while_recording_costs_the_caller_nothing(local, monkeypatch, tmp_path):
    """The answer the first pass read is its answer even when storing it fails; the second pass sends it again."""
    server = Server(["一", "二", "三"])
    folder = record_env(monkeypatch, tmp_path)
    client = local(server)
    ask = lambda: client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content  # noqa: E731
    assert ask() == "一"
    real_replace = request_replay.os.replace

    def full(source, target):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(request_replay.os, "replace", full)
    assert ask() == "二"  # not an OSError from the recording
    monkeypatch.setattr(request_replay.os, "replace", real_replace)
    assert not list(folder.glob("*.tmp"))
    monkeypatch.setenv(MODE_ENV, "replay")
    assert [ask(), ask()] == ["一", "三"]  # the second was never stored whole: the server again
    assert len(server.requests) == 3


def test_the_log_line_of_a_replayed_request_says_replayed(local, monkeypatch, tmp_path):
    log = tmp_path / "requests.jsonl"
    monkeypatch.setenv("COURSE_REQUEST_LOG", str(log))
    server = Server(["多云。", sse_response([{"role": "assistant", "content": "晴"}, {"content": "。"}])])
    record_env(monkeypatch, tmp_path)
    client = local(server)
    client.chat.completions.create(model="m", messages=MESSAGES)
    collect_stream(client.chat.completions.create(model="m", messages=MESSAGES, stream=True))
    monkeypatch.setenv(MODE_ENV, "replay")
    client.chat.completions.create(model="m", messages=MESSAGES)
    collect_stream(client.chat.completions.create(model="m", messages=MESSAGES, stream=True))
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [line.get("replayed") for line in lines] == [None, None, True, True]
    assert [line["content"] for line in lines] == ["多云。", "晴。", "多云。", "晴。"]
    assert [line["stream"] for line in lines] == [False, True, False, True]
    assert lines[2]["request"] == lines[0]["request"] and lines[3]["request"] == lines[1]["request"]


def test_the_second_pass_replays_except_in_the_live_cells(tmp_path, monkeypatch):
    """``series.execute_cells(..., live_cells=[k])``: the kernel records in the first pass, replays in the
    second, and is off in cell k, which meets the server's prompt cache as the first pass left it;
    the switches are cells the notebook never holds."""
    from bench import series

    slot_calls: list[tuple[str, str]] = []
    monkeypatch.setattr(series, "local_slot", lambda action, name: slot_calls.append((action, name)) or True)
    seen = tmp_path / "modes.txt"
    note = (f"from pathlib import Path\nwith Path({str(seen)!r}).open('a', encoding='utf-8') as fh:\n"
            "    fh.write(__import__('os').environ.get('COURSE_REPLAY', '-') + ' ')")
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    nb.cells = [nbformat.v4.new_markdown_cell("# x"), nbformat.v4.new_code_cell(note),
                nbformat.v4.new_code_cell(note), nbformat.v4.new_code_cell(note)]
    before = json.loads(json.dumps(nb))
    rerun: list[str] = []
    errors, _ = series.execute_cells(nb, tmp_path / "nb.ipynb", tmp_path / "log.jsonl", rerun_errors=rerun,
                                     live_cells=[2])
    assert errors == [] and rerun == []
    assert seen.read_text(encoding="utf-8").split() == ["record"] * 3 + ["replay", "off", "replay"]
    assert [c.cell_type for c in nb.cells] == [c["cell_type"] for c in before["cells"]]
    assert nb.cells[0].source == "# x" and [c.execution_count for c in nb.cells[1:]] == [1, 2, 3]
    assert [action for action, _ in slot_calls] == ["save", "restore"] and slot_calls[0][1] == slot_calls[1][1]
    seen.unlink()
    slot_calls.clear()
    series.execute_cells(nb, tmp_path / "nb.ipynb", tmp_path / "log.jsonl", rerun_errors=[])  # the bench's way
    assert seen.read_text(encoding="utf-8").split() == ["-"] * 6 and slot_calls == []
