r"""Notebook 09's MCP servers on Windows, in a Chinese folder with a space (issue 41, part 6).

``McpTools`` starts a server through the official SDK (``mcp==2.3.0``): ``stdio_client`` ->
``mcp/os/win32/utilities.py``: ``get_windows_executable_command`` (``shutil.which`` with
``PATHEXT``: ``npx`` becomes ``...\nodejs\npx.CMD``), then ``create_windows_process``:
``anyio.open_process([command, *args], cwd=..., env=...)`` - a list, no shell - or, on an
event loop without subprocess support, ``subprocess.Popen`` of the same list.  On Windows,
Python joins that list with ``subprocess.list2cmdline`` for ``CreateProcessW``, and the child's
C runtime splits it back (``CommandLineToArgvW`` rules: Microsoft, "Parsing C++ command-line
arguments", implemented and checked against Microsoft's examples in
``tests/test_child_arguments.py::windows_argv``).  The working folder is handed over apart from
the command line (``lpCurrentDirectory``, UTF-16), never through it.

A ``.cmd``/``.bat`` launcher (``npx.cmd``) is the exception: Windows runs it through cmd.exe,
which reads the line by its own rules (``cmd /?``): ``"`` toggles quoting (no backslash
escapes), and outside quotes ``& | < > ^ ( )`` are its own symbols; ``%NAME%`` is expanded even
inside quotes.  ``list2cmdline`` quotes only arguments with a space or a tab, so ``C:\R&D\notes``
reaches cmd.exe unquoted.  ``McpTools`` refuses such an argument with a Chinese sentence before
anything starts.  Wrapping the launcher in ``cmd /c`` would not help: cmd /c strips the first and
the last quote of a line that starts with one (``cmd /?``), which breaks a quoted program path
such as ``"C:\Program Files\nodejs\npx.cmd"``, and ``list2cmdline`` cannot write the extra quotes
``cmd /s /c "..."`` needs (it escapes an inner ``"`` as ``\"``, which cmd.exe does not read).

Not verified here (no Windows machine): CreateProcess running the .cmd, the SDK's Job Object,
and an asyncio subprocess from the session's thread under ipykernel 7.4 (whose code sets no
event-loop policy: its service threads use their own ``SelectorEventLoop``, the main loop is
Python's default Proactor).  ``McpTools`` gives its session a ``ProactorEventLoop`` on Windows
whatever policy a library set, so the SDK never falls back to its Popen-backed process there.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import PureWindowsPath

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.os.win32 import utilities as win32_utilities

from course_lib import mcp_client
from course_runtime import mcp_connection
from test_child_arguments import windows_argv  # the documented Windows splitter, checked against Microsoft's table

PYTHON = r"C:\Users\张三\AI 课程\llm-agent-course\.venv\Scripts\python.exe"
PROJECT = PureWindowsPath(r"C:\Users\张三\AI 课程\llm-agent-course")
NPX = r"C:\Program Files\nodejs\npx.CMD"


@pytest.mark.parametrize("command, args", [
    (None, None),  # the course server: python -m course_lib.mcp_server
    (PYTHON, [r"C:\Users\张三\AppData\Local\Temp\course_dice_server.py"]),  # notebook 09's dice server
    (PYTHON, ["-c", 'import sys; print("a b", sys.argv)', r"C:\AI 课程\末尾\\", "", 'x"y']),
])
def test_every_argument_of_a_python_server_arrives_whole_on_windows(monkeypatch, command, args):
    monkeypatch.setattr(sys, "executable", PYTHON)
    monkeypatch.setattr(mcp_connection, "PROJECT_ROOT", str(PROJECT))  # a Windows path (pydantic takes it as str here)
    params = mcp_client.server_parameters(command, args)
    line = subprocess.list2cmdline([params.command, *params.args])  # what Popen hands CreateProcessW
    expected = [PYTHON, *(args if command else ["-m", "course_lib.mcp_server"])]
    assert windows_argv(line) == expected
    if command is None:
        assert str(params.cwd) == str(PROJECT) and str(PROJECT) not in windows_argv(line)  # apart, not on the line
    assert mcp_client.batch_argument_problem(PYTHON, params.args) is None  # a .exe: no cmd.exe rules


@pytest.mark.parametrize("fallback", [False, True])
def test_the_sdk_starts_a_list_without_a_shell_and_the_folder_apart(monkeypatch, fallback):
    """The SDK's own Windows spawn (``create_windows_process``), run with its process call recorded."""
    seen = {}

    async def open_process(command, **kwargs):
        if fallback:
            raise NotImplementedError  # a SelectorEventLoop: the SDK falls back to Popen
        seen.update(command=command, **kwargs)
        return object()

    class Popen:
        def __init__(self, command, **kwargs):
            seen.update(command=command, **kwargs)
            self.stdin = self.stdout = None

    monkeypatch.setattr(win32_utilities.anyio, "open_process", open_process)
    monkeypatch.setattr(win32_utilities.subprocess, "Popen", Popen)
    params = StdioServerParameters(command=PYTHON, args=["-m", "course_lib.mcp_server"], cwd=str(PROJECT))
    anyio.run(win32_utilities.create_windows_process, params.command, params.args, {"PYTHONPATH": str(PROJECT)},
              None, params.cwd)
    assert seen["command"] == [PYTHON, "-m", "course_lib.mcp_server"]
    assert seen["cwd"] == str(PROJECT) and not seen.get("shell") and seen["env"] == {"PYTHONPATH": str(PROJECT)}


