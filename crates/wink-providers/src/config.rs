//! Adapter configuration: which wire format, where, with which key, and which features.

use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

use wink_schema::SchemaDialect;

/// An API key. Its `Debug` and `Display` never show the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(secret: impl Into<String>) -> Self {
        Self(secret.into())
    }

    /// The secret, for the authentication header only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every whole occurrence of the key replaced by `[REDACTED]`, however each of
    /// its characters is written: as is, JSON-escaped (`\"`, `\\`, `\/`, `\u002f` in either
    /// case) or percent-encoded (`%2F` / `%2f`), in any mix.
    ///
    /// Keys shorter than [`ApiKey::MIN_REDACTED_LEN`] characters are left alone: a key such as
    /// `x` (local servers take any) is no secret, and replacing every `x` would make messages
    /// unreadable.
    #[must_use]
    pub fn redact(&self, text: &str) -> String {
        let key = self.0.as_bytes();
        if self.0.chars().count() < Self::MIN_REDACTED_LEN {
            return text.to_owned();
        }
        let bytes = text.as_bytes();
        let mut redacted = String::with_capacity(text.len());
        let mut copied = 0;
        let mut index = 0;
        while index < bytes.len() {
            match written_key_end(bytes, index, key) {
                Some(end) => {
                    redacted.push_str(&text[copied..index]);
                    redacted.push_str("[REDACTED]");
                    index = end;
                    copied = end;
                }
                None => index += 1,
            }
        }
        redacted.push_str(&text[copied..]);
        redacted
    }

    /// The shortest key [`ApiKey::redact`] redacts, in characters.
    pub const MIN_REDACTED_LEN: usize = 8;
}

/// Where a written form of `key` starting at `start` of `text` ends (see [`ApiKey::redact`]).
/// Forms start with an ASCII byte, so a match never starts or ends inside a UTF-8 character.
fn written_key_end(text: &[u8], start: usize, key: &[u8]) -> Option<usize> {
    let Some((&first, rest)) = key.split_first() else {
        return Some(start);
    };
    let at = text.get(start..)?;
    let mut ends = Vec::with_capacity(2);
    if at.first() == Some(&first) {
        ends.push(start + 1);
    }
    if let Some(width) = escaped_width(at, first) {
        ends.push(start + width);
    }
    ends.into_iter()
        .find_map(|next| written_key_end(text, next, rest))
}

/// The length of an escape of `byte` at the start of `text`: `%XX`, `\uXXXX`, or a JSON
/// two-character escape.
fn escaped_width(text: &[u8], byte: u8) -> Option<usize> {
    let hex = |digits: &[u8]| {
        std::str::from_utf8(digits)
            .ok()
            .and_then(|d| u32::from_str_radix(d, 16).ok())
    };
    match text {
        [b'%', a, b, ..] if hex(&[*a, *b]) == Some(u32::from(byte)) => Some(3),
        [b'\\', b'u', digits @ ..]
            if digits.len() >= 4 && hex(&digits[..4]) == Some(u32::from(byte)) =>
        {
            Some(6)
        }
        [b'\\', escaped, ..] if *escaped == byte && matches!(byte, b'"' | b'\\' | b'/') => Some(2),
        _ => None,
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("ApiKey([REDACTED])")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("[REDACTED]")
    }
}

/// The JSON dialect spoken on the wire.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireFormat {
    /// OpenAI Chat Completions (`POST {base}/chat/completions`).
    OpenAiChat,
    /// OpenAI Responses (`POST {base}/responses`).
    OpenAiResponses,
    /// Anthropic Messages (`POST {base}/v1/messages`).
    AnthropicMessages,
}

impl WireFormat {
    /// The path appended to the base URL.
    pub fn path(self) -> &'static str {
        match self {
            WireFormat::OpenAiChat => "/chat/completions",
            WireFormat::OpenAiResponses => "/responses",
            WireFormat::AnthropicMessages => "/v1/messages",
        }
    }
}

