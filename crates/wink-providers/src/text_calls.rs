//! Tool calls a server left in the answer text (`openai-compat`): small local models behind
//! llama.cpp, vLLM or Ollama often write the call as JSON (`{"name": "add", "arguments": {...}}`,
//! bare (one or several, one per line), in a ```` ```json ```` fence or in `<tool_call>` tags the
//! server's parser missed) instead
//! of a `tool_calls` entry. With [`crate::AdapterConfig::text_tool_calls`] such a turn becomes
//! the tool calls it spells, when every call names a tool the request offered.

use wink_core::{ToolArguments, ToolCall};
use wink_model::text_calls::{CallShape, parse_call_attempts};
use wink_model::{FinishReason, ModelTurn};

use crate::mapping::RequestMapping;

/// `turn` with the calls its text spells, or unchanged. The text must be calls and nothing
/// else (a sentence that quotes a call stays an answer), written in any shape
/// [`wink_model::text_calls`] reads, each of a tool the request offered (not one sent deferred),
/// or of any other tool name when the call spells its arguments.
///
/// That last case is a model calling a tool it has not been given: one hidden in a summarized
/// section, or a catalog tool by the short name its listing shows (`reverse` under `[text]`).
/// An embedded decoder's grammar lets it name only tools it may call; a server's cannot, and
/// the call would otherwise end the run as its answer, a line of JSON. Taken as a call, the loop
/// answers it: it opens the section that hides the tool, or says the tool is unknown and what
/// is available.
pub(crate) fn promote_text_tool_calls(turn: ModelTurn, mapping: &RequestMapping) -> ModelTurn {
    if !turn.tool_calls.is_empty() || mapping.wants_structured_output() {
        return turn;
    }
    let Some(text) = turn.text.as_deref() else {
        return turn;
    };
    let resolve = |wire: &str, shape: CallShape| {
        let name = mapping.canonical_name(wire);
        let offered = mapping.tools().iter().any(|tool| tool.name == name);
        let taken = if offered {
            !mapping.is_deferred(&name)
        } else {
            shape == CallShape::NameAndArguments && looks_like_tool_name(&name)
        };
        taken.then_some(name)
    };
    let parsed = parse_call_attempts(text, &resolve);
    if parsed.calls.is_empty() || parsed.text.is_some() {
        return turn;
    }
    let tool_calls = parsed
        .calls
        .into_iter()
        .enumerate()
        .map(|(index, (name, arguments))| {
            let arguments = match arguments {
                ToolArguments::Json(value) if !mapping.is_strict(&name) => {
                    ToolArguments::Json(value)
                }
                ToolArguments::Json(value) => mapping.text_arguments(&name, value.to_string()),
                ToolArguments::Text(text) => mapping.text_arguments(&name, text),
            };
            ToolCall {
                id: format!("call_text_{index}"),
                name,
                arguments,
            }
        })
        .collect();
    ModelTurn {
        text: None,
        tool_calls,
        finish_reason: FinishReason::ToolCalls,
        ..turn
    }
}

/// A tool name as providers take them: 1 to 64 letters, digits, `_`, `-` or `.`.
fn looks_like_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
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
                    arguments: ToolArguments::Json(json!({"a": 2})),
                },
            ]
        );
    }

    #[test]
    fn calls_of_tools_not_offered_are_promoted_when_they_spell_their_arguments() {
        let mapping = mapping();
        for (text, name, arguments) in [
            (
                r#"{"name": "subtract", "arguments": {"a": 2}}"#,
                "subtract",
                json!({"a": 2}),
            ),
            // A catalog tool by the short name of its listing, in a fence (llama-server).
            (
                "```json\n{\n  \"name\": \"reverse\",\n  \"parameters\": {\"text\": \"stressed\"}\n}\n```",
                "reverse",
                json!({"text": "stressed"}),
            ),
            (
                r#"{"name": "text.word_count", "arguments": {}}"#,
                "text.word_count",
                json!({}),
            ),
        ] {
            let promoted = promote_text_tool_calls(turn(text), &mapping);
            assert_eq!(promoted.text, None, "{text}");
            assert_eq!(
                promoted.tool_calls,
                [ToolCall {
                    id: "call_text_0".into(),
                    name: name.into(),
                    arguments: ToolArguments::Json(arguments),
                }],
                "{text}"
            );
        }
    }

    #[test]
    fn answers_and_objects_that_are_not_calls_stay_text() {
        let mapping = mapping();
        for text in [
            "The sum is 4.",
            r#"{"name": "subtract"}"#,
            r#"{"name": "Alice", "age": 31}"#,
            r#"{"name": "two words", "arguments": {}}"#,
            r#"{"name": "subtract", "arguments": 2}"#,
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
