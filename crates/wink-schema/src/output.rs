//! Structured output exactly as WINK declares, requests and parses it.
//!
//! * [`response_format`] builds the provider `response_format` payload: the
//!   output schema (top-level `title` and `$schema` removed, `additionalProperties`
//!   placed after `properties` when the schema does not say), and for a list
//!   output an object wrapping the array under `"items"`.
//! * [`parse_structured_output`] reads the assistant's final text in WINK's
//!   order — the first ```` ```json ```` fenced block (case-insensitive), else the
//!   whole message, else the first `{` or `[` from which a JSON value decodes —
//!   then checks the container, applies WINK's scalar coercions
//!   ([`coerce`](mod@crate::coerce): `"42"` → `42` for an integer field) and validates
//!   against the schema. The returned value is the coerced one.
//! * [`parse_provider_payload`] checks a payload the provider already decoded
//!   (native JSON output), with WINK's provider-side wording.
//!
//! Validation problems are reported all at once (joined with `"; "`); a problem
//! in the *i*-th element of a list output is prefixed with `items[i]`, the key
//! the request schema wraps the list under.

use crate::coerce::coerce;
use crate::keywords::insert_after;
use crate::validate::{PathSegment, ValidationErrors, ValidationOptions, collect_errors};
use serde_json::{Map, Value, json};

/// The key under which a list output is wrapped in the request schema.
pub const ARRAY_WRAPPER_KEY: &str = "items";

/// Whether the output is one object or a list of objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OutputContainer {
    /// One JSON object.
    Object,
    /// A JSON array of objects (sent to the provider wrapped under `"items"`).
    Array,
}

/// A prompt's structured output declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSpec {
    /// The prompt name the schema name derives from (see [`schema_name`]).
    pub name: String,
    /// The schema of the object, or of each list element.
    pub schema: Value,
    /// Object or list.
    pub container: OutputContainer,
    /// Accept keys the schema does not declare (WINK's default: `false`).
    pub allow_extra_keys: bool,
}

impl OutputSpec {
    /// An object output.
    #[must_use]
    pub fn object(name: impl Into<String>, schema: Value) -> Self {
        Self {
            name: name.into(),
            schema,
            container: OutputContainer::Object,
            allow_extra_keys: false,
        }
    }

    /// A list-of-objects output; `item_schema` describes one element.
    #[must_use]
    pub fn array(name: impl Into<String>, item_schema: Value) -> Self {
        Self {
            name: name.into(),
            schema: item_schema,
            container: OutputContainer::Array,
            allow_extra_keys: false,
        }
    }

    /// Sets [`OutputSpec::allow_extra_keys`].
    #[must_use]
    pub fn with_extra_keys(mut self, allow_extra_keys: bool) -> Self {
        self.allow_extra_keys = allow_extra_keys;
        self
    }
}

/// Why a structured output could not be read. `Display` is WINK's exact message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OutputParseError {
    /// The prompt has no output declaration.
    #[error("Prompt does not declare structured output.")]
    NotDeclared,
    /// A ```` ```json ```` block exists but its content is not JSON.
    #[error("Failed to decode JSON from fenced code block.")]
    FencedBlockNotJson {
        /// The decoder's complaint, for logs.
        detail: String,
    },
    /// No JSON value could be found in the text.
    #[error("No JSON object or array found in assistant message.")]
    NoJsonFound,
    /// An object output received something else.
    #[error("Expected top-level JSON object.")]
    ExpectedObject,
    /// A list output received neither an array nor `{"items": [...]}`.
    #[error("Expected top-level JSON array.")]
    ExpectedArray,
    /// A provider-decoded payload for an object output is not an object.
    #[error("Expected provider payload to be a JSON object.")]
    ExpectedProviderObject,
    /// A provider-decoded payload for a list output is not an array.
    #[error("Expected provider payload to be a JSON array.")]
    ExpectedProviderArray,
    /// A list element is not an object.
    #[error("Array item at index {index} is not an object.")]
    ArrayItemNotObject {
        /// Position of the first offending element.
        index: usize,
    },
    /// The payload does not match the schema.
    #[error("{0}")]
    Invalid(ValidationErrors),
}

/// WINK's schema name rule: runs of characters outside `[a-zA-Z0-9_-]` become
/// `_`, surrounding whitespace and underscores are removed, an empty result
/// becomes `prompt`, and `_schema` is appended.
///
/// ```
/// assert_eq!(wink_schema::output::schema_name("summarize"), "summarize_schema");
/// assert_eq!(wink_schema::output::schema_name(" My Prompt! "), "My_Prompt_schema");
/// assert_eq!(wink_schema::output::schema_name("..."), "prompt_schema");
/// ```
#[must_use]
pub fn schema_name(prompt_name: &str) -> String {
    let mut sanitized = String::with_capacity(prompt_name.len());
    let mut in_run = false;
    for character in crate::python::strip(prompt_name).chars() {
        if character.is_ascii_alphanumeric() || character == '_' || character == '-' {
            sanitized.push(character);
            in_run = false;
        } else if !in_run {
            sanitized.push('_');
            in_run = true;
        }
    }
    let cleaned = sanitized.trim_matches('_');
    let cleaned = if cleaned.is_empty() {
        "prompt"
    } else {
        cleaned
    };
    format!("{cleaned}_schema")
}

