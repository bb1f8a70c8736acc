#!/usr/bin/env bash
# Runs every fuzz target (docs/fuzzing.md) for CASES executions each (default 10,000,000), one
# after the other, optimised, at the lowest CPU priority. Stops at the first target that fails.
#   bash scripts/fuzz.sh            # 10M cases per target
#   bash scripts/fuzz.sh 100000     # a shorter run
set -euo pipefail
cd "$(dirname "$0")/.."
cases="${1:-10000000}"
targets=(
  "wink-mcp fuzz_lines"
  "wink-providers fuzz_sse"
  "wink-schema fuzz_arguments"
  "wink-store fuzz_reader"
  "wink-core template_props"
  "wink-promptfile fuzz"
)
for target in "${targets[@]}"; do
  read -r crate test <<<"$target"
  echo "== $crate --test $test: $cases cases"
  start=$(date +%s)
  PROPTEST_CASES="$cases" nice -n 19 cargo test --release --offline -q -p "$crate" --test "$test" fuzz_
  echo "== $crate --test $test: $cases cases passed in $(( $(date +%s) - start )) s"
done
