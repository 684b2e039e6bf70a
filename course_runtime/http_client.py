"""The HTTP layer under every client of ``providers.get_client``: rules, proxies, the class model server's errors.

``course_http_client`` is all of ``get_client``'s wiring: which transport, the request log, the replay.

Not opened in class: notebook 00 shows what its set-up errors say; the teacher's guide covers the class model server.

``CourseHttpClient`` is an ``httpx2.Client`` that applies the request rules
(``request_rules``) to each chat request's JSON body, breaks chat-template markers
written inside its messages and tools (``control_tokens``: no forged turn), re-sends a streamed
request without ``stream_options`` when a relay refuses it, names the proxy
variable when a proxy from the environment failed, and turns what goes wrong
between a student and the class model server into the SDK's own error types with a
Chinese message (``classroom_error``), never with the key in it.

A chat request answered with a web page (HTTP 200, ``text/html`` or a body
that starts with ``<``: a campus captive portal, or a base URL that points at
a web UI instead of its ``/v1`` API) is an ``openai.APIResponseValidationError``
that says so, with the URL and the page's first characters
(``web_page_error``); without it the SDK would hand back the page as a str
(and every loop would blame the messages) or a stream with no chunks (an
"empty reply").

The student's machine: a loopback base URL (``localhost``, ``127.0.0.1``,
``::1``: the local server, Ollama) and a LAN address (the class model server) never go
through a proxy from ``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY``; for a remote
provider such a proxy is used, and a failure names the variable
(``proxy_variable``).  ``RestartingTransport`` starts the local server again
if it died mid-lesson; a class model server that restarted mid-request gets a
sentence that says so (``classroom_error``).

A base URL that the server redirects (``http://`` to ``https://`` or the
reverse) breaks the chat request: httpx2 turns the POST into a GET after a
301/302/303, and drops the key on a redirect to another origin.  The error
names the redirect and the ``COURSE_BASE_URL`` line to write (``redirect_error``).

A "provider" here is a ``providers.Provider`` (its ``base_url``, ``preset``,
``api_key``, ``key_source`` and ``is_classroom`` are read).
"""

from __future__ import annotations

import ipaddress
import json
import os
import urllib.request
from typing import Any, Callable
from urllib.parse import urlsplit

import httpx2
import openai

from . import local_server, request_replay
from .control_tokens import neutralise_request
from .request_log import RequestLog
from .request_rules import apply_request_rules, remember_no_stream_options
from .settings import PROJECT_ROOT, SOURCE_DOTENV, SOURCE_STUDENT_TOKEN, ProviderError, source_label, source_of
from .texts import shorten, t

REQUEST_TIMEOUT_S = 120.0  # one request; a 1.5B model on 2 cores can take a while
# One request to the class model server: it may wait behind the whole class's requests first
# (bench/results/classroom.md: the longest wait measured, and when a class needs a bigger machine).
CLASSROOM_TIMEOUT_S = 600.0
WEB_PAGE_SHOWN_CHARS = 120  # how much of a web page an error quotes
CHAT_PATH = "/chat/completions"  # what the SDK adds to the base URL for a chat request
# What httpx2 raises when the connection breaks after the request was sent: a server stopped mid-request.
DROPPED = (httpx2.RemoteProtocolError, httpx2.ReadError, httpx2.WriteError)



