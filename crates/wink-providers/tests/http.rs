//! Every adapter against a loopback HTTP server replaying recorded fixtures: the exact requests
//! sent, retries, errors and streams.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Loopback, Recorded, Reply, fixture, review_output, simple_request};
use serde_json::{Value, json};
use wink_core::{ToolArguments, ToolCall};
use wink_model::{
    FinishReason, ModelRequest, ModelTurn, ProviderAdapter, ProviderError, ProviderErrorKind,
    StreamDelta, StreamSink,
};
use wink_providers::{
    AdapterOptions, DeferredTools, Timeouts, WireFormat, adapter_from_spec_with_env,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Adapter {
    OpenAi,
    OpenAiResponses,
    Anthropic,
    LiteLlm,
    OpenAiCompat,
}

const ALL: [Adapter; 5] = [
    Adapter::OpenAi,
    Adapter::OpenAiResponses,
    Adapter::Anthropic,
    Adapter::LiteLlm,
    Adapter::OpenAiCompat,
];

const OPENAI_KEY: &str = "sk-test-openai-0123456789";
const ANTHROPIC_KEY: &str = "sk-ant-test-0123456789";
const LITELLM_KEY: &str = "sk-litellm-test-0123456789";
const COMPAT_KEY: &str = "sk-compat-test-0123456789";

impl Adapter {
    fn spec(self) -> &'static str {
        match self {
            Adapter::OpenAi => "openai:gpt-4.1",
            Adapter::OpenAiResponses => "openai-responses:gpt-5",
            Adapter::Anthropic => "anthropic:claude-sonnet-4-5",
            Adapter::LiteLlm => "litellm:gpt-4.1",
            Adapter::OpenAiCompat => "openai-compat:qwen3",
        }
    }

    /// Fixture file prefix of the wire format.
    fn format(self) -> &'static str {
        match self {
            Adapter::OpenAiResponses => "responses",
            Adapter::Anthropic => "anthropic",
            _ => "chat",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Adapter::OpenAi | Adapter::OpenAiCompat => "/v1/chat/completions",
            Adapter::OpenAiResponses => "/v1/responses",
            Adapter::Anthropic => "/v1/messages",
            Adapter::LiteLlm => "/chat/completions",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Adapter::OpenAi | Adapter::OpenAiResponses => OPENAI_KEY,
            Adapter::Anthropic => ANTHROPIC_KEY,
            Adapter::LiteLlm => LITELLM_KEY,
            Adapter::OpenAiCompat => COMPAT_KEY,
        }
    }

    fn build(self, server: &Loopback, stream: bool) -> Arc<dyn ProviderAdapter> {
        let base = match self {
            Adapter::OpenAi | Adapter::OpenAiResponses | Adapter::OpenAiCompat => {
                format!("{}/v1", server.base_url)
            }
            _ => server.base_url.clone(),
        };
        let options = AdapterOptions {
            base_url: Some(base),
            api_key: (self == Adapter::OpenAiCompat)
                .then(|| wink_providers::ApiKey::new(COMPAT_KEY)),
            stream,
            timeouts: Some(Timeouts {
                connect: Duration::from_secs(5),
                first_byte: Duration::from_secs(10),
                total: Duration::from_secs(30),
            }),
            ..AdapterOptions::default()
        };
        let env = |name: &str| match name {
            "OPENAI_API_KEY" => Some(OPENAI_KEY.to_owned()),
            "ANTHROPIC_API_KEY" => Some(ANTHROPIC_KEY.to_owned()),
            "LITELLM_API_KEY" => Some(LITELLM_KEY.to_owned()),
            _ => None,
        };
        adapter_from_spec_with_env(self.spec(), &options, &env).unwrap()
    }

    fn assert_headers(self, request: &Recorded) {
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, self.path(), "{self:?}");
        assert_eq!(request.header("content-type"), Some("application/json"));
        match self {
            Adapter::Anthropic => {
                assert_eq!(request.header("x-api-key"), Some(ANTHROPIC_KEY));
                assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
                assert_eq!(request.header("authorization"), None);
            }
            _ => assert_eq!(
                request.header("authorization"),
                Some(format!("Bearer {}", self.key()).as_str()),
                "{self:?}"
            ),
        }
    }
}

