"""The capstone's exam desk: questions out to students, answers in, scored by code, the leaderboard.

Routes of the progress service (``progress_service.make_app`` adds ``routes()``); the exam and its keys
are in ``exam_store`` (``python course.py capstone new`` wrote them there).  The answers are scored by
the function the lessons hand in (``course_lib.capstone.score_answer``: notebook 10's ``check_answer``, any
tool call standing for the course's tools), as ``ExamDesk.scorer``: this package never imports ``course_lib``.  Without one (the service started as
``python -m course_runtime.classroom``, not ``python course.py serve``) the exam cannot be opened.

A student (their student token as ``Authorization: Bearer``, as ``/api/results``):

* ``GET /api/exam``: while the exam is open, its questions - ``[{"id", "question"}]``, never a key, a
  kind or a source - with ``submissions_left`` and their own last score (``mine``).  404 when there is
  no exam, 403 while it is closed.  At most ``FETCHES_PER_MINUTE`` a minute per token.
* ``POST /api/exam/submit`` ``{"exam": id, "answers": [...]}``: one answer per question at most, each
  exactly ``ANSWER_FIELDS`` (``valid_answer`` says the bounds); a question without an answer scores 0.
  While the exam is open, at most ``max_submissions`` per student (``capstone new --submissions``), at
  most ``SUBMITS_PER_MINUTE`` a minute; bodies over ``MAX_SUBMISSION`` bytes refused.  The reply is the
  student's own ``score``, ``total``, ``per_kind`` (``{kind: [passed, asked]}``) and
  ``submissions_left``; never which check failed (that would show the key).

The teacher (``TeacherGuard``, as every teacher's route):

* ``POST /teacher/exam`` ``action=open|close`` (the page's form, or JSON): open or close the exam.
* ``GET /api/exam/board`` (JSON) and ``GET /teacher/exam.csv``: the leaderboard (``board``); the page
  shows it under the grid (``render_board``).

The trajectory summary a student sends (tool calls, tool results, requests, tokens, seconds) is their own
word, and the door checks it where it can.  Everything a run reads passes the door: each tool result goes
back to the model inside the next request, each tool call is in the next request's history
(``door_witness``).  So before scoring, a submitted tool result the door never saw in that student's
requests is dropped (a number it held then counts as invented), and the board flags the submission
(``flag``), as it does one whose tool names the door never saw that student's model call, or one that
claims more requests than the door counted for that student since the exam opened (``door_requests``:
requests a model answered plus those answered from memory) - an agent run on another provider, or a
record written by hand.  What the door cannot check: the final answer itself (it is in a reply, and a
student may type any text), so a student who works the keys out of ``data/`` by hand and adds one real
look-up is not caught by code; the teacher reads the flagged and the surprising rows.  The door's memory
is in memory: after the service restarts it starts empty, so a run that spanned the restart may be flagged
wrongly.
"""

from __future__ import annotations

import csv
import html
import io
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from .exam_store import ExamStore
from .progress_page import csv_safe
from .progress_store import token_hash
from .teacher_actions import read_fields
from .texts import t
from .web_requests import BadRequest, RateLimit, bearer, body_json, error_response, run_blocking

ANSWER_FIELDS = ("id", "answer", "trajectory", "rejected", "observations", "requests", "prompt_tokens",
                 "completion_tokens", "seconds")
MAX_SUBMISSION = 256 * 1024  # bytes of one submission
MAX_ANSWER_CHARS = 2000  # characters of one final answer
MAX_CALLS = 30  # tool names in one answer's trajectory (and rejected calls)
MAX_OBSERVATION_CHARS = 2000  # characters of one tool result sent back
MAX_COUNT = 10_000_000  # the most requests / tokens one answer may claim
MAX_SECONDS = 36_000.0
FETCHES_PER_MINUTE = 30
SUBMITS_PER_MINUTE = 6
DEFAULT_SUBMISSIONS = 3  # submissions per student per exam (capstone new --submissions)
TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,64}")  # the OpenAI API's function names, and a little more
_QUESTION_ID = re.compile(r"[A-Za-z0-9\-]{1,32}")

