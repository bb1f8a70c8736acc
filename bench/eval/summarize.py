#!/usr/bin/env python3
"""Prints a per-type table from `wink eval --format json` reports: summarize.py LABEL REPORT.json...
The type of a case is its id without the last `-` segment (single-hidden-03 -> single-hidden)."""
import json
import sys
from collections import defaultdict

label, paths = sys.argv[1], sys.argv[2:]
rows = defaultdict(lambda: {"runs": 0, "passed": 0, "calls": 0, "prompt": 0, "uncached": 0, "seconds": 0.0})
for path in paths:
    for case in json.load(open(path))["cases"]:
        kind = case["id"].rsplit("-", 1)[0]
        for key in (kind, "all"):
            r = rows[key]
            r["runs"] += 1
            r["passed"] += case["passed"]
            r["calls"] += case["model_calls"]
            r["prompt"] += case["prompt_tokens"]
            r["uncached"] += case["prompt_tokens"] - case["cached_tokens"]
            r["seconds"] += case["seconds"]
print(f"\n{label}\n")
print("| type | runs | passed | pass rate | model calls/run | prompt tokens/run | uncached/run | s/run |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for kind in sorted(rows, key=lambda k: (k == "all", k)):
    r = rows[kind]
    n = r["runs"]
    print(f"| {kind} | {n} | {r['passed']} | {100 * r['passed'] / n:.0f}% | {r['calls'] / n:.1f} | "
          f"{r['prompt'] / n:.0f} | {r['uncached'] / n:.0f} | {r['seconds'] / n:.1f} |")
