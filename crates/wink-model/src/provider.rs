//! The provider contract. Adapters are pure mappers over one transport: a [`ModelRequest`] in,
//! a [`ModelTurn`] out, optionally streaming [`StreamDelta`]s on the way.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use crate::conversation::{ModelRequest, ModelTurn, StreamDelta};

/// The future an adapter returns.
pub type ProviderFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ModelTurn, ProviderError>> + Send + 'a>>;

/// Receives streamed fragments (the CLI prints text as it arrives).
pub trait StreamSink: Send + Sync {
    /// One fragment.
    fn on_delta(&self, delta: &StreamDelta);
}

/// A model provider.
pub trait ProviderAdapter: Send + Sync + fmt::Debug {
    /// Adapter name (`openai`, `anthropic`, `local`, `scripted`, ...).
    fn name(&self) -> &str;
    /// The model it talks to.
    fn model(&self) -> &str;
    /// Whether tools may be added mid-conversation (seed 003). Stateless HTTP APIs: yes.
    fn supports_dynamic_tools(&self) -> bool {
        false
    }
    /// The model's context window in tokens (prompt plus output), when known: the loop never
    /// sends a request that cannot fit.
    fn context_window(&self) -> Option<u64> {
        None
    }
    /// The profile of the model this adapter talks to (see [`crate::profile`]): by default the
    /// one its [`ProviderAdapter::model`] name matches.
    fn profile(&self) -> &'static crate::profile::ModelProfile {
        crate::profile::profile_for_model(self.model())
    }
    /// Forget the prompt prefix kept between calls (the embedded model's KV cache), so that the
    /// next call is evaluated from its first token, as in a new process. Benchmarks call it to
    /// measure runs cold (`wink eval --cold`). Default: nothing is kept, nothing to forget.
    fn forget_cached_prefix(&self) {}
    /// Run one model call. `stream`, when given, receives fragments as they arrive.
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a>;
}

/// What kind of provider failure happened.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderErrorKind {
    /// The provider answered with an HTTP error status.
    Status(u16),
    /// Rate limited (429), with the provider's `Retry-After` when given.
    RateLimited(Option<Duration>),
    /// Connecting failed.
    Connection,
    /// A timeout (connect, first byte or total).
    Timeout,
    /// The body could not be understood.
    Decode,
    /// The stream ended before the turn was complete.
    TruncatedStream,
    /// Configuration is missing or wrong (e.g. no API key).
    Config,
    /// The call was cancelled.
    Cancelled,
    /// The request did not fit the model's context window (the provider said so).
    ContextOverflow,
    /// Anything else.
    Other,
}

/// A provider call failed. Carries the provider, model and the raw body when there is one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{provider} ({model}): {message}{}", .raw_body.as_ref().map(|b| format!("\nprovider body: {}", truncate(b, 2000))).unwrap_or_default())]
pub struct ProviderError {
    /// Kind.
    pub kind: ProviderErrorKind,
    /// Adapter name.
    pub provider: String,
    /// Model.
    pub model: String,
    /// What happened.
    pub message: String,
    /// The provider's raw response body, when there was one.
    pub raw_body: Option<String>,
}

impl ProviderError {
    /// A new error.
    pub fn new(
        kind: ProviderErrorKind,
        provider: impl Into<String>,
        model: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            provider: provider.into(),
            model: model.into(),
            message: message.into(),
            raw_body: None,
        }
    }

    /// Attach the raw body.
    #[must_use]
    pub fn with_body(mut self, body: impl Into<String>) -> Self {
        self.raw_body = Some(body.into());
        self
    }

    /// Whether retrying the same request may succeed (429, 5xx, connection errors, timeouts).
    pub fn is_retryable(&self) -> bool {
        match self.kind {
            ProviderErrorKind::RateLimited(_)
            | ProviderErrorKind::Connection
            | ProviderErrorKind::Timeout => true,
            ProviderErrorKind::Status(s) => s >= 500 || s == 408 || s == 409,
            _ => false,
        }
    }
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(max).collect::<String>())
    }
}
