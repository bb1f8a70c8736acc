#!/usr/bin/env python3
"""Runs BFCL `simple` / `multiple` entries through `wink run` and scores them with BFCL's AST
checker. See README.md.

    PY=$(bash bench/bfcl/setup.sh)            # the venv's python, bfcl-eval installed
    $PY bench/bfcl/run.py run --category multiple --model SPEC [--variant both] [--half all]
                              [--label NAME] [--limit N] [--ids ID,...] [-- WINK RUN FLAGS...]
    $PY bench/bfcl/run.py report [LABEL...]    # the summary table of finished runs
    $PY bench/bfcl/run.py failures LABEL [--half dev]   # failure kinds with examples

Results go to bench/bfcl/results/LABEL/ ($BFCL_RESULTS/LABEL/ when set):
`CATEGORY-VARIANT.jsonl` (one scored entry a line; a run that stops is resumed where it
stopped), `meta.json` (the command, binary, model, flags, machine, date), the generated prompt
files and every run's transcript.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import resource
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import convert
import official

HERE = Path(__file__).resolve().parent
RESULTS = Path(os.environ.get("BFCL_RESULTS", HERE / "results"))
DISCLOSURE_TOOLS = {"read_section", "open_sections"}
HALVES = ("dev", "held-out")


def half_of(index: int) -> str:
    """The fixed split: even positions in the BFCL file are the development half."""
    return "dev" if index % 2 == 0 else "held-out"


# --- what a transcript says -------------------------------------------------------------------


def model_turns(transcript: dict) -> list[dict]:
    """The model's turns in order, as `{"call": i, "text", "tool_calls"}`. A transcript that
    records each call's `turn` gives every turn; an older one only shows a turn in the requests
    after it, so its last turn (and one cut off by a restart) is missing."""
    calls = transcript.get("model_calls") or []
    if any("turn" in call for call in calls):
        return [
            {"call": i, "text": (call.get("turn") or {}).get("text"),
             "tool_calls": (call.get("turn") or {}).get("tool_calls") or []}
            for i, call in enumerate(calls)
        ]
    turns, seen = [], 0
    for i, call in enumerate(calls):
        messages = [m for m in call.get("messages", []) if m.get("role") != "system"]
        assistant = [m for m in messages if m.get("role") == "assistant"]
        if len(assistant) < seen:  # a restart began a new conversation
            seen = 0
        for message in assistant[seen:]:
            turns.append({"call": i - 1, "text": message.get("content"),
                          "tool_calls": message.get("tool_calls") or []})
        seen = len(assistant)
    return turns


def first_call_turn(turns: list[dict]) -> tuple[dict | None, list[str]]:
    """The first turn calling anything but a disclosure tool, and the sections the model opened
    before (or in) that turn."""
    opened: list[str] = []
    for turn in turns:
        for call in turn["tool_calls"]:
            if call["name"] in DISCLOSURE_TOOLS:
                arguments = call.get("arguments") or {}
                if isinstance(arguments, dict):
                    keys = arguments.get("section_keys") or [arguments.get("section_key")]
                    opened.extend(str(k) for k in keys if k)
        if any(call["name"] not in DISCLOSURE_TOOLS for call in turn["tool_calls"]):
            return turn, opened
    return None, opened


def sections_in_full(transcript: dict | None) -> list[str] | None:
    """Keys of the sections the first request's system prompt shows in full (for the
    `disclosed` variant: the function sections pre-opened before the model's first call)."""
    calls = (transcript or {}).get("model_calls") or []
    system = next((m["content"] for m in (calls[0]["messages"] if calls else [])
                   if m.get("role") == "system"), None)
    if system is None:
        return None
    parts = re.split(r"^## [0-9.]+ .*\(([a-z0-9._-]+)\)$", system, flags=re.M)
    return [key for key, body in zip(parts[1::2], parts[2::2])
            if "This section is summarized" not in body]


def bfcl_calls(turn: dict | None, names: dict[str, str]) -> list[dict]:
    """The turn's calls in BFCL's decoded format `[{bfcl_name: {arg: value}}]` (disclosure calls
    left out; a name the prompt did not offer is kept as the model wrote it)."""
    if turn is None:
        return []
    return [
        {names.get(call["name"], call["name"]): call.get("arguments")}
        for call in turn["tool_calls"]
        if call["name"] not in DISCLOSURE_TOOLS
    ]