Scorer = Callable[[dict, dict], dict]


@dataclass
class ExamDesk:
    """What the exam's routes need, kept in ``app.state.exam``.

    store: the exams (``ExamStore``).  scorer: ``(question with its key, answer) -> {"passed": bool, ...}``
    (None: the exam cannot be opened).  door: the class door (``class_door.ClassDoor``: its ``seen(name)``
    counts and its ``witness``), or None without a model.  clock: Unix seconds.  marks: each name's door
    count when the exam opened.
    """

    store: ExamStore
    scorer: Scorer | None
    door: Any
    clock: Callable[[], float]
    fetch_limit: RateLimit = None  # type: ignore[assignment]
    submit_limit: RateLimit = None  # type: ignore[assignment]
    marks: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.fetch_limit = self.fetch_limit or RateLimit(FETCHES_PER_MINUTE, clock=self.clock)
        self.submit_limit = self.submit_limit or RateLimit(SUBMITS_PER_MINUTE, clock=self.clock)


def desk_of(request: Any) -> ExamDesk:
    return request.app.state.exam


def public_questions(exam: dict[str, Any]) -> list[dict[str, str]]:
    """What a student may see of the exam: each question's id and text, nothing else."""
    return [{"id": q["id"], "question": q["question"]} for q in exam["questions"]]


def _strings(value: object, most: int, chars: int, pattern: re.Pattern | None = None) -> bool:
    return (isinstance(value, list) and len(value) <= most
            and all(isinstance(v, str) and len(v) <= chars and (pattern is None or pattern.fullmatch(v))
                    for v in value))


def _count(value: object) -> bool:
    return type(value) is int and 0 <= value <= MAX_COUNT


def valid_answer(raw: object, ids: set[str]) -> dict[str, Any]:
    """One answer checked: exactly ``ANSWER_FIELDS``; ``id`` one of the exam's ``ids``; ``answer`` a string of at
    most ``MAX_ANSWER_CHARS`` or null; ``trajectory`` and ``rejected`` at most ``MAX_CALLS`` tool names;
    ``observations`` at most ``MAX_CALLS`` strings of at most ``MAX_OBSERVATION_CHARS``; ``requests``,
    ``prompt_tokens``, ``completion_tokens`` whole numbers 0-``MAX_COUNT``; ``seconds`` 0-``MAX_SECONDS``.

    Raises:
        BadRequest (400): any of it wrong, with a Chinese sentence.
    """
    if not isinstance(raw, dict) or set(raw) != set(ANSWER_FIELDS):
        raise BadRequest(400, t("exam.answer_fields", fields=", ".join(ANSWER_FIELDS)))
    seconds = raw["seconds"]
    ok = (isinstance(raw["id"], str) and raw["id"] in ids
          and (raw["answer"] is None or isinstance(raw["answer"], str) and len(raw["answer"]) <= MAX_ANSWER_CHARS)
          and _strings(raw["trajectory"], MAX_CALLS, 64, TOOL_NAME) and _strings(raw["rejected"], MAX_CALLS, 64, TOOL_NAME)
          and _strings(raw["observations"], MAX_CALLS, MAX_OBSERVATION_CHARS)
          and all(_count(raw[k]) for k in ("requests", "prompt_tokens", "completion_tokens"))
          and type(seconds) in (int, float) and 0 <= seconds <= MAX_SECONDS)
    if not ok:
        raise BadRequest(400, t("exam.answer_value", most=MAX_ANSWER_CHARS, calls=MAX_CALLS))
    return {k: raw[k] for k in ANSWER_FIELDS}


