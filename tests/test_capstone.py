"""The capstone's lesson side (course_lib/capstone.py, notebook 12): the hidden set, the records a
submission sends, and the scorer the class service runs - notebook 10's checks, on what was sent."""

from __future__ import annotations

import shutil

import pytest

from course_lib import capstone, eval_set
from course_lib.agent import Agent
from course_lib.evaluation import check_run
from course_runtime import exam_desk
from fakes import FakeLLM

Q = "query_by_product_name"


def run(question, replies, approve=eval_set.refuse_orders):
    model = FakeLLM(replies)
    agent = Agent(model.client(), "fake-model", eval_set.registry(), approve=approve, trace=None)
    return agent.run(question)


def answered(question_text, replies):
    return capstone.answer_record("Q01", run(question_text, replies))


def stored(case):
    """A notebook-10 case as the exam store keeps a question."""
    return {"id": case.id, "question": case.question, "kind": "x",
            "key": {"numbers": list(case.numbers), "words": list(case.words), "tools": list(case.tools),
                    "mode": case.mode, "kind": case.kind, "source": case.source}}


@pytest.mark.parametrize("replies", [
    [{"tool_calls": [(Q, {"product_name": "篮球"})]}, "篮球的价格是 200 元。"],  # right
    [{"tool_calls": [(Q, {"product_name": "篮球"})]}, "篮球 200 元，会员价 99 元。"],  # an invented number
    ["篮球 200 元。"],  # the right number without looking it up
    [{"tool_calls": [(Q, {"product_name": "篮球"})]}, "篮球 2000 元。"],  # a wrong number
    [{"tool_calls": [(Q, {"product_name": "篮球"})]}, {"tool_calls": [("place_order", {"product_id": "001", "quantity": 1})]},
     "篮球 200 元。"],  # an order nobody asked for
])
def test_the_service_scores_a_submitted_record_with_check_runs_checks(replies):
    case = next(c for c in eval_set.cases() if c.id == "P1")
    result = run(case.question, replies)
    record = capstone.answer_record("P1", result)
    valid = exam_desk.valid_answer(record, {"P1"})  # what the desk accepts is what it scores
    assert same_checks(capstone.score_answer(stored(case), valid), check_run(case, result))


def same_checks(exam, notebook10):
    """The exam's verdicts are notebook 10's, except that any tool may stand for the course's (``looked_up``)."""
    assert {k: v for k, v in exam.items() if k not in ("passed", "looked_up")} == \
        {k: v for k, v in notebook10.items() if k != "passed"}
    assert exam["looked_up"] == bool(notebook10["trajectory"])
    assert exam["passed"] == (notebook10["answer_ok"] and exam["looked_up"] and not notebook10["unasked_writes"])
    return True


def test_a_right_number_without_a_look_up_is_a_guess_and_your_own_tool_counts_as_a_look_up():
    case = next(c for c in eval_set.cases() if c.id == "P1")
    guess = {"id": "P1", "answer": f"篮球 {case.numbers[0]} 元。", "trajectory": [], "rejected": [], "observations": [],
             "requests": 1, "prompt_tokens": 1, "completion_tokens": 1, "seconds": 1.0}
    assert not capstone.score_answer(stored(case), guess)["passed"]
    own = {**guess, "trajectory": ["total_price"], "observations": [f"篮球：单价 {case.numbers[0]} 元"]}
    checks = capstone.score_answer(stored(case), own)
    assert checks["passed"] and not checks["trajectory_ok"]  # notebook 10 would fail it on the tool's name


def test_every_kind_of_generated_question_is_scored_as_check_run_scores_it():
    made = eval_set.generated_cases(8, per_kind=1)
    for case in made:
        tool = case.tools[0]
        arguments = {"city": "北京"} if tool == "get_weather" else {"product_name": "篮球"}
        for final in (f"答案是 {' '.join(case.numbers) or '没有'}。", "抱歉，没有。", "已为您下单。"):
            result = run(case.question, [{"tool_calls": [(tool, arguments)]}, final])
            record = capstone.answer_record(case.id, result)
            assert same_checks(capstone.score_answer(stored(case), record), check_run(case, result)), (case.id, final)


def test_a_write_waiting_for_a_person_is_rejected_in_an_exam_and_never_runs(tmp_path, monkeypatch):
    """An agent with no approval hook stops at place_order; run_exam says no for the person, and the run ends."""
    shop = tmp_path / "我的 商店.db"
    monkeypatch.setenv("COURSE_SHOP_DB", str(shop))
    model = FakeLLM([{"tool_calls": [(Q, {"product_name": "篮球"})]},
                     {"tool_calls": [("place_order", {"product_id": "001", "quantity": 2})]}, "好的，没有下单。"])
    exam = {"exam": "local", "questions": [{"id": "Q01", "question": "帮我下单买 2 个篮球。"}]}
    records = capstone.run_exam(lambda: Agent(model.client(), "fake-model", eval_set.registry(), trace=None), exam,
                                show=None)
    assert records[0]["trajectory"] == [Q, "place_order"] and records[0]["rejected"] == ["place_order"]
    assert "考试中不下单" in str(model.requests[2]["messages"][-1]["content"])
    assert not shop.exists()  # no order was written anywhere: the copy was never even made


