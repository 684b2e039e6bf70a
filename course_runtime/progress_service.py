"""The teacher's progress service: every student's checker results, on one page.

Not taught in a notebook: ``python course.py serve`` starts it beside the
class model server (``classroom.serve``; the teacher's guide, 「课堂进度页」), and the
students' checkers post to it (``progress.send_pending``).

Built on Starlette and uvicorn (both installed with the pinned ``mcp``
package) and ``sqlite3``: every result is written to ``class-progress.sqlite3``
at the project root (git-ignored) before it is acknowledged, so a restart
loses nothing, and its random ``id`` is the primary key, so a result sent
twice is stored once.

Who may do what:

* ``POST /api/results`` - a student who has joined: their student token as
  ``Authorization: Bearer`` and in the body, with their display name (or the
  class key, which only the teacher's computer has: the teacher's own scripts).
  ``/api/join`` tied the name to that token (only its SHA-256 is stored);
  a token that never joined is refused (401), so a student's post never creates a student:
  one student, one identity (``ProgressStore.claim``) - another token under
  the same name, or under a name that only looks the same (its TR39 skeleton,
  ``name_skeleton``), is refused (409), and so is a second name for a token
  that has one.  Bodies over ``MAX_BODY`` bytes, more than ``MAX_RESULTS``
  results, names that are not 1-``MAX_NAME`` visible characters once
  NFKC-normalised (``valid_name``: no ``<>&"'\\``, nothing hidden) are
  refused with a Chinese ``error``.  The results are judged
  one by one: one whose fields are not what ``progress.FIELDS`` says is
  refused alone (``refused``: its place, its id when it has one, why), the
  others are kept; one for an exercise this copy of the course does not
  know (a well-formed ``"NN-k"`` missing from ``progress.EXERCISES``: the
  teacher has not pulled a new exercise yet) is kept and named in
  ``unknown``, and the page shows it in a column of its own, marked.
* ``POST /api/mine`` - a student reads back their own results (name + token), nobody else's;
  it only reads (``ProgressStore.owner``): an unknown name is a 404, never a new student.
* ``POST /api/join`` - ``python course.py join CODE`` (``class_code``): the
  class code's secret ties the student's name to their token and buys the
  ``.env`` lines (the model's URL - this service's door, ``/v1`` - and this
  service's URL; no key).  At most ``JOIN_FAILURES_PER_MINUTE`` wrong secrets a minute
  from one address are answered (429 after that; other addresses are not held
  up), see ``class_code`` for the arithmetic.
* ``GET /teacher`` (the page), ``GET /teacher.csv``, ``GET /api/class``,
  ``GET``/``POST /login`` - the teacher, on this computer only (a loopback
  client; any other address gets 403 with a Chinese sentence, unless the
  service was started with ``--teacher-anywhere``), with the teacher key
  (``keys.teacher_key``, ``.teacher-key``, never shown to students): as
  ``Authorization: Bearer`` (scripts), or by logging in: ``POST /login``
  checks the key and sets a cookie holding a random session value (never the
  key; kept in memory for ``SESSION_S``), ``HttpOnly``, ``SameSite=Strict``,
  ``Path=/``, named ``course_teacher_<port>`` (browsers send a 127.0.0.1 cookie
  to every port).  At most ``LOGIN_ATTEMPTS_PER_MINUTE`` wrong keys a minute
  from one address (429 after that).
* ``POST /v1/chat/completions``, ``GET /v1/models``, ``POST /tokenize``,
  ``POST /apply-template`` - a student who has joined, with their token: the
  door to the class model (``class_door``: the model servers' keys added there, one
  request in flight per student, the quietest first, a token budget, the
  replies to temperature-0 requests remembered unless ``--no-reply-memory``).
* ``POST /teacher/budget`` - the teacher (as the page): the door's token budget per student per minute.
* ``GET /api/exam``, ``POST /api/exam/submit`` (a student, with their token), ``POST /teacher/exam``,
  ``GET /api/exam/board``, ``GET /teacher/exam.csv`` (the teacher) - the capstone's hidden exam
  (``exam_desk``), scored by the function ``make_app`` is handed (``exam_scorer``).
* ``GET /health`` - anyone: ``{"status": "ok"}``.

The limits, each answered with a Chinese ``error``, never a traceback:

* ``RESULTS_PER_MINUTE`` results a minute per student token (429; the
  student's checker keeps them and sends them later).
* A request's JSON nests at most ``MAX_DEPTH`` deep (400, counted before it
  is parsed); a string JSON can hold but UTF-8 cannot (a lone surrogate,
  ``"\\ud800"``) is a 400.
* Every limit is checked and counted in one step under a lock (``RateLimit``),
  the join and login limits before the request's body is read, so many
  requests at once cannot slip past them.
* Half-open connections (a slowloris): a request's headers and body must have
  arrived ``READ_DEADLINE_S`` after its connection opened (or its last answer
  went), and one address holds at most ``MAX_CONNECTIONS_PER_ADDRESS``
  connections (``guarded_protocol``: uvicorn's own ``timeout_keep_alive`` starts
  only after an answer).
* A database another program holds (DB Browser with an edit not yet written):
  SQLite waits ``BUSY_TIMEOUT_S``, then 503.
* The CSV export puts a ``'`` wherever a spreadsheet would start a formula,
  under a ``,`` or a ``;`` separator (``csv_safe``).

The page lists students × exercises (✓n passed after n attempts, ✗n failed n
times, blank not reached: ✓ and ✗ are in every system's fonts, the emoji are
not), who seems stuck (``STUCK_FAILURES`` failures in a row on one
exercise, or nothing for ``QUIET_S`` while the class goes on), and the model
server's own state from its ``/metrics`` (llama-server's Prometheus counters:
requests being decoded, requests waiting, generation speed), each student's
use of the model through the door (``render_use``) with the budget form, and
reloads itself every ``REFRESH_S`` seconds.  Every name and field is put into the page
with ``html.escape``.
"""


