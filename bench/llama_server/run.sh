#!/usr/bin/env bash
# The bookshop questions (bench/llama_server/cases.jsonl) through llama.cpp's own OpenAI-compatible server
# (`llama-server --jinja`, the pinned wheel scripts/setup.sh unpacks) and through the embedded
# provider, with disclosure (tools in summarized sections, the default `unified` mode) and with
# every section expanded. Prints one table row per provider and mode: pass rate, model calls
# (mean and max: every question must end within 10), prompt tokens.
#   bench/llama_server/run.sh [MODEL.gguf]
# MODEL defaults to the 1.5B model in the wink cache. Reports go to bench/llama_server/results/.
# WINK names the wink binary (default: $CARGO_TARGET_DIR/release/wink, else target/release/wink);
# WINK_LLAMA_SERVER the server binary.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
wink="${WINK:-${CARGO_TARGET_DIR:-$root/target}/release/wink}"
cache="${WINK_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/wink}"
[ -n "${WINK_HOME:-}" ] && cache="$WINK_HOME"
model="${1:-$cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf}"
for f in "$wink" "$model"; do
  [ -e "$f" ] || { echo "missing: $f (cargo build --release -p wink-cli; scripts/setup.sh)" >&2; exit 2; }
done
out="$here/results"
mkdir -p "$out"
source "$here/start.sh"
start_llama_server "$model" "$out/llama-server.log"
run() { # label, then wink eval flags
  local label="$1"; shift
  echo "== $label" >&2
  "$wink" eval "$here/bookshop.json" --cases "$here/cases.jsonl" --format json "$@" > "$out/$label.json"
}
http=(--model openai-compat:qwen --base-url "http://127.0.0.1:$LLAMA_PORT/v1")
run llama-server-disclosure "${http[@]}"
run llama-server-expanded "${http[@]}" --disclosure expanded
# What a user of a small self-hosted model can add: one section pre-opened (the embedded
# model's default; HTTP providers pre-open none unless asked).
run llama-server-preopen "${http[@]}" --preopen 1
kill "$LLAMA_PID" 2>/dev/null || true
run embedded-disclosure --model "local:$model"
run embedded-expanded --model "local:$model" --disclosure expanded
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
print("| provider | mode | passed | model calls (mean / max) | prompt tokens/question | s/question |")
print("|---|---|---:|---:|---:|---:|")
for label in ["llama-server-disclosure", "llama-server-preopen", "llama-server-expanded", "embedded-disclosure", "embedded-expanded"]:
    r = json.load(open(f"{out}/{label}.json"))
    cases = r["cases"]
    calls = [c["model_calls"] for c in cases]
    n = len(cases)
    provider, mode = label.rsplit("-", 1)
    mode = {"preopen": "disclosure, --preopen 1"}.get(mode, mode)
    provider = "openai-compat + llama-server" if provider == "llama-server" else "embedded (local)"
    print(f"| {provider} | {mode} | {sum(c['passed'] for c in cases)}/{n} | {sum(calls)/n:.1f} / {max(calls)} | "
          f"{r['prompt_tokens']/n:.0f} | {r['seconds']/n:.1f} |")
PY
