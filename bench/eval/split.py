#!/usr/bin/env python3
"""Splits the tasks of an eval directory into a development half and a held-out half.

    python3 bench/eval/split.py [--check] [DIR...]   (default: bench/eval and bench/eval/domains)

The rule, fixed before any model ran: the tasks of a directory are grouped by type (the id
without its last `-` segment); within a type they are ordered by prompt file name, then by the
SHA-256 of the id, and the 1st, 3rd, 5th... go to the held-out half, the 2nd, 4th... to the
development half. So each type is split in two (the held-out half takes the odd one out), each
prompt file gives about half of its tasks of a type to each half, and where a task lands depends
on its id and file alone, never on how a model does on it.

For each prompt file NAME, the development tasks are in `NAME.cases.jsonl` and the held-out ones in
`NAME.heldout.cases.jsonl` (gold files, where present, follow the same way: `NAME.gold.jsonl`,
`NAME.heldout.gold.jsonl`). The script reads both halves, splits again and writes them back, so a
task added to either file lands in its half. `--check` writes nothing and exits 1 when a file is
not split by the rule. `ci.cases.jsonl` is not part of the suite and is left alone.
"""
import hashlib
import json
import os
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


def task_type(case_id):
    return case_id.rsplit("-", 1)[0]


def is_heldout(tasks):
    """{id: True when held out} for the (prompt name, id) pairs of one directory."""
    by_type = defaultdict(list)
    for name, case_id in tasks:
        by_type[task_type(case_id)].append((name, hashlib.sha256(case_id.encode()).hexdigest(), case_id))
    heldout = {}
    for group in by_type.values():
        for rank, (_, _, case_id) in enumerate(sorted(group)):
            heldout[case_id] = rank % 2 == 0
    return heldout


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def names(directory):
    found = set()
    for entry in os.listdir(directory):
        for suffix in (".heldout.cases.jsonl", ".cases.jsonl"):
            if entry.endswith(suffix):
                found.add(entry[: -len(suffix)])
                break
    found.discard("ci")
    return sorted(found)


def split(directory, check):
    """Returns the files that are not split by the rule (written unless `check`)."""
    kinds = ("cases", "gold")
    lines = {}
    for name in names(directory):
        for kind in kinds:
            both = []
            for half in ("", ".heldout"):
                both += read_lines(os.path.join(directory, f"{name}{half}.{kind}.jsonl"))
            lines[name, kind] = both
    tasks = [(name, json.loads(line)["id"]) for (name, kind), both in lines.items()
             if kind == "cases" for line in both]
    if len({case_id for _, case_id in tasks}) != len(tasks):
        sys.exit(f"split.py: {directory}: a task id is used twice")
    heldout = is_heldout(tasks)
    changed = []
    for (name, kind), both in lines.items():
        if not both:
            continue
        for half, wanted in (("", False), (".heldout", True)):
            path = os.path.join(directory, f"{name}{half}.{kind}.jsonl")
            keep = [line for line in both if heldout[json.loads(line)["id"]] == wanted]
            if keep == read_lines(path):
                continue
            changed.append(os.path.relpath(path))
            if check:
                continue
            if keep:
                with open(path, "w") as f:
                    f.write("".join(line + "\n" for line in keep))
            else:
                os.remove(path)
    return changed, sum(heldout.values()), len(heldout)


def main():
    args = sys.argv[1:]
    check = "--check" in args
    dirs = [a for a in args if a != "--check"] or [HERE, os.path.join(HERE, "domains")]
    bad = False
    for directory in dirs:
        changed, held, total = split(directory, check)
        verb = "not split by the rule" if check else "rewritten"
        for path in changed:
            print(f"{path}: {verb}")
        bad |= check and bool(changed)
        print(f"{os.path.relpath(directory)}: {total} tasks, {total - held} development, {held} held out")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