from __future__ import annotations

import argparse
import re
import sqlite3
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs


from . import exam_desk, teacher_actions
from .class_door import ClassDoor
from .exam_store import ExamStore
from .fair_share import DEFAULT_BUDGET
from .progress import EXERCISE_ID, EXERCISES, FIELDS
from .progress_page import class_view, login_page, model_state, render_csv, render_page, unknown_exercises
from .progress_store import DB_FILE, ProgressStore, token_hash, valid_name
from .teacher_guard import SESSION_S, TeacherGuard
from .texts import t
from .web_requests import BadRequest, RateLimit, address, bearer, body_json, error_response, read_body, run_blocking
from .web_server import ProgressService

DEFAULT_PORT = 8767  # the class door and the progress page, beside the class model server's 8766
MAX_RESULTS = 200  # results in one post
JOIN_FAILURES_PER_MINUTE = 10  # wrong class codes from one address (others are never held up)
RESULTS_PER_MINUTE = 240  # results one student token may post (an empty post counts as one)
MAX_UNKNOWN_EXERCISES = 20  # exercises this copy of the course does not know, per student (a teacher's new ones)
DEFAULT_MODEL_SLOTS = 4  # the class model server's slots when not told (classroom.DEFAULT_SLOTS)
_HEX32 = re.compile(r"[0-9a-f]{32}")
_HINT = re.compile(r"[0-9a-z_.]{0,80}")


