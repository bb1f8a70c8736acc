//! [`LocalAdapter`]: the embedded model as a [`wink_agent::ProviderAdapter`].
//!
//! Small models need help in a tool loop, so the adapter applies two fixed rules, each visible
//! in `--verbose` output:
//!
//! * **No repeated calls.** When the model answers a tool result by repeating a call it already
//!   made (same tool, same arguments), the turn is regenerated with a short user nudge ("Answer
//!   now, using the tool results above.") and a final-answer constraint. The nudge exists only in
//!   the request sent to the model; the agent's conversation is unchanged.
//! * **Structured output.** When the prompt declares structured output and the model gives a
//!   final answer, the answer is regenerated under the output's JSON-Schema grammar.
//!
//! Both regenerations append to the end of the prompt, so the KV cache keeps the prefix.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde_json::Value;
use wink_agent::{
    FinishReason, Message, ModelRequest, ModelTurn, ProviderAdapter, ProviderError,
    ProviderErrorKind, ProviderFuture, StreamDelta, StreamSink,
};
use wink_core::{ToolArguments, ToolCall as CoreToolCall};
use wink_session::TokenUsage;

use crate::{
    ChatMessage, ChatRequest, ChatTurn, LocalModel, LocalModelConfig, Role, ToolCall, ToolSpec,
    TurnConstraint,
};

/// The nudge appended when the model repeats a call.
pub const ANSWER_NUDGE: &str = "Answer now, using the tool results above.";

/// The user turn added when a conversation has none: chat models expect one, and wink prompts
/// carry the request in the system prompt (as WINK's do).
pub const IMPLICIT_USER_TURN: &str = "Carry out the task described in the system prompt.";

/// The embedded model as a provider adapter (`supports_dynamic_tools() == true`).
pub struct LocalAdapter {
    model: Mutex<LocalModel>,
    name: String,
    path: PathBuf,
    verbose: bool,
}

impl fmt::Debug for LocalAdapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalAdapter")
            .field("model", &self.name)
            .field("path", &self.path)
            .finish()
    }
}

impl LocalAdapter {
    /// Load the GGUF file at `path`.
    pub fn load(path: &Path, config: LocalModelConfig) -> Result<Self, crate::LocalError> {
        let model = LocalModel::load(path, config)?;
        let name = model.model_name();
        Ok(Self {
            model: Mutex::new(model),
            name,
            path: path.to_path_buf(),
            verbose: false,
        })
    }

    /// Print prefill/decode speed of every call to stderr.
    #[must_use]
    pub fn verbose(mut self, verbose: bool) -> Self {
        self.verbose = verbose;
        self
    }

    fn error(&self, message: impl Into<String>) -> ProviderError {
        ProviderError::new(
            ProviderErrorKind::Other,
            "local",
            self.name.clone(),
            message,
        )
    }

    fn report(&self, what: &str, turn: &ChatTurn) {
        if self.verbose {
            let u = &turn.usage;
            let t = &turn.timings;
            eprintln!(
                "           [local {what}] prompt {} tok ({} cached), prefill {:.0} ms at {:.1} tok/s; decode {} tok in {:.0} ms at {:.1} tok/s",
                u.prompt_tokens,
                u.cached_prompt_tokens,
                t.prefill_ms,
                t.prefill_tokens_per_s,
                u.completion_tokens,
                t.decode_ms,
                t.decode_tokens_per_s
            );
        }
    }

    fn run(&self, request: &ModelRequest) -> Result<ModelTurn, ProviderError> {
        let mut model = self.model.lock().unwrap_or_else(PoisonError::into_inner);
        let mut chat = to_chat_request(request);
        let mut usage = TokenUsage::default();
        let mut turn = self.complete(&mut model, &chat, &mut usage, "turn")?;
        if let Some(call) = turn.tool_calls.first()
            && repeats_earlier_call(request, call)
        {
            chat.messages.push(ChatMessage::user(ANSWER_NUDGE));
            chat.constraint = TurnConstraint::FinalAnswer;
            turn = self.complete(&mut model, &chat, &mut usage, "repeated call, answering")?;
        }
        if turn.tool_calls.is_empty()
            && let Some(output) = &request.output
        {
            let schema = wink_schema::output::response_schema(output);
            chat.constraint = TurnConstraint::JsonSchema(schema);
            turn = self.complete(&mut model, &chat, &mut usage, "structured output")?;
        }
        let tool_calls: Vec<CoreToolCall> = turn
            .tool_calls
            .iter()
            .map(|c| CoreToolCall {
                id: c.id.clone(),
                name: c.name.clone(),
                arguments: ToolArguments::Json(c.arguments.clone()),
            })
            .collect();
        let finish_reason = if tool_calls.is_empty() {
            FinishReason::Stop
        } else {
            FinishReason::ToolCalls
        };
        Ok(ModelTurn {
            text: turn.text,
            tool_calls,
            usage: Some(usage),
            finish_reason,
            output: None,
        })
    }

    fn complete(
        &self,
        model: &mut LocalModel,
        chat: &ChatRequest,
        usage: &mut TokenUsage,
        what: &str,
    ) -> Result<ChatTurn, ProviderError> {
        let turn = model
            .complete(chat)
            .map_err(|e| self.error(e.to_string()))?;
        usage.input_tokens += turn.usage.prompt_tokens;
        usage.cached_tokens += turn.usage.cached_prompt_tokens;
        usage.output_tokens += turn.usage.completion_tokens;
        self.report(what, &turn);
        Ok(turn)
    }
}

