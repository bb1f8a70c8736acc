#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what is missing, then runs format, lint and
# every test of the workspace (including the real-model tests on the small local model).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

# Incremental artefacts only help repeated local edits; a one-shot run would just fill the disk.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# The models setup.sh fetched must be used, not skipped (a missing one fails its tests).
if [ "${WINK_SKIP_REAL_MODEL:-0}" != "1" ]; then
  export WINK_REQUIRE_EMBED_MODEL=1
fi

cargo fmt --all --check
cargo clippy --workspace --all-targets --locked --offline -- -D warnings
cargo test --workspace --locked --offline
