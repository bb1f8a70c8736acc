#!/usr/bin/env python3
"""BFCL entries → wink prompt files.

Each entry becomes one prompt file: a task section, then one section per function holding that
function as a command tool. Two variants differ only in the function sections' `visibility`:

* `visible`: every section (and so every function) rendered in full from the first call;
* `disclosed`: every function section summarized — the model sees its one-sentence summary and
  must open it (`read_section`) to see and call the function.

The function's schema is what BFCL sends an OpenAI-style model (`official.openai_tools`: the
language hint, `.` → `_` in names, BFCL types → JSON Schema). wink's prompt-file rules then ask
for two more changes, each recorded in the `bfcl` block of the prompt file:

* tool names are lower-case (`^[a-z0-9_-]{1,64}$`): `EuclideanDistance_calculate` is offered as
  `euclideandistance_calculate`, and mapped back to `EuclideanDistance.calculate` for scoring;
* a tool description is 1–200 ASCII characters: a longer one is cut at its last sentence (or
  word) within 200 characters and non-ASCII characters are transliterated (`ε₀` → `e0`); the
  full description is the section's body either way, so the model can read all of it.

Every function is a terminal tool (`"terminal": true`): its first successful call ends the run,
as BFCL's single-turn categories end at the model's first answer. A call wink refuses (arguments
that do not fit the schema) does not end it; the model sees the failure and may try again, but
the score is taken from the first turn that called a function either way.

The question is not part of the file: the runner passes it as `--input`.

    python3 convert.py CATEGORY OUT_DIR
writes OUT_DIR/{visible,disclosed}/ID.json and OUT_DIR/index.jsonl (per entry: the question, the
wink → BFCL name map, the tools whose description was shortened).
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from pathlib import Path

import official

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "bfcl"
RECORDER = Path(__file__).resolve().parent / "record.py"
CATEGORIES = {"simple": "simple_python", "multiple": "multiple"}
VARIANTS = ("visible", "disclosed")
MAX_DESCRIPTION = 200

TASK = (
    "You are given a question and a set of functions, each in its own section below. Based on "
    "the question, make the function call(s) that achieve its purpose."
)

# Characters NFKD does not reduce to ASCII.
_ASCII_FALLBACK = {
    "\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-",
    "\u03b5": "e", "\u2660": "spades", "\u2665": "hearts", "\u2666": "diamonds",
    "\u2663": "clubs", "\u00b0": " degrees",
}


def load(category: str) -> list[tuple[dict, dict]]:
    """The entries of a category (`simple` or `multiple`) with their answers, in file order."""
    stem = f"BFCL_v4_{CATEGORIES[category]}"
    entries = [json.loads(line) for line in (DATA / f"{stem}.json").read_text().splitlines()]
    answers = {a["id"]: a for a in
               map(json.loads, (DATA / f"{stem}.ans.json").read_text().splitlines())}
    return [(entry, answers[entry["id"]]) for entry in entries]


def question(entry: dict) -> str:
    """The user's question (`simple` and `multiple` entries hold one user message)."""
    turns = entry["question"]
    if len(turns) != 1 or len(turns[0]) != 1 or turns[0][0]["role"] != "user":
        raise ValueError(f"{entry['id']}: expected one user message, got {turns!r}")
    return turns[0][0]["content"]


def wink_name(bfcl_name: str) -> str:
    """BFCL's OpenAI-style name (`.` → `_`), lower-cased for wink."""
    name = bfcl_name.replace(".", "_").lower()
    if not re.fullmatch(r"[a-z0-9_-]{1,64}", name) or not re.match(r"[a-z0-9]", name):
        raise ValueError(f"BFCL function name {bfcl_name!r} has no wink tool name ({name!r})")
    return name


def ascii_text(text: str) -> str:
    """`text` with non-ASCII characters transliterated (or dropped when nothing fits)."""
    out = []
    for char in text:
        if char.isascii():
            out.append(char)
        elif char in _ASCII_FALLBACK:
            out.append(_ASCII_FALLBACK[char])
        else:
            out.append(unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode())
    return "".join(out)


def tool_description(description: str) -> str:
    """A wink tool description (1–200 ASCII characters) for a BFCL description."""
    text = " ".join(ascii_text(description).split())
    if len(text) <= MAX_DESCRIPTION:
        return text
    head = text[:MAX_DESCRIPTION]
    end = max(head.rfind(". "), head.rfind(".\n"))
    if end > 0:
        return head[: end + 1]
    head = head[: MAX_DESCRIPTION - 3]
    return head[: head.rfind(" ")].rstrip(" ,;:") + "..."


def first_sentence(text: str) -> str:
    match = re.match(r"(.+?[.!?])(\s|$)", text.strip(), re.S)
    return (match.group(1) if match else text).strip()


def template_text(text: str) -> str:
    """`text` as a literal in a `string.Template` body (`$` doubled)."""
    return text.replace("$", "$$")


def prompt_file(entry: dict, variant: str, terminal: bool = True) -> tuple[dict, dict]:
    """The wink prompt file of one BFCL entry in one variant, and what the conversion did:
    `{"names": {wink name: BFCL name}, "descriptions_shortened": [wink names]}`. With
    `terminal`, every function is a terminal tool: the run ends at the first successful call
    (wink builds without prompt-file `terminal` need `terminal=False`)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (expected one of {VARIANTS})")
    sections = [{"key": "task", "title": "Task", "template": TASK}]
    names = {}
    changed = []
    for bfcl_function, tool in zip(entry["function"], official.openai_tools(entry)):
        original = bfcl_function["name"]
        name = wink_name(original)
        if name in names:
            raise ValueError(f"{entry['id']}: {original!r} and {names[name]!r} are both {name!r}")
        names[name] = original
        description = tool_description(tool["description"])
        if description != tool["description"]:
            changed.append(name)
        declared = {
            "name": name,
            "description": description,
            "parameters": tool["parameters"],
            "handler": {"command": ["python3", str(RECORDER), original]},
        }
        if terminal:
            declared["terminal"] = True
        sections.append({
            "key": name,
            "title": name,
            "summary": template_text(first_sentence(bfcl_function["description"])),
            "visibility": "full" if variant == "visible" else "summary",
            "template": template_text(tool["description"]),
            "tools": [declared],
        })
    prompt = {"ns": "bfcl", "key": entry["id"].replace("_", "-"), "name": entry["id"],
              "sections": sections}
    return prompt, {"names": names, "descriptions_shortened": changed}


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in CATEGORIES:
        print(f"usage: {argv[0]} {{{','.join(CATEGORIES)}}} OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[2])
    index = []
    for entry, _answer in load(argv[1]):
        for variant in VARIANTS:
            prompt, conversion = prompt_file(entry, variant)
            path = out / variant / f"{entry['id']}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(prompt, indent=1) + "\n")
        index.append({"id": entry["id"], "question": question(entry), **conversion})
    (out / "index.jsonl").write_text("".join(json.dumps(row) + "\n" for row in index))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
