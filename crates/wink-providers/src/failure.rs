//! Building [`ProviderError`]s with the adapter's name and model, the key redacted.

use serde_json::Value;
use wink_model::{ProviderError, ProviderErrorKind};

use crate::config::AdapterConfig;

/// An error of `kind` for this adapter.
pub(crate) fn failure(
    config: &AdapterConfig,
    kind: ProviderErrorKind,
    message: impl Into<String>,
) -> ProviderError {
    ProviderError::new(
        kind,
        &config.provider,
        &config.model,
        config.redact(&message.into()),
    )
}

/// A body that could not be understood; carries the body.
pub(crate) fn decode_failure(
    config: &AdapterConfig,
    message: impl Into<String>,
    body: &[u8],
) -> ProviderError {
    failure(config, ProviderErrorKind::Decode, message)
        .with_body(config.redact(&String::from_utf8_lossy(body)))
}

/// Parses a JSON body.
pub(crate) fn parse_body(config: &AdapterConfig, body: &[u8]) -> Result<Value, ProviderError> {
    serde_json::from_slice(body).map_err(|error| {
        decode_failure(config, format!("Response body is not JSON: {error}."), body)
    })
}

/// The provider's own error message in an error body (`{"error": {"message": ...}}` for OpenAI and
/// Anthropic, `{"error": "..."}` for some compatible servers).
pub(crate) fn provider_message(body: &Value) -> Option<String> {
    let error = body.get("error")?;
    match error {
        Value::String(message) => Some(message.clone()),
        Value::Object(map) => {
            let message = map.get("message").and_then(Value::as_str)?;
            match map.get("type").and_then(Value::as_str) {
                Some(kind) => Some(format!("{kind}: {message}")),
                None => Some(message.to_owned()),
            }
        }
        _ => None,
    }
}

/// An error the provider reported inside a stream or a 200 body.
pub(crate) fn reported_failure(
    config: &AdapterConfig,
    payload: &Value,
    raw: &str,
) -> ProviderError {
    let message =
        provider_message(payload).unwrap_or_else(|| "The provider reported an error.".to_owned());
    let kind = match payload.pointer("/error/type").and_then(Value::as_str) {
        _ if is_context_overflow(raw) => ProviderErrorKind::ContextOverflow,
        Some("overloaded_error") => ProviderErrorKind::Status(529),
        Some("rate_limit_error") => ProviderErrorKind::RateLimited(None),
        Some("api_error") => ProviderErrorKind::Status(500),
        _ => ProviderErrorKind::Other,
    };
    failure(config, kind, message).with_body(config.redact(raw))
}

/// Whether an error body says the request did not fit the model's context window: OpenAI's
/// `context_length_exceeded` code, Anthropic's `prompt is too long`, llama.cpp server's
/// `exceeds the available context size` (`exceed_context_size_error`), LiteLLM's
/// `ContextWindowExceededError`.
pub(crate) fn is_context_overflow(raw: &str) -> bool {
    const MARKERS: [&str; 5] = [
        "context_length_exceeded",
        "prompt is too long",
        "exceeds the available context size",
        "exceed_context_size_error",
        "contextwindowexceedederror",
    ];
    let lowered = raw.to_ascii_lowercase();
    MARKERS.iter().any(|marker| lowered.contains(marker))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_overflow_markers() {
        assert!(is_context_overflow(
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#
        ));
        assert!(is_context_overflow(
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}"#
        ));
        assert!(is_context_overflow(
            r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}"#
        ));
        assert!(is_context_overflow(
            r#"{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: too long","type":null,"param":null,"code":"400"}}"#
        ));
        assert!(!is_context_overflow(
            r#"{"error":{"message":"Invalid value for 'tools'.","type":"invalid_request_error"}}"#
        ));
    }
}