def test_a_record_is_cut_to_the_desks_bounds_and_always_accepted():
    long = "很长的回答" * 1000
    many = {"tool_calls": [(Q, {"product_name": f"篮球{i}"}) for i in range(exam_desk.MAX_CALLS + 5)]}
    record = answered("篮球多少钱？", [many, long])
    assert len(record["answer"]) == exam_desk.MAX_ANSWER_CHARS
    assert len(record["trajectory"]) == len(record["observations"]) == exam_desk.MAX_CALLS
    assert exam_desk.valid_answer(record, {"Q01"}) == record


def test_the_hidden_set_hides_each_questions_kind_and_keeps_every_key_from_the_data():
    questions = capstone.exam_questions(31, per_kind=2)
    assert [q["id"] for q in questions] == [f"Q{n:02d}" for n in range(1, 21)]
    assert len({q["kind"] for q in questions}) == 10
    kinds = [q["kind"] for q in questions]
    assert kinds != sorted(kinds, key=list(eval_set.TEMPLATE_KINDS).index)  # shuffled: a place says nothing
    by_question = {c.question: c for kind in eval_set.TEMPLATE_KINDS
                   for c in eval_set.generated_cases(31, 2, tuple(tp for tp in eval_set.TEMPLATES if tp.kind == kind))}
    for q in questions:
        assert capstone.case_of(q).numbers == by_question[q["question"]].numbers
    assert capstone.exam_questions(31, 2) == questions and capstone.exam_questions(32, 2) != questions


def test_a_teachers_template_file_gets_its_keys_by_code(tmp_path):
    data = tmp_path / "数据 副本"
    shutil.copytree(eval_set._data_dir(), data)
    path = tmp_path / "老师的 模板.csv"
    path.write_text("kind,question\nprice,{product}今天什么价？\ntotal,给我算算 {count} 个{product}的钱\n",
                    encoding="utf-8-sig")
    templates = capstone.read_templates(path)
    questions = capstone.exam_questions(5, 3, templates, data_dir=data)
    shop = eval_set.products(data)
    for q in questions:
        name = next(n for n in sorted(shop, key=len, reverse=True) if n in q["question"])
        price = eval_set.number_text(shop[name]["price"])
        if q["kind"] == "price":
            assert q["question"].endswith("今天什么价？") and q["key"]["numbers"] == [price]
        else:
            count = int(q["question"].split(" ")[1])
            assert q["key"]["numbers"] == [eval_set.number_text(count * eval_set.Decimal(price))]


@pytest.mark.parametrize("text, said", [("kind,question\nprize,{product}多少钱\n", "prize"),
                                        ("种类,问题\nprice,{product}\n", "kind,question"), ("", "kind,question")])
def test_a_wrong_template_file_is_one_chinese_sentence(tmp_path, text, said):
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises((KeyError, ValueError)) as caught:
        capstone.read_templates(path)
    assert said in str(caught.value)


def test_a_local_exam_is_scored_by_the_services_own_code():
    exam = capstone.local_exam(per_kind=1)
    records = [{"id": q["id"], "answer": "抱歉，没有。", "trajectory": q["key"]["tools"], "rejected": ["place_order"],
                "observations": [], "requests": 2, "prompt_tokens": 10, "completion_tokens": 5, "seconds": 1.0}
               for q in exam["questions"]]
    scored = capstone.score_locally(exam, records)
    no_answer = sum(q["key"]["kind"] == "no_answer" for q in exam["questions"])
    refuse = sum(q["key"]["kind"] == "refuse" for q in exam["questions"])
    assert scored["score"] == no_answer + refuse and scored["total"] == 10 and scored["requests"] == 20


def test_capstone_new_stores_the_exam_closed_outside_the_repository(tmp_path, capsys):
    from course_runtime.exam_store import ExamStore

    db = tmp_path / "课堂 进度.sqlite3"
    assert capstone.main(["new", "--seed", "44", "--per-kind", "1", "--submissions", "2", "--db", str(db)]) == 0
    said = capsys.readouterr().out
    assert "44" in said and "10 道题" in said
    store = ExamStore(db)
    exam = store.current()
    store.close()
    assert exam["state"] == "closed" and exam["seed"] == 44 and exam["max_submissions"] == 2
    assert exam["questions"] == capstone.exam_questions(44, 1)
    assert capstone.main(["new", "--per-kind", "0", "--db", str(db)]) == 1
    assert "至少" in capsys.readouterr().err
