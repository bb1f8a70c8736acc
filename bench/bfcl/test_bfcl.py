#!/usr/bin/env python3
"""Tests of the BFCL bench tooling: `$(bash bench/bfcl/setup.sh) -m unittest discover bench/bfcl`.
The end-to-end test runs `wink run` with the scripted model; it uses $WINK, else
target/release/wink, else target/debug/wink, and is skipped when none exists."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import convert  # noqa: E402
import official  # noqa: E402
import run  # noqa: E402


def wink_binary() -> str | None:
    target = HERE.parents[1] / "target"
    for path in [os.environ.get("WINK"), target / "release" / "wink", target / "debug" / "wink"]:
        if path and Path(path).exists():
            return str(path)
    return None


def entry(category: str, entry_id: str) -> tuple[dict, dict]:
    return next((e, a) for e, a in convert.load(category) if e["id"] == entry_id)


def first_options(options: dict) -> dict:
    """The first allowed value of every key but `""` (which marks a key that may be left out)."""
    chosen = {key: [v for v in values if v != ""] for key, values in options.items()}
    return {key: gold_value(values[0]) for key, values in chosen.items() if values}


def gold_value(value):
    """A ground-truth value; its dictionaries, at any depth, hold allowed values per key."""
    if isinstance(value, dict):
        return first_options(value)
    if isinstance(value, list):
        return [gold_value(item) for item in value]
    return value


def gold_calls(answer: dict) -> list[dict]:
    """The ground truth as a model's calls."""
    return [{name: first_options(arguments)}
            for call in answer["ground_truth"] for name, arguments in call.items()]


class Conversion(unittest.TestCase):
    def test_names_follow_bfcl_then_lower_case(self):
        self.assertEqual(convert.wink_name("EuclideanDistance.calculate"),
                         "euclideandistance_calculate")
        self.assertEqual(convert.wink_name("math.triangle_area_heron"), "math_triangle_area_heron")
        with self.assertRaisesRegex(ValueError, "no wink tool name"):
            convert.wink_name("a b")

    def test_descriptions_fit_wink(self):
        long = ("Calculate magnetic field strength using Ampere's Circuital Law. " * 4).strip()
        short = convert.tool_description(long)
        self.assertEqual(short, " ".join(["Calculate magnetic field strength using Ampere's "
                                          "Circuital Law."] * 3))
        self.assertEqual(convert.tool_description("Uses \u03b5\u2080 and player\u2019s x\u00b2."),
                         "Uses e0 and player's x2.")
        words = convert.tool_description("word " * 60)
        self.assertTrue(words.endswith("...") and len(words) <= 200, words)

    def test_a_prompt_file_per_variant(self):
        e, _ = entry("multiple", "multiple_3")
        visible, conversion = convert.prompt_file(e, "visible")
        disclosed, _ = convert.prompt_file(e, "disclosed")
        self.assertEqual(conversion["names"], {
            "euclideandistance_calculate": "EuclideanDistance.calculate",
            "angletoxaxis_calculate": "angleToXAxis.calculate",
        })
        self.assertEqual([s["key"] for s in visible["sections"]],
                         ["task", "euclideandistance_calculate", "angletoxaxis_calculate"])
        self.assertEqual([s.get("visibility") for s in visible["sections"]],
                         [None, "full", "full"])
        self.assertEqual([s.get("visibility") for s in disclosed["sections"]],
                         [None, "summary", "summary"])
        self.assertEqual(disclosed["sections"][1]["summary"],
                         "Calculate the Euclidean distance between two points.")
        tools = official.openai_tools(e)
        self.assertEqual([s["tools"][0]["parameters"] for s in visible["sections"][1:]],
                         [t["parameters"] for t in tools])
        self.assertEqual(visible["sections"][1]["tools"][0]["description"],
                         "Calculate the Euclidean distance between two points. Note that the "
                         "provided function is in Python 3 syntax.")

    def test_bfcl_types_become_json_schema(self):
        e, _ = entry("multiple", "multiple_0")
        prompt, _ = convert.prompt_file(e, "visible")
        circle = prompt["sections"][2]["tools"][0]["parameters"]
        self.assertEqual(circle["type"], "object")
        self.assertEqual(circle["properties"]["radius"]["type"], "number")
        self.assertEqual(circle["properties"]["radius"]["format"], "float")
        self.assertTrue(circle["properties"]["radius"]["description"]
                        .endswith(" This is a float type value."))

    def test_functions_are_terminal_tools_unless_asked_not_to_be(self):
        e, _ = entry("simple", "simple_python_0")
        self.assertTrue(convert.prompt_file(e, "visible")[0]["sections"][1]["tools"][0]["terminal"])
        self.assertNotIn("terminal",
                         convert.prompt_file(e, "visible", False)[0]["sections"][1]["tools"][0])

    def test_dollars_are_literal_in_templates(self):
        self.assertEqual(convert.template_text("costs $5 or ${x}"), "costs $$5 or $${x}")

    def test_every_entry_converts(self):
        for category in convert.CATEGORIES:
            for e, _ in convert.load(category):
                for variant in convert.VARIANTS:
                    prompt, _ = convert.prompt_file(e, variant)
                    for section in prompt["sections"][1:]:
                        description = section["tools"][0]["description"]
                        self.assertTrue(0 < len(description) <= 200 and description.isascii(),
                                        (e["id"], description))


