#!/usr/bin/env python3
"""Prints the Markdown table of a conformance run (tests/conformance/run.sh, its OUT folder):
one row per scenario, side, checks passed and failed, and whether 2026-07-28 scores it; with a
second run's folder, its checks too (a "before" column).

Usage: tests/conformance/table.py OUT [BEFORE]"""

import re
import sys
from pathlib import Path

LINE = re.compile(r"^([✓✗]) (\S+): (\d+) passed, (\d+) failed")
NOT_SCORED = re.compile(r"^\s+[✓✗] (\S+) \((\w[\w-]*)\)")


def rows(report):
    scored = {}
    for line in report.splitlines():
        match = NOT_SCORED.match(line)
        if match:
            scored[match.group(1)] = match.group(2)
    for line in report.splitlines():
        match = LINE.match(line)
        if match:
            mark, name, passed, failed = match.groups()
            yield name, mark == "✓", int(passed), int(failed), scored.get(name, "required")


def main():
    out = Path(sys.argv[1])
    before = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    print("| side | scenario | 2026-07-28 | passed | failed | result | before |")
    print("|---|---|---|---|---|---|---|")
    for side in ("server", "client"):
        earlier = {}
        if before:
            for name, ok, passed, failed, _ in rows((before / f"{side}.txt").read_text()):
                earlier[name] = f"{passed}/{passed + failed}"
        for name, ok, passed, failed, scored in rows((out / f"{side}.txt").read_text()):
            result = "pass" if ok else "**fail**"
            print(f"| {side} | `{name}` | {scored} | {passed} | {failed} | {result} | {earlier.get(name, '—')} |")


if __name__ == "__main__":
    main()
