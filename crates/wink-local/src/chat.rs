//! Provider-neutral chat types: what a caller sends to [`crate::LocalModel::complete`] and what comes back.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_model::ToolSpec;

/// One model call: the conversation so far, the tools on offer and what shape the next turn must take.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation, oldest first. A leading [`Role::System`] message becomes the system prompt.
    pub messages: Vec<ChatMessage>,
    /// Tools the model may call. Those not named in [`ChatRequest::tool_additions`] are listed in the
    /// system prompt in this order; the others are announced where they became available.
    pub tools: Vec<ToolSpec>,
    /// Tools that became available mid-conversation, each group announced right after one message
    /// (append-only: the system prompt never changes, so the KV cache keeps the whole prefix).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_additions: Vec<ToolAnnouncement>,
    /// Tools the model may call although they are listed nowhere (they hide in summarized sections): the
    /// grammar admits a well-formed call of them, the prompt does not mention them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deferred_tools: Vec<ToolSpec>,
    /// What the generated turn must be (enforced with a grammar).
    pub constraint: TurnConstraint,
    /// Upper bound on generated tokens for this call; `None` uses [`crate::LocalModelConfig::max_tokens`].
    pub max_tokens: Option<u32>,
}

impl ChatRequest {
    /// A request with the given messages, no tools, [`TurnConstraint::Auto`] and the default token budget.
    #[must_use]
    pub fn new(messages: Vec<ChatMessage>) -> Self {
        Self {
            messages,
            tools: Vec::new(),
            tool_additions: Vec::new(),
            deferred_tools: Vec::new(),
            constraint: TurnConstraint::Auto,
            max_tokens: None,
        }
    }

    /// Replaces the offered tools.
    #[must_use]
    pub fn with_tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.tools = tools;
        self
    }

    /// Replaces the announcements of tools added mid-conversation (each named tool must be in
    /// [`ChatRequest::tools`]).
    #[must_use]
    pub fn with_tool_additions(mut self, additions: Vec<ToolAnnouncement>) -> Self {
        self.tool_additions = additions;
        self
    }

    /// Replaces the deferred tools (callable, never listed).
    #[must_use]
    pub fn with_deferred_tools(mut self, tools: Vec<ToolSpec>) -> Self {
        self.deferred_tools = tools;
        self
    }

    /// The tools a call may name: the offered ones, then the deferred ones not offered.
    #[must_use]
    pub fn callable_tools(&self) -> Vec<ToolSpec> {
        let mut tools = self.tools.clone();
        for tool in &self.deferred_tools {
            if !tools.iter().any(|t| t.name == tool.name) {
                tools.push(tool.clone());
            }
        }
        tools
    }

    /// Replaces the turn constraint.
    #[must_use]
    pub fn with_constraint(mut self, constraint: TurnConstraint) -> Self {
        self.constraint = constraint;
        self
    }

    /// Sets the token budget of this call.
    #[must_use]
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }
}

/// Tools announced right after message `after_message` (an index into [`ChatRequest::messages`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolAnnouncement {
    /// Index of the message after which the tools are announced.
    pub after_message: usize,
    /// Names of the announced tools (each one of [`ChatRequest::tools`]), in order.
    pub tools: Vec<String>,
}

impl ToolAnnouncement {
    /// Announces `tools` after message `after_message`.
    #[must_use]
    pub fn new(after_message: usize, tools: Vec<String>) -> Self {
        Self {
            after_message,
            tools,
        }
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// Instructions from the application.
    System,
    /// The human (or the application speaking for them).
    User,
    /// The model's earlier turns, possibly with tool calls.
    Assistant,
    /// The result of one tool call, answering [`ChatMessage::tool_call_id`].
    Tool,
}

impl Role {
    /// The lowercase role name used by chat templates (`system`, `user`, `assistant`, `tool`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Author of the message.
    pub role: Role,
    /// Text of the message (may be empty for an assistant turn that only calls tools).
    pub content: String,
    /// Tool calls made by an assistant turn.
    pub tool_calls: Vec<ChatToolCall>,
    /// For [`Role::Tool`]: the id of the call this message answers.
    pub tool_call_id: Option<String>,
    /// For [`Role::Tool`]: the name of the tool that produced the result.
    pub name: Option<String>,
    /// For [`Role::Tool`]: the call failed (the content is its error).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub failed: bool,
}

impl ChatMessage {
    fn plain(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
            failed: false,
        }
    }

