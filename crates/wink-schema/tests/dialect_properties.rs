//! Property tests for the dialect normaliser: on generated schemas (schemars-like,
//! hand-written and BFCL-like constructs) every dialect succeeds, its output keeps
//! the dialect's invariants, and normalising again changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use wink_schema::dialect::{SchemaDialect, normalize};

fn property_name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "c", "query", "limit", "x"]).prop_map(str::to_owned)
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            "string", "integer", "number", "boolean", "float", "str", "null"
        ])
        .prop_map(|name| json!({ "type": name })),
        Just(json!({})),
        Just(json!({"type": "any", "description": "anything"})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": ["integer", "string", "null"]})),
        Just(json!({"type": "integer", "minimum": 0, "exclusiveMaximum": 10, "format": "int32"})),
        Just(json!({"type": "number", "minimum": 0, "exclusiveMinimum": true})),
        Just(json!({"type": "string", "enum": ["a", "b"], "default": "a"})),
        Just(json!({"type": "boolean", "enum": ["True", "False", "dontcare"]})),
        Just(json!({"const": "k"})),
        Just(json!({"enum": [1, null]})),
        Just(json!({"$ref": "#/$defs/Leaf"})),
        Just(json!({"$ref": "#/$defs/Obj", "description": "an object"})),
        Just(json!({"$ref": "#/definitions/Old"})),
        Just(
            json!({"type": "string", "format": "uri", "title": "T", "x-extra": 1, "minLength": 1})
        ),
        Just(json!({"type": "string", "format": "date-time"})),
        Just(json!({"type": "float", "nullable": true})),
        Just(json!({"type": "dict"})),
    ]
}

fn object(inner: BoxedStrategy<Value>) -> impl Strategy<Value = Value> {
    (
        prop::collection::vec((property_name(), inner.clone(), 0..3_u8), 0..4),
        prop::option::of(prop_oneof![Just(json!(true)), Just(json!(false)), inner]),
        prop::sample::select(vec!["object", "dict"]),
    )
        .prop_map(|(properties, additional, type_name)| {
            let mut props = Map::new();
            let mut required = Vec::new();
            for (name, schema, flag) in properties {
                let mut schema = schema;
                match flag {
                    0 => required.push(Value::String(name.clone())),
                    1 => {
                        if let Value::Object(map) = &mut schema {
                            map.insert("optional".into(), json!(true));
                        }
                        required.push(Value::String(name.clone()));
                    }
                    _ => {}
                }
                props.insert(name, schema);
            }
            let mut map = Map::new();
            map.insert("type".into(), json!(type_name));
            map.insert("properties".into(), Value::Object(props));
            if !required.is_empty() {
                map.insert("required".into(), Value::Array(required));
            }
            if let Some(additional) = additional {
                map.insert("additionalProperties".into(), additional);
            }
            Value::Object(map)
        })
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 4, |inner| {
        let inner = inner.boxed();
        prop_oneof![
            object(inner.clone()),
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items, "minItems": 1})),
            Just(json!({"type": "tuple"})),
            prop::collection::vec(inner.clone(), 1..3)
                .prop_map(|prefix| json!({"type": "array", "prefixItems": prefix, "items": false})),
            prop::collection::vec(inner.clone(), 1..3)
                .prop_map(|prefix| json!({"type": "array", "items": prefix})),
            prop::collection::vec(inner.clone(), 1..3)
                .prop_map(|branches| json!({"anyOf": branches})),
            inner.clone().prop_map(
                |branch| json!({"anyOf": [branch, {"type": "null"}], "description": "maybe"})
            ),
            prop::collection::vec(inner.clone(), 1..3)
                .prop_map(|branches| json!({"oneOf": branches})),
            (object(inner.clone()), object(inner.clone()))
                .prop_map(|(left, right)| json!({"allOf": [left, right, {"$ref": "#/$defs/Obj"}]})),
            Just(json!({"type": "array", "items": {"type": "string"}, "enum": ["x", "y"]})),
        ]
    })
}

fn root() -> impl Strategy<Value = Value> {
    (object(schema().boxed()), any::<bool>()).prop_map(|(mut root, schemars_header)| {
        let map = root.as_object_mut().unwrap();
        map.insert(
            "$defs".into(),
            json!({
                "Leaf": {"type": "string", "title": "Leaf"},
                "Obj": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"$ref": "#/$defs/Leaf"}}, "required": ["x"]}
            }),
        );
        map.insert("definitions".into(), json!({"Old": {"type": "integer", "format": "int64"}}));
        if schemars_header {
            map.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
            map.insert("title".into(), json!("Params"));
        }
        root
    })
}

/// Every schema node of a normalised schema, with its JSON Pointer.
fn nodes<'a>(schema: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    let Value::Object(map) = schema else {
        return;
    };
    out.push((path.clone(), schema));
    for key in [
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "additionalItems",
    ] {
        if let Some(child) = map.get(key) {
            nodes(child, format!("{path}/{key}"), out);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = map.get(key) {
            for (index, child) in children.iter().enumerate() {
                nodes(child, format!("{path}/{key}/{index}"), out);
            }
        }
    }
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(children)) = map.get(key) {
            for (name, child) in children {
                nodes(child, format!("{path}/{key}/{name}"), out);
            }
        }
    }
}

