"""What the teacher sees: the class at a glance, the model servers' state, the page, the CSV and the login form.

Pure functions of the stored results (``progress_store``) and the door's counts (``class_door``),
used by ``progress_service``'s handlers.  The page lists students × exercises (✓n passed after n
attempts, ✗n failed n times, blank not reached: ✓ and ✗ are in every system's fonts, the emoji are
not), who seems stuck (``STUCK_FAILURES`` failures in a row on one exercise, or nothing for
``QUIET_S`` while the class goes on), the model server's own state from its ``/metrics``
(llama-server's Prometheus counters), each student's use of the model through the door
(``render_use``) with the budget form, the students whose names joined from one address
(``same_computer``), the forms of the teacher's actions (``render_actions``, ``teacher_actions``),
and reloads itself every ``REFRESH_S`` seconds.  Every
name and field is put into the page with ``html.escape``.  The CSV export puts a ``'`` wherever a
spreadsheet would start a formula (``csv_safe``).
"""

from __future__ import annotations

import csv
import html
import io
import re
import time
from typing import Any

from . import local_server
from .progress import EXERCISES, exercise_order
from .texts import t

STUCK_FAILURES = 3  # failures in a row on one exercise, nothing passed since
QUIET_S = 10 * 60  # no result for this long while others post: shown as quiet
REFRESH_S = 5
_CSV_FORMULA = re.compile(r"(^|[,;])( *)(?=[=+\-@\t\r])")  # where a cell starts under a "," or a ";" separator


def unknown_exercises(results: list[dict[str, Any]]) -> list[str]:
    """The exercises of ``results`` that this copy of the course does not know (not in ``EXERCISES``), sorted."""
    return sorted({r["exercise"] for r in results if r["exercise"] not in EXERCISES}, key=exercise_order)


def csv_safe(cell: str) -> str:
    """``cell`` with a ``'`` wherever a spreadsheet would start a formula (OWASP "CSV injection").

    That is at the start and after every ``,`` or ``;`` (Excel in some locales splits on ``;``, and
    a quoted cell is split by a program that ignores quotes), before ``= + - @`` or a tab or CR,
    spaces between allowed: ``王;=HYPERLINK(...)`` → ``王;'=HYPERLINK(...)``.
    """
    return _CSV_FORMULA.sub(lambda m: m.group(1) + m.group(2) + "'", cell)



# --------------------------------------------------------------------------- the class at a glance


def same_computer(joined_from: dict[str, str | None]) -> dict[str, list[str]]:
    """For each name, the other names that joined from its address (``ProgressStore.joined_from``), in order.

    ``{"Ann": "10.0.0.7", "Bo": "10.0.0.7", "Cy": "10.0.0.8", "Di": None}`` ->
    ``{"Ann": ["Bo"], "Bo": ["Ann"], "Cy": [], "Di": []}``: an unknown address (None, "") is nobody's neighbour.
    """
    by_address: dict[str, list[str]] = {}
    for name, where in joined_from.items():
        if where:
            by_address.setdefault(where, []).append(name)
    return {name: [n for n in by_address.get(where or "", []) if n != name] if where else []
            for name, where in joined_from.items()}