def is_loopback(url: str) -> bool:
    """True if ``url``'s host is this machine (``localhost``, ``127.x.x.x``, ``::1``)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_local_network(url: str) -> bool:
    """True if ``url``'s host is this machine or on the local network: loopback, a private
    (RFC 1918 / RFC 4193) or link-local address, or a ``.local`` (mDNS) name - the class
    server's address.  A proxy from the environment would not reach such a host."""
    if is_loopback(url):
        return True
    host = (urlsplit(url).hostname or "").lower()
    if host.endswith(".local"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_private or ip.is_link_local


def proxy_variable(url: str) -> str | None:
    """The environment variable whose proxy a request to ``url`` goes through, or None.

    Follows what httpx2 does with ``trust_env``: ``https_proxy``/``http_proxy``
    for the URL's scheme, else ``all_proxy`` (lower or upper case), unless
    ``no_proxy`` covers the host; loopback and LAN URLs never use one here (see
    ``get_client``).  Returns the variable's name, never its value (a proxy URL
    can hold a password).
    """
    parts = urlsplit(url)
    if is_local_network(url) or urllib.request.proxy_bypass_environment(parts.hostname or ""):
        return None
    for base in (f"{parts.scheme}_proxy", "all_proxy"):
        for var in (base, base.upper()):
            if os.environ.get(var, "").strip():
                return var
    return None


def socks_variable() -> tuple[str, str] | None:
    """``(variable, scheme)`` of a SOCKS proxy set in the environment, or None."""
    for base in ("all_proxy", "https_proxy", "http_proxy"):
        for var in (base, base.upper()):
            value = os.environ.get(var, "").strip().lower()
            if value.startswith("socks"):
                return var, value.split(":", 1)[0]
    return None


def _stream_options_rejected(request: httpx2.Request, response: httpx2.Response) -> bool:
    """True for a 400 that names ``stream_options`` in answer to a request that sent it."""
    if response.status_code != 400 or b'"stream_options"' not in (request.content or b""):
        return False
    response.read()
    return "stream_options" in response.text


def _is_chat_request(request: httpx2.Request) -> bool:
    return request.method == "POST" and request.url.path.rstrip("/").endswith(CHAT_PATH)


class RedirectError(openai.APIStatusError):
    """A chat request that the server redirected and that then failed; the message says what to write in ``.env``."""


def redirect_error(request: httpx2.Request, response: httpx2.Response) -> RedirectError | None:
    """The error for a chat request that a redirect broke, or None.

    httpx2 follows redirects as browsers do (RFC 9110 §15.4): after a 301, 302
    or 303 the POST comes back as a GET (llama-server and vLLM answer 405), and
    the ``Authorization`` header is dropped on a redirect to another origin
    (https to http, another host).  That is what an ``http://`` base URL meets
    at a server that redirects to ``https://`` (nginx ``return 301``), or the
    reverse.  A 307/308 that keeps the POST and succeeds is left alone, and a
    redirect to a web page (a campus login) is ``web_page_error``'s.

    Args:
        request: the chat request sent.  response: the last answer, after the redirects.
    Returns:
        None when nothing was redirected, or the redirected request succeeded as
        a POST; else a ``RedirectError`` (an ``openai.APIStatusError`` with the
        last status) naming the URL asked, where it was sent, the redirect's
        status, and the ``COURSE_BASE_URL=`` line to write (the new location
        without ``/chat/completions``; when the new location is not a chat
        endpoint, no line but what to check).
    """
    if not response.history or not _is_chat_request(request):
        return None
    if response.request.method == "POST" and response.status_code < 400:
        return None
    first, final = response.history[0], response.request.url
    fields = {"url": str(request.url), "location": str(final), "status": first.status_code,
              "final": response.status_code}
    fixed = str(final.copy_with(query=None)).rstrip("/")
    if fixed.endswith(CHAT_PATH):
        text = t("providers.redirected", fixed=fixed[:-len(CHAT_PATH)], **fields)
    else:
        text = t("providers.redirected_elsewhere", **fields)
    response.read()
    return RedirectError(text, response=response, body=None)


def web_page_error(request: httpx2.Request, response: httpx2.Response) -> openai.APIResponseValidationError | None:
    """The error for a chat request answered with a web page instead of a chat completion, or None.

    A web page is a 2xx answer whose ``content-type`` says ``html``, or whose
    body starts with ``<`` (after blank space) while the content type is not
    ``text/event-stream``.  So a streamed answer is read here, whole, only
    when its content type is not ``text/event-stream`` (every chat server the
    course knows streams with that type; a web page is short).

    Args:
        request: the chat request sent.  response: the server's answer.
    Returns:
        None for anything else (a JSON completion, an event stream, an error
        status, another endpoint); else ``openai.APIResponseValidationError``
        (an ``openai.APIError``: ``except openai.APIError`` catches it) whose
        message names the URL and quotes the page's first characters, shortened.
    """
    if not _is_chat_request(request) or not 200 <= response.status_code < 300:
        return None
    content_type = response.headers.get("content-type", "").lower()
    if "html" not in content_type:
        if "event-stream" in content_type:
            return None
        if not response.read().lstrip().startswith(b"<"):
            return None
    page = " ".join(response.read().decode("utf-8", "replace").split())
    text = t("providers.web_page", url=str(request.url), page=shorten(page, WEB_PAGE_SHOWN_CHARS))
    return openai.APIResponseValidationError(response=response, body=None, message=text)


class CourseHttpClient(httpx2.Client):
    """The HTTP client under every client from ``get_client``.

    On each chat request it checks the ``tools`` with ``check_tools`` (the
    lessons pass ``messages.validate_tools``, which raises
    ``messages.ToolSchemaError`` before anything is sent) and applies
    ``apply_request_rules`` and ``control_tokens.neutralise_request`` to the
    JSON body (so a request written with the raw SDK is checked and fixed the
    same way as one from ``request_kwargs``; a body that neither changes is
    sent as it is, byte for byte); when the server answers 400 to ``stream_options``
    it remembers that for this base URL and sends the request again without
    it; a connection failure through an environment proxy names the variable;
    a redirect that broke the chat request raises ``redirect_error``'s error; a
    web page instead of a chat completion raises ``web_page_error``'s error.

    Args:
        provider: the ``Provider`` whose rules and ``extra_body`` apply.
        check_tools: called with a chat request's ``tools`` list before it is sent;
            it raises to stop the request (None: not checked).
        **kwargs: for ``httpx2.Client``.
    """

    def __init__(self, provider: Any, check_tools: Callable[[Any], Any] | None = None, **kwargs: Any):
        self.course_provider = provider
        self.check_tools = check_tools
        super().__init__(**kwargs)

    def _with_rules(self, request: httpx2.Request) -> httpx2.Request:
        if not _is_chat_request(request):
            return request
        try:
            body = json.loads(request.read() or b"{}")
        except ValueError:
            return request
        if not isinstance(body, dict):
            return request
        if "tools" in body and self.check_tools is not None:  # a raw SDK request; request_kwargs checked its own
            self.check_tools(body["tools"])
        new = neutralise_request(apply_request_rules(body, self.course_provider, as_kwargs=False))
        if new == body:
            return request
        headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
        return httpx2.Request(request.method, request.url, headers=headers,
                             content=json.dumps(new, ensure_ascii=False).encode("utf-8"), extensions=request.extensions)

    def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:  # noqa: D102 - see the class
        request = self._with_rules(request)
        try:
            response = super().send(request, **kwargs)
            if _stream_options_rejected(request, response):
                response.close()
                remember_no_stream_options(self.course_provider.base_url)
                response = super().send(self._with_rules(request), **kwargs)
        except (httpx2.ProxyError, httpx2.ConnectError, httpx2.ConnectTimeout) as exc:
            if self.course_provider.is_classroom:
                raise classroom_error(self.course_provider, request, exc) from exc
            var = proxy_variable(str(request.url)) if self.trust_env else None
            if var is None:
                raise
            note = t("providers.proxy_used", var=var, host=request.url.host)
            raise type(exc)(f"{exc}（{note}）", request=request) from exc
        except (httpx2.TimeoutException, *DROPPED) as exc:
            if self.course_provider.is_classroom:
                raise classroom_error(self.course_provider, request, exc) from exc
            raise
        if self.course_provider.is_classroom:  # a stream the server stops half-way: the same sentence
            response.stream = ClassroomStream(response.stream, self.course_provider, request)
        error = web_page_error(request, response) or redirect_error(request, response)
        if error is not None:
            response.close()
            raise error
        if self.course_provider.is_classroom and response.status_code in (401, 503):
            raise classroom_error(self.course_provider, request, response)
        return response


def classroom_error(provider: Any, request: httpx2.Request,
                    problem: httpx2.Response | BaseException) -> openai.APIError:
    """The SDK's own error for what went wrong between a student and the class model server, with a Chinese message.

    Raised from ``CourseHttpClient.send``; the SDK passes an ``openai.APIError``
    on unchanged (it neither wraps nor retries it), so ``except
    openai.AuthenticationError`` and friends still work, and the message is
    what the student reads.  The key is never in it: only the variable's
    name and where it came from.

    Args:
        provider: the classroom provider.  request: the request that failed.
        problem: a 401 or 503 response, or the httpx2 exception (connection
            failed, timed out, or broken mid-request: ``DROPPED``).
    Returns:
        ``openai.AuthenticationError`` (401: key missing or refused),
        ``openai.InternalServerError`` (503: the server is still loading the model),
        ``openai.APITimeoutError`` (no answer within the timeout: the class queue),
        ``openai.APIConnectionError`` saying the server restarted (the connection
        broke after the request was sent: the teacher stopped or restarted the
        server; the next request opens a new connection) or that it cannot be reached.
    """
    url = provider.base_url
    if isinstance(problem, httpx2.Response):
        problem.read()
        try:
            body = problem.json()
        except ValueError:
            body = None
        if problem.status_code == 401:
            key_env = provider.preset.key_env
            if provider.api_key and provider.key_source == SOURCE_STUDENT_TOKEN:
                text = t("providers.classroom_token_unknown", url=url, root=PROJECT_ROOT)
            elif provider.api_key:
                source = source_label(provider.key_source or source_of(key_env) or SOURCE_DOTENV)
                text = t("providers.classroom_key_rejected", url=url, key_env=key_env, source=source)
            else:
                text = t("providers.classroom_key_missing", url=url, root=PROJECT_ROOT)
            return openai.AuthenticationError(text, response=problem, body=body)
        return openai.InternalServerError(t("providers.classroom_loading", url=url), response=problem, body=body)
    if isinstance(problem, httpx2.TimeoutException) and not isinstance(problem, httpx2.ConnectTimeout):
        timeout = request.extensions.get("timeout", {}).get("read") or CLASSROOM_TIMEOUT_S
        error = openai.APITimeoutError(request=request)
        error.message = t("providers.classroom_timeout", url=url, seconds=timeout)
        error.args = (error.message,)
        return error
    if isinstance(problem, DROPPED):
        return openai.APIConnectionError(message=t("providers.classroom_dropped", url=url), request=request)
    return openai.APIConnectionError(message=t("providers.classroom_unreachable", url=url), request=request)


class ClassroomStream(httpx2.SyncByteStream):
    """A class model server's response body whose break mid-way (``DROPPED``) is ``classroom_error``'s error.

    A streamed reply is read after ``send`` has returned, so the SDK's stream,
    not ``send``, would meet the broken connection, as a bare httpx2 error.
    """

    def __init__(self, stream: Any, provider: Any, request: httpx2.Request):
        self.stream, self.provider, self.request = stream, provider, request

    def __iter__(self):
        try:
            yield from self.stream
        except DROPPED as exc:
            raise classroom_error(self.provider, self.request, exc) from exc

    def close(self) -> None:
        self.stream.close()


class RestartingTransport(httpx2.HTTPTransport):
    """For the local provider only: if the server is gone, start it again once, then retry.

    Each request goes to this copy's port as it is now (``local_server.port()``):
    a server started again may have moved to another port (``ensure_server``).
    """

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            return super().handle_request(self._to_this_port(request))
        except httpx2.ConnectError:
            local_server.ensure_server()
            return super().handle_request(self._to_this_port(request))

    @staticmethod
    def _to_this_port(request: httpx2.Request) -> httpx2.Request:
        now = local_server.port()
        if request.url.port != now:
            request.url = request.url.copy_with(port=now)
            request.headers["Host"] = f"{request.url.host}:{now}"
        return request


def course_http_client(provider: Any, transport: httpx2.BaseTransport | None = None, *, timeout: float,
                       check_tools: Callable[[Any], Any] | None, read_stream: Callable[[list[dict]], Any]
                       ) -> CourseHttpClient:
    """The ``httpx2`` client that ``providers.get_client`` hands to ``openai.OpenAI`` (all of its wiring).

    For the local provider (no ``transport`` given) it starts the course's
    llama-server if needed and uses ``RestartingTransport`` (started again if it
    died mid-lesson), wrapped by ``request_replay.wrap`` (the notebook tests'
    second pass; nothing changes unless ``COURSE_REPLAY_DIR`` is set).  With
    ``COURSE_REQUEST_LOG=<file>`` every chat request is also logged there
    (``request_log.RequestLog``; the bench and the tests use it).  A loopback or
    LAN base URL never goes through an environment proxy (``trust_env=False``);
    a remote one does.  Redirects are followed (``redirect_error`` names a
    broken one).

    Args:
        provider: a ``providers.Provider``.  transport: an ``httpx2`` transport to use
            instead of the network (tests: ``httpx2.MockTransport``); the rules still apply.
        timeout: seconds for one request.  check_tools: ``CourseHttpClient``'s (the
            lessons pass ``messages.validate_tools``).  read_stream: the request log's
            reader of a stream's chunks (the lessons pass ``replies.collect_stream``).
    Raises:
        ProviderError: a SOCKS proxy in the environment without the ``socksio`` package
            (names the variable and the fix).
        local_server.LocalModelError: the local server cannot start.
    """
    log = os.environ.get("COURSE_REQUEST_LOG")
    hooks = RequestLog(log, read_stream=read_stream).hooks() if log else {}
    if provider.is_local and transport is None:
        local_server.ensure_server()
        transport = request_replay.wrap(RestartingTransport())
    try:
        return CourseHttpClient(provider, check_tools=check_tools, transport=transport, timeout=timeout,
                                event_hooks=hooks, trust_env=not is_local_network(provider.base_url),
                                follow_redirects=True)
    except ImportError as exc:  # httpx2 builds a SOCKS proxy only with socksio installed
        socks = socks_variable()
        if socks is None:
            raise
        raise ProviderError(t("providers.socks_missing", var=socks[0], scheme=socks[1])) from exc