def failure_kind(row: dict) -> str:
    """A coarse name for why an entry failed (`passed` when it did not)."""
    if row["valid"]:
        return "passed"
    if row["timed_out"]:
        return "timeout"
    if not row["calls"]:
        if row["status"] == "finished":
            return "no call: answered in text"
        return f"no call: run {row['status'] or 'crashed'}"
    error_type = row["error_type"]
    if error_type.endswith("wrong_count"):
        return "wrong number of calls"
    if error_type.endswith("wrong_func_name"):
        return "wrong function"
    if error_type.endswith("missing_required"):
        return "missing required argument"
    if error_type.endswith("unexpected_param"):
        return "unexpected argument"
    if error_type.startswith("type_error"):
        return "wrong argument type"
    if error_type.startswith("value_error"):
        return "wrong argument value"
    return error_type or "other"


# --- one entry --------------------------------------------------------------------------------


def server_cpu_seconds() -> float:
    """CPU seconds used so far by the model server `$BFCL_SERVER_PID` names (0 when unset), so
    an HTTP provider's entries count the server's work too."""
    pid = os.environ.get("BFCL_SERVER_PID")
    if not pid:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_entry(wink: str, model: str, extra: list[str], prompt_path: Path, question: str,
              transcript_path: Path, timeout: float) -> dict:
    """Runs `wink run` on one prompt file; returns the process facts and the recorded calls."""
    with tempfile.NamedTemporaryFile("w+", suffix=".jsonl", delete=False) as calls_file:
        calls_path = calls_file.name
    transcript_path.unlink(missing_ok=True)
    command = [wink, "run", str(prompt_path), "--model", model, "--input", question,
               "--transcript", str(transcript_path), *extra]
    env = {**os.environ, "BFCL_CALLS": calls_path}
    started = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_before = server_cpu_seconds()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, start_new_session=True)
    timed_out = False
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGTERM)
        try:
            stdout, stderr = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
    seconds = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    cpu += server_cpu_seconds() - server_before
    recorded = [json.loads(line) for line in Path(calls_path).read_text().splitlines() if line]
    os.unlink(calls_path)
    stamps = re.findall(r"^\[\s*([0-9.]+)s\]", stderr, re.M)
    return {"exit_code": process.returncode, "timed_out": timed_out, "seconds": round(seconds, 2),
            "cpu_seconds": round(cpu, 2),
            "loop_seconds": float(stamps[-1]) if stamps else None, "stdout": stdout,
            "stderr": stderr, "recorded": recorded}


def score_entry(entry: dict, answer: dict, category: str, names: dict[str, str],
                transcript: dict | None) -> dict:
    turns = model_turns(transcript) if transcript else []
    turn, opened = first_call_turn(turns)
    calls = bfcl_calls(turn, names)
    verdict = official.check(entry, answer, calls, convert.CATEGORIES[category])
    status = transcript.get("status") if transcript else None
    usage = (transcript or {}).get("usage") or {}
    in_full = sections_in_full(transcript)
    return {
        "valid": verdict["valid"], "error_type": verdict["error_type"],
        "error": verdict["error"], "calls": calls,
        "call_turn": turn["call"] if turn else None, "opened": opened,
        "preopened": None if in_full is None else [k for k in in_full if k in names],
        "status": status.get("status") if isinstance(status, dict) else status,
        "status_message": status.get("message") if isinstance(status, dict) else None,
        "text": (transcript or {}).get("text"),
        "model_calls": (transcript or {}).get("model_call_count"),
        "input_tokens": usage.get("input_tokens"), "cached_tokens": usage.get("cached_tokens"),
        "output_tokens": usage.get("output_tokens"),
    }


# --- a run over a category ---------------------------------------------------------------------


def select(entries, half: str, limit: int | None, ids: set[str] | None):
    chosen = [(i, e, a) for i, (e, a) in enumerate(entries)
              if (half == "all" or half_of(i) == half) and (ids is None or e["id"] in ids)]
    return chosen[:limit] if limit else chosen


def default_wink() -> str:
    target = Path(os.environ.get("CARGO_TARGET_DIR", HERE.parents[1] / "target"))
    return os.environ.get("WINK", str(target / "release" / "wink"))