def valid_result(raw: object) -> dict[str, Any]:
    """One result checked against ``progress.FIELDS``; returns it with exactly those keys.

    The exercise needs only the form ``"NN-k"``: one that this copy of the course does not know
    (``progress.EXERCISES``) is still a result (``unknown_exercises`` names it).

    Raises:
        BadRequest: a key is missing or extra, or a value is not the type and form ``progress.record`` writes.
    """
    if not isinstance(raw, dict) or set(raw) != set(FIELDS):
        raise BadRequest(400, t("progress_service.result_fields", fields=", ".join(FIELDS)))
    ok = (isinstance(raw["id"], str) and _HEX32.fullmatch(raw["id"])
          and isinstance(raw["exercise"], str) and EXERCISE_ID.fullmatch(raw["exercise"])
          and isinstance(raw["passed"], bool)
          and isinstance(raw["hint"], str) and _HINT.fullmatch(raw["hint"])
          and type(raw["attempt"]) is int and 1 <= raw["attempt"] <= 100_000
          and isinstance(raw["time"], str) and len(raw["time"]) <= 40 and _parse_time(raw["time"]) is not None)
    if not ok:
        raise BadRequest(400, t("progress_service.result_value"))
    return {k: raw[k] for k in FIELDS}


def sort_results(raw: list) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The results of one post, judged one by one (``valid_result``): ``(kept, refused)``.

    ``refused`` has one ``{"index": place in the post, "id": its id or None, "exercise": its
    exercise or None, "error": the Chinese reason}`` per refused result; id and exercise are
    echoed only when they have their right form, so nothing a client sent is reflected raw.
    """
    kept, refused = [], []
    for index, item in enumerate(raw):
        try:
            kept.append(valid_result(item))
        except BadRequest as exc:
            given = item if isinstance(item, dict) else {}
            rid, exercise = given.get("id"), given.get("exercise")
            refused.append({"index": index,
                            "id": rid if isinstance(rid, str) and _HEX32.fullmatch(rid) else None,
                            "exercise": exercise if isinstance(exercise, str) and EXERCISE_ID.fullmatch(exercise)
                            else None,
                            "error": exc.message})
    return kept, refused


def _parse_time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)  # Python 3.11+ reads the trailing "Z" progress.record writes
    except ValueError:
        return None


# --------------------------------------------------------------------------- the web application


@dataclass
class ServiceState:
    """What every handler needs, kept in ``app.state.course`` (``make_app`` builds it).

    store: the results.  class_key: the class model server's key (the teacher's own scripts may post
    results with it).  guard: the teacher's routes (``TeacherGuard``).  join_secret: the class code's
    secret (None: no joining).  door: the students' door to the model (``ClassDoor``; None: no model).
    clock: Unix seconds.  join_limit / results_limit: wrong class codes per address, results per token.
    """

    store: ProgressStore
    class_key: str
    guard: TeacherGuard
    join_secret: str | None
    door: ClassDoor | None
    clock: Callable[[], float]
    join_limit: RateLimit
    results_limit: RateLimit


def state_of(request: Any) -> ServiceState:
    return request.app.state.course


async def who_posts(request: Any) -> bool:
    """Who may post or read results, from the headers alone (before a byte of the body is read): the class
    key (the teacher's own scripts; returns True) or a student token that has joined (returns False).

    Raises:
        BadRequest (401): neither.
    """
    import secrets

    state = state_of(request)
    given = bearer(request)
    if secrets.compare_digest(given.encode(), state.class_key.encode()):
        return True
    digest = token_hash(given)
    if digest is not None and await run_blocking(state.store.student_of, digest) is not None:
        return False
    raise BadRequest(401, t("progress_service.not_joined"))


def same_token(request: Any, token: object, teacher: bool) -> None:
    """The body's ``token`` must be the bearer's own (the class key may post for anyone).

    Raises:
        BadRequest (401): another token in the body than in the header.
    """
    import secrets

    if not teacher and not (isinstance(token, str) and secrets.compare_digest(bearer(request), token)):
        raise BadRequest(401, t("progress_service.not_joined"))


async def post_results(request: Any):
    """``POST /api/results``: a student's checker results (the module docstring)."""
    from starlette.responses import JSONResponse

    state = state_of(request)
    try:
        teacher = await who_posts(request)  # before the body: nobody unknown makes the service read or parse
        body = await body_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("results"), list):
            raise BadRequest(400, t("progress_service.result_fields", fields=", ".join(FIELDS)))
        if len(body["results"]) > MAX_RESULTS:
            raise BadRequest(413, t("progress_service.too_many", most=MAX_RESULTS))
        token = body.get("token")
        same_token(request, token, teacher)
        name = valid_name(body.get("name"))
        digest = token_hash(token) if isinstance(token, str) else None
        results, refused = _bound_results(body["results"], digest)
        if digest is not None and not state.results_limit.take(digest, max(1, len(body["results"]))):
            raise BadRequest(429, t("progress_service.results_slow", most=RESULTS_PER_MINUTE))
        name = await run_blocking(state.store.claim, name, token)
        results, refused = results_within_bounds(results, refused, await run_blocking(state.store.exercises_of, name),
                                                  body["results"])
        new = await run_blocking(state.store.add, name, results)
    except BadRequest as exc:
        return error_response(exc)
    return JSONResponse({"stored": new, "ids": [r["id"] for r in results], "refused": refused,
                         "unknown": unknown_exercises(results)})


