#!/usr/bin/env bash
# Runs wink's benchmarks and writes their tables into docs/benchmarks.md, each with the machine
# (cores, CPU model, load average before and after), the build profile, the commit and the date.
#
#   bash bench/run.sh [NAME...]   run these benchmarks (all of them without a NAME) and rewrite
#                                 their blocks of docs/benchmarks.md; nothing else on the page changes
#   bash bench/run.sh --list      the benchmarks, what each needs and how long it takes
#   bash bench/run.sh --quick     CI: the page's blocks and tables parse, its commands resolve, its
#                                 deterministic figures (token counts, task-search recall) are what
#                                 the commands print now, and every figure of a README line that
#                                 links to docs/benchmarks.md#NAME is on the page under `## NAME`
#                                 (seconds; WINK names the binary, default target/debug/wink)
#
# WINK names the wink binary (default: the release build, built when missing); WINK_MODEL the
# GGUF file of the model benchmarks (default: the 1.5B model scripts/setup.sh fetches).
# Timings depend on the machine and on what else runs on it: run on an idle machine, and read the
# load average each block records.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 bench/page.py "$@"