def settings(model: str, flags: list[str], terminal: bool = True) -> list:
    """What must match for two runs to share a results folder: the model, the wink flags (a
    `--base-url`'s value left out: a server's port changes from run to run) and whether the
    functions are terminal tools."""
    kept: list = [model, terminal]
    for i, flag in enumerate(flags):
        if not (i > 0 and flags[i - 1] == "--base-url"):
            kept.append(flag)
    return kept


def write_meta(out: Path, args, wink: str) -> None:
    """Appends this run to `meta.json`; refuses a folder that holds a run of other settings."""
    meta_path = out / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {"runs": []}
    terminal = not args.no_terminal
    for earlier in meta["runs"]:
        if (settings(earlier["model"], earlier["wink_flags"], earlier.get("terminal", True))
                != settings(args.model, args.extra, terminal)):
            raise SystemExit(
                f"{out} holds results of --model {earlier['model']} with wink flags "
                f"{earlier['wink_flags']} (terminal tools: {earlier.get('terminal', True)}); "
                "choose another --label")
    version = subprocess.run([wink, "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "-C", str(HERE), "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip()
    meta["runs"].append({
        "command": shlex.join(sys.argv),
        "wink": wink, "wink_version": version, "checkout": commit, "model": args.model, "wink_flags": args.extra,
        "terminal": terminal,
        "category": args.category, "variants": variants_of(args.variant), "half": args.half,
        "bfcl_eval": official.installed_version(),
        "machine": {"cpus": os.cpu_count(), "loadavg_at_start": os.getloadavg(),
                    "platform": platform.platform()},
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    })
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")


def variants_of(variant: str) -> list[str]:
    return list(convert.VARIANTS) if variant == "both" else [variant]


def run_and_score(args, wink: str, out: Path, index: int, entry: dict, answer: dict,
                  variant: str) -> dict:
    """One entry in one variant: its prompt file, the run, the scored row."""
    prompt, conversion = convert.prompt_file(entry, variant, not args.no_terminal)
    prompt_path = out / "prompts" / variant / f"{entry['id']}.json"
    prompt_path.parent.mkdir(parents=True, exist_ok=True)
    prompt_path.write_text(json.dumps(prompt, indent=1) + "\n")
    transcript_path = out / "transcripts" / variant / f"{entry['id']}.json"
    transcript_path.parent.mkdir(parents=True, exist_ok=True)
    process = run_entry(wink, args.model, args.extra, prompt_path, convert.question(entry),
                        transcript_path, args.timeout)
    transcript = json.loads(transcript_path.read_text()) if transcript_path.exists() else None
    row = {"id": entry["id"], "index": index, "half": half_of(index),
           "category": args.category, "variant": variant,
           **score_entry(entry, answer, args.category, conversion["names"], transcript),
           "exit_code": process["exit_code"], "timed_out": process["timed_out"],
           "seconds": process["seconds"], "cpu_seconds": process["cpu_seconds"],
           "loop_seconds": process["loop_seconds"],
           "recorded": process["recorded"],
           "stderr_tail": process["stderr"][-2000:] if transcript is None else None}
    row["kind"] = failure_kind(row)
    return row


def command_run(args) -> int:
    wink = args.wink or default_wink()
    if not Path(wink).exists():
        print(f"no wink binary at {wink} (cargo build --release -p wink-cli, or --wink PATH)",
              file=sys.stderr)
        return 2
    out = RESULTS / args.label
    out.mkdir(parents=True, exist_ok=True)
    write_meta(out, args, wink)
    entries = convert.load(args.category)
    ids = set(args.ids.split(",")) if args.ids else None
    chosen = select(entries, args.half, args.limit, ids)
    done = {}
    for variant in variants_of(args.variant):
        path = out / f"{args.category}-{variant}.jsonl"
        done[variant] = set()
        if path.exists():
            done[variant] = {json.loads(line)["id"]
                             for line in path.read_text().splitlines() if line.strip()}
    # Entry by entry, each in every variant: a run cut short leaves the same entries in each.
    todo = [(c, v) for c in chosen for v in done if c[1]["id"] not in done[v]]
    print(f"== {args.label} {args.category} {'+'.join(done)}: {len(todo)} runs to go "
          f"({sum(map(len, done.values()))} done)", file=sys.stderr)
    for n, ((index, entry, answer), variant) in enumerate(todo, 1):
        row = run_and_score(args, wink, out, index, entry, answer, variant)
        if row["exit_code"] == 2:  # bad usage or a prompt file wink refuses: every run would
            print(f"{entry['id']} {variant}: wink exited 2:\n{row['stderr_tail']}",
                  file=sys.stderr)
            return 2
        with (out / f"{args.category}-{variant}.jsonl").open("a") as sink:
            sink.write(json.dumps(row) + "\n")
        print(f"[{n}/{len(todo)}] {entry['id']} {variant}: {row['kind']} "
              f"({row['model_calls']} calls, {row['seconds']:.0f}s)", file=sys.stderr)
    print_report([args.label])
    return 0


# --- reports ----------------------------------------------------------------------------------


def load_rows(label: str) -> list[dict]:
    rows = []
    for path in sorted((RESULTS / label).glob("*-*.jsonl")):
        rows.extend(json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return rows


def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def summarize(rows: list[dict]) -> dict:
    n = len(rows)
    passed = sum(r["valid"] for r in rows)
    return {
        "n": n, "passed": passed, "accuracy": passed / n if n else None,
        "model_calls": mean(r["model_calls"] for r in rows),
        "input_tokens": mean(r["input_tokens"] for r in rows),
        "cached_tokens": mean(r["cached_tokens"] for r in rows),
        "output_tokens": mean(r["output_tokens"] for r in rows),
        "seconds": mean(r["seconds"] for r in rows),
        "cpu_seconds": mean(r.get("cpu_seconds") for r in rows),
    }


def fmt(value, digits=0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def print_report(labels: list[str]) -> dict:
    summary = {}
    print("| run | category | variant | dev | held-out | all | model calls | input tok "
          "(cached) | output tok | s/entry | CPU s/entry |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label in labels:
        rows = load_rows(label)
        groups = sorted({(r["category"], r["variant"]) for r in rows},
                        key=lambda g: (g[0], convert.VARIANTS.index(g[1])))
        for category, variant in groups:
            group = [r for r in rows if r["category"] == category and r["variant"] == variant]
            cells = {h: summarize([r for r in group if r["half"] == h]) for h in HALVES}
            cells["all"] = summarize(group)
            summary[f"{label}/{category}/{variant}"] = cells
            whole = cells["all"]

            def acc(cell):
                if not cell["n"]:
                    return "-"
                return f"{cell['passed']}/{cell['n']} ({100 * cell['accuracy']:.1f}%)"

            print(f"| {label} | {category} | {variant} | {acc(cells['dev'])} | "
                  f"{acc(cells['held-out'])} | {acc(whole)} | {fmt(whole['model_calls'], 2)} | "
                  f"{fmt(whole['input_tokens'])} ({fmt(whole['cached_tokens'])}) | "
                  f"{fmt(whole['output_tokens'])} | {fmt(whole['seconds'], 1)} | "
                  f"{fmt(whole['cpu_seconds'], 1)} |")
        (RESULTS / label / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def command_report(args) -> int:
    labels = args.labels or sorted(p.name for p in RESULTS.iterdir() if p.is_dir())
    print_report(labels)
    return 0


def command_failures(args) -> int:
    """Failure kinds with counts and examples; examples only for the development half."""
    rows = [r for r in load_rows(args.label) if args.half == "all" or r["half"] == args.half]
    answers = {}
    for category in {r["category"] for r in rows}:
        answers.update({e["id"]: (e, a) for e, a in convert.load(category)})
    for key in sorted({(r["category"], r["variant"]) for r in rows}):
        group = [r for r in rows if (r["category"], r["variant"]) == key]
        kinds: dict[str, list[dict]] = {}
        for row in group:
            kinds.setdefault(row["kind"], []).append(row)
        print(f"\n## {args.label}: {key[0]} {key[1]}, {args.half} half ({len(group)} entries)")
        for kind, members in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
            print(f"- {kind}: {len(members)}")
            if kind == "passed" or args.half != "dev":
                continue
            for row in members[: args.examples]:
                entry, answer = answers[row["id"]]
                got = json.dumps(row["calls"]) if row["calls"] else repr((row["text"] or "")[:160])
                print(f"    - {row['id']}: {convert.question(entry)[:140]!r}")
                print(f"      expected {json.dumps(answer['ground_truth'])[:200]}")
                print(f"      got {got[:240]}; opened {row['opened']}; "
                      f"{row['error_type'] or row['status_message'] or ''} "
                      f"{'; '.join(map(str, row['error']))[:160]}")
        if key[1] == "disclosed":
            print_disclosure(args.label, group, answers)
    for category in sorted({r["category"] for r in rows}):
        print_pairs(category, [r for r in rows if r["category"] == category])
    return 0


def expected_keys(answer: dict) -> set[str]:
    """The wink section keys of the functions the ground truth calls."""
    return {convert.wink_name(name) for call in answer["ground_truth"] for name in call}


def print_disclosure(label: str, group: list[dict], answers: dict) -> None:
    """How the model reached the function in the `disclosed` variant: pre-opened by wink
    before the first call, opened by the model (`read_section` / `open_sections`), or called
    while its section was still summarized (the loop opened it)."""
    ways: dict[str, list[bool]] = {}
    for row in group:
        preopened = row.get("preopened")
        if preopened is None:  # rows written before `preopened` was recorded
            path = RESULTS / label / "transcripts" / "disclosed" / f"{row['id']}.json"
            transcript = json.loads(path.read_text()) if path.exists() else None
            in_full = sections_in_full(transcript) or []
            preopened = [k for k in in_full if k != "task"]
        wanted = expected_keys(answers[row["id"]][1])
        if wanted <= set(preopened):
            way = "pre-opened by wink"
        elif wanted & set(row["opened"]):
            way = "opened by the model"
        elif row["calls"]:
            way = "not pre-opened nor opened; the model called a function"
        else:
            way = "not pre-opened nor opened; no call"
        ways.setdefault(way, []).append(row["valid"])
    print("  how the expected function's section was reached:")
    for way, valid in sorted(ways.items(), key=lambda kv: -len(kv[1])):
        print(f"  - {way}: {len(valid)} entries, {sum(valid)} passed")


def print_pairs(category: str, rows: list[dict]) -> None:
    """Entry by entry, `visible` against `disclosed`."""
    by_variant = {v: {r["id"]: r["valid"] for r in rows if r["variant"] == v}
                  for v in convert.VARIANTS}
    both = set(by_variant["visible"]) & set(by_variant["disclosed"])
    if not both:
        return
    counts: dict[tuple[bool, bool], int] = {}
    for entry_id in both:
        pair = (by_variant["visible"][entry_id], by_variant["disclosed"][entry_id])
        counts[pair] = counts.get(pair, 0) + 1
    print(f"\n## {category}: visible against disclosed, {len(both)} entries run in both")
    for (visible, disclosed), label in [((True, True), "both passed"),
                                        ((True, False), "only visible passed"),
                                        ((False, True), "only disclosed passed"),
                                        ((False, False), "both failed")]:
        print(f"- {label}: {counts.get((visible, disclosed), 0)}")


def main(argv: list[str]) -> int:
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run and score entries")
    run.add_argument("--category", choices=sorted(convert.CATEGORIES), required=True)
    run.add_argument("--model", required=True, help="wink --model SPEC")
    run.add_argument("--variant", choices=[*convert.VARIANTS, "both"], default="both")
    run.add_argument("--half", choices=[*HALVES, "all"], default="all")
    run.add_argument("--label", help="results folder name (default: derived from the model)")
    run.add_argument("--limit", type=int, help="at most N entries (of the chosen half)")
    run.add_argument("--ids", help="only these entry ids, comma-separated")
    run.add_argument("--wink", help="wink binary (default: $WINK, else target/release/wink)")
    run.add_argument("--no-terminal", action="store_true",
                     help="functions are not terminal tools: each run goes on to the model's "
                          "answer (wink builds that do not know prompt-file `terminal`)")
    run.add_argument("--timeout", type=float, default=1800.0,
                     help="seconds before one entry's run is stopped (default 1800)")
    report = sub.add_parser("report", help="summary table of finished runs")
    report.add_argument("labels", nargs="*")
    failures = sub.add_parser("failures", help="failure kinds, with examples for the dev half")
    failures.add_argument("label")
    failures.add_argument("--half", choices=[*HALVES, "all"], default="dev")
    failures.add_argument("--examples", type=int, default=3)
    args = parser.parse_args(argv[1:])
    if args.command == "run":
        args.extra = extra
        if not args.label:
            provider, _, name = args.model.partition(":")
            name = Path(name).name.removesuffix(".gguf")
            args.label = re.sub(r"[^A-Za-z0-9._-]+", "-", "-".join(filter(None, [provider, name])))
        return command_run(args)
    if extra:
        parser.error("`--` flags go with `run`")
    return command_report(args) if args.command == "report" else command_failures(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
