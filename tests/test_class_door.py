"""The class door: the students' way to the class model (course_runtime/class_door.py, fair_share.py, reply_memory.py; issue 43 part 5, issue 55).

Three layers: the turns alone (``FairShare`` on a moved clock), the door in a real
progress service on loopback in front of a fake llama-server that counts who is
being answered at once, and the door in front of the real llama-server (streaming
and the prompt cache still work, the replies are the same as straight to the server).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx2
import openai
import pytest

from fake_model_server import FakeServer, ModelHandler
from machine_support import free_port, model_server_available, skip_or_fail

from course_runtime import class_door, fair_share, progress_page, progress_service, reply_memory
from course_runtime.door_rules import ReplyStream, usage_of
from course_runtime.fair_share import FairShare, TooManyWaiting
from course_runtime.progress_store import ProgressStore
from course_runtime.web_server import ProgressService

CLASS_KEY = "course-class-" + "5" * 32
TEACHER_KEY = "course-teacher-" + "6" * 32
SECRET = "0123456789"
TOKENS = {"甲": "a" * 32, "乙": "b" * 32, "丙": "c" * 32}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def run(coro):
    return asyncio.run(coro)


# --------------------------------------------------------------------------- 1. the turns alone


def test_one_request_in_flight_per_student_the_second_waits():
    async def main():
        share = FairShare(capacity=4)
        await share.acquire("甲")
        second = asyncio.ensure_future(share.acquire("甲"))
        await asyncio.sleep(0.01)
        assert not second.done() and share.use("甲").waiting == 1  # three slots free, still waits
        await share.acquire("乙")  # another student is not held up
        share.release("甲", 10, 2)
        await asyncio.wait_for(second, 1)
        assert share.use("甲").in_flight == 1 and share.use("甲").requests == 2
    run(main())


def test_when_the_slots_are_full_the_quietest_student_goes_first():
    async def main():
        clock = Clock()
        share = FairShare(capacity=1, clock=clock)
        await share.acquire("甲")
        share.release("甲", 900, 100)  # 甲 used 1000 tokens this minute
        await share.acquire("丙")  # the one slot is taken
        first = asyncio.ensure_future(share.acquire("甲"))  # 甲 asks first ...
        await asyncio.sleep(0.01)
        second = asyncio.ensure_future(share.acquire("乙"))  # ... 乙, who used nothing, asks later
        await asyncio.sleep(0.01)
        share.release("丙")
        await asyncio.wait_for(second, 1)
        assert not first.done()  # 乙 went first
        share.release("乙", 10, 1)
        await asyncio.wait_for(first, 1)
        clock.now += fair_share.WINDOW_S  # a minute later 甲's tokens no longer count
        assert share.last_minute("甲") == 0
    run(main())


def test_equal_use_is_served_in_the_order_asked():
    async def main():
        share = FairShare(capacity=1)
        await share.acquire("丙")
        order = []

        async def ask(name):
            await share.acquire(name)
            order.append(name)

        tasks = []
        for name in ("乙", "甲"):
            tasks.append(asyncio.ensure_future(ask(name)))
            await asyncio.sleep(0.01)
        share.release("丙")
        await asyncio.sleep(0.01)
        share.release(order[0])
        await asyncio.gather(*tasks)
        assert order == ["乙", "甲"]
    run(main())


async def busy_for(share: FairShare, clock: Clock, name: str, seconds: float, tokens: int = 100) -> None:
    """``name`` has one request answered for ``seconds`` (the clock moved by hand)."""
    await share.acquire(name)
    clock.now += seconds
    share.release(name, tokens, 0)


def test_a_student_who_keeps_the_model_busy_lets_the_others_go_first():
    async def main():
        clock = Clock()
        share = FairShare(capacity=4, clock=clock)
        await busy_for(share, clock, "甲", 1)  # both have been in class for a while
        clock.now += 120
        await busy_for(share, clock, "乙", 3)  # 乙: a request now and then
        for _ in range(7):  # 甲: a cell in a loop, 35 s of the minute
            await asyncio.wait_for(busy_for(share, clock, "甲", 5), 1)
        await busy_for(share, clock, "乙", 3)
        assert share.busy_fraction("甲") > fair_share.BUSY_FRACTION and share.is_busy("甲")
        assert not share.is_busy("乙")
        asked = clock.now
        waiting = asyncio.ensure_future(share.acquire("甲"))
        await asyncio.sleep(0.01)
        assert not waiting.done() and share.use("甲").yielded == 1  # 乙 worked in the last minute: 甲 waits
        await asyncio.wait_for(share.acquire("乙"), 1)  # 乙 is never held up
        share.release("乙", 10, 1)
        clock.now = asked + fair_share.YIELD_S
        share.budget = 0  # anything that looks again (in the service: the timer)
        await asyncio.wait_for(waiting, 1)
        assert share.snapshot()[0]["busy"] is True
    run(main())


def test_an_agents_few_quick_steps_are_not_busy():
    async def main():
        clock = Clock()
        share = FairShare(capacity=4, clock=clock)
        await busy_for(share, clock, "甲", 2)  # 甲 has been in class for a while (notebooks 00-05)
        clock.now += 120
        await busy_for(share, clock, "乙", 3)
        for _ in range(4):  # four steps of an agent, 4 s each, then reading for the rest of the minute
            assert not share.is_busy("甲")
            await asyncio.wait_for(busy_for(share, clock, "甲", 4), 1)
        clock.now += 30
        assert share.busy_fraction("甲") == pytest.approx(16 / 60) and not share.is_busy("甲")
        await asyncio.wait_for(share.acquire("甲"), 1)
    run(main())


def test_a_newcomer_who_starts_with_a_loop_is_seen_within_the_first_look():
    async def main():
        clock = Clock()
        share = FairShare(capacity=4, clock=clock)
        for _ in range(3):  # 乙 works, now and then
            await busy_for(share, clock, "乙", 2)
            clock.now += 4
        for _ in range(4):  # 甲 arrives and loops: 3 s requests back to back
            await asyncio.wait_for(busy_for(share, clock, "甲", 3), 1)
        # 12 s busy of the FIRST_LOOK_S that count for a newcomer: more than half, more than twice 乙's part
        assert share.is_busy("甲") and fair_share.FIRST_LOOK_S < fair_share.WINDOW_S
    run(main())


def test_a_student_alone_is_never_held_back():
    async def main():
        clock = Clock()
        share = FairShare(capacity=4, clock=clock)
        await busy_for(share, clock, "乙", 1)
        clock.now += fair_share.WINDOW_S  # 乙 went home a minute ago
        for _ in range(20):
            await asyncio.wait_for(busy_for(share, clock, "甲", 5), 1)  # 甲 loops alone: never waits
        assert share.use("甲").yielded == 0
    run(main())


def test_over_the_teachers_budget_a_student_yields_while_others_work():
    async def main():
        clock = Clock()
        share = FairShare(capacity=4, budget=1000, clock=clock)
        await busy_for(share, clock, "甲", 1, tokens=1200)  # over the budget in one request
        await share.acquire("乙")  # another student is working
        waiting = asyncio.ensure_future(share.acquire("甲"))
        await asyncio.sleep(0.01)
        assert not waiting.done() and share.is_busy("甲")
        share.budget = 10_000  # the teacher raises it: 甲 goes at once
        await asyncio.wait_for(waiting, 1)
    run(main())


def test_a_request_cancelled_while_waiting_leaves_nothing_held():
    async def main():
        share = FairShare(capacity=1)
        await share.acquire("甲")
        waiting = asyncio.ensure_future(share.acquire("乙"))
        await asyncio.sleep(0.01)
        waiting.cancel()  # the student stopped the cell
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert share.use("乙").waiting == 0 and share.use("乙").in_flight == 0
        share.release("甲")
        await asyncio.wait_for(share.acquire("丙"), 1)
    run(main())


def test_too_many_waiting_requests_from_one_student_are_refused():
    async def main():
        share = FairShare(capacity=1)
        await share.acquire("甲")
        waiting = [asyncio.ensure_future(share.acquire("甲")) for _ in range(fair_share.MAX_WAITING)]
        await asyncio.sleep(0.01)
        with pytest.raises(TooManyWaiting):
            await share.acquire("甲")
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        assert share.use("甲").waiting == 0
    run(main())


def test_the_snapshot_is_what_the_teacher_sees():
    async def main():
        share = FairShare(capacity=2)
        await share.acquire("甲")
        share.release("甲", 300, 20)
        await share.acquire("乙")
        rows = share.snapshot()
        assert [r["name"] for r in rows] == ["甲", "乙"]
        assert rows[0] == {"name": "甲", "requests": 1, "prompt_tokens": 300, "completion_tokens": 20,
                           "last_minute": 320, "busy_percent": 0, "busy": False, "yielded": 0, "in_flight": 0,
                           "waiting": 0, "cached": 0, "refused": 0}
        assert rows[1]["in_flight"] == 1
    run(main())


def test_one_computers_names_share_two_turns():
    """Issue 55: five names joined from one laptop held all four slots; now a computer's names have at most
    ``PER_ADDRESS`` requests answered at once, and another computer is not held up."""
    async def main():
        share = FairShare(capacity=4)
        for name in ("甲", "乙"):
            await asyncio.wait_for(share.acquire(name, "192.168.1.50"), 1)
        third = asyncio.ensure_future(share.acquire("丙", "192.168.1.50"))
        await asyncio.sleep(0.01)
        assert not third.done() and share.in_flight() == fair_share.PER_ADDRESS  # two slots still free
        await asyncio.wait_for(share.acquire("丁", "192.168.1.51"), 1)  # another laptop goes at once
        share.release("甲")
        await asyncio.wait_for(third, 1)
        assert share.use("丙").in_flight == 1 and share.use("甲").address == ""
    run(main())


def test_the_capacity_must_be_at_least_one():
    with pytest.raises(ValueError):
        FairShare(capacity=0)


def test_usage_is_read_from_usage_or_from_llama_servers_timings():
    assert usage_of({"usage": {"prompt_tokens": 22, "completion_tokens": 2, "total_tokens": 24}}) == (22, 2)
    assert usage_of({"timings": {"cache_n": 21, "prompt_n": 1, "predicted_n": 2}}) == (22, 2)
    assert usage_of({"choices": []}) is None and usage_of("text") is None and usage_of(None) is None
    seen = ReplyStream()
    last = b'data: {"choices":[],"timings":{"cache_n":21,"prompt_n":1,"predicted_n":2}}\n\ndata: [DONE]\n\n'
    for piece in (b'data: {"choices":[{"delta":{"content":"x"}}]}\n\n', last[:30], last[30:]):  # split mid-line
        seen.feed(piece)
    assert seen.usage == (22, 2)
    broken = ReplyStream()
    broken.feed(b'data: {"timings": not json}\n\n')
    assert broken.usage is None


# --------------------------------------------------------------------------- 2. the door, before a fake server


class FakeModel:
    """A llama-server stand-in: answers after ``delay`` s, counts the requests it answers at once (per student
    tag, the first message's content), and keeps each request's Authorization and body as sent."""

    def __init__(self, delay: float = 0.3, pieces: int = 3, capacity: int | None = None):
        self.delay, self.pieces = delay, pieces
        self.slots = threading.BoundedSemaphore(capacity) if capacity else None  # llama-server's --parallel
        self.lock = threading.Lock()
        self.now: dict[str, int] = {}
        self.most: dict[str, int] = {}
        self.most_total = 0
        self.seen: list[tuple[str, bytes]] = []
        self.drop_next = 0  # requests to answer by closing the connection (a kept-alive one the server closed)
        self.fail_next = 0  # chat requests to answer, after ``delay``, with a 500 error
        fake = self

        class Handler(ModelHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                fake.seen.append((self.headers.get("Authorization", ""), body))
                if fake.drop_next:
                    fake.drop_next -= 1
                    self.close_connection = True
                    return  # no answer at all: the client sees the connection closed
                if self.path == "/tokenize":
                    return self.send_json(200, {"tokens": [1, 2, 3]})
                request = json.loads(body)
                if fake.fail_next:
                    fake.fail_next -= 1
                    time.sleep(fake.delay)
                    return self.send_json(500, {"error": {"message": "boom", "type": "server_error", "code": 500}})
                tag = request["messages"][0]["content"].split("-")[0]
                if fake.slots is not None:
                    fake.slots.acquire()
                with fake.lock:
                    fake.now[tag] = fake.now.get(tag, 0) + 1
                    fake.most[tag] = max(fake.most.get(tag, 0), fake.now[tag])
                    fake.most_total = max(fake.most_total, sum(fake.now.values()))
                try:
                    if request.get("stream"):
                        self.start_stream()
                        for i in range(fake.pieces):
                            time.sleep(fake.delay / fake.pieces)
                            chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                                     "choices": [{"index": 0, "delta": {"content": f"字{i}"}, "finish_reason": None}]}
                            self.write_chunk(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                        end = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                               "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                               "timings": {"cache_n": 40, "prompt_n": 2, "predicted_n": fake.pieces}}
                        self.write_chunk(b"data: " + json.dumps(end).encode() + b"\n\ndata: [DONE]\n\n")
                        self.write_chunk(b"")
                    else:
                        time.sleep(fake.delay)
                        self.send_json(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                             "choices": [{"index": 0, "finish_reason": "stop",
                                                          "message": {"role": "assistant", "content": "好的"}}],
                                             "usage": {"prompt_tokens": 42, "completion_tokens": 3,
                                                       "total_tokens": 45}})
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    with fake.lock:
                        fake.now[tag] -= 1
                    if fake.slots is not None:
                        fake.slots.release()

        self.served = FakeServer(Handler)
        self.root = self.served.root

    def stop(self) -> None:
        self.served.stop()


class Door:
    """A progress service with the door on a free loopback port, in front of ``model_root``."""

    def __init__(self, folder, model_root: str, slots: int = 2, budget: int = 0, class_key: str = CLASS_KEY,
                 reply_memory: bool = True):
        self.store = ProgressStore(folder / "class-progress.sqlite3")
        self.app = progress_service.make_app(self.store, class_key, TEACHER_KEY, model_root=model_root,
                                             join_secret=SECRET, model_slots=slots, budget=budget,
                                             **({} if reply_memory else {"reply_memory": False}))  # on: the default
        self.port = free_port()
        self.service = ProgressService(self.app, "127.0.0.1", self.port).start()
        self.url = f"http://127.0.0.1:{self.port}"

    @property
    def share(self) -> FairShare:
        return self.app.state.share

    def join(self, name: str) -> str:
        reply = httpx2.post(self.url + "/api/join", json={"secret": SECRET, "name": name, "token": TOKENS[name]},
                           timeout=10)
        assert reply.status_code == 200, reply.text
        assert reply.json()["COURSE_BASE_URL"] == self.url + "/v1" and "COURSE_CLASS_KEY" not in reply.json()
        return TOKENS[name]

    def client(self, token: str) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.url + "/v1", api_key=token, max_retries=0, timeout=30,
                             http_client=httpx2.Client(trust_env=False, timeout=30))

    def stop(self) -> None:
        self.service.stop()
        self.store.close()


@pytest.fixture
def fake():
    model = FakeModel()
    yield model
    model.stop()


@pytest.fixture
def door(tmp_path, fake):
    running = Door(tmp_path, fake.root)
    yield running
    running.stop()


def chat(client, tag: str, **kwargs):
    return client.chat.completions.create(model="m", messages=[{"role": "user", "content": f"{tag}-问"}], **kwargs)


def test_a_student_who_has_not_joined_is_told_to_join_in_chinese(door):
    for key in ("", "x", "d" * 32, CLASS_KEY):  # nothing, junk, a token nobody joined with, the class key itself
        reply = httpx2.post(door.url + "/v1/chat/completions", headers={"Authorization": f"Bearer {key}"} if key else {},
                           json={"model": "m", "messages": [{"role": "user", "content": "甲-问"}]}, timeout=10)
        assert reply.status_code == 401 and "python course.py join" in reply.json()["error"]["message"]
    with pytest.raises(openai.AuthenticationError) as err:
        chat(door.client("d" * 32), "甲")
    assert "join" in str(err.value)
    assert door.share.snapshot() == []


def test_a_joined_student_gets_the_answer_and_the_server_gets_the_class_key(door, fake):
    token = door.join("甲")
    reply = chat(door.client(token), "甲", temperature=0)
    assert reply.choices[0].message.content == "好的" and reply.usage.total_tokens == 45
    auth, body = fake.seen[-1]
    assert auth == f"Bearer {CLASS_KEY}" and token.encode() not in body  # the token stops at the door
    assert json.loads(body)["temperature"] == 0  # the request as the student sent it
    row = door.share.snapshot()[0]
    assert row["name"] == "甲" and row["requests"] == 1 and (row["prompt_tokens"], row["completion_tokens"]) == (42, 3)


def test_the_request_body_reaches_the_server_byte_for_byte(door, fake):
    token = door.join("甲")
    raw = '{"model": "m",  "messages": [{"role": "user", "content": "甲-问 \\u4f60"}], "seed": 7}'.encode()
    reply = httpx2.post(door.url + "/v1/chat/completions", content=raw, timeout=10,
                       headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    assert reply.status_code == 200 and fake.seen[-1][1] == raw


def test_one_students_parallel_requests_are_answered_one_at_a_time(door, fake):
    tokens = {name: door.join(name) for name in ("甲", "乙")}
    clients = {name: door.client(token) for name, token in tokens.items()}
    threads = [threading.Thread(target=chat, args=(clients["甲"], "甲")) for _ in range(3)]
    threads.append(threading.Thread(target=chat, args=(clients["乙"], "乙")))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert fake.most["甲"] == 1  # three at once from 甲: one at a time at the server
    assert fake.most_total == 2  # 乙 was answered beside 甲 (two slots)
    assert door.share.use("甲").requests == 3 and door.share.in_flight() == 0


def test_streaming_passes_through_and_is_counted(door, fake):
    token = door.join("甲")
    pieces = [c.choices[0].delta.content for c in chat(door.client(token), "甲", stream=True) if c.choices]
    assert "".join(p or "" for p in pieces) == "字0字1字2"
    deadline = time.monotonic() + 5  # the door counts once the stream has ended on its side too
    while door.share.in_flight() and time.monotonic() < deadline:
        time.sleep(0.02)
    row = door.share.snapshot()[0]
    assert (row["prompt_tokens"], row["completion_tokens"]) == (42, 3) and row["in_flight"] == 0


def test_a_student_who_stops_mid_stream_gives_the_turn_back(door, fake):
    fake.delay, fake.pieces = 3.0, 10  # a slow reply
    token = door.join("甲")
    with httpx2.Client(timeout=10, trust_env=False) as http:
        with http.stream("POST", door.url + "/v1/chat/completions", headers={"Authorization": f"Bearer {token}"},
                         json={"model": "m", "stream": True, "messages": [{"role": "user", "content": "甲-问"}]}) as s:
            next(s.iter_raw())  # the first piece, then the stop button
    deadline = time.monotonic() + 5
    while door.share.use("甲").in_flight and time.monotonic() < deadline:
        time.sleep(0.05)
    assert door.share.use("甲").in_flight == 0
    fake.delay, fake.pieces = 0.1, 1
    assert chat(door.client(token), "甲").choices[0].message.content == "好的"  # the next request is not stuck


def test_a_connection_the_server_closed_before_answering_is_tried_once_more(door, fake):
    token = door.join("甲")
    fake.drop_next = 1
    assert chat(door.client(token), "甲").choices[0].message.content == "好的"
    assert len(fake.seen) == 2 and door.share.in_flight() == 0
    fake.drop_next = 2  # twice in a row: the student is told, in Chinese, and the turn is free
    with pytest.raises(openai.InternalServerError) as err:
        chat(door.client(token), "甲")
    assert "模型服务器" in str(err.value) and door.share.in_flight() == 0


def test_the_render_only_endpoints_and_the_model_list_pass_through(door, fake):
    token = door.join("甲")
    auth = {"Authorization": f"Bearer {token}"}
    assert httpx2.post(door.url + "/tokenize", json={"content": "你好"}, headers=auth, timeout=10).json() == \
        {"tokens": [1, 2, 3]}
    assert door.client(token).models.list().data[0].id == "m"
    assert httpx2.post(door.url + "/tokenize", json={"content": "x"}, timeout=10).status_code == 401


def test_a_body_that_is_not_json_or_too_big_is_refused_in_chinese(door):
    token = door.join("甲")
    auth = {"Authorization": f"Bearer {token}"}
    bad = httpx2.post(door.url + "/v1/chat/completions", content=b"[1, 2", headers=auth, timeout=10)
    assert bad.status_code == 400 and "JSON" in bad.json()["error"]["message"]
    big = httpx2.post(door.url + "/v1/chat/completions", headers=auth, timeout=10,
                     content=b'{"x": "' + b"a" * class_door.MAX_MODEL_BODY + b'"}')
    assert big.status_code == 413 and big.json()["error"]["message"]
    assert door.share.in_flight() == 0


def test_an_unreachable_model_server_is_said_in_chinese_and_frees_the_turn(tmp_path):
    running = Door(tmp_path, f"http://127.0.0.1:{free_port()}")
    try:
        token = running.join("甲")
        reply = httpx2.post(running.url + "/v1/chat/completions", headers={"Authorization": f"Bearer {token}"},
                           json={"model": "m", "messages": [{"role": "user", "content": "甲-问"}]}, timeout=20)
        assert reply.status_code == 502 and "模型服务器" in reply.json()["error"]["message"]
        assert running.share.in_flight() == 0
    finally:
        running.stop()


def test_the_teacher_sees_the_use_and_changes_the_budget(door):
    token = door.join("甲")
    chat(door.client(token), "甲")
    teacher = {"Authorization": f"Bearer {TEACHER_KEY}"}
    view = httpx2.get(door.url + "/api/class", headers=teacher, timeout=10).json()
    assert view["model_use"]["budget"] == 0 and view["model_use"]["slots"] == 2
    assert view["model_use"]["students"][0]["name"] == "甲" and view["model_use"]["students"][0]["requests"] == 1
    page = httpx2.get(door.url + "/teacher", headers=teacher, timeout=10).text
    assert 'id="use"' in page and "甲" in page and 'name="budget"' in page
    changed = httpx2.post(door.url + "/teacher/budget", json={"budget": 6000}, headers=teacher, timeout=10)
    assert changed.status_code == 200 and door.share.budget == 6000
    form = httpx2.post(door.url + "/teacher/budget", data={"budget": "0"}, headers=teacher, timeout=10)
    assert form.status_code == 303 and door.share.budget == 0
    for bad in ("-1", "lots", "1e9"):
        refused = httpx2.post(door.url + "/teacher/budget", data={"budget": bad}, headers=teacher, timeout=10)
        assert refused.status_code == 400 and "预算" in refused.json()["error"]
    student = httpx2.post(door.url + "/teacher/budget", json={"budget": 1}, timeout=10,
                         headers={"Authorization": f"Bearer {token}"})
    assert student.status_code == 401 and door.share.budget == 0


def test_no_model_no_door(tmp_path):
    store = ProgressStore(tmp_path / "p.sqlite3")
    app = progress_service.make_app(store, CLASS_KEY, TEACHER_KEY)
    assert app.state.share is None
    assert not any(getattr(r, "path", "") == "/v1/chat/completions" for r in app.routes)
    store.close()


# --------------------------------------------------------------------------- 2b. the door's memory (ReplyCache)

BODY = {"model": "m", "temperature": 0, "messages": [{"role": "user", "content": "甲-问"}]}


def post(door, token: str, body, timeout: float = 20) -> httpx2.Response:
    """One chat request, ``body`` as JSON (a dict) or as the very bytes given."""
    raw = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
    return httpx2.post(door.url + "/v1/chat/completions", content=raw, timeout=timeout,
                      headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})


def chats_sent(fake) -> int:
    return sum(1 for _, body in fake.seen if b'"messages"' in body)


def settled(door) -> None:
    """Wait until the door has ended every turn (a stream is counted once it ended on the door's side)."""
    deadline = time.monotonic() + 5
    while door.share.in_flight() and time.monotonic() < deadline:
        time.sleep(0.02)


def test_memory_a_classmates_identical_temperature_0_request_is_answered_from_memory(door, fake):
    first, second = post(door, door.join("甲"), BODY), post(door, door.join("乙"), BODY)
    assert first.status_code == second.status_code == 200
    assert chats_sent(fake) == 1 and second.content == first.content  # byte for byte
    assert first.headers["x-course-reply"] == "model" and second.headers["x-course-reply"] == "memory"
    assert second.headers["content-type"] == first.headers["content-type"]


def test_memory_whitespace_does_not_matter_key_order_does(door, fake):
    """Spaces are not the request; the order of keys is: llama-server keeps it (a schema's properties are the
    order of the fields it makes the model write, a tool's the order it is shown in), so a body whose keys
    come in another order is another request (found by a review of issue 55's door)."""
    post(door, door.join("甲"), BODY)
    raw = ('{ "model" : "m",\n  "temperature": 0,  "messages": [ {"role": "user", "content": "甲-问"} ] }').encode()
    assert list(json.loads(raw)) == list(BODY)
    again = post(door, door.join("乙"), raw)
    assert again.headers["x-course-reply"] == "memory" and chats_sent(fake) == 1
    reordered = ('{"messages": [{"content": "甲-问", "role": "user"}], "temperature": 0, "model": "m"}').encode()
    other = post(door, door.join("丙"), reordered)
    assert other.headers["x-course-reply"] == "model" and chats_sent(fake) == 2


def test_memory_sampling_and_several_choices_are_never_remembered(door, fake):
    token = door.join("甲")
    missing = {k: v for k, v in BODY.items() if k != "temperature"}
    for body in ({**BODY, "temperature": 0.7}, missing):
        before = chats_sent(fake)
        replies = [post(door, token, body), post(door, token, body)]
        assert [r.headers["x-course-reply"] for r in replies] == ["model", "model"], body
        assert chats_sent(fake) == before + 2, body
    for body in ({**BODY, "n": 2}, {**BODY, "temperature": False}):  # refused at the door (door_rules): never sent
        before = chats_sent(fake)
        assert post(door, token, body).status_code == 400 and chats_sent(fake) == before, body
    assert post(door, token, {**BODY, "n": 1}).status_code == 200  # n = 1 is one choice: remembered
    assert post(door, token, {**BODY, "n": 1}).headers["x-course-reply"] == "memory"


def test_memory_a_stream_is_remembered_and_replayed_byte_for_byte(door, fake):
    body = {**BODY, "stream": True}
    first = post(door, door.join("甲"), body)
    settled(door)
    second = post(door, door.join("乙"), body)
    assert first.content.endswith(b"data: [DONE]\n\n") and second.content == first.content
    assert second.headers["x-course-reply"] == "memory" and chats_sent(fake) == 1
    assert second.headers["content-type"].startswith("text/event-stream")
    def through_sdk(name: str) -> str:  # the SDK writes the body's keys in its own order: another key than BODY's
        stream = chat(door.client(door.join(name)), "甲", stream=True, temperature=0)
        return "".join(c.choices[0].delta.content or "" for c in stream if c.choices)

    assert through_sdk("丙") == "字0字1字2" and chats_sent(fake) == 2
    settled(door)
    assert through_sdk("甲") == "字0字1字2" and chats_sent(fake) == 2  # the SDK reads a remembered stream as a stream


def test_memory_an_error_reply_is_not_remembered(door, fake):
    fake.fail_next = 1
    token = door.join("甲")
    assert post(door, token, BODY).status_code == 500
    again = post(door, token, BODY)
    assert again.status_code == 200 and again.headers["x-course-reply"] == "model" and chats_sent(fake) == 2


def at_once(door, fake, bodies_tokens, gap: float = 0.15) -> list:
    """Send each ``(token, body)`` in its own thread, ``gap`` s apart; their replies (or exceptions), in order."""
    out: list = [None] * len(bodies_tokens)

    def send(i, token, body):
        try:
            out[i] = post(door, token, body)
        except Exception as exc:  # noqa: BLE001 - reported to the test
            out[i] = exc

    threads = [threading.Thread(target=send, args=(i, tok, body)) for i, (tok, body) in enumerate(bodies_tokens)]
    for thread in threads:
        thread.start()
        time.sleep(gap)
    for thread in threads:
        thread.join(30)
    return out


def test_memory_two_identical_requests_at_once_go_to_the_model_once(door, fake):
    fake.delay = 1.0
    first, second = at_once(door, fake, [(door.join("甲"), BODY), (door.join("乙"), BODY)])
    assert first.status_code == second.status_code == 200 and second.content == first.content
    assert chats_sent(fake) == 1 and second.headers["x-course-reply"] == "memory"
    assert door.share.use("乙").requests == 0 and door.share.use("乙").cached == 1


def test_memory_when_the_first_fails_the_waiter_asks_the_model_itself(door, fake):
    fake.delay, fake.fail_next = 1.0, 1
    first, second = at_once(door, fake, [(door.join("甲"), BODY), (door.join("乙"), BODY)])
    assert first.status_code == 500 and second.status_code == 200 and second.headers["x-course-reply"] == "model"
    assert chats_sent(fake) == 2
    third = post(door, door.join("丙"), BODY)  # the error was not remembered; the good reply was
    assert third.headers["x-course-reply"] == "memory" and third.content == second.content and chats_sent(fake) == 2


def test_memory_when_the_first_student_leaves_mid_answer_the_waiter_asks_the_model(door, fake):
    fake.delay, fake.pieces = 2.0, 10
    body = {**BODY, "stream": True}
    leaver, waiter = door.join("甲"), door.join("乙")
    out: list = []
    with httpx2.Client(timeout=10, trust_env=False) as http:
        with http.stream("POST", door.url + "/v1/chat/completions", json=body,
                         headers={"Authorization": f"Bearer {leaver}"}) as s:
            thread = threading.Thread(target=lambda: out.append(post(door, waiter, body)))
            thread.start()
            time.sleep(0.1)
            next(s.iter_raw())  # the first piece, then the stop button
    thread.join(30)
    assert out and out[0].status_code == 200 and out[0].headers["x-course-reply"] == "model"
    assert out[0].content.endswith(b"data: [DONE]\n\n") and chats_sent(fake) == 2
    settled(door)
    again = post(door, door.join("丙"), body)  # what was remembered is the waiter's whole reply, not the cut one
    assert again.headers["x-course-reply"] == "memory" and again.content == out[0].content


def test_memory_a_waiter_who_leaves_does_not_disturb_the_others(door, fake):
    fake.delay = 1.5
    tokens = [door.join(n) for n in ("甲", "乙", "丙")]
    left: list = []

    def leave():
        with pytest.raises(httpx2.ReadTimeout):
            post(door, tokens[1], BODY, timeout=0.5)  # 乙 waits for 甲's identical request, then stops the cell
        left.append(True)

    first = threading.Thread(target=lambda: left.append(post(door, tokens[0], BODY)))
    first.start()
    time.sleep(0.2)
    leaver = threading.Thread(target=leave)
    leaver.start()
    time.sleep(0.1)
    third = post(door, tokens[2], BODY)  # 丙 waits too, longer
    first.join(10)
    leaver.join(10)
    assert third.status_code == 200 and third.headers["x-course-reply"] == "memory" and chats_sent(fake) == 1
    assert True in left and any(isinstance(x, httpx2.Response) and x.status_code == 200 for x in left)


def test_memory_a_hit_costs_the_student_no_tokens_and_no_busy_time(door, fake):
    post(door, door.join("甲"), BODY)
    post(door, door.join("乙"), BODY)
    rows = {r["name"]: r for r in door.share.snapshot()}
    assert rows["乙"]["cached"] == 1 and rows["乙"]["requests"] == 0
    assert rows["乙"]["prompt_tokens"] == rows["乙"]["completion_tokens"] == rows["乙"]["last_minute"] == 0
    assert rows["乙"]["busy_percent"] == 0 and door.share.use("乙").busy_since is None
    assert not door.share.use("乙").busy
    assert rows["甲"]["cached"] == 0 and rows["甲"]["requests"] == 1 and rows["甲"]["completion_tokens"] == 3


def test_memory_switched_off_every_request_reaches_the_model(tmp_path, fake):
    running = Door(tmp_path, fake.root, reply_memory=False)
    try:
        replies = [post(running, running.join(n), BODY) for n in ("甲", "乙", "甲")]
        assert [r.headers["x-course-reply"] for r in replies] == ["model"] * 3 and chats_sent(fake) == 3
        assert running.app.state.memory is None
    finally:
        running.stop()


def test_memory_the_teacher_sees_the_replies_answered_from_memory(door, fake):
    from course_lib.texts import t

    post(door, door.join("甲"), BODY)
    post(door, door.join("乙"), BODY)
    teacher = {"Authorization": f"Bearer {TEACHER_KEY}"}
    use = httpx2.get(door.url + "/api/class", headers=teacher, timeout=10).json()["model_use"]
    assert use["reply_memory"] is True and {r["name"]: r["cached"] for r in use["students"]} == {"甲": 0, "乙": 1}
    page = httpx2.get(door.url + "/teacher", headers=teacher, timeout=10).text
    assert t("progress_service.use_cached") in page and t("progress_service.use_memory_on") in page
    row = page.split('id="use"', 1)[1].split('<th class="name">乙</th>', 1)[1].split("</tr>", 1)[0]
    assert row.startswith("<td>0</td><td>0</td><td>0</td><td>0</td><td>0%</td><td>0</td><td>1</td>"), row


def test_memory_is_bounded_the_least_recently_used_goes_first():
    memory = reply_memory.ReplyCache(max_bytes=250, max_entries=10)
    keys = [memory.key_of("/v1/chat/completions", {**BODY, "seed": i}) for i in range(4)]
    reply = reply_memory.Remembered(b"x" * 100, {"content-type": "application/json"})
    memory.put(keys[0], reply)
    memory.put(keys[1], reply)
    assert memory.get(keys[0]) is reply  # 0 is now the more recently used
    memory.put(keys[2], reply)  # 300 bytes > 250: the least recently used (1) goes
    assert memory.get(keys[1]) is None and memory.get(keys[0]) is reply and memory.get(keys[2]) is reply
    assert memory.bytes <= 250 and len(memory) == 2
    assert not memory.put(keys[3], reply_memory.Remembered(b"y" * 300, {}))  # bigger than all of it: not kept
    few = reply_memory.ReplyCache(max_bytes=10_000, max_entries=2)
    for key in keys[:3]:
        few.put(key, reply)
    assert len(few) == 2 and few.get(keys[0]) is None


def test_memory_keys_only_requests_that_mean_the_same():
    key = reply_memory.ReplyCache.key_of
    assert key("/v1/chat/completions", BODY) == key("/v1/chat/completions", json.loads(json.dumps(BODY, indent=2)))
    # keys in another order are another request: llama-server keeps the order (a schema's fields, the tools')
    assert key("/v1/chat/completions", BODY) != key("/v1/chat/completions", dict(reversed(list(BODY.items()))))
    assert key("/v1/chat/completions", BODY) != key("/v1/chat/completions", {**BODY, "seed": 1})
    assert key("/v1/chat/completions", BODY) != key("/other", BODY)
    assert key("/v1/chat/completions", {**BODY, "temperature": 0.0}) is not None
    for body in ({**BODY, "temperature": 1}, {**BODY, "temperature": "0"}, {**BODY, "temperature": None},
                 {**BODY, "temperature": False}, {**BODY, "n": 3}, {**BODY, "n": True}, [BODY], "text"):
        assert key("/v1/chat/completions", body) is None, body
    lone = key("/v1/chat/completions", {**BODY, "messages": [{"role": "user", "content": "\ud800"}]})
    assert lone is not None and lone != key("/v1/chat/completions", BODY)  # JSON may hold it; no exception
    assert len(key("/v1/chat/completions", BODY)) == 64  # SHA-256, hex: no body kept in the key


def test_serve_no_reply_memory_reaches_the_door(monkeypatch):
    from course_runtime import classroom

    got = {}
    monkeypatch.setattr(classroom, "load_env", lambda: None)
    monkeypatch.setattr(classroom, "end_like_ctrl_c", lambda: None)
    monkeypatch.setattr(classroom, "serve", lambda *args, **kwargs: got.update(args=args, kwargs=kwargs) or 0)
    assert classroom.main(["--no-reply-memory"]) == 0 and got["kwargs"]["reply_memory"] is False
    assert classroom.main([]) == 0 and got["kwargs"]["reply_memory"] is True
    made = {}
    monkeypatch.setattr(classroom.progress_service, "make_app", lambda *a, **kw: made.update(kw) or object())
    monkeypatch.setattr(classroom, "ProgressStore", lambda path: None)
    monkeypatch.setattr(classroom, "ProgressService", lambda *a, **kw: type("S", (), {"start": lambda self: self})())
    monkeypatch.setattr(classroom.keys, "teacher_key", lambda *a, **kw: TEACHER_KEY)
    server = classroom.ClassModelServer("127.0.0.1", 1, slots=2)
    from pathlib import Path

    classroom.start_progress(server, "127.0.0.1", 2, CLASS_KEY, Path("x/.class-key"), reply_memory=False)
    assert made["reply_memory"] is False


# --------------------------------------------------------------------------- 3. the door, before the real llama-server


@pytest.fixture(scope="module")
def real_door(tmp_path_factory):
    from course_runtime import classroom

    if not model_server_available():
        skip_or_fail("no llama-server or model here (python course.py setup builds them)")
    folder = tmp_path_factory.mktemp("door")
    key_file = folder / ".class-key"
    key = classroom.class_key(key_file)
    server = classroom.ClassModelServer("127.0.0.1", free_port(), slots=2, key_file=key_file, log=folder / "server.log")
    with server:
        running = Door(folder, server.root, slots=2, class_key=key)
        running.direct = openai.OpenAI(base_url=server.root + "/v1", api_key=key, max_retries=0, timeout=120,
                                       http_client=httpx2.Client(trust_env=False, timeout=120))
        try:
            yield running
        finally:
            running.stop()


REAL_MESSAGES = [{"role": "system", "content": "你是体育用品店的助手。回答要短，只用中文。" * 8},
                 {"role": "user", "content": "篮球和足球，哪个更适合在室内玩？一句话。"}]


def test_through_the_door_the_replies_are_the_servers_own(real_door):
    """Streamed or not, through the door or straight to the server: the same reply (temperature 0, one seed).

    Each with the same prompt cache: a prompt read partly from the cache is computed in other batches, and
    llama.cpp's sums then differ in the last bits - enough to change a word - so the prompt is read once
    first, and every compared request finds it in the cache (the door refuses ``cache_prompt``)."""
    token = real_door.join("甲")
    through = real_door.client(token)
    kwargs = {"model": "m", "messages": REAL_MESSAGES, "temperature": 0, "seed": 42, "max_tokens": 24}
    real_door.direct.chat.completions.create(**{**kwargs, "max_tokens": 1})  # the prompt, into the cache
    straight = real_door.direct.chat.completions.create(**kwargs).choices[0].message.content
    door_reply = through.chat.completions.create(**kwargs)
    streamed = "".join(c.choices[0].delta.content or "" for c in through.chat.completions.create(stream=True, **kwargs)
                       if c.choices)
    assert straight and door_reply.choices[0].message.content == straight == streamed
    deadline = time.monotonic() + 5
    while real_door.share.in_flight() and time.monotonic() < deadline:
        time.sleep(0.02)
    row = real_door.share.snapshot()[0]
    assert row["requests"] == 2 and row["completion_tokens"] >= 2 * door_reply.usage.completion_tokens - 1
    assert row["prompt_tokens"] == 2 * door_reply.usage.prompt_tokens  # the stream counted from llama-server's timings


def prompt_tokens_read(door) -> float:
    """llama-server's own count of prompt tokens it computed (``/metrics``; tokens found in the cache are not)."""
    metrics = httpx2.get(door.direct.base_url.scheme + "://" + door.direct.base_url.netloc.decode() + "/metrics",
                        headers={"Authorization": f"Bearer {door.direct.api_key}"}, timeout=10, trust_env=False)
    return progress_page.parse_metrics(metrics.text)["llamacpp:prompt_tokens_total"]


def test_through_the_door_the_prompt_cache_still_works(real_door):
    token = real_door.join("乙")
    through = real_door.client(token)
    kwargs = {"model": "m", "messages": REAL_MESSAGES[:1] + [{"role": "user", "content": "推荐一个室内运动。"}],
              "temperature": 0, "seed": 42, "max_tokens": 8}
    through.chat.completions.create(**kwargs)
    before = prompt_tokens_read(real_door)
    again = through.chat.completions.create(**{**kwargs, "max_tokens": 9})  # the same prompt, not the same request:
    read = prompt_tokens_read(real_door) - before  # the model answers it (the door's memory would not)
    assert read < again.usage.prompt_tokens // 2, (read, again.usage)  # the long system prompt was not read again
    assert again.usage.prompt_tokens_details is None  # and the reply does not say how much was cached


def test_a_student_who_stops_the_cell_while_waiting_loses_their_place_not_their_next_turn(tmp_path):
    """Starlette does not cancel a handler whose client left: the door looks, and takes the request out."""
    model = FakeModel(delay=3.0)
    running = Door(tmp_path, model.root, slots=1)
    try:
        busy, waiting = running.join("甲"), running.join("乙")
        holder = threading.Thread(target=chat, args=(running.client(busy), "甲"))
        holder.start()
        time.sleep(0.3)
        with pytest.raises(openai.APITimeoutError):  # 乙 waits behind 甲, then stops the cell
            chat(running.client(waiting).with_options(timeout=0.8), "乙")
        deadline = time.monotonic() + 3
        while running.share.use("乙").waiting and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running.share.use("乙").waiting == 0 and running.share.use("乙").requests == 0
        holder.join(10)
        assert not any(b"\\u4e59" in body or "乙".encode() in body for _, body in model.seen)  # never sent
    finally:
        running.stop()
        model.stop()


def test_a_student_who_stops_the_cell_mid_answer_frees_the_turn_at_once(tmp_path):
    model = FakeModel(delay=4.0)
    running = Door(tmp_path, model.root, slots=1)
    try:
        token = running.join("甲")
        started = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            chat(running.client(token).with_options(timeout=0.8), "甲")
        deadline = time.monotonic() + 3
        while running.share.in_flight() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running.share.in_flight() == 0 and time.monotonic() - started < 3  # not after the 4 s answer
    finally:
        running.stop()
        model.stop()
