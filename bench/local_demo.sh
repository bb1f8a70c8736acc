#!/usr/bin/env bash
# The local demo (examples/01_local_demo) with and without KV-cache prefix
# reuse, and with progressive disclosure versus every section expanded up front. Prints a
# Markdown table: model calls, prompt tokens processed (and served from the cache), output
# tokens, prefill and decode speed, wall seconds, and whether the answer is correct (status
# "shipped" and 2026-11-25). Prefill tok/s is prompt tokens evaluated (not served from the
# cache) over prefill time; decode tok/s is generated tokens over generation time, both summed
# over the run's model calls from the per-call lines `--verbose` prints.
#
# Usage: bash bench/local_demo.sh            (needs target/release/wink and the model: scripts/demo.sh)
#        MODEL=local:0.5b THREADS=2 bash bench/local_demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WINK=${WINK:-target/release/wink}
MODEL=${MODEL:-local}
THREADS=${THREADS:-0}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "| run | model calls | prompt tokens (cached) | output tokens | prefill tok/s | decode tok/s | seconds | correct |"
echo "|---|---|---|---|---|---|---|---|"
run() {
  local label=$1; shift
  local start end
  start=$(date +%s.%N)
  "$WINK" run examples/01_local_demo/prompt.json --model "$MODEL" --threads "$THREADS" --max-model-calls 8 \
    --verbose --transcript "$out/t.json" "$@" > "$out/answer.txt" 2> "$out/err.txt" || true
  end=$(date +%s.%N)
  python3 - "$label" "$start" "$end" "$out/t.json" "$out/answer.txt" "$out/err.txt" <<'PY'
import json, re, sys
label, start, end, transcript, answer, err = sys.argv[1:]
try:
    t = json.load(open(transcript))
except (OSError, ValueError):
    print(f"| {label} | failed | | | | | {float(end) - float(start):.1f} | no |")
    sys.exit(0)
# "[local turn] prompt 812 tok (640 cached), prefill 1400 ms at 122.9 tok/s; decode 31 tok in 2100 ms at 14.8 tok/s"
call = re.compile(r"\[local [^\]]*\] prompt (\d+) tok \((\d+) cached\), prefill (\d+) ms at [\d.]+ tok/s; "
                  r"decode (\d+) tok in (\d+) ms")
evaluated = prefill_ms = generated = decode_ms = 0
for m in call.finditer(open(err).read()):
    prompt, cached, p_ms, out_tokens, d_ms = map(int, m.groups())
    evaluated += prompt - cached
    prefill_ms += p_ms
    generated += out_tokens
    decode_ms += d_ms
rate = lambda tokens, ms: f"{tokens / (ms / 1000):.1f}" if ms > 0 else "-"
text = open(answer).read()
correct = "shipped" in text.lower() and ("2026-11-25" in text or "november 25" in text.lower())
u = t["usage"]
print(f"| {label} | {t['model_call_count']} | {u['input_tokens']} ({u['cached_tokens']}) | {u['output_tokens']} "
      f"| {rate(evaluated, prefill_ms)} | {rate(generated, decode_ms)} | {float(end) - float(start):.1f} | {'yes' if correct else 'no'} |")
PY
}
run "disclosure, prefix cache"
run "disclosure, no prefix cache" --no-prefix-cache
run "everything expanded, prefix cache" --expand orders --expand returns
run "everything expanded, no prefix cache" --expand orders --expand returns --no-prefix-cache
