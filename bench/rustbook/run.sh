#!/usr/bin/env bash
# Disclosure past the context window: the Rust book (data/rust-book/book, ~300K tokens) as a prompt
# built by `wink docs-to-prompt`, and 44 questions a reader would ask (cases.dev.jsonl,
# cases.heldout.jsonl), on one model, for each context size and mode:
#   expanded   every section in full (`--disclosure expanded`): refused, it does not fit
#   search     disclosure with `search_sections` (the default once summaries hide 12+ sections)
#   nosearch   disclosure without it (`--search-sections off`)
#
#   bash bench/rustbook/run.sh [MODEL] [-- EXTRA wink eval FLAGS]
#
# MODEL defaults to the embedded 1.5B. CONTEXTS (default "8192 32768"), MODES (default
# "expanded search nosearch") and HALVES (default "dev heldout") choose the runs; each writes
# results/<model>/<half>-<context>-<mode>.json, and summary.py prints the table of those runs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
wink="${WINK:-${CARGO_TARGET_DIR:-$root/target}/release/wink}"
model="${1:-local:$HOME/.cache/wink/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf}"
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
slug="$(basename "$model" | tr -c 'a-zA-Z0-9.\n-' '_')"
out="$here/results/$slug"
mkdir -p "$out"
prompt="$out/prompt.json"
made="$("$wink" docs-to-prompt "$root/data/rust-book/book" --output "$prompt" --key rust-book 2>&1)"
expanded="$("$wink" render "$prompt" --disclosure expanded --format json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["tokens"]["total"])')"
# The prompt, as the table's first line: what docs-to-prompt made and its size expanded.
echo "The prompt: ${made#*: wrote *: }; $expanded tokens expanded (o200k, text)."
echo
written=()
for half in ${HALVES:-dev heldout}; do
  for context in ${CONTEXTS:-8192 32768}; do
    for mode in ${MODES:-expanded search nosearch}; do
      case "$mode" in
        expanded) flags=(--disclosure expanded) ;;
        search) flags=(--search-sections auto) ;;
        nosearch) flags=(--search-sections off) ;;
        *) echo "unknown mode $mode" >&2; exit 2 ;;
      esac
      echo "== $model: $half, context $context, $mode" >&2
      written+=("$out/$half-$context-$mode.json")
      "$wink" eval "$prompt" --cases "$here/cases.$half.jsonl" --model "$model" \
        --context-size "$context" --format json --verbose "${flags[@]}" "$@" \
        > "$out/$half-$context-$mode.json" 2> "$out/$half-$context-$mode.log" || true
    done
  done
done
python3 "$here/summary.py" "${written[@]}"
