//! B16 — structured output: WINK's `response_format` JSON and its parser, with
//! the exact messages (cases mirror `tests/prompts/test_structured_output.py`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use wink_schema::output::{
    OutputParseError, OutputSpec, parse_prompt_output, parse_provider_payload,
    parse_structured_output, response_format, response_schema,
};
use wink_schema::python;

/// `Summary(title: str, views: int, featured: bool | None = None)` as a schema.
fn summary() -> OutputSpec {
    OutputSpec::object(
        "summaries",
        json!({
            "title": "Summary",
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "views": {"type": "integer"},
                "featured": {"anyOf": [{"type": "boolean"}, {"type": "null"}]}
            },
            "required": ["title", "views"]
        }),
    )
}

/// `ResultItem(title: str, score: float)`, as a list output.
fn results() -> OutputSpec {
    OutputSpec::array(
        "search",
        json!({"type": "object", "properties": {"title": {"type": "string"}, "score": {"type": "number"}}, "required": ["title", "score"]}),
    )
}

fn message(result: Result<Value, OutputParseError>) -> String {
    result.unwrap_err().to_string()
}

#[test]
fn response_format_object_is_byte_identical_to_wink() {
    let spec = OutputSpec::object(
        "summarize",
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Summary", "type": "object",
               "properties": {"title": {"type": "string"}, "gist": {"type": "string"}}, "required": ["title", "gist"]}),
    );
    assert_eq!(
        python::dumps(&response_format(&spec), true),
        r#"{"type": "json_schema", "json_schema": {"name": "summarize_schema", "schema": {"type": "object", "properties": {"title": {"type": "string"}, "gist": {"type": "string"}}, "additionalProperties": false, "required": ["title", "gist"]}}}"#
    );
}

