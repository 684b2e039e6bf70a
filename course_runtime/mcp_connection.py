"""The machinery under ``course_lib.mcp_client.McpTools``: the server process, its thread, Windows.

Not taught in a notebook (notebook 09 writes the protocol's steps by hand with
the SDK, then uses ``McpTools``); here is what it takes to run them for a
notebook: a background thread with its own event loop (``McpConnection``),
every message written down as it passes (``MessageTap``), timeouts and Chinese
errors (``McpError``), the server's stderr in the system's encoding
(``system_text``), and Windows (``server_parameters``, ``batch_argument_problem``,
``new_event_loop``).

The protocol is the SDK's (package ``mcp``, ``mcp.Client`` with ``mode="auto"``):
it first asks ``server/discover`` (MCP 2026-07-28: no handshake, no session,
every request carries its own protocol version), and falls back to the
``initialize`` handshake of the earlier revisions (2025-11-25 and before) for a
server that does not know it.  https://modelcontextprotocol.io/specification/2026-07-28
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import locale
import logging
import os
import sys
import tempfile
import threading
import time
import warnings
from typing import Any

import anyio
from mcp import Client, StdioServerParameters, stdio_client, types
from mcp.os.win32.utilities import get_windows_executable_command
from mcp.shared.exceptions import MCPError

from .settings import PROJECT_ROOT
from .texts import t

DEFAULT_TIMEOUT_S = 20.0  # seconds for each tools/call
START_TIMEOUT_S = 30.0    # seconds for the start: the process, server/discover (or initialize), tools/list
CLOSE_TIMEOUT_S = 10.0    # the SDK waits 2 s for the server to exit, then terminates it (2 s), then kills it
STDERR_CHARS = 1500       # how much of the end of the server's stderr an McpError shows
# What the course server gets from this process's environment (the SDK passes only PATH, HOME and a few more).
PASSED_ENV = ("COURSE_DATA_DIR", "COURSE_LANGUAGE", "PYTHONPATH")
ERROR_PREFIX = "错误："  # how a tool's failure starts, as in every loop of the course (the model reads it)
MORE_TIME = 4             # a slow start's message suggests start_timeout_s times this
COMBINATORS = ("anyOf", "oneOf", "allOf")  # OpenAI refuses them at the top of a function's parameters
DEFINITIONS = ("$defs", "definitions")      # where a JSON Schema keeps what its "$ref"s point to

# cmd.exe's own characters outside double quotes (``cmd /?``): a .cmd/.bat server gets its arguments through it.
CMD_SPECIAL = "&|<>^()"
# Never right in an argument of a .cmd/.bat server: % expands a variable even in quotes, " changes cmd.exe's
# quoting (list2cmdline writes it as \", which cmd.exe does not read), a line break ends the command.
CMD_NEVER = '%"\r\n'
BATCH_SUFFIXES = (".cmd", ".bat")
CLIENT_INFO = types.Implementation(name="course_lib.mcp_client", version="0.1.0")  # how the client names itself

_open: set["McpConnection"] = set()  # every connection not closed yet (a new McpTools, close_all)


class McpError(RuntimeError):
    """The MCP server could not be started or reached (the message says why, in Chinese)."""


class McpTimeoutError(McpError):
    """An MCP request got no answer in time (the start, or a ``tools/call``)."""


def _no_parse_tracebacks(record: logging.LogRecord) -> bool:
    """A logging filter: drop the SDK's traceback for a stdout line that is not JSON-RPC.

    ``mcp/client/stdio.py`` (``_parse_line``) logs each such line with
    ``logger.exception``, which puts a traceback into the cell; ``McpTools``
    says it once, in Chinese, and the line stays in ``log``.
    """
    return not record.getMessage().startswith("Failed to parse JSONRPC message")


logging.getLogger(stdio_client.__module__).addFilter(_no_parse_tracebacks)  # the logger of mcp.client.stdio


def system_text(data: bytes) -> str:
    """Bytes a program wrote (its stderr) as text.

    UTF-8 if they are UTF-8; else the system's encoding (``locale.getpreferredencoding``:
    GBK, code page 936, on Chinese Windows, where a program's output is in it);
    else GB18030 (a superset of GBK: a GBK program on a UTF-8 system); else UTF-8
    with U+FFFD for what cannot be read.
    """
    for encoding in ("utf-8", locale.getpreferredencoding(False), "gb18030"):
        try:
            return data.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
    return data.decode("utf-8", errors="replace")



def server_parameters(command: str | None = None, args: list[str] | None = None, *,
                      env: dict[str, str] | None = None, cwd: str | os.PathLike | None = None) -> StdioServerParameters:
    """What ``McpTools`` hands the SDK's ``stdio_client``: the program, its arguments, extra environment, folder.

    Args:
        command, args, env, cwd: as for ``McpTools``.  ``command`` None is the course
            server: ``sys.executable`` with ``["-m", "course_lib.mcp_server"]`` (unless
            ``args`` says otherwise), this process's ``PASSED_ENV`` under ``env``, and
            the project root as ``cwd``.
    Returns:
        An ``mcp.StdioServerParameters``.  The SDK (mcp 2.3.0, ``mcp/client/stdio.py``)
        starts ``[command, *args]`` as a list without a shell - ``anyio.open_process``,
        on Windows through ``mcp/os/win32/utilities.create_windows_process`` - and sets
        ``cwd`` as the child's working folder, never on its command line; on Windows
        Python joins the list with ``subprocess.list2cmdline`` and the child splits it
        back by the C runtime's rules, so a path with a space or Chinese characters
        arrives whole (tests/test_mcp_windows.py).
    """
    if command is None:
        command, args = sys.executable, ["-m", "course_lib.mcp_server"] if args is None else args
        env = {**{k: os.environ[k] for k in PASSED_ENV if k in os.environ}, **(env or {})}
        cwd = PROJECT_ROOT if cwd is None else cwd
    return StdioServerParameters(command=command, args=list(args or []), env=env, cwd=cwd)


def windows_program(command: str) -> str | None:
    """On Windows, the file the SDK will start for ``command``; None on other systems.

    The SDK's own lookup (``mcp.os.win32.utilities.get_windows_executable_command``:
    ``shutil.which`` with ``PATHEXT``, then ``.cmd``, ``.bat``, ``.exe``, ``.ps1``), so
    ``npx`` is ``C:\\Program Files\\nodejs\\npx.CMD``, a Python stays its ``python.exe``.
    """
    return get_windows_executable_command(command) if sys.platform == "win32" else None


def batch_argument_problem(program: str | None, args: list[str]) -> str | None:
    """Why cmd.exe would not hand a ``.cmd``/``.bat`` server these arguments as given; None when it would.

    Windows runs a batch file (``npx.cmd``, the launcher of most MCP servers
    written for Node) through cmd.exe, which reads the command line by its own
    rules (``cmd /?``), not the C runtime's: ``"`` toggles quoting and a
    backslash does not escape it; outside quotes ``& | < > ^ ( )`` are its own
    (``C:\\R&D\\notes`` would end the command at ``&`` and run ``D\\notes``);
    ``%NAME%`` is expanded even in quotes.  ``subprocess.list2cmdline`` quotes
    only an argument with a space or a tab, and writes ``"`` as ``\\"``.  So an
    argument is refused when it holds ``%``, ``"`` or a line break, or holds one
    of ``CMD_SPECIAL`` and no space or tab.  (``!`` matters only with delayed
    expansion, off unless the registry turns it on: not checked.)  A ``cmd /c``
    in front would not help: cmd /c drops the first and the last quote of a
    line that starts with one, which breaks a quoted program path.

    Args:
        program: what ``windows_program`` found (None: not Windows, nothing to check).
        args: the server's arguments.
    Returns:
        The Chinese sentence (``mcp.batch_argument``) naming the program, the first
        argument cmd.exe would misread, its character, and what to do; or None.
    """
    if program is None or not program.lower().endswith(BATCH_SUFFIXES):
        return None
    for arg in [program, *args]:
        quoted = not arg or any(c in " \t" for c in arg)  # list2cmdline puts these in quotes
        bad = next((c for c in arg if c in CMD_NEVER or (c in CMD_SPECIAL and not quoted)), None)
        if bad is not None:
            shown = arg.replace("\r", "\\r").replace("\n", "\\n")  # a line break shown as \n
            return t("mcp.batch_argument", program=program, arg=shown, char=bad)
    return None


def new_event_loop() -> asyncio.AbstractEventLoop:
    """The session's event loop: a ``ProactorEventLoop`` on Windows, whatever the event-loop policy says.

    On Windows only the Proactor loop runs asyncio subprocesses; a Selector policy (set by
    jupyter_server in its own process, or by any library) would make the SDK fall back to a
    ``subprocess.Popen`` read by worker threads.  ipykernel 7.4 sets no policy (its service
    threads make their own ``SelectorEventLoop``; ``ipykernel/thread.py``), so Python's default,
    Proactor, is what the kernel has anyway.  Elsewhere ``asyncio.new_event_loop()``.
    """
    if sys.platform == "win32":
        return asyncio.ProactorEventLoop()  # type: ignore[attr-defined]
    return asyncio.new_event_loop()


def open_connections() -> list["McpConnection"]:
    """Every connection of this Python not closed yet (``McpTools`` closes one that starts the same server)."""
    return list(_open)


def close_all() -> None:
    """Close every ``McpTools`` still open in this Python (e.g. ones an earlier cell made)."""
    for connection in list(_open):
        connection.close()


class MessageTap:
    """One of the SDK's two message streams, unchanged, writing each message into ``log`` as it passes."""

    def __init__(self, stream: Any, direction: str, log: list[dict], methods: dict):
        self._stream, self._direction, self._log, self._methods = stream, direction, log, methods

    def __getattr__(self, name: str) -> Any:  # everything else is the stream's own
        return getattr(self._stream, name)

    async def send(self, item: Any) -> None:
        self._record(item)
        await self._stream.send(item)

    async def receive(self) -> Any:
        item = await self._stream.receive()
        self._record(item)
        return item

    def __aiter__(self) -> "MessageTap":
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> "MessageTap":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._stream.aclose()

    def _record(self, item: Any) -> None:
        if isinstance(item, Exception):  # a line from the server that is not JSON-RPC
            message, kind = {"error": str(item), "line": _odd_line(item)}, "unreadable"
        else:
            message = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
            kind = ("request" if "id" in message else "notification") if "method" in message else \
                   ("result" if "result" in message else "error")
        if kind == "request":
            self._methods[message["id"]] = message["method"]
        method = message.get("method") or self._methods.get(message.get("id"), "")
        self._log.append({"direction": self._direction, "id": message.get("id"), "kind": kind,
                          "method": method, "message": message})


