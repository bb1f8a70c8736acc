#!/usr/bin/env bash
# The `wink eval` suites through llama.cpp's own OpenAI-compatible server (`llama-server --jinja`,
# the pinned wheel scripts/setup.sh unpacks) and wink's `openai-compat` provider, with the same
# GGUF the embedded runs use: starts the server on a free port, runs bench/eval/run.sh with the
# given arguments and the model `openai-compat:NAME` (NAME: the GGUF's file name, so the model
# profile is the embedded model's), stops the server.
#   bash bench/eval/llama_server.sh MODEL.gguf [run.sh flags: --half, --suite, --expanded, ...]
# WINK_LLAMA_SERVER names the server binary, WINK the wink binary, THREADS the server's threads
# (default: every core). The server's log goes to bench/eval/results/llama-server.log.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -ge 1 ] || { echo "usage: bash bench/eval/llama_server.sh MODEL.gguf [run.sh flags]" >&2; exit 2; }
model="$1"
shift
mkdir -p "$here/results"
source "$here/../llama_server/start.sh"
start_llama_server "$model" "$here/results/llama-server.log"
bash "$here/run.sh" "$@" "openai-compat:$(basename "$model" .gguf)" -- --base-url "http://127.0.0.1:$LLAMA_PORT/v1"
