"""The capstone's exam on the teacher's service over real HTTP (course_runtime/exam_desk.py, issue 58).

The service runs as ``python course.py serve`` runs it (``ProgressService`` in a thread, a fresh database),
with ``course_lib.capstone.score_answer`` as its scorer and an exam made by ``capstone.new_exam`` from a
copy of ``data/`` whose prices and brands appear nowhere else, so a key that leaked into anything a
student receives would be found by the sweep.
"""

from __future__ import annotations

import csv
import json
import shutil

import httpx2
import pytest

from machine_support import free_port

from course_lib import capstone, eval_set
from course_runtime import exam_desk, progress_service, progress_store, web_server
from course_runtime.door_witness import DoorWitness
from course_runtime.exam_store import ExamStore

CLASS_KEY = "course-class-" + "1" * 32
TEACHER_KEY = "course-teacher-" + "2" * 32
SECRET = "0123456789"
TOKENS = {"王小明": "a" * 32, "李雷": "b" * 32, "韩梅梅": "c" * 32}
BRAND = "秘密牌ZQX"


def odd_data(folder):
    """A copy of data/ whose every price ends in .37 and whose every brand is BRAND + a letter."""
    shutil.copytree(eval_set._data_dir(), folder)
    path = folder / "products.csv"
    with path.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    for n, row in enumerate(rows):
        row["price"] = f"{int(float(row['price'])) + 7000}.37"
        row["brand"] = BRAND + chr(ord("A") + n)  # no digit: a brand's digits would be numbers to check
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return folder


class Running:
    def __init__(self, folder, scorer=capstone.score_answer, per_kind=1, submissions=2):
        self.store = progress_store.ProgressStore(folder / "class-progress.sqlite3")
        self.questions = capstone.exam_questions(77, per_kind, data_dir=odd_data(folder / "data"))
        exams = ExamStore(self.store.path)
        exams.new_exam("e0e0e0e0", 77, self.questions, submissions)
        exams.close()
        self.port = free_port()
        self.app = progress_service.make_app(self.store, CLASS_KEY, TEACHER_KEY, join_secret=SECRET,
                                             exam_scorer=scorer)
        self.service = web_server.ProgressService(self.app, "127.0.0.1", self.port).start()
        self.url = f"http://127.0.0.1:{self.port}"
        self.received: list[str] = []  # every body a student got back

    def join(self, name):
        reply = httpx2.post(self.url + "/api/join", json={"secret": SECRET, "name": name, "token": TOKENS[name]},
                            timeout=10)
        assert reply.status_code == 200

    def student(self, name, method, path, headers=None, **kwargs):
        headers = {"Authorization": f"Bearer {TOKENS[name]}", **(headers or {})}
        reply = httpx2.request(method, self.url + path, headers=headers, timeout=10, **kwargs)
        self.received.append(reply.text)
        return reply

    def teacher(self, method, path, **kwargs):
        return httpx2.request(method, self.url + path, headers={"Authorization": f"Bearer {TEACHER_KEY}"},
                              timeout=10, **kwargs)

    def stop(self):
        self.service.stop()
        self.store.close()


@pytest.fixture
def desk(tmp_path):
    running = Running(tmp_path)
    for name in TOKENS:
        running.join(name)
    yield running
    running.stop()


def right(question):
    """A right answer and trajectory for one question, written from its key (the teacher's side knows it)."""
    key = question["key"]
    text = {"answer": "答案：" + "、".join(key["numbers"] + key["words"]), "no_answer": "抱歉，没有。",
            "refuse": "好的，按你的决定没有下单。"}[key["kind"]]
    return record(question["id"], text, key["tools"], ["place_order"] if key["kind"] == "refuse" else [])


def record(qid, text, path, rejected=(), requests=2):
    return {"id": qid, "answer": text, "trajectory": list(path), "rejected": list(rejected), "observations": [],
            "requests": requests, "prompt_tokens": 300, "completion_tokens": 20, "seconds": 3.5}


