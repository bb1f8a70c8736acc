//! Measures what a small model does with a prompt that has no user message, for several ways of supplying
//! the user turn. Not part of the normal suite (`#[ignore]`): run it with
//! `cargo test -p wink-local --test user_turn_variants -- --ignored --nocapture` and point
//! `WINK_TEST_MODEL` at the GGUF to measure (default: the 0.5B model).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::json;
use wink_core::{Prompt, RenderedPrompt};
use wink_local::{
    DecodingConstraint, LocalModel, LocalModelConfig, ModelChoice, ToolSpec, default_cache_dir,
    model_path,
};
use wink_model::{DeferredTool, Message, ModelRequest};
use wink_session::Session;

fn render(file: &str, question: &str) -> (String, Vec<ToolSpec>, Vec<ToolSpec>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/issue15")
        .join(file);
    let loaded = wink_promptfile::load(&path).unwrap();
    let prompt = Prompt::new(loaded.template.clone()).bind_json("Q", json!({"question": question}));
    let rendered: RenderedPrompt = prompt.render_with(&Session::new()).unwrap();
    let tools = rendered
        .tools
        .iter()
        .map(|t| {
            ToolSpec::new(
                t.name().to_owned(),
                t.description().to_owned(),
                t.parameters().clone(),
            )
        })
        .collect();
    let hidden = rendered
        .hidden_tools
        .iter()
        .map(|(_, t)| {
            ToolSpec::new(
                t.name().to_owned(),
                t.description().to_owned(),
                t.parameters().clone(),
            )
        })
        .collect();
    (rendered.text.clone(), tools, hidden)
}

/// The text of the first `## ` section of a rendered prompt (its body, without the heading).
fn first_section(prompt: &str) -> String {
    let body = prompt.split("\n## ").next().unwrap_or(prompt);
    body.split_once("\n\n")
        .map_or(body, |(_, rest)| rest)
        .trim()
        .to_owned()
}

/// `WINK_VARIANTS=a,b` runs only the named variants (all by default).
fn wanted(name: &str) -> bool {
    std::env::var("WINK_VARIANTS").map_or(true, |names| names.split(',').any(|n| n == name))
}

#[test]
#[ignore = "runs the model on many variants; a measurement, not a check"]
fn user_turn_variants() {
    let path = std::env::var_os("WINK_TEST_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| model_path(ModelChoice::Qwen05B, &default_cache_dir()));
    let config = LocalModelConfig {
        context_size: 4096,
        max_tokens: 64,
        ..LocalModelConfig::default()
    };
    let mut model = LocalModel::load(&path, config).unwrap();
    let all_questions = [
        "What is 1234 + 4321?",
        "How much is 250 plus 17?",
        "Add 9 and 33.",
    ];
    // `WINK_VARIANT_QUESTIONS=N` keeps the first N questions (all by default).
    let keep = std::env::var("WINK_VARIANT_QUESTIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(all_questions.len());
    let questions = &all_questions[..keep.min(all_questions.len())];
    let files = ["visible.json", "hidden.json"];
    // `WINK_VARIANT_FILES=hidden.json` keeps the named prompt files (both by default).
    let chosen = std::env::var("WINK_VARIANT_FILES").unwrap_or_default();
    for file in files
        .into_iter()
        .filter(|f| chosen.is_empty() || chosen.split(',').any(|c| c == *f))
    {
        for &question in questions {
            let (system, tools, hidden) = render(file, question);
            let task = first_section(&system);
            let variants: Vec<(&str, Vec<Message>)> = vec![
                (
                    "carry-out",
                    vec![
                        Message::system(system.clone()),
                        Message::user("Carry out the task described in the system prompt."),
                    ],
                ),
                (
                    "task-repeated",
                    vec![Message::system(system.clone()), Message::user(task.clone())],
                ),
                ("prompt-as-user", vec![Message::user(system.clone())]),
                (
                    "do-task-above",
                    vec![
                        Message::system(system.clone()),
                        Message::user("Please do the task in the system message now."),
                    ],
                ),
            ];
            for (name, messages) in variants {
                if !wanted(name) {
                    continue;
                }
                let request = ModelRequest {
                    messages,
                    tools: tools.clone(),
                    deferred_tools: hidden
                        .iter()
                        .map(|spec| DeferredTool {
                            spec: spec.clone(),
                            section: String::new(),
                        })
                        .collect(),
                    ..ModelRequest::default()
                };
                let turn = model.complete(&request, &DecodingConstraint::Auto).unwrap();
                let outcome = match turn.tool_calls.first() {
                    Some(call) => format!("CALL {} {}", call.name, call.arguments.to_value()),
                    None => format!("TEXT {:?}", turn.text.unwrap_or_default()),
                };
                println!("{file}\t{question}\t{name}\t{outcome}");
            }
        }
    }
}
