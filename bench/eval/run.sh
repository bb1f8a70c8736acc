#!/usr/bin/env bash
# Runs the wink eval suite (every *.cases.jsonl beside its prompt file, except ci.cases.jsonl) on
# one or more models and prints a pass-rate table per task type and model.
#   bench/eval/run.sh [MODEL...] [-- EXTRA wink eval FLAGS]
# MODEL defaults to the 0.5B local model. Reports go to bench/eval/results/<model>/<prompt>.json.
# WINK names the binary (default: $CARGO_TARGET_DIR/release/wink, else target/release/wink).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
wink="${WINK:-${CARGO_TARGET_DIR:-$root/target}/release/wink}"
models=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do models+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#models[@]} -eq 0 ] && models=("local:$HOME/.cache/wink/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
for model in "${models[@]}"; do
  slug="$(basename "$model" | tr -c 'a-zA-Z0-9.\n-' '_')"
  out="$here/results/$slug"
  mkdir -p "$out"
  reports=()
  for cases in "$here"/*.cases.jsonl; do
    name="$(basename "$cases" .cases.jsonl)"
    [ "$name" = ci ] && continue
    prompt=""
    for ext in json toml yaml; do
      [ -f "$here/$name.$ext" ] && prompt="$here/$name.$ext" && break
    done
    echo "== $model: $name" >&2
    "$wink" eval "$prompt" --cases "$cases" --model "$model" --format json "$@" > "$out/$name.json"
    reports+=("$out/$name.json")
  done
  python3 "$here/summarize.py" "$model $*" "${reports[@]}"
done
