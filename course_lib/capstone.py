"""The capstone: your own agent, measured on a practice set, scored on a set you cannot see (notebook 12).

Everything here is built from what notebooks 06-10 taught:

* ``practice_exam`` / ``local_exam``: question sets made from templates (``eval_set.generated_cases``),
  each key computed by code from ``data/``, in the class exam's shape.  Both are on your laptop, keys included: a local test set
  is *not* hidden, it only tells you whether a change you made for the practice set also helps questions
  you did not tune on.
* ``score_locally`` / ``results_table``: a set's runs scored as the class exam scores them, and one row per
  question to read its failures as notebook 10 taught (which check failed, the trajectory), with what it
  cost (requests, tokens, seconds) - to compare before and after one change.
* ``run_exam``: your agent on each question of an exam, as ``evaluation.run_set`` runs a set, every call
  that needs a person's decision rejected (``EXAM_DECISION``: no order is placed in an exam); each run
  summed up by ``answer_record`` - what a submission sends: the answer and the trajectory summary.
* In class: ``fetch_exam`` gets the hidden set's questions (never their keys) from the teacher's service
  with your student token, ``submit_exam`` sends the answers back; the service scores them there by
  ``score_answer``, which is notebook 10's ``evaluation.check_answer``.  ``score_locally`` does the same
  on your laptop for the local test set.

The teacher's side: ``python course.py capstone new [--seed N] [--per-kind K] [--submissions S]
[--templates FILE]`` makes the hidden set (``exam_questions``) and stores it in the progress database
(``course_runtime.exam_store``); ``python course.py serve`` runs the class with ``score_answer`` as the
exam desk's scorer (``course_runtime.exam_desk``; this module's ``main``).
"""

from __future__ import annotations

import argparse
import csv
import random
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from course_runtime.exam_desk import DEFAULT_SUBMISSIONS, MAX_ANSWER_CHARS, MAX_CALLS, MAX_OBSERVATION_CHARS
from course_runtime.exam_desk import MAX_COUNT, MAX_SECONDS, TOOL_NAME, score_submission

from .approval import Decision
from .eval_set import TEMPLATE_KINDS, TEMPLATES, Case, Template, generated_cases
from .evaluation import check_answer, observations, rejected_calls, trajectory
from .texts import t

if TYPE_CHECKING:
    import pandas as pd

PRACTICE_SEED = 12  # the practice set everybody shares (keys on the laptop)
LOCAL_TEST_SEED = 1212  # the local test set (local_exam): other products, cities and counts, keys on the laptop too
EXAM_DECISION = Decision("reject", reason="考试中不下单：这个调用已被拒绝。", by="考试")
TIMEOUT_S = 10.0  # the longest a fetch or a submission waits for the teacher's service


def practice_exam(seed: int = PRACTICE_SEED, per_kind: int = 1) -> dict[str, Any]:
    """The practice set in the exam's shape (``exam_questions`` with ids ``T01``, ``T02``, ...): one question of
    each of the ten template kinds by default; its keys are on this laptop, to look at and to tune on."""
    return {"exam": "practice", "questions": exam_questions(seed, per_kind, prefix="T"), "local": True}


def answer_record(question_id: str, result: Any) -> dict[str, Any]:
    """What a submission sends for one question: the answer and the run's trajectory summary.

    Args:
        question_id: the exam's id of the question (``"Q03"``).
        result: the loop's ``records.RunResult``.
    Returns:
        ``{"id", "answer", "trajectory", "rejected", "observations", "requests", "prompt_tokens",
        "completion_tokens", "seconds"}`` (``course_runtime.exam_desk.ANSWER_FIELDS``), cut to the desk's
        bounds: the answer to ``MAX_ANSWER_CHARS`` characters, at most ``MAX_CALLS`` names and tool results,
        each result to ``MAX_OBSERVATION_CHARS``, a tool name the desk would refuse written ``unknown_tool``,
        counts and seconds at most the desk's ``MAX_COUNT`` and ``MAX_SECONDS``.
    """
    answer = result.answer

    def names(found: list[str]) -> list[str]:  # a model's odd tool name ("", "查询") would refuse the whole submission
        return [n if TOOL_NAME.fullmatch(n) else "unknown_tool" for n in found[:MAX_CALLS]]

    return {"id": question_id, "answer": None if answer is None else answer[:MAX_ANSWER_CHARS],
            "trajectory": names(trajectory(result.steps)), "rejected": names(rejected_calls(result.steps)),
            "observations": [text[:MAX_OBSERVATION_CHARS] for text in observations(result.steps)[:MAX_CALLS]],
            "requests": min(result.requests, MAX_COUNT), "prompt_tokens": min(result.prompt_tokens, MAX_COUNT),
            "completion_tokens": min(result.completion_tokens, MAX_COUNT),
            "seconds": min(round(result.seconds, 2), MAX_SECONDS)}