def score_submission(exam: dict[str, Any], answers: list[dict[str, Any]], scorer: Scorer) -> dict[str, Any]:
    """Every question of ``exam`` scored: its answer through ``scorer``, a question without one failed.

    Returns:
        ``{"score", "total", "per_kind": {kind: [passed, asked]}, "requests", "tokens", "seconds",
        "answers": [{"id", "kind", "passed", "checks", "answer", "trajectory", "requests", "tokens",
        "seconds"}]}`` (the last for the teacher only).
    """
    given = {a["id"]: a for a in answers}
    per_kind: dict[str, list[int]] = {}
    scored = []
    for question in exam["questions"]:
        answer = given.get(question["id"])
        if answer is None:
            checks: dict[str, Any] = {"passed": False, "unanswered": True}
        else:
            try:
                checks = scorer(question, answer)
            except Exception as exc:  # a scorer's bug fails this answer, never the whole submission
                checks = {"passed": False, "error": type(exc).__name__}
        passed = bool(checks.get("passed"))
        counts = per_kind.setdefault(question["kind"], [0, 0])
        counts[0] += passed
        counts[1] += 1
        scored.append({"id": question["id"], "kind": question["kind"], "passed": passed, "checks": checks,
                       "answer": answer["answer"] if answer else None,
                       "trajectory": answer["trajectory"] if answer else [],
                       "requests": answer["requests"] if answer else 0,
                       "tokens": answer["prompt_tokens"] + answer["completion_tokens"] if answer else 0,
                       "seconds": answer["seconds"] if answer else 0})
    return {"score": sum(a["passed"] for a in scored), "total": len(scored), "per_kind": per_kind,
            "requests": sum(a["requests"] for a in answers),
            "tokens": sum(a["prompt_tokens"] + a["completion_tokens"] for a in answers),
            "seconds": round(sum(a["seconds"] for a in answers), 1), "answers": scored}


async def _student(request: Any, limit: RateLimit, most: int) -> str:
    """The student's name from their bearer token (``/api/join`` tied them), counted against ``limit``.

    Raises:
        BadRequest: 401 for no token or one that never joined; 429 when the token used its ``most`` a minute.
    """
    digest = token_hash(bearer(request))
    name = None if digest is None else await run_blocking(request.app.state.course.store.student_of, digest)
    if name is None:
        raise BadRequest(401, t("progress_service.not_joined"))
    if not limit.take(digest):
        raise BadRequest(429, t("exam.slow", most=most))
    return name


async def _open_exam(desk: ExamDesk) -> dict[str, Any]:
    """The current exam while it is open (and can be scored: a service without a scorer keeps it closed)."""
    exam = await run_blocking(desk.store.current)
    if exam is None:
        raise BadRequest(404, t("exam.none"))
    if exam["state"] != "open" or desk.scorer is None:
        raise BadRequest(403, t("exam.closed"))
    return exam


def witnessed(desk: ExamDesk, name: str, answers: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict]:
    """``answers`` with every tool result the door never saw in ``name``'s requests dropped, and what was not
    seen: ``{"observations": count dropped, "tools": [tool names never called through the door]}`` (both
    empty without a door)."""
    unseen: dict[str, Any] = {"observations": 0, "tools": []}
    if desk.door is None:
        return answers, unseen
    witness = desk.door.witness
    kept = []
    for answer in answers:
        seen = [text for text in answer["observations"] if witness.saw_text(name, text)]
        unseen["observations"] += len(answer["observations"]) - len(seen)
        unseen["tools"] += [tool for tool in dict.fromkeys(answer["trajectory"] + answer["rejected"])
                            if not witness.saw_tool(name, tool) and tool not in unseen["tools"]]
        kept.append({**answer, "observations": seen})
    return kept, unseen


def _mine(rows: list[dict[str, Any]], exam: dict[str, Any]) -> dict[str, Any]:
    last = rows[-1] if rows else None
    return {"submissions": len(rows), "submissions_left": max(0, exam["max_submissions"] - len(rows)),
            "score": last["score"] if last else None, "total": last["total"] if last else len(exam["questions"]),
            "per_kind": last["per_kind"] if last else None}


