"""Issue 55 part 8: a class of two model servers behind one door, with two real llama-server processes.

The door sends each request to the least busy healthy server; when one is stopped mid-lesson, a request
that had not started there goes to the other one (the student sees nothing), the teacher's page shows
which one is down, and the turns shrink to the slots still there.
"""

from __future__ import annotations

import threading

import httpx2
import openai
import pytest

from machine_support import free_port, wait_until
from test_upstreams import small_servers

from course_runtime import progress_service, upstreams
from course_runtime.progress_store import ProgressStore
from course_runtime.web_server import ProgressService

TEACHER_KEY = "course-teacher-" + "9" * 32
SECRET = "0123456789"
NAMES = {"甲": "a" * 32, "乙": "b" * 32, "丙": "c" * 32}  # one address: at most three names (identities)


two_servers = small_servers  # two real llama-servers, a small context each (tests/test_upstreams.py)


@pytest.fixture
def door(tmp_path, two_servers):
    servers, key = two_servers
    pool = upstreams.UpstreamPool([upstreams.Upstream(label=f"{n}号机", root=s.root, key=key, slots=1,
                                                      kind=upstreams.LLAMA_SERVER) for n, s in zip("一二", servers)])
    store = ProgressStore(tmp_path / "class-progress.sqlite3")
    app = progress_service.make_app(store, key, TEACHER_KEY, join_secret=SECRET, upstreams=pool)
    port = free_port()
    service = ProgressService(app, "127.0.0.1", port).start()
    url = f"http://127.0.0.1:{port}"
    for name, token in NAMES.items():
        assert httpx2.post(url + "/api/join", json={"secret": SECRET, "name": name, "token": token},
                          timeout=10).status_code == 200
    try:
        yield url, app, pool, servers
    finally:
        service.stop()
        store.close()


def ask(url: str, name: str, question: str) -> str:
    client = openai.OpenAI(base_url=url + "/v1", api_key=NAMES[name], max_retries=0, timeout=120,
                           http_client=httpx2.Client(trust_env=False, timeout=120))
    reply = client.chat.completions.create(model="m", max_tokens=8, temperature=0, seed=1,
                                           messages=[{"role": "user", "content": question}])
    return reply.choices[0].message.content or ""


def test_both_servers_answer_and_the_page_shows_both(door):
    url, app, pool, servers = door
    answers: dict[str, str] = {}
    threads = [threading.Thread(target=lambda n=n: answers.__setitem__(n, ask(url, n, f"{n}：说一个数字。")))
               for n in NAMES]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(answers) == 3 and all(answers.values())
    served = {row["label"]: row["served"] for row in pool.snapshot()}
    assert served["一号机"] >= 1 and served["二号机"] >= 1, served  # three students at once: both were used
    teacher = {"Authorization": f"Bearer {TEACHER_KEY}"}
    view = httpx2.get(url + "/api/class", headers=teacher, timeout=10).json()
    assert [u["label"] for u in view["model_use"]["upstreams"]] == ["一号机", "二号机"]
    assert view["model_use"]["slots"] == 2
    page = httpx2.get(url + "/teacher", headers=teacher, timeout=10).text
    assert "一号机" in page and "二号机" in page and servers[1].root.split("//")[1] in page


def test_a_server_stopped_mid_lesson_loses_no_request_that_had_not_started(door):
    url, app, pool, servers = door
    assert ask(url, "甲", "你好") and ask(url, "乙", "你好")
    servers[0].stop()  # the teacher's first machine goes away between two requests; the door has not looked yet
    assert pool.healthy(pool.upstreams[0])
    answers, errors = [], []

    def student(name: str) -> None:
        for n in range(3):
            try:
                answers.append(ask(url, name, f"第{n}个问题：一加一等于几？"))
            except openai.APIError as exc:  # pragma: no cover - what the test is about
                errors.append(exc)

    threads = [threading.Thread(target=student, args=(name,)) for name in NAMES]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert errors == [] and len(answers) == 9 and all(answers)
    first = pool.snapshot()[0]
    assert first["healthy"] is False and first["failures"] >= 1
    assert wait_until(lambda: app.state.share.capacity == 1, 5) or pool.capacity() == 1
    teacher = {"Authorization": f"Bearer {TEACHER_KEY}"}
    rows = httpx2.get(url + "/api/class", headers=teacher, timeout=10).json()["model_use"]["upstreams"]
    assert rows[0]["healthy"] is False and rows[1]["healthy"] is True
