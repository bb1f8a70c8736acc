//! Request bodies per wire format, as snapshots (and exact JSON for the deferred-tools paths).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;

use common::{sample_request, sample_tools};
use serde_json::json;
use wink_core::{ToolArguments, ToolCall};
use wink_model::{Message, ModelRequest, ProviderErrorKind, ToolChoice, ToolImage, ToolSpec};
use wink_providers::{
    AdapterConfig, DeferredTools, ForcedCalls, Namespace, WireFormat, anthropic, openai_chat,
    openai_responses,
};

#[test]
fn openai_chat_request() {
    let body =
        openai_chat::encode_request(&sample_request(), &AdapterConfig::openai("gpt-4.1")).unwrap();
    insta::assert_json_snapshot!(body);
}

#[test]
fn openai_chat_streaming_request_asks_for_usage() {
    let mut config = AdapterConfig::openai("gpt-4.1");
    config.stream = true;
    let body = openai_chat::encode_request(&sample_request(), &config).unwrap();
    assert_eq!(body["stream"], json!(true));
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

#[test]
fn openai_compat_request_is_conservative() {
    let body = openai_chat::encode_request(
        &sample_request(),
        &AdapterConfig::openai_compat("qwen", "http://127.0.0.1:8080/v1"),
    )
    .unwrap();
    insta::assert_json_snapshot!(body);
}

#[test]
fn litellm_request() {
    let body = openai_chat::encode_request(
        &sample_request(),
        &AdapterConfig::litellm("gpt-4.1", WireFormat::OpenAiChat),
    )
    .unwrap();
    assert_eq!(body["max_tokens"], json!(1024));
    assert_eq!(body["tools"][0]["function"].get("strict"), None);
    assert_eq!(body["response_format"]["json_schema"].get("strict"), None);
}

#[test]
fn openai_responses_request() {
    let body = openai_responses::encode_request(
        &sample_request(),
        &AdapterConfig::openai_responses("gpt-5"),
    )
    .unwrap();
    insta::assert_json_snapshot!(body);
}

#[test]
fn anthropic_request() {
    let body = anthropic::encode_request(
        &sample_request(),
        &AdapterConfig::anthropic("claude-sonnet-4-5"),
    )
    .unwrap();
    insta::assert_json_snapshot!(body);
}

#[test]
fn tool_choice_per_format() {
    let mut request = ModelRequest {
        messages: vec![Message::user("x")],
        tools: sample_tools(),
        ..ModelRequest::default()
    };
    request.tool_choice = ToolChoice::Tool("file.read".into());
    let chat = openai_chat::encode_request(&request, &AdapterConfig::openai("m")).unwrap();
    assert_eq!(
        chat["tool_choice"],
        json!({"type": "function", "function": {"name": "file__read"}})
    );
    let responses =
        openai_responses::encode_request(&request, &AdapterConfig::openai_responses("m")).unwrap();
    assert_eq!(
        responses["tool_choice"],
        json!({"type": "function", "name": "file__read"})
    );
    let messages = anthropic::encode_request(&request, &AdapterConfig::anthropic("m")).unwrap();
    assert_eq!(
        messages["tool_choice"],
        json!({"type": "tool", "name": "file__read"})
    );
    request.tool_choice = ToolChoice::Required;
    assert_eq!(
        anthropic::encode_request(&request, &AdapterConfig::anthropic("m")).unwrap()["tool_choice"],
        json!({"type": "any"})
    );
    assert_eq!(
        openai_chat::encode_request(&request, &AdapterConfig::openai("m")).unwrap()["tool_choice"],
        json!("required")
    );
    request.tool_choice = ToolChoice::Auto;
    assert_eq!(
        openai_chat::encode_request(&request, &AdapterConfig::openai("m"))
            .unwrap()
            .get("tool_choice"),
        None
    );
}

#[test]
fn forced_calls_as_a_response_schema() {
    let mut config = AdapterConfig::openai_compat("m", "http://127.0.0.1:1/v1");
    config.forced_calls = ForcedCalls::ResponseSchema;
    let mut request = ModelRequest {
        messages: vec![Message::user("x")],
        tools: sample_tools(),
        tool_choice: ToolChoice::Tool("search".into()),
        ..ModelRequest::default()
    };
    let body = openai_chat::encode_request(&request, &config).unwrap();
    let parameters = |index: usize| body["tools"][index]["function"]["parameters"].clone();
    let call = |name: &str, index: usize| json!({"type": "object", "properties": {"name": {"const": name}, "arguments": parameters(index)}, "required": ["name", "arguments"]});
    // The tools still go out (the prompt stays the same); the call is asked for as a document.
    assert_eq!(body["tools"].as_array().unwrap().len(), 2);
    assert_eq!(body.get("tool_choice"), None);
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "tool_call", "schema": call("search", 1)}})
    );
    request.tool_choice = ToolChoice::Required;
    let body = openai_chat::encode_request(&request, &config).unwrap();
    assert_eq!(
        body["response_format"]["json_schema"]["schema"],
        json!({"anyOf": [call("file__read", 0), call("search", 1)]})
    );
    // A tool the request does not offer, no forced call, or an output schema of the request's
    // own: `tool_choice` as OpenAI has it.
    request.tool_choice = ToolChoice::Tool("missing".into());
    let body = openai_chat::encode_request(&request, &config).unwrap();
    assert_eq!(body.get("response_format"), None);
    assert_eq!(body["tool_choice"]["function"]["name"], "missing");
    request.tool_choice = ToolChoice::None;
    let body = openai_chat::encode_request(&request, &config).unwrap();
    assert_eq!(
        (body.get("response_format"), &body["tool_choice"]),
        (None, &json!("none"))
    );
    request.tool_choice = ToolChoice::Required;
    request.output = Some(common::review_output());
    let body = openai_chat::encode_request(&request, &config).unwrap();
    assert_eq!(body["tool_choice"], "required");
    assert_eq!(
        body["response_format"]["json_schema"]["name"],
        "review_schema"
    );
    // Detect, without an adapter to ask the server: OpenAI's `tool_choice`.
    request.output = None;
    config.forced_calls = ForcedCalls::Detect;
    let body = openai_chat::encode_request(&request, &config).unwrap();
    assert_eq!(
        (body.get("response_format"), &body["tool_choice"]),
        (None, &json!("required"))
    );
}