async def get_exam(request: Any):
    """``GET /api/exam``: the open exam's questions for a student who has joined (the module docstring)."""
    from starlette.responses import JSONResponse

    desk = desk_of(request)
    try:
        name = await _student(request, desk.fetch_limit, FETCHES_PER_MINUTE)
        exam = await _open_exam(desk)
        rows = await run_blocking(desk.store.submissions, exam["exam_id"], name, False)
    except BadRequest as exc:
        return error_response(exc)
    return JSONResponse({"exam": exam["exam_id"], "name": name, "questions": public_questions(exam),
                         "mine": _mine(rows, exam)}, headers={"Cache-Control": "no-store"})


async def submit(request: Any):
    """``POST /api/exam/submit``: a student's answers, scored and kept (the module docstring)."""
    from starlette.responses import JSONResponse

    desk = desk_of(request)
    try:
        name = await _student(request, desk.submit_limit, SUBMITS_PER_MINUTE)
        exam = await _open_exam(desk)
        body = await body_json(request, MAX_SUBMISSION)
        if not isinstance(body, dict) or set(body) != {"exam", "answers"} or not isinstance(body["answers"], list):
            raise BadRequest(400, t("exam.body_fields"))
        if body["exam"] != exam["exam_id"]:
            raise BadRequest(409, t("exam.other_exam"))
        ids = {q["id"] for q in exam["questions"]}
        answers = [valid_answer(a, ids) for a in body["answers"]]
        if len({a["id"] for a in answers}) != len(answers):
            raise BadRequest(400, t("exam.twice"))
        if await run_blocking(desk.store.count, exam["exam_id"], name) >= exam["max_submissions"]:
            raise BadRequest(403, t("exam.no_more", most=exam["max_submissions"]))  # before the scoring's work
        checked, unseen = witnessed(desk, name, answers)
        row = await run_blocking(score_submission, exam, checked, desk.scorer)
        row["unseen"] = unseen
        row["door_requests"] = None if desk.door is None else desk.door.seen(name) - desk.marks.get(name, 0)
        left = await run_blocking(desk.store.add_submission, exam["exam_id"], name, row, exam["max_submissions"],
                                  desk.clock())  # counted and kept in one step: a burst cannot pass the bound
        if left is None:  # the bound reached meanwhile, or the exam closed while this one was scored
            raise BadRequest(403, t("exam.no_more", most=exam["max_submissions"]))
    except BadRequest as exc:
        return error_response(exc)
    return JSONResponse({"exam": exam["exam_id"], "score": row["score"], "total": row["total"],
                         "per_kind": row["per_kind"], "submissions_left": left})