/// How the key is sent.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthScheme {
    /// `Authorization: Bearer KEY` (OpenAI, LiteLLM, OpenAI-compatible servers).
    Bearer,
    /// `x-api-key: KEY` (Anthropic).
    XApiKey,
}

/// Which request field carries the output-token cap in Chat Completions.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxTokensField {
    /// `max_completion_tokens` (OpenAI; required by reasoning models).
    MaxCompletionTokens,
    /// `max_tokens` (LiteLLM, llama.cpp, vLLM, Ollama).
    MaxTokens,
}

/// How a request that must call a tool ([`wink_model::ToolChoice::Required`] or
/// [`wink_model::ToolChoice::Tool`]) says so in Chat Completions.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForcedCalls {
    /// OpenAI's `tool_choice`: `"required"`, or `{"type": "function", "function": {"name"}}`.
    ToolChoice,
    /// A `response_format` `json_schema` whose schema is the call itself (`{"name": const,
    /// "arguments": the tool's parameters}`, one branch of an `anyOf` per offered tool): the
    /// server's grammar makes the model write the call as JSON text, and the adapter reads it
    /// back as the call ([`AdapterConfig::text_tool_calls`]). For servers that take
    /// `response_format` but not a forcing `tool_choice`: llama.cpp's `llama-server` ignores a
    /// named `tool_choice` (it takes only strings) and, with `"required"`, lets a small model
    /// write prose before a call it never makes. The tools are still sent, so the prompt (and
    /// the server's prompt cache) stays the same.
    ResponseSchema,
    /// [`ForcedCalls::ResponseSchema`] when the server answers `GET /props` as llama.cpp's
    /// server does ([`AdapterConfig::probe_server_props`]), else [`ForcedCalls::ToolChoice`].
    Detect,
}

/// Native tool-catalog fast path: tools sent deferred and loaded when a search names them.
///
/// * Anthropic: every tool in [`DeferredTools::tools`] gets `"defer_loading": true`; the results of
///   [`DeferredTools::search_tool`] carry one `{"type": "tool_reference", "tool_name": ...}` block
///   per deferred tool the result text names.
/// * OpenAI Responses: deferred tools get `"defer_loading": true` (grouped under
///   [`DeferredTools::namespace`] when set); the search tool is sent as a client-executed
///   `{"type": "tool_search", "execution": "client"}` tool; its calls come back as `tool_search_call`
///   items (mapped to calls of the search tool) and its results go back as `tool_search_output` items
///   carrying the full definitions of the tools the result text names.
/// * Other formats ignore this setting.
///
/// A result *names* a tool when the tool's canonical name occurs in it as a whole token (not
/// preceded or followed by a letter, digit, `_`, `-`, or by a `.` that continues the name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeferredTools {
    /// Canonical names of the deferred tools.
    pub tools: BTreeSet<String>,
    /// Canonical name of the wink tool that searches the catalog (e.g. `find_tool`).
    pub search_tool: String,
    /// OpenAI Responses: group the deferred tools under this namespace.
    pub namespace: Option<Namespace>,
}

impl DeferredTools {
    /// `tools` deferred, `search_tool` loading them, no namespace.
    pub fn new(tools: impl IntoIterator<Item = String>, search_tool: impl Into<String>) -> Self {
        Self {
            tools: tools.into_iter().collect(),
            search_tool: search_tool.into(),
            namespace: None,
        }
    }
}

/// An OpenAI Responses tool namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    /// Name (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// What the tools in it are for.
    pub description: String,
}

/// Timeouts of one model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing the TCP/TLS connection.
    pub connect: Duration,
    /// From sending the request to the response headers; when streaming, also the longest
    /// silence between two chunks.
    pub first_byte: Duration,
    /// The whole call, retries and back-off included.
    pub total: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            first_byte: Duration::from_secs(300),
            total: Duration::from_secs(900),
        }
    }
}

/// Retries on 429, 5xx, 408, 409, connection errors and timeouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all (1 = no retry).
    pub max_attempts: u32,
    /// Back-off before the first retry; doubles each retry.
    pub base_delay: Duration,
    /// Cap of one back-off.
    pub max_delay: Duration,
    /// The longest `Retry-After` honoured; a provider asking for more fails the call.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

