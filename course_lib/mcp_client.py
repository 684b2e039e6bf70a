"""Use the tools of an MCP server from the course ``Agent``: list them, offer them, call them.

Taught in notebook 09 (part 2: MCP), after the same steps by hand with the SDK.

MCP (the Model Context Protocol) puts the tools in another process: the
client starts the server, and they exchange JSON-RPC messages on its
stdin/stdout.  For the agent nothing else changes::

    with McpTools() as tools:             # starts `python -m course_lib.mcp_server`
        tools.names                       # ['get_weather', 'calculate', ...]
        tools.schemas()                   # the request's `tools`, one to_openai_tool(...) each
        tools.call("get_weather", {"city": "北京"})   # -> ("北京：晴，25°C，湿度40%", True)
        Agent(client, MODEL, registry=tools, tools=tools.schemas()).run("北京天气怎么样？")
        tools.log_frame()                 # every JSON-RPC message that passed, as a table

The three steps of the client, and where each one is:

1. ``tools/list`` (``McpTools.tools``): each MCP tool has ``name``,
   ``description`` and ``inputSchema`` (``input_schema`` on the SDK's object).
2. ``to_openai_tool``: that is a chat request's tool once wrapped:
   ``{"type": "function", "function": {"name", "description", "parameters": inputSchema}}``.
3. ``tools/call`` (``McpTools.call``): the result's text items become the
   ``content`` of the ``role="tool"`` message; ``isError`` becomes ``ok`` False.
   ``call`` keeps ``ToolRegistry.call``'s contract, ``(text, ok)``, so the
   ``Agent`` runs MCP tools exactly as it runs the registry's.

Why a thread: the SDK's ``ClientSession`` is async, and a notebook already
runs an asyncio event loop in its main thread, so ``asyncio.run`` is refused
there (a cell can ``await`` the SDK directly, as the by-hand part does).
``McpTools`` gives the session its own event loop in a background thread; the
methods above wait for it, every request with a timeout (``timeout_s``; the
start: ``start_timeout_s``), and Ctrl-C (the notebook's stop button) abandons
a request.  ``log`` is filled by ``_Tap``, which sits on the SDK's two message
streams and writes down each message as it passes; the protocol is the SDK's.

The server process is always cleaned up: ``close()`` or the end of a ``with``
block stops it (the SDK closes its stdin, then terminates it if it does not
exit).  One server per command: a new ``McpTools`` for the same command, args
and cwd first closes the one started before, so re-running the cell
``tools = McpTools()`` never leaves the old server running (the old object then
says so if it is used).  Losing the last reference to an ``McpTools`` stops its
server too (``weakref.finalize``), and so does the end of Python; ``close_all()``
closes every one still open.  A server whose client was killed sees its stdin
close and ends.

Errors: ``McpError`` (a ``RuntimeError``), with a Chinese message, within
seconds: a command that does not exist, a server that exits or does not
answer at start (its last lines of stderr are in the message), a request
that times out, a server that went away.  A tool's own failure is not an
exception: ``call`` returns ``("错误：...", False)``, as the registry does.

Built on the official MCP Python SDK (package ``mcp``: ``stdio_client``,
``ClientSession``); the messages are the MCP specification's (revision
2025-11-25): https://modelcontextprotocol.io/specification/2025-11-25 -
lifecycle (``initialize``) under basic/lifecycle, ``tools/list`` and
``tools/call`` under server/tools.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import sys
import tempfile
import threading
import time
import warnings
import weakref
from typing import Any

import anyio
import pandas as pd
from mcp import ClientSession, StdioServerParameters, stdio_client, types
from mcp.shared.exceptions import MCPError

from .messages import tool_content
from .settings import PROJECT_ROOT
from .texts import shorten, t
from .tools.registry import unknown_tool_text

DEFAULT_TIMEOUT_S = 20.0  # seconds for each tools/call
START_TIMEOUT_S = 30.0    # seconds for the start: the process, initialize and tools/list (a cold Python is slow)
CLOSE_TIMEOUT_S = 10.0    # the SDK waits 2 s for the server to exit, then terminates it (2 s), then kills it
STDERR_CHARS = 1500       # how much of the end of the server's stderr an McpError shows
# What the course server gets from this process's environment (the SDK passes only PATH, HOME and a few more).
PASSED_ENV = ("COURSE_DATA_DIR", "COURSE_LANGUAGE", "PYTHONPATH")
ERROR_PREFIX = "错误："  # how a tool's failure starts, as in every loop of the course (the model reads it)

CLIENT_INFO = types.Implementation(name="course_lib.mcp_client", version="0.1.0")  # initialize's clientInfo

_open: set["_Connection"] = set()  # every connection not closed yet (a new McpTools, close_all)


class McpError(RuntimeError):
    """The MCP server could not be started or reached (the message says why, in Chinese)."""


def to_openai_tool(mcp_tool: Any) -> dict:
    """One MCP tool as a chat request's tool schema.

    Args:
        mcp_tool: an ``mcp.types.Tool`` (from ``tools/list``), or the same as a dict
            in the wire's spelling (``{"name", "description", "inputSchema"}``).
    Returns:
        ``{"type": "function", "function": {"name", "description", "parameters"}}``:
        ``parameters`` is the tool's ``inputSchema``; without one, or without
        ``properties``, it still is an object schema (``{"type": "object", "properties": {}}``).
    """
    if isinstance(mcp_tool, dict):
        mcp_tool = types.Tool.model_validate(mcp_tool)
    parameters = {"type": "object", "properties": {}, **(mcp_tool.input_schema or {})}
    return {"type": "function",
            "function": {"name": mcp_tool.name, "description": mcp_tool.description or "", "parameters": parameters}}


class McpTools:
    """An MCP server's tools behind ``ToolRegistry``'s interface (``names``, ``schemas()``, ``call``).

    Args:
        command: the program that starts the server (default: this Python,
            with ``args`` ``["-m", "course_lib.mcp_server"]`` and the project root as ``cwd``).
        args: its arguments (a list of str).
        env: extra environment variables for the server (the SDK passes only
            PATH, HOME and a few more; the course server also gets ``PASSED_ENV``).
        cwd: its working directory (default: the project root for the course
            server, this process's for another command).
        timeout_s: seconds each ``tools/call`` may take.
        start_timeout_s: seconds the start may take (the process, ``initialize``, ``tools/list``).
    Attributes:
        tools: the ``mcp.types.Tool`` list of ``tools/list``.
        log: every JSON-RPC message that passed, in order: dicts with ``direction``
            ("→" to the server, "←" from it), ``id``, ``kind``, ``method`` and ``message`` (the wire's JSON).
    Raises:
        McpError: the server could not be started, or did not answer ``initialize`` and ``tools/list``.
    """

    def __init__(self, command: str | None = None, args: list[str] | None = None, *,
                 env: dict[str, str] | None = None, cwd: str | os.PathLike | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, start_timeout_s: float = START_TIMEOUT_S):
        if command is None:
            command, args = sys.executable, ["-m", "course_lib.mcp_server"] if args is None else args
            env = {**{k: os.environ[k] for k in PASSED_ENV if k in os.environ}, **(env or {})}
            cwd = PROJECT_ROOT if cwd is None else cwd
        params = StdioServerParameters(command=command, args=list(args or []), env=env, cwd=cwd)
        for earlier in [c for c in _open if c.starts(params)]:  # the same server again: a cell run again
            earlier.close(replaced=True)
        self._connection = _Connection(params, timeout_s, start_timeout_s)
        weakref.finalize(self, self._connection.close)  # no reference left: the server is stopped
        self.log: list[dict] = self._connection.log
        self.tools: list[types.Tool] = self._connection.start()

    @property
    def names(self) -> list[str]:
        """The tool names, in the server's order."""
        return [tool.name for tool in self.tools]

    def schemas(self) -> list[dict]:
        """The tools as a chat request's ``tools`` (``to_openai_tool`` of each)."""
        return [to_openai_tool(tool) for tool in self.tools]

    def approval_names(self) -> list[str]:
        """Tools a person must approve before they run (notebook 08): none; MCP does not say."""
        return []

    def call(self, name: str, arguments: dict | None = None) -> tuple[str, bool]:
        """Call tool ``name`` through ``tools/call``; the same contract as ``ToolRegistry.call``.

        Returns:
            ``(text, ok)``: the result's text items (``messages.tool_content``) and
            ``not isError``; for an unknown name or arguments that are not an object,
            a ``"错误：..."`` text and False without asking the server.  A tool's failure never raises.
        Raises:
            McpError: closed, timed out, or the server went away.
            KeyboardInterrupt: Ctrl-C while waiting (the request is abandoned; the session stays usable).
        """
        if name not in self.names:
            return ERROR_PREFIX + unknown_tool_text(name, self.names), False
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, dict):
            return t("mcp.arguments_not_object", name=name, kind=type(arguments).__name__), False
        try:
            result = self._connection.call_tool(name, arguments)
        except MCPError as error:  # the server answered with a JSON-RPC error instead of a result
            return t("mcp.call_refused", name=name, message=error.message, code=error.code), False
        texts = [item.text if item.type == "text" else f"[{item.type}]" for item in result.content]
        text = tool_content("\n".join(texts))
        if result.is_error and not text.startswith(ERROR_PREFIX):
            text = ERROR_PREFIX + text
        return text, not result.is_error

    def log_frame(self, max_chars: int | None = 100) -> pd.DataFrame:
        """``log`` as a table: one row per JSON-RPC message, its params / result / error as short JSON."""
        rows = []
        for entry in self.log:
            body = [v for k, v in entry["message"].items() if k in ("params", "result", "error")]
            text = json.dumps(body[0], ensure_ascii=False) if body else ""
            rows.append({"direction": entry["direction"], "id": "" if entry["id"] is None else entry["id"],
                         "kind": entry["kind"], "method": entry["method"], "content": shorten(text, max_chars)})
        return pd.DataFrame(rows, columns=["direction", "id", "kind", "method", "content"])

    def close(self) -> None:
        """Stop the server and its thread (again: nothing happens)."""
        self._connection.close()

    @property
    def closed(self) -> bool:
        return self._connection.closed

    def __enter__(self) -> "McpTools":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{len(self.tools)} tools"
        return f"McpTools({' '.join([self._connection.params.command, *self._connection.params.args])}; {state})"


def close_all() -> None:
    """Close every ``McpTools`` still open in this Python (e.g. ones an earlier cell made)."""
    for connection in list(_open):
        connection.close()


class _Tap:
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

    def __aiter__(self) -> "_Tap":
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> "_Tap":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._stream.aclose()

    def _record(self, item: Any) -> None:
        if isinstance(item, Exception):  # a line from the server that is not JSON-RPC
            message, kind = {"error": str(item)}, "unreadable"
        else:
            message = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
            kind = ("request" if "id" in message else "notification") if "method" in message else \
                   ("result" if "result" in message else "error")
        if kind == "request":
            self._methods[message["id"]] = message["method"]
        method = message.get("method") or self._methods.get(message.get("id"), "")
        self._log.append({"direction": self._direction, "id": message.get("id"), "kind": kind,
                          "method": method, "message": message})


class _Connection:
    """The session and its server process, run on an event loop in a background thread.

    Kept apart from ``McpTools`` so that nothing here refers to the ``McpTools``:
    when the last reference to that goes, its finalizer can close this.
    """

    def __init__(self, params: StdioServerParameters, timeout_s: float, start_timeout_s: float):
        self.params, self.timeout_s, self.start_timeout_s = params, timeout_s, start_timeout_s
        self.log: list[dict] = []
        self.closed = False
        self.replaced = False  # closed because a new McpTools started the same server
        self.session: ClientSession | None = None
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # the server's stderr
        self._ready: concurrent.futures.Future = concurrent.futures.Future()
        self._stop = asyncio.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-client", daemon=True)
        self._main: concurrent.futures.Future | None = None  # _run(), once started

    def start(self) -> list[types.Tool]:
        """Start the server, ``initialize``, ``tools/list``; return the tools.  Raises McpError."""
        _open.add(self)
        self._thread.start()
        self._main = asyncio.run_coroutine_threadsafe(self._run(), self._loop)
        try:
            return self._wait(self._ready, "initialize", self.start_timeout_s)
        except (McpError, KeyboardInterrupt):
            self.close()
            raise
        except BaseException as error:
            # Explained before close(), which drops the server's stderr.
            explained = self._explain(error, "initialize", self.start_timeout_s)
            self.close()
            raise explained from None

    async def _run(self) -> None:
        """The whole life of the session: open, initialize, list the tools, wait for ``close``."""
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._cancel_when_stopped, group.cancel_scope)
                async with stdio_client(self.params, errlog=self._stderr) as (read, write):
                    methods: dict = {}  # request id -> method, to name the answers in the log
                    read, write = _Tap(read, "←", self.log, methods), _Tap(write, "→", self.log, methods)
                    async with ClientSession(read, write, client_info=CLIENT_INFO) as session:
                        with anyio.fail_after(self.start_timeout_s):
                            await session.initialize()
                            tools = (await session.list_tools()).tools
                        self.session = session
                        self._ready.set_result(tools)
                        await anyio.sleep_forever()
        except BaseException as error:  # noqa: BLE001 - handed to start(), which raises McpError
            if not self._ready.done():
                self._ready.set_exception(_first(error))
        finally:
            if not self._ready.done():
                self._ready.set_exception(MCPError(types.CONNECTION_CLOSED, "closed"))

    async def _cancel_when_stopped(self, scope: anyio.CancelScope) -> None:
        await self._stop.wait()
        scope.cancel()  # the SDK then closes the session and stops the server process

    def call_tool(self, name: str, arguments: dict) -> types.CallToolResult:
        """``session.call_tool`` run on the session's loop, answered within ``timeout_s``.

        Raises:
            McpError: closed, timed out, or the server went away.
            mcp.shared.exceptions.MCPError: the server answered with a JSON-RPC error.
            KeyboardInterrupt: Ctrl-C while waiting.
        """
        if self.closed or self.session is None:
            raise McpError(t("mcp.replaced" if self.replaced else "mcp.closed"))
        request = self.session.call_tool(name, arguments, read_timeout_seconds=self.timeout_s)
        future = asyncio.run_coroutine_threadsafe(request, self._loop)
        try:
            return self._wait(future, "tools/call", self.timeout_s)
        except MCPError as error:
            if error.code not in (types.REQUEST_TIMEOUT, types.CONNECTION_CLOSED):
                raise
            explained = self._explain(error, "tools/call", self.timeout_s)
        raise explained from None

    def _wait(self, future: concurrent.futures.Future, method: str, seconds: float) -> Any:
        """``future``'s result, within ``seconds`` (+ a little), in short waits that Ctrl-C can interrupt.

        An abandoned wait (Ctrl-C, the time is up) cancels the request; the SDK tells the server.
        """
        deadline = time.monotonic() + seconds + 5
        try:
            while not future.done():
                if time.monotonic() > deadline:
                    raise McpError(t("mcp.timeout", method=method, seconds=seconds))
                concurrent.futures.wait([future], timeout=0.1)
        except BaseException:
            future.cancel()
            raise
        return future.result()

    def _explain(self, error: BaseException, method: str, seconds: float) -> McpError:
        """The Chinese ``McpError`` for what went wrong with ``method`` (given ``seconds``)."""
        command = " ".join([self.params.command, *self.params.args])
        if isinstance(error, TimeoutError) or isinstance(error, MCPError) and error.code == types.REQUEST_TIMEOUT:
            return McpError(t("mcp.timeout", method=method, seconds=seconds))
        if isinstance(error, OSError) and method == "initialize":
            return McpError(t("mcp.no_command", command=command, error=f"{type(error).__name__}: {error}"))
        self._stderr.seek(0)
        stderr = self._stderr.read()[-STDERR_CHARS:].strip() or t("mcp.no_stderr")
        lost = isinstance(error, MCPError) and error.code == types.CONNECTION_CLOSED
        why = t("mcp.server_gone") if lost else f"{type(error).__name__}: {error}"
        return McpError(t("mcp.failed", command=command, method=method, why=why, stderr=stderr))

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



def _first(error: BaseException) -> BaseException:
    """The first real error inside the exception groups that task groups raise around it."""
    while getattr(error, "exceptions", None):
        error = error.exceptions[0]
    return error
