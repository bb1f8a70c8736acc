#!/usr/bin/env bash
# The disclosure benchmark: the same cases with --disclosure unified and --disclosure expanded
# (every section in full: ~22K tokens of reference plus 32 tools up front).
#   bench/disclosure/run.sh [MODEL] [-- EXTRA wink eval FLAGS]
# MODEL defaults to the 0.5B local model; the context is 32768 tokens so the expanded prompt fits.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
wink="${WINK:-${CARGO_TARGET_DIR:-$root/target}/release/wink}"
model="${1:-local:$HOME/.cache/wink/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf}"
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
slug="$(basename "$model" | tr -c 'a-zA-Z0-9.\n-' '_')"
out="$here/results/$slug"
mkdir -p "$out"
for mode in unified expanded; do
  echo "== $model: --disclosure $mode" >&2
  "$wink" eval "$here/prompt.json" --cases "$here/cases.jsonl" --model "$model" \
    --disclosure "$mode" --context-size 32768 --format json "$@" > "$out/$mode.json"
done
python3 - "$out/unified.json" "$out/expanded.json" <<'PY'
import json, sys
print("| disclosure | pass rate | prompt tokens | uncached prompt tokens | uncached, every question cold | model calls | seconds |")
print("|---|---:|---:|---:|---:|---:|---:|")
for mode, path in zip(["unified", "expanded"], sys.argv[1:]):
    r = json.load(open(path))
    calls = sum(c["model_calls"] for c in r["cases"])
    print(f"| {mode} | {100 * r['pass_rate']:.0f}% | {r['prompt_tokens']} | {r['uncached_prompt_tokens']} | {r['cold_uncached_prompt_tokens']} | {calls} | {r['seconds']:.1f} |")
PY
