"""What several test files need from the machine they run on: is this CI, a free loopback port, skip or fail, wait.

Tests that need a program the machine may lack (Chromium, Wine, the model)
skip on a developer's machine and fail in CI (``CI=true``), where .ci/run
installs it: a missing install step then shows as a failure, never as a skip.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable

import pytest


def in_ci() -> bool:
    """True when ``CI`` is set to true / 1 / yes (as .ci/run runs)."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def skip_or_fail(message: str) -> None:
    """Fail with ``message`` in CI, skip with it elsewhere (never returns)."""
    if in_ci():
        pytest.fail(message)
    pytest.skip(message)


def model_server_available() -> bool:
    """Whether this machine has the course's llama-server program and the model file (``python course.py setup``)."""
    from pathlib import Path

    from course_runtime import local_server

    try:
        return Path(local_server.server_program()[0]).is_file() and local_server.model_path().is_file()
    except local_server.LocalModelError:
        return False


def free_port() -> int:
    """A loopback TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition: Callable[[], object], seconds: float = 15.0) -> bool:
    """Poll ``condition`` every 0.05 s until it is true or ``seconds`` have passed; its last truth value."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())
