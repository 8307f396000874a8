#!/usr/bin/env bash
# Installs a built wheel or sdist into a fresh virtualenv and runs scripts/wheel_smoke.py
# from outside the checkout, so the installed package is the one imported.
# Usage: [PYTHON=interpreter] scripts/smoke_install.sh DIST_FILE [MAX_MB]
# (Linux, macOS, Windows' Git Bash). The virtualenv is made with PYTHON when it is set (and
# fails if that cannot run), else with python3, else python.
set -euo pipefail
dist="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
scripts="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
python="${PYTHON:-python3}"
[ -n "${PYTHON:-}" ] || command -v "$python" > /dev/null || python=python
# A Windows path (C:\...\python.exe, as actions/setup-python gives it) in Git Bash's form.
if [ -n "${PYTHON:-}" ] && command -v cygpath > /dev/null; then python="$(cygpath -u "$PYTHON")"; fi
"$python" -m venv "$work/venv"
bin="$work/venv/bin"
[ -d "$work/venv/Scripts" ] && bin="$work/venv/Scripts"
echo "smoke test of $(basename "$dist") on $("$bin/python" -c 'import sys; print(sys.version)')"
"$bin/python" -m pip install -q "$dist"
cd "$work"
"$bin/python" "$scripts/wheel_smoke.py" --max-mb "${2:-20}"
