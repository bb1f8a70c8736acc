"""Turn Markdown documents into a summarized wink prompt file (stdlib only).

    python3 docs_to_prompt.py OUT.json DOC_OR_FOLDER... [--full]

One root section per document (title = its first `#` heading or the file name), one child
section per heading, nested by heading level. Every section is summarized; its summary is the
first sentence of its first prose paragraph. `--full` writes the same tree with every section
shown in full, to measure what the whole documentation costs. Files: `*.md`, `*.markdown`,
`*.txt` (treated as Markdown).
"""

import json
import re
import sys
from pathlib import Path

SUFFIXES = {".md", ".markdown", ".txt"}


def slug(text, taken):
    base = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-_")[:48] or "section"
    if not base[0].isalnum():
        base = "s" + base
    key, n = base, 2
    while key in taken:
        key, n = f"{base}-{n}", n + 1
    taken.add(key)
    return key


def first_sentence(body):
    fence = False
    for block in re.split(r"\n\s*\n", body):
        lines = [l for l in block.strip().splitlines()]
        if not lines:
            continue
        if lines[0].lstrip().startswith("```"):
            fence = not fence if block.count("```") % 2 else fence
            continue
        if fence or lines[0].lstrip().startswith(("|", "<", "!", "    ", ">", "---")):
            continue
        text = " ".join(l.strip().lstrip("-*+ ").strip() for l in lines)
        match = re.match(r"(.+?[.!?])(\s|$)", text)
        sentence = match.group(1) if match else text
        return sentence[:300]
    return None


def escape(text):
    return text.replace("$", "$$")


def parse(path):
    """[(level, title, body)] with level 1 for the document itself."""
    text = path.read_text(encoding="utf-8", errors="replace")
    sections, fence = [[1, path.stem, []]], False
    seen_title = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        match = None if fence else re.match(r"^(#{1,6})\s+(.+?)\s*#*\s*$", line)
        if match:
            level, title = len(match.group(1)), match.group(2)
            if level == 1 and not seen_title and not "".join(sections[0][2]).strip():
                sections[0][1], seen_title = title, True
                continue
            sections.append([max(level, 2), title, []])
        else:
            sections[-1][2].append(line)
    return [(level, title, "\n".join(body).strip()) for level, title, body in sections]


def to_sections(path, taken_roots, full):
    parsed = parse(path)
    root = None
    stack = []  # (level, section dict, taken child keys)
    for level, title, body in parsed:
        children_taken = stack[-1][2] if stack else taken_roots
        while stack and stack[-1][0] >= level:
            stack.pop()
            children_taken = stack[-1][2] if stack else taken_roots
        key = slug(title if stack else path.stem, children_taken)
        section = {"key": key, "title": title, "template": escape(body) if body else ""}
        summary = first_sentence(body) if body else None
        section["summary"] = escape(summary or f"{title}.")
        section["visibility"] = "full" if full else "summary"
        if stack:
            stack[-1][1].setdefault("children", []).append(section)
        else:
            root = section
        stack.append((level, section, set()))
    return root


def main():
    args = [a for a in sys.argv[1:] if a != "--full"]
    full = "--full" in sys.argv
    if len(args) < 2:
        sys.exit(__doc__)
    out, inputs = Path(args[0]), [Path(a) for a in args[1:]]
    files = []
    for item in inputs:
        files += sorted(p for p in item.rglob("*") if p.suffix in SUFFIXES) if item.is_dir() else [item]
    taken = set()
    sections = [to_sections(f, taken, full) for f in files]
    prompt = {"ns": "docs", "key": "mcp-docs", "disclosure": "unified", "sections": sections}
    out.write_text(json.dumps(prompt, indent=1))
    count = sum(1 for _ in re.finditer(r'"key":', out.read_text())) - 1
    print(f"{out}: {len(files)} documents, {count} sections", file=sys.stderr)


if __name__ == "__main__":
    main()
