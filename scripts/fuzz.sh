#!/usr/bin/env bash
# Runs every fuzz target (docs/fuzzing.md) for CASES executions each (default 10,000,000), one
# after the other, optimised, at the lowest CPU priority. Stops at the first target that fails:
# a panic, a case over its time bound (checked inside each case), or a test process whose peak
# resident memory exceeds MAX_RSS_MIB (default 256; measured with GNU time, `apt install time`).
#   bash scripts/fuzz.sh            # 10M cases per target
#   bash scripts/fuzz.sh 100000     # a shorter run
#   ONLY=wink-redis bash scripts/fuzz.sh   # one crate's targets
# Temporary files of the session-log target go to TMPDIR (tmpfs, e.g. TMPDIR=/dev/shm, is faster).
set -euo pipefail
cd "$(dirname "$0")/.."
cases="${1:-10000000}"
max_rss_mib="${MAX_RSS_MIB:-256}"
all_targets=(
  "wink-mcp fuzz_lines"
  "wink-providers fuzz_sse"
  "wink-schema fuzz_arguments"
  "wink-store fuzz_reader"
  "wink-core template_props"
  "wink-promptfile fuzz"
  "wink-skills fuzz_frontmatter"
  "wink-redis fuzz_entries"
  "wink-mcp fuzz_http"
  "wink-run fuzz_cases --no-default-features"
)
# A third word is extra cargo flags (wink-run's cases parser needs neither llama.cpp nor tracing).
# ONLY=crate runs that crate's targets alone; ONLY="crate test" one target.
targets=()
for target in "${all_targets[@]}"; do
  [ -z "${ONLY:-}" ] || [ "${target%% *}" = "$ONLY" ] || [ "${target%% --*}" = "$ONLY" ] && targets+=("$target")
done
# The test binary runs under GNU time (cargo's runner for the host), so the peak is the test
# process's own, not cargo's.
runner=()
rss_file="$(mktemp)"
trap 'rm -f "$rss_file"' EXIT
if [ -x /usr/bin/time ]; then
  host="$(rustc -vV | sed -n 's/^host: //p')"
  runner=("CARGO_TARGET_$(echo "$host" | tr 'a-z-' 'A-Z_')_RUNNER=/usr/bin/time -f %M -o $rss_file")
else
  echo "== /usr/bin/time missing: peak memory not measured" >&2
fi
for target in "${targets[@]}"; do
  read -r crate test extra <<<"$target"
  echo "== $crate --test $test: $cases cases"
  start=$(date +%s)
  : > "$rss_file"
  env "${runner[@]}" PROPTEST_CASES="$cases" nice -n 19 \
    cargo test --release --offline -q -p "$crate" ${extra:-} --test "$test" fuzz_
  seconds=$(( $(date +%s) - start ))
  rss_kib="$(tail -n 1 "$rss_file")"
  if [ -n "$rss_kib" ]; then
    echo "== $crate --test $test: $cases cases passed in $seconds s, peak RSS $(( rss_kib / 1024 )) MiB"
    if [ "$rss_kib" -gt $(( max_rss_mib * 1024 )) ]; then
      echo "== $crate --test $test: peak RSS over the bound of $max_rss_mib MiB" >&2
      exit 1
    fi
  else
    echo "== $crate --test $test: $cases cases passed in $seconds s"
  fi
done
