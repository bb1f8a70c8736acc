//! Tool calls a server left in the answer text (`openai-compat`): small local models behind
//! llama.cpp, vLLM or Ollama often write the call as JSON (`{"name": "add", "arguments": {...}}`,
//! bare (one or several, one per line), in a ```` ```json ```` fence or in `<tool_call>` tags the
//! server's parser missed) instead
//! of a `tool_calls` entry. With [`crate::AdapterConfig::text_tool_calls`] such a turn becomes
//! the tool calls it spells, when every call names a tool the request offered.

use serde_json::Value;
use wink_core::{ToolArguments, ToolCall};
use wink_model::{FinishReason, ModelTurn};

use crate::mapping::RequestMapping;

/// `turn` with the calls its text spells, or unchanged.
pub(crate) fn promote_text_tool_calls(turn: ModelTurn, mapping: &RequestMapping) -> ModelTurn {
    if !turn.tool_calls.is_empty() || mapping.wants_structured_output() {
        return turn;
    }
    let Some(text) = turn.text.as_deref() else {
        return turn;
    };
    let Some(calls) = spelled_calls(text, mapping) else {
        return turn;
    };
    ModelTurn {
        text: None,
        tool_calls: calls,
        finish_reason: FinishReason::ToolCalls,
        ..turn
    }
}

/// The JSON documents of `text`: each `<tool_call>` block, else the whole text (fence removed).
fn documents(text: &str) -> Vec<&str> {
    let text = text.trim();
    if text.contains("<tool_call>") {
        return text
            .split("<tool_call>")
            .skip(1)
            .map(|block| block.split("</tool_call>").next().unwrap_or(block).trim())
            .collect();
    }
    let unfenced = text
        .strip_prefix("```json")
        .or_else(|| text.strip_prefix("```"))
        .and_then(|rest| rest.trim_end().strip_suffix("```"))
        .unwrap_or(text);
    vec![unfenced.trim()]
}

/// The JSON values of `document`: one, or several separated by whitespace.
fn values(document: &str) -> Option<Vec<Value>> {
    serde_json::Deserializer::from_str(document)
        .into_iter::<Value>()
        .collect::<Result<Vec<_>, _>>()
        .ok()
}

/// The call of a document with doubled outer braces, `{{"name": …, "arguments": {…}}}}`, which
/// Qwen2.5-Coder-1.5B writes through llama.cpp's server (one extra `{`, any number of extra `}`).
fn undoubled(document: &str) -> Option<Vec<Value>> {
    let inner = document.strip_prefix('{')?;
    if !inner.trim_start().starts_with('{') {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_str(inner).into_iter::<Value>();
    let value = stream.next()?.ok()?;
    let rest = inner.get(stream.byte_offset()..)?;
    rest.chars()
        .all(|c| c == '}' || c.is_whitespace())
        .then(|| vec![value])
}

fn spelled_calls(text: &str, mapping: &RequestMapping) -> Option<Vec<ToolCall>> {
    let mut calls = Vec::new();
    let mut all = Vec::new();
    for document in documents(text) {
        all.extend(values(document).or_else(|| undoubled(document))?);
    }
    for (index, value) in all.iter().enumerate() {
        let object = value.as_object()?;
        let name = mapping.canonical_name(object.get("name")?.as_str()?);
        if !mapping.tools().iter().any(|tool| tool.name == name) || mapping.is_deferred(&name) {
            return None;
        }
        let arguments = match object.get("arguments").or_else(|| object.get("parameters")) {
            Some(Value::String(text)) => mapping.text_arguments(&name, text.clone()),
            Some(value @ Value::Object(_)) => ToolArguments::Json(value.clone()),
            None => ToolArguments::Json(Value::Object(serde_json::Map::new())),
            Some(_) => return None,
        };
        calls.push(ToolCall {
            id: format!("call_text_{index}"),
            name,
            arguments,
        });
    }
    (!calls.is_empty()).then_some(calls)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wink_model::{ModelRequest, ToolSpec};

    use crate::config::AdapterConfig;

    fn mapping() -> RequestMapping {
        let request = ModelRequest {
            tools: vec![ToolSpec {
                name: "math.add".into(),
                description: "Add.".into(),
                parameters: json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
            }],
            ..ModelRequest::default()
        };
        RequestMapping::new(
            &request,
            &AdapterConfig::openai_compat("qwen", "http://x/v1"),
        )
        .unwrap()
    }

    fn turn(text: &str) -> ModelTurn {
        ModelTurn {
            text: Some(text.to_owned()),
            ..ModelTurn::default()
        }
    }

    #[test]
    fn bare_fenced_and_tagged_calls_are_promoted() {
        let mapping = mapping();
        for text in [
            r#"{"name": "math__add", "arguments": {"a": 2}}"#,
            "```json\n{\"name\": \"math__add\", \"arguments\": {\"a\": 2}}\n```",
            "<tool_call>\n{\"name\": \"math__add\", \"arguments\": {\"a\": 2}}\n</tool_call>",
            // Doubled outer braces, as Qwen2.5-Coder-1.5B writes them through llama-server.
            r#"{{"name": "math__add", "arguments": {"a": 2}}}}"#,
            r#"{{"name": "math__add", "arguments": {"a": 2}}}"#,
        ] {
            let promoted = promote_text_tool_calls(turn(text), &mapping);
            assert_eq!(promoted.text, None, "{text}");
            assert_eq!(promoted.finish_reason, FinishReason::ToolCalls);
            assert_eq!(
                promoted.tool_calls,
                [ToolCall {
                    id: "call_text_0".into(),
                    name: "math.add".into(),
                    arguments: ToolArguments::Json(json!({"a": 2})),
                }]
            );
        }
    }

    #[test]
    fn several_bare_calls_become_several_calls() {
        let text = "{\"name\": \"math__add\", \"arguments\": {\"a\": 1}}\n{\"name\": \"math__add\", \"arguments\": \"{\\\"a\\\": 2}\"}";
        let promoted = promote_text_tool_calls(turn(text), &mapping());
        assert_eq!(
            promoted.tool_calls,
            [
                ToolCall {
                    id: "call_text_0".into(),
                    name: "math.add".into(),
                    arguments: ToolArguments::Json(json!({"a": 1})),
                },
                ToolCall {
                    id: "call_text_1".into(),
                    name: "math.add".into(),
                    arguments: ToolArguments::Text("{\"a\": 2}".into()),
                },
            ]
        );
    }

    #[test]
    fn answers_and_unknown_tools_stay_text() {
        let mapping = mapping();
        for text in [
            "The sum is 4.",
            r#"{"name": "subtract", "arguments": {"a": 2}}"#,
            r#"{"answer": 4}"#,
            r#"Use {"name": "math__add", "arguments": {}} next."#,
            r#"{"name": "math__add", "arguments": {}} is the call to make."#,
            r#"{{"name": "math__add", "arguments": {}}} and more"#,
            r#"{"a": {"name": "math__add", "arguments": {}}}"#,
        ] {
            assert_eq!(promote_text_tool_calls(turn(text), &mapping), turn(text));
        }
    }
}
