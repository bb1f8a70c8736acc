//! Exact validation messages, as the tool executor shows them to the model
//! (`Tool validation failed: {errors}`), following WINK's serde wording.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use wink_schema::validate::{PathSegment, ValidationOptions, validate, validate_with};

fn tool_message(schema: &Value, arguments: &Value) -> String {
    match validate(schema, arguments) {
        Ok(()) => "ok".to_owned(),
        Err(errors) => format!("Tool validation failed: {errors}"),
    }
}

fn search_schema() -> Value {
    json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})
}

#[test]
fn b14_missing_required_field() {
    assert_eq!(
        tool_message(&search_schema(), &json!({})),
        "Tool validation failed: Missing required field: 'query'"
    );
    assert_eq!(
        tool_message(&search_schema(), &json!({"query": "hi"})),
        "ok"
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let errors = validate(&search_schema(), &json!({"q": "x", "limit": 3})).unwrap_err();
    assert_eq!(errors.len(), 2);
    assert_eq!(
        errors.to_string(),
        "Missing required field: 'query'; Extra keys not permitted: ['q', 'limit']"
    );
    let messages: Vec<&str> = errors.iter().map(|error| error.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "Missing required field: 'query'",
            "Extra keys not permitted: ['q', 'limit']"
        ]
    );
}

#[test]
fn python_repr_quoting_in_key_lists() {
    let schema = json!({"type": "object", "properties": {}});
    assert_eq!(
        validate(&schema, &json!({"it's": 1, "plain": 2}))
            .unwrap_err()
            .to_string(),
        r#"Extra keys not permitted: ["it's", 'plain']"#
    );
    let quoted =
        json!({"type": "object", "properties": {"it's": {"type": "string"}}, "required": ["it's"]});
    assert_eq!(
        validate(&quoted, &json!({})).unwrap_err().to_string(),
        r#"Missing required field: "it's""#
    );
}

#[test]
fn nested_problems_carry_the_field_path() {
    let schema = json!({
        "type": "object",
        "properties": {
            "filter": {"$ref": "#/$defs/Filter"},
            "pages": {"type": "array", "items": {"$ref": "#/$defs/Page"}}
        },
        "required": ["filter"],
        "$defs": {
            "Filter": {"type": "object", "properties": {"kind": {"type": "string", "enum": ["file", "dir"]}}, "required": ["kind"]},
            "Page": {"type": "object", "properties": {"number": {"type": "integer", "minimum": 1}}, "required": ["number"]}
        }
    });
    let errors = validate(
        &schema,
        &json!({"filter": {"kind": "link", "x": 1}, "pages": [{"number": 0}, {}]}),
    )
    .unwrap_err();
    assert_eq!(
        errors.to_string(),
        "filter.kind: expected one of ['file', 'dir']; filter: Extra keys not permitted: ['x']; pages[0].number: must be >= 1; pages[1]: Missing required field: 'number'"
    );
    assert_eq!(
        errors.errors()[2].path,
        vec![
            PathSegment::Key("pages".into()),
            PathSegment::Index(0),
            PathSegment::Key("number".into())
        ]
    );
    assert_eq!(errors.errors()[2].pointer(), "/pages/0/number");
}

#[test]
fn extra_keys_can_be_allowed() {
    let options = ValidationOptions {
        allow_extra_keys: true,
    };
    assert_eq!(
        validate_with(&search_schema(), &json!({"query": "a", "x": 1}), &options),
        Ok(())
    );
    let closed = json!({"type": "object", "properties": {"query": {"type": "string"}}, "additionalProperties": false});
    assert_eq!(
        validate_with(&closed, &json!({"x": 1}), &options)
            .unwrap_err()
            .to_string(),
        "Extra keys not permitted: ['x']"
    );
}

#[test]
fn bfcl_dialect_values_validate() {
    let schema = json!({"type": "dict", "properties": {
        "base": {"type": "integer"}, "ratio": {"type": "float"},
        "coords": {"type": "tuple", "items": {"type": "float"}}, "data": {"type": "any"},
        "options": {"type": "dict"}
    }, "required": ["base"]});
    assert_eq!(
        validate(
            &schema,
            &json!({"base": 10, "ratio": 0.5, "coords": [1.0, 2], "data": [null], "options": {"k": 1}})
        ),
        Ok(())
    );
    assert_eq!(
        validate(&schema, &json!({"base": "10", "ratio": true, "coords": {}}))
            .unwrap_err()
            .to_string(),
        "base: expected integer; ratio: expected number; coords: expected array"
    );
    let optional = json!({"type": "dict", "properties": {"venue": {"type": "string", "optional": true}}, "required": ["venue"]});
    assert_eq!(validate(&optional, &json!({})), Ok(()));
}

#[test]
fn schemars_option_fields_accept_null() {
    let schema = json!({"type": "object", "properties": {
        "limit": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
        "name": {"type": "string"}
    }, "required": ["name"]});
    assert_eq!(
        validate(&schema, &json!({"name": "a", "limit": null})),
        Ok(())
    );
    assert_eq!(
        validate(&schema, &json!({"name": null, "limit": -1}))
            .unwrap_err()
            .to_string(),
        "limit: must be >= 0; name: value cannot be null"
    );
}
