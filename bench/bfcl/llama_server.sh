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
py="$(bash "$here/setup.sh")"
out="${BFCL_RESULTS:-$here/results}"
mkdir -p "$out"
source "$here/../llama_server/start.sh"
start_llama_server "$model" "$out/llama-server.log"
export BFCL_SERVER_PID=$LLAMA_PID   # run.py adds the server's CPU time to each entry's
args=("$@")
case " ${args[*]} " in *" -- "*) ;; *) args+=(--) ;; esac
"$py" "$here/run.py" run --model "openai-compat:$(basename "$model" .gguf)" "${args[@]}" \
  --base-url "http://127.0.0.1:$LLAMA_PORT/v1"
