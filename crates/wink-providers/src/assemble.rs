//! Assembling a [`ModelTurn`] from streamed fragments, and the per-format stream decoder contract.

use serde_json::Value;
use wink_core::{ToolArguments, ToolCall};
use wink_model::{
    FinishReason, ModelTurn, ProviderError, ProviderErrorKind, StreamDelta, StreamSink,
};
use wink_session::TokenUsage;

use crate::config::AdapterConfig;
use crate::failure::failure;
use crate::mapping::RequestMapping;
use crate::sse::SseEvent;

/// Turns one format's SSE events into a [`ModelTurn`].
pub trait StreamDecoder: Send {
    /// Applies one event, forwarding fragments to `sink`.
    ///
    /// # Errors
    /// A malformed event, or an error event sent by the provider.
    fn on_event(
        &mut self,
        event: &SseEvent,
        sink: Option<&dyn StreamSink>,
    ) -> Result<(), ProviderError>;

    /// Whether the provider signalled the end of the turn.
    fn is_complete(&self) -> bool;

    /// The assembled turn.
    ///
    /// # Errors
    /// [`wink_model::ProviderErrorKind::TruncatedStream`] when the end was never signalled.
    fn finish(self: Box<Self>) -> Result<ModelTurn, ProviderError>;
}

/// How a call's arguments arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgumentStyle {
    /// A JSON string (OpenAI): kept as text.
    Text,
    /// Fragments of a JSON object (Anthropic): parsed at the end.
    Object,
}

#[derive(Debug)]
struct PartialCall {
    key: u64,
    id: String,
    name: String,
    arguments: String,
    /// Arguments the provider gave whole (e.g. a `tool_search_call`).
    whole: Option<Value>,
}

/// Text and tool calls assembled across events, keyed by the provider's index.
#[derive(Debug, Default)]
pub(crate) struct TurnAssembler {
    text: Option<String>,
    calls: Vec<PartialCall>,
    pub(crate) usage: Option<TokenUsage>,
    pub(crate) finish_reason: Option<FinishReason>,
}

impl TurnAssembler {
    pub(crate) fn push_text(&mut self, fragment: &str, sink: Option<&dyn StreamSink>) {
        if fragment.is_empty() {
            return;
        }
        self.text.get_or_insert_with(String::new).push_str(fragment);
        if let Some(sink) = sink {
            sink.on_delta(&StreamDelta::Text {
                text: fragment.to_owned(),
            });
        }
    }

    /// Starts the call under provider key `key` (or fills in its id and name when fragments came
    /// first). `name` is canonical.
    pub(crate) fn start_call(
        &mut self,
        key: u64,
        id: &str,
        name: &str,
        sink: Option<&dyn StreamSink>,
    ) {
        let position = self.position(key);
        let call = &mut self.calls[position];
        if !id.is_empty() {
            id.clone_into(&mut call.id);
        }
        if !name.is_empty() {
            name.clone_into(&mut call.name);
        }
        if let Some(sink) = sink {
            sink.on_delta(&StreamDelta::ToolCallStart {
                index: position,
                id: call.id.clone(),
                name: call.name.clone(),
            });
        }
    }

    pub(crate) fn push_arguments(
        &mut self,
        key: u64,
        fragment: &str,
        sink: Option<&dyn StreamSink>,
    ) {
        if fragment.is_empty() {
            return;
        }
        let position = self.position(key);
        self.calls[position].arguments.push_str(fragment);
        if let Some(sink) = sink {
            sink.on_delta(&StreamDelta::ToolCallArguments {
                index: position,
                fragment: fragment.to_owned(),
            });
        }
    }

    /// Replaces the arguments of a call with the complete text the provider sent at its end.
    pub(crate) fn set_arguments(&mut self, key: u64, arguments: &str) {
        let position = self.position(key);
        arguments.clone_into(&mut self.calls[position].arguments);
    }

    pub(crate) fn set_whole_arguments(&mut self, key: u64, arguments: Value) {
        let position = self.position(key);
        self.calls[position].whole = Some(arguments);
    }

    pub(crate) fn has_calls(&self) -> bool {
        !self.calls.is_empty()
    }

    fn position(&mut self, key: u64) -> usize {
        if let Some(position) = self.calls.iter().position(|call| call.key == key) {
            return position;
        }
        self.calls.push(PartialCall {
            key,
            id: String::new(),
            name: String::new(),
            arguments: String::new(),
            whole: None,
        });
        self.calls.len() - 1
    }

    /// The assembled turn once the provider signalled the end of the turn (`ended`); otherwise a
    /// [`ProviderErrorKind::TruncatedStream`] error saying which end signal never came.
    pub(crate) fn finish(
        self,
        ended: bool,
        config: &AdapterConfig,
        mapping: &RequestMapping,
        style: ArgumentStyle,
        truncated: &str,
    ) -> Result<ModelTurn, ProviderError> {
        if !ended {
            return Err(failure(
                config,
                ProviderErrorKind::TruncatedStream,
                truncated,
            ));
        }
        Ok(self.into_turn(mapping, style))
    }

    /// The turn; `output` is the text parsed as JSON when structured output was requested.
    pub(crate) fn into_turn(self, mapping: &RequestMapping, style: ArgumentStyle) -> ModelTurn {
        let tool_calls = self
            .calls
            .into_iter()
            .map(|call| {
                let arguments = match (call.whole, style) {
                    (Some(value), _) => ToolArguments::Json(value),
                    (None, ArgumentStyle::Text) => {
                        mapping.text_arguments(&call.name, call.arguments)
                    }
                    (None, ArgumentStyle::Object) => object_arguments(call.arguments),
                };
                ToolCall {
                    id: call.id,
                    name: call.name,
                    arguments,
                }
            })
            .collect();
        let output = structured_output(mapping, self.text.as_deref());
        ModelTurn {
            text: self.text,
            tool_calls,
            usage: self.usage,
            finish_reason: self.finish_reason.unwrap_or_default(),
            output,
        }
    }
}

/// Anthropic-style streamed input: the concatenated fragments parsed (`""` is `{}`); text that
/// does not parse is handed on as text so the loop reports it.
pub(crate) fn object_arguments(fragments: String) -> ToolArguments {
    if fragments.trim().is_empty() {
        return ToolArguments::Json(Value::Object(serde_json::Map::new()));
    }
    // Strict: a key twice or an integer beyond 64 bits stays text, and the loop refuses it.
    match wink_schema::parse_strict_json(&fragments) {
        Ok(value) => ToolArguments::Json(value),
        Err(_) => ToolArguments::Text(fragments),
    }
}

/// The provider's native structured output: the answer text parsed as JSON, when it was asked
/// for and parses; otherwise `None` and the loop parses the text itself.
pub(crate) fn structured_output(mapping: &RequestMapping, text: Option<&str>) -> Option<Value> {
    if !mapping.wants_structured_output() {
        return None;
    }
    serde_json::from_str(text?.trim()).ok()
}