def test_a_student_fetches_only_questions_submits_and_sees_only_their_own_score(desk):
    assert desk.student("王小明", "GET", "/api/exam").status_code == 403  # closed
    assert desk.teacher("POST", "/teacher/exam", json={"action": "open"}).json()["state"] == "open"
    got = desk.student("王小明", "GET", "/api/exam").json()
    assert got["questions"] == [{"id": q["id"], "question": q["question"]} for q in desk.questions]
    assert got["mine"] == {"submissions": 0, "submissions_left": 2, "score": None, "total": 10, "per_kind": None}
    answers = [right(q) for q in desk.questions]
    mine = desk.student("王小明", "POST", "/api/exam/submit", json={"exam": got["exam"], "answers": answers}).json()
    assert mine["score"] == 10 and mine["total"] == 10 and mine["submissions_left"] == 1
    assert mine["per_kind"] == {q["kind"]: [1, 1] for q in desk.questions}
    wrong = [record(q["id"], "大概 100 元吧。", []) for q in desk.questions[:6]]  # guesses, no tools, 4 unanswered
    other = desk.student("李雷", "POST", "/api/exam/submit", json={"exam": got["exam"], "answers": wrong}).json()
    assert other["score"] == 0 and other["submissions_left"] == 1
    again = desk.student("王小明", "GET", "/api/exam").json()["mine"]
    assert again["score"] == 10 and again["submissions_left"] == 1

    board = desk.teacher("GET", "/api/exam/board").json()
    assert [r["name"] for r in board["rows"]] == ["王小明", "李雷", "韩梅梅"]
    assert board["rows"][0]["score"] == 10 and board["rows"][0]["requests"] == 20
    assert board["rows"][0]["tokens"] == 3200 and board["rows"][1]["score"] == 0 and board["rows"][2]["score"] is None
    assert not any(r["flag"] for r in board["rows"])  # no door here: nothing to compare with
    page = httpx2.get(desk.url + "/teacher", headers={"Authorization": f"Bearer {TEACHER_KEY}"}, timeout=10).text
    assert "期末项目" in page and "10/10" in page and "关闭考试" in page
    sheet = desk.teacher("GET", "/teacher/exam.csv")
    lines = sheet.content.decode("utf-8-sig").splitlines()
    assert lines[1].startswith("王小明,10,10,") and len(lines) == 4

    # the sweep: nothing a student received holds a key, a source, a kind, or any field but the public ones
    swept = "\n".join(desk.received)
    for question in desk.questions:
        key = question["key"]
        for secret in [*key["words"], key["source"], *(n for n in key["numbers"] if ".37" in n or len(n) >= 4)]:
            assert secret not in swept, secret
    for field in ("key", "source", "numbers", "words", "kind\"", "checks", "trajectory", "answer\""):
        assert f'"{field}' not in swept.replace('"answers"', ""), field
    assert BRAND not in swept and ".37" not in swept


def test_the_teacher_closes_the_exam_and_nothing_more_comes_in(desk):
    desk.teacher("POST", "/teacher/exam", json={"action": "open"})
    exam = desk.student("王小明", "GET", "/api/exam").json()["exam"]
    assert desk.teacher("POST", "/teacher/exam", data={"action": "close"}).status_code == 303  # the page's form
    assert ExamStore(desk.store.path).current()["state"] == "closed"
    for reply in (desk.student("王小明", "GET", "/api/exam"),
                  desk.student("王小明", "POST", "/api/exam/submit", json={"exam": exam, "answers": []})):
        assert reply.status_code == 403 and "没有开放" in reply.json()["error"]


def test_only_the_teacher_opens_closes_and_reads_the_board(desk):
    for method, path, kwargs in (("POST", "/teacher/exam", {"json": {"action": "open"}}),
                                 ("GET", "/api/exam/board", {}), ("GET", "/teacher/exam.csv", {})):
        reply = desk.student("王小明", method, path, **kwargs)
        assert reply.status_code == 401
    assert ExamStore(desk.store.path).current()["state"] == "closed"
    nobody = httpx2.get(desk.url + "/api/exam", headers={"Authorization": "Bearer " + "d" * 32}, timeout=10)
    assert nobody.status_code == 401 and "join" in nobody.json()["error"]


def test_submissions_are_bounded_per_student(desk):
    desk.teacher("POST", "/teacher/exam", json={"action": "open"})
    exam = desk.student("王小明", "GET", "/api/exam").json()["exam"]
    for left in (1, 0):
        reply = desk.student("王小明", "POST", "/api/exam/submit", json={"exam": exam, "answers": []})
        assert reply.json()["submissions_left"] == left and reply.json()["score"] == 0
    third = desk.student("王小明", "POST", "/api/exam/submit", json={"exam": exam, "answers": []})
    assert third.status_code == 403 and "2 次" in third.json()["error"]
    assert len(ExamStore(desk.store.path).submissions("e0e0e0e0", "王小明")) == 2