/// The schema sent to the provider for this output (the `json_schema.schema`
/// member of [`response_format`]).
#[must_use]
pub fn response_schema(spec: &OutputSpec) -> Value {
    let base = prepared_schema(spec);
    match spec.container {
        OutputContainer::Object => base,
        OutputContainer::Array => {
            let mut wrapper = Map::new();
            wrapper.insert("type".to_owned(), json!("object"));
            wrapper.insert(
                "properties".to_owned(),
                json!({ ARRAY_WRAPPER_KEY: {"type": "array", "items": base} }),
            );
            wrapper.insert("required".to_owned(), json!([ARRAY_WRAPPER_KEY]));
            if !spec.allow_extra_keys {
                wrapper.insert("additionalProperties".to_owned(), Value::Bool(false));
            }
            Value::Object(wrapper)
        }
    }
}

/// The `response_format` payload, key for key as WINK builds it:
/// `{"type": "json_schema", "json_schema": {"name": ..., "schema": ...}}`.
///
/// ```
/// use serde_json::json;
/// use wink_schema::output::{OutputSpec, response_format};
///
/// let spec = OutputSpec::object("summarize", json!({
///     "title": "Summary", "type": "object",
///     "properties": {"title": {"type": "string"}, "gist": {"type": "string"}},
///     "required": ["title", "gist"]
/// }));
/// assert_eq!(
///     wink_schema::python::dumps(&response_format(&spec), true),
///     r#"{"type": "json_schema", "json_schema": {"name": "summarize_schema", "schema": {"type": "object", "properties": {"title": {"type": "string"}, "gist": {"type": "string"}}, "additionalProperties": false, "required": ["title", "gist"]}}}"#
/// );
/// ```
#[must_use]
pub fn response_format(spec: &OutputSpec) -> Value {
    json!({
        "type": "json_schema",
        "json_schema": {
            "name": schema_name(&spec.name),
            "schema": response_schema(spec),
        }
    })
}

/// The object (or element) schema as sent and as validated against: without
/// top-level `title`/`$schema`, with `additionalProperties` made explicit.
fn prepared_schema(spec: &OutputSpec) -> Value {
    let mut schema = spec.schema.clone();
    if let Value::Object(map) = &mut schema {
        map.shift_remove("title");
        map.shift_remove("$schema");
        // Only a schema that declares its properties is closed; one without is
        // an open map and stays so.
        if map.contains_key("properties") && !map.contains_key("additionalProperties") {
            insert_after(
                map,
                "properties",
                "additionalProperties",
                Value::Bool(spec.allow_extra_keys),
            );
        }
    }
    schema
}

/// Parses the assistant's final text into the declared output (the object, or
/// the array of objects), validated against the schema.
///
/// # Errors
/// WINK's messages, see [`OutputParseError`].
pub fn parse_structured_output(text: &str, spec: &OutputSpec) -> Result<Value, OutputParseError> {
    let payload = extract_json_payload(text)?;
    check_payload(
        payload,
        spec,
        OutputParseError::ExpectedObject,
        OutputParseError::ExpectedArray,
    )
}

/// [`parse_structured_output`] for a prompt that may not declare an output.
///
/// # Errors
/// [`OutputParseError::NotDeclared`] when `spec` is `None`, else as
/// [`parse_structured_output`].
pub fn parse_prompt_output(
    text: &str,
    spec: Option<&OutputSpec>,
) -> Result<Value, OutputParseError> {
    match spec {
        Some(spec) => parse_structured_output(text, spec),
        None => Err(OutputParseError::NotDeclared),
    }
}

/// Checks a payload the provider decoded itself (native JSON output).
///
/// # Errors
/// `Expected provider payload to be a JSON object.` / `... JSON array.`, item and
/// validation errors as [`parse_structured_output`].
pub fn parse_provider_payload(
    payload: Value,
    spec: &OutputSpec,
) -> Result<Value, OutputParseError> {
    check_payload(
        payload,
        spec,
        OutputParseError::ExpectedProviderObject,
        OutputParseError::ExpectedProviderArray,
    )
}

/// Finds the JSON value in an assistant message, in WINK's order.
///
/// # Errors
/// [`OutputParseError::FencedBlockNotJson`] when the first ```` ```json ````
/// block does not decode (no fallback then), [`OutputParseError::NoJsonFound`]
/// when nothing decodes.
pub fn extract_json_payload(text: &str) -> Result<Value, OutputParseError> {
    if let Some(block) = first_json_fence(text) {
        return serde_json::from_str(crate::python::strip(block)).map_err(|error| {
            OutputParseError::FencedBlockNotJson {
                detail: error.to_string(),
            }
        });
    }
    let stripped = crate::python::strip(text);
    if !stripped.is_empty()
        && let Ok(value) = serde_json::from_str(stripped)
    {
        return Ok(value);
    }
    for (index, character) in text.char_indices() {
        if character != '{' && character != '[' {
            continue;
        }
        let mut values = serde_json::Deserializer::from_str(&text[index..]).into_iter::<Value>();
        if let Some(Ok(value)) = values.next() {
            return Ok(value);
        }
    }
    Err(OutputParseError::NoJsonFound)
}

