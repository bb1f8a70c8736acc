//! Provider-neutral conversation types: what the loop sends to a model and what comes back.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_core::{OutputSpec, ToolCall, ToolRef};
use wink_session::TokenUsage;

use crate::ToolImage;

/// One message of the conversation.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    /// The rendered prompt.
    System {
        /// Text.
        content: String,
    },
    /// A user turn.
    User {
        /// Text.
        content: String,
    },
    /// A model turn: text and/or tool calls.
    Assistant {
        /// Text, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        /// Tool calls, in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// A tool result.
    Tool {
        /// The call it answers.
        tool_call_id: String,
        /// The tool's canonical name.
        name: String,
        /// The text for the model (WINK's `serialize_tool_message`).
        content: String,
        /// Whether the call failed.
        #[serde(default)]
        is_error: bool,
        /// The images of the result ([`crate::tool_images`]), sent by the adapters whose API
        /// takes images in tool results; `content` notes each one either way.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ToolImage>,
    },
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::System {
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::User {
            content: content.into(),
        }
    }

    /// A model turn with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::Assistant {
            content: Some(content.into()),
            tool_calls: Vec::new(),
        }
    }

    /// A model turn that calls tools, with its text (empty text is no text).
    pub fn assistant_tool_calls(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        let content: String = content.into();
        Self::Assistant {
            content: (!content.is_empty()).then_some(content),
            tool_calls,
        }
    }

    /// The result of `call` (its id and tool name copied).
    pub fn tool_result(call: &ToolCall, content: impl Into<String>) -> Self {
        Self::Tool {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: content.into(),
            is_error: false,
            images: Vec::new(),
        }
    }

    /// The failed result of `call`: `error` is what the model reads.
    pub fn tool_error(call: &ToolCall, error: impl Into<String>) -> Self {
        Self::Tool {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: error.into(),
            is_error: true,
            images: Vec::new(),
        }
    }

    /// This message with `images`, when it is a tool result (other messages carry none).
    ///
    /// ```
    /// use wink_model::{Message, ToolImage};
    /// let call = wink_core::ToolCall {
    ///     id: "c1".into(),
    ///     name: "screenshot".into(),
    ///     arguments: wink_core::ToolArguments::Json(serde_json::json!({})),
    /// };
    /// let message = Message::tool_result(&call, "A screenshot.")
    ///     .with_images(vec![ToolImage::new("image/png", "AAAA")]);
    /// assert!(matches!(message, Message::Tool { ref images, .. } if images.len() == 1));
    /// ```
    #[must_use]
    pub fn with_images(mut self, new: Vec<ToolImage>) -> Self {
        if let Self::Tool { images, .. } = &mut self {
            *images = new;
        }
        self
    }
}

/// A tool as offered to a model (canonical name; adapters alias it for the wire).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Canonical name (may contain dots).
    pub name: String,
    /// Description.
    pub description: String,
    /// JSON Schema of the arguments (wink's canonical form; adapters normalise per dialect).
    pub parameters: Value,
}

impl ToolSpec {
    /// A tool spec from its parts.
    #[must_use]
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            parameters,
        }
    }

    /// The spec of a tool.
    pub fn of(tool: &ToolRef) -> Self {
        Self {
            name: tool.name().to_owned(),
            description: tool.description().to_owned(),
            parameters: tool.parameters().clone(),
        }
    }
}

/// Tools that became callable during the conversation (disclosed by `read_section`), and where.
///
/// Every name is also in [`ModelRequest::tools`]. An adapter that wants the request to grow only
/// at its end (the embedded model's KV cache, hosted prompt caches) announces these tools right
/// after message `after_message` instead of listing them with the tools offered from the start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolAddition {
    /// Index in [`ModelRequest::messages`] of the message after which the tools became available
    /// (the tool result of the call that disclosed them).
    pub after_message: usize,
    /// Dotted key of the section whose reading disclosed them.
    pub section: String,
    /// The tools' canonical names, in the order they were injected.
    pub tools: Vec<String>,
}

