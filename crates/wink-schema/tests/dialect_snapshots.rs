//! Snapshots of every dialect for schemars-generated schemas (Option fields,
//! nested structs via `$defs`, enums, arrays, tuples, a recursive type) and for
//! a vendored sample of BFCL functions (`fixtures/bfcl_sample.json`, BFCL,
//! Apache-2.0, ShishirPatil/gorilla).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use schemars::JsonSchema;
use serde_json::{Map, Value, json};
use wink_schema::dialect::{SchemaDialect, fits_openai_strict, normalize};

/// Search the catalog.
#[derive(JsonSchema)]
struct SearchParams {
    /// Free-text query.
    query: String,
    /// Maximum number of results.
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
    /// Restrict the search.
    filter: Option<Filter>,
    mode: Mode,
    tags: Vec<String>,
    /// A point as (x, y).
    origin: (f64, f64),
    #[serde(default)]
    verbose: bool,
}

/// What to keep.
#[derive(JsonSchema)]
struct Filter {
    /// Owner of the documents.
    owner: Owner,
    /// Only hosts with this address.
    host: Option<std::net::Ipv4Addr>,
}

#[derive(JsonSchema)]
struct Owner {
    name: String,
    #[schemars(length(min = 1))]
    team: Option<String>,
}

/// How hard to look.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Thorough,
}

#[derive(JsonSchema)]
struct DrawParams {
    shapes: Vec<Shape>,
    #[schemars(extend("default" = "black"))]
    color: Option<String>,
}

#[derive(JsonSchema)]
enum Shape {
    Circle { radius: f64 },
    Square(f64),
    Dot,
}

#[derive(JsonSchema)]
struct TreeParams {
    root: TreeNode,
}

#[derive(JsonSchema)]
struct TreeNode {
    label: String,
    children: Vec<TreeNode>,
}

fn schemars_inputs() -> Vec<(&'static str, Value)> {
    vec![
        (
            "search",
            serde_json::to_value(schemars::schema_for!(SearchParams)).unwrap(),
        ),
        (
            "draw",
            serde_json::to_value(schemars::schema_for!(DrawParams)).unwrap(),
        ),
        (
            "tree",
            serde_json::to_value(schemars::schema_for!(TreeParams)).unwrap(),
        ),
    ]
}

fn outcome(schema: &Value, dialect: SchemaDialect) -> Value {
    match normalize(schema, dialect) {
        Ok(normalized) => {
            let again = normalize(&normalized, dialect).unwrap();
            assert_eq!(
                serde_json::to_string(&again).unwrap(),
                serde_json::to_string(&normalized).unwrap(),
                "normalize is not idempotent for {dialect}"
            );
            normalized
        }
        Err(error) => json!({ "error": error.to_string() }),
    }
}

#[test]
fn schemars_input() {
    let inputs: Map<String, Value> = schemars_inputs()
        .into_iter()
        .map(|(name, schema)| (name.to_owned(), schema))
        .collect();
    insta::assert_json_snapshot!("schemars_input", inputs);
}

#[test]
fn schemars_schemas_per_dialect() {
    for dialect in SchemaDialect::ALL {
        let outputs: Map<String, Value> = schemars_inputs()
            .into_iter()
            .map(|(name, schema)| (name.to_owned(), outcome(&schema, dialect)))
            .collect();
        insta::assert_json_snapshot!(format!("schemars_{}", dialect.name()), outputs);
    }
}

#[test]
fn only_the_tree_fails_conservatively() {
    for (name, schema) in schemars_inputs() {
        let result = normalize(&schema, SchemaDialect::Conservative);
        assert_eq!(result.is_err(), name == "tree", "{name}");
    }
    let tree = &schemars_inputs()[2].1;
    assert_eq!(
        normalize(tree, SchemaDialect::Conservative)
            .unwrap_err()
            .to_string(),
        "recursive $ref '#/$defs/TreeNode' at #/properties/root/properties/children/items cannot be inlined for the conservative dialect"
    );
}

#[test]
fn strict_fit_of_schemars_schemas() {
    let fits: Vec<(&str, bool)> = schemars_inputs()
        .iter()
        .map(|(name, schema)| (*name, fits_openai_strict(schema)))
        .collect();
    assert_eq!(fits, [("search", true), ("draw", true), ("tree", true)]);
}

fn bfcl_sample() -> Vec<Value> {
    let text = include_str!("fixtures/bfcl_sample.json");
    serde_json::from_str(text).unwrap()
}

#[test]
fn bfcl_sample_per_dialect() {
    let sample = bfcl_sample();
    assert_eq!(sample.len(), 15);
    for dialect in SchemaDialect::ALL {
        let outputs: Vec<Value> = sample
            .iter()
            .map(|entry| {
                let function = &entry["function"];
                json!({
                    "name": function["name"],
                    "parameters": outcome(&function["parameters"], dialect),
                })
            })
            .collect();
        insta::assert_json_snapshot!(format!("bfcl_sample_{}", dialect.name()), outputs);
    }
}
