#!/usr/bin/env python3
"""Checks that every task with a gold file is fair and that its expectations can pass and fail.

    python3 bench/eval/check.py [--show] [DIR...]        (default DIR: bench/eval/domains)

For every `NAME[.heldout].gold.jsonl` beside `NAME[.heldout].cases.jsonl` and the prompt file
`NAME.{json,toml,yaml}`. A gold line is `{"id", "open": [section keys], "calls": [{"name",
"arguments"}], "answer", "wrong": [answers]}`: the sections a careful model reads, the calls it
makes, in order, and what it answers; `wrong` holds answers the case must reject.

1. Every gold call is run through the file's own command handler and must succeed.
2. Every `contains` string of the case is found in the evidence: the prompt file, the input and
   the results of the gold calls (so an answer copied from the tools can pass).
3. `wink eval` replays the gold runs with the scripted model, once with the file's disclosure
   (the gold reads, then the calls, then the answer) and once with `--disclosure expanded` (no
   reads): every case must pass. Then it replays each wrong answer after the same calls, and the
   answers "I don't know." and "I do not know that, sorry." after the same calls for every case that is not of type `no-answer`:
   every such case must fail. This runs wink's own checker, so the regexes are Rust `regex` syntax.

WINK names the binary (default: target/debug/wink, else target/release/wink). Exit status 0 when
everything holds, 1 otherwise (each problem printed as FILE: ID: problem). `--show` prints each
case's evidence (tool results) for reading by eye.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Answers every task that has an answer must reject.
DONT_KNOW = ["I don't know.", "I do not know that, sorry."]
ROOT = os.path.dirname(os.path.dirname(HERE))


def wink_binary():
    if os.environ.get("WINK"):
        return os.environ["WINK"]
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    for profile in ("debug", "release"):
        path = os.path.join(target, profile, "wink")
        if os.path.exists(path):
            return path
    sys.exit("check.py: no wink binary (build one, or set WINK)")


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def prompt_for(directory, name):
    for ext in ("json", "toml", "yaml"):
        path = os.path.join(directory, f"{name}.{ext}")
        if os.path.exists(path):
            return path
    return None


def run_tool(directory, name, arguments):
    done = subprocess.run(["python3", "tools.py", name], cwd=directory, input=json.dumps(arguments),
                          capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        return False, done.stderr.strip()
    result = json.loads(done.stdout)
    return result.get("success", True), result["message"]


def script_turns(gold, answer, expanded):
    turns = []
    if not expanded:
        for key in gold["open"]:
            turns.append({"tool_calls": [{"name": "read_section", "arguments": {"section_key": key}}]})
    for call in gold["calls"]:
        turns.append({"tool_calls": [{"name": call["name"], "arguments": call["arguments"]}]})
    turns.append({"text": answer})
    return turns


def replay(wink, prompt, cases, runs, expanded, tmp):
    """Runs `wink eval` over `cases` with a scripted model answering `runs` (one list of turns per
    case, in order); returns {id: (passed, failure line)}."""
    cases_path = os.path.join(tmp, "cases.jsonl")
    script_path = os.path.join(tmp, "script.json")
    with open(cases_path, "w") as f:
        for case in cases:
            f.write(json.dumps(case) + "\n")
    with open(script_path, "w") as f:
        json.dump([turn for turns in runs for turn in turns], f)
    args = [wink, "eval", prompt, "--cases", cases_path, "--model", f"scripted:{script_path}",
            "--format", "json", "--preopen", "0", "--verbose"]
    if expanded:
        args += ["--disclosure", "expanded"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"wink eval exited {done.returncode}: {done.stderr.strip()}")
    reasons = {}
    for line in done.stderr.splitlines():
        verdict, _, rest = line.partition(" ")
        if verdict in ("PASS", "FAIL"):
            case_id, _, reason = rest.partition(": ")
            reasons[case_id] = reason
    report = json.loads(done.stdout)
    return {c["id"]: (c["passed"], reasons.get(c["id"], "")) for c in report["cases"]}


def check_file(wink, directory, gold_path, show):
    problems = []
    base = os.path.basename(gold_path)[: -len(".gold.jsonl")]
    name = base.split(".")[0]
    cases_path = os.path.join(directory, base + ".cases.jsonl")
    prompt = prompt_for(directory, name)
    label = os.path.relpath(cases_path, ROOT)
    if prompt is None or not os.path.exists(cases_path):
        return [f"{label}: no prompt file or cases file for {gold_path}"], 0
    cases = {c["id"]: c for c in read_jsonl(cases_path)}
    golds = read_jsonl(gold_path)
    if sorted(g["id"] for g in golds) != sorted(cases):
        return [f"{label}: the gold ids differ from the case ids"], 0
    with open(prompt) as f:
        prompt_text = f.read()
    for gold in golds:
        case = cases[gold["id"]]
        evidence = [prompt_text, case.get("input", "")]
        for call in gold["calls"]:
            ok, message = run_tool(directory, call["name"], call["arguments"])
            evidence.append(message)
            if not ok:
                problems.append(f"{label}: {gold['id']}: gold call {call['name']} failed: {message}")
        if show:
            print(f"--- {label}: {gold['id']}: {case.get('input')}")
            for text in evidence[2:]:
                print(f"    {text}")
            print(f"    => {gold['answer']}")
        haystack = "\n".join(evidence).lower()
        for needle in case["expect"].get("contains", []):
            if needle.lower() not in haystack:
                problems.append(f"{label}: {gold['id']}: {needle!r} is in neither the prompt nor the results")
    ordered = [cases[g["id"]] for g in golds]
    with tempfile.TemporaryDirectory() as tmp:
        for expanded in (False, True):
            mode = "expanded" if expanded else "disclosure"
            runs = [script_turns(g, g["answer"], expanded) for g in golds]
            for case_id, (passed, reason) in replay(wink, prompt, ordered, runs, expanded, tmp).items():
                if not passed:
                    problems.append(f"{label}: {case_id}: the gold run fails ({mode}): {reason}")
        for g in golds:
            if not g["id"].startswith("no-answer-"):
                g.setdefault("wrong", []).extend(DONT_KNOW)
        wrong = [(g, w) for g in golds for w in g.get("wrong", [])]
        for index in range(max((len(g.get("wrong", [])) for g in golds), default=0)):
            batch = [(g, g["wrong"][index]) for g in golds if len(g.get("wrong", [])) > index]
            runs = [script_turns(g, w, False) for g, w in batch]
            results = replay(wink, prompt, [cases[g["id"]] for g, _ in batch], runs, False, tmp)
            for (g, w) in batch:
                if results[g["id"]][0]:
                    problems.append(f"{label}: {g['id']}: the wrong answer {w!r} passes")
    return problems, len(golds) + len(wrong)


def main():
    args = sys.argv[1:]
    show = "--show" in args
    dirs = [a for a in args if a != "--show"] or [os.path.join(HERE, "domains")]
    wink = wink_binary()
    problems, checked, files = [], 0, 0
    for directory in dirs:
        for entry in sorted(os.listdir(directory)):
            if entry.endswith(".gold.jsonl"):
                found, n = check_file(wink, directory, os.path.join(directory, entry), show)
                problems += found
                checked += n
                files += 1
    for problem in problems:
        print(problem)
    print(f"{files} gold files, {checked} gold and wrong answers checked, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
