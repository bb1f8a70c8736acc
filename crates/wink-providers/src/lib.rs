//! # wink-providers
//!
//! Model providers over HTTP for the wink agent loop: OpenAI Chat Completions (`openai`), OpenAI
//! Responses (`openai-responses`), Anthropic Messages (`anthropic`), a LiteLLM proxy (`litellm`)
//! and any OpenAI-compatible server (`openai-compat`: llama.cpp, vLLM, Ollama); with the feature
//! `claude-cli`, the claude CLI as a provider (`ClaudeCliAdapter`: a process, not HTTP, with
//! the run's tools attached through an MCP bridge).
//!
//! Adapters are pure mappers over one transport:
//! - per wire format family ([`openai_chat`], [`openai_responses`], [`anthropic`]) one
//!   [`WireCodec`] ([`WireFormat::codec`]): `encode` (conversation + tools + options → JSON
//!   body), `decode` (body → [`wink_model::ModelTurn`]) and a [`StreamDecoder`] (SSE events →
//!   text and tool-call fragments assembled per index); each module also keeps its
//!   `encode_request` / `decode_response` functions;
//! - [`HttpTransport`]: one `reqwest` client (rustls), timeouts, retries with jittered exponential
//!   back-off honouring `Retry-After`, no retry once a stream was consumed;
//! - [`HttpAdapter`] joins them into a [`wink_model::ProviderAdapter`];
//!   [`adapter_from_spec`] builds one from `PROVIDER:MODEL`.
//!
//! Tools go out under provider-safe aliases ([`wink_schema::ToolNameAliases`]) in the provider's
//! schema dialect and come back under their canonical names. API keys ([`ApiKey`]) are redacted
//! in `Debug` and scrubbed from error texts (keys of 8 characters or more). Request bodies put
//! what changes least first and the conversation last; with
//! [`AdapterConfig::section_deferral`] Anthropic and OpenAI Responses declare section tools up
//! front as deferred, so the `tools` array never changes during a run.
//!
//! ```
//! use serde_json::json;
//! use wink_model::{Message, ModelRequest, ToolSpec};
//! use wink_providers::{AdapterConfig, openai_chat};
//!
//! let request = ModelRequest {
//!     messages: vec![Message::system("You are terse."), Message::user("Read a.txt")],
//!     tools: vec![ToolSpec {
//!         name: "file.read".into(),
//!         description: "Read a file.".into(),
//!         parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
//!     }],
//!     ..ModelRequest::default()
//! };
//! let body = openai_chat::encode_request(&request, &AdapterConfig::openai("gpt-4.1")).unwrap();
//! let tool = &body["tools"][0]["function"];
//! assert_eq!(tool["name"], "file__read");
//! assert_eq!(tool["strict"], true);
//! assert_eq!(tool["parameters"]["additionalProperties"], false);
//! assert_eq!(body["messages"][1], json!({"role": "user", "content": "Read a.txt"}));
//! ```

mod adapter;
pub mod anthropic;
mod assemble;
#[cfg(feature = "claude-cli")]
mod claude_cli;
mod codec;
mod config;
mod context;
mod factory;
mod failure;
mod mapping;
pub mod openai_chat;
pub mod openai_responses;
mod sse;
mod text_calls;
mod transport;

pub use adapter::HttpAdapter;
pub use assemble::StreamDecoder;
#[cfg(feature = "claude-cli")]
pub use claude_cli::{ClaudeCliAdapter, ClaudeCliConfig};
pub use codec::WireCodec;
pub use config::{
    ANTHROPIC_BASE_URL, ANTHROPIC_VERSION, AdapterConfig, ApiKey, AuthScheme, DeferredTools,
    ForcedCalls, LITELLM_BASE_URL, MaxTokensField, Namespace, OPENAI_BASE_URL, RetryPolicy,
    Timeouts, WireFormat,
};
pub use factory::{
    AdapterOptions, NATIVE_TOOL_SEARCH_PROVIDERS, PROVIDERS, adapter_from_spec,
    adapter_from_spec_with_env, config_from_spec, supports_native_tool_search,
};
pub use mapping::RequestMapping;
pub use sse::{MAX_SSE_LINE_BYTES, SseEvent, SseParser};
pub use transport::{
    ChunkConsumer, HttpTransport, RETRY_AFTER_CAP, Reply, backoff, install_crypto_provider,
    parse_retry_after, retry_after,
};

pub use tokio_util::sync::CancellationToken;