#[test]
fn a_forced_call_of_a_hidden_section_tool_offers_that_tool() {
    let mut config = AdapterConfig::openai_compat("m", "http://127.0.0.1:1/v1");
    config.forced_calls = ForcedCalls::ResponseSchema;
    let hidden = ToolSpec::new(
        "ship",
        "Ship an order.",
        json!({"type": "object", "properties": {"order": {"type": "string"}}, "required": ["order"]}),
    );
    let request = ModelRequest {
        messages: vec![Message::user("x")],
        tools: sample_tools(),
        deferred_tools: vec![wink_model::DeferredTool {
            spec: hidden,
            section: "shipping".into(),
        }],
        tool_choice: ToolChoice::Tool("ship".into()),
        ..ModelRequest::default()
    };
    let body = openai_chat::encode_request(&request, &config).unwrap();
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["file__read", "search", "ship"]);
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["properties"]["name"],
        json!({"const": "ship"})
    );
    config.forced_calls = ForcedCalls::ToolChoice;
    let body = openai_chat::encode_request(&request, &config).unwrap();
    assert_eq!(body["tools"].as_array().unwrap().len(), 3);
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "ship"}})
    );
}

#[test]
fn anthropic_merges_results_and_a_following_user_message() {
    let mut request = sample_request();
    request.messages.push(Message::user("Also check b.txt."));
    request.output = None;
    let body = anthropic::encode_request(&request, &AdapterConfig::anthropic("m")).unwrap();
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "content": "hello"},
            {"type": "tool_result", "tool_use_id": "call_2", "content": "Tool 'search' execution failed: index offline", "is_error": true},
            {"type": "text", "text": "Also check b.txt."}
        ]})
    );
}

#[test]
fn duplicate_tool_names_are_a_config_error() {
    let mut request = sample_request();
    request.tools.push(sample_tools()[1].clone());
    let error = openai_chat::encode_request(&request, &AdapterConfig::openai("m")).unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Config);
    assert_eq!(
        error.message,
        "Duplicate tool name 'search' in the request."
    );
}