@pytest.mark.parametrize("change, said", [
    ({"answer": "x" * (exam_desk.MAX_ANSWER_CHARS + 1)}, "最多"),
    ({"trajectory": ["query_by_product_name"] * (exam_desk.MAX_CALLS + 1)}, "工具名"),
    ({"trajectory": ["<script>"]}, "工具名"),
    ({"rejected": "place_order"}, "工具名"),
    ({"observations": ["x" * (exam_desk.MAX_OBSERVATION_CHARS + 1)]}, "observations"),
    ({"requests": -1}, "requests"), ({"requests": 1.5}, "requests"), ({"requests": True}, "requests"),
    ({"prompt_tokens": 10**12}, "requests"), ({"seconds": "fast"}, "seconds"), ({"seconds": float("inf")}, "seconds"),
    ({"id": "Q99"}, "id"), ({"id": ["Q01"]}, "id"), ({"extra": 1}, "字段"), ({"answer": {"text": "200"}}, "answer"),
])
def test_a_malformed_answer_refuses_the_submission_in_chinese_and_stores_nothing(desk, change, said):
    desk.teacher("POST", "/teacher/exam", json={"action": "open"})
    exam = desk.student("王小明", "GET", "/api/exam").json()["exam"]
    bad = {**record("Q01", "200 元", ["query_by_product_name"]), **change}
    body = json.dumps({"exam": exam, "answers": [bad]}, allow_nan=True)
    reply = desk.student("王小明", "POST", "/api/exam/submit", content=body, headers={"Content-Type": "application/json"})
    assert reply.status_code == 400 and said in reply.json()["error"]
    assert ExamStore(desk.store.path).submissions("e0e0e0e0") == []


@pytest.mark.parametrize("body, status, said", [
    ({"exam": "e0e0e0e0", "answers": [record("Q01", "a", []), record("Q01", "b", [])]}, 400, "两个"),
    ({"exam": "ffffffff", "answers": []}, 409, "另一场"),
    ({"exam": "e0e0e0e0"}, 400, "answers"),
    ({"exam": "e0e0e0e0", "answers": [], "score": 10}, 400, "answers"),
    ([1, 2], 400, "answers"),
])
def test_a_wrong_submission_is_one_chinese_sentence(desk, body, status, said):
    desk.teacher("POST", "/teacher/exam", json={"action": "open"})
    reply = desk.student("王小明", "POST", "/api/exam/submit", json=body)
    assert reply.status_code == status and said in reply.json()["error"]


def test_a_huge_submission_is_refused_before_it_is_read(desk):
    desk.teacher("POST", "/teacher/exam", json={"action": "open"})
    huge = {"exam": "e0e0e0e0", "answers": [record("Q01", "x" * 1000, [])] * 400}
    reply = desk.student("王小明", "POST", "/api/exam/submit", json=huge)
    assert reply.status_code == 413 and reply.json()["error"]


def test_fetching_too_often_is_slowed_down(desk):
    desk.teacher("POST", "/teacher/exam", json={"action": "open"})
    codes = [desk.student("王小明", "GET", "/api/exam").status_code for _ in range(exam_desk.FETCHES_PER_MINUTE + 2)]
    assert codes[:exam_desk.FETCHES_PER_MINUTE] == [200] * exam_desk.FETCHES_PER_MINUTE and codes[-1] == 429
    assert desk.student("李雷", "GET", "/api/exam").status_code == 200  # another student is never held up


class FakeDoor:
    """The class door as the desk sees it: each student's request count (``seen``) and its ``witness``."""

    def __init__(self, counts):
        self.counts, self.witness = counts, DoorWitness()

    def seen(self, name):
        return self.counts.get(name, 0)


def test_a_claim_of_more_requests_than_the_door_saw_is_flagged(desk):
    seen = {"王小明": 5, "李雷": 5}
    desk.app.state.exam.door = FakeDoor(seen)
    desk.teacher("POST", "/teacher/exam", json={"action": "open"})  # the door's counts are marked here
    exam = desk.student("王小明", "GET", "/api/exam").json()["exam"]
    seen["王小明"] += 20  # ten questions, two requests each, through the door
    seen["李雷"] += 1  # one request, but the submission will claim twenty
    desk.teacher("POST", "/teacher/exam", json={"action": "open"})  # opened again while open: nothing is reset
    for name in ("王小明", "李雷"):
        answers = [record(q["id"], "抱歉，没有。", []) for q in desk.questions]
        assert desk.student(name, "POST", "/api/exam/submit", json={"exam": exam, "answers": answers}).status_code == 200
    rows = {r["name"]: r for r in desk.teacher("GET", "/api/exam/board").json()["rows"]}
    assert not rows["王小明"]["flag"] and rows["王小明"]["door_requests"] == 20
    assert rows["李雷"]["flag"] and rows["李雷"]["door_requests"] == 1
    page = httpx2.get(desk.url + "/teacher", headers={"Authorization": f"Bearer {TEACHER_KEY}"}, timeout=10).text
    assert "课堂入口看到的（1 次）" in page


