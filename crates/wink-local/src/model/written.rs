//! The tool-call turns a [`super::LocalModel`] generated, kept as the model wrote them.
//!
//! A conversation stores a tool call as data (name and arguments), and the chat template writes it back
//! in one canonical form: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`. Small Qwen models
//! mostly write their calls differently — Qwen2.5-Coder-1.5B a pretty-printed object inside a ```json
//! fence — so the canonical text of the turn differed from the tokens the KV cache held from the
//! previous generation, and every call after a tool call evaluated the whole call again (measured on
//! `bench/eval`: 12–50 tokens per call, every call). Writing the turn back exactly as it was generated
//! keeps the next prompt a continuation of the cache: only the turn's end token and what follows are new.

use serde_json::Value;
use wink_core::ToolCall;
use wink_model::{Message, ModelRequest};

/// How many tool-call turns are remembered (older ones are written canonically again).
const KEPT: usize = 64;

/// One generated tool-call turn.
#[derive(Debug, Clone, PartialEq)]
struct WrittenTurn {
    /// The text outside the calls (the assistant message's content).
    text: String,
    /// The calls as (name, arguments), in order; ids are left out: the conversation may renumber them.
    calls: Vec<(String, Value)>,
    /// Everything the model generated for the turn.
    raw: String,
}

/// The recent tool-call turns of one model, as written.
#[derive(Debug, Default)]
pub(super) struct WrittenTurns {
    turns: Vec<WrittenTurn>,
}

fn call_keys(calls: &[ToolCall]) -> Vec<(String, Value)> {
    calls
        .iter()
        .map(|call| (call.name.clone(), call.arguments.to_value()))
        .collect()
}

impl WrittenTurns {
    /// Remembers that `raw` was generated and parsed as `text` and `calls`.
    pub(super) fn remember(&mut self, text: &str, calls: &[ToolCall], raw: &str) {
        if calls.is_empty() || raw.trim().is_empty() {
            return;
        }
        if self.turns.len() == KEPT {
            self.turns.remove(0);
        }
        self.turns.push(WrittenTurn {
            text: text.to_owned(),
            calls: call_keys(calls),
            raw: raw.to_owned(),
        });
    }

    /// `request` with every assistant tool-call turn this model generated written as it was generated
    /// (the latest generation of the same text and calls wins), or `None` when nothing changes.
    pub(super) fn apply(&self, request: &ModelRequest) -> Option<ModelRequest> {
        let written = |message: &Message| {
            let Message::Assistant {
                content,
                tool_calls,
            } = message
            else {
                return None;
            };
            if tool_calls.is_empty() {
                return None;
            }
            let calls = call_keys(tool_calls);
            let text = content.as_deref().unwrap_or_default();
            self.turns
                .iter()
                .rev()
                .find(|turn| turn.calls == calls && turn.text == text)
                .map(|turn| Message::assistant(turn.raw.clone()))
        };
        let mut changed = None::<ModelRequest>;
        for (index, message) in request.messages.iter().enumerate() {
            if let Some(replacement) = written(message) {
                changed.get_or_insert_with(|| request.clone()).messages[index] = replacement;
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::ChatTemplate;
    use serde_json::json;
    use wink_core::ToolArguments;

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: id.to_owned(),
            name: "add".to_owned(),
            arguments: ToolArguments::Json(json!({"a": 1, "b": 2})),
        }
    }

    const RAW: &str = "```json\n{\n  \"name\": \"add\",\n  \"arguments\": {\n    \"a\": 1,\n    \"b\": 2\n  }\n}\n```";

    fn conversation(id: &str) -> ModelRequest {
        ModelRequest {
            messages: vec![
                Message::user("1 + 2?"),
                Message::assistant_tool_calls("", vec![call(id)]),
                Message::tool_result(&call(id), "3"),
            ],
            ..ModelRequest::default()
        }
    }

    #[test]
    fn a_generated_call_is_written_back_as_generated_whatever_its_id() {
        let mut written = WrittenTurns::default();
        written.remember("", &[call("call_0")], RAW);
        let request = written.apply(&conversation("call_7")).unwrap();
        let rendered = ChatTemplate::chatml(None).render(&request);
        assert_eq!(
            rendered,
            format!(
                "<|im_start|>user\n1 + 2?<|im_end|>\n<|im_start|>assistant\n{RAW}<|im_end|>\n\
                 <|im_start|>user\n<tool_response>\n3\n</tool_response><|im_end|>\n\
                 <|im_start|>assistant\n"
            )
        );
    }

    #[test]
    fn calls_the_model_did_not_generate_stay_canonical() {
        let mut written = WrittenTurns::default();
        assert!(written.apply(&conversation("call_0")).is_none());
        let mut other = call("call_0");
        other.arguments = ToolArguments::Json(json!({"a": 2, "b": 2}));
        written.remember("", &[other], RAW);
        assert!(written.apply(&conversation("call_0")).is_none());
        written.remember("", &[call("call_0")], "   ");
        assert!(written.apply(&conversation("call_0")).is_none());
    }

    #[test]
    fn the_latest_generation_of_a_turn_wins_and_old_ones_are_forgotten() {
        let mut written = WrittenTurns::default();
        written.remember("", &[call("call_0")], "first");
        written.remember("", &[call("call_1")], "second");
        let request = written.apply(&conversation("call_0")).unwrap();
        assert_eq!(request.messages[1], Message::assistant("second"));
        for index in 0..KEPT {
            let mut other = call("x");
            other.arguments = ToolArguments::Json(json!({ "a": index }));
            written.remember("", &[other], "other");
        }
        assert!(written.apply(&conversation("call_0")).is_none());
    }
}