def cmd_exe_sees(line: str) -> tuple[str, bool]:
    """What cmd.exe acts on in ``line`` (``cmd /?``; "Command shell overview"): the characters outside
    double quotes that are its own (``& | < > ^ ( )``), and whether a ``%`` is there (expanded even in quotes).
    A ``"`` toggles quoting; a backslash does not escape it."""
    quoted, active = False, []
    for char in line:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in mcp_connection.CMD_SPECIAL:
            active.append(char)
    return "".join(active), "%" in line


SAFE = ["-y", "@modelcontextprotocol/server-filesystem", r"C:\Users\张三\AI 课程\data", r"C:\Program Files (x86)\x",
        "R&D notes", r"C:\AI 课程\末尾" + "\\"]
UNSAFE = [r"C:\R&D\notes", r"C:\data(1)", "a|b", "x^y", "100%", "%USERPROFILE%", 'say "hi"', "a\nb"]


def test_a_cmd_launcher_gets_arguments_cmd_exe_reads_as_given():
    line = subprocess.list2cmdline([NPX, *SAFE])
    assert mcp_client.batch_argument_problem(NPX, SAFE) is None
    assert cmd_exe_sees(line) == ("", False)  # nothing for cmd.exe to act on
    assert windows_argv(line) == [NPX, *SAFE]  # and node (a C runtime) gets them back whole


@pytest.mark.parametrize("arg", UNSAFE)
def test_an_argument_cmd_exe_would_misread_is_refused_in_chinese(monkeypatch, arg):
    active, percent = cmd_exe_sees(subprocess.list2cmdline([NPX, "-y", "server", arg]))
    assert active or percent or '"' in arg or "\n" in arg  # why: cmd.exe would act on it
    problem = mcp_client.batch_argument_problem(NPX, ["-y", "server", arg])
    assert problem and f"「{arg}」".replace("\n", "\\n") in problem and "cmd.exe" in problem and "node" in problem
    started = []
    monkeypatch.setattr(mcp_client, "windows_program", lambda command: NPX if command == "npx" else None)
    monkeypatch.setattr(mcp_client, "McpConnection", lambda *a, **k: started.append(a))
    with pytest.raises(mcp_client.McpError) as err:
        mcp_client.McpTools("npx", ["-y", "server", arg])
    assert str(err.value) == problem and not started  # refused before anything started


def test_a_python_server_is_not_a_cmd_launcher(monkeypatch):
    assert mcp_client.batch_argument_problem(PYTHON, UNSAFE) is None
    assert mcp_client.batch_argument_problem(None, UNSAFE) is None  # not Windows: the SDK starts no cmd.exe


def test_npx_is_found_as_its_cmd_launcher_the_way_the_sdk_finds_it(monkeypatch):
    """``windows_program`` is the SDK's own lookup (``shutil.which`` with ``PATHEXT``) on Windows, None elsewhere."""
    monkeypatch.setattr(win32_utilities.shutil, "which", lambda name: NPX if name == "npx" else None)
    monkeypatch.setattr(sys, "platform", "win32")
    assert mcp_client.windows_program("npx") == NPX
    monkeypatch.setattr(sys, "platform", "linux")
    assert mcp_client.windows_program("npx") is None


def test_the_session_loop_is_a_proactor_loop_on_windows_whatever_the_policy(monkeypatch):
    """On Windows only a ProactorEventLoop runs asyncio subprocesses; a policy set to Selector (as
    jupyter_server does in its own process) would push the SDK into its Popen fallback."""
    class ProactorEventLoop:
        pass

    monkeypatch.setattr(asyncio, "ProactorEventLoop", ProactorEventLoop, raising=False)
    monkeypatch.setattr(sys, "platform", "win32")
    assert isinstance(mcp_connection.new_event_loop(), ProactorEventLoop)
    monkeypatch.setattr(sys, "platform", "linux")
    loop = mcp_connection.new_event_loop()
    assert isinstance(loop, asyncio.AbstractEventLoop)
    loop.close()
