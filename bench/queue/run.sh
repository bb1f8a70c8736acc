#!/usr/bin/env bash
# The Redis queue benchmark: requests per second with 1, 2 and 4 `wink worker` processes on the
# scripted model, the checkpoint overhead per driver step, and memory per in-flight run.
#   bench/queue/run.sh [REQUESTS]          (default 200 per worker count)
# Starts its own redis-server on a free port in a temporary directory (append-only on).
# WINK names the binary (default: $CARGO_TARGET_DIR/release/wink, else target/release/wink).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
wink="${WINK:-${CARGO_TARGET_DIR:-$root/target}/release/wink}"
requests="${1:-200}"
prompt="$root/crates/wink-cli/tests/fixtures/queue/prompt.json"
script="$root/crates/wink-cli/tests/fixtures/queue/script.json"
command -v redis-server >/dev/null || { echo "redis-server is not installed (scripts/setup.sh installs it)" >&2; exit 1; }

dir="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
url="redis://127.0.0.1:$port/"
redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --appendonly yes --appendfsync everysec \
  --save "" --daemonize no --loglevel warning >/dev/null &
redis_pid=$!
pids=()
cleanup() {
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  kill "$redis_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.05; done

done_count() { "$wink" queue stats --redis "$url" --queue "$1" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["done"])'; }
now() { python3 -c 'import time; print(time.time())'; }

echo "requests per run: $requests (each: 3 scripted model calls, 2 command-tool calls, 5 checkpoints)"
for workers in 1 2 4; do
  queue="bench-$workers"
  for i in $(seq 1 "$requests"); do
    "$wink" submit "$prompt" --redis "$url" --queue "$queue" --params "{\"Task\": {\"objective\": \"r$i\"}}" >/dev/null
  done
  start="$(now)"
  pids=()
  for w in $(seq 1 "$workers"); do
    WINK_TOOL_SLEEP=0 "$wink" worker "$prompt" --redis "$url" --queue "$queue" \
      --model "scripted:$script" 2>"$dir/worker-$workers-$w.log" &
    pids+=($!)
  done
  while [ "$(done_count "$queue")" -lt "$requests" ]; do sleep 0.05; done
  end="$(now)"
  for p in "${pids[@]}"; do kill -TERM "$p"; wait "$p" || true; done
  pids=()
  python3 - "$workers" "$requests" "$start" "$end" "$dir"/worker-"$workers"-*.log <<'PY'
import re, sys
workers, requests, start, end = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
n = total = 0
for path in sys.argv[5:]:
    m = re.search(r"(\d+) checkpoints, mean (\d+) µs", open(path).read())
    if m:
        n += int(m.group(1)); total += int(m.group(1)) * int(m.group(2))
mean = total / n if n else 0
print(f"{workers} worker(s): {requests / (end - start):.1f} requests/s ({end - start:.2f} s), "
      f"{n} checkpoints, mean {mean / 1000:.2f} ms per checkpoint")
PY
done

# Memory per in-flight run: one worker with 16 slots, idle, then with 16 runs held in a slow tool.
queue="bench-memory"
WINK_TOOL_SLEEP=5 "$wink" worker "$prompt" --redis "$url" --queue "$queue" --concurrency 16 \
  --model "scripted:$script" 2>"$dir/worker-memory.log" &
worker=$!
pids=("$worker")
sleep 1
idle_kb="$(awk '/VmRSS/ {print $2}' "/proc/$worker/status")"
ids=()
for i in $(seq 1 16); do
  ids+=("$("$wink" submit "$prompt" --redis "$url" --queue "$queue")")
done
sleep 2.5
busy_kb="$(awk '/VmRSS/ {print $2}' "/proc/$worker/status")"
stream_bytes=0
for id in "${ids[@]}"; do
  b="$(redis-cli -p "$port" memory usage "wink:{$queue}:run:$id" 2>/dev/null || echo 0)"
  stream_bytes=$((stream_bytes + ${b:-0}))
done
kill -TERM "$worker"; wait "$worker" || true
pids=()
python3 -c "
idle, busy, stream = $idle_kb, $busy_kb, $stream_bytes
print(f'memory: worker RSS {idle/1024:.1f} MiB idle with 16 slots, {busy/1024:.1f} MiB with 16 runs in flight: '
      f'{(busy-idle)/16:.0f} KiB per in-flight run in the worker; {stream/16/1024:.1f} KiB of checkpoints per run in Redis')
"
