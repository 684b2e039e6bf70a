#!/usr/bin/env bash
# The course's entry point is course.py (Python, so that it runs on Windows, macOS and Linux alike;
# read its docstring):  python course.py lab | test [ARGS] | setup | check | bench [ARGS] | serve [ARGS] | capstone new | join CODE | progress
#   | exercises [ARGS] | new-exercise NN
# This wrapper keeps "bash course.sh ..." working: it runs course.py with $PYTHON (default python3),
# and that Python also makes the virtual environment, e.g. PYTHON=python3.12 bash course.sh setup.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
PYTHON="${PYTHON:-python3}"
if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "课程需要 Python 3.11 或更新的版本（没有找到 $PYTHON）。安装：Debian/Ubuntu: sudo apt install python3 python3-venv；" \
         "Fedora: sudo dnf install python3；macOS: brew install python；或者设置 PYTHON=/path/to/python3.x" >&2
    exit 1
fi
exec "$PYTHON" course.py "$@"