fn file_read_parameters(strict: bool) -> Value {
    if strict {
        json!({"type": "object", "properties": {"path": {"type": "string", "description": "Relative path."}, "limit": {"type": ["integer", "null"], "minimum": 1}},
            "required": ["path", "limit"], "additionalProperties": false})
    } else {
        json!({"type": "object", "properties": {"path": {"type": "string", "description": "Relative path."}, "limit": {"type": "integer", "minimum": 1}},
            "required": ["path"]})
    }
}

fn search_parameters(strict: bool) -> Value {
    if strict {
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"], "additionalProperties": false})
    } else {
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})
    }
}

/// The exact body each adapter sends for [`simple_request`].
fn expected_body(adapter: Adapter) -> Value {
    let chat_messages = json!([{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Read a.txt"}]);
    let chat_tool = |name: &str, description: &str, parameters: Value, strict: bool| {
        let mut function =
            json!({"name": name, "description": description, "parameters": parameters});
        if strict {
            function["strict"] = json!(true);
        }
        json!({"type": "function", "function": function})
    };
    match adapter {
        Adapter::OpenAi => json!({"model": "gpt-4.1", "messages": chat_messages, "tools": [
            chat_tool("file__read", "Read a text file.", file_read_parameters(true), true),
            chat_tool("search", "Search the workspace.", search_parameters(true), true)]}),
        Adapter::LiteLlm | Adapter::OpenAiCompat => {
            let model = if adapter == Adapter::LiteLlm {
                "gpt-4.1"
            } else {
                "qwen3"
            };
            json!({"model": model, "messages": chat_messages, "tools": [
                chat_tool("file__read", "Read a text file.", file_read_parameters(false), false),
                chat_tool("search", "Search the workspace.", search_parameters(false), false)]})
        }
        Adapter::OpenAiResponses => json!({"model": "gpt-5",
            "input": [{"type": "message", "role": "system", "content": "You are terse."}, {"type": "message", "role": "user", "content": "Read a.txt"}],
            "tools": [
                {"type": "function", "name": "file__read", "description": "Read a text file.", "parameters": file_read_parameters(true), "strict": true},
                {"type": "function", "name": "search", "description": "Search the workspace.", "parameters": search_parameters(true), "strict": true}],
            "store": false}),
        Adapter::Anthropic => {
            json!({"model": "claude-sonnet-4-5", "max_tokens": 8192, "system": "You are terse.",
            "messages": [{"role": "user", "content": "Read a.txt"}],
            "tools": [
                {"name": "file__read", "description": "Read a text file.", "input_schema": file_read_parameters(false)},
                {"name": "search", "description": "Search the workspace.", "input_schema": search_parameters(false)}]})
        }
    }
}

/// The body with `stream: true` (and the usage request where the adapter sends it).
fn expected_stream_body(adapter: Adapter) -> Value {
    let mut body = expected_body(adapter);
    body["stream"] = json!(true);
    if matches!(adapter, Adapter::OpenAi | Adapter::LiteLlm) {
        body["stream_options"] = json!({"include_usage": true});
    }
    body
}

/// Runs one request against a fresh server.
async fn run(
    adapter: Adapter,
    replies: Vec<Reply>,
    stream: bool,
    request: ModelRequest,
) -> (Result<ModelTurn, ProviderError>, Vec<Recorded>) {
    let server = Loopback::start(replies).await;
    let provider = adapter.build(&server, stream);
    let result = provider.complete(&request, None).await;
    (result, server.requests())
}

fn assert_key_absent(adapter: Adapter, error: &ProviderError) {
    let text = format!("{error} {error:?}");
    assert!(
        !text.contains(adapter.key()),
        "{adapter:?} leaked its key: {text}"
    );
}

/// What every `*_text` fixture decodes to.
fn expected_text() -> ModelTurn {
    let usage = wink_session::TokenUsage {
        input_tokens: 1117,
        output_tokens: 6,
        cached_tokens: 1024,
    };
    ModelTurn {
        text: Some("The file says hello.".into()),
        usage: Some(usage),
        finish_reason: FinishReason::Stop,
        ..ModelTurn::default()
    }
}

#[tokio::test]
async fn success_sends_the_exact_request() {
    for adapter in ALL {
        let body = fixture(&format!("{}_text.json", adapter.format()));
        let (turn, requests) = run(
            adapter,
            vec![Reply::json(200, body)],
            false,
            simple_request(),
        )
        .await;
        assert_eq!(turn.unwrap(), expected_text(), "{adapter:?}");
        assert_eq!(requests.len(), 1);
        adapter.assert_headers(&requests[0]);
        assert_eq!(requests[0].json(), expected_body(adapter), "{adapter:?}");
    }
}

fn openai_calls() -> Vec<ToolCall> {
    vec![
        ToolCall {
            id: "call_Qx1vGmvJ0pzxuKqW2lBEJd5s".into(),
            name: "file.read".into(),
            arguments: ToolArguments::Text("{\"path\":\"a.txt\"}".into()),
        },
        ToolCall {
            id: "call_7YDyXm3tBq6tmAXLfC4NCPHZ".into(),
            name: "search".into(),
            arguments: ToolArguments::Text("{\"query\":\"hello world\"}".into()),
        },
    ]
}

#[tokio::test]
async fn a_traced_call_sends_its_span_as_traceparent() {
    let span: wink_session::TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        .parse()
        .unwrap();
    for adapter in ALL {
        let body = fixture(&format!("{}_text.json", adapter.format()));
        let server =
            Loopback::start(vec![Reply::json(200, body.clone()), Reply::json(200, body)]).await;
        let provider = adapter.build(&server, false);
        let request = simple_request();
        // The loop starts a traced call inside `with_traceparent`; the adapter reads it then.
        let call =
            wink_model::trace::with_traceparent(Some(span), || provider.complete(&request, None));
        assert_eq!(call.await.unwrap(), expected_text(), "{adapter:?}");
        provider.complete(&request, None).await.unwrap();
        let requests = server.requests();
        assert_eq!(
            requests[0].header("traceparent"),
            Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
            "{adapter:?}"
        );
        assert_eq!(
            requests[1].header("traceparent"),
            None,
            "{adapter:?}: untraced call"
        );
    }
}

#[tokio::test]
async fn parallel_tool_calls() {
    for adapter in ALL {
        let body = fixture(&format!("{}_tool_calls.json", adapter.format()));
        let (turn, requests) = run(
            adapter,
            vec![Reply::json(200, body)],
            false,
            simple_request(),
        )
        .await;
        let turn = turn.unwrap();
        assert_eq!(requests.len(), 1);
        assert_eq!(turn.finish_reason, FinishReason::ToolCalls, "{adapter:?}");
        let expected = match adapter {
            Adapter::Anthropic => vec![
                ToolCall {
                    id: "toolu_01A09q90qw90lq917835lq9".into(),
                    name: "file.read".into(),
                    arguments: ToolArguments::Text(r#"{"path": "a.txt"}"#.into()),
                },
                ToolCall {
                    id: "toolu_01B5kq2mZx8Yv7Wn4Tr3Ps1".into(),
                    name: "search".into(),
                    arguments: ToolArguments::Text(r#"{"query": "hello world"}"#.into()),
                },
            ],
            // Non-strict adapters keep the model's text as sent (`limit: null` included).
            Adapter::LiteLlm | Adapter::OpenAiCompat => {
                let mut calls = openai_calls();
                calls[0].arguments =
                    ToolArguments::Text("{\"path\":\"a.txt\",\"limit\":null}".into());
                calls
            }
            _ => openai_calls(),
        };
        assert_eq!(turn.tool_calls, expected, "{adapter:?}");
    }
}

#[tokio::test]
async fn structured_output() {
    for adapter in ALL {
        let body = fixture(&format!("{}_structured.json", adapter.format()));
        let request = ModelRequest {
            output: Some(review_output()),
            ..simple_request()
        };
        let (turn, requests) = run(adapter, vec![Reply::json(200, body)], false, request).await;
        assert_eq!(
            turn.unwrap().output,
            Some(json!({"verdict": "approve", "score": 4})),
            "{adapter:?}"
        );
        let sent = requests[0].json();
        let schema = json!({"type": "object", "properties": {"verdict": {"type": "string", "enum": ["approve", "reject"]}, "score": {"type": "integer"}},
            "additionalProperties": false, "required": ["verdict", "score"]});
        match adapter {
            Adapter::OpenAi => assert_eq!(
                sent["response_format"],
                json!({"type": "json_schema", "json_schema": {"name": "review_schema", "schema": schema, "strict": true}})
            ),
            Adapter::LiteLlm | Adapter::OpenAiCompat => {
                assert_eq!(
                    sent["response_format"],
                    json!({"type": "json_schema", "json_schema": {"name": "review_schema", "schema": schema}})
                );
            }
            Adapter::OpenAiResponses => {
                assert_eq!(
                    sent["text"],
                    json!({"format": {"type": "json_schema", "name": "review_schema", "schema": schema, "strict": true}})
                );
            }
            Adapter::Anthropic => assert_eq!(
                sent["output_config"],
                json!({"format": {"type": "json_schema", "schema": schema}})
            ),
        }
    }
}

#[tokio::test]
async fn rate_limited_then_success_honours_retry_after() {
    let tasks: Vec<_> = ALL
        .into_iter()
        .map(|adapter| {
            tokio::spawn(async move {
                let limited = Reply::json(
                    429,
                    r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
                )
                .header("retry-after", "1");
                let body = fixture(&format!("{}_text.json", adapter.format()));
                let (turn, requests) = run(
                    adapter,
                    vec![limited, Reply::json(200, body)],
                    false,
                    simple_request(),
                )
                .await;
                assert_eq!(turn.unwrap(), expected_text(), "{adapter:?}");
                assert_eq!(requests.len(), 2, "{adapter:?}");
                let waited = requests[1].at.duration_since(requests[0].at);
                assert!(
                    waited >= Duration::from_secs(1),
                    "{adapter:?} retried after {waited:?}"
                );
                assert!(
                    waited < Duration::from_secs(3),
                    "{adapter:?} retried after {waited:?}"
                );
                assert_eq!(requests[0].body, requests[1].body);
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
}

#[tokio::test]
async fn huge_retry_after_fails_the_call_at_once_without_panicking() {
    for adapter in ALL {
        for (header, value) in [
            ("retry-after", "1e20"),
            ("retry-after", "18446744073709551616"),
            ("retry-after-ms", "1e30"),
        ] {
            let limited = Reply::json(
                429,
                r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
            )
            .header(header, value);
            let (turn, requests) = run(adapter, vec![limited], false, simple_request()).await;
            let error = turn.unwrap_err();
            assert_eq!(requests.len(), 1, "{adapter:?} {header}: {value}");
            assert_eq!(
                error.kind,
                ProviderErrorKind::RateLimited(Some(wink_providers::RETRY_AFTER_CAP)),
                "{adapter:?} {header}: {value}"
            );
        }
    }
}

#[tokio::test]
async fn server_error_then_success() {
    for adapter in ALL {
        let failing = Reply::json(
            500,
            r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}"#,
        );
        let body = fixture(&format!("{}_text.json", adapter.format()));
        let (turn, requests) = run(
            adapter,
            vec![failing, Reply::json(200, body)],
            false,
            simple_request(),
        )
        .await;
        assert_eq!(turn.unwrap(), expected_text(), "{adapter:?}");
        assert_eq!(requests.len(), 2, "{adapter:?}");
    }
}

#[tokio::test]
async fn persistent_server_errors_give_up_after_max_attempts() {
    let server = Loopback::start(vec![
        Reply::json(503, "{}"),
        Reply::json(503, "{}"),
        Reply::json(503, "{\"error\":\"still down\"}"),
    ])
    .await;
    let error = Adapter::OpenAi
        .build(&server, false)
        .complete(&simple_request(), None)
        .await
        .unwrap_err();
    assert_eq!(server.requests().len(), 3);
    assert_eq!(error.kind, ProviderErrorKind::Status(503));
    assert_eq!(error.message, "HTTP 503 Service Unavailable: still down");
    assert_eq!(error.provider, "openai");
    assert_eq!(error.model, "gpt-4.1");
}

#[tokio::test]
async fn client_errors_are_not_retried_and_never_show_the_key() {
    for adapter in ALL {
        let echo = format!(
            r#"{{"error":{{"message":"Incorrect API key provided: {}.","type":"invalid_request_error"}}}}"#,
            adapter.key()
        );
        let (turn, requests) = run(
            adapter,
            vec![Reply::json(401, echo)],
            false,
            simple_request(),
        )
        .await;
        let error = turn.unwrap_err();
        assert_eq!(requests.len(), 1, "{adapter:?}");
        assert_eq!(error.kind, ProviderErrorKind::Status(401));
        assert_eq!(
            error.message,
            "HTTP 401 Unauthorized: invalid_request_error: Incorrect API key provided: [REDACTED]."
        );
        assert_eq!(
            error.raw_body.as_deref(),
            Some(
                r#"{"error":{"message":"Incorrect API key provided: [REDACTED].","type":"invalid_request_error"}}"#
            )
        );
        assert_key_absent(adapter, &error);
        assert!(
            !format!("{:?}", adapter.build(&Loopback::start(vec![]).await, false))
                .contains(adapter.key())
        );
    }
}

#[tokio::test]
async fn malformed_body_error_carries_the_raw_body() {
    for adapter in ALL {
        let (turn, requests) = run(
            adapter,
            vec![Reply::json(200, "{\"choices\": [tru")],
            false,
            simple_request(),
        )
        .await;
        let error = turn.unwrap_err();
        assert_eq!(requests.len(), 1);
        assert_eq!(error.kind, ProviderErrorKind::Decode, "{adapter:?}");
        assert_eq!(error.raw_body.as_deref(), Some("{\"choices\": [tru"));
        assert_key_absent(adapter, &error);
    }
}

#[derive(Default)]
struct Recorder(Mutex<Vec<StreamDelta>>);

impl StreamSink for Recorder {
    fn on_delta(&self, delta: &StreamDelta) {
        self.0.lock().unwrap().push(delta.clone());
    }
}

#[tokio::test]
async fn streamed_text_and_tool_calls() {
    for adapter in ALL {
        let text = Reply::sse(fixture(&format!("{}_stream_text.sse", adapter.format())));
        let tools = Reply::sse(fixture(&format!("{}_stream_tools.sse", adapter.format())));
        let server = Loopback::start(vec![text, tools]).await;
        let provider = adapter.build(&server, true);
        let recorder = Recorder::default();
        let turn = provider
            .complete(&simple_request(), Some(&recorder))
            .await
            .unwrap();
        assert_eq!(turn, expected_text(), "{adapter:?}");
        assert_eq!(
            recorder.0.lock().unwrap().clone(),
            vec![
                StreamDelta::Text {
                    text: "The file".into()
                },
                StreamDelta::Text {
                    text: " says hello.".into()
                }
            ]
        );
        let turn = provider.complete(&simple_request(), None).await.unwrap();
        assert_eq!(turn.tool_calls.len(), 2, "{adapter:?}");
        assert_eq!(turn.tool_calls[0].name, "file.read");
        assert_eq!(turn.tool_calls[1].name, "search");
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        adapter.assert_headers(&requests[0]);
        assert_eq!(requests[0].header("accept"), Some("text/event-stream"));
        assert_eq!(
            requests[0].json(),
            expected_stream_body(adapter),
            "{adapter:?}"
        );
    }
}

#[tokio::test]
async fn truncated_stream_is_an_error_and_not_retried() {
    for adapter in ALL {
        // The server closes the connection before the end event...
        let cut = Reply::sse(fixture(&format!(
            "{}_stream_truncated.sse",
            adapter.format()
        )));
        let (turn, requests) = run(adapter, vec![cut], true, simple_request()).await;
        assert_eq!(
            turn.unwrap_err().kind,
            ProviderErrorKind::TruncatedStream,
            "{adapter:?}"
        );
        assert_eq!(requests.len(), 1);
        // ... or announces more bytes than it sends.
        let mut broken = Reply::sse(fixture(&format!(
            "{}_stream_truncated.sse",
            adapter.format()
        )));
        broken.declared_length = Some(broken.body.len() + 500);
        let (turn, requests) = run(adapter, vec![broken], true, simple_request()).await;
        let error = turn.unwrap_err();
        assert_eq!(
            error.kind,
            ProviderErrorKind::TruncatedStream,
            "{adapter:?}: {error}"
        );
        assert_eq!(requests.len(), 1);
    }
}

#[tokio::test]
async fn json_answer_to_a_streamed_request_is_decoded_whole() {
    let server = Loopback::start(vec![Reply::json(200, fixture("chat_text.json"))]).await;
    let turn = Adapter::OpenAiCompat
        .build(&server, true)
        .complete(&simple_request(), None)
        .await
        .unwrap();
    assert_eq!(turn, expected_text());
}

#[tokio::test]
async fn first_byte_timeout_is_retried_then_reported() {
    // A listener that accepts and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let held = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&held);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            keep.lock().unwrap().push(socket);
        }
    });
    let options = AdapterOptions {
        base_url: Some(format!("http://{address}/v1")),
        api_key: Some(wink_providers::ApiKey::new("k")),
        timeouts: Some(Timeouts {
            connect: Duration::from_secs(1),
            first_byte: Duration::from_millis(200),
            total: Duration::from_secs(5),
        }),
        max_retries: Some(1),
        ..AdapterOptions::default()
    };
    let provider = adapter_from_spec_with_env("openai-compat:m", &options, &|_| None).unwrap();
    let error = provider
        .complete(&simple_request(), None)
        .await
        .unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Timeout);
    assert_eq!(error.message, "No response within 200ms.");
    assert_eq!(held.lock().unwrap().len(), 2, "one retry");
}

#[tokio::test]
async fn connection_refused_is_a_connection_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let options = AdapterOptions {
        base_url: Some(format!("http://{address}")),
        max_retries: Some(0),
        ..AdapterOptions::default()
    };
    let provider = adapter_from_spec_with_env("litellm:m", &options, &|_| None).unwrap();
    let error = provider
        .complete(&simple_request(), None)
        .await
        .unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Connection);
    assert!(
        error.message.starts_with("Request failed: "),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn cancellation_token_stops_a_call() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let token = wink_providers::CancellationToken::new();
    let options = AdapterOptions {
        base_url: Some(format!("http://{address}")),
        cancel: Some(token.clone()),
        ..AdapterOptions::default()
    };
    let provider = adapter_from_spec_with_env("litellm:m", &options, &|_| None).unwrap();
    let cancel = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        token.cancel();
    });
    let error = provider
        .complete(&simple_request(), None)
        .await
        .unwrap_err();
    cancel.await.unwrap();
    assert_eq!(error.kind, ProviderErrorKind::Cancelled);
}

#[tokio::test]
async fn litellm_speaks_anthropic_messages_when_asked() {
    for stream in [false, true] {
        let reply = if stream {
            Reply::sse(fixture("anthropic_stream_text.sse"))
        } else {
            Reply::json(200, fixture("anthropic_text.json"))
        };
        let server = Loopback::start(vec![reply]).await;
        let options = AdapterOptions {
            base_url: Some(server.base_url.clone()),
            litellm_format: Some(WireFormat::AnthropicMessages),
            stream,
            ..AdapterOptions::default()
        };
        let env = |name: &str| (name == "LITELLM_API_KEY").then(|| LITELLM_KEY.to_owned());
        let provider =
            adapter_from_spec_with_env("litellm:claude-sonnet-4-5", &options, &env).unwrap();
        assert_eq!(provider.name(), "litellm");
        let turn = provider.complete(&simple_request(), None).await.unwrap();
        assert_eq!(turn, expected_text(), "stream={stream}");
        let requests = server.requests();
        assert_eq!(requests.len(), 1);
        let request = &requests[0];
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {LITELLM_KEY}").as_str())
        );
        assert_eq!(request.header("x-api-key"), None);
        assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
        let expected = if stream {
            expected_stream_body(Adapter::Anthropic)
        } else {
            expected_body(Adapter::Anthropic)
        };
        assert_eq!(request.json(), expected, "stream={stream}");
    }
}