#[test]
fn open_map_tool_is_sent_non_strict() {
    let request = ModelRequest {
        messages: vec![Message::user("x")],
        tools: vec![ToolSpec {
            name: "set_env".into(),
            description: "Set variables.".into(),
            parameters: json!({"type": "object", "additionalProperties": {"type": "string"}}),
        }],
        ..ModelRequest::default()
    };
    let body = openai_chat::encode_request(&request, &AdapterConfig::openai("m")).unwrap();
    assert_eq!(
        body["tools"][0],
        json!({"type": "function", "function": {"name": "set_env", "description": "Set variables.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": {"type": "string"}}}})
    );
    let responses =
        openai_responses::encode_request(&request, &AdapterConfig::openai_responses("m")).unwrap();
    assert_eq!(responses["tools"][0]["strict"], json!(false));
}

fn catalog_request() -> ModelRequest {
    let tool = |name: &str, description: &str| ToolSpec {
        name: name.into(),
        description: description.into(),
        parameters: json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
    };
    ModelRequest {
        messages: vec![
            Message::user("Find the weather tool."),
            Message::Assistant {
                content: None,
                tool_calls: vec![ToolCall {
                    id: "call_s".into(),
                    name: "find_tool".into(),
                    arguments: ToolArguments::Text("{\"query\":\"weather\"}".into()),
                }],
            },
            Message::Tool {
                tool_call_id: "call_s".into(),
                name: "find_tool".into(),
                content: "- weather.now: Current weather.\n".into(),
                is_error: false,
                images: Vec::new(),
            },
            Message::Assistant {
                content: None,
                tool_calls: vec![ToolCall {
                    id: "call_w".into(),
                    name: "weather.now".into(),
                    arguments: ToolArguments::Text("{\"query\":\"Paris\"}".into()),
                }],
            },
            Message::Tool {
                tool_call_id: "call_w".into(),
                name: "weather.now".into(),
                content: "Sunny".into(),
                is_error: false,
                images: Vec::new(),
            },
        ],
        tools: vec![
            tool("find_tool", "Search the tool catalog."),
            tool("weather.now", "Current weather."),
            tool("weather.forecast", "Forecast."),
        ],
        ..ModelRequest::default()
    }
}

fn deferred(namespace: Option<Namespace>) -> DeferredTools {
    DeferredTools {
        tools: BTreeSet::from(["weather.now".to_owned(), "weather.forecast".to_owned()]),
        search_tool: "find_tool".into(),
        namespace,
    }
}

#[test]
fn anthropic_deferred_tools_and_tool_references() {
    let mut config = AdapterConfig::anthropic("claude-sonnet-4-5");
    config.deferred_tools = Some(deferred(None));
    let body = anthropic::encode_request(&catalog_request(), &config).unwrap();
    let schema = json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]});
    assert_eq!(
        body["tools"],
        json!([
            {"name": "find_tool", "description": "Search the tool catalog.", "input_schema": schema},
            {"name": "weather__now", "description": "Current weather.", "input_schema": schema, "defer_loading": true},
            {"name": "weather__forecast", "description": "Forecast.", "input_schema": schema, "defer_loading": true}
        ])
    );
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_s", "content": [
            {"type": "text", "text": "- weather.now: Current weather.\n"},
            {"type": "tool_reference", "tool_name": "weather__now"}
        ]}]})
    );
    assert_eq!(
        body["messages"][4],
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_w", "content": "Sunny"}]})
    );
}

#[test]
fn openai_responses_namespace_and_client_tool_search() {
    let mut config = AdapterConfig::openai_responses("gpt-5.4");
    config.deferred_tools = Some(deferred(Some(Namespace {
        name: "weather".into(),
        description: "Weather tools.".into(),
    })));
    let body = openai_responses::encode_request(&catalog_request(), &config).unwrap();
    let schema = json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"], "additionalProperties": false});
    assert_eq!(
        body["tools"],
        json!([
            {"type": "tool_search", "execution": "client", "description": "Search the tool catalog.", "parameters": schema},
            {"type": "namespace", "name": "weather", "description": "Weather tools.", "tools": [
                {"type": "function", "name": "weather__now", "description": "Current weather.", "parameters": schema, "strict": true, "defer_loading": true},
                {"type": "function", "name": "weather__forecast", "description": "Forecast.", "parameters": schema, "strict": true, "defer_loading": true}
            ]}
        ])
    );
    assert_eq!(
        body["input"],
        json!([
            {"type": "message", "role": "user", "content": "Find the weather tool."},
            {"type": "tool_search_call", "call_id": "call_s", "execution": "client", "arguments": {"query": "weather"}, "status": "completed"},
            {"type": "tool_search_output", "call_id": "call_s", "execution": "client", "tools": [
                {"type": "function", "name": "weather__now", "description": "Current weather.", "parameters": schema, "strict": true}
            ]},
            {"type": "function_call", "call_id": "call_w", "namespace": "weather", "name": "weather__now", "arguments": "{\"query\":\"Paris\"}"},
            {"type": "function_call_output", "call_id": "call_w", "output": "Sunny"}
        ])
    );
}

