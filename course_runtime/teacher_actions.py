"""The teacher's actions on names: release a name's token, rename a student, merge two names.

Routes for the teacher's progress service (``progress_service.make_app`` adds ``routes()``), each a
module-level Starlette handler that reads ``request.app.state.course`` (``progress_service.ServiceState``):

* ``POST /teacher/release`` ``{"name"}``: forget the name's student token (``ProgressStore.release``):
  the results stay; the student joins again under the name with a fresh token
  (``python course.py join CODE --name NAME --new-token``) - a shared computer account, a lost token.
* ``POST /teacher/rename`` ``{"from", "to"}``: the student and all its results get the new name
  (``ProgressStore.rename``); ``to`` follows ``progress_store.valid_name`` and must not look like
  another student's name (its skeleton).
* ``POST /teacher/merge`` ``{"from", "into"}``: every result of ``from`` moves to ``into``, and
  ``from`` is removed (``ProgressStore.merge``) - one student who joined under two names.

Every route is guarded by ``TeacherGuard.refusal`` (this computer only unless ``--teacher-anywhere``,
the service's own origin, the teacher key or the login cookie).  A JSON body (``web_requests.body_json``)
is answered with JSON: ``{"message": the Chinese sentence, ...}``, or ``{"error": ...}`` with its status
(400 a name missing or not allowed, 404 no such student, 409 the new name is taken).  A form from the
teacher's page (``progress_page.render_actions``, ``application/x-www-form-urlencoded``) gets a small
Chinese page with the sentence and a link back to ``/teacher``.
"""

from __future__ import annotations

import html
from typing import Any, Callable
from urllib.parse import parse_qs

from .texts import t
from .progress_store import valid_name
from .web_requests import BadRequest, body_json, read_body, run_blocking

MAX_FORM = 4096  # bytes of a form or JSON body to these routes


async def read_fields(request: Any, names: tuple[str, ...]) -> tuple[dict[str, Any], bool]:
    """The body's ``names`` as ``({name: value}, as_json)``: JSON when the request says so, else a form.

    Raises:
        BadRequest: too big (413), not JSON (400), not an object or a name missing (400).
    """
    as_json = request.headers.get("content-type", "").startswith("application/json")
    if as_json:
        body = await body_json(request, MAX_FORM)
    else:
        form = parse_qs((await read_body(request, MAX_FORM)).decode("utf-8", errors="replace"))
        body = {k: v[0].strip() for k, v in form.items() if v}
    if not isinstance(body, dict) or not all(isinstance(body.get(n), str) and body[n].strip() for n in names):
        raise BadRequest(400, t("teacher_actions.bad_body", fields=", ".join(names)))
    return {n: body[n] for n in names}, as_json


def _answer(message: str, as_json: bool, status: int = 200, **extra: Any):
    """The Chinese ``message`` as JSON (``{"message", **extra}`` or ``{"error"}``) or as a page linking back."""
    from starlette.responses import HTMLResponse, JSONResponse

    if as_json:
        return JSONResponse({"message": message, **extra} if status == 200 else {"error": message},
                            status_code=status)
    e = html.escape
    return HTMLResponse(f'<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">'
                        f'<title>{e(t("progress_service.page_title"))}</title></head>'
                        f'<body style="font-family: sans-serif; font-size: 20px; margin: 2em">'
                        f'<p>{e(message)}</p><p><a href="/teacher">{e(t("teacher_actions.back"))}</a></p></body></html>',
                        status_code=status, headers={"Cache-Control": "no-store"})


async def _act(request: Any, names: tuple[str, ...], action: Callable[[Any, dict[str, Any]], Any]):
    """The shared steps: the guard, the body, ``action(store, fields)`` in a worker thread -> ``(message, extra)``."""

    state = request.app.state.course
    as_json = request.headers.get("content-type", "").startswith("application/json")
    if (refused := state.guard.refusal(request, page=not as_json)) is not None:
        return refused
    try:
        fields, as_json = await read_fields(request, names)
        message, extra = await run_blocking(action, state.store, fields)
    except BadRequest as exc:
        return _answer(exc.message, as_json, exc.status)
    if state.door is not None:
        state.door.forget_names()  # a released or merged token no longer reaches the model; a new name shows
    return _answer(message, as_json, **extra)


def _release(store: Any, fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    name = store.release(fields["name"].strip())
    return t("teacher_actions.released", name=name), {"name": name}


def _rename(store: Any, fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:

    old = fields["from"].strip()
    new = store.rename(old, valid_name(fields["to"]))
    return t("teacher_actions.renamed", old=old, new=new), {"name": new}


def _merge(store: Any, fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    source, target, moved = store.merge(fields["from"].strip(), fields["into"].strip())
    return t("teacher_actions.merged", source=source, target=target, moved=moved), {"name": target, "moved": moved}


async def release(request: Any):
    """``POST /teacher/release``: forget a name's token (the module docstring)."""
    return await _act(request, ("name",), _release)


async def rename(request: Any):
    """``POST /teacher/rename``: a student's new name (the module docstring)."""
    return await _act(request, ("from", "to"), _rename)


async def merge(request: Any):
    """``POST /teacher/merge``: one name's results into another's (the module docstring)."""
    return await _act(request, ("from", "into"), _merge)


def routes() -> list:
    """The teacher's actions as Starlette ``Route``s, for ``progress_service.make_app``'s route list."""
    from starlette.routing import Route

    return [Route("/teacher/release", release, methods=["POST"]),
            Route("/teacher/rename", rename, methods=["POST"]),
            Route("/teacher/merge", merge, methods=["POST"])]
