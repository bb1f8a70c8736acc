#!/usr/bin/env python3
"""Builds bench/disclosure/prompt.json from the vendored docs in reference/ (a frozen copy of this
repository's docs, so the benchmark does not move with them): one summarized section per heading
(long ones split in parts), plus toolbox sections hiding 32 deterministic command tools
(../eval/tools.py). Run it again after changing reference/ or the toolboxes; the output is stable."""
import json
import pathlib
import re

HERE = pathlib.Path(__file__).parent
MAX_CHARS = 3000  # longer chunks are split at paragraph boundaries


def slug(text):
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s or "section"


def chunks(markdown):
    """(heading, body) at every #/##/### heading outside code fences."""
    heading, lines, fenced = None, [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else re.match(r"^(#{1,3}) (.+)$", line)
        if match:
            if heading is not None or any(l.strip() for l in lines):
                yield heading, "\n".join(lines).strip()
            heading, lines = match.group(2).strip(), []
        else:
            lines.append(line)
    yield heading, "\n".join(lines).strip()


def split_long(body):
    """Paragraph groups of at most MAX_CHARS (a code fence is never cut)."""
    paragraphs, current, fenced = [], [], False
    for line in body.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        current.append(line)
        if not fenced and line.strip() == "":
            paragraphs.append("\n".join(current))
            current = []
    if current:
        paragraphs.append("\n".join(current))
    parts, part = [], ""
    for p in paragraphs:
        if part and len(part) + len(p) > MAX_CHARS:
            parts.append(part.strip())
            part = ""
        part += p + "\n"
    if part.strip():
        parts.append(part.strip())
    return parts


def first_sentence(text):
    """The first real sentence of the prose (code blocks, tables and list numbers skipped)."""
    prose, fenced = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith(("|", "    ")):
            continue
        prose.append(line)
    flat = re.sub(r"[`*>#]", "", " ".join(" ".join(prose).split()))
    for sentence in re.split(r"(?<=[.!?:])\s", flat):
        if len(sentence) >= 25:
            return sentence.strip()
    return ""


def escape(text):
    return text.replace("$", "$$")


DOC_LABELS = {
    "architecture": "arch", "crates-wink-catalog": "catalog", "crates-wink-embed": "embed",
    "crates-wink-search": "search", "disclosure": "disclosure",
    "examples-02_typed_output": "ex02", "examples-04_tool_catalog": "ex04",
    "examples-05_subagents": "ex05", "examples-06_mcp_docs": "ex06", "mcp": "mcp",
    "prompt-files": "promptfiles", "providers": "providers", "readme": "readme",
}


def short_slug(text, words=3):
    return "-".join(slug(text).split("-")[:words])


def reference_sections():
    sections, seen = [], set()
    for path in sorted((HERE / "reference").glob("*.md")):
        doc = DOC_LABELS[path.stem]
        title = None
        for heading, body in chunks(path.read_text()):
            if heading and title is None:
                title = heading
            if not body:
                continue
            name = heading or title or doc
            parts = split_long(body)
            for i, part in enumerate(parts):
                label = name if len(parts) == 1 else f"{name} ({i + 1})"
                key = f"{doc}-{short_slug(name)}" + ("" if len(parts) == 1 else f"-{i + 1}")
                while key in seen:
                    key += "-b"
                seen.add(key)
                sentence = first_sentence(part)
                if len(sentence) > 100:
                    sentence = sentence[:100].rsplit(" ", 1)[0] + "…"
                summary = f"{doc} docs: {sentence}" if sentence else f"{doc} docs on {name}."
                sections.append({
                    "key": key, "title": label,
                    "template": escape(part), "summary": escape(summary),
                    "visibility": "summary",
                })
    return sections


def tool(name, fn, desc, props):
    return {"name": name, "description": desc,
            "parameters": {"type": "object", "properties": props, "required": list(props),
                           "additionalProperties": False},
            "handler": {"command": ["python3", "../eval/tools.py", fn], "timeout_s": 10}}


def n(desc):
    return {"type": "number", "description": desc}


def s(desc):
    return {"type": "string", "description": desc}


TOOLBOXES = [
    ("toolbox-arithmetic", "Toolbox: arithmetic", [
        tool("add", "add", "Add two numbers.", {"a": n("First."), "b": n("Second.")}),
        tool("subtract", "subtract", "Subtract b from a.", {"a": n("Minuend."), "b": n("Subtrahend.")}),
        tool("multiply", "multiply", "Multiply two numbers.", {"a": n("First."), "b": n("Second.")}),
        tool("divide", "divide", "Divide a by b.", {"a": n("Dividend."), "b": n("Divisor.")}),
        tool("power", "power", "Raise a base to an exponent.", {"base": n("Base."), "exponent": n("Exponent.")}),
        tool("percent_of", "percent_of", "Compute a percentage of a value.", {"percent": n("Percent."), "value": n("Value.")}),
    ]),
    ("toolbox-units", "Toolbox: temperature and length", [
        tool("celsius_to_fahrenheit", "celsius_to_fahrenheit", "Convert degrees Celsius to Fahrenheit.", {"celsius": n("Degrees Celsius.")}),
        tool("fahrenheit_to_celsius", "fahrenheit_to_celsius", "Convert degrees Fahrenheit to Celsius.", {"fahrenheit": n("Degrees Fahrenheit.")}),
        tool("km_to_miles", "km_to_miles", "Convert kilometres to miles.", {"km": n("Kilometres.")}),
        tool("miles_to_km", "miles_to_km", "Convert miles to kilometres.", {"miles": n("Miles.")}),
        tool("inches_to_cm", "inches_to_cm", "Convert inches to centimetres.", {"inches": n("Inches.")}),
        tool("cm_to_inches", "cm_to_inches", "Convert centimetres to inches.", {"cm": n("Centimetres.")}),
    ]),
    ("toolbox-weight", "Toolbox: weight", [
        tool("kg_to_lb", "kg_to_lb", "Convert kilograms to pounds.", {"kg": n("Kilograms.")}),
        tool("lb_to_kg", "lb_to_kg", "Convert pounds to kilograms.", {"lb": n("Pounds.")}),
    ]),
    ("toolbox-calendar", "Toolbox: calendar", [
        tool("day_of_week", "day_of_week", "Weekday of a date (YYYY-MM-DD).", {"date": s("YYYY-MM-DD.")}),
        tool("is_leap_year", "is_leap_year", "Whether a year is a leap year.", {"year": {"type": "integer", "description": "Year."}}),
        tool("days_between", "days_between", "Days from one date to another (YYYY-MM-DD).", {"start": s("Start date."), "end": s("End date.")}),
        tool("add_days", "add_days", "The date a number of days after a date.", {"date": s("YYYY-MM-DD."), "days": {"type": "integer", "description": "Days to add."}}),
    ]),
    ("toolbox-text", "Toolbox: text", [
        tool("reverse_text", "reverse_text", "Reverse text character by character.", {"text": s("Text.")}),
        tool("upper_text", "upper_text", "Convert text to upper case.", {"text": s("Text.")}),
        tool("lower_text", "lower_text", "Convert text to lower case.", {"text": s("Text.")}),
        tool("word_count", "word_count", "Count the words in text.", {"text": s("Text.")}),
        tool("vowel_count", "vowel_count", "Count the vowels in text.", {"text": s("Text.")}),
        tool("text_length", "text_length", "Count the characters in text.", {"text": s("Text.")}),
        tool("title_case", "title_case", "Capitalise every word of text.", {"text": s("Text.")}),
        tool("is_palindrome", "is_palindrome", "Whether text reads the same backwards.", {"text": s("Text.")}),
        tool("sort_words", "sort_words", "Sort the words of text alphabetically.", {"text": s("Text.")}),
        tool("count_char", "count_char", "Count how often a character occurs in text.", {"text": s("Text."), "char": s("One character.")}),
    ]),
    ("toolbox-shop", "Toolbox: shop", [
        tool("lookup_order", "lookup_order", "Look up an order by id: status, tracking number, delivery date.", {"order_id": s("Order id, e.g. A-1042.")}),
        tool("track_parcel", "track_parcel", "Where a parcel is now, by tracking number.", {"tracking_number": s("Tracking number.")}),
        tool("find_customer", "find_customer", "Find a customer by email.", {"email": s("Email.")}),
    ]),
    ("toolbox-weather", "Toolbox: weather", [
        tool("get_forecast", "get_forecast", "Tomorrow's weather for a city (Oslo, Rome, Lima, Cairo).", {"city": s("City.")}),
    ]),
]


def toolbox_sections():
    out = []
    for key, title, tools in TOOLBOXES:
        names = ", ".join(t["name"] for t in tools)
        out.append({
            "key": key, "title": title,
            "template": f"Tools: {names}. Call them with exact values; report their results.",
            "summary": f"{title} tools: {names}.", "visibility": "summary", "tools": tools,
        })
    return out


def main():
    prompt = {
        "ns": "bench", "key": "disclosure", "name": "wink_reference_desk",
        "sections": [
            {"key": "task", "title": "Task",
             "template": "You answer questions about wink, a Rust framework for LLM agents, using the reference "
                         "sections below, and run toolbox tools when a question needs a calculation or lookup. "
                         "Open only the sections you need. Answer in one or two sentences."},
            *reference_sections(),
            *toolbox_sections(),
        ],
    }
    (HERE / "prompt.json").write_text(json.dumps(prompt, indent=1, ensure_ascii=False) + "\n")
    refs = len(prompt["sections"]) - 1 - len(TOOLBOXES)
    tools = sum(len(t) for _, _, t in TOOLBOXES)
    chars = sum(len(s["template"]) for s in prompt["sections"])
    print(f"{refs} reference sections, {len(TOOLBOXES)} toolbox sections, {tools} tools, {chars} characters")


main()
