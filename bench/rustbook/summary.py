#!/usr/bin/env python3
"""The table of bench/rustbook/run.sh: one row per results file (half, context, mode), per question
averages, and the largest prompt a single model call took (every call must stay under the window).

    python3 bench/rustbook/summary.py bench/rustbook/results/MODEL   (or some of its *.json files)"""
import json
import pathlib
import sys

args = [pathlib.Path(a) for a in sys.argv[1:]]
# A results directory (every run in it) or the runs' files.
paths = sorted(p for a in args for p in (a.glob("*-*-*.json") if a.is_dir() else [a]))
print("| half | context | mode | passed | model calls / q | prompt tokens / q | uncached / q | cold uncached / q | seconds / q | largest call prompt | refused for the window |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for path in paths:
    half, context, mode = path.stem.split("-", 2)
    try:
        report = json.loads(path.read_text())
    except json.JSONDecodeError:
        continue
    cases = report["cases"]
    n = len(cases) or 1
    passed = sum(c["passed"] for c in cases)
    calls = sum(c["model_calls"] for c in cases)
    largest = max((call["input_tokens"] for c in cases for call in c["calls"]), default=0)
    log = path.with_suffix(".log")
    refused = 0
    if log.exists():
        refused = sum("does not fit the model's context window" in line for line in log.read_text().splitlines())
    print(f"| {half} | {context} | {mode} | {passed}/{len(cases)} | {calls / n:.1f} | {report['prompt_tokens'] / n:,.0f} | "
          f"{report['uncached_prompt_tokens'] / n:,.0f} | {report['cold_uncached_prompt_tokens'] / n:,.0f} | {report['seconds'] / n:.1f} | {largest:,} | {refused} |")
