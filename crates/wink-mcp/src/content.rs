//! MCP's result forms in tool values: a tool (a prompt file's command tool) may answer with
//! MCP content blocks, or ask the client for input first (SEP-2322 `input_required`).
//!
//! A command tool prints one of:
//! - `{"content": [...], "isError"?: bool, "structuredContent"?: any}` — MCP content blocks
//!   (text, image, audio, resource links, embedded resources), passed to MCP clients as they
//!   are; a model reads [`content_text`];
//! - `{"resultType": "input_required", "inputRequests": {...}, "requestState"?: "..."}` — the
//!   tool needs the client's answers (elicitation, sampling, roots) before it can finish; an
//!   MCP client answers and calls again, and the command runs again with the answers.
//!
//! An object with any other key is a plain value, not one of these forms.

use rmcp::model::{CallToolResult, ContentBlock, InputRequiredResult};
use serde_json::{Map, Value};

/// The keys an MCP result form may hold.
const FORM_KEYS: [&str; 6] = [
    "content",
    "structuredContent",
    "isError",
    "resultType",
    "inputRequests",
    "requestState",
];

/// A tool value in one of MCP's result forms (see the module docs).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ToolResultForm {
    /// Content blocks: the call is complete.
    Complete(CallToolResult),
    /// The tool asks the client for input before it can finish.
    InputRequired(InputRequiredResult),
}

/// `value` as an MCP result form, when it is one (see the module docs).
///
/// ```
/// use serde_json::json;
/// use wink_mcp::{ToolResultForm, result_form};
///
/// let form = result_form(&json!({"content": [{"type": "text", "text": "hi"}]})).unwrap();
/// assert!(matches!(form, ToolResultForm::Complete(_)));
/// assert!(result_form(&json!({"content": "hi", "other": 1})).is_none());
/// ```
pub fn result_form(value: &Value) -> Option<ToolResultForm> {
    let map = value.as_object()?;
    if map.keys().any(|key| !FORM_KEYS.contains(&key.as_str())) {
        return None;
    }
    if map.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return serde_json::from_value(value.clone())
            .ok()
            .map(ToolResultForm::InputRequired);
    }
    if !map.get("content").is_some_and(Value::is_array) {
        return None;
    }
    serde_json::from_value(with_complete_type(value.clone()))
        .ok()
        .map(ToolResultForm::Complete)
}

/// `value` (a result object) with `"resultType": "complete"` when it gives no result type:
/// 2026-07-28 requires the field, and results read from JSON would go out without it.
pub(crate) fn with_complete_type(mut value: Value) -> Value {
    if let Some(map) = value.as_object_mut() {
        map.entry("resultType")
            .or_insert_with(|| Value::String("complete".to_owned()));
    }
    value
}

/// What a model reads of MCP content blocks: text blocks joined by blank lines, other blocks as
/// compact JSON with binary data replaced by its size.
///
/// ```
/// use serde_json::json;
/// let blocks: Vec<rmcp::model::ContentBlock> = serde_json::from_value(json!([
///     {"type": "text", "text": "A chart:"},
///     {"type": "image", "data": "AAAA", "mimeType": "image/png"}
/// ])).unwrap();
/// assert_eq!(
///     wink_mcp::content_text(&blocks),
///     "A chart:\n\n{\"type\":\"image\",\"data\":\"<4 base64 characters>\",\"mimeType\":\"image/png\"}"
/// );
/// ```
pub fn content_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|block| serde_json::to_value(block).ok())
        .map(|block| block_text(&block))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// One content block (as JSON) as a model reads it.
pub(crate) fn block_text(block: &Value) -> String {
    if block.get("type").and_then(Value::as_str) == Some("text")
        && let Some(text) = block.get("text").and_then(Value::as_str)
    {
        return text.to_owned();
    }
    let mut shown = block.clone();
    if let Some(map) = shown.as_object_mut() {
        summarize_data(map);
        if let Some(Value::Object(resource)) = map.get_mut("resource") {
            summarize_data(resource);
        }
    }
    shown.to_string()
}

/// Replaces base64 `data` / `blob` by their size.
fn summarize_data(map: &mut Map<String, Value>) {
    for key in ["data", "blob"] {
        if let Some(Value::String(data)) = map.get(key) {
            let summary = format!("<{} base64 characters>", data.len());
            map.insert(key.to_owned(), Value::String(summary));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recognises_the_forms_and_nothing_else() {
        let complete = json!({"content": [{"type": "text", "text": "x"}], "isError": true});
        match result_form(&complete) {
            Some(ToolResultForm::Complete(result)) => assert_eq!(result.is_error, Some(true)),
            other => panic!("{other:?}"),
        }
        let input = json!({"resultType": "input_required", "inputRequests": {"q": {"method": "roots/list", "params": {}}}, "requestState": "s"});
        match result_form(&input) {
            Some(ToolResultForm::InputRequired(result)) => {
                assert_eq!(result.request_state.as_deref(), Some("s"));
            }
            other => panic!("{other:?}"),
        }
        assert!(result_form(&json!({"content": [{"type": "nonsense"}]})).is_none());
        assert!(result_form(&json!({"message": "m", "content": []})).is_none());
        assert!(result_form(&json!([1])).is_none());
    }

    #[test]
    fn embedded_blobs_are_summarised() {
        let block = json!({"type": "resource", "resource": {"uri": "x://y", "blob": "QUJD", "mimeType": "image/png"}});
        assert_eq!(
            block_text(&block),
            r#"{"type":"resource","resource":{"uri":"x://y","blob":"<4 base64 characters>","mimeType":"image/png"}}"#
        );
    }
}
