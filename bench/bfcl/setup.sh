#!/usr/bin/env bash
# Creates the Python environment bench/bfcl needs — the official BFCL package `bfcl-eval`
# (pinned, hash-checked, without its declared dependencies: see requirements.txt) — in the wink
# cache, and prints its python on stdout:
#   PY=$(bash bench/bfcl/setup.sh)
# The environment is $WINK_HOME/bfcl-venv (else $XDG_CACHE_HOME/wink/bfcl-venv, else
# ~/.cache/wink/bfcl-venv); it is made again when requirements.txt changes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${WINK_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/wink}"
venv="$cache/bfcl-venv"
stamp="$venv/requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
    --require-hashes -r "$here/requirements.txt" >&2
  echo "$want" > "$stamp"
fi
echo "$venv/bin/python"