class Scoring(unittest.TestCase):
    def test_the_ground_truth_passes_the_official_checker(self):
        for category in convert.CATEGORIES:
            for e, a in convert.load(category):
                verdict = official.check(e, a, gold_calls(a), convert.CATEGORIES[category])
                self.assertTrue(verdict["valid"], (e["id"], verdict))

    def test_wrong_answers_fail_with_bfcl_error_types(self):
        e, a = entry("multiple", "multiple_0")
        self.assertEqual(official.check(e, a, [], "multiple")["error_type"],
                         "multiple_function_checker:wrong_count")
        wrong = [{"circle_properties.get": {"radius": 3.0}}]
        self.assertEqual(official.check(e, a, wrong, "multiple")["error_type"],
                         "simple_function_checker:wrong_func_name")
        value = [{"triangle_properties.get": {"side1": 5, "side2": 4, "side3": 9}}]
        self.assertEqual(official.check(e, a, value, "multiple")["error_type"],
                         "value_error:others")


TURNS = [
    {"tool_calls": [{"id": "c1", "name": "read_section",
                     "arguments": {"section_key": "triangle_properties_get"}}]},
    {"text": "Calling it.", "tool_calls": [
        {"id": "c2", "name": "triangle_properties_get", "arguments": {"side1": 5}},
        {"id": "c3", "name": "open_sections", "arguments": {"section_keys": ["x"]}}]},
    {"text": "Done."},
]


def transcript_with_turns() -> dict:
    calls, history = [], [{"role": "user", "content": "q"}]
    for turn in TURNS:
        calls.append({"messages": list(history), "tools": [], "turn": turn})
        history.append({"role": "assistant", "content": turn.get("text"),
                        "tool_calls": turn.get("tool_calls", [])})
        history.append({"role": "tool", "content": "ok"})
    return {"model_calls": calls, "status": {"status": "finished"}}


