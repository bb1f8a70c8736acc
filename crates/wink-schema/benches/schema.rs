//! Throughput of the hot paths: normalising a tool schema per dialect,
//! validating tool arguments, parsing a structured answer, building aliases.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use divan::{Bencher, black_box};
use serde_json::{Value, json};
use wink_schema::dialect::{SchemaDialect, normalize};
use wink_schema::names::ToolNameAliases;
use wink_schema::output::{OutputSpec, parse_structured_output};
use wink_schema::validate::validate;

fn main() {
    divan::main();
}

fn bfcl_sample() -> Vec<Value> {
    let entries: Vec<Value> =
        serde_json::from_str(include_str!("../tests/fixtures/bfcl_sample.json")).unwrap();
    entries
        .into_iter()
        .map(|entry| entry["function"]["parameters"].clone())
        .collect()
}

/// All 15 sample functions, one dialect per run.
#[divan::bench(args = ["openai-strict", "openai", "anthropic", "conservative"])]
fn normalize_bfcl_sample(bencher: Bencher, dialect: &str) {
    let dialect = SchemaDialect::ALL
        .into_iter()
        .find(|candidate| candidate.name() == dialect)
        .unwrap();
    let schemas = bfcl_sample();
    bencher.bench(|| {
        for schema in &schemas {
            black_box(normalize(black_box(schema), dialect).unwrap());
        }
    });
}

#[divan::bench]
fn validate_tool_arguments(bencher: Bencher) {
    let schema = json!({"type": "object", "properties": {
        "query": {"type": "string", "minLength": 1},
        "limit": {"type": ["integer", "null"], "minimum": 1, "maximum": 50},
        "filter": {"anyOf": [{"$ref": "#/$defs/Filter"}, {"type": "null"}]},
        "tags": {"type": "array", "items": {"type": "string"}}
    }, "required": ["query"], "$defs": {"Filter": {"type": "object", "properties": {"kind": {"enum": ["file", "dir"]}}, "required": ["kind"]}}});
    let good =
        json!({"query": "rust", "limit": 10, "filter": {"kind": "file"}, "tags": ["a", "b", "c"]});
    let bad = json!({"q": "rust", "limit": 0, "filter": {"kind": "link"}, "tags": [1]});
    bencher.bench(|| {
        black_box(validate(&schema, black_box(&good)).is_ok());
        black_box(validate(&schema, black_box(&bad)).is_err());
    });
}

#[divan::bench]
fn parse_fenced_answer(bencher: Bencher) {
    let spec = OutputSpec::object(
        "review",
        json!({"type": "object", "properties": {"verdict": {"type": "string"}, "score": {"type": "number"}}, "required": ["verdict", "score"]}),
    );
    let text = format!(
        "{}\n```json\n{{\"verdict\": \"done\", \"score\": \"0.9\"}}\n```\n",
        "Some reasoning. ".repeat(40)
    );
    bencher.bench(|| black_box(parse_structured_output(black_box(&text), &spec).unwrap()));
}

#[divan::bench]
fn aliases_for_200_names(bencher: Bencher) {
    let names: Vec<String> = (0..200)
        .map(|index| {
            if index % 2 == 0 {
                format!("ns{}.tool_{index}", index % 7)
            } else {
                format!("tool_{index}")
            }
        })
        .collect();
    bencher.bench(|| black_box(ToolNameAliases::new(black_box(&names)).unwrap()));
}
