//! Budgets and deadlines: caps on model calls, tool calls and tokens, shared across restarts
//! (and sub-agents) through a [`BudgetTracker`].

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use wink_core::Deadline;
use wink_session::TokenUsage;

use wink_model::{Message, ModelRequest};

/// Output tokens reserved in the context-window check when a request sets no
/// `max_output_tokens`.
pub const DEFAULT_OUTPUT_RESERVE: u64 = 256;

/// A conservative estimate of the tokens `request` needs in the model's context: its prompt
/// (every message's text and tool-call arguments, and the offered tools' JSON, at one token per
/// 3 bytes, plus 8 tokens of overhead per message and per tool) plus the output it may generate
/// (`max_output_tokens`, or [`DEFAULT_OUTPUT_RESERVE`]). Tokenizers of current models average
/// 3.5–4.5 bytes per token on English and code, so this overestimates rather than under.
pub fn estimate_request_tokens(request: &ModelRequest) -> u64 {
    estimate_request_tokens_after(request, None)
}

/// What the provider measured for an earlier request of the same conversation: the tokens it
/// counted (input plus output) and how many messages and tools that request had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MeasuredRequest {
    /// Input plus output tokens the provider reported.
    pub tokens: u64,
    /// Messages of that request (its answer is the next message).
    pub messages: usize,
    /// Tools offered to it.
    pub tools: usize,
}

/// As [`estimate_request_tokens`], but when an earlier request of the same conversation was
/// measured by the provider (`earlier`), only what was added since (the messages after its
/// answer, the tools offered since) is estimated from bytes; the measured tokens count as they
/// are. The conversation only grows at its end, so this stays an upper bound.
pub fn estimate_request_tokens_after(
    request: &ModelRequest,
    earlier: Option<MeasuredRequest>,
) -> u64 {
    const OVERHEAD: u64 = 8;
    let (base, skip_messages, skip_tools) = match earlier {
        Some(m) if m.messages < request.messages.len() && m.tools <= request.tools.len() => {
            // Its answer (message `m.messages`) is counted in the measured output tokens.
            (m.tokens, m.messages + 1, m.tools)
        }
        _ => (0, 0, 0),
    };
    let mut bytes: u64 = 0;
    let mut items: u64 = 0;
    for message in request.messages.iter().skip(skip_messages) {
        items += 1;
        bytes += match message {
            Message::System { content } | Message::User { content } => content.len(),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                content.as_deref().map_or(0, str::len)
                    + tool_calls
                        .iter()
                        .map(|c| {
                            c.name.len()
                                + c.id.len()
                                + crate::guard::arguments_value(&c.arguments)
                                    .to_string()
                                    .len()
                        })
                        .sum::<usize>()
            }
            Message::Tool { content, name, .. } => content.len() + name.len(),
            // `Message` is non-exhaustive (it lives in wink-model): a kind added later is
            // counted by its serialized size.
            other => serde_json::to_string(other).map_or(0, |s| s.len()),
        } as u64;
    }
    for tool in request.tools.iter().skip(skip_tools) {
        items += 1;
        bytes +=
            (tool.name.len() + tool.description.len() + tool.parameters.to_string().len()) as u64;
    }
    let output = request
        .max_output_tokens
        .map_or(DEFAULT_OUTPUT_RESERVE, u64::from);
    base + bytes.div_ceil(3) + items * OVERHEAD + output
}

/// Limits for one run. `None` means unlimited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// Maximum model calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_model_calls: Option<u32>,
    /// Maximum tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u32>,
    /// Maximum input (prompt) tokens over all model calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_input_tokens: Option<u64>,
    /// Maximum output tokens over all model calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// Wall-clock deadline (not serialized).
    #[serde(skip)]
    pub deadline: Option<Deadline>,
}

/// Which limit ran out.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetLimit {
    /// `max_model_calls`.
    ModelCalls,
    /// `max_tool_calls`.
    ToolCalls,
    /// `max_input_tokens`.
    InputTokens,
    /// `max_output_tokens`.
    OutputTokens,
    /// The deadline.
    Deadline,
}

impl fmt::Display for BudgetLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ModelCalls => "max model calls",
            Self::ToolCalls => "max tool calls",
            Self::InputTokens => "max input tokens",
            Self::OutputTokens => "max output tokens",
            Self::Deadline => "deadline",
        })
    }
}

/// What has been spent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spent {
    /// Model calls made.
    pub model_calls: u32,
    /// Tool calls run.
    pub tool_calls: u32,
    /// Token usage summed over model calls.
    pub usage: TokenUsage,
}

/// A budget and what has been spent against it; clones share the same counters.
#[derive(Debug, Clone, Default)]
pub struct BudgetTracker {
    budget: Budget,
    spent: Arc<Mutex<Spent>>,
}

impl BudgetTracker {
    /// Track `budget`.
    pub fn new(budget: Budget) -> Self {
        Self {
            budget,
            spent: Arc::default(),
        }
    }

    /// Track `budget` with `spent` already spent (a run resumed from a checkpoint).
    pub fn resume(budget: Budget, spent: Spent) -> Self {
        Self {
            budget,
            spent: Arc::new(Mutex::new(spent)),
        }
    }

    /// The budget.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// What has been spent so far.
    pub fn spent(&self) -> Spent {
        *self.spent.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Check before a model call.
    pub fn check_model_call(&self) -> Result<(), BudgetLimit> {
        let s = self.spent();
        let b = &self.budget;
        if b.deadline.is_some_and(|d| d.is_expired()) {
            return Err(BudgetLimit::Deadline);
        }
        if b.max_model_calls.is_some_and(|m| s.model_calls >= m) {
            return Err(BudgetLimit::ModelCalls);
        }
        if b.max_input_tokens
            .is_some_and(|m| s.usage.input_tokens >= m)
        {
            return Err(BudgetLimit::InputTokens);
        }
        if b.max_output_tokens
            .is_some_and(|m| s.usage.output_tokens >= m)
        {
            return Err(BudgetLimit::OutputTokens);
        }
        Ok(())
    }

    /// Check before a tool call.
    pub fn check_tool_call(&self) -> Result<(), BudgetLimit> {
        let s = self.spent();
        if self.budget.deadline.is_some_and(|d| d.is_expired()) {
            return Err(BudgetLimit::Deadline);
        }
        if self
            .budget
            .max_tool_calls
            .is_some_and(|m| s.tool_calls >= m)
        {
            return Err(BudgetLimit::ToolCalls);
        }
        Ok(())
    }

    /// Record a model call and its usage.
    pub fn record_model_call(&self, usage: Option<&TokenUsage>) {
        let mut s = self.spent.lock().unwrap_or_else(PoisonError::into_inner);
        s.model_calls += 1;
        if let Some(u) = usage {
            s.usage.input_tokens += u.input_tokens;
            s.usage.output_tokens += u.output_tokens;
            s.usage.cached_tokens += u.cached_tokens;
        }
    }

    /// Record a tool call.
    pub fn record_tool_call(&self) {
        self.spent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .tool_calls += 1;
    }

    /// Whether the tokens spent now exceed a token limit (checked after a model call).
    pub fn exceeded_tokens(&self) -> Option<BudgetLimit> {
        let s = self.spent();
        if self
            .budget
            .max_input_tokens
            .is_some_and(|m| s.usage.input_tokens > m)
        {
            return Some(BudgetLimit::InputTokens);
        }
        if self
            .budget
            .max_output_tokens
            .is_some_and(|m| s.usage.output_tokens > m)
        {
            return Some(BudgetLimit::OutputTokens);
        }
        None
    }
}
