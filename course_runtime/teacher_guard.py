"""Who may use the teacher's routes: one guard in front of the page, the CSV, ``/api/class`` and the teacher's actions.

Three checks, in this order, each refused with a Chinese sentence:

1. **Where from.**  A loopback client only (this computer), unless the service was started with
   ``--teacher-anywhere``.
2. **Which site asked.**  A page in the teacher's own browser is also a loopback client: a site that
   rebinds its DNS name to 127.0.0.1, or a page served on another local port, could otherwise read the
   page or post a form.  So the ``Host`` header must name this service by an IP address or ``localhost``
   (a rebound DNS name never does), and a request that says where it comes from (``Origin``, or
   ``Sec-Fetch-Site``, which browsers add to every request) must come from this very origin: another
   port is another origin.  Scripts (no ``Origin``) are not affected.
3. **Who.**  The teacher key (``keys.teacher_key``) as ``Authorization: Bearer`` (scripts), or the
   session cookie ``POST /login`` set (a random value kept in memory for ``SESSION_S``, ``HttpOnly``,
   ``SameSite=Strict``).  Wrong keys are counted per address (``LOGIN_ATTEMPTS_PER_MINUTE``, then 429),
   but the right key is checked first and never refused: guesses made by someone else (a page in the
   teacher's browser shares the teacher's address) cannot lock the teacher out.
"""

from __future__ import annotations

import html
import ipaddress
import secrets
import threading
import time
from typing import Any, Callable

from .texts import t
from .web_requests import RateLimit, address, bearer

LOGIN_ATTEMPTS_PER_MINUTE = 5  # wrong teacher keys from one address (the right key is never counted nor refused)
SESSION_S = 8 * 3600  # a teacher's login lasts a school day
MAX_SESSIONS = 50  # logins kept at once (the oldest goes first)
COOKIE = "course_teacher"  # + "_" + the service's port: browsers do not keep cookies apart by port


def is_loopback(host: str | None) -> bool:
    """True for this computer's own addresses (127.0.0.0/8, ::1, ::ffff:127.x.y.z)."""
    try:
        ip = ipaddress.ip_address(host or "")
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


def _host_name(host_header: str) -> str:
    """The name part of a ``Host`` value: ``127.0.0.1:8767`` -> ``127.0.0.1``, ``[::1]:8767`` -> ``::1``."""
    value = host_header.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def host_is_literal(host_header: str | None) -> bool:
    """Whether ``Host`` names this service by an IP address or ``localhost`` (never a DNS name, which a
    DNS-rebinding page controls)."""
    name = _host_name(host_header or "")
    if name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class TeacherGuard:
    """The checks of the module docstring for every teacher's route, and the teacher's logins.

    Args:
        teacher_key: what the teacher types or a script sends.  teacher_anywhere: skip check 1.
        clock: Unix seconds (tests move it).
    """

    def __init__(self, teacher_key: str, teacher_anywhere: bool = False, clock: Callable[[], float] = time.time):
        self._key = teacher_key.encode()
        self.teacher_anywhere = teacher_anywhere
        self.clock = clock
        self.wrong_keys = RateLimit(LOGIN_ATTEMPTS_PER_MINUTE, clock=clock)
        self._sessions: dict[str, float] = {}  # random value -> when it ends (clock)
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never the key
        return f"TeacherGuard(teacher_anywhere={self.teacher_anywhere}, sessions={len(self._sessions)})"

    def right_key(self, given: str) -> bool:
        return secrets.compare_digest(given.encode(), self._key)

    def origin_refusal(self, request: Any) -> str | None:
        """Checks 1 and 2: None when ``request`` may reach a teacher's route, else the Chinese reason."""
        if not self.teacher_anywhere and not is_loopback(address(request)):
            return t("progress_service.only_here")
        host = request.headers.get("host")
        if not host_is_literal(host):
            return t("teacher_guard.host")
        own = "http://" + (host or "").strip().lower()
        origin = request.headers.get("origin")
        if origin is not None and origin.strip().lower() != own:
            return t("teacher_guard.origin")
        site = request.headers.get("sec-fetch-site")
        if site is not None and site.strip().lower() not in ("same-origin", "none"):
            return t("teacher_guard.origin")
        return None

    def cookie_name(self, request: Any) -> str:
        server = request.scope.get("server") or ("", 0)
        return f"{COOKIE}_{server[1]}"

    def is_teacher(self, request: Any) -> bool:
        """Check 3: the teacher key as the bearer, or a live session cookie."""
        given = bearer(request)
        if given:
            return self.right_key(given)
        session = request.cookies.get(self.cookie_name(request), "")
        with self._lock:
            ends = self._sessions.get(session)
            if ends is not None and ends <= self.clock():
                del self._sessions[session]
                ends = None
        return ends is not None

    def forbidden(self, request: Any, page: bool = False):
        """The 403 for a request that fails checks 1 or 2 (an HTML page when ``page``), or None."""
        from starlette.responses import HTMLResponse, JSONResponse

        reason = self.origin_refusal(request)
        if reason is None:
            return None
        if page:
            return HTMLResponse(f'<!doctype html><html lang="zh-CN"><meta charset="utf-8"><p>{html.escape(reason)}</p>',
                                status_code=403)
        return JSONResponse({"error": reason}, status_code=403)

    def refusal(self, request: Any, page: bool = False):
        """The response that refuses ``request`` to a teacher's route (``forbidden``, then check 3), or None
        when it may go on.

        ``page``: an HTML page asked (a redirect to ``/login`` when only the login is missing; an HTML 403).
        """
        from starlette.responses import JSONResponse, RedirectResponse

        if (refused := self.forbidden(request, page)) is not None:
            return refused
        if self.is_teacher(request):
            return None
        if page:
            return RedirectResponse("/login", status_code=303)
        return JSONResponse({"error": t("progress_service.teacher_key_wrong")}, status_code=401)

    def log_in(self, request: Any, given: str) -> str | None:
        """Check a typed key: a new session value when it is right (never refused), None when wrong.

        Raises:
            PermissionError: wrong, and ``LOGIN_ATTEMPTS_PER_MINUTE`` wrong keys already came from this address.
        """
        if not self.right_key(given):
            if not self.wrong_keys.take(address(request)):
                raise PermissionError(t("progress_service.login_slow"))
            return None
        session = secrets.token_urlsafe(32)  # the cookie holds this, never the key
        with self._lock:
            now = self.clock()
            for old in [s for s, ends in self._sessions.items() if ends <= now]:
                del self._sessions[old]
            while len(self._sessions) >= MAX_SESSIONS:
                del self._sessions[min(self._sessions, key=self._sessions.__getitem__)]
            self._sessions[session] = now + SESSION_S
        return session
