"""Use the tools of an MCP server from the course ``Agent``: list them, offer them, call them.

Taught in notebook 09 (part 2: MCP), after the same steps by hand with the SDK.

MCP (the Model Context Protocol) puts the tools in another process: the client starts the
server, and they exchange JSON-RPC messages on its stdin/stdout.  ``McpTools`` wraps the
steps of a client behind ``ToolRegistry``'s interface, so the ``Agent`` runs MCP tools
exactly as it runs the registry's (an example: ``McpTools``'s docstring):

1. ``server/discover`` (MCP 2026-07-28: the server says which protocol versions and
   capabilities it has; no handshake, no session) - or, for an older server, the
   ``initialize`` handshake (``McpTools.protocol_version`` says which);
2. ``tools/list`` (``McpTools.tools``): each MCP tool has ``name``, ``description`` and
   ``inputSchema`` (``input_schema`` on the SDK's object); ``to_openai_tool`` makes it a
   chat request's tool;
3. ``tools/call`` (``McpTools.call``, ``ToolRegistry.call``'s contract ``(text, ok)``): the
   result's content items become the tool message's text (``result_text``).

What it does about servers as they are is told where it is done: a tool that does not say it
is read-only needs a person's yes (``read_only``); names a chat API refuses (``api_names``)
and schemas it refuses (``api_parameters``).  The process, the background thread, the
timeouts, stderr and Windows are ``course_runtime/mcp_connection.py``'s.

Built on the official MCP Python SDK (package ``mcp``); the messages are the MCP
specification's, revision 2026-07-28 (https://modelcontextprotocol.io/specification/2026-07-28:
``server/discover``, ``tools/list`` and ``tools/call`` under server/tools - tool names,
annotations, the content items of a tool result, ``structuredContent``).
"""

from __future__ import annotations

import copy
import json
import os
import re
import warnings
import weakref
from typing import Any

import pandas as pd
from mcp import types
from mcp.shared.exceptions import MCPError

from course_runtime.mcp_connection import (DEFAULT_TIMEOUT_S, START_TIMEOUT_S, McpConnection, McpError,  # noqa: F401
                                           McpTimeoutError, batch_argument_problem, close_all, server_parameters,
                                           system_text, windows_program)
from course_runtime import mcp_connection

from .messages import TOOL_NAME_MAX, TOOL_NAME_RE, tool_content
from .texts import shorten, t
from .tools.registry import unknown_tool_text

ERROR_PREFIX = "错误："  # how a tool's failure starts, as in every loop of the course (the model reads it)
COMBINATORS = ("anyOf", "oneOf", "allOf")  # OpenAI refuses them at the top of a function's parameters
DEFINITIONS = ("$defs", "definitions")      # where a JSON Schema keeps what its "$ref"s point to


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


def api_names(names: list[str]) -> list[str]:
    """The name each MCP tool gets in a chat request, in the same order as ``names``.

    MCP allows ``.`` and ``/`` in a tool name (spec 2025-11-25, server/tools "Tool
    names", up to 128 characters); OpenAI's function names must match
    ``^[a-zA-Z0-9_-]{1,64}$`` (``messages.TOOL_NAME_RE``).  A name that fits stays
    as it is; another one gets each run of other characters as ``_``, is cut to
    64 characters, and, when that name is taken, ends in ``_2``, ``_3``...
    (``["fs/read", "fs_read"]`` -> ``["fs_read_2", "fs_read"]``).
    """
    taken = {name for name in names if TOOL_NAME_RE.fullmatch(name)}
    result = []
    for name in names:
        if TOOL_NAME_RE.fullmatch(name):
            result.append(name)
            continue
        base = (re.sub(r"[^a-zA-Z0-9_-]+", "_", name).strip("_") or "tool")[:TOOL_NAME_MAX]
        candidate, number = base, 1
        while candidate in taken:
            number += 1
            candidate = base[:TOOL_NAME_MAX - len(f"_{number}")] + f"_{number}"
        taken.add(candidate)
        result.append(candidate)
    return result


def api_parameters(schema: dict) -> dict:
    """A tool's ``parameters`` as chat APIs take them: ``schema`` itself when it needs nothing.

    * Every ``$ref`` to ``#/$defs/...`` (or ``#/definitions/...``) is replaced by
      what it points to, and the definitions are dropped: pydantic writes them
      for a model argument (``MCPServer`` tools), and some OpenAI-compatible
      endpoints refuse them (issue 30).
    * A top-level ``anyOf`` / ``oneOf`` / ``allOf`` - OpenAI: the schema must "not have
      'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level" - is merged into the
      object: the properties of every branch; required, what every branch
      requires (``allOf``: what any branch requires).  The server still checks
      the arguments against its own schema.
    Raises:
        ValueError: (Chinese) a ``$ref`` that refers to itself (a recursive
            structure), to another document, or to a definition that is not there.
    """
    if '"$ref"' not in json.dumps(schema) and not any(key in schema for key in (*COMBINATORS, *DEFINITIONS)):
        return schema
    flat = _inline({key: value for key, value in schema.items() if key not in DEFINITIONS}, schema, ())
    for keyword in COMBINATORS:
        if isinstance(flat.get(keyword), list):
            flat = _merged(flat, keyword)
    return flat


