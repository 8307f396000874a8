#!/usr/bin/env bash
# Installs a built wheel or sdist into a fresh virtualenv and runs scripts/wheel_smoke.py
# from outside the checkout, so the installed package is the one imported.
# Usage: scripts/smoke_install.sh DIST_FILE [MAX_MB]   (Linux, macOS, Windows' Git Bash)
set -euo pipefail
dist="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
scripts="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
python="${PYTHON:-python3}"
command -v "$python" > /dev/null || python=python
"$python" -m venv "$work/venv"
bin="$work/venv/bin"
[ -d "$work/venv/Scripts" ] && bin="$work/venv/Scripts"
"$bin/python" -m pip install -q "$dist"
cd "$work"
"$bin/python" "$scripts/wheel_smoke.py" --max-mb "${2:-20}"