#[test]
fn response_format_array_wraps_items_like_wink() {
    let spec = OutputSpec::array(
        "My Prompt",
        json!({"title": "Item", "type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}),
    );
    assert_eq!(
        python::dumps(&response_format(&spec), true),
        r#"{"type": "json_schema", "json_schema": {"name": "My_Prompt_schema", "schema": {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"title": {"type": "string"}}, "additionalProperties": false, "required": ["title"]}}}, "required": ["items"], "additionalProperties": false}}}"#
    );
    let open = spec.with_extra_keys(true);
    assert_eq!(
        python::dumps(&response_schema(&open), true),
        r#"{"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"title": {"type": "string"}}, "additionalProperties": true, "required": ["title"]}}}, "required": ["items"]}"#
    );
}

#[test]
fn fenced_block_is_parsed_and_coerced() {
    let reply = "All set.\n```json\n{\n  \"title\": \"Ada\",\n  \"views\": \"42\",\n  \"featured\": \"true\"\n}\n```";
    assert_eq!(
        parse_structured_output(reply, &summary()).unwrap(),
        json!({"title": "Ada", "views": 42, "featured": true})
    );
}

#[test]
fn extra_keys_are_rejected_by_default() {
    let reply =
        "```json\n{\n  \"title\": \"Ada\",\n  \"views\": 10,\n  \"notes\": \"extra\"\n}\n```";
    assert_eq!(
        message(parse_structured_output(reply, &summary())),
        "Extra keys not permitted: ['notes']"
    );
    assert_eq!(
        parse_structured_output(reply, &summary().with_extra_keys(true)).unwrap(),
        json!({"title": "Ada", "views": 10, "notes": "extra"})
    );
}

#[test]
fn object_container_needs_an_object() {
    let reply = "```json\n[{\n  \"title\": \"Ada\",\n  \"views\": 10\n}]\n```";
    assert_eq!(
        message(parse_structured_output(reply, &summary())),
        "Expected top-level JSON object."
    );
}

#[test]
fn array_container_accepts_bare_and_wrapped_arrays() {
    let bare = "```json\n[{\n  \"title\": \"Ada\",\n  \"score\": \"0.9\"\n}]\n```";
    assert_eq!(
        parse_structured_output(bare, &results()).unwrap(),
        json!([{"title": "Ada", "score": 0.9}])
    );
    let wrapped = r#"{"items": [{"title": "Ada", "score": 1}]}"#;
    assert_eq!(
        parse_structured_output(wrapped, &results()).unwrap(),
        json!([{"title": "Ada", "score": 1}])
    );
}

#[test]
fn array_container_messages() {
    let missing_key = "```json\n{\n  \"results\": []\n}\n```";
    assert_eq!(
        message(parse_structured_output(missing_key, &results())),
        "Expected top-level JSON array."
    );
    let not_a_list = "```json\n{\n  \"items\": {\"bad\": true}\n}\n```";
    assert_eq!(
        message(parse_structured_output(not_a_list, &results())),
        "Expected top-level JSON array."
    );
    let object = "```json\n{\n  \"title\": \"Ada\"\n}\n```";
    assert_eq!(
        message(parse_structured_output(object, &results())),
        "Expected top-level JSON array."
    );
    let scalar_item = "```json\n[\n  \"not an object\"\n]\n```";
    assert_eq!(
        message(parse_structured_output(scalar_item, &results())),
        "Array item at index 0 is not an object."
    );
    let second = r#"[{"title": "a", "score": 1}, 5]"#;
    assert_eq!(
        message(parse_structured_output(second, &results())),
        "Array item at index 1 is not an object."
    );
}

#[test]
fn missing_required_field_is_reported() {
    let item = "```json\n[{\n  \"title\": \"Ada\"\n}]\n```";
    assert_eq!(
        message(parse_structured_output(item, &results())),
        "items[0]: Missing required field: 'score'"
    );
    let gist = OutputSpec::object(
        "summarize",
        json!({"type": "object", "properties": {"title": {"type": "string"}, "gist": {"type": "string"}}, "required": ["title", "gist"]}),
    );
    assert_eq!(
        message(parse_structured_output(r#"{"title": "t"}"#, &gist)),
        "Missing required field: 'gist'"
    );
    assert_eq!(
        message(parse_structured_output(r#"{"x": 1}"#, &gist)),
        "Missing required field: 'title'; Missing required field: 'gist'; Extra keys not permitted: ['x']"
    );
}

#[test]
fn invalid_fenced_block_does_not_fall_back() {
    let reply = "```json\n{ invalid json }\n```\n{\"title\": \"Ada\", \"views\": 1}";
    let error = parse_structured_output(reply, &summary()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Failed to decode JSON from fenced code block."
    );
    assert!(matches!(error, OutputParseError::FencedBlockNotJson { .. }));
}

#[test]
fn no_json_payload() {
    assert_eq!(
        message(parse_structured_output("No structured data", &summary())),
        "No JSON object or array found in assistant message."
    );
    assert_eq!(
        message(parse_structured_output("   \n   \t   ", &summary())),
        "No JSON object or array found in assistant message."
    );
}

#[test]
fn embedded_json_and_invalid_prefixes() {
    assert_eq!(
        parse_structured_output(r#"The payload is {"title": "Ada", "views": 7}"#, &summary())
            .unwrap(),
        json!({"title": "Ada", "views": 7})
    );
    // `[oops]` does not decode, so the scan moves on to the object.
    assert_eq!(
        parse_structured_output(r#"[oops]{"title": "Ada", "views": 11}"#, &summary()).unwrap(),
        json!({"title": "Ada", "views": 11})
    );
    // A decodable array before the object wins, as with Python's raw_decode.
    assert_eq!(
        message(parse_structured_output(
            r#"see [1] then {"title": "Ada", "views": 11}"#,
            &summary()
        )),
        "Expected top-level JSON object."
    );
}

#[test]
fn prompt_without_output_declaration() {
    assert_eq!(
        message(parse_prompt_output("{}", None)),
        "Prompt does not declare structured output."
    );
    assert_eq!(
        parse_prompt_output("{\"title\": \"a\", \"views\": 1}", Some(&summary())).unwrap()["views"],
        1
    );
}

#[test]
fn provider_payload_messages() {
    assert_eq!(
        parse_provider_payload(json!([1]), &summary())
            .unwrap_err()
            .to_string(),
        "Expected provider payload to be a JSON object."
    );
    assert_eq!(
        parse_provider_payload(json!({"nope": []}), &results())
            .unwrap_err()
            .to_string(),
        "Expected provider payload to be a JSON array."
    );
    assert_eq!(
        parse_provider_payload(json!({"title": "a", "views": "3"}), &summary()).unwrap(),
        json!({"title": "a", "views": 3})
    );
}

#[test]
fn wink_transcript_final_answer() {
    let spec = OutputSpec::object(
        "review",
        json!({"type": "object", "properties": {"verdict": {"type": "string"}}, "required": ["verdict"]}),
    );
    assert_eq!(
        parse_structured_output("```json\n{\"verdict\": \"done\"}\n```", &spec).unwrap(),
        json!({"verdict": "done"})
    );
}