class Transcripts(unittest.TestCase):
    def test_first_call_turn_skips_disclosure_calls(self):
        turns = run.model_turns(transcript_with_turns())
        turn, opened = run.first_call_turn(turns)
        self.assertEqual(turn["call"], 1)
        self.assertEqual(opened, ["triangle_properties_get", "x"])
        names = {"triangle_properties_get": "triangle_properties.get"}
        self.assertEqual(run.bfcl_calls(turn, names), [{"triangle_properties.get": {"side1": 5}}])

    def test_older_transcripts_give_the_same_turns_from_the_requests(self):
        older = transcript_with_turns()
        for call in older["model_calls"]:
            del call["turn"]
        self.assertEqual(run.first_call_turn(run.model_turns(older)),
                         run.first_call_turn(run.model_turns(transcript_with_turns())))

    def test_sections_shown_in_full_at_the_first_call(self):
        system = ("## 1. Task (task)\n\nDo it.\n\n## 2. f_a (f_a)\n\nA.\n\n## 3. f_b (f_b)\n\nB."
                  "\n\n---\n[This section is summarized. To view full content, call "
                  "`read_section` with key \"f_b\".]")
        transcript = {"model_calls": [{"messages": [{"role": "system", "content": system}]}]}
        self.assertEqual(run.sections_in_full(transcript), ["task", "f_a"])
        self.assertIsNone(run.sections_in_full({"model_calls": []}))

    def test_failure_kinds(self):
        row = {"valid": False, "timed_out": False, "calls": [], "status": "finished",
               "error_type": "multiple_function_checker:wrong_count"}
        self.assertEqual(run.failure_kind(row), "no call: answered in text")
        self.assertEqual(run.failure_kind({**row, "status": "failed"}), "no call: run failed")
        row["calls"] = [{"f": {}}]
        self.assertEqual(run.failure_kind(row), "wrong number of calls")
        row["error_type"] = "value_error:string"
        self.assertEqual(run.failure_kind(row), "wrong argument value")

    def test_a_results_folder_holds_one_setting(self):
        self.assertEqual(run.settings("openai-compat:q", ["--base-url", "http://h:1/v1", "-v"]),
                         run.settings("openai-compat:q", ["--base-url", "http://h:2/v1", "-v"]))
        self.assertNotEqual(run.settings("local", ["--preopen", "0"]), run.settings("local", []))

    def test_the_split_is_fixed(self):
        self.assertEqual([run.half_of(i) for i in range(4)], ["dev", "held-out", "dev", "held-out"])


@unittest.skipUnless(wink_binary(), "no wink binary (cargo build -p wink-cli)")
class EndToEnd(unittest.TestCase):
    def test_a_scripted_model_is_run_and_scored(self):
        script = [
            {"tool_calls": [{"id": "c1", "name": "read_section",
                             "arguments": {"section_key": "triangle_properties_get"}}]},
            {"tool_calls": [{"id": "c2", "name": "triangle_properties_get",
                             "arguments": {"side1": 5, "side2": 4, "side3": 3}}]},
            {"text": "Done."},
        ]
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "script.json").write_text(json.dumps(script))
            out = subprocess.run(
                [sys.executable, str(HERE / "run.py"), "run", "--category", "multiple",
                 "--model", f"scripted:{tmp}/script.json", "--ids", "multiple_0,multiple_1",
                 "--variant", "disclosed", "--label", "t", "--wink", wink_binary()],
                capture_output=True, text=True, env={**os.environ, "BFCL_RESULTS": tmp},
                check=True)
            rows = [json.loads(line) for line in (Path(tmp) / "t" / "multiple-disclosed.jsonl")
                    .read_text().splitlines()]
        self.assertIn("| t | multiple | disclosed | 1/1 (100.0%) | 0/1 (0.0%) | 1/2 (50.0%) |",
                      out.stdout)
        self.assertEqual([(r["id"], r["half"], r["kind"]) for r in rows],
                         [("multiple_0", "dev", "passed"),
                          ("multiple_1", "held-out", "wrong function")])
        self.assertEqual(rows[0]["calls"], [{"triangle_properties.get":
                                             {"side1": 5, "side2": 4, "side3": 3}}])
        self.assertEqual(rows[0]["recorded"], [{"name": "triangle_properties.get",
                                                "arguments": {"side1": 5, "side2": 4,
                                                              "side3": 3}}])
        # The function is a terminal tool: the run ends at its call, the answer turn unused.
        self.assertEqual((rows[0]["opened"], rows[0]["call_turn"], rows[0]["model_calls"],
                          rows[0]["status"]), (["triangle_properties_get"], 1, 2, "terminated"))


if __name__ == "__main__":
    unittest.main()
