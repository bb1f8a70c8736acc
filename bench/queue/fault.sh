#!/usr/bin/env bash
# The fault benchmark: 500 requests (two tool calls of 0.1 s each), 4 `wink worker` processes of
# 2 slots, one SIGKILLed at random every second and restarted, the Redis server restarted once
# mid-run (append-only on). Checks that every request ends with exactly one result and nothing is
# lost, and prints how many model calls and tool executions were repeated.
#   bench/queue/fault.sh [REQUESTS]
# It is the integration test crates/wink-cli/tests/queue.rs (80 requests in CI) at a larger size.
set -euo pipefail
cd "$(dirname "$0")/../.."
WINK_FAULT_REQUESTS="${1:-500}" cargo test --offline -p wink-cli --test queue \
  killed_workers_and_a_redis_restart -- --nocapture 2>&1 | grep -E "fault report|test result|panicked"
