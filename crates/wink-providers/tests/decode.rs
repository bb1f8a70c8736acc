//! Response bodies and SSE streams from recorded fixtures, per wire format.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Mutex;

use common::{fixture, review_output, simple_request};
use serde_json::json;
use wink_core::{ToolArguments, ToolCall};
use wink_model::{
    FinishReason, ModelRequest, ModelTurn, ProviderError, ProviderErrorKind, StreamDelta,
    StreamSink,
};
use wink_providers::{
    AdapterConfig, DeferredTools, RequestMapping, SseParser, StreamDecoder, anthropic, openai_chat,
    openai_responses,
};
use wink_session::TokenUsage;

#[derive(Default)]
struct Recorder(Mutex<Vec<StreamDelta>>);

impl StreamSink for Recorder {
    fn on_delta(&self, delta: &StreamDelta) {
        self.0.lock().unwrap().push(delta.clone());
    }
}

#[derive(Clone, Copy)]
enum Format {
    Chat,
    Responses,
    Anthropic,
}

fn config(format: Format) -> AdapterConfig {
    match format {
        Format::Chat => AdapterConfig::openai("gpt-4.1"),
        Format::Responses => AdapterConfig::openai_responses("gpt-4.1"),
        Format::Anthropic => AdapterConfig::anthropic("claude-sonnet-4-5"),
    }
}

fn decode(format: Format, request: &ModelRequest, body: &[u8]) -> Result<ModelTurn, ProviderError> {
    let config = config(format);
    let mapping = RequestMapping::new(request, &config).unwrap();
    match format {
        Format::Chat => openai_chat::decode_response(body, &mapping, &config),
        Format::Responses => openai_responses::decode_response(body, &mapping, &config),
        Format::Anthropic => anthropic::decode_response(body, &mapping, &config),
    }
}

/// Feeds `bytes` in chunks of `chunk` bytes.
fn stream(
    format: Format,
    request: &ModelRequest,
    bytes: &[u8],
    chunk: usize,
) -> (Result<ModelTurn, ProviderError>, Vec<StreamDelta>) {
    let config = config(format);
    let mapping = RequestMapping::new(request, &config).unwrap();
    let mut decoder: Box<dyn StreamDecoder> = match format {
        Format::Chat => Box::new(openai_chat::ChatStream::new(mapping, config)),
        Format::Responses => Box::new(openai_responses::ResponsesStream::new(mapping, config)),
        Format::Anthropic => Box::new(anthropic::MessagesStream::new(mapping, config)),
    };
    let recorder = Recorder::default();
    let mut parser = SseParser::new();
    for piece in bytes.chunks(chunk) {
        for event in parser.push(piece) {
            if let Err(error) = decoder.on_event(&event, Some(&recorder)) {
                return (Err(error), recorder.0.into_inner().unwrap());
            }
        }
    }
    (decoder.finish(), recorder.0.into_inner().unwrap())
}

fn text_turn(usage: TokenUsage) -> ModelTurn {
    ModelTurn {
        text: Some("The file says hello.".into()),
        usage: Some(usage),
        finish_reason: FinishReason::Stop,
        ..ModelTurn::default()
    }
}

const OPENAI_TEXT_USAGE: TokenUsage = TokenUsage {
    input_tokens: 1117,
    output_tokens: 6,
    cached_tokens: 1024,
};
const ANTHROPIC_TEXT_USAGE: TokenUsage = TokenUsage {
    input_tokens: 1117,
    output_tokens: 6,
    cached_tokens: 1024,
};