def board(exam: dict[str, Any] | None, submissions: list[dict[str, Any]], students: list[str]) -> dict[str, Any]:
    """The leaderboard: one row per student who joined (or submitted), best score first, then by name.

    A row: ``{"name", "score", "total", "per_kind", "requests", "tokens", "seconds", "submissions", "last"
    (UTC text), "door_requests", "unseen" (``witnessed``), "flag", "reasons"}``, from the student's *last*
    submission (the one that counts); ``flag`` is True when that submission claims more requests than the door
    saw, or holds a tool result or tool name the door never saw (``reasons``: which, in Chinese).  A student
    without a submission has ``score`` None.
    Returns ``{"exam": {"exam_id", "state", "seed", "created", "questions", "kinds", "max_submissions"} or None,
    "rows": [...]}``.
    """
    if exam is None:
        return {"exam": None, "rows": []}
    kinds = list(dict.fromkeys(q["kind"] for q in exam["questions"]))
    by_name: dict[str, list[dict[str, Any]]] = {name: [] for name in students}
    for row in submissions:
        by_name.setdefault(row["name"], []).append(row)
    rows = []
    for name, mine in by_name.items():
        last = mine[-1] if mine else None
        reasons = flag_reasons(last) if last else []
        rows.append({"name": name, "score": last["score"] if last else None, "total": len(exam["questions"]),
                     "per_kind": last["per_kind"] if last else {}, "requests": last["requests"] if last else None,
                     "tokens": last["tokens"] if last else None, "seconds": last["seconds"] if last else None,
                     "submissions": len(mine),
                     "last": datetime.fromtimestamp(last["received"], timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
                     if last else None,
                     "door_requests": last["door_requests"] if last else None,
                     "unseen": last["unseen"] if last else None, "flag": bool(reasons), "reasons": reasons})
    rows.sort(key=lambda r: (r["score"] is None, -(r["score"] or 0), r["name"]))  # not by tokens: those are claimed
    info = {k: exam[k] for k in ("exam_id", "state", "seed", "created", "max_submissions")}
    asked = {kind: sum(q["kind"] == kind for q in exam["questions"]) for kind in kinds}
    return {"exam": {**info, "questions": len(exam["questions"]), "kinds": kinds, "asked": asked}, "rows": rows}


def flag_reasons(row: dict[str, Any]) -> list[str]:
    """Why a stored submission is flagged, in Chinese (``[]``: it is not)."""
    reasons = []
    if row["door_requests"] is not None and row["requests"] > row["door_requests"]:
        reasons.append(t("exam.page_flag", door=row["door_requests"]))
    unseen = row.get("unseen") or {}
    if unseen.get("observations"):
        reasons.append(t("exam.flag_observations", n=unseen["observations"]))
    if unseen.get("tools"):
        reasons.append(t("exam.flag_tools", tools="、".join(unseen["tools"])))
    return reasons


def board_now(request: Any) -> dict[str, Any]:
    desk, course = desk_of(request), request.app.state.course
    exam = desk.store.current()
    return board(exam, desk.store.submissions(exam["exam_id"], answers=False) if exam else [], course.store.students())


def render_board(view: dict[str, Any], scoring: bool) -> str:
    """The leaderboard's HTML for the teacher's page (every value escaped), with the open / close button."""
    e = html.escape
    exam = view["exam"]
    if exam is None:
        return f'<h2>{e(t("exam.page_title"))}</h2><p>{e(t("exam.page_none"))}</p>'
    state = t("exam.page_open") if exam["state"] == "open" else t("exam.page_closed")
    action, label = ("close", t("exam.page_close")) if exam["state"] == "open" else ("open", t("exam.page_open_it"))
    button = (f'<form method="post" action="/teacher/exam"><input type="hidden" name="action" value="{action}">'
              f'<button type="submit">{e(label)}</button></form>') if scoring or action == "close" \
        else f'<p>{e(t("exam.no_scorer"))}</p>'
    kinds = exam["kinds"]
    rows = []
    for row in view["rows"]:
        flag = f'<span class="stuck">⚠ {e("；".join(row["reasons"]))}</span>' if row["flag"] else ""
        kind_cells = "".join(f"<td>{e(_kind_cell(row, k))}</td>" for k in kinds)
        score = "" if row["score"] is None else f'{row["score"]}/{row["total"]}'
        rows.append(f'<tr><th class="name">{e(row["name"])}{flag}</th><td>{e(score)}</td>{kind_cells}'
                    f'<td>{e(_blank(row["requests"]))}</td><td>{e(_blank(row["tokens"]))}</td>'
                    f'<td>{e(_blank(row["seconds"]))}</td><td>{row["submissions"]}</td><td>{e(_blank(row["last"]))}</td></tr>')
    columns = [t("progress_service.page_student"), t("exam.col_score"), *kinds, t("exam.col_requests"),
               t("exam.col_tokens"), t("exam.col_seconds"), t("exam.col_submissions"), t("exam.col_last")]
    head = "".join(f"<th>{e(c)}</th>" for c in columns)
    return (f'<h2 id="exam">{e(t("exam.page_title"))}</h2>'
            f'<p>{e(t("exam.page_line", exam=exam["exam_id"], state=state, questions=exam["questions"], seed=exam["seed"], most=exam["max_submissions"]))}</p>'
            f'{button}<table class="exam"><tr>{head}</tr>{"".join(rows)}</table>'
            f'<p><a href="/teacher/exam.csv">{e(t("exam.page_csv"))}</a></p>')


def _blank(value: object) -> str:
    return "" if value is None else str(value)


def _kind_cell(row: dict[str, Any], kind: str) -> str:
    counts = row["per_kind"].get(kind)
    return f"{counts[0]}/{counts[1]}" if counts else ""


def render_board_csv(view: dict[str, Any]) -> str:
    """The leaderboard for grading: one row per student (``csv_safe`` on every cell); UTF-8 with a BOM when sent."""
    out = io.StringIO()
    writer = csv.writer(out)
    exam = view["exam"]
    kinds = exam["kinds"] if exam else []
    asked = exam["asked"] if exam else {}
    writer.writerow([csv_safe(c) for c in [t("progress_service.page_student"), "score", "total",
                                           *(f"{k} (of {asked.get(k, 0)})" for k in kinds), "requests", "tokens",
                                           "seconds", "submissions", "last", "door_requests", "flag"]])
    for row in view["rows"]:  # a kind's cell is its passed count: "1/2" would become a date in a spreadsheet
        cells = [row["name"], _blank(row["score"]), row["total"],
                 *(_blank((row["per_kind"].get(k) or [None])[0]) for k in kinds),
                 _blank(row["requests"]), _blank(row["tokens"]), _blank(row["seconds"]), row["submissions"],
                 _blank(row["last"]), _blank(row["door_requests"]), "；".join(row["reasons"])]
        writer.writerow([csv_safe(str(c)) for c in cells])
    return out.getvalue()


async def board_json(request: Any):
    """``GET /api/exam/board``: the leaderboard as JSON (the teacher)."""
    from starlette.responses import JSONResponse

    if (refused := request.app.state.course.guard.refusal(request)) is not None:
        return refused
    return JSONResponse(await run_blocking(board_now, request), headers={"Cache-Control": "no-store"})


async def board_csv(request: Any):
    """``GET /teacher/exam.csv``: the leaderboard as a spreadsheet (the teacher)."""
    from starlette.responses import Response

    if (refused := request.app.state.course.guard.refusal(request)) is not None:
        return refused
    view = await run_blocking(board_now, request)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M")
    return Response(render_board_csv(view).encode("utf-8-sig"), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="capstone-{stamp}.csv"'})


async def set_state(request: Any):
    """``POST /teacher/exam``: open or close the current exam (``action``: a form field or JSON)."""
    from starlette.responses import JSONResponse, RedirectResponse

    desk = desk_of(request)
    if (refused := request.app.state.course.guard.refusal(request)) is not None:
        return refused
    try:
        fields, as_json = await read_fields(request, ("action",))  # the teacher's form, or JSON from a script
        action = fields["action"]
        if action not in ("open", "close"):
            raise BadRequest(400, t("exam.bad_action"))
        exam = await run_blocking(desk.store.current)
        if exam is None:
            raise BadRequest(404, t("exam.none"))
        if action == "open" and desk.scorer is None:
            raise BadRequest(503, t("exam.no_scorer"))
        if action == "open" and exam["state"] != "open" and desk.door is not None:  # counted from the opening on
            desk.marks = {name: desk.door.seen(name)
                          for name in await run_blocking(request.app.state.course.store.students)}
        await run_blocking(desk.store.set_state, exam["exam_id"], "open" if action == "open" else "closed", desk.clock())
    except BadRequest as exc:
        return error_response(exc)
    if as_json:
        return JSONResponse({"exam": exam["exam_id"], "state": "open" if action == "open" else "closed"})
    return RedirectResponse("/teacher#exam", status_code=303)


def routes() -> list:
    """The exam's routes (``progress_service.make_app``)."""
    from starlette.routing import Route

    return [Route("/api/exam", get_exam), Route("/api/exam/submit", submit, methods=["POST"]),
            Route("/api/exam/board", board_json), Route("/teacher/exam.csv", board_csv),
            Route("/teacher/exam", set_state, methods=["POST"])]