/// Everything an adapter needs to talk to one model. The pure mappers read it; the transport
/// reads [`AdapterConfig::endpoint`] and [`AdapterConfig::headers`].
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterConfig {
    /// Adapter name reported by `ProviderAdapter::name` (`openai`, `anthropic`, ...).
    pub provider: String,
    /// Model name sent on the wire.
    pub model: String,
    /// Base URL (`https://api.openai.com/v1`, `https://api.anthropic.com`, ...).
    pub base_url: String,
    /// The key, if the server needs one.
    pub api_key: Option<ApiKey>,
    /// Wire format.
    pub format: WireFormat,
    /// How the key is sent.
    pub auth: AuthScheme,
    /// Schema dialect of non-strict tool parameters.
    pub dialect: SchemaDialect,
    /// Send tools whose schema strict mode can express with `"strict": true` (OpenAI formats).
    pub strict_tools: bool,
    /// Mark structured output strict when the schema is already in strict form (OpenAI formats).
    pub strict_output: bool,
    /// Stream the response (SSE).
    pub stream: bool,
    /// Ask for usage in the stream (`stream_options.include_usage`, Chat Completions).
    pub stream_usage: bool,
    /// Chat Completions field for the output-token cap.
    pub max_tokens_field: MaxTokensField,
    /// Anthropic's required `max_tokens` when the request sets none.
    pub default_max_tokens: u32,
    /// `anthropic-version` header (Anthropic Messages).
    pub anthropic_version: String,
    /// What `supports_dynamic_tools` answers.
    pub dynamic_tools: bool,
    /// Native tool-catalog fast path.
    pub deferred_tools: Option<DeferredTools>,
    /// Section tools through native deferral (Anthropic Messages, OpenAI Responses; the other
    /// formats ignore it): tools hidden in summarized sections are declared up front with
    /// `defer_loading: true` and loaded by the result of the call that disclosed them, so the
    /// `tools` array stays the same for the whole run.
    pub section_deferral: bool,
    /// The model's context window in tokens (`--context-size`), when known.
    pub context_window: Option<u64>,
    /// Ask the server for its context size (`GET /props`, llama.cpp `llama-server`) once, when
    /// [`AdapterConfig::context_window`] is unset (`openai-compat`).
    pub probe_server_props: bool,
    /// Read a tool call the server left in the answer text (`{"name": ..., "arguments": ...}`,
    /// bare, fenced or in `<tool_call>` tags) as that call when it names an offered tool
    /// (`openai-compat`: small local models).
    pub text_tool_calls: bool,
    /// How a request that must call a tool says so (Chat Completions).
    pub forced_calls: ForcedCalls,
    /// Extra headers sent with every request (e.g. `anthropic-beta`).
    pub extra_headers: Vec<(String, String)>,
    /// Timeouts.
    pub timeouts: Timeouts,
    /// Retries.
    pub retry: RetryPolicy,
}

/// Public OpenAI endpoint.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Public Anthropic endpoint.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// Where a LiteLLM proxy listens by default.
pub const LITELLM_BASE_URL: &str = "http://localhost:4000";
/// The Anthropic API version sent.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

impl AdapterConfig {
    /// OpenAI Chat Completions against the public endpoint: strict tools and output where the
    /// schema allows, `max_completion_tokens`.
    pub fn openai(model: impl Into<String>) -> Self {
        Self {
            provider: "openai".to_owned(),
            model: model.into(),
            base_url: OPENAI_BASE_URL.to_owned(),
            api_key: None,
            format: WireFormat::OpenAiChat,
            auth: AuthScheme::Bearer,
            dialect: SchemaDialect::OpenAi,
            strict_tools: true,
            strict_output: true,
            stream: false,
            stream_usage: true,
            max_tokens_field: MaxTokensField::MaxCompletionTokens,
            default_max_tokens: 8192,
            anthropic_version: ANTHROPIC_VERSION.to_owned(),
            dynamic_tools: true,
            deferred_tools: None,
            section_deferral: false,
            context_window: None,
            probe_server_props: false,
            text_tool_calls: false,
            forced_calls: ForcedCalls::ToolChoice,
            extra_headers: Vec::new(),
            timeouts: Timeouts::default(),
            retry: RetryPolicy::default(),
        }
    }