def class_view(results: list[dict[str, Any]], students: list[str], now: float,
               joined_from: dict[str, str | None] | None = None) -> dict[str, Any]:
    """Students × exercises from the stored results (what the page, the CSV and ``/api/class`` show).

    Args:
        joined_from: each name's address (``ProgressStore.joined_from``); None: not known, nobody marked.
    Returns:
        ``{"students": [{"name", "cells": {exercise: {"passed", "attempts", "hint"}}, "stuck": str | None,
        "last": Unix s | None, "joined_from": str | None, "same_computer": [names]}], "exercises": [...],
        "passed": {exercise: n students}}``; ``stuck`` is
        ``"failures"`` (``STUCK_FAILURES`` failures in a row on its last exercise, none passed) or
        ``"quiet"`` (nothing for ``QUIET_S`` while someone posted in that time), else None;
        ``stuck_on`` and ``failures_in_a_row`` say where; ``same_computer`` names the other students
        whose names joined from this one's address (``same_computer``).
    """
    addresses = joined_from or {}
    neighbours = same_computer(addresses)
    latest_any = max((r["received"] for r in results), default=None)
    by_name: dict[str, list[dict[str, Any]]] = {}
    for r in results:  # one pass over the results, not one per student: the page asks every REFRESH_S
        by_name.setdefault(r["name"], []).append(r)
    rows = []
    for name in students:
        mine = by_name.get(name, [])
        cells: dict[str, dict[str, Any]] = {}
        for r in mine:
            cell = cells.setdefault(r["exercise"], {"passed": False, "attempts": 0, "hint": ""})
            cell["attempts"] += 1
            cell["passed"] = cell["passed"] or r["passed"]
            cell["hint"] = r["hint"]
        stuck, stuck_on, run = None, None, 0
        last = mine[-1]["received"] if mine else None
        if mine:
            stuck_on = mine[-1]["exercise"]
            for r in reversed([r for r in mine if r["exercise"] == stuck_on]):
                if r["passed"]:
                    break
                run += 1
            if run >= STUCK_FAILURES and not cells[stuck_on]["passed"]:
                stuck = "failures"
        if stuck is None and latest_any is not None and now - (last or 0) >= QUIET_S \
                and now - latest_any < QUIET_S:
            stuck = "quiet"
        rows.append({"name": name, "cells": cells, "stuck": stuck, "last": last,
                     "stuck_on": stuck_on if stuck == "failures" else None, "failures_in_a_row": run,
                     "joined_from": addresses.get(name), "same_computer": neighbours.get(name, [])})
    unknown = unknown_exercises(results)
    exercises = [*EXERCISES, *unknown]
    passed = {e: sum(1 for row in rows if row["cells"].get(e, {}).get("passed")) for e in exercises}
    return {"students": rows, "exercises": exercises, "unknown": unknown, "passed": passed}