def test_a_record_written_by_hand_scores_nothing_from_its_made_up_tool_results_and_is_flagged(desk):
    """All the shop's prices and brands, from data/, sent as the answer and as a tool result, with a tool name and a
    rejected order claimed: the door saw none of it, so the tool result is no source and the board says why."""
    door = FakeDoor({"王小明": 0, "李雷": 0})
    desk.app.state.exam.door = door
    desk.teacher("POST", "/teacher/exam", json={"action": "open"})
    shop = eval_set.products(desk.store.path.parent / "data")
    everything = "抱歉，没有。" + "；".join(f"{n} {row['brand']} {row['price']} 元 库存 {row['stock']}" for n, row in shop.items())
    everything += "；" + "、".join(str(n * row["price"]) for row in shop.values() for n in range(2, 6))
    forged = [{**record(q["id"], everything[:exam_desk.MAX_ANSWER_CHARS], ["query_by_product_name"], ["place_order"]),
               "observations": [everything[:exam_desk.MAX_OBSERVATION_CHARS]]} for q in desk.questions]
    reply = desk.student("王小明", "POST", "/api/exam/submit", json={"exam": "e0e0e0e0", "answers": forged}).json()
    # a real run of the same kind: the door saw its tool call and its tool result
    q = next(q for q in desk.questions if q["kind"] == "price")
    name = q["key"]["source"].split("：")[1].split(" ")[0]
    result = f'[{{"product_name": "{name}", "price": {q["key"]["numbers"][0]}}}]'
    door.witness.note("李雷", {"messages": [
        {"role": "user", "content": q["question"]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "query_by_product_name", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": result}]})
    door.counts["李雷"] = 2
    honest = {**record(q["id"], f"{name}的价格是 {q['key']['numbers'][0]} 元。", ["query_by_product_name"]),
              "observations": [result]}
    assert desk.student("李雷", "POST", "/api/exam/submit", json={"exam": "e0e0e0e0", "answers": [honest]}).json()["score"] == 1
    rows = {r["name"]: r for r in desk.teacher("GET", "/api/exam/board").json()["rows"]}
    assert reply["score"] < 5, reply  # the forged numbers count as invented once their made-up source is dropped
    forger = rows["王小明"]
    assert forger["flag"] and forger["unseen"] == {"observations": 10, "tools": ["query_by_product_name", "place_order"]}
    assert any("没见过" in reason for reason in forger["reasons"])
    assert not rows["李雷"]["flag"], rows["李雷"]


def test_a_burst_of_submissions_cannot_pass_the_bound(desk):
    import concurrent.futures

    desk.teacher("POST", "/teacher/exam", json={"action": "open"})
    body = {"exam": "e0e0e0e0", "answers": [right(q) for q in desk.questions]}
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(lambda _: httpx2.post(desk.url + "/api/exam/submit", json=body, timeout=30,
                                                    headers={"Authorization": f"Bearer {TOKENS['王小明']}"}).status_code,
                              range(6)))
    assert sorted(codes) == [200, 200, 403, 403, 403, 403], codes
    assert len(ExamStore(desk.store.path).submissions("e0e0e0e0", "王小明")) == 2


def test_without_a_scorer_the_exam_cannot_be_opened(tmp_path):
    running = Running(tmp_path, scorer=None)
    try:
        reply = running.teacher("POST", "/teacher/exam", json={"action": "open"})
        assert reply.status_code == 503 and "python course.py serve" in reply.json()["error"]
        assert ExamStore(running.store.path).current()["state"] == "closed"
    finally:
        running.stop()


def test_a_hostile_name_on_the_board_is_escaped_and_defused(tmp_path):
    running = Running(tmp_path)
    try:
        TOKENS["=HYPERLINK(1)"] = "e" * 32
        running.join("=HYPERLINK(1)")
        running.teacher("POST", "/teacher/exam", json={"action": "open"})
        answers = [record(q["id"], "<script>alert(1)</script>", []) for q in running.questions]
        running.student("=HYPERLINK(1)", "POST", "/api/exam/submit", json={"exam": "e0e0e0e0", "answers": answers})
        sheet = running.teacher("GET", "/teacher/exam.csv").content.decode("utf-8-sig")
        assert "'=HYPERLINK(1)" in sheet
        page = httpx2.get(running.url + "/teacher", headers={"Authorization": f"Bearer {TEACHER_KEY}"}, timeout=10).text
        assert "<script>alert" not in page
    finally:
        TOKENS.pop("=HYPERLINK(1)", None)
        running.stop()