fn type_names(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn check_invariants(output: &Value, dialect: SchemaDialect) -> Result<(), String> {
    let mut all = Vec::new();
    nodes(output, "#".into(), &mut all);
    let root = output.as_object().unwrap();
    if root.get("type") != Some(&json!("object"))
        || !root.get("properties").is_some_and(Value::is_object)
    {
        return Err("top level is not an object with properties".into());
    }
    for (path, node) in all {
        let map = node.as_object().unwrap();
        for key in ["title", "$schema", "nullable", "optional", "x-extra"] {
            if map.contains_key(key) {
                return Err(format!("{path}: kept {key}"));
            }
        }
        for name in type_names(map) {
            if ![
                "string", "integer", "number", "boolean", "object", "array", "null",
            ]
            .contains(&name)
            {
                return Err(format!("{path}: non-canonical type {name}"));
            }
        }
        if let Some(Value::Array(names)) = map.get("type")
            && names.len() < 2
        {
            return Err(format!("{path}: one-element type array"));
        }
        match dialect {
            SchemaDialect::OpenAiStrict => {
                for key in map.keys() {
                    let allowed = [
                        "type",
                        "description",
                        "properties",
                        "required",
                        "additionalProperties",
                        "items",
                        "enum",
                        "const",
                        "anyOf",
                        "$ref",
                        "$defs",
                        "definitions",
                        "pattern",
                        "format",
                        "minimum",
                        "maximum",
                        "exclusiveMinimum",
                        "exclusiveMaximum",
                        "multipleOf",
                        "minItems",
                        "maxItems",
                    ];
                    if !allowed.contains(&key.as_str()) {
                        return Err(format!("{path}: strict kept {key}"));
                    }
                }
                if map.contains_key("$ref") && map.len() > 1 {
                    return Err(format!("{path}: $ref with siblings"));
                }
                if !["type", "anyOf", "$ref", "enum", "const"]
                    .iter()
                    .any(|key| map.contains_key(*key))
                {
                    return Err(format!("{path}: unconstrained"));
                }
                let types = type_names(map);
                if types.contains(&"object") {
                    let names: Vec<Value> = map["properties"]
                        .as_object()
                        .unwrap()
                        .keys()
                        .map(|k| json!(k))
                        .collect();
                    if map.get("required") != Some(&Value::Array(names)) {
                        return Err(format!("{path}: required is not every property"));
                    }
                    if map.get("additionalProperties") != Some(&json!(false)) {
                        return Err(format!("{path}: object not closed"));
                    }
                }
                if types.contains(&"array") && !map.contains_key("items") {
                    return Err(format!("{path}: array without items"));
                }
            }
            SchemaDialect::Conservative => {
                for key in map.keys() {
                    let allowed = [
                        "type",
                        "description",
                        "properties",
                        "required",
                        "items",
                        "enum",
                        "anyOf",
                        "minimum",
                        "maximum",
                        "minItems",
                        "maxItems",
                        "minLength",
                        "maxLength",
                    ];
                    if !allowed.contains(&key.as_str()) {
                        return Err(format!("{path}: conservative kept {key}"));
                    }
                }
                if map.get("type").is_some_and(Value::is_array) {
                    return Err(format!("{path}: type array"));
                }
                if let Some(Value::Array(branches)) = map.get("anyOf") {
                    if branches.len() < 2 {
                        return Err(format!("{path}: one-branch anyOf"));
                    }
                    if branches
                        .iter()
                        .any(|branch| branch.get("type") == Some(&json!("null")))
                    {
                        return Err(format!("{path}: null branch"));
                    }
                }
                if let Some(Value::Array(options)) = map.get("enum")
                    && options.iter().any(Value::is_null)
                    && options.len() > 1
                {
                    return Err(format!("{path}: null in enum"));
                }
                if let (Some(Value::Array(required)), Some(Value::Object(properties))) =
                    (map.get("required"), map.get("properties"))
                    && required
                        .iter()
                        .any(|name| !properties.contains_key(name.as_str().unwrap()))
                {
                    return Err(format!("{path}: required names an undeclared property"));
                }
            }
            SchemaDialect::OpenAi | SchemaDialect::Anthropic => {}
            _ => {}
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, .. ProptestConfig::default() })]

    #[test]
    fn normalize_succeeds_keeps_invariants_and_is_idempotent(schema in root()) {
        for dialect in SchemaDialect::ALL {
            let once = normalize(&schema, dialect)
                .map_err(|error| TestCaseError::fail(format!("{dialect}: {error}\n{schema}")))?;
            check_invariants(&once, dialect)
                .map_err(|problem| TestCaseError::fail(format!("{dialect}: {problem}\n{schema}\n=> {once}")))?;
            let twice = normalize(&once, dialect)
                .map_err(|error| TestCaseError::fail(format!("{dialect} second pass: {error}\n{once}")))?;
            prop_assert_eq!(
                serde_json::to_string(&twice).unwrap(),
                serde_json::to_string(&once).unwrap(),
                "{} not idempotent for {}", dialect, schema
            );
        }
    }
}