fn openai_calls() -> Vec<ToolCall> {
    vec![
        // `limit: null` (strict mode's stand-in for "absent") is stripped.
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

#[test]
fn chat_text() {
    assert_eq!(
        decode(Format::Chat, &simple_request(), &fixture("chat_text.json")).unwrap(),
        text_turn(OPENAI_TEXT_USAGE)
    );
}

#[test]
fn chat_parallel_tool_calls_come_back_canonical() {
    let turn = decode(
        Format::Chat,
        &simple_request(),
        &fixture("chat_tool_calls.json"),
    )
    .unwrap();
    assert_eq!(
        turn,
        ModelTurn {
            text: None,
            tool_calls: openai_calls(),
            usage: Some(TokenUsage {
                input_tokens: 310,
                output_tokens: 52,
                cached_tokens: 0
            }),
            finish_reason: FinishReason::ToolCalls,
            output: None,
        }
    );
}

#[test]
fn structured_output_is_parsed_per_format() {
    let request = ModelRequest {
        output: Some(review_output()),
        ..simple_request()
    };
    for (format, name) in [
        (Format::Chat, "chat_structured.json"),
        (Format::Responses, "responses_structured.json"),
        (Format::Anthropic, "anthropic_structured.json"),
    ] {
        let turn = decode(format, &request, &fixture(name)).unwrap();
        assert_eq!(
            turn.output,
            Some(json!({"verdict": "approve", "score": 4})),
            "{name}"
        );
        assert_eq!(
            turn.text.as_deref(),
            Some("{\"verdict\":\"approve\",\"score\":4}"),
            "{name}"
        );
    }
    // Without an output declaration the text stays text.
    assert_eq!(
        decode(
            Format::Chat,
            &simple_request(),
            &fixture("chat_structured.json")
        )
        .unwrap()
        .output,
        None
    );
}

#[test]
fn responses_text_and_tool_calls() {
    assert_eq!(
        decode(
            Format::Responses,
            &simple_request(),
            &fixture("responses_text.json")
        )
        .unwrap(),
        text_turn(OPENAI_TEXT_USAGE)
    );
    let turn = decode(
        Format::Responses,
        &simple_request(),
        &fixture("responses_tool_calls.json"),
    )
    .unwrap();
    assert_eq!(turn.tool_calls, openai_calls());
    assert_eq!(turn.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        turn.usage,
        Some(TokenUsage {
            input_tokens: 310,
            output_tokens: 180,
            cached_tokens: 128
        })
    );
}

#[test]
fn anthropic_text_and_tool_calls() {
    let text = decode(
        Format::Anthropic,
        &simple_request(),
        &fixture("anthropic_text.json"),
    )
    .unwrap();
    assert_eq!(text, text_turn(ANTHROPIC_TEXT_USAGE));
    let turn = decode(
        Format::Anthropic,
        &simple_request(),
        &fixture("anthropic_tool_calls.json"),
    )
    .unwrap();
    assert_eq!(
        turn,
        ModelTurn {
            text: Some("I'll read the file and search at the same time.".into()),
            tool_calls: vec![
                ToolCall {
                    id: "toolu_01A09q90qw90lq917835lq9".into(),
                    name: "file.read".into(),
                    // The input as written: the executor parses it strictly.
                    arguments: ToolArguments::Text(r#"{"path": "a.txt"}"#.into())
                },
                ToolCall {
                    id: "toolu_01B5kq2mZx8Yv7Wn4Tr3Ps1".into(),
                    name: "search".into(),
                    arguments: ToolArguments::Text(r#"{"query": "hello world"}"#.into())
                },
            ],
            usage: Some(TokenUsage {
                input_tokens: 510,
                output_tokens: 96,
                cached_tokens: 0
            }),
            finish_reason: FinishReason::ToolCalls,
            output: None,
        }
    );
}

#[test]
fn an_anthropic_input_with_a_key_twice_or_a_huge_integer_is_refused_by_the_executor() {
    let body = br#"{"type": "message", "role": "assistant", "stop_reason": "tool_use",
        "content": [{"type": "tool_use", "id": "t1", "name": "search", "input": {"query": "a", "query": "b"}},
                    {"type": "tool_use", "id": "t2", "name": "search", "input": {"n": 123456789012345678901234567890}}],
        "usage": {"input_tokens": 1, "output_tokens": 1}}"#;
    let turn = decode(Format::Anthropic, &simple_request(), body).unwrap();
    let raw: Vec<&str> = turn
        .tool_calls
        .iter()
        .map(|c| match &c.arguments {
            ToolArguments::Text(raw) => raw.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        raw,
        [
            r#"{"query": "a", "query": "b"}"#,
            r#"{"n": 123456789012345678901234567890}"#
        ]
    );
    assert_eq!(
        wink_schema::parse_strict_json(raw[0])
            .unwrap_err()
            .to_string(),
        "duplicate key 'query'"
    );
    assert_eq!(
        wink_schema::parse_strict_json(raw[1])
            .unwrap_err()
            .to_string(),
        "the integer 123456789012345678901234567890 does not fit in 64 bits"
    );
}

#[test]
fn malformed_bodies_are_decode_errors_with_the_body() {
    for format in [Format::Chat, Format::Responses, Format::Anthropic] {
        let error = decode(format, &simple_request(), b"<html>bad gateway</html>").unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Decode);
        assert_eq!(error.raw_body.as_deref(), Some("<html>bad gateway</html>"));
        assert!(
            error.message.starts_with("Response body is not JSON: "),
            "{}",
            error.message
        );
        let error = decode(format, &simple_request(), b"{\"unexpected\": true}").unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Decode);
        assert_eq!(error.raw_body.as_deref(), Some("{\"unexpected\": true}"));
    }
}

#[test]
fn error_bodies_carry_the_provider_message() {
    let body = br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let error = decode(Format::Anthropic, &simple_request(), body).unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Status(529));
    assert_eq!(error.message, "overloaded_error: Overloaded");
}

#[test]
fn refusals_and_length() {
    let body = br#"{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}"#;
    let turn = decode(Format::Chat, &simple_request(), body).unwrap();
    assert_eq!(turn.text.as_deref(), Some("I can't help with that."));
    assert_eq!(turn.finish_reason, FinishReason::Other("refusal".into()));
    let body = br#"{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Part"}]}]}"#;
    assert_eq!(
        decode(Format::Responses, &simple_request(), body)
            .unwrap()
            .finish_reason,
        FinishReason::Length
    );
    let body = br#"{"type":"message","content":[{"type":"text","text":"Part"}],"stop_reason":"max_tokens"}"#;
    assert_eq!(
        decode(Format::Anthropic, &simple_request(), body)
            .unwrap()
            .finish_reason,
        FinishReason::Length
    );
}

fn text_deltas() -> Vec<StreamDelta> {
    vec![
        StreamDelta::Text {
            text: "The file".into(),
        },
        StreamDelta::Text {
            text: " says hello.".into(),
        },
    ]
}

#[test]
fn streamed_text_in_any_chunking() {
    for (format, name, usage) in [
        (Format::Chat, "chat_stream_text.sse", OPENAI_TEXT_USAGE),
        (
            Format::Responses,
            "responses_stream_text.sse",
            OPENAI_TEXT_USAGE,
        ),
        (
            Format::Anthropic,
            "anthropic_stream_text.sse",
            ANTHROPIC_TEXT_USAGE,
        ),
    ] {
        let bytes = fixture(name);
        for chunk in [1, 7, 64, bytes.len()] {
            let (turn, deltas) = stream(format, &simple_request(), &bytes, chunk);
            assert_eq!(
                turn.unwrap(),
                text_turn(usage),
                "{name} in chunks of {chunk}"
            );
            assert_eq!(deltas, text_deltas(), "{name} in chunks of {chunk}");
        }
    }
}

#[test]
fn chat_streamed_parallel_tool_calls_by_index() {
    let (turn, deltas) = stream(
        Format::Chat,
        &simple_request(),
        &fixture("chat_stream_tools.sse"),
        13,
    );
    let turn = turn.unwrap();
    assert_eq!(
        turn.tool_calls,
        vec![
            ToolCall {
                id: "call_A".into(),
                name: "file.read".into(),
                arguments: ToolArguments::Text("{\"path\":\"a.txt\"}".into())
            },
            ToolCall {
                id: "call_B".into(),
                name: "search".into(),
                arguments: ToolArguments::Text("{\"query\":\"hello world\"}".into())
            },
        ]
    );
    assert_eq!(turn.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        turn.usage,
        Some(TokenUsage {
            input_tokens: 310,
            output_tokens: 52,
            cached_tokens: 0
        })
    );
    assert_eq!(
        deltas,
        vec![
            StreamDelta::ToolCallStart {
                index: 0,
                id: "call_A".into(),
                name: "file.read".into()
            },
            StreamDelta::ToolCallArguments {
                index: 0,
                fragment: "{\"path\":".into()
            },
            StreamDelta::ToolCallStart {
                index: 1,
                id: "call_B".into(),
                name: "search".into()
            },
            StreamDelta::ToolCallArguments {
                index: 1,
                fragment: "{\"query\":\"hel".into()
            },
            StreamDelta::ToolCallArguments {
                index: 0,
                fragment: "\"a.txt\",\"limit\":null}".into()
            },
            StreamDelta::ToolCallArguments {
                index: 1,
                fragment: "lo world\"}".into()
            },
        ]
    );
}

#[test]
fn responses_streamed_parallel_tool_calls() {
    let (turn, deltas) = stream(
        Format::Responses,
        &simple_request(),
        &fixture("responses_stream_tools.sse"),
        29,
    );
    let turn = turn.unwrap();
    assert_eq!(
        turn.tool_calls,
        vec![
            ToolCall {
                id: "call_A".into(),
                name: "file.read".into(),
                arguments: ToolArguments::Text("{\"path\":\"a.txt\"}".into())
            },
            ToolCall {
                id: "call_B".into(),
                name: "search".into(),
                arguments: ToolArguments::Text("{\"query\":\"hello world\"}".into())
            },
        ]
    );
    assert_eq!(turn.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        turn.usage,
        Some(TokenUsage {
            input_tokens: 310,
            output_tokens: 180,
            cached_tokens: 128
        })
    );
    assert_eq!(deltas.len(), 6);
    assert_eq!(
        deltas[2],
        StreamDelta::ToolCallStart {
            index: 1,
            id: "call_B".into(),
            name: "search".into()
        }
    );
}

#[test]
fn anthropic_streamed_tool_calls() {
    let (turn, deltas) = stream(
        Format::Anthropic,
        &simple_request(),
        &fixture("anthropic_stream_tools.sse"),
        17,
    );
    assert_eq!(
        turn.unwrap(),
        ModelTurn {
            text: Some("I will look.".into()),
            tool_calls: vec![
                ToolCall {
                    id: "toolu_A".into(),
                    name: "file.read".into(),
                    arguments: ToolArguments::Json(json!({"path": "a.txt"}))
                },
                ToolCall {
                    id: "toolu_B".into(),
                    name: "search".into(),
                    arguments: ToolArguments::Json(json!({"query": "hello world"}))
                },
            ],
            usage: Some(TokenUsage {
                input_tokens: 510,
                output_tokens: 96,
                cached_tokens: 0
            }),
            finish_reason: FinishReason::ToolCalls,
            output: None,
        }
    );
    assert_eq!(
        deltas[1],
        StreamDelta::ToolCallStart {
            index: 0,
            id: "toolu_A".into(),
            name: "file.read".into()
        }
    );
    assert_eq!(
        deltas[2],
        StreamDelta::ToolCallArguments {
            index: 0,
            fragment: "{\"path\": \"a".into()
        }
    );
}

#[test]
fn truncated_streams() {
    for (format, name) in [
        (Format::Chat, "chat_stream_truncated.sse"),
        (Format::Responses, "responses_stream_truncated.sse"),
        (Format::Anthropic, "anthropic_stream_truncated.sse"),
    ] {
        let (turn, deltas) = stream(format, &simple_request(), &fixture(name), 32);
        let error = turn.unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::TruncatedStream, "{name}");
        assert!(
            !deltas.is_empty(),
            "{name}: text before the cut was streamed"
        );
    }
}

