//! Measures prefill and decode speed of a GGUF model, with and without KV cache reuse.
//!
//! `cargo run --release -p wink-local --example measure -- [PATH [THREADS]]` (default: the 0.5B model in the
//! cache, all cores).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use std::path::PathBuf;
use wink_local::{
    DecodingConstraint, LocalModel, LocalModelConfig, ModelChoice, ToolSpec, default_cache_dir,
    model_path,
};
use wink_model::{Message, ModelRequest};

/// A request of `messages` offering `tools`, at most `max_tokens` generated.
fn request(messages: Vec<Message>, tools: Vec<ToolSpec>, max_tokens: u32) -> ModelRequest {
    ModelRequest {
        messages,
        tools,
        max_output_tokens: Some(max_tokens),
        ..ModelRequest::default()
    }
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| model_path(ModelChoice::Qwen05B, &default_cache_dir()));
    let mut config = LocalModelConfig::default();
    if let Some(threads) = std::env::args().nth(2) {
        config.threads = threads.parse().unwrap();
    }
    let mut model = LocalModel::load(&path, config).unwrap();
    println!(
        "model: {} ({} threads)",
        model.model_name(),
        model.config().threads
    );

    let reference =
        "Progressive disclosure keeps the prompt prefix stable across calls. ".repeat(40);
    let tools = vec![ToolSpec::new(
        "add",
        "Add two integers.",
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
    )];
    let mut messages = vec![
        Message::system(format!(
            "You are a helpful assistant.\n\nReference:\n{reference}"
        )),
        Message::user("Write a short poem about caches."),
    ];

    let free = model
        .complete(
            &request(messages.clone(), Vec::new(), 96),
            &DecodingConstraint::FinalAnswer,
        )
        .unwrap();
    report("cold prompt, free text", &free);

    messages.push(Message::assistant(free.text.clone().unwrap_or_default()));
    messages.push(Message::user("What is 1234 plus 4321? Use the add tool."));
    let call = model
        .complete(
            &request(messages.clone(), tools.clone(), 64),
            &DecodingConstraint::Auto,
        )
        .unwrap();
    report("new system prompt (tools), tool call", &call);

    messages.push(Message::assistant_tool_calls("", call.tool_calls.clone()));
    messages.push(Message::tool_result(&call.tool_calls[0], "{\"sum\": 5555}"));
    messages.push(Message::user("Now answer my question using this result."));
    let follow_up = request(messages, tools, 64);
    let answer = DecodingConstraint::FinalAnswer;
    let warm = model.complete(&follow_up, &answer).unwrap();
    report("follow-up, prefix reused", &warm);
    model.clear_cache();
    let cold = model.complete(&follow_up, &answer).unwrap();
    report("same follow-up, cache cleared", &cold);
}

fn report(label: &str, turn: &wink_local::LocalCompletion) {
    println!(
        "{label}: prompt {} (cached {}), generated {} | prefill {:.0} ms ({:.1} tok/s) | decode {:.0} ms ({:.1} tok/s) | {:?}",
        turn.usage.prompt_tokens,
        turn.usage.cached_prompt_tokens,
        turn.usage.completion_tokens,
        turn.timings.prefill_ms,
        turn.timings.prefill_tokens_per_s,
        turn.timings.decode_ms,
        turn.timings.decode_tokens_per_s,
        turn.text
            .as_deref()
            .map(|t| t.chars().take(60).collect::<String>())
            .or_else(|| turn.tool_calls.first().map(|c| format!(
                "{}({})",
                c.name,
                c.arguments.to_value()
            ))),
    );
}
