//! Fuzzing tool-argument handling (issue 23): strict parsing of argument text, coercion and
//! validation against arbitrary schemas never panic; strict parsing agrees with serde_json
//! whenever it accepts. Case count: `PROPTEST_CASES` (default 256); see docs/fuzzing.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{Value, json};

fn arb_json(depth: u32) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        "[a-z]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(depth, 32, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z]{1,4}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

/// Schema-shaped JSON: keywords with plausible and implausible values.
fn arb_schema() -> BoxedStrategy<Value> {
    let keyword = prop_oneof![
        Just(("type", json!("object"))),
        Just(("type", json!("integer"))),
        Just(("type", json!(["string", "null"]))),
        Just(("type", json!("objectz"))),
        Just(("required", json!(["a", "b"]))),
        Just(("additionalProperties", json!(false))),
        Just(("enum", json!([1, "a", null]))),
        Just(("enum", json!([]))),
        Just(("minimum", json!(3))),
        Just(("multipleOf", json!(0))),
        Just(("pattern", json!("[a-"))),
        Just(("$ref", json!("#/$defs/x"))),
        Just(("$ref", json!("#"))),
        Just(("$defs", json!({"x": {"$ref": "#/$defs/x"}}))),
        Just(("items", json!({"type": "string"}))),
        Just(("anyOf", json!([{"type": "string"}, {"type": "integer"}]))),
        Just(("oneOf", json!([{}, {}]))),
        Just(("not", json!({"type": "null"}))),
    ];
    proptest::collection::vec(keyword, 0..6)
        .prop_flat_map(|keywords| {
            arb_json(2).prop_map(move |extra| {
                let mut schema = serde_json::Map::new();
                for (key, value) in &keywords {
                    schema.insert((*key).to_owned(), value.clone());
                }
                schema.insert(
                    "properties".into(),
                    json!({"a": {"type": "integer"}, "b": extra}),
                );
                Value::Object(schema)
            })
        })
        .boxed()
}

proptest! {
    #[test]
    fn fuzz_tool_argument_validation(schema in arb_schema(), value in arb_json(3), text in any::<String>()) {
        let started = Instant::now();
        let _ = wink_schema::check_schema(&schema);
        let coerced = wink_schema::coerce(&schema, &value);
        let _ = wink_schema::validate(&schema, &coerced);
        for candidate in [text.clone(), value.to_string()] {
            if let Ok(parsed) = wink_schema::parse_strict_json(&candidate) {
                prop_assert_eq!(parsed, serde_json::from_str::<Value>(&candidate).unwrap());
            }
        }
        prop_assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    }
}