def _inline(node: Any, root: dict, seen: tuple[str, ...]) -> Any:
    """``node`` with every ``"$ref"`` replaced by the part of ``root`` it points to (``seen``: the refs on the way)."""
    if isinstance(node, list):
        return [_inline(item, root, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return {key: _inline(value, root, seen) for key, value in node.items()}
    if ref in seen or ref == "#":
        raise ValueError(t("mcp.schema_ref_loop", ref=ref))
    if not ref.startswith("#/"):
        raise ValueError(t("mcp.schema_ref_remote", ref=ref))
    target: Any = root
    for part in ref[2:].split("/"):  # a JSON Pointer (RFC 6901): ~1 is "/", ~0 is "~"
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, dict) or part not in target:
            raise ValueError(t("mcp.schema_ref_missing", ref=ref))
        target = target[part]
    if not isinstance(target, dict):
        raise ValueError(t("mcp.schema_ref_missing", ref=ref))
    rest = {key: value for key, value in node.items() if key != "$ref"}  # e.g. a description next to the $ref
    return _inline({**target, **rest}, root, (*seen, ref))


def _merged(schema: dict, keyword: str) -> dict:
    """``schema`` with its top-level ``keyword`` (anyOf / oneOf / allOf) folded into one object schema."""
    branches = [branch for branch in schema[keyword] if isinstance(branch, dict)]
    merged = {key: value for key, value in schema.items() if key != keyword}
    properties = dict(merged.get("properties") or {})
    for branch in branches:
        for name, value in (branch.get("properties") or {}).items():
            properties.setdefault(name, value)
    wanted = [name for branch in branches for name in branch.get("required", [])]
    if keyword != "allOf":  # anyOf / oneOf: only what every branch requires
        wanted = [name for name in wanted if all(name in branch.get("required", []) for branch in branches)]
    required = list(dict.fromkeys([*merged.get("required", []), *wanted]))
    merged.update(type="object", properties=properties)
    merged.pop("required", None)
    return {**merged, "required": required} if required else merged


def result_text(result: types.CallToolResult) -> str:
    """What the model reads for a ``tools/call`` result (the ``content`` of its ``role="tool"`` message).

    Each content item (spec 2025-11-25, server/tools "Tool Result"), one per line, in order:
    ``text`` as it is; an embedded ``resource`` with text as ``[资源 <uri>]`` and its text;
    a ``resource_link`` as ``[资源链接 <uri>] <name>`` and its description;
    an ``image``, ``audio`` or embedded binary resource as a placeholder naming
    its MIME type and size in bytes (the model cannot see it).
    ``structuredContent`` is added as JSON when no text item is there: the spec
    says a tool that returns it SHOULD also return it serialized in a text item,
    so it is not said twice.  Then ``messages.tool_content``: no text at all
    gives the sentence "the tool returned nothing", a very long text is cut.
    """
    parts = [_item_text(item) for item in result.content]
    if result.structured_content is not None and not any(item.type == "text" for item in result.content):
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return tool_content("\n".join(parts))


def _item_text(item: Any) -> str:
    """One content item of a tool result as text (see ``result_text``)."""
    if item.type == "text":
        return item.text
    if item.type == "resource" and isinstance(item.resource, types.TextResourceContents):
        return t("mcp.resource", uri=item.resource.uri, text=item.resource.text)
    if item.type == "resource":
        resource = item.resource
        return t("mcp.blob", uri=resource.uri, mime_type=resource.mime_type or "?", size=_base64_size(resource.blob))
    if item.type == "resource_link":
        link = t("mcp.link", uri=item.uri, name=item.name)
        return f"{link}\n{item.description}" if item.description else link
    if item.type in ("image", "audio"):
        return t(f"mcp.{item.type}", mime_type=item.mime_type, size=_base64_size(item.data))
    return f"[{item.type}]"


def _base64_size(data: str) -> int:
    """How many bytes the base64 text ``data`` holds (4 characters carry 3 bytes; ``=`` pads the end)."""
    return len(data.rstrip("=")) * 3 // 4


def read_only(tool: types.Tool) -> bool:
    """Whether the MCP tool says it does not change anything (``annotations.readOnlyHint`` true).

    The spec (2025-11-25, server/tools ``ToolAnnotations``): ``readOnlyHint``
    defaults to false and ``destructiveHint`` to true, so a tool that says
    nothing may change or delete things.  Annotations are hints: a client
    "should never make tool use decisions based on ToolAnnotations received from
    untrusted servers" - the course believes a server that says read-only
    (``Agent(..., approval_tools=...)`` asks about more), and nothing else.
    """
    return bool(tool.annotations and tool.annotations.read_only_hint is True)


class McpTools:
    """An MCP server's tools behind ``ToolRegistry``'s interface (``names``, ``schemas()``, ``call``).

    Example::

        with McpTools() as tools:             # starts `python -m course_lib.mcp_server`
            tools.names                       # ['get_weather', 'calculate', ...]
            tools.schemas()                   # the request's `tools`, one to_openai_tool(...) each
            tools.call("get_weather", {"city": "北京"})   # -> ("北京：晴，25°C，湿度40%", True)
            Agent(client, MODEL, registry=tools, tools=tools.schemas()).run("北京天气怎么样？")
            tools.log_frame()                 # every JSON-RPC message that passed, as a table

    Servers as they are: a tool that does not say it is read-only (``read_only``) is in
    ``approval_names()``, so the ``Agent`` waits for a person (notebook 08); a write whose
    ``tools/call`` times out says that it may still complete.  A name a chat API refuses is
    offered under an API-safe one (``api_names``: ``notes.search`` -> ``notes_search``) and
    ``call`` sends the server its own name - the student cannot rename a server's tools, so
    the client does.  An ``inputSchema`` a chat API refuses is rewritten (``api_parameters``);
    one that cannot be (a recursive ``$ref``) is left out (``left_out``), with a notice, so that
    the other tools still work - never a 400 for every request.  Lines on stdout that are not
    JSON-RPC (a server's ``print``) are skipped, with one Chinese notice instead of the SDK's
    traceback (``_no_parse_tracebacks``); they stay in ``log``.  The server's stderr is read as
    UTF-8, else in the system's encoding (``system_text``: GBK on Chinese Windows), so the lines
    an ``McpError`` quotes are readable.  On Windows the SDK starts ``[command, *args]`` as a
    list, no shell, with ``cwd`` apart from the command line, so a path like
    ``C:\\Users\\张三\\AI 课程`` arrives whole; a ``.cmd``/``.bat`` launcher (``npx``) runs through
    cmd.exe, so an argument it would misread (``C:\\R&D``, ``100%``) is refused in Chinese before
    anything starts (``batch_argument_problem``).

    The server process is always cleaned up: ``close()`` or the end of a ``with`` block stops
    it (the SDK closes its stdin, then terminates it if it does not exit).  One server per
    command: a new ``McpTools`` for the same command, args and cwd first closes the one started
    before, so re-running the cell ``tools = McpTools()`` never leaves the old server running
    (the old object then says so if it is used).  Losing the last reference stops the server
    too (``weakref.finalize``), and so does the end of Python; ``close_all()`` closes every one
    still open.  A server whose client was killed sees its stdin close and ends.

    Errors: ``McpError`` (a ``RuntimeError``), with a Chinese message, within seconds: a command
    that does not exist, a server that exits or does not answer at start (its last lines of
    stderr are in the message; a slow start names ``start_timeout_s``), a request that times
    out (``McpTimeoutError``), a server that went away (the message says how to go on; every
    later call says it again).  A tool's own failure is not an exception: ``call`` returns
    ``("错误：...", False)``, as the registry does.

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
        tools: the ``mcp.types.Tool`` list of ``tools/list``, as the server wrote it (all of them).
        left_out: the server's tools that are not offered, ``{server's name: why}`` (Chinese; each also
            a ``RuntimeWarning`` at the start): an ``inputSchema`` that ``api_parameters`` cannot rewrite.
        log: every JSON-RPC message that passed, in order: dicts with ``direction``
            ("→" to the server, "←" from it), ``id``, ``kind``, ``method`` and ``message`` (the wire's JSON;
            a stdout line that is not JSON-RPC: kind ``"unreadable"``, ``{"error", "line"}``).
    Raises:
        McpError: the server could not be started, or did not answer ``initialize`` and ``tools/list``
            (``McpTimeoutError`` when it took longer than ``start_timeout_s``); on Windows, a ``.cmd``/``.bat``
            server given an argument that cmd.exe would misread (``batch_argument_problem``), before anything starts.
    """

    def __init__(self, command: str | None = None, args: list[str] | None = None, *,
                 env: dict[str, str] | None = None, cwd: str | os.PathLike | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, start_timeout_s: float = START_TIMEOUT_S):
        params = server_parameters(command, args, env=env, cwd=cwd)
        problem = batch_argument_problem(windows_program(params.command), params.args)
        if problem:  # a .cmd/.bat server on Windows: cmd.exe would not pass this argument on as given
            raise McpError(problem)
        for earlier in [c for c in mcp_connection.open_connections() if c.starts(params)]:  # a cell run again
            earlier.close(replaced=True)
        self._connection = McpConnection(params, timeout_s, start_timeout_s)
        weakref.finalize(self, self._connection.close)  # no reference left: the server is stopped
        self.log: list[dict] = self._connection.log
        self.tools: list[types.Tool] = self._connection.start()
        self.protocol_version: str | None = self._connection.protocol_version
        self.left_out: dict[str, str] = {}
        self._offered: dict[str, types.Tool] = {}  # API name -> the server's tool
        self._schemas: list[dict] = []
        for tool, name in zip(self.tools, api_names([tool.name for tool in self.tools])):
            self._offer(tool, name)
        self._told_stdout = False
        self._tell_about_stdout()

    def _offer(self, tool: types.Tool, name: str) -> None:
        """Offer ``tool`` as ``name``, with parameters an API takes; or leave it out, with a notice."""
        schema = to_openai_tool(tool)
        try:
            schema["function"]["parameters"] = api_parameters(schema["function"]["parameters"])
        except ValueError as problem:
            self.left_out[tool.name] = str(problem)
            warnings.warn(t("mcp.tool_left_out", name=tool.name, why=problem), RuntimeWarning, stacklevel=3)
            return
        schema["function"]["name"] = name
        self._offered[name] = tool
        self._schemas.append(schema)

    @property
    def names(self) -> list[str]:
        """The names of the tools offered, in the server's order: the names the model sees
        (``api_names``: the server's own, or an API-safe one for a name with ``.`` or ``/``)."""
        return list(self._offered)

    def schemas(self) -> list[dict]:
        """The tools as a chat request's ``tools``: ``to_openai_tool`` of each, with its API name and
        ``api_parameters`` (the same as ``to_openai_tool`` for a server whose names and schemas fit)."""
        return copy.deepcopy(self._schemas)

    def approval_names(self) -> list[str]:
        """Tools a person must approve before they run (notebook 08): every tool offered that does
        not say it is read-only (``read_only``: MCP's ``readOnlyHint``, default false)."""
        return [name for name, tool in self._offered.items() if not read_only(tool)]

    def call(self, name: str, arguments: dict | None = None) -> tuple[str, bool]:
        """Call tool ``name`` through ``tools/call``; the same contract as ``ToolRegistry.call``.

        Args:
            name: a name of ``names`` (what the model calls it), or the server's own name of that tool.
            arguments: the tool's arguments (a dict; None = ``{}``).
        Returns:
            ``(text, ok)``: the result as text (``result_text``: every content item, and
            ``structuredContent``) and ``not isError``; for an unknown name, a tool in
            ``left_out`` or arguments that are not an object, a ``"错误：..."`` text and
            False without asking the server.  A tool's failure never raises.
        Raises:
            McpTimeoutError: no answer within ``timeout_s`` (for a tool that is not read-only the
                message says the call may still complete, and to check before calling again).
            McpError: closed, or the server went away (the message says how to go on).
            KeyboardInterrupt: Ctrl-C while waiting (the request is abandoned; the session stays usable).
        """
        if name not in self._offered:  # the server's own name of a renamed tool
            name = {tool.name: api_name for api_name, tool in self._offered.items()}.get(name, name)
        if name in self.left_out:
            return ERROR_PREFIX + t("mcp.tool_left_out", name=name, why=self.left_out[name]), False
        if name not in self._offered:
            return ERROR_PREFIX + unknown_tool_text(name, self.names), False
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, dict):
            return t("mcp.arguments_not_object", name=name, kind=type(arguments).__name__), False
        try:
            result = self._connection.call_tool(self._offered[name].name, arguments)
        except MCPError as error:  # the server answered with a JSON-RPC error instead of a result
            return t("mcp.call_refused", name=name, message=error.message, code=error.code), False
        except McpTimeoutError as error:
            if read_only(self._offered[name]):
                raise
            raise McpTimeoutError(t("mcp.write_timeout", timeout=error, name=name)) from None
        finally:
            self._tell_about_stdout()
        text = result_text(result)
        if result.is_error and not text.startswith(ERROR_PREFIX):
            text = ERROR_PREFIX + text
        return text, not result.is_error

    def _tell_about_stdout(self) -> None:
        """Once per server: a Chinese notice when it wrote lines to stdout that are not JSON-RPC."""
        odd = [entry["message"]["line"] for entry in self.log if entry["kind"] == "unreadable"]
        if odd and not self._told_stdout:
            self._told_stdout = True
            command = " ".join([self._connection.params.command, *self._connection.params.args])
            warnings.warn(t("mcp.stdout_noise", command=command, line=shorten(odd[0], 200)),
                          RuntimeWarning, stacklevel=3)

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