def stuck_reason(row: dict[str, Any], now: float) -> str:
    """The Chinese words the page shows for a stuck student ("" when not stuck)."""
    if row["stuck"] == "failures":
        return t("progress_service.stuck_failures", exercise=row["stuck_on"], n=row["failures_in_a_row"])
    if row["stuck"] == "quiet":
        minutes = int((now - row["last"]) // 60) if row["last"] else None
        return t("progress_service.stuck_quiet", minutes=minutes) if minutes is not None \
            else t("progress_service.stuck_nothing")
    return ""


# --------------------------------------------------------------------------- the model server's state


def model_state(root: str | None, key: str | None, timeout: float = 1.0) -> dict[str, Any]:
    """The class model server's state from llama-server's ``/health`` (``local_server.health``) and ``/metrics`` (needs ``--metrics``).

    Returns:
        ``{"health": "ok" | "loading" | "down", "processing": n, "deferred": n,
        "tokens_per_s": float, "health_ms": float}``; the last four missing when unknown.
    """
    if not root:
        return {"health": "none"}
    import httpx2

    started = time.perf_counter()
    health = local_server.health(timeout, root)  # "ok", "loading" (503) or None
    if health is None:
        return {"health": "down"}
    state: dict[str, Any] = {"health": health, "health_ms": (time.perf_counter() - started) * 1000}
    headers = {"Authorization": "Bearer " + key} if key else {}
    try:
        with httpx2.Client(timeout=timeout, trust_env=False) as http:
            metrics = http.get(root + "/metrics", headers=headers)
            if metrics.status_code == 200:
                values = parse_metrics(metrics.text)
                for name, field in (("llamacpp:requests_processing", "processing"),
                                    ("llamacpp:requests_deferred", "deferred"),
                                    ("llamacpp:predicted_tokens_seconds", "tokens_per_s")):
                    if name in values:
                        state[field] = values[name]
    except httpx2.HTTPError:
        pass  # up, but its counters did not come: the page shows what health said
    return state


def parse_metrics(text: str) -> dict[str, float]:
    """Prometheus text format (``name value`` lines, ``#`` comments) as ``{name: value}``; labels are kept in the name."""
    values = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, value = line.rpartition(" ")
        try:
            values[name.strip()] = float(value)
        except ValueError:
            continue
    return values


# --------------------------------------------------------------------------- the page and the CSV


def render_use(use: dict[str, Any] | None) -> str:
    """The page's section on the model's use (``class_door.ClassDoor.snapshot``): the model servers behind the
    door (``render_upstreams``), the budget form and one row per student (requests, prompt and completion
    tokens, tokens in the last minute, how much of it they kept the model busy - marked when ``is_busy`` -,
    how often they let others go first, replies answered from the door's memory, requests the door refused,
    now), and whether the memory is on. "" without a model."""
    if use is None:
        return ""
    e = html.escape
    rows = []
    for r in use["students"]:
        busy = ' class="busy"' if r["busy"] else ""  # the door counts them as busy (fair_share.FairShare.is_busy)
        now = (t("progress_service.use_answering") if r["in_flight"] else "") + \
              (t("progress_service.use_waiting", n=r["waiting"]) if r["waiting"] else "")
        rows.append(f'<tr><th class="name">{e(r["name"])}</th><td>{r["requests"]}</td><td>{r["prompt_tokens"]}</td>'
                    f'<td>{r["completion_tokens"]}</td><td>{r["last_minute"]}</td>'
                    f'<td{busy}>{r["busy_percent"]}%</td><td>{r["yielded"]}</td><td>{r.get("cached", 0)}</td>'
                    f'<td>{r.get("refused", 0)}</td><td>{e(now)}</td></tr>')
    heads = "".join(f"<th>{e(t(k))}</th>" for k in (
        "progress_service.page_student", "progress_service.use_requests", "progress_service.use_prompt",
        "progress_service.use_completion", "progress_service.use_last_minute", "progress_service.use_busy",
        "progress_service.use_yielded", "progress_service.use_cached", "progress_service.use_refused",
        "progress_service.use_now"))
    budget = use["budget"]
    said = t("progress_service.use_budget_on", budget=budget) if budget else t("progress_service.use_budget_off")
    remembers = t("progress_service.use_memory_on") if use.get("reply_memory") else t("progress_service.use_memory_off")
    table = (f'<table id="use"><thead><tr>{heads}</tr></thead><tbody>{"".join(rows)}</tbody></table>' if rows
             else f'<p class="empty">{e(t("progress_service.use_empty"))}</p>')
    return f"""<h2>{e(t("progress_service.use_title", slots=use["slots"]))}</h2>
<form method="post" action="/teacher/budget" id="budget">{e(said)}
<label>{e(t("progress_service.use_budget_label"))} <input name="budget" type="number" min="0" step="1000" value="{budget}" size="8"></label>
<button type="submit">{e(t("progress_service.use_budget_button"))}</button></form>
<p id="memory">{e(remembers)}</p>
{render_upstreams(use.get("upstreams") or [])}
{table}"""


def render_upstreams(rows: list[dict[str, Any]]) -> str:
    """The model servers behind the door (``upstreams.UpstreamPool.snapshot``): label, ``host:port``, kind, up or
    down, requests being answered / slots, answered so far, failures.  Never a key: the snapshot has none."""
    if not rows:
        return ""
    e = html.escape
    lines = []
    for r in rows:
        state = t("progress_page.upstream_up") if r["healthy"] else t("progress_page.upstream_down")
        mark = "" if r["healthy"] else ' class="down"'
        lines.append(f'<tr><th>{e(str(r["label"]))}</th><td>{e(str(r["host"]))}</td><td>{e(str(r["kind"]))}</td>'
                     f'<td{mark}>{e(state)}</td><td>{int(r["in_flight"])} / {int(r["slots"])}</td>'
                     f'<td>{int(r["served"])}</td><td>{int(r["failures"])}</td></tr>')
    heads = "".join(f"<th>{e(t(k))}</th>" for k in (
        "progress_page.upstream_label", "progress_page.upstream_host", "progress_page.upstream_kind",
        "progress_page.upstream_state", "progress_page.upstream_busy", "progress_page.upstream_served",
        "progress_page.upstream_failures"))
    return f'<table id="upstreams"><thead><tr>{heads}</tr></thead><tbody>{"".join(lines)}</tbody></table>'


def render_actions() -> str:
    """The forms of the teacher's actions (``teacher_actions``: release, rename, merge), each a same-origin POST."""
    e = html.escape

    def field(name: str, label_key: str) -> str:
        return f'<label>{e(t(label_key))} <input name="{name}" size="12" required></label>'

    return f"""<h2>{e(t("teacher_actions.title"))}</h2>
<form method="post" action="/teacher/release" class="action">{field("name", "teacher_actions.release_label")}
<button type="submit">{e(t("teacher_actions.release_button"))}</button></form>
<form method="post" action="/teacher/rename" class="action">{field("from", "teacher_actions.rename_from")}
{field("to", "teacher_actions.rename_to")} <button type="submit">{e(t("teacher_actions.rename_button"))}</button></form>
<form method="post" action="/teacher/merge" class="action">{field("from", "teacher_actions.merge_from")}
{field("into", "teacher_actions.merge_into")} <button type="submit">{e(t("teacher_actions.merge_button"))}</button></form>"""


def render_page(view: dict[str, Any], model: dict[str, Any], now: float, use: dict[str, Any] | None = None,
                exam: str = "") -> str:
    """The teacher's page (HTML, Chinese, reloads itself every ``REFRESH_S`` s); every value escaped.

    ``use``: the model's use per student (``render_use``), shown under the grid.  ``exam``: the capstone's
    leaderboard, already HTML (``exam_desk.render_board``), shown under that.
    """
    e = html.escape
    unknown = set(view.get("unknown", ()))
    head_cells = "".join(
        f'<th class="unknown" title="{e(t("progress_service.unknown_title"))}">{e(t("progress_service.unknown_mark", exercise=x))}</th>' if x in unknown
        else f"<th>{e(x)}</th>" for x in view["exercises"])
    unknown_note = (f'<p class="unknown">{e(t("progress_service.unknown_note", exercises=t("progress.list_separator").join(unknown)))}</p>'
                    if unknown else "")
    body = []
    for row in view["students"]:
        cells = []
        for exercise in view["exercises"]:
            cell = row["cells"].get(exercise)
            if cell is None:
                cells.append('<td class="none"></td>')
            elif cell["passed"]:
                cells.append(f'<td class="pass" title="{e(cell["hint"])}">✓{e(str(cell["attempts"]))}</td>')
            else:
                cells.append(f'<td class="fail" title="{e(cell["hint"])}">✗{e(str(cell["attempts"]))}</td>')
        reason = stuck_reason(row, now)
        flag = f'<span class="stuck">⚠ {e(reason)}</span>' if reason else ""
        if row.get("same_computer"):
            names = t("progress.list_separator").join([row["name"], *row["same_computer"]])
            flag += f'<span class="shared">{e(t("progress_service.page_same_computer", names=names))}</span>'
        body.append(f'<tr><th class="name">{e(row["name"])}{flag}</th>{"".join(cells)}</tr>')
    totals = "".join(f"<td>{view['passed'][x]}</td>" for x in view["exercises"])
    stuck = [row for row in view["students"] if row["stuck"]]
    stuck_list = "".join(f"<li>{e(t('progress_service.stuck_line', name=row['name'], why=stuck_reason(row, now)))}</li>"
                         for row in stuck)
    empty = "" if view["students"] else f'<p class="empty">{e(t("progress_service.page_empty"))}</p>'
    return f"""<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="{REFRESH_S}">
<title>{e(t("progress_service.page_title"))}</title>
<style>
body {{ font-family: "Noto Sans CJK SC", "WenQuanYi Zen Hei", "Microsoft YaHei", sans-serif; margin: 1em; font-size: 20px; }}
table {{ border-collapse: collapse; }} th, td {{ border: 1px solid #999; padding: 4px 8px; text-align: center; white-space: nowrap; }}
th.name {{ text-align: left; white-space: nowrap; }} td.pass {{ background: #c8f0c8; }} td.fail {{ background: #f8d0d0; }}
td.none {{ background: #fff; }} .stuck {{ color: #b00; margin-left: .5em; font-size: 16px; }}
.shared {{ color: #a60; margin-left: .5em; font-size: 16px; }} form.action {{ margin: .3em 0; }}
.model {{ font-size: 22px; margin-bottom: .6em; }} td.busy {{ background: #fde8b0; }} .empty {{ color: #666; }} .unknown {{ color: #a60; }}
</style></head><body>
<h1>{e(t("progress_service.page_title"))}</h1>
<div class="model" id="model">{e(model_line(model))}</div>
<p>{e(t("progress_service.page_counts", students=len(view["students"]), stuck=len(stuck)))}
 · <a href="/teacher.csv">{e(t("progress_service.page_csv"))}</a></p>
{f'<ul class="stucklist">{stuck_list}</ul>' if stuck_list else ''}
{unknown_note}
{empty}
<table id="grid"><thead><tr><th>{e(t("progress_service.page_student"))}</th>{head_cells}</tr></thead>
<tbody>{"".join(body)}</tbody>
<tfoot><tr><th>{e(t("progress_service.page_passed"))}</th>{totals}</tr></tfoot></table>
<p>{e(t("progress_service.page_legend", seconds=REFRESH_S))}</p>
{render_use(use)}
{exam}
{render_actions()}
</body></html>"""


def model_line(model: dict[str, Any]) -> str:
    """One Chinese line about the model server (``model_state``)."""
    health = model.get("health")
    if health == "none":
        return t("progress_service.model_none")
    if health == "down":
        return t("progress_service.model_down")
    if health == "loading":
        return t("progress_service.model_loading")
    parts = [t("progress_service.model_ok", ms=round(model.get("health_ms", 0)))]
    if "processing" in model:
        parts.append(t("progress_service.model_busy", processing=int(model["processing"]),
                       deferred=int(model.get("deferred", 0))))
    if model.get("tokens_per_s"):
        parts.append(t("progress_service.model_speed", speed=round(model["tokens_per_s"], 1)))
    return t("progress_service.model_separator").join(parts)


def render_csv(view: dict[str, Any]) -> str:
    """The grading export: one row per student, one column per exercise (``passed`` / ``failed:n`` / empty).

    UTF-8 with a BOM (``utf-8-sig``: Excel then reads the Chinese names right), CRLF rows (``csv``'s default);
    every cell through ``csv_safe``.
    """
    out = io.StringIO()
    writer = csv.writer(out)

    def row_of(cells: list[Any]) -> list[str]:
        return [csv_safe(str(cell)) for cell in cells]  # every cell: no formula under "," or ";"

    writer.writerow(row_of([t("progress_service.page_student"), *view["exercises"], t("progress_service.csv_passed")]))
    for row in view["students"]:
        cells = []
        for exercise in view["exercises"]:
            cell = row["cells"].get(exercise)
            cells.append("" if cell is None else "passed" if cell["passed"] else f"failed:{cell['attempts']}")
        writer.writerow(row_of([row["name"], *cells, sum(1 for c in cells if c == "passed")]))
    return out.getvalue()



def login_page(wrong: bool, note: str = "") -> str:
    """The teacher's login form (the teacher key from ``.teacher-key``); ``note``: a sentence shown above it."""
    e = html.escape
    note = note or (t("progress_service.login_wrong") if wrong else "")
    note = f'<p style="color:#b00">{e(note)}</p>' if note else ""
    return f"""<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">
<title>{e(t("progress_service.page_title"))}</title></head>
<body style="font-family: sans-serif; font-size: 20px; margin: 2em">
<h1>{e(t("progress_service.page_title"))}</h1>{note}
<form method="post" action="/login"><label>{e(t("progress_service.login_label"))}
<input type="password" name="key" size="50" autofocus></label> <button type="submit">{e(t("progress_service.login_button"))}</button></form>
</body></html>"""

