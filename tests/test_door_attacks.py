"""Issue 55: what one mischievous or careless student could do through the class door, each tried for real.

Each test sends what a student could send (a field only llama-server knows, a stream left unread, a
stream cut short, a flood of /tokenize, a page on another port) through a real progress service on
loopback, in front of a llama-server stand-in that replies the way llama-server does (``timings``,
``prompt_tokens_details.cached_tokens``).  Each was run against the door before its fix and failed there
(issue 55's note says which, and how).
"""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx2
import pytest

from fake_model_server import FakeServer, ModelHandler
from machine_support import free_port, wait_until
from test_class_door import SECRET, TEACHER_KEY, TOKENS, Door as ClassDoorUnderTest

from course_runtime import progress_service, progress_store, web_server

CLASS_KEY = "course-class-" + "7" * 32


class LlamaLike:
    """A llama-server stand-in.  A chat request's ``max_tokens`` says how long it takes (``max_tokens / 100``
    s) and a stream's length (``max_tokens`` chunks of ``piece`` bytes); every reply carries what
    llama-server puts in (``timings``, cached tokens).  ``seen`` keeps each body as it arrived."""

    def __init__(self, piece: int = 8):
        self.seen: list[dict] = []
        self.piece = piece
        self.streams_done = 0
        fake = self

        class Handler(ModelHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                fake.seen.append(body)
                if self.path != "/v1/chat/completions":
                    return self.send_json(200, {"tokens": [1, 2, 3]})
                steps = int(body.get("max_tokens") or 10)
                timings = {"cache_n": 56, "prompt_n": 1, "predicted_n": steps, "prompt_ms": 3.0}
                try:
                    if body.get("stream"):
                        self.start_stream()
                        for i in range(steps):
                            time.sleep(0.01 if steps < 1000 else 0)
                            chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                                     "choices": [{"index": 0, "delta": {"content": "字" * fake.piece},
                                                  "finish_reason": None}]}
                            self.write_chunk(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                        end = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                               "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": 57, "completion_tokens": steps, "total_tokens": 57 + steps,
                                         "prompt_tokens_details": {"cached_tokens": 56}},
                               "timings": timings}
                        self.write_chunk(b"data: " + json.dumps(end).encode() + b"\n\ndata: [DONE]\n\n")
                        self.write_chunk(b"")
                        fake.streams_done += 1
                    else:
                        time.sleep(steps / 100 if steps <= 1000 else 0.05)
                        self.send_json(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                                             "choices": [{"index": 0, "finish_reason": "stop",
                                                          "message": {"role": "assistant", "content": "好的"}}],
                                             "usage": {"prompt_tokens": 57, "completion_tokens": 3,
                                                       "total_tokens": 60,
                                                       "prompt_tokens_details": {"cached_tokens": 56}},
                                             "timings": timings})
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.served = FakeServer(Handler)
        self.root = self.served.root

    def stop(self) -> None:
        self.served.stop()