    /// A system message.
    #[must_use]
    pub fn system(content: impl Into<String>) -> Self {
        Self::plain(Role::System, content)
    }

    /// A user message.
    #[must_use]
    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(Role::User, content)
    }

    /// An assistant message with text only.
    #[must_use]
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::plain(Role::Assistant, content)
    }

    /// An assistant message that calls tools (with optional accompanying text).
    #[must_use]
    pub fn assistant_tool_calls(content: impl Into<String>, tool_calls: Vec<ChatToolCall>) -> Self {
        Self {
            tool_calls,
            ..Self::plain(Role::Assistant, content)
        }
    }

    /// The result of the tool call `call` (its id and tool name are copied).
    #[must_use]
    pub fn tool_result(call: &ChatToolCall, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(call.id.clone()),
            name: Some(call.name.clone()),
            ..Self::plain(Role::Tool, content)
        }
    }

    /// The failed result of the tool call `call`: `error` is what the model reads.
    #[must_use]
    pub fn tool_error(call: &ChatToolCall, error: impl Into<String>) -> Self {
        Self {
            failed: true,
            ..Self::tool_result(call, error)
        }
    }
}

/// The shape the generated turn must take. Enforced by grammar-constrained decoding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", tag = "kind", content = "schema")]
#[non_exhaustive]
pub enum TurnConstraint {
    /// Either one call of an offered tool (arguments matching its schema) or a final answer in plain text.
    /// With no tools offered the turn is unconstrained.
    #[default]
    Auto,
    /// Exactly one call of an offered tool; an error if no tools are offered.
    RequireTool,
    /// Exactly one call of the named tool (offered or deferred); an error if no such tool is callable.
    RequireNamedTool(String),
    /// Plain text only, even if tools are listed in the prompt: the answer starts with a letter, a digit, `*`,
    /// `#` or a non-ASCII character, so it cannot be (or begin with) a tool call.
    FinalAnswer,
    /// A JSON document matching this JSON Schema (structured output). The text of the turn is the JSON.
    JsonSchema(Value),
}

/// One tool call in the local chat format: the arguments are a parsed JSON object (the grammar
/// only lets the model write one), not provider text as in [`wink_core::ToolCall`]; the adapter
/// converts between the two.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatToolCall {
    /// Call id, `call_0`, `call_1`, … in the order the model made them.
    pub id: String,
    /// Name of the called tool.
    pub name: String,
    /// Arguments object.
    pub arguments: Value,
}

/// What one [`crate::LocalModel::complete`] call produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatTurn {
    /// Final-answer text (or the JSON document under [`TurnConstraint::JsonSchema`]); `None` when the turn is
    /// only tool calls.
    pub text: Option<String>,
    /// Tool calls of this turn.
    pub tool_calls: Vec<ChatToolCall>,
    /// Token counts.
    pub usage: LocalUsage,
    /// Wall-clock timings.
    pub timings: LocalTimings,
}

/// Token counts of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LocalUsage {
    /// Tokens in the rendered prompt.
    pub prompt_tokens: u64,
    /// Prompt tokens that were already in the KV cache and were not evaluated again.
    pub cached_prompt_tokens: u64,
    /// Generated tokens.
    pub completion_tokens: u64,
}

/// Wall-clock timings of one call.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct LocalTimings {
    /// Time spent evaluating the prompt tokens that were not cached.
    pub prefill_ms: f64,
    /// Time spent generating.
    pub decode_ms: f64,
    /// Evaluated (uncached) prompt tokens per second; 0 when nothing was evaluated.
    pub prefill_tokens_per_s: f64,
    /// Generated tokens per second; 0 when nothing was generated.
    pub decode_tokens_per_s: f64,
}