class McpConnection:
    """The session and its server process, run on an event loop in a background thread.

    Why a thread: the SDK's ``ClientSession`` is async, and a notebook already runs an asyncio
    event loop in its main thread, so ``asyncio.run`` is refused there (a cell can ``await``
    the SDK directly, as the by-hand part of notebook 09 does).  The session gets its own event
    loop (``new_event_loop``: a ``ProactorEventLoop`` on Windows) in a background thread; the
    methods of ``McpTools`` wait for it, every request with a timeout (``timeout_s``; the start:
    ``start_timeout_s``), and Ctrl-C (the notebook's stop button) abandons a request.  ``log``
    is filled by ``MessageTap``, which sits on the SDK's two message streams and writes down each
    message as it passes; the protocol is the SDK's.

    Kept apart from ``McpTools`` so that nothing here refers to the ``McpTools``:
    when the last reference to that goes, its finalizer can close this.
    """

    def __init__(self, params: StdioServerParameters, timeout_s: float, start_timeout_s: float):
        self.params, self.timeout_s, self.start_timeout_s = params, timeout_s, start_timeout_s
        self.log: list[dict] = []
        self.closed = False
        self.replaced = False  # closed because a new McpTools started the same server
        self.client: Client | None = None
        self.protocol_version: str | None = None  # what the start agreed on: "2026-07-28", or an older one
        self.stage = "server/discover / initialize"  # what the start waits for (the SDK tries discover first)
        self._stderr = tempfile.TemporaryFile("w+b")  # the server's stderr, as bytes (system_text reads them)
        self._ready: concurrent.futures.Future = concurrent.futures.Future()
        self._stop = asyncio.Event()
        self._loop = new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-client", daemon=True)
        self._main: concurrent.futures.Future | None = None  # _run(), once started

    def start(self) -> list[types.Tool]:
        """Start the server, ``server/discover`` (or ``initialize``), ``tools/list``; return the tools.  Raises McpError."""
        _open.add(self)
        self._thread.start()
        self._main = asyncio.run_coroutine_threadsafe(self._run(), self._loop)
        try:
            return self._wait(self._ready, self.start_timeout_s)
        except KeyboardInterrupt:
            self.close()
            raise
        except BaseException as error:
            # Explained before close(), which drops the server's stderr.
            explained = self._explain(error, self.stage, self.start_timeout_s)
            self.close()
            raise explained from None

    async def _run(self) -> None:
        """The whole life of the session: open, agree on the protocol, list the tools, wait for ``close``.

        ``mcp.Client`` with ``mode="auto"`` (the SDK's connect policy, ``mcp/client/_probe.py``):
        ``server/discover`` first; a server that does not answer it as a 2026-07-28 server gets the
        ``initialize`` handshake instead.  No response cache (``cache=None``): every ``tools/list``
        reaches the server and the log.
        """
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._cancel_when_stopped, group.cancel_scope)
                # The start's deadline (start_timeout_s) is kept by start(), which then closes this; the
                # SDK's own probe of server/discover has a shorter one (DISCOVER_TIMEOUT_SECONDS).
                async with Client(self._transport(), mode="auto", client_info=CLIENT_INFO, cache=None) as client:
                    self.protocol_version = client.protocol_version
                    self.stage = "tools/list"
                    tools = (await client.list_tools()).tools
                    self.client = client
                    self._ready.set_result(tools)
                    await anyio.sleep_forever()
        except BaseException as error:  # noqa: BLE001 - handed to start(), which raises McpError
            if not self._ready.done():
                self._ready.set_exception(_first(error))
        finally:
            if not self._ready.done():
                self._ready.set_exception(MCPError(types.CONNECTION_CLOSED, "closed"))

    @contextlib.asynccontextmanager
    async def _transport(self):
        """The SDK's stdio transport with ``MessageTap`` on both streams (``mcp.Client`` takes any such pair)."""
        async with stdio_client(self.params, errlog=self._stderr) as (read, write):
            methods: dict = {}  # request id -> method, to name the answers in the log
            yield MessageTap(read, "←", self.log, methods), MessageTap(write, "→", self.log, methods)

    async def _cancel_when_stopped(self, scope: anyio.CancelScope) -> None:
        await self._stop.wait()
        scope.cancel()  # the SDK then closes the session and stops the server process

    def call_tool(self, name: str, arguments: dict) -> types.CallToolResult:
        """``Client.call_tool`` run on the session's loop, answered within ``timeout_s``.

        Raises:
            McpTimeoutError: no answer within ``timeout_s``.
            McpError: closed, or the server went away (every later call says so too, at once).
            mcp.shared.exceptions.MCPError: the server answered with a JSON-RPC error.
            KeyboardInterrupt: Ctrl-C while waiting.
        """
        if self.closed or self.client is None:
            raise McpError(t("mcp.replaced" if self.replaced else "mcp.closed"))
        request = self.client.call_tool(name, arguments, read_timeout_seconds=self.timeout_s)
        future = asyncio.run_coroutine_threadsafe(request, self._loop)
        try:
            return self._wait(future, self.timeout_s)
        except (MCPError, TimeoutError) as error:
            if isinstance(error, MCPError) and error.code not in (types.REQUEST_TIMEOUT, types.CONNECTION_CLOSED):
                raise
            explained = self._explain(error, "tools/call", self.timeout_s)
        raise explained from None

    def _wait(self, future: concurrent.futures.Future, seconds: float) -> Any:
        """``future``'s result, within ``seconds`` (+ a little), in short waits that Ctrl-C can interrupt.

        An abandoned wait (Ctrl-C, the time is up: ``TimeoutError``) cancels the request; the SDK tells the server.
        """
        deadline = time.monotonic() + seconds + 5
        try:
            while not future.done():
                if time.monotonic() > deadline:
                    raise TimeoutError
                concurrent.futures.wait([future], timeout=0.1)
        except BaseException:
            future.cancel()
            raise
        return future.result()

    def _explain(self, error: BaseException, method: str, seconds: float) -> McpError:
        """The Chinese ``McpError`` for what went wrong with ``method`` (given ``seconds``).

        ``method`` is ``"tools/call"``, or the request the start waited for
        (``"server/discover"``, ``"tools/list"``): a slow start names ``start_timeout_s``.
        """
        command = " ".join([self.params.command, *self.params.args])
        starting = method != "tools/call"
        if isinstance(error, TimeoutError) or isinstance(error, MCPError) and error.code == types.REQUEST_TIMEOUT:
            if not starting:
                return McpTimeoutError(t("mcp.timeout", method=method, seconds=seconds))
            return McpTimeoutError(t("mcp.start_timeout", command=command, method=method, seconds=seconds,
                                     more=seconds * MORE_TIME, stderr=self._stderr_tail()))
        if isinstance(error, OSError) and starting:
            return McpError(t("mcp.no_command", command=command, error=f"{type(error).__name__}: {error}"))
        lost = isinstance(error, MCPError) and error.code == types.CONNECTION_CLOSED
        why = t("mcp.server_gone") if lost else f"{type(error).__name__}: {error}"
        return McpError(t("mcp.failed", command=command, method=method, why=why, stderr=self._stderr_tail()))

    def _stderr_tail(self) -> str:
        """The last ``STDERR_CHARS`` characters of the server's stderr, as text (``system_text``)."""
        self._stderr.seek(0)
        return system_text(self._stderr.read())[-STDERR_CHARS:].strip() or t("mcp.no_stderr")

    def starts(self, params: StdioServerParameters) -> bool:
        """Whether ``params`` start the same server as this one (command, args, cwd)."""
        return (params.command, params.args, str(params.cwd)) == (self.params.command, self.params.args,
                                                                   str(self.params.cwd))

    def close(self, replaced: bool = False) -> None:
        """Stop the session and the server (the SDK's shutdown), then the loop and its thread."""
        if self.closed:
            return
        self.closed, self.replaced = True, replaced
        _open.discard(self)
        if not self._thread.is_alive():  # never started
            self._loop.close()
            self._stderr.close()
            return
        self._loop.call_soon_threadsafe(self._stop.set)  # _run() ends: the SDK stops the server

        def stop_loop(_: Any = None) -> None:  # then the loop stops and the thread ends
            self._loop.call_soon_threadsafe(self._loop.stop)

        if self._main is None:
            stop_loop()
        else:
            self._main.add_done_callback(stop_loop)
        if threading.current_thread() is self._thread:  # a finalizer run by this thread: it cannot wait for itself
            return
        self._thread.join(CLOSE_TIMEOUT_S)
        if self._thread.is_alive():
            warnings.warn(t("mcp.close_slow", seconds=CLOSE_TIMEOUT_S), RuntimeWarning, stacklevel=2)
            return
        self._loop.close()
        self._stderr.close()



def _odd_line(error: Exception) -> str:
    """The stdout line an SDK parse error is about (pydantic keeps it as the error's ``input``)."""
    details = error.errors() if callable(getattr(error, "errors", None)) else []
    line = details[0].get("input") if details else None
    return line if isinstance(line, str) else str(error)


def _first(error: BaseException) -> BaseException:
    """The first real error inside the exception groups that task groups raise around it."""
    while getattr(error, "exceptions", None):
        error = error.exceptions[0]
    return error
