//! What one [`crate::LocalModel::complete`] call takes besides the conversation, and what it
//! gives back.
//!
//! The conversation, the tools on offer and the token budget are the model contract's
//! [`wink_model::ModelRequest`] (its messages, [`wink_model::ToolSpec`]s and tool calls are the ones every provider
//! uses). The local model adds only what decoding needs: the [`DecodingConstraint`] of the
//! turn, and the [`LocalCompletion`] with its token counts and timings.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_core::ToolCall;

/// The shape the generated turn must take, enforced by grammar-constrained decoding (see
/// [`crate::grammar::turn_grammar`]) and by how the generated text is read back.
///
/// This is not part of the conversation: it is how the local model carries out a request's
/// [`wink_model::ToolChoice`] and structured output (see [`crate::decoding_constraint`]), and how
/// a turn policy asks for a turn again (the loop's `wink_agent::turn_policy`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", tag = "kind", content = "schema")]
#[non_exhaustive]
pub enum DecodingConstraint {
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

/// What one [`crate::LocalModel::complete`] call produced: the generated turn, with the local
/// model's token counts and timings (the adapter makes a [`wink_model::ModelTurn`] of it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocalCompletion {
    /// Final-answer text (or the JSON document under [`DecodingConstraint::JsonSchema`]); `None` when the
    /// turn is only tool calls.
    pub text: Option<String>,
    /// Tool calls of this turn, ids `call_0`, `call_1`, … in the order the model made them; the
    /// arguments are a parsed JSON object ([`wink_core::ToolArguments::Json`]) — the grammar only
    /// lets the model write one — or, when they hold a key twice or an integer beyond 64 bits,
    /// the text as generated ([`wink_core::ToolArguments::Text`]), which the executor refuses.
    pub tool_calls: Vec<ToolCall>,
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
