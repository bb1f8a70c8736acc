#!/usr/bin/env bash
# One-time machine set-up: system packages the build needs, crate downloads, model downloads.
# The evaluation data the tests read is vendored in data/ (nothing outside the repository is read).
# Safe to run again: every step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

need=()
command -v cmake >/dev/null || need+=(cmake)
dpkg -s libclang-dev >/dev/null 2>&1 || need+=(libclang-dev)
command -v python3 >/dev/null || need+=(python3 python3-pip)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

cargo fetch --locked

# The small local model for the real-model tests, and the static embedding model for the hybrid
# tool search (both skipped when WINK_SKIP_REAL_MODEL=1).
if [ "${WINK_SKIP_REAL_MODEL:-0}" != "1" ]; then
  bash scripts/fetch-model.sh 0.5b
  bash scripts/fetch-embeddings.sh
fi

# The official MCP Python SDK: an MCP client this project did not write, for the MCP server tests.
if ! python3 -c "import mcp" >/dev/null 2>&1; then
  echo "setup: installing the MCP Python SDK"
  spec="mcp==${WINK_MCP_VERSION:-2.3.0}"
  # A Debian system Python refuses plain installs (PEP 668); fall back to a user install there.
  python3 -m pip install --quiet --disable-pip-version-check "$spec" \
    || python3 -m pip install --quiet --disable-pip-version-check --user --break-system-packages "$spec"
fi