#[test]
fn deferred_tools_are_ignored_by_chat_completions() {
    let mut config = AdapterConfig::openai("gpt-4.1");
    config.deferred_tools = Some(deferred(None));
    let body = openai_chat::encode_request(&catalog_request(), &config).unwrap();
    assert!(
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|tool| tool.get("defer_loading").is_none())
    );
    assert_eq!(body["tools"][0]["function"]["name"], "find_tool");
}

#[test]
fn unsendable_schema_is_a_config_error_naming_the_tool() {
    let request = ModelRequest {
        messages: vec![Message::user("x")],
        tools: vec![ToolSpec {
            name: "bad".into(),
            description: "Bad.".into(),
            parameters: json!({"type": "object", "properties": {"a": {"type": "frobnicate"}}}),
        }],
        ..ModelRequest::default()
    };
    let error = openai_chat::encode_request(&request, &AdapterConfig::openai("m")).unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Config);
    assert!(
        error
            .message
            .starts_with("Tool 'bad' parameters (openai dialect): "),
        "{}",
        error.message
    );
}

/// A conversation whose one tool result carries a PNG and an SVG image.
fn request_with_images() -> ModelRequest {
    let call = ToolCall {
        id: "call_1".into(),
        name: "screenshot".into(),
        arguments: ToolArguments::Text("{}".into()),
    };
    ModelRequest {
        messages: vec![
            Message::user("What does the page show?"),
            Message::assistant_tool_calls("", vec![call.clone()]),
            Message::tool_result(&call, "The page:").with_images(vec![
                ToolImage::new("image/png", "iVBORw0KGgo="),
                ToolImage::new("image/svg+xml", "PHN2Zz4="),
            ]),
        ],
        tools: vec![ToolSpec::new(
            "screenshot",
            "Take a screenshot.",
            json!({"type": "object", "properties": {}}),
        )],
        ..ModelRequest::default()
    }
}

#[test]
fn images_in_tool_results_go_to_the_apis_that_take_them() {
    let request = request_with_images();
    let anthropic =
        anthropic::encode_request(&request, &AdapterConfig::anthropic("claude-sonnet-4-5"))
            .unwrap();
    assert_eq!(
        anthropic["messages"][2],
        json!({"role": "user", "content": [{
            "type": "tool_result",
            "tool_use_id": "call_1",
            "content": [
                {"type": "text", "text": "The page:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
            ]
        }]})
    );
    let responses =
        openai_responses::encode_request(&request, &AdapterConfig::openai_responses("gpt-5"))
            .unwrap();
    assert_eq!(
        responses["input"][2],
        json!({"type": "function_call_output", "call_id": "call_1", "output": [
            {"type": "input_text", "text": "The page:"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}
        ]})
    );
    // Chat Completions takes text alone in a tool message.
    let chat = openai_chat::encode_request(&request, &AdapterConfig::openai("gpt-4.1")).unwrap();
    assert_eq!(
        chat["messages"][2],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "The page:"})
    );
}

#[test]
fn a_tool_result_without_images_keeps_its_plain_text() {
    let mut request = request_with_images();
    let call = ToolCall {
        id: "call_1".into(),
        name: "screenshot".into(),
        arguments: ToolArguments::Text("{}".into()),
    };
    request.messages[2] = Message::tool_result(&call, "The page:")
        .with_images(vec![ToolImage::new("image/tiff", "AAAA")]);
    let anthropic =
        anthropic::encode_request(&request, &AdapterConfig::anthropic("claude-sonnet-4-5"))
            .unwrap();
    assert_eq!(
        anthropic["messages"][2]["content"][0]["content"],
        json!("The page:")
    );
    let responses =
        openai_responses::encode_request(&request, &AdapterConfig::openai_responses("gpt-5"))
            .unwrap();
    assert_eq!(responses["input"][2]["output"], json!("The page:"));
}
