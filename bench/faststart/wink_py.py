"""WINK v0.17 (the Python reference, `pip install weakincentives==0.17.0`, Python >= 3.12.2)
rendering the benchmark prompt file in-process: the same sections, params, summaries and tools
built with WINK's API, then `Prompt(template).render()` timed.

Usage: python bench/faststart/wink_py.py PROMPT.json RUNS
Prints `build_ms render_ms` medians, and the rendered text to the file in $WINK_PY_TEXT if set.
"""
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass

from weakincentives.prompt import (
    MarkdownSection,
    Prompt,
    PromptTemplate,
    SectionVisibility,
    Tool,
    ToolContext,
    ToolResult,
)


@dataclass
class Doc:
    project: str = "wink"
    owner: str = "the team"


@dataclass
class Query:
    query: str


@dataclass
class Answer:
    answer: str

    def render(self) -> str:
        return self.answer


def lookup(params: Query, *, context: ToolContext) -> ToolResult[Answer]:
    return ToolResult(message="ok", value=Answer(answer=params.query))


def section(spec: dict) -> MarkdownSection:
    tools = [
        Tool[Query, Answer](name=t["name"], description=t["description"], handler=lookup)
        for t in spec.get("tools", [])
    ]
    extra = {}
    if "summary" in spec:
        extra["summary"] = spec["summary"]
    if spec.get("visibility") == "summary":
        extra["visibility"] = SectionVisibility.SUMMARY
    return MarkdownSection[Doc](
        title=spec["title"],
        key=spec["key"],
        template=spec.get("template", ""),
        tools=tools,
        children=[section(c) for c in spec.get("children", [])],
        **extra,
    )


def main() -> None:
    path, runs = sys.argv[1], int(sys.argv[2])
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    builds, renders = [], []
    text = ""
    for _ in range(runs):
        start = time.perf_counter()
        template = PromptTemplate(
            ns=spec["ns"], key=spec["key"], sections=[section(s) for s in spec["sections"]]
        )
        built = time.perf_counter()
        text = Prompt(template).bind(Doc()).render().text
        done = time.perf_counter()
        builds.append((built - start) * 1000)
        renders.append((done - built) * 1000)
    if os.environ.get("WINK_PY_TEXT"):
        with open(os.environ["WINK_PY_TEXT"], "w", encoding="utf-8") as f:
            f.write(text)
    print(f"{statistics.median(builds):.2f} {statistics.median(renders):.2f}")


if __name__ == "__main__":
    main()
