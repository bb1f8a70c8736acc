//! [`HttpAdapter`]: a [`ProviderAdapter`] made of a wire format's codec ([`crate::WireCodec`])
//! and the transport.

use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;
use wink_model::{
    ModelRequest, ModelTurn, ProviderAdapter, ProviderError, ProviderErrorKind, ProviderFuture,
    StreamSink, ToolChoice,
};
use wink_session::TraceParent;

use crate::config::{AdapterConfig, ForcedCalls};
use crate::context::{ServerProps, hosted_context_window, probe_server_props};
use crate::failure::failure;
use crate::mapping::RequestMapping;
use crate::sse::SseParser;
use crate::text_calls::promote_text_tool_calls;
use crate::transport::{HttpTransport, Reply};

/// A model behind an HTTP API.
///
/// Dropping the future returned by [`ProviderAdapter::complete`] cancels the call (the connection
/// is closed); [`HttpAdapter::with_cancellation`] adds a token that does the same from elsewhere.
#[derive(Debug, Clone)]
pub struct HttpAdapter {
    config: AdapterConfig,
    transport: HttpTransport,
    cancel: Option<CancellationToken>,
    /// The server's context size, asked once (`GET /props`).
    probed: Arc<OnceLock<Option<ServerProps>>>,
}

impl HttpAdapter {
    /// An adapter with its own HTTP client.
    ///
    /// # Errors
    /// [`ProviderErrorKind::Config`] when the HTTP client cannot be built.
    pub fn new(config: AdapterConfig) -> Result<Self, ProviderError> {
        let transport = HttpTransport::new(&config.timeouts)?;
        Ok(Self::with_transport(config, transport))
    }

    /// An adapter over a shared transport.
    pub fn with_transport(config: AdapterConfig, transport: HttpTransport) -> Self {
        Self {
            config,
            transport,
            cancel: None,
            probed: Arc::new(OnceLock::new()),
        }
    }

    /// Cancels calls in flight (and refuses new ones) once `token` is cancelled.
    #[must_use]
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// The configuration.
    pub fn config(&self) -> &AdapterConfig {
        &self.config
    }

    async fn call(
        &self,
        request: &ModelRequest,
        sink: Option<&dyn StreamSink>,
        traceparent: Option<TraceParent>,
    ) -> Result<ModelTurn, ProviderError> {
        // Only a request that forces a call needs to know how (and may ask the server).
        let form = match request.tool_choice {
            ToolChoice::Required | ToolChoice::Tool(_) => self.forced_calls(),
            _ => ForcedCalls::ToolChoice,
        };
        let mapping = RequestMapping::new(request, &self.config)?.forcing_calls_by(form);
        let turn = self.exchange(&mapping, request, sink, traceparent).await?;
        Ok(if self.config.text_tool_calls {
            promote_text_tool_calls(turn, &mapping)
        } else {
            turn
        })
    }

    async fn exchange(
        &self,
        mapping: &RequestMapping,
        request: &ModelRequest,
        sink: Option<&dyn StreamSink>,
        traceparent: Option<TraceParent>,
    ) -> Result<ModelTurn, ProviderError> {
        let config = &self.config;
        let trace = traceparent.map(|t| t.header());
        let codec = config.format.codec();
        let body = codec.encode(request, config, mapping)?;
        let bytes = serde_json::to_vec(&body).map_err(|error| {
            failure(
                config,
                ProviderErrorKind::Other,
                format!("Cannot serialise the request: {error}"),
            )
        })?;
        if !config.stream {
            return match self
                .transport
                .post(config, bytes, None, trace.as_deref())
                .await?
            {
                Reply::Body(body) => codec.decode(&body, mapping, config),
                Reply::Streamed => Err(failure(
                    config,
                    ProviderErrorKind::Other,
                    "Unexpected streamed reply.",
                )),
            };
        }
        let mut decoder = codec.stream(mapping.clone(), config.clone());
        let mut parser = SseParser::new();
        let mut consume = |chunk: &[u8]| -> Result<bool, ProviderError> {
            for event in parser.push(chunk) {
                decoder.on_event(&event, sink)?;
            }
            if parser.line_too_long() {
                return Err(failure(
                    config,
                    ProviderErrorKind::Other,
                    format!(
                        "The event stream sent a line longer than {} bytes without a line break; the stream was stopped.",
                        crate::sse::MAX_SSE_LINE_BYTES
                    ),
                ));
            }
            Ok(decoder.is_complete())
        };
        match self
            .transport
            .post(config, bytes, Some(&mut consume), trace.as_deref())
            .await?
        {
            Reply::Body(body) => codec.decode(&body, mapping, config),
            Reply::Streamed => decoder.finish(),
        }
    }
}

impl HttpAdapter {
    /// How this adapter forces a call: [`AdapterConfig::forced_calls`], with
    /// [`ForcedCalls::Detect`] resolved by whether the server answers `GET /props`.
    fn forced_calls(&self) -> ForcedCalls {
        match self.config.forced_calls {
            ForcedCalls::Detect if self.server_props().is_some() => ForcedCalls::ResponseSchema,
            ForcedCalls::Detect => ForcedCalls::ToolChoice,
            form => form,
        }
    }

    /// What the server says of itself (asked once, with [`AdapterConfig::probe_server_props`]).
    fn server_props(&self) -> Option<&ServerProps> {
        if !self.config.probe_server_props {
            return None;
        }
        self.probed
            .get_or_init(|| probe_server_props(&self.config))
            .as_ref()
    }
}

impl ProviderAdapter for HttpAdapter {
    fn name(&self) -> &str {
        &self.config.provider
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    fn supports_dynamic_tools(&self) -> bool {
        self.config.dynamic_tools
    }

    /// [`AdapterConfig::context_window`] when set; else, with
    /// [`AdapterConfig::probe_server_props`], what the server's `GET /props` says
    /// (`default_generation_settings.n_ctx`, asked once, blocking for at most a few seconds);
    /// else the documented window of a known hosted model.
    fn context_window(&self) -> Option<u64> {
        if let Some(window) = self.config.context_window {
            return Some(window);
        }
        if let Some(window) = self.server_props().and_then(|props| props.context) {
            return Some(window);
        }
        hosted_context_window(&self.config)
    }

    /// The profile of the model name, else (a llama.cpp server) of the GGUF file the server's
    /// `/props` names.
    fn profile(&self) -> &'static wink_model::profile::ModelProfile {
        use wink_model::profile::{DEFAULT_PROFILE, profile_for_model};
        let by_name = profile_for_model(&self.config.model);
        if by_name.name != DEFAULT_PROFILE.name {
            return by_name;
        }
        self.server_props()
            .and_then(|props| props.model_path.as_deref())
            .map(|path| {
                let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
                profile_for_model(file.trim_end_matches(".gguf"))
            })
            .unwrap_or(by_name)
    }

    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        // The span the loop makes this call in (W3C `traceparent`), read as the call starts.
        let traceparent = wink_model::trace::outgoing_traceparent();
        Box::pin(async move {
            match &self.cancel {
                None => self.call(request, stream, traceparent).await,
                Some(token) => tokio::select! {
                    biased;
                    () = token.cancelled() => Err(failure(&self.config, ProviderErrorKind::Cancelled, "The call was cancelled.")),
                    result = self.call(request, stream, traceparent) => result,
                },
            }
        })
    }
}
