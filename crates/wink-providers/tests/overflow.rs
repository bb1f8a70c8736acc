//! Against a loopback server: context-overflow errors of each provider become
//! `ProviderErrorKind::ContextOverflow` (not retried, the provider's message kept), error texts
//! stay readable with a short key and lose every written form of a long one, and the
//! `openai-compat` adapter reads its context window from llama.cpp's `GET /props` once.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use common::{Loopback, Reply, simple_request};
use wink_model::{ProviderAdapter, ProviderError, ProviderErrorKind};
use wink_providers::{AdapterOptions, ApiKey, adapter_from_spec_with_env};

fn adapter(spec: &str, server: &Loopback, key: &str) -> Arc<dyn ProviderAdapter> {
    let base = if spec.starts_with("anthropic") || spec.starts_with("litellm") {
        server.base_url.clone()
    } else {
        format!("{}/v1", server.base_url)
    };
    let options = AdapterOptions {
        base_url: Some(base),
        api_key: Some(ApiKey::new(key)),
        ..AdapterOptions::default()
    };
    adapter_from_spec_with_env(spec, &options, &|_| None).unwrap()
}

async fn failing_call(spec: &str, key: &str, reply: Reply) -> (ProviderError, usize) {
    let server = Loopback::start(vec![reply.clone(), reply.clone(), reply]).await;
    let error = adapter(spec, &server, key)
        .complete(&simple_request(), None)
        .await
        .unwrap_err();
    (error, server.requests().len())
}

#[tokio::test]
async fn each_providers_context_overflow_is_reported_as_such() {
    let cases = [
        (
            "openai:gpt-4.1",
            400,
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            "HTTP 400 Bad Request: invalid_request_error: This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
        ),
        (
            "openai-responses:gpt-5",
            400,
            r#"{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}"#,
            "HTTP 400 Bad Request: invalid_request_error: Your input exceeds the context window of this model.",
        ),
        (
            "anthropic:claude-sonnet-4-5",
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}"#,
            "HTTP 400 Bad Request: invalid_request_error: prompt is too long: 208310 tokens > 200000 maximum",
        ),
        (
            "openai-compat:qwen",
            400,
            r#"{"error":{"code":400,"message":"request (3030 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":3030,"n_ctx":2048}}"#,
            "HTTP 400 Bad Request: exceed_context_size_error: request (3030 tokens) exceeds the available context size (2048 tokens), try increasing it",
        ),
        (
            "litellm:qwen",
            400,
            r#"{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: OpenAIException - too many tokens","type":null,"param":null,"code":"400"}}"#,
            "HTTP 400 Bad Request: litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: OpenAIException - too many tokens",
        ),
    ];
    for (spec, status, body, message) in cases {
        // The key `x` (a local server takes any) must not mangle the message.
        let (error, requests) = failing_call(spec, "x", Reply::json(status, body)).await;
        assert_eq!(error.kind, ProviderErrorKind::ContextOverflow, "{spec}");
        assert_eq!(error.message, message, "{spec}");
        assert_eq!(error.raw_body.as_deref(), Some(body), "{spec}");
        assert_eq!(requests, 1, "{spec}: an overflow is not retried");
        assert!(!error.is_retryable());
    }
}

#[tokio::test]
async fn an_overflow_reported_inside_a_200_body_is_one_too() {
    let body = r#"{"id":"resp_1","status":"failed","output":[],"error":{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}}"#;
    let (error, _) = failing_call("openai-responses:gpt-5", "x", Reply::json(200, body)).await;
    assert_eq!(error.kind, ProviderErrorKind::ContextOverflow);
    assert_eq!(
        error.message,
        "Your input exceeds the context window of this model."
    );
}

#[tokio::test]
async fn other_client_errors_keep_their_status() {
    let body = r#"{"error":{"message":"Invalid value for 'tools'.","type":"invalid_request_error","code":"invalid_value"}}"#;
    let (error, _) = failing_call(
        "openai:gpt-4.1",
        "sk-long-enough-key",
        Reply::json(400, body),
    )
    .await;
    assert_eq!(error.kind, ProviderErrorKind::Status(400));
}

#[tokio::test]
async fn long_keys_are_redacted_in_every_written_form() {
    let key = "sk-test/with+plus-0123";
    let body = r#"{"error":{"message":"Key sk-test/with+plus-0123 (sk-test\/with+plus-0123) rejected at /v1?key=sk-test%2Fwith%2Bplus-0123","type":"authentication_error"}}"#;
    let (error, _) = failing_call("openai-compat:qwen", key, Reply::json(401, body)).await;
    assert_eq!(error.kind, ProviderErrorKind::Status(401));
    assert_eq!(
        error.message,
        "HTTP 401 Unauthorized: authentication_error: Key [REDACTED] ([REDACTED]) rejected at /v1?key=[REDACTED]"
    );
    let shown = error.to_string();
    assert!(!shown.contains("sk-test"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_compat_reads_the_context_window_from_llama_server_props_once() {
    let props = r#"{"default_generation_settings":{"params":{"n_predict":-1},"n_ctx":8192},"total_slots":1,"model_alias":"qwen","build_info":"b1-571d0d5"}"#;
    let server = Loopback::start(vec![Reply::json(200, props)]).await;
    let compat = adapter("openai-compat:qwen", &server, "x");
    let windows =
        tokio::task::spawn_blocking(move || (compat.context_window(), compat.context_window()))
            .await
            .unwrap();
    assert_eq!(windows, (Some(8192), Some(8192)));
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "asked once");
    assert_eq!(requests[0].method, "GET");
    assert_eq!(requests[0].path, "/props");

    // A server without /props (vLLM, Ollama) gives nothing.
    let server = Loopback::start(vec![Reply::json(404, r#"{"detail":"Not Found"}"#)]).await;
    let compat = adapter("openai-compat:qwen", &server, "x");
    let window = tokio::task::spawn_blocking(move || compat.context_window())
        .await
        .unwrap();
    assert_eq!(window, None);

    // A configured size wins and nothing is asked.
    let server = Loopback::start(vec![Reply::json(200, props)]).await;
    let options = AdapterOptions {
        base_url: Some(format!("{}/v1", server.base_url)),
        context_window: Some(4096),
        ..AdapterOptions::default()
    };
    let configured = adapter_from_spec_with_env("openai-compat:qwen", &options, &|_| None).unwrap();
    assert_eq!(configured.context_window(), Some(4096));
    assert!(server.requests().is_empty());

    // Hosted models: the documented table.
    let options = AdapterOptions {
        api_key: Some(ApiKey::new("sk-ant-0123456789")),
        ..AdapterOptions::default()
    };
    let hosted =
        adapter_from_spec_with_env("anthropic:claude-sonnet-4-5", &options, &|_| None).unwrap();
    assert_eq!(hosted.context_window(), Some(200_000));
}
