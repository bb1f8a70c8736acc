//! Measures prefill and decode speed of a GGUF model, with and without KV cache reuse.
//!
//! `cargo run --release -p wink-local --example measure -- [PATH [THREADS]]` (default: the 0.5B model in the
//! cache, all cores).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use std::path::PathBuf;
use wink_local::{
    ChatMessage, ChatRequest, LocalModel, LocalModelConfig, ModelChoice, ToolSpec, TurnConstraint,
    default_cache_dir, model_path,
};

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
        ChatMessage::system(format!(
            "You are a helpful assistant.\n\nReference:\n{reference}"
        )),
        ChatMessage::user("Write a short poem about caches."),
    ];

    let free = model
        .complete(
            &ChatRequest::new(messages.clone())
                .with_constraint(TurnConstraint::FinalAnswer)
                .with_max_tokens(96),
        )
        .unwrap();
    report("cold prompt, free text", &free);

    messages.push(ChatMessage::assistant(
        free.text.clone().unwrap_or_default(),
    ));
    messages.push(ChatMessage::user(
        "What is 1234 plus 4321? Use the add tool.",
    ));
    let call = model
        .complete(
            &ChatRequest::new(messages.clone())
                .with_tools(tools.clone())
                .with_max_tokens(64),
        )
        .unwrap();
    report("new system prompt (tools), tool call", &call);

    messages.push(ChatMessage::assistant_tool_calls(
        "",
        call.tool_calls.clone(),
    ));
    messages.push(ChatMessage::tool_result(
        &call.tool_calls[0],
        "{\"sum\": 5555}",
    ));
    messages.push(ChatMessage::user(
        "Now answer my question using this result.",
    ));
    let request = ChatRequest::new(messages)
        .with_tools(tools)
        .with_constraint(TurnConstraint::FinalAnswer)
        .with_max_tokens(64);
    let warm = model.complete(&request).unwrap();
    report("follow-up, prefix reused", &warm);
    model.clear_cache();
    let cold = model.complete(&request).unwrap();
    report("same follow-up, cache cleared", &cold);
}

fn report(label: &str, turn: &wink_local::ChatTurn) {
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
            .or_else(|| turn
                .tool_calls
                .first()
                .map(|c| format!("{}({})", c.name, c.arguments))),
    );
}