class Door(ClassDoorUnderTest):
    """The door of tests/test_class_door.py with four slots; ``join`` gives the student's Authorization header."""

    def __init__(self, folder, root: str, slots: int = 4):
        super().__init__(folder, root, slots=slots, class_key=CLASS_KEY)

    def join(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {super().join(name)}"}

    def chat(self, auth: dict, body: dict, timeout: float = 30) -> httpx2.Response:
        return httpx2.post(self.url + "/v1/chat/completions", json=body, headers=auth, timeout=timeout)


@pytest.fixture
def fake():
    model = LlamaLike()
    yield model
    model.stop()


@pytest.fixture
def door(tmp_path, fake):
    running = Door(tmp_path, fake.root)
    yield running
    running.stop()


def ask(text: str = "甲-问", **fields) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": text}], **fields}


def long_stream(door: Door, auth: dict) -> socket.socket:
    """A raw connection that has asked for a stream of 3,500 chunks and has read nothing yet (a student's cell)."""
    sock = socket.create_connection(("127.0.0.1", door.port))
    body = json.dumps(ask(max_tokens=3500, stream=True)).encode()
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 + f"Authorization: {auth['Authorization']}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    return sock


# --------------------------------------------------------------------------- 1. only what the lessons send


@pytest.mark.parametrize("field, value", [
    ("grammar", "root ::= " + "(" * 2000 + "\"a\"" + ")" * 2000),  # killed llama-server (and serve) before
    ("n_probs", 50),  # 8 tokens became 110 MiB
    ("n", 4),  # four generations in one turn
    ("id_slot", 0),  # a classmate's slot
    ("cache_prompt", False),
    ("samplers", ["dry"]),
    ("logit_bias", {"15": 100}),
    ("max_tokens", 10 ** 6),
    ("top_logprobs", 100),
])
def test_a_field_the_lessons_do_not_send_is_refused_by_name_and_never_reaches_the_server(door, fake, field, value):
    auth = door.join("甲")
    reply = door.chat(auth, ask(**{field: value}))
    assert reply.status_code == 400, reply.text
    assert field in reply.json()["error"]["message"]
    assert fake.seen == []


def test_what_the_lessons_send_still_passes_byte_for_byte(door, fake):
    auth = door.join("甲")
    body = ask(temperature=0, seed=42, max_tokens=20, tools=[{"type": "function", "function": {
        "name": "get_weather", "description": "天气", "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}}, "required": ["city"]}}}], tool_choice="auto")
    reply = door.chat(auth, body)
    assert reply.status_code == 200 and fake.seen == [body]


def test_replies_carry_nothing_that_measures_a_classmates_prompt(door):
    auth = door.join("甲")
    plain = door.chat(auth, ask(max_tokens=5)).json()
    assert "timings" not in plain and "prompt_tokens_details" not in plain["usage"]
    assert plain["usage"]["prompt_tokens"] == 57 and plain["choices"][0]["message"]["content"] == "好的"
    with httpx2.stream("POST", door.url + "/v1/chat/completions", json=ask(max_tokens=5, stream=True), headers=auth,
                      timeout=30) as s:
        text = b"".join(s.iter_raw()).decode()
    assert "timings" not in text and "cached_tokens" not in text and "cache_n" not in text
    content = "".join(json.loads(line[5:])["choices"][0]["delta"].get("content") or ""
                      for line in text.splitlines() if line.startswith("data: {"))
    assert content == "字" * 5 * 8 and text.rstrip().endswith("data: [DONE]")


# --------------------------------------------------------------------------- 3. every wait has a deadline


def test_a_student_without_a_turn_does_not_make_the_classmates_wait_for_an_identical_request(door):
    """The reply memory's single flight: 甲 sends R while their own slow request holds their turn; 乙 and 丙
    send the same R.  Before, they waited behind 甲's turn (nothing in 25 s with slots free)."""
    auth = {name: door.join(name) for name in TOKENS}
    slow = threading.Thread(target=door.chat, args=(auth["甲"], ask("慢-问", max_tokens=600)))
    slow.start()
    assert wait_until(lambda: door.share.use("甲").in_flight == 1, 5)
    same = ask("同-问", temperature=0, max_tokens=20)
    lead = threading.Thread(target=door.chat, args=(auth["甲"], same))
    lead.start()  # waits for 甲's own turn
    assert wait_until(lambda: door.share.use("甲").waiting == 1, 5)
    started = time.monotonic()
    answers = []
    followers = [threading.Thread(target=lambda n=n: answers.append(door.chat(auth[n], same))) for n in ("乙", "丙")]
    for thread in followers:
        thread.start()
    for thread in followers:
        thread.join(20)
    assert len(answers) == 2 and all(a.status_code == 200 for a in answers)
    assert time.monotonic() - started < 4.0  # not behind 甲's 6 s request
    slow.join(20)
    lead.join(20)


def test_a_stream_the_student_stops_reading_frees_the_turn_when_the_model_has_finished(door, fake, monkeypatch):
    """A reply of about 20 MB read by nobody: before, the turn was kept as long as the socket stayed open."""
    from course_runtime import class_door

    monkeypatch.setattr(class_door, "SLOW_READER_S", 2.0)
    fake.piece = 2000
    auth = door.join("甲")
    sock = long_stream(door, auth)
    try:
        sock.recv(100)  # the headers came: the student's cell is "running", and reads nothing more
        assert wait_until(lambda: door.share.use("甲").in_flight == 0, 20), "the turn is still held"
        assert door.share.use("甲").completion_tokens > 0  # what passed is billed
    finally:
        sock.close()


# --------------------------------------------------------------------------- 4. usage counted as it passes


def test_a_stream_closed_before_its_last_chunk_is_still_billed(door, fake):
    auth = door.join("甲")
    with httpx2.Client(timeout=30, trust_env=False) as http:
        with http.stream("POST", door.url + "/v1/chat/completions", json=ask(max_tokens=300, stream=True),
                         headers=auth) as s:
            pieces = s.iter_raw()
            for _ in range(3):
                next(pieces)
    assert wait_until(lambda: door.share.use("甲").in_flight == 0, 10)
    use = door.share.use("甲")
    assert use.prompt_tokens > 0 and use.completion_tokens > 0, (use.prompt_tokens, use.completion_tokens)


# --------------------------------------------------------------------------- 5. everything through the turns, within sizes


def test_tokenize_and_apply_template_take_turns_and_are_counted(door, fake):
    auth = door.join("甲")
    for path, body in (("/tokenize", {"content": "你好"}), ("/apply-template", {"messages": [{"role": "user",
                                                                                              "content": "你好"}]})):
        assert httpx2.post(door.url + path, json=body, headers=auth, timeout=10).status_code == 200
    assert door.share.use("甲").requests == 2
    refused = httpx2.post(door.url + "/tokenize", json={"content": "x", "n_probs": 5}, headers=auth, timeout=10)
    assert refused.status_code == 400 and "n_probs" in refused.json()["error"]["message"]


def test_a_body_far_bigger_than_a_full_context_is_refused_before_it_is_parsed(door, fake):
    auth = door.join("甲")
    big = door.chat(auth, ask("甲-" + "字" * 700_000))  # about 2 MB: a context of 8,192 tokens is about 40 KB
    assert big.status_code == 413 and fake.seen == []


def test_made_up_exercise_ids_do_not_become_thousands_of_columns(door):
    """10,000 made-up exercise ids became 10,000 columns (an 8 MiB page); a student's unknown ids are bounded."""
    import secrets

    auth = door.join("甲")
    results = [{"id": secrets.token_hex(16), "exercise": f"{90 + n // 9:02d}-{1 + n % 9}", "passed": True, "hint": "",
                "attempt": 1, "time": "2026-12-06T08:00:00Z"} for n in range(60)]
    reply = httpx2.post(door.url + "/api/results", json={"name": "甲", "token": TOKENS["甲"], "results": results},
                       headers=auth, timeout=10).json()
    assert reply["stored"] == 20 and len(reply["refused"]) == 40, reply
    assert {r["index"] for r in reply["refused"]} == set(range(20, 60))
    view = httpx2.get(door.url + "/api/class", headers={"Authorization": f"Bearer {TEACHER_KEY}"}, timeout=10).json()
    assert len(view["unknown"]) == 20


# --------------------------------------------------------------------------- found by a review of the new door


def test_a_body_nobody_may_send_is_not_read_and_strings_never_closed_are_counted_in_linear_time(door):
    from course_runtime.web_requests import json_depth

    junk = b"\x00" * 60_000  # not even JSON: a stranger without a token is answered before it is read
    assert httpx2.post(door.url + "/api/results", content=junk, timeout=10).status_code == 401
    started = time.monotonic()
    assert json_depth('"' + '\\"' * 64_000) == 0  # a string never closed: a regular expression took seconds
    assert time.monotonic() - started < 5.0
    assert json_depth('[1,{"a":"]]}[\\"[["},[[2]]]') == 3


def test_a_student_who_reads_a_little_at_a_time_does_not_keep_the_turn(door, fake, monkeypatch):
    from course_runtime import class_door

    monkeypatch.setattr(class_door, "SLOW_READER_S", 2.0)
    monkeypatch.setattr(class_door, "STREAM_BUFFER_BYTES", 64 * 1024)
    fake.piece = 20_000  # 120 KB a chunk, 420 MB in all: far more than the reader below reads in 30 s
    auth = door.join("甲")
    sock = long_stream(door, auth)
    try:
        deadline = time.monotonic() + 30
        freed = False
        while time.monotonic() < deadline:  # a steady trickle of about 5 MB/s, never a pause as long as the
            sock.recv(262144)              # limit: before, each piece taken reset the clock, and the turn was
            time.sleep(0.05)               # held until the whole reply had been read
            if door.share.use("甲").in_flight == 0:
                freed = True
                break
        assert freed, "the turn is still held by a reader who takes a little now and then"
    finally:
        sock.close()


def test_an_identical_request_that_waited_for_a_turn_is_answered_from_memory(tmp_path, fake):
    """Both asked while the only turn was taken: one leads once it has a turn, the other then finds the reply."""
    running = Door(tmp_path, fake.root, slots=1)
    try:
        auth = {name: running.join(name) for name in TOKENS}
        busy = threading.Thread(target=running.chat, args=(auth["丙"], ask("慢-问", max_tokens=150)))
        busy.start()
        assert wait_until(lambda: running.share.in_flight() == 1, 5)
        same = ask("同-问", temperature=0, max_tokens=5)
        replies = []
        both = [threading.Thread(target=lambda n=n: replies.append(running.chat(auth[n], same))) for n in ("甲", "乙")]
        for thread in both:
            thread.start()
        for thread in both + [busy]:
            thread.join(30)
        assert sorted(r.headers["x-course-reply"] for r in replies) == ["memory", "model"]
        assert sum(1 for body in fake.seen if body["messages"][0]["content"] == "同-问") == 1
        assert running.share.use("甲").requests + running.share.use("乙").requests == 1  # one billed, not two
    finally:
        running.stop()


def test_a_student_refused_again_and_again_is_answered_before_the_body_is_read(door, fake):
    from course_runtime import class_door

    auth = door.join("甲")
    codes = [door.chat(auth, ask(n_probs=1)).status_code for _ in range(class_door.REFUSALS_PER_MINUTE + 2)]
    assert codes[:class_door.REFUSALS_PER_MINUTE] == [400] * class_door.REFUSALS_PER_MINUTE
    assert codes[-2:] == [429, 429] and fake.seen == []


def test_an_upstream_that_is_not_llama_server_gets_a_max_tokens(tmp_path, fake):
    from course_runtime import upstreams

    pool = upstreams.UpstreamPool([upstreams.Upstream(label="vllm", root=fake.root, slots=2)])  # openai-compatible
    store = progress_store.ProgressStore(tmp_path / "p.sqlite3")
    app = progress_service.make_app(store, CLASS_KEY, TEACHER_KEY, join_secret=SECRET, upstreams=pool)
    service = web_server.ProgressService(app, "127.0.0.1", port := free_port()).start()
    try:
        httpx2.post(f"http://127.0.0.1:{port}/api/join", json={"secret": SECRET, "name": "甲", "token": TOKENS["甲"]},
                   timeout=10).raise_for_status()
        reply = httpx2.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=ask(), timeout=30,
                           headers={"Authorization": f"Bearer {TOKENS['甲']}"})
        assert reply.status_code == 200 and fake.seen[-1]["max_tokens"] == 8192
    finally:
        service.stop()
        store.close()


# --------------------------------------------------------------------------- 7. the teacher's routes


def test_a_page_on_another_port_cannot_change_the_budget_with_the_teachers_cookie(door):
    with httpx2.Client(base_url=door.url, trust_env=False, timeout=10) as browser:
        assert browser.post("/login", data={"key": TEACHER_KEY}).status_code == 303
        forged = browser.post("/teacher/budget", data={"budget": "1"}, headers={"Origin": "http://127.0.0.1:9999"})
        assert forged.status_code == 403 and door.share.budget == 0
        own = browser.post("/teacher/budget", data={"budget": "7"}, headers={"Origin": door.url})
        assert own.status_code == 303 and door.share.budget == 7


def test_a_rebound_dns_name_is_not_the_teachers_page(door):
    reply = httpx2.get(door.url + "/api/class", headers={"Host": f"evil.example:{door.port}",
                                                        "Authorization": f"Bearer {TEACHER_KEY}"}, timeout=10)
    assert reply.status_code == 403
    assert httpx2.get(door.url + "/api/class", headers={"Authorization": f"Bearer {TEACHER_KEY}"},
                     timeout=10).status_code == 200


def test_wrong_keys_from_someone_else_never_lock_the_teacher_out(door):
    with httpx2.Client(base_url=door.url, trust_env=False, timeout=10) as page:
        for _ in range(8):
            page.post("/login", data={"key": "wrong"})
        assert page.post("/login", data={"key": "wrong"}).status_code == 429
        right = page.post("/login", data={"key": TEACHER_KEY})
        assert right.status_code == 303 and right.headers["location"] == "/teacher"
