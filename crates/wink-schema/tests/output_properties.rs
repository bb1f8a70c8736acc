//! Property tests for structured-output extraction and the Python renderings:
//! any object embedded in prose, fenced or bare, reads back unchanged.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use wink_schema::output::{OutputSpec, extract_json_payload, parse_structured_output};
use wink_schema::python;

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1.0e9..1.0e9_f64).prop_map(|float| json!(float)),
        "[a-zA-Z0-9 _'\"\\\\é\\n{}\\[\\]]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,6}", inner), 0..4).prop_map(|entries| Value::Object(
                entries.into_iter().collect::<Map<String, Value>>()
            )),
        ]
    })
}

fn json_object() -> impl Strategy<Value = Value> {
    prop::collection::vec(("[a-z]{1,6}", json_value()), 0..5)
        .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<String, Value>>()))
}

/// Prose without braces, brackets or backticks.
fn prose() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 .,:;!?\\n-]{0,40}"
}

/// `value` as serde_json reads it back from its own text: without the
/// `float_roundtrip` feature serde_json may parse a float one ulp off, so both
/// sides of a comparison go through the same parser.
fn reparsed(value: &Value) -> Value {
    serde_json::from_str(&serde_json::to_string(value).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn objects_read_back_from_any_wrapping(object in json_object(), before in prose(), after in prose(), style in 0..3_u8) {
        let encoded = if style == 1 { python::dumps(&object, true) } else { serde_json::to_string_pretty(&object).unwrap() };
        let text = match style {
            0 => format!("{before}\n```json\n{encoded}\n```\n{after}"),
            1 => format!("{before}{encoded}{after}"),
            _ => format!("{before}\n```JSON   \n{encoded}```{after}"),
        };
        let expected = reparsed(&object);
        prop_assert_eq!(&extract_json_payload(&text).unwrap(), &expected);
        let open = OutputSpec::object("p", json!({"type": "object"}));
        prop_assert_eq!(parse_structured_output(&text, &open).unwrap(), expected);
    }

    #[test]
    fn python_dumps_is_valid_json(value in json_value(), ensure_ascii in any::<bool>()) {
        let text = python::dumps(&value, ensure_ascii);
        let parsed: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(parsed, reparsed(&value));
        if ensure_ascii {
            prop_assert!(text.is_ascii());
        }
    }
}