#[tokio::test]
async fn anthropic_base_url_comes_from_the_environment() {
    let server = Loopback::start(vec![Reply::json(200, fixture("anthropic_text.json"))]).await;
    let base = server.base_url.clone();
    let env = move |name: &str| match name {
        "ANTHROPIC_API_KEY" => Some(ANTHROPIC_KEY.to_owned()),
        "ANTHROPIC_BASE_URL" => Some(base.clone()),
        _ => None,
    };
    let provider = adapter_from_spec_with_env(
        "anthropic:claude-sonnet-4-5",
        &AdapterOptions::default(),
        &env,
    )
    .unwrap();
    let turn = provider.complete(&simple_request(), None).await.unwrap();
    assert_eq!(turn, expected_text());
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    Adapter::Anthropic.assert_headers(&requests[0]);
    assert_eq!(requests[0].json(), expected_body(Adapter::Anthropic));
}

#[tokio::test]
async fn openai_compat_sends_an_optional_key_and_never_shows_it() {
    let key = "sk-compat-env-5555";
    for (options_key_env, env_pairs) in [
        (None, vec![("OPENAI_COMPAT_API_KEY", key)]),
        (
            Some("LOCAL_LLM_KEY"),
            vec![("LOCAL_LLM_KEY", key), ("OPENAI_COMPAT_API_KEY", "other")],
        ),
    ] {
        let server = Loopback::start(vec![
            Reply::json(200, fixture("chat_text.json")),
            Reply::json(401, format!("{{\"error\":{{\"message\":\"Incorrect API key provided: {key}\",\"type\":\"invalid_request_error\"}}}}")),
        ])
        .await;
        let options = AdapterOptions {
            base_url: Some(format!("{}/v1", server.base_url)),
            api_key_env: options_key_env.map(str::to_owned),
            max_retries: Some(0),
            ..AdapterOptions::default()
        };
        let env = move |name: &str| {
            env_pairs
                .iter()
                .find(|(variable, _)| *variable == name)
                .map(|(_, value)| (*value).to_owned())
        };
        let provider = adapter_from_spec_with_env("openai-compat:qwen3", &options, &env).unwrap();
        let turn = provider.complete(&simple_request(), None).await.unwrap();
        assert_eq!(turn, expected_text());
        let error = provider
            .complete(&simple_request(), None)
            .await
            .unwrap_err();
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        for request in &requests {
            assert_eq!(
                request.header("authorization"),
                Some(format!("Bearer {key}").as_str())
            );
        }
        assert_eq!(requests[0].json(), expected_body(Adapter::OpenAiCompat));
        assert_eq!(error.kind, ProviderErrorKind::Status(401));
        assert_eq!(
            error.message,
            "HTTP 401 Unauthorized: invalid_request_error: Incorrect API key provided: [REDACTED]"
        );
        let shown = format!("{provider:?} {error} {error:?}");
        assert!(!shown.contains(key), "{shown}");
        assert!(shown.contains("ApiKey([REDACTED])"), "{shown}");
    }
}