/// A tool that is not callable yet: it hides in a summarized section (reading the section
/// discloses it). Adapters with native deferral (Anthropic `defer_loading`, OpenAI Responses tool
/// search) may declare it up front so the tools block never changes during a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeferredTool {
    /// The tool.
    pub spec: ToolSpec,
    /// Dotted key of the summarized section to read to make it callable.
    pub section: String,
}

/// Which tools the model may or must call.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "name")]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// This tool.
    Tool(String),
}

/// One model call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ModelRequest {
    /// The conversation so far; the first message is the rendered prompt.
    pub messages: Vec<Message>,
    /// Tools the model may call this turn: those offered from the start, then the injected ones
    /// in injection order.
    pub tools: Vec<ToolSpec>,
    /// Which of `tools` were injected mid-conversation, and after which message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_additions: Vec<ToolAddition>,
    /// Tools hidden in summarized sections (not callable until their section is read).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deferred_tools: Vec<DeferredTool>,
    /// Tool choice.
    #[serde(default)]
    pub tool_choice: ToolChoice,
    /// Structured output requested for the final answer (not serialized: it comes from the template).
    #[serde(skip)]
    pub output: Option<OutputSpec>,
    /// Cap on generated tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
}

/// The user turn [`ModelRequest::with_user_turn`] puts first when a conversation has no message
/// to make it from.
pub const IMPLICIT_USER_TURN: &str = "Carry out the task described in the system prompt.";

impl ModelRequest {
    /// The tools a call may name: the offered ones ([`ModelRequest::tools`]), then the deferred
    /// ones ([`ModelRequest::deferred_tools`]) not offered.
    #[must_use]
    pub fn callable_tools(&self) -> Vec<ToolSpec> {
        let mut tools = self.tools.clone();
        for deferred in &self.deferred_tools {
            if !tools.iter().any(|t| t.name == deferred.spec.name) {
                tools.push(deferred.spec.clone());
            }
        }
        tools
    }

    /// The request with a user turn, for chat models that answer one: in a conversation without
    /// a user message the leading system message (the rendered prompt) becomes the user turn, or,
    /// when the conversation does not start with one, [`IMPLICIT_USER_TURN`] is put first
    /// ([`ModelRequest::tool_additions`] then count one message more). A conversation with a user
    /// message is returned as it is. The embedded model always sends this; an HTTP provider does
    /// when the model's profile says so ([`crate::profile::ModelProfile::prompt_as_user_turn`]).
    #[must_use]
    pub fn with_user_turn(&self) -> ModelRequest {
        let mut out = self.clone();
        if out
            .messages
            .iter()
            .any(|m| matches!(m, Message::User { .. }))
        {
            return out;
        }
        match out.messages.first_mut() {
            Some(Message::System { content }) => {
                let content = std::mem::take(content);
                out.messages[0] = Message::User { content };
            }
            _ => {
                out.messages.insert(0, Message::user(IMPLICIT_USER_TURN));
                for addition in &mut out.tool_additions {
                    addition.after_message = addition.after_message.saturating_add(1);
                }
            }
        }
        out
    }
}

/// Why the model stopped.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A complete answer.
    #[default]
    Stop,
    /// It wants tools run.
    ToolCalls,
    /// It hit the output-token cap.
    Length,
    /// The provider filtered the output.
    ContentFilter,
    /// Anything else the provider said.
    Other(String),
}

/// What a model call returned.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ModelTurn {
    /// Text, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Tool calls (canonical names), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Token usage reported by the provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// Why it stopped.
    #[serde(default)]
    pub finish_reason: FinishReason,
    /// Structured output the provider returned natively (already parsed), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
}

/// A streamed fragment of a model turn.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamDelta {
    /// More answer text.
    Text {
        /// The fragment.
        text: String,
    },
    /// A tool call started.
    ToolCallStart {
        /// Position in the turn.
        index: usize,
        /// Call id.
        id: String,
        /// Canonical tool name.
        name: String,
    },
    /// More argument JSON for the call at `index`.
    ToolCallArguments {
        /// Position in the turn.
        index: usize,
        /// The fragment.
        fragment: String,
    },
}
