#!/usr/bin/env bash
# Disclosure modes on a prompt a user writes: one question ("What is 1234 + 4321?") whose `add`
# tool is visible, hidden in a summarized section (unified, wink, open-sections and
# context-files modes), with the question as a param and no user message.
#
# Usage: bash bench/five_variants/run.sh [MODEL]   (default: local, the 1.5B model)
# WINK names the binary (default: $CARGO_TARGET_DIR/release/wink, else target/release/wink).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
wink="${WINK:-${CARGO_TARGET_DIR:-$root/target}/release/wink}"
model="${1:-local}"
params='{"Q": {"question": "What is 1234 + 4321?"}}'
passed=0
printf '%-14s %-6s %-6s %-8s %s\n' variant calls ok seconds answer
for variant in visible hidden hidden-wink hidden-open hidden-files; do
  transcript="$(mktemp)"
  start=$(date +%s.%N)
  answer="$("$wink" run "$here/$variant.json" --model "$model" --yes --params "$params" \
    --transcript "$transcript" 2>/dev/null || true)"
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  calls=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["model_calls"]))' "$transcript" 2>/dev/null || echo "?")
  ok=no
  if grep -q "5555\|5,555" <<<"$answer"; then ok=yes; passed=$((passed + 1)); fi
  printf '%-14s %-6s %-6s %-8.1f %s\n' "$variant" "$calls" "$ok" "$seconds" "$(tr '\n' ' ' <<<"$answer" | cut -c1-80)"
  rm -f "$transcript"
done
echo "$passed passed, $((5 - passed)) failed"