def results_within_bounds(results: list[dict[str, Any]], refused: list[dict[str, Any]], stored: set[str],
                          raw: list) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(kept, refused)`` with a result for an exercise this course does not know refused once the student
    already has ``MAX_UNKNOWN_EXERCISES`` such exercises (``stored``: the exercises they have results for): a
    teacher's few new exercises pass, 10,000 made-up ids do not become 10,000 columns of the page.
    ``raw``: the post's results as sent (a refusal names its place there)."""
    place = {item.get("id"): i for i, item in enumerate(raw) if isinstance(item, dict) and isinstance(item.get("id"), str)}
    unknown = {e for e in stored if e not in EXERCISES}
    kept, more = [], []
    for result in results:
        exercise = result["exercise"]
        if exercise not in EXERCISES and exercise not in unknown:
            if len(unknown) >= MAX_UNKNOWN_EXERCISES:
                more.append({"index": place.get(result["id"]), "id": result["id"], "exercise": exercise,
                             "error": t("progress_service.too_many_unknown", most=MAX_UNKNOWN_EXERCISES)})
                continue
            unknown.add(exercise)
        kept.append(result)
    return kept, refused + more


def _bound_results(raw: list, digest: str | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``sort_results``, and a result recorded under another student token than the poster's (``digest``)
    refused too (``progress_store.unbind``: a classmate's copied course folder)."""
    from .progress_store import unbind

    results, refused = [], []
    for index, item in enumerate(raw):
        item, other_token = unbind(item, digest)
        kept, wrong = sort_results([item])
        if kept and other_token:
            kept, wrong = [], [{"index": 0, "id": kept[0]["id"], "exercise": kept[0]["exercise"], "error": other_token}]
        results += kept
        refused += [{**r, "index": index} for r in wrong]
    return results, refused


async def post_mine(request: Any):
    """``POST /api/mine``: a student reads back their own results (name + token), nobody else's."""
    from starlette.responses import JSONResponse

    state = state_of(request)
    try:
        teacher = await who_posts(request)
        body = await body_json(request)
        if not isinstance(body, dict):
            raise BadRequest(400, t("progress_service.not_json"))
        same_token(request, body.get("token"), teacher)
        name = await run_blocking(state.store.owner, valid_name(body.get("name")), body.get("token"))
        mine = [{k: r[k] for k in FIELDS} for r in await run_blocking(state.store.results, name)]
    except BadRequest as exc:
        return error_response(exc)
    return JSONResponse({"name": name, "results": mine})


async def post_join(request: Any):
    """``POST /api/join``: the class code's secret ties a name to a student token (``class_code``)."""
    import secrets

    from starlette.responses import JSONResponse

    state = state_of(request)
    try:
        if state.join_secret is None:
            raise BadRequest(404, t("progress_service.join_off"))
        if not state.join_limit.take(address(request)):  # counted before the body is read: no race
            raise BadRequest(429, t("progress_service.join_slow"))
        body = await body_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("secret"), str) \
                or not secrets.compare_digest(body["secret"].encode(), state.join_secret.encode()):
            raise BadRequest(403, t("progress_service.join_wrong"))
        state.join_limit.give_back(address(request))  # the right secret is not a guess
        name = await run_blocking(state.store.claim, valid_name(body.get("name")), body.get("token"), True,
                                  address(request))  # at most JOINS_PER_ADDRESS new names per address
    except BadRequest as exc:
        return error_response(exc)
    here = f"http://{request.url.hostname or '127.0.0.1'}:{request.url.port}"
    return JSONResponse({  # the model through this service's door (class_door): no class key
        "COURSE_PROVIDER": "classroom",
        "COURSE_BASE_URL": here + "/v1",
        "COURSE_PROGRESS_URL": here,
        "COURSE_STUDENT_NAME": name,
    })


def model_use(state: ServiceState) -> dict[str, Any] | None:
    """The door's counts for the page and ``/api/class`` (``ClassDoor.snapshot``), or None without a model."""
    return state.door.snapshot() if state.door is not None else None


def _model_state(state: ServiceState) -> dict[str, Any]:
    door = state.door
    if door is None:
        return model_state(None, None)
    root, key = door.metrics_source()
    return model_state(root, key)


async def page(request: Any):
    """``GET /teacher``: the class at a glance (``progress_page.render_page``)."""
    from starlette.responses import HTMLResponse

    state = state_of(request)
    if (refused := state.guard.refusal(request, page=True)) is not None:
        return refused
    now = state.clock()
    view = await run_blocking(_view, state)
    model = await run_blocking(_model_state, state)
    desk = request.app.state.exam
    exam = exam_desk.render_board(await run_blocking(exam_desk.board_now, request), desk.scorer is not None)
    return HTMLResponse(render_page(view, model, now, model_use(state), exam),
                        headers={"Cache-Control": "no-store"})


def _view(state: ServiceState) -> dict[str, Any]:
    """``class_view`` of everything stored now, with where each name joined from (same-computer names marked)."""
    store = state.store
    return class_view(store.results(), store.students(), state.clock(), joined_from=store.joined_from())


async def class_json(request: Any):
    """``GET /api/class``: what the page shows, as JSON (the teacher's scripts)."""
    from starlette.responses import JSONResponse

    state = state_of(request)
    if (refused := state.guard.refusal(request)) is not None:
        return refused
    view = await run_blocking(_view, state)
    return JSONResponse({**view, "model": await run_blocking(_model_state, state), "model_use": model_use(state)},
                        headers={"Cache-Control": "no-store"})


async def set_budget(request: Any):
    """``POST /teacher/budget``: the teacher changes the door's token budget (a form's ``budget``, or JSON)."""
    import json

    from starlette.responses import JSONResponse, RedirectResponse

    state = state_of(request)
    if (refused := state.guard.refusal(request)) is not None:
        return refused
    try:
        data = await read_body(request, 4096)
    except BadRequest as exc:
        return error_response(exc)
    as_json = request.headers.get("content-type", "").startswith("application/json")
    if as_json:
        try:
            value = json.loads(data).get("budget")
        except (ValueError, AttributeError, RecursionError):
            value = None
    else:
        value = parse_qs(data.decode("utf-8", errors="replace")).get("budget", [""])[0].strip()
    try:
        tokens = int(value) if type(value) is not bool else -1
    except (TypeError, ValueError, OverflowError):
        tokens = -1
    if state.door is None or not 0 <= tokens <= 10_000_000:
        return error_response(BadRequest(400, t("progress_service.budget_bad")))
    state.door.share.budget = tokens
    if as_json:
        return JSONResponse({"budget": state.door.share.budget})
    return RedirectResponse("/teacher", status_code=303)


async def export(request: Any):
    """``GET /teacher.csv``: the page as a spreadsheet (UTF-8 with a BOM, formulas defused: ``csv_safe``)."""
    from starlette.responses import Response

    state = state_of(request)
    if (refused := state.guard.refusal(request)) is not None:
        return refused
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M")
    view = await run_blocking(_view, state)
    return Response(render_csv(view).encode("utf-8-sig"), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="class-progress-{stamp}.csv"'})


async def login_form(request: Any):
    """``GET /login``: the form that asks for the teacher key."""
    from starlette.responses import HTMLResponse

    state = state_of(request)
    if (refused := state.guard.forbidden(request, page=True)) is not None:
        return refused
    return HTMLResponse(login_page(request.query_params.get("wrong") == "1"))


async def login(request: Any):
    """``POST /login``: the teacher key typed in; a session cookie when it is right (``TeacherGuard.log_in``)."""
    from starlette.responses import HTMLResponse, RedirectResponse

    state = state_of(request)
    if (refused := state.guard.forbidden(request, page=True)) is not None:
        return refused
    try:
        data = await read_body(request, 4096)
    except BadRequest as exc:
        return error_response(exc)
    given = parse_qs(data.decode("utf-8", errors="replace")).get("key", [""])[0].strip()
    try:
        session = state.guard.log_in(request, given)
    except PermissionError as exc:
        return HTMLResponse(login_page(False, str(exc)), status_code=429)
    if session is None:
        return RedirectResponse("/login?wrong=1", status_code=303)
    response = RedirectResponse("/teacher", status_code=303)
    response.set_cookie(state.guard.cookie_name(request), session, max_age=SESSION_S, path="/", httponly=True,
                        samesite="strict")
    return response


async def health(request: Any):
    """``GET /health``: anyone; ``{"status": "ok"}``."""
    from starlette.responses import JSONResponse

    return JSONResponse({"status": "ok"})


async def to_teacher(request: Any):
    from starlette.responses import RedirectResponse

    return RedirectResponse("/teacher", status_code=303)


async def database_busy(request: Any, exc: Exception):
    """SQLite's "database is locked" after ``busy_timeout`` (another program holds the file): 503, in Chinese."""
    from starlette.responses import JSONResponse

    if not isinstance(exc, sqlite3.OperationalError) or not re.search(r"locked|busy", str(exc)):
        raise exc  # any other database error: Starlette's plain 500 (the traceback only in the teacher's window)
    return JSONResponse({"error": t("progress_service.busy")}, status_code=503, headers={"Retry-After": "5"})


def make_app(store: ProgressStore, class_key: str, teacher_key: str, *, model_root: str | None = None,
             join_secret: str | None = None,
             clock: Callable[[], float] = time.time, teacher_anywhere: bool = False,
             model_slots: int | None = None, budget: int = DEFAULT_BUDGET,
             reply_memory: bool = True, upstreams: Any = None, exam_scorer: exam_desk.Scorer | None = None):
    """The Starlette application (see the module docstring for each route).

    Args:
        store: where results live.  class_key: the class model server's key (kept on this computer; the
            teacher's own scripts may post results with it).  teacher_key: what the page needs.
        model_root: the class model server as this machine reaches it (``http://127.0.0.1:8766``), the one
            upstream of the students' door (``class_door``, under ``/v1``) when ``upstreams`` is None.
            None and no ``upstreams``: no model.
        join_secret: the class code's secret (20 hex digits, ``class_code``); None = no joining.
        clock: Unix seconds (tests move it).
        teacher_anywhere: the teacher's routes answer every address, not only this computer's (``--teacher-anywhere``).
        model_slots: requests ``model_root`` answers at once (the class model server's ``--parallel``;
            default ``classroom.DEFAULT_SLOTS``).  budget: tokens per student per minute (0 = none; ``fair_share``).
        reply_memory: the door answers a temperature-0 request it has seen before from memory
            (``reply_memory.ReplyCache``); False (``serve --no-reply-memory``): every request reaches the model.
        upstreams: the model servers behind the door (``upstreams.UpstreamPool``), instead of ``model_root``.
        exam_scorer: scores one capstone answer against its key (``exam_desk.Scorer``; ``course.py serve`` hands
            in ``course_lib.capstone.score_answer``); None: the exam cannot be opened.
    The app's ``state.course`` is the ``ServiceState``; ``state.share`` the door's ``fair_share.FairShare``
    and ``state.memory`` its ``reply_memory.ReplyCache`` (None without a model, or with the memory off).
    """
    from starlette.applications import Starlette
    from starlette.routing import Route

    door = None
    if upstreams is None and model_root:
        from .upstreams import Upstream, UpstreamPool

        upstreams = UpstreamPool([Upstream(label="llama-server", root=model_root, key=class_key,
                                           slots=model_slots or DEFAULT_MODEL_SLOTS, kind="llama-server")])
    if upstreams is not None:
        door = ClassDoor(upstreams, store.student_of, budget=budget, reply_memory=reply_memory)
    state = ServiceState(store=store, class_key=class_key, guard=TeacherGuard(teacher_key, teacher_anywhere, clock),
                         join_secret=join_secret, door=door, clock=clock,
                         join_limit=RateLimit(JOIN_FAILURES_PER_MINUTE, clock=clock),
                         results_limit=RateLimit(RESULTS_PER_MINUTE, clock=clock))
    desk = exam_desk.ExamDesk(ExamStore(store.path), exam_scorer, door, clock)
    routes = [
        *(door.routes() if door is not None else []),
        *teacher_actions.routes(),
        *exam_desk.routes(),
        Route("/teacher/budget", set_budget, methods=["POST"]),
        Route("/api/results", post_results, methods=["POST"]),
        Route("/api/mine", post_mine, methods=["POST"]),
        Route("/api/join", post_join, methods=["POST"]),
        Route("/api/class", class_json),
        Route("/teacher", page),
        Route("/teacher.csv", export),
        Route("/login", login_form),
        Route("/login", login, methods=["POST"]),
        Route("/health", health),
        Route("/", to_teacher),
    ]
    app = Starlette(routes=routes, exception_handlers={sqlite3.OperationalError: database_busy})
    app.state.course = state
    app.state.exam = desk
    app.state.share = door.share if door is not None else None
    app.state.memory = door.memory if door is not None else None
    return app


def main(argv: list[str] | None = None) -> int:
    """``python -m course_runtime.progress_service``: the service alone (tests, or a teacher without the model server).

    Options: ``--host``, ``--port``, ``--db`` (the SQLite file), ``--class-key-file``, ``--teacher-key-file``,
    ``--model-root`` (a class model server to show), ``--join-secret``, ``--new-key`` (new class and teacher keys),
    ``--teacher-anywhere`` (the teacher's routes for every address, not only this computer's),
    ``--no-reply-memory`` (the door sends every request to the model; ``reply_memory.ReplyCache``).
    """
    from .keys import KEY_FILE, TEACHER_KEY_FILE, KeyFileError, class_key, teacher_key


    parser = argparse.ArgumentParser(prog="python -m course_runtime.progress_service",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--db", type=Path, default=DB_FILE)
    parser.add_argument("--class-key-file", type=Path, default=KEY_FILE)
    parser.add_argument("--teacher-key-file", type=Path, default=TEACHER_KEY_FILE)
    parser.add_argument("--model-root", default=None)
    parser.add_argument("--join-secret", default=None)
    parser.add_argument("--new-key", action="store_true", help="make new class and teacher keys")
    parser.add_argument("--teacher-anywhere", action="store_true",
                        help="answer the teacher's routes from every address, not only this computer")
    parser.add_argument("--no-reply-memory", dest="reply_memory", action="store_false",
                        help="the door sends every request to the model (default: a temperature-0 request it has "
                             "answered before is answered from memory)")
    opts = parser.parse_args(argv)
    try:
        keys = class_key(opts.class_key_file, new=opts.new_key), teacher_key(opts.teacher_key_file, new=opts.new_key)
    except KeyFileError as exc:
        print(t("providers.error_line", error=exc), file=sys.stderr)
        return 1
    store = ProgressStore(opts.db)
    app = make_app(store, *keys, model_root=opts.model_root,
                   join_secret=opts.join_secret, teacher_anywhere=opts.teacher_anywhere,
                   reply_memory=opts.reply_memory)
    ProgressService(app, opts.host, opts.port).server.run()  # in this thread: uvicorn handles Ctrl-C
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
