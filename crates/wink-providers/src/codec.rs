//! The wire-codec contract: each wire format family is one [`WireCodec`] (pure functions: a
//! request body out, a turn back, a stream decoder for streamed replies), chosen by one `match`
//! in [`WireFormat::codec`]. [`crate::HttpAdapter`] owns the policy (transport, retries,
//! streaming, cancellation) and drives whichever codec the configuration names, so a new
//! OpenAI-compatible family is a file with one `impl WireCodec` and one arm there.
//!
//! Also the helpers every family shares.

use std::fmt;

use serde_json::Value;
use wink_model::{Message, ModelRequest, ModelTurn, ProviderError, ProviderErrorKind};
use wink_schema::{OutputSpec, SchemaDialect, normalize};

use crate::assemble::StreamDecoder;
use crate::config::{AdapterConfig, WireFormat};
use crate::failure::failure;
use crate::mapping::RequestMapping;
use crate::{anthropic, openai_chat, openai_responses};

/// One wire format family: how a [`ModelRequest`] is written and a reply read. No I/O.
pub trait WireCodec: Send + Sync + fmt::Debug {
    /// The request body, given the request's mapping (tool aliases, dialect).
    ///
    /// # Errors
    /// [`ProviderErrorKind::Config`] for what this format cannot carry.
    fn encode(
        &self,
        request: &ModelRequest,
        config: &AdapterConfig,
        mapping: &RequestMapping,
    ) -> Result<Value, ProviderError>;

    /// The turn in a (non-streamed) response body.
    ///
    /// # Errors
    /// [`ProviderErrorKind::Decode`] with the body when it is not this format's response; the
    /// provider's error when the body reports one.
    fn decode(
        &self,
        body: &[u8],
        mapping: &RequestMapping,
        config: &AdapterConfig,
    ) -> Result<ModelTurn, ProviderError>;

    /// A decoder for the streamed reply to the request `mapping` describes.
    fn stream(&self, mapping: RequestMapping, config: AdapterConfig) -> Box<dyn StreamDecoder>;

    /// The request body for `request`: its mapping, then [`WireCodec::encode`].
    ///
    /// # Errors
    /// [`ProviderErrorKind::Config`] for tool names or schemas that cannot be sent.
    fn encode_request(
        &self,
        request: &ModelRequest,
        config: &AdapterConfig,
    ) -> Result<Value, ProviderError> {
        let mapping = RequestMapping::new(request, config)?;
        self.encode(request, config, &mapping)
    }
}

impl WireFormat {
    /// The codec of this format (the one place that matches on the format to pick it).
    pub fn codec(self) -> &'static dyn WireCodec {
        match self {
            WireFormat::OpenAiChat => &openai_chat::OpenAiChatCodec,
            WireFormat::OpenAiResponses => &openai_responses::OpenAiResponsesCodec,
            WireFormat::AnthropicMessages => &anthropic::AnthropicCodec,
        }
    }
}

/// Whether strict mode would send the output schema unchanged (then `"strict": true` is safe).
pub(crate) fn is_strict_form(spec: &OutputSpec) -> bool {
    let schema = wink_schema::output::response_schema(spec);
    normalize(&schema, SchemaDialect::OpenAiStrict).is_ok_and(|strict| strict == schema)
}

/// A message kind added to the conversation model after this adapter was written.
pub(crate) fn unsupported_message(config: &AdapterConfig, message: &Message) -> ProviderError {
    failure(
        config,
        ProviderErrorKind::Config,
        format!("Unsupported message kind for this provider: {message:?}."),
    )
}