/// Resolves every host to 127.0.0.2 (nothing listens there: refused) for the first `refused`
/// lookups, then to 127.0.0.1; counts the lookups (one per attempt).
#[derive(Debug)]
struct FlakyResolver {
    refused: usize,
    lookups: Arc<Mutex<usize>>,
}

impl reqwest::dns::Resolve for FlakyResolver {
    fn resolve(&self, _name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let mut lookups = self.lookups.lock().unwrap();
        *lookups += 1;
        let host = if *lookups <= self.refused {
            [127, 0, 0, 2]
        } else {
            [127, 0, 0, 1]
        };
        let address = std::net::SocketAddr::from((host, 0));
        Box::pin(async move {
            let addresses: reqwest::dns::Addrs = Box::new(std::iter::once(address));
            Ok(addresses)
        })
    }
}

#[tokio::test]
async fn refused_connections_are_retried() {
    for (retries, refused) in [(2, 2), (1, 2), (0, 1)] {
        let server = Loopback::start(vec![Reply::json(200, fixture("chat_text.json"))]).await;
        let port = server.base_url.rsplit(':').next().unwrap().to_owned();
        let lookups = Arc::new(Mutex::new(0));
        wink_providers::install_crypto_provider();
        let client = reqwest::Client::builder()
            .dns_resolver(FlakyResolver {
                refused,
                lookups: Arc::clone(&lookups),
            })
            .build()
            .unwrap();
        let options = AdapterOptions {
            base_url: Some(format!("http://model-host.test:{port}/v1")),
            max_retries: Some(retries),
            client: Some(client),
            ..AdapterOptions::default()
        };
        let provider =
            adapter_from_spec_with_env("openai-compat:qwen3", &options, &|_| None).unwrap();
        let result = provider.complete(&simple_request(), None).await;
        let attempts = *lookups.lock().unwrap();
        if retries >= refused as u32 {
            assert_eq!(result.unwrap(), expected_text());
            assert_eq!(attempts, refused + 1, "retries={retries}");
            assert_eq!(server.requests().len(), 1);
        } else {
            let error = result.unwrap_err();
            assert_eq!(
                error.kind,
                ProviderErrorKind::Connection,
                "retries={retries}"
            );
            assert!(
                error.message.starts_with("Request failed: "),
                "{}",
                error.message
            );
            assert_eq!(attempts, retries as usize + 1, "retries={retries}");
            assert!(server.requests().is_empty());
        }
    }
}