/// The content of the first match of WINK's pattern
/// ```` ```json\s*\n(.*?)``` ```` (case-insensitive, dot matches newlines).
fn first_json_fence(text: &str) -> Option<&str> {
    const FENCE: &str = "```";
    let mut search_from = 0;
    while let Some(offset) = text[search_from..].find(FENCE) {
        let start = search_from + offset;
        search_from = start + 1;
        let after_fence = start + FENCE.len();
        let Some(tag) = text.get(after_fence..after_fence + 4) else {
            continue;
        };
        if !tag.eq_ignore_ascii_case("json") {
            continue;
        }
        // `\s*\n`: the whitespace run after the tag must contain a newline; the
        // greedy match ends after its last newline.
        let rest = &text[after_fence + 4..];
        let run_length = rest
            .char_indices()
            .find(|(_, character)| !character.is_whitespace())
            .map_or(rest.len(), |(position, _)| position);
        let Some(last_newline) = rest[..run_length].rfind('\n') else {
            continue;
        };
        let body = &rest[last_newline + 1..];
        if let Some(end) = body.find(FENCE) {
            return Some(&body[..end]);
        }
    }
    None
}

fn check_payload(
    payload: Value,
    spec: &OutputSpec,
    object_error: OutputParseError,
    array_error: OutputParseError,
) -> Result<Value, OutputParseError> {
    let schema = prepared_schema(spec);
    let options = ValidationOptions {
        allow_extra_keys: spec.allow_extra_keys,
    };
    match spec.container {
        OutputContainer::Object => {
            if !payload.is_object() {
                return Err(object_error);
            }
            let payload = coerce(&schema, &payload);
            let errors = collect_errors(&schema, &payload, &options, Vec::new());
            if errors.is_empty() {
                Ok(payload)
            } else {
                Err(OutputParseError::Invalid(ValidationErrors::new(errors)))
            }
        }
        OutputContainer::Array => {
            let items = match payload {
                Value::Array(items) => items,
                Value::Object(mut map) => match map.shift_remove(ARRAY_WRAPPER_KEY) {
                    Some(Value::Array(items)) => items,
                    _ => return Err(array_error),
                },
                _ => return Err(array_error),
            };
            if let Some(index) = items.iter().position(|item| !item.is_object()) {
                return Err(OutputParseError::ArrayItemNotObject { index });
            }
            let items: Vec<Value> = items.iter().map(|item| coerce(&schema, item)).collect();
            let mut errors = Vec::new();
            for (index, item) in items.iter().enumerate() {
                let path = vec![
                    PathSegment::Key(ARRAY_WRAPPER_KEY.to_owned()),
                    PathSegment::Index(index),
                ];
                errors.extend(collect_errors(&schema, item, &options, path));
            }
            if errors.is_empty() {
                Ok(Value::Array(items))
            } else {
                Err(OutputParseError::Invalid(ValidationErrors::new(errors)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_name_rule() {
        assert_eq!(schema_name("My Prompt"), "My_Prompt_schema");
        assert_eq!(schema_name("  __a..b__ "), "a_b_schema");
        assert_eq!(schema_name("ns/key:v2"), "ns_key_v2_schema");
        assert_eq!(schema_name("a - b"), "a_-_b_schema");
        assert_eq!(schema_name(""), "prompt_schema");
        assert_eq!(schema_name("日本"), "prompt_schema");
    }

    #[test]
    fn fence_needs_newline_after_tag() {
        assert_eq!(first_json_fence("```json\n{}\n```"), Some("{}\n"));
        assert_eq!(first_json_fence("```JSON  \r\n [1] ```"), Some(" [1] "));
        assert_eq!(first_json_fence("```json {} ```"), None);
        assert_eq!(first_json_fence("```jsonc\n{}```"), None);
        assert_eq!(first_json_fence("```json\n{} no close"), None);
        assert_eq!(
            first_json_fence("```json x\n```\n```json\n{\"a\":1}```"),
            Some("{\"a\":1}")
        );
    }

    #[test]
    fn embedded_value_uses_first_decodable_position() {
        assert_eq!(
            extract_json_payload("Result: {bad} then {\"a\": 1} trailing").unwrap(),
            json!({"a": 1})
        );
        assert_eq!(
            extract_json_payload("see [1, 2]x and more").unwrap(),
            json!([1, 2])
        );
        assert_eq!(extract_json_payload("  42  ").unwrap(), json!(42));
        assert_eq!(
            extract_json_payload("nothing here"),
            Err(OutputParseError::NoJsonFound)
        );
    }
}
