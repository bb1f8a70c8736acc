#!/usr/bin/env python3
"""Prints pass-rate tables from `wink eval --format json` reports.

    summarize.py [--failures] LABEL REPORT.json...

A report named `NAME.MODE.json` is prompt file NAME run in disclosure MODE (`disclosure` or
`expanded`); `NAME.json` counts as `disclosure`. Reports are grouped by the two folders above
them (run.sh writes `SUITE/HALF/NAME.MODE.json`): one table per group, with a row per prompt file,
a row per task type (the id without its last `-` segment) and an `all` row, and the modes side by
side. With more than one group, an overview table follows (one row per group). `--failures` lists
the failing cases of the groups whose half is `dev`, with the reason `wink eval --verbose` gave
(read from `NAME.MODE.log` beside the report); held-out cases are never listed one by one.
"""
import json
import os
import sys
from collections import defaultdict

MODES = ("disclosure", "expanded")


def parse(path):
    """(group, name, mode) of a report path."""
    base = os.path.basename(path)[: -len(".json")]
    name, _, mode = base.rpartition(".")
    if mode not in MODES:
        name, mode = base, "disclosure"
    parent = os.path.dirname(os.path.abspath(path))
    group = f"{os.path.basename(os.path.dirname(parent))}/{os.path.basename(parent)}"
    return group, name, mode


def new_row():
    return {"runs": 0, "passed": 0, "calls": 0, "prompt": 0, "uncached": 0, "output": 0, "seconds": 0.0}


def add(row, case):
    row["runs"] += 1
    row["passed"] += case["passed"]
    row["calls"] += case["model_calls"]
    row["prompt"] += case["prompt_tokens"]
    row["uncached"] += case["prompt_tokens"] - case["cached_tokens"]
    row["output"] += case["output_tokens"]
    row["seconds"] += case["seconds"]


def cells(row):
    if row is None or row["runs"] == 0:
        return ["", "", "", "", ""]
    n = row["runs"]
    return [f"{row['passed']}/{n} ({100 * row['passed'] / n:.0f}%)", f"{row['calls'] / n:.1f}",
            f"{row['prompt'] / n:.0f}", f"{row['uncached'] / n:.0f}", f"{row['seconds'] / n:.1f}"]


def table(title, rows, modes):
    """rows: [(label, {mode: row})]."""
    columns = ["passed", "model calls/run", "prompt tokens/run", "uncached/run", "s/run"]
    head = ["rows"] + [f"{mode}: {c}" if i == 0 else c for mode in modes for i, c in enumerate(columns)]
    print(f"\n{title}\n")
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 1))
    for label, by_mode in rows:
        print("| " + " | ".join([label] + [c for mode in modes for c in cells(by_mode.get(mode))]) + " |")


def failures(path):
    """{id: reason} from the `--verbose` log beside a report."""
    log = path[: -len(".json")] + ".log"
    found = {}
    if os.path.exists(log):
        for line in open(log):
            verdict, _, rest = line.rstrip("\n").partition(" ")
            if verdict == "FAIL":
                case_id, _, reason = rest.partition(": ")
                found[case_id] = reason
    return found


def main():
    args = sys.argv[1:]
    list_failures = "--failures" in args
    args = [a for a in args if a != "--failures"]
    label, paths = args[0], args[1:]
    groups = defaultdict(lambda: {"files": defaultdict(dict), "types": defaultdict(dict), "all": {}})
    modes_seen = []
    failing = defaultdict(list)
    for path in paths:
        group, name, mode = parse(path)
        if mode not in modes_seen:
            modes_seen.append(mode)
        g = groups[group]
        report = json.load(open(path))
        reasons = failures(path)
        for case in report["cases"]:
            kind = case["id"].rsplit("-", 1)[0]
            for row in (g["files"][name].setdefault(mode, new_row()),
                        g["types"][kind].setdefault(mode, new_row()),
                        g["all"].setdefault(mode, new_row())):
                add(row, case)
            if not case["passed"] and group.endswith("/dev"):
                answer = (case["answer"] or "").replace("\n", " ")
                failing[group].append(f"{name} {mode} {case['id']}: {reasons.get(case['id'], '?')}"
                                      f" — answer: {answer[:100]!r}")
    modes = [m for m in MODES if m in modes_seen]
    print(f"\n## {label}")
    for group in sorted(groups):
        g = groups[group]
        rows = [(f"file {n}", g["files"][n]) for n in sorted(g["files"])]
        rows += [(f"type {k}", g["types"][k]) for k in sorted(g["types"])]
        rows.append(("all", g["all"]))
        table(f"### {group}", rows, modes)
    if len(groups) > 1:
        rows = [(group, groups[group]["all"]) for group in sorted(groups)]
        table("### overview", rows, modes)
        print("\n| group | mode | passed | model calls | prompt tokens | uncached | output tokens | seconds |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for group in sorted(groups):
            for mode in modes:
                r = groups[group]["all"].get(mode)
                if r:
                    print(f"| {group} | {mode} | {r['passed']}/{r['runs']} | {r['calls']} | {r['prompt']} | "
                          f"{r['uncached']} | {r['output']} | {r['seconds']:.0f} |")
    if list_failures:
        for group in sorted(failing):
            print(f"\n### failing in {group}\n")
            for line in failing[group]:
                print(f"- {line}")


if __name__ == "__main__":
    main()