#[test]
fn stream_error_events() {
    let body = b"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let (turn, _) = stream(Format::Anthropic, &simple_request(), body, 100);
    let error = turn.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Status(529));
    assert_eq!(error.message, "overloaded_error: Overloaded");
    let body = b"data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}\n\n";
    let error = stream(Format::Chat, &simple_request(), body, 100)
        .0
        .unwrap_err();
    assert_eq!(error.message, "server_error: The server had an error");
}

/// `find_tool` (the search) with `search` deferred, as a catalog in native mode sends them.
fn tool_search_setting() -> (ModelRequest, AdapterConfig) {
    let mut request = simple_request();
    request.tools.push(wink_model::ToolSpec {
        name: "find_tool".into(),
        description: "Search the tool catalog.".into(),
        parameters: json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
    });
    let mut config = AdapterConfig::openai_responses("gpt-5.4");
    config.deferred_tools = Some(DeferredTools::new(["search".to_owned()], "find_tool"));
    (request, config)
}

#[test]
fn responses_tool_search_call_is_a_call_of_the_search_tool() {
    let (request, deferred) = tool_search_setting();
    let mapping = RequestMapping::new(&request, &deferred).unwrap();
    let body = fixture("responses_tool_search.json");
    let turn = openai_responses::decode_response(&body, &mapping, &deferred).unwrap();
    assert_eq!(
        turn,
        ModelTurn {
            text: None,
            tool_calls: vec![
                ToolCall {
                    id: "call_S".into(),
                    name: "find_tool".into(),
                    arguments: ToolArguments::Json(json!({"query": "current weather"})),
                },
                ToolCall {
                    id: "call_T".into(),
                    name: "file.read".into(),
                    arguments: ToolArguments::Text("{\"path\":\"b.txt\"}".into()),
                },
            ],
            usage: Some(TokenUsage {
                input_tokens: 420,
                output_tokens: 31,
                cached_tokens: 256
            }),
            finish_reason: FinishReason::ToolCalls,
            output: None,
        }
    );
    // Without the deferred setting the call keeps the provider's name (the loop reports it).
    let plain = config(Format::Responses);
    let mapping = RequestMapping::new(&request, &plain).unwrap();
    let turn = openai_responses::decode_response(&body, &mapping, &plain).unwrap();
    assert_eq!(turn.tool_calls[0].name, "tool_search");
    assert_eq!(turn.tool_calls[0].id, "call_S");
}