/// A catalog in native mode: `find_tool` searches, `search` is deferred.
fn native_request() -> ModelRequest {
    let mut request = simple_request();
    request.tools.push(wink_model::ToolSpec {
        name: "find_tool".into(),
        description: "Search the tool catalog.".into(),
        parameters: json!({"type": "object", "properties": {"purpose": {"type": "string"}}, "required": ["purpose"]}),
    });
    request
}

#[tokio::test]
async fn responses_tool_search_round_trip() {
    let server = Loopback::start(vec![
        Reply::json(200, fixture("responses_tool_search.json")),
        Reply::json(200, fixture("responses_text.json")),
    ])
    .await;
    let options = AdapterOptions {
        base_url: Some(format!("{}/v1", server.base_url)),
        deferred_tools: Some(DeferredTools::new(["search".to_owned()], "find_tool")),
        ..AdapterOptions::default()
    };
    let env = |name: &str| (name == "OPENAI_API_KEY").then(|| OPENAI_KEY.to_owned());
    let provider = adapter_from_spec_with_env("openai-responses:gpt-5.4", &options, &env).unwrap();
    let mut request = native_request();
    let turn = provider.complete(&request, None).await.unwrap();
    let search_call = ToolCall {
        id: "call_S".into(),
        name: "find_tool".into(),
        arguments: ToolArguments::Json(json!({"query": "current weather"})),
    };
    assert_eq!(turn.tool_calls[0], search_call);
    assert_eq!(turn.tool_calls[1].name, "file.read");
    request.messages.push(wink_model::Message::Assistant {
        content: None,
        tool_calls: turn.tool_calls.clone(),
    });
    request.messages.push(wink_model::Message::Tool {
        tool_call_id: "call_S".into(),
        name: "find_tool".into(),
        content: "Tools for \"current weather\", best first:\n- search: Search the workspace."
            .into(),
        is_error: false,
        images: Vec::new(),
    });
    request.messages.push(wink_model::Message::Tool {
        tool_call_id: "call_T".into(),
        name: "file.read".into(),
        content: "hello".into(),
        is_error: false,
        images: Vec::new(),
    });
    let turn = provider.complete(&request, None).await.unwrap();
    assert_eq!(turn, expected_text());
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let find_parameters = json!({"type": "object", "properties": {"purpose": {"type": "string"}}, "required": ["purpose"], "additionalProperties": false});
    let tools = json!([
        {"type": "function", "name": "file__read", "description": "Read a text file.", "parameters": file_read_parameters(true), "strict": true},
        {"type": "function", "name": "search", "description": "Search the workspace.", "parameters": search_parameters(true), "strict": true, "defer_loading": true},
        {"type": "tool_search", "execution": "client", "description": "Search the tool catalog.", "parameters": find_parameters}
    ]);
    assert_eq!(requests[0].json()["tools"], tools);
    assert_eq!(
        requests[1].json(),
        json!({"model": "gpt-5.4", "input": [
            {"type": "message", "role": "system", "content": "You are terse."},
            {"type": "message", "role": "user", "content": "Read a.txt"},
            {"type": "tool_search_call", "call_id": "call_S", "execution": "client", "arguments": {"query": "current weather"}, "status": "completed"},
            {"type": "function_call", "call_id": "call_T", "name": "file__read", "arguments": "{\"path\":\"b.txt\"}"},
            {"type": "tool_search_output", "call_id": "call_S", "execution": "client", "tools": [
                {"type": "function", "name": "search", "description": "Search the workspace.", "parameters": search_parameters(true), "strict": true}
            ]},
            {"type": "function_call_output", "call_id": "call_T", "output": "hello"}
        ], "tools": tools, "store": false})
    );
}

#[tokio::test]
async fn a_streamed_line_without_a_line_break_is_cut_at_the_limit() {
    for adapter in ALL {
        let mut body = b"data: ".to_vec();
        body.resize(wink_providers::MAX_SSE_LINE_BYTES + 1024, b'x');
        let (turn, _) = run(adapter, vec![Reply::sse(body)], true, simple_request()).await;
        let error = turn.unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Other, "{adapter:?}");
        assert_eq!(
            error.message,
            "The event stream sent a line longer than 16777216 bytes without a line break; the stream was stopped.",
            "{adapter:?}"
        );
    }
}
