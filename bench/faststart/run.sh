#!/usr/bin/env bash
# Start-up of whole `wink` processes and the in-process cost of loading and
# rendering prompt files, beside WINK v0.17 (Python) rendering the same prompt in-process.
# Prints Markdown tables; process figures are min / median / max wall milliseconds over RUNS runs
# (bench/faststart/measure.py; spawning from Python adds about 1 ms).
#
# The prompt files (crates/wink-promptfile/benches/support/mod.rs): N sections as N/10 roots with
# nine children each, every other root summarized, `${}` placeholders, one tool per root.
#
# Usage: bash bench/faststart/run.sh                 (builds target/release/wink)
#        RUNS=50 WINK=path/to/wink bash bench/faststart/run.sh
#        PYTHON=python3.13 bash bench/faststart/run.sh   (WINK column: a CPython >= 3.12.2; a throwaway
#        venv gets weakincentives==0.17.0, or set WINK_PY_VENV to a venv that has it)
#        INPROCESS=0 to skip `cargo bench`.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-30}
target=${CARGO_TARGET_DIR:-target}
if [ -z "${WINK:-}" ]; then
  cargo build --release --offline -p wink-cli -q
  WINK=$target/release/wink
fi
cargo build --release --offline -p wink-promptfile --example bench_prompt -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in 10 100 1000 10000; do
  "$target/release/examples/bench_prompt" "$n" "$work/p$n.json"
done
measure() { python3 bench/faststart/measure.py "$RUNS" "$@"; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; $RUNS runs each"
echo
echo "| whole process | min ms | median ms | max ms |"
echo "|---|---|---|---|"
row() { local label=$1; shift; read -r lo mid hi < <(measure "$@"); echo "| $label | $lo | $mid | $hi |"; }
row "\`wink --version\`" exec "$WINK" --version
for n in 10 100 1000 10000; do
  row "\`wink render\` $n sections ($(( $(stat -c %s "$work/p$n.json") / 1024 )) KB)" exec "$WINK" render "$work/p$n.json"
done
row "\`wink render --format json\` 10 sections (counts tokens)" exec "$WINK" render "$work/p10.json" --format json
row "\`wink render --format json\` 1,000 sections" exec "$WINK" render "$work/p1000.json" --format json
row "\`wink call\` 100 sections (\`read_section\`)" exec "$WINK" call "$work/p100.json" read_section '{"key": "s1"}'
row "\`wink mcp serve\` 100 sections, spawn to \`tools/list\` answer" mcp "$WINK" "$work/p100.json"
row "\`wink mcp serve\` 1,000 sections, same" mcp "$WINK" "$work/p1000.json"

echo
python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3.13 python3.12 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12, 2))' 2>/dev/null; then
      python=$candidate; break
    fi
  done
fi
if [ -n "${WINK_PY_VENV:-}" ] || [ -n "$python" ]; then
  venv=${WINK_PY_VENV:-$work/venv}
  if [ -z "${WINK_PY_VENV:-}" ]; then
    "$python" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check weakincentives==0.17.0
  fi
  echo "| WINK v0.17 in-process (Python $("$venv/bin/python" -c 'import platform; print(platform.python_version())')), median of 20 | build template ms | render ms | same text as \`wink render --disclosure wink\` |"
  echo "|---|---|---|---|"
  for n in 100 1000 10000; do
    read -r build render < <(WINK_PY_TEXT="$work/py$n.txt" "$venv/bin/python" bench/faststart/wink_py.py "$work/p$n.json" 20)
    same=no
    if [ "$("$WINK" render "$work/p$n.json" --disclosure wink)" = "$(cat "$work/py$n.txt")" ]; then same=yes; fi
    echo "| $n sections | $build | $render | $same |"
  done
else
  echo "WINK v0.17 column skipped: no Python >= 3.12.2 (set PYTHON=...)"
fi

if [ "${INPROCESS:-1}" = "1" ]; then
  echo
  echo "In-process (cargo bench -p wink-promptfile --bench load; cargo run --release -p wink-tokens --example startup):"
  cargo bench --offline -q -p wink-promptfile --bench load 2>/dev/null
  cargo run --release --offline -q -p wink-tokens --example startup
fi
