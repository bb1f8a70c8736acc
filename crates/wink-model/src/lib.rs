//! # wink-model
//!
//! The contract between the agent loop and a model, with nothing else in it (no I/O, no async
//! runtime):
//! - the conversation a model sees: [`Message`], the [`ToolSpec`]s on offer (and the
//!   [`ToolAddition`]s and [`DeferredTool`]s of progressive disclosure), [`ToolChoice`],
//!   bundled into one [`ModelRequest`];
//! - what comes back: a [`ModelTurn`] (text, [`wink_core::ToolCall`]s, usage, [`FinishReason`]),
//!   optionally streamed as [`StreamDelta`]s to a [`StreamSink`];
//! - [`ToolImage`]s: the images of a tool's result ([`tool_images`]), for the providers that show
//!   a model images in tool results;
//! - [`profile`]: what a model family needs from a run, as one table;
//! - [`text_calls`]: the one parser for tool calls a model wrote as text;
//! - the [`ProviderAdapter`] trait that HTTP providers, the embedded model and the claude CLI
//!   implement, and its [`ProviderError`] (with a [`ProviderErrorKind`] and
//!   [`ProviderError::is_retryable`]).
//!
//! The loop (`wink-agent`) drives adapters through this contract and re-exports every item, so
//! `wink_agent::Message` and `wink_model::Message` are the same type.
//!
//! ```
//! use wink_model::{Message, ModelRequest, ToolChoice, ToolSpec};
//!
//! let request = ModelRequest {
//!     messages: vec![Message::system("You add numbers."), Message::user("2 + 3?")],
//!     tools: vec![ToolSpec::new(
//!         "add",
//!         "Add two integers.",
//!         serde_json::json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
//!     )],
//!     tool_choice: ToolChoice::Auto,
//!     ..ModelRequest::default()
//! };
//! assert_eq!(request.tools[0].name, "add");
//! ```

mod conversation;
mod image;
pub mod profile;
mod provider;
pub mod text_calls;
pub mod trace;

pub use conversation::{
    DeferredTool, FinishReason, IMPLICIT_USER_TURN, Message, ModelRequest, ModelTurn, StreamDelta,
    ToolAddition, ToolChoice, ToolSpec,
};
pub use image::{ToolImage, tool_images};
pub use provider::{ProviderAdapter, ProviderError, ProviderErrorKind, ProviderFuture, StreamSink};