    /// OpenAI Responses against the public endpoint (`store: false`, strict where possible).
    pub fn openai_responses(model: impl Into<String>) -> Self {
        Self {
            provider: "openai-responses".to_owned(),
            format: WireFormat::OpenAiResponses,
            ..Self::openai(model)
        }
    }

    /// Anthropic Messages against the public endpoint (`x-api-key`, `anthropic-version`).
    pub fn anthropic(model: impl Into<String>) -> Self {
        Self {
            provider: "anthropic".to_owned(),
            base_url: ANTHROPIC_BASE_URL.to_owned(),
            format: WireFormat::AnthropicMessages,
            auth: AuthScheme::XApiKey,
            dialect: SchemaDialect::Anthropic,
            strict_tools: false,
            strict_output: false,
            ..Self::openai(model)
        }
    }

    /// A LiteLLM proxy speaking `format` (Chat Completions or Anthropic Messages): bearer key,
    /// non-strict OpenAI dialect, `max_tokens`, no deferred tools.
    pub fn litellm(model: impl Into<String>, format: WireFormat) -> Self {
        let dialect = if format == WireFormat::AnthropicMessages {
            SchemaDialect::Anthropic
        } else {
            SchemaDialect::OpenAi
        };
        Self {
            provider: "litellm".to_owned(),
            base_url: LITELLM_BASE_URL.to_owned(),
            format,
            auth: AuthScheme::Bearer,
            dialect,
            strict_tools: false,
            strict_output: false,
            max_tokens_field: MaxTokensField::MaxTokens,
            ..Self::openai(model)
        }
    }

    /// Any OpenAI-compatible Chat Completions server (llama.cpp, vLLM, Ollama): the conservative
    /// schema dialect, no strict mode, `max_tokens`, no usage request in streams.
    pub fn openai_compat(model: impl Into<String>, base_url: impl Into<String>) -> Self {
        Self {
            provider: "openai-compat".to_owned(),
            base_url: base_url.into(),
            dialect: SchemaDialect::Conservative,
            strict_tools: false,
            strict_output: false,
            stream_usage: false,
            max_tokens_field: MaxTokensField::MaxTokens,
            probe_server_props: true,
            text_tool_calls: true,
            forced_calls: ForcedCalls::Detect,
            ..Self::openai(model)
        }
    }

    /// Whether section tools go out through native deferral: [`AdapterConfig::section_deferral`]
    /// on a format that has it.
    pub fn defers_section_tools(&self) -> bool {
        self.section_deferral
            && matches!(
                self.format,
                WireFormat::AnthropicMessages | WireFormat::OpenAiResponses
            )
    }

    /// The URL requests go to: the base URL without trailing `/`, then the format's path.
    pub fn endpoint(&self) -> String {
        format!(
            "{}{}",
            self.base_url.trim_end_matches('/'),
            self.format.path()
        )
    }

    /// Headers of every request: content type, authentication, the Anthropic version, extras.
    /// The authentication entry is flagged `true` (sensitive).
    pub fn headers(&self) -> Vec<(String, String, bool)> {
        let mut headers = vec![(
            "content-type".to_owned(),
            "application/json".to_owned(),
            false,
        )];
        if let Some(key) = &self.api_key {
            match self.auth {
                AuthScheme::Bearer => headers.push((
                    "authorization".to_owned(),
                    format!("Bearer {}", key.expose()),
                    true,
                )),
                AuthScheme::XApiKey => {
                    headers.push(("x-api-key".to_owned(), key.expose().to_owned(), true))
                }
            }
        }
        if self.format == WireFormat::AnthropicMessages {
            headers.push((
                "anthropic-version".to_owned(),
                self.anthropic_version.clone(),
                false,
            ));
        }
        if self.stream {
            headers.push(("accept".to_owned(), "text/event-stream".to_owned(), false));
        }
        headers.extend(
            self.extra_headers
                .iter()
                .map(|(name, value)| (name.to_ascii_lowercase(), value.clone(), false)),
        );
        headers
    }