def run_exam(make_agent: Callable[[], Any], exam: dict[str, Any], show: Callable[[str], Any] | None = print
             ) -> list[dict[str, Any]]:
    """Run every question of ``exam`` on a fresh agent from ``make_agent()``; one ``answer_record`` each.

    A run that stops because a call waits for a person's decision (a write tool: notebook 08) gets
    ``EXAM_DECISION`` for every waiting call - rejected, nothing runs - and goes on to its answer.

    Args:
        exam: ``fetch_exam()``'s or ``local_exam()``'s ``{"exam", "questions": [{"id", "question"}], ...}``.
        show: called with one line per question (``Q03  3 次请求  4.1 秒``); None = silent.
    Raises:
        Whatever the loop raises for a failed request (the server unreachable): the records so far are lost,
        so run it again.
    """
    records = []
    for question in exam["questions"]:
        agent = make_agent()
        result = agent.run(question["question"])
        while result.stopped_reason == "waiting":
            for call in list(result.waiting):
                agent.decide(call, EXAM_DECISION)
            result = agent.run()
        records.append(answer_record(question["id"], result))
        if show is not None:
            show(t("capstone.progress", id=question["id"], requests=result.requests, seconds=result.seconds))
    return records


def score_answer(question: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """The exam desk's scorer: one submitted answer against its question's key, by notebook 10's checks.

    The checks are ``evaluation.check_answer``'s: the key's numbers and words are in the answer, no number
    comes from nowhere, a question without an answer in the data is said to have none, a refused order was
    refused and not claimed, no write was called that nobody asked for.  One thing differs from notebook 10:
    the exam does not ask for the course's tools by name (``trajectory_ok``), because your own tools may
    replace them - it asks that the run looked *something* up (``looked_up``): an answer without a single tool
    call is a guess, even when it happens to be right.

    Args:
        question: a stored exam question, ``{"id", "question", "kind", "key": {"numbers", "words", "tools",
            "mode", "kind", "source"}}`` (``exam_questions``).
        answer: a checked answer (``course_runtime.exam_desk.valid_answer``, made by ``answer_record``).
    Returns:
        ``check_answer``'s dict plus ``"looked_up"``, with ``"passed"`` = ``answer_ok`` and ``looked_up`` and no
        ``unasked_writes``.
    """
    checks = check_answer(case_of(question), answer["answer"], answer["trajectory"], answer["observations"],
                          answer["rejected"])
    looked_up = bool(answer["trajectory"])
    return {**checks, "looked_up": looked_up,
            "passed": checks["answer_ok"] and looked_up and not checks["unasked_writes"]}


def results_table(exam: dict[str, Any], scored: dict[str, Any]) -> "pd.DataFrame":
    """One row per question of ``score_locally``'s result, as notebook 10's ``results_frame``: id, kind, question,
    passed, answer_ok, looked_up, trajectory (names joined by " → "), expected (the key's tools, for
    reading only), unasked_writes, missing, invented, requests, tokens, seconds, answer."""
    import pandas as pd

    asked = {q["id"]: q for q in exam["questions"]}
    rows = []
    for item in scored["answers"]:
        checks, question = item["checks"], asked[item["id"]]
        rows.append({"id": item["id"], "kind": item["kind"], "question": question["question"],
                     "passed": item["passed"], "answer_ok": checks.get("answer_ok", False),
                     "looked_up": checks.get("looked_up", False), "trajectory": " → ".join(item["trajectory"]),
                     "expected": " → ".join(question["key"]["tools"]),
                     "unasked_writes": ", ".join(checks.get("unasked_writes", [])),
                     "missing": ", ".join(checks.get("missing", [])), "invented": ", ".join(checks.get("invented", [])),
                     "requests": item["requests"], "tokens": item["tokens"], "seconds": item["seconds"],
                     "answer": item["answer"]})
    return pd.DataFrame(rows)


def case_of(question: dict[str, Any]) -> Case:
    """An exam question back as notebook 10's ``Case``."""
    key = question["key"]
    return Case(question["id"], question["question"], tuple(key["numbers"]), tuple(key["words"]),
                tuple(key["tools"]), key["mode"], key["kind"], key["source"])


def exam_questions(seed: int, per_kind: int = 2, templates: tuple[Template, ...] = TEMPLATES,
                   data_dir: Path | None = None, prefix: str = "Q") -> list[dict[str, Any]]:
    """The hidden set: ``per_kind`` questions of every kind ``templates`` has, keys from ``data/``, shuffled.

    The ids are ``Q01``, ``Q02``, ... (``prefix``) in a shuffled order, so neither an id nor a question's
    place says its kind (notebook 10's ids do: N is a question without an answer).

    Returns:
        ``[{"id", "question", "kind" (the template kind), "key": {"numbers", "words", "tools", "mode", "kind",
        "source"}}]`` - what ``course_runtime.exam_store`` keeps.
    Raises:
        KeyError: as ``eval_set.generated_cases`` (an unknown kind, a wording its kind cannot fill).
    """
    made = []
    for kind in dict.fromkeys(tp.kind for tp in templates):
        mine = tuple(tp for tp in templates if tp.kind == kind)
        for case in generated_cases(seed, per_kind, mine, data_dir):
            made.append({"question": case.question, "kind": kind,
                         "key": {"numbers": list(case.numbers), "words": list(case.words), "tools": list(case.tools),
                                 "mode": case.mode, "kind": case.kind, "source": case.source}})
    random.Random(seed).shuffle(made)
    return [{"id": f"{prefix}{n:02d}", **q} for n, q in enumerate(made, 1)]


def read_templates(path: Path) -> tuple[Template, ...]:
    """A teacher's wordings from a CSV file (UTF-8, header ``kind,question``), e.g. ``price,{product}今天什么价？``.

    Raises:
        KeyError: a kind that is not one of ``eval_set.TEMPLATE_KINDS`` (a Chinese sentence).
        ValueError: no ``kind`` / ``question`` columns, or no rows.
        OSError: the file cannot be read.
    """
    with Path(path).open(encoding="utf-8-sig", newline="") as file:
        rows = list(csv.DictReader(file))
    if not rows or not {"kind", "question"} <= set(rows[0]):
        raise ValueError(t("capstone.templates_columns", path=path))
    found = tuple(Template(row["kind"].strip(), row["question"].strip()) for row in rows)
    for template in found:
        if template.kind not in TEMPLATE_KINDS:
            raise KeyError(t("eval_set.unknown_kind", kind=template.kind, kinds="、".join(TEMPLATE_KINDS)))
    return found


def local_exam(seed: int = LOCAL_TEST_SEED, per_kind: int = 1) -> dict[str, Any]:
    """A test set made on this laptop in the class exam's shape (``exam_questions``, ``run_exam``,
    ``score_locally``): another seed than the practice set, so other products, cities and counts - but its
    keys are on this laptop, so it is not hidden."""
    return {"exam": "local", "questions": exam_questions(seed, per_kind, prefix="L"), "local": True}


def score_locally(exam: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """Score ``run_exam``'s records of a ``local_exam`` exactly as the teacher's service scores a submission
    (``course_runtime.exam_desk.score_submission`` with ``score_answer``)."""
    return score_submission(exam, records, score_answer)


# -- in class: the teacher's service ---------------------------------------------------------------------


class ExamError(Exception):
    """The teacher's service refused or could not be reached; the message is one Chinese sentence."""


def _class() -> tuple[str, str]:
    """``(service URL, student token)`` of the class this computer joined.

    Raises:
        ExamError: not in a class (``python course.py join CODE`` first), or no student token.
    """
    from course_runtime.class_code import student_token
    from course_runtime.progress import class_settings

    settings = class_settings()
    if settings is None:
        raise ExamError(t("capstone.no_class"))
    try:
        return settings["url"], student_token()
    except OSError as exc:
        raise ExamError(t("capstone.no_token", error=exc)) from None


def _call(method: str, path: str, body: Any = None) -> dict[str, Any]:
    import httpx2

    url, token = _class()
    try:
        with httpx2.Client(timeout=httpx2.Timeout(TIMEOUT_S, connect=2.0), trust_env=False) as http:
            reply = http.request(method, url + path, json=body, headers={"Authorization": "Bearer " + token})
    except httpx2.HTTPError as exc:
        raise ExamError(t("capstone.unreachable", url=url, error=type(exc).__name__)) from None
    try:
        data = reply.json()
    except ValueError:
        data = {}
    if reply.status_code != 200:
        raise ExamError(t("capstone.refused", status=reply.status_code,
                          why=data.get("error", "") if isinstance(data, dict) else ""))
    return data


def fetch_exam() -> dict[str, Any]:
    """The open exam's questions from the teacher's service: ``{"exam", "name", "questions": [{"id",
    "question"}], "mine": {"submissions", "submissions_left", "score", "total", "per_kind"}}``.

    Raises:
        ExamError: not in a class, the service unreachable, no exam, the exam closed (the sentence says which).
    """
    return _call("GET", "/api/exam")


def submit_exam(exam: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """Send ``run_exam``'s records; the service scores them by code and keeps them.

    Returns:
        Your own ``{"exam", "score", "total", "per_kind": {kind: [passed, asked]}, "submissions_left"}``.
    Raises:
        ExamError: as ``fetch_exam``; also a refused submission (too many, malformed, another exam).
    """
    return _call("POST", "/api/exam/submit", {"exam": exam["exam"], "answers": records})


# -- the teacher's commands ------------------------------------------------------------------------------


def new_exam(seed: int | None = None, per_kind: int = 2, submissions: int = DEFAULT_SUBMISSIONS,
             templates: tuple[Template, ...] = TEMPLATES, db: Path | None = None) -> dict[str, Any]:
    """Make the hidden set and store it, closed, in the progress database (``course_runtime.exam_store``).

    Args:
        seed: the generator's seed (the teacher keeps it: the same seed and data give the same set);
            None = a random one.  per_kind: questions per kind.  submissions: how many times a student may
            submit.  templates: the wordings.  db: the database (default ``class-progress.sqlite3``).
    Returns:
        ``{"exam", "seed", "questions", "kinds": {kind: count}, "db"}``.
    Raises:
        KeyError: as ``exam_questions``.  ValueError: ``per_kind`` or ``submissions`` below 1.
    """
    from course_runtime.exam_store import ExamStore
    from course_runtime.progress_store import DB_FILE

    if per_kind < 1 or submissions < 1:
        raise ValueError(t("capstone.bad_counts", per_kind=per_kind, submissions=submissions))
    seed = secrets.randbits(48) if seed is None else seed  # too many to try them all on a laptop
    questions = exam_questions(seed, per_kind, templates)
    exam_id = secrets.token_hex(4)
    db = Path(db) if db is not None else DB_FILE
    store = ExamStore(db)
    try:
        store.new_exam(exam_id, seed, questions, submissions)
    finally:
        store.close()
    kinds: dict[str, int] = {}
    for question in questions:
        kinds[question["kind"]] = kinds.get(question["kind"], 0) + 1
    return {"exam": exam_id, "seed": seed, "questions": len(questions), "kinds": kinds, "db": db}


def main(argv: list[str] | None = None) -> int:
    """``python course.py capstone new ...`` (``new_exam``) and ``python course.py serve ...`` (the class, with
    ``score_answer`` as the exam's scorer: ``course_runtime.classroom.main``)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["serve"]:
        from course_runtime import classroom

        return classroom.main(argv[1:], exam_scorer=score_answer)
    parser = argparse.ArgumentParser(prog="python course.py capstone", description=t("capstone.help"))
    commands = parser.add_subparsers(dest="command", required=True)
    new = commands.add_parser("new", help=t("capstone.help_new"))
    new.add_argument("--seed", type=int, default=None)
    new.add_argument("--per-kind", type=int, default=2)
    new.add_argument("--submissions", type=int, default=DEFAULT_SUBMISSIONS)
    new.add_argument("--templates", type=Path, default=None, help=t("capstone.help_templates"))
    new.add_argument("--db", type=Path, default=None)
    opts = parser.parse_args(argv)
    try:
        templates = TEMPLATES if opts.templates is None else TEMPLATES + read_templates(opts.templates)
        made = new_exam(opts.seed, opts.per_kind, opts.submissions, templates, opts.db)
    except (KeyError, ValueError, OSError) as exc:
        print(t("capstone.error", error=exc.args[0] if isinstance(exc, KeyError) and exc.args else exc),
              file=sys.stderr)
        return 1
    kinds = "、".join(f"{kind} {n}" for kind, n in made["kinds"].items())
    print(t("capstone.made", exam=made["exam"], questions=made["questions"], kinds=kinds, seed=made["seed"],
            db=made["db"], submissions=opts.submissions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