#[test]
fn responses_streamed_tool_search_call() {
    let (request, config) = tool_search_setting();
    let bytes = fixture("responses_stream_tool_search.sse");
    for chunk in [7, 64, bytes.len()] {
        let mapping = RequestMapping::new(&request, &config).unwrap();
        let mut decoder: Box<dyn StreamDecoder> = Box::new(openai_responses::ResponsesStream::new(
            mapping,
            config.clone(),
        ));
        let recorder = Recorder::default();
        let mut parser = SseParser::new();
        for piece in bytes.chunks(chunk) {
            for event in parser.push(piece) {
                decoder.on_event(&event, Some(&recorder)).unwrap();
            }
        }
        assert!(decoder.is_complete());
        let turn = decoder.finish().unwrap();
        assert_eq!(
            turn,
            ModelTurn {
                text: None,
                tool_calls: vec![ToolCall {
                    id: "call_S".into(),
                    name: "find_tool".into(),
                    arguments: ToolArguments::Json(json!({"query": "current weather"})),
                }],
                usage: Some(TokenUsage {
                    input_tokens: 400,
                    output_tokens: 9,
                    cached_tokens: 384
                }),
                finish_reason: FinishReason::ToolCalls,
                output: None,
            },
            "chunk {chunk}"
        );
        assert_eq!(
            recorder.0.into_inner().unwrap(),
            vec![StreamDelta::ToolCallStart {
                index: 0,
                id: "call_S".into(),
                name: "find_tool".into()
            }],
            "chunk {chunk}"
        );
    }
}