    /// `text` with the key redacted.
    pub fn redact(&self, text: &str) -> String {
        match &self.api_key {
            Some(key) => key.redact(text),
            None => text.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_is_redacted_in_debug_and_text() {
        let mut config = AdapterConfig::openai("gpt-4.1");
        config.api_key = Some(ApiKey::new("sk-secret-123"));
        let debug = format!("{config:?}");
        assert!(!debug.contains("sk-secret-123"), "{debug}");
        assert!(debug.contains("ApiKey([REDACTED])"));
        assert_eq!(
            config.redact("bad key sk-secret-123!"),
            "bad key [REDACTED]!"
        );
    }

    #[test]
    fn whole_keys_of_eight_characters_or_more_are_redacted_in_every_written_form() {
        let key = ApiKey::new("sk-a/b\"c+d");
        assert_eq!(
            key.redact(r#"{"error":"bad key sk-a/b\"c+d"} url ?key=sk-a%2Fb%22c%2Bd ?k=sk-a%2fb%22c%2bd raw sk-a/b"c+d"#),
            r#"{"error":"bad key [REDACTED]"} url ?key=[REDACTED] ?k=[REDACTED] raw [REDACTED]"#
        );
        let key = ApiKey::new("sk-a/b/c/d");
        assert_eq!(
            key.redact(r#"{"k":"sk-a\/b\/c\/d"}"#),
            r#"{"k":"[REDACTED]"}"#
        );
        let key = ApiKey::new("sk-12345");
        assert_eq!(key.redact("sk-1234 sk-12345"), "sk-1234 [REDACTED]");
        // Any mix of escapes, as servers and proxies write them.
        let key = ApiKey::new("sk-a/b/c+d");
        assert_eq!(
            key.redact(
                r#"{"k":"sk-a\/b/c+d","u":"sk-a/b/c+d","q":"sk-a%2Fb/c%2bd","é":"ésk-a/b/c+dé"}"#
            ),
            r#"{"k":"[REDACTED]","u":"[REDACTED]","q":"[REDACTED]","é":"é[REDACTED]é"}"#
        );
    }

    #[test]
    fn short_keys_are_not_redacted() {
        let message = "the request exceeds the available context size";
        assert_eq!(ApiKey::new("x").redact(message), message);
        assert_eq!(ApiKey::new("1234567").redact("key 1234567"), "key 1234567");
        assert_eq!(ApiKey::new("").redact(message), message);
        let mut config = AdapterConfig::openai_compat("qwen", "http://127.0.0.1:8080/v1");
        config.api_key = Some(ApiKey::new("x"));
        assert_eq!(config.redact(message), message);
    }

    #[test]
    fn endpoints_per_format() {
        assert_eq!(
            AdapterConfig::openai("m").endpoint(),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(
            AdapterConfig::openai_responses("m").endpoint(),
            "https://api.openai.com/v1/responses"
        );
        assert_eq!(
            AdapterConfig::anthropic("m").endpoint(),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            AdapterConfig::openai_compat("m", "http://127.0.0.1:8080/v1/").endpoint(),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        assert_eq!(
            AdapterConfig::litellm("m", WireFormat::AnthropicMessages).endpoint(),
            "http://localhost:4000/v1/messages"
        );
    }

    #[test]
    fn anthropic_headers() {
        let mut config = AdapterConfig::anthropic("claude");
        config.api_key = Some(ApiKey::new("k"));
        assert_eq!(
            config.headers(),
            vec![
                (
                    "content-type".to_owned(),
                    "application/json".to_owned(),
                    false
                ),
                ("x-api-key".to_owned(), "k".to_owned(), true),
                (
                    "anthropic-version".to_owned(),
                    "2023-06-01".to_owned(),
                    false
                ),
            ]
        );
    }
}