impl ProviderAdapter for LocalAdapter {
    fn name(&self) -> &str {
        "local"
    }
    fn model(&self) -> &str {
        &self.name
    }
    fn supports_dynamic_tools(&self) -> bool {
        true
    }
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        Box::pin(async move {
            let turn = self.run(request)?;
            if let (Some(sink), Some(text)) = (stream, &turn.text) {
                sink.on_delta(&StreamDelta::Text { text: text.clone() });
            }
            Ok(turn)
        })
    }
}

fn arguments_value(arguments: &ToolArguments) -> Value {
    match arguments {
        ToolArguments::Json(v) => v.clone(),
        ToolArguments::Text(t) => {
            serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.clone()))
        }
    }
}

/// Map the agent's conversation onto the local chat format.
pub fn to_chat_request(request: &ModelRequest) -> ChatRequest {
    let messages = request
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::System { content } => Some(ChatMessage::system(content.clone())),
            Message::User { content } => Some(ChatMessage::user(content.clone())),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let calls: Vec<ToolCall> = tool_calls
                    .iter()
                    .map(|c| ToolCall {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        arguments: arguments_value(&c.arguments),
                    })
                    .collect();
                Some(ChatMessage::assistant_tool_calls(
                    content.clone().unwrap_or_default(),
                    calls,
                ))
            }
            Message::Tool {
                tool_call_id,
                name,
                content,
                ..
            } => Some(ChatMessage {
                role: Role::Tool,
                content: content.clone(),
                tool_calls: Vec::new(),
                tool_call_id: Some(tool_call_id.clone()),
                name: Some(name.clone()),
            }),
            _ => None,
        })
        .collect();
    let mut messages: Vec<ChatMessage> = messages;
    if !messages.iter().any(|m| m.role == Role::User) {
        let at = usize::from(messages.first().is_some_and(|m| m.role == Role::System));
        messages.insert(at, ChatMessage::user(IMPLICIT_USER_TURN));
    }
    let tools = request
        .tools
        .iter()
        .map(|t| ToolSpec::new(t.name.clone(), t.description.clone(), t.parameters.clone()))
        .collect();
    let constraint = if request.tools.is_empty() {
        match &request.output {
            Some(output) => {
                TurnConstraint::JsonSchema(wink_schema::output::response_schema(output))
            }
            None => TurnConstraint::FinalAnswer,
        }
    } else {
        TurnConstraint::Auto
    };
    let mut chat = ChatRequest::new(messages)
        .with_tools(tools)
        .with_constraint(constraint);
    if let Some(max) = request.max_output_tokens {
        chat = chat.with_max_tokens(max);
    }
    chat
}

fn repeats_earlier_call(request: &ModelRequest, call: &ToolCall) -> bool {
    request.messages.iter().any(|m| match m {
        Message::Assistant { tool_calls, .. } => tool_calls
            .iter()
            .any(|c| c.name == call.name && arguments_value(&c.arguments) == call.arguments),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wink_agent::ToolSpec as AgentToolSpec;

    fn request() -> ModelRequest {
        ModelRequest {
            messages: vec![
                Message::system("sys"),
                Message::Assistant {
                    content: None,
                    tool_calls: vec![CoreToolCall {
                        id: "c1".into(),
                        name: "add".into(),
                        arguments: ToolArguments::Text("{\"a\": 1}".into()),
                    }],
                },
                Message::Tool {
                    tool_call_id: "c1".into(),
                    name: "add".into(),
                    content: "2".into(),
                    is_error: false,
                },
            ],
            tools: vec![AgentToolSpec {
                name: "add".into(),
                description: "Add.".into(),
                parameters: json!({"type": "object"}),
            }],
            ..ModelRequest::default()
        }
    }

    #[test]
    fn maps_the_conversation_onto_chat_messages() {
        let chat = to_chat_request(&request());
        assert_eq!(chat.messages.len(), 4);
        assert_eq!(chat.messages[1].content, IMPLICIT_USER_TURN);
        assert_eq!(chat.messages[2].tool_calls[0].arguments, json!({"a": 1}));
        assert_eq!(chat.messages[3].role, Role::Tool);
        assert_eq!(chat.messages[3].tool_call_id.as_deref(), Some("c1"));
        assert_eq!(chat.tools[0].name, "add");
        assert_eq!(chat.constraint, TurnConstraint::Auto);
    }

    #[test]
    fn detects_repeated_calls() {
        let r = request();
        assert!(repeats_earlier_call(
            &r,
            &ToolCall {
                id: "x".into(),
                name: "add".into(),
                arguments: json!({"a": 1})
            }
        ));
        assert!(!repeats_earlier_call(
            &r,
            &ToolCall {
                id: "x".into(),
                name: "add".into(),
                arguments: json!({"a": 2})
            }
        ));
    }

    #[test]
    fn without_tools_the_turn_is_a_final_answer() {
        let mut r = request();
        r.tools.clear();
        assert_eq!(to_chat_request(&r).constraint, TurnConstraint::FinalAnswer);
    }
}
