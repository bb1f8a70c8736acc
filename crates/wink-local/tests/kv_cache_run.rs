//! A disclosure run on the real Qwen2.5-Coder-0.5B model through [`LocalAdapter`]: the conversation grows
//! as the agent loop grows it (a `read_section` call, its result disclosing `add`, the `add` call, its
//! result, the answer), and every call takes from the KV cache everything the previous call prefilled and
//! decoded, but at most 16 tokens at the turn boundary: by default, because calls are decoded in the chat
//! template's own form ([`CallForm::Template`]), so the canonical write-back is what was generated; and when
//! tool calls are written back verbatim ([`CallWriteBack::Verbatim`]). Calls decoded in any form
//! ([`CallForm::Any`]) and written back canonically take only the previous prompt.
//!
//! Like `real_model.rs`, the model is found at `$WINK_TEST_MODEL` or in the default cache, and
//! `WINK_SKIP_REAL_MODEL=1` skips the test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use serde_json::json;
use wink_core::{ToolArguments, block_on};
use wink_local::{
    CallForm, CallWriteBack, LocalAdapter, LocalModelConfig, ModelChoice, default_cache_dir,
    model_path,
};
use wink_model::{
    DeferredTool, Message, ModelRequest, ModelTurn, ProviderAdapter, ToolAddition, ToolChoice,
    ToolSpec,
};
use wink_session::TokenUsage;

fn model_file() -> Option<PathBuf> {
    if std::env::var("WINK_SKIP_REAL_MODEL").is_ok_and(|value| value == "1") {
        eprintln!("skipping: WINK_SKIP_REAL_MODEL=1");
        return None;
    }
    let path = std::env::var_os("WINK_TEST_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| model_path(ModelChoice::Qwen05B, &default_cache_dir()));
    assert!(
        path.is_file(),
        "this test needs {} (scripts/fetch-model.sh 0.5b), or WINK_SKIP_REAL_MODEL=1 to skip it",
        path.display()
    );
    Some(path)
}

const PROMPT: &str = "## 1. Task\n\nAnswer the question: What is 1234 + 4321? Use the add tool.\n\n\
    ## 2. Calculator (summarized)\n\nArithmetic tools.\n\n\
    ---\nSome sections are summarized. Call `read_section` with a section's key to read it in full.";

const CALCULATOR: &str =
    "## 2. Calculator\n\nCall `add` with two integers `a` and `b`; it returns their sum.";

fn read_section() -> ToolSpec {
    ToolSpec {
        name: "read_section".into(),
        description: "Read the full content of a summarized section.".into(),
        parameters: json!({"type": "object", "properties": {"section_key": {"type": "string"}}, "required": ["section_key"]}),
    }
}

fn add() -> ToolSpec {
    ToolSpec {
        name: "add".into(),
        description: "Add two integers and return their sum.".into(),
        parameters: json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
    }
}

/// Appends the model's turn and the result of its (only) call, as the agent loop does.
fn answer_call(request: &mut ModelRequest, turn: &ModelTurn, result: &str) {
    assert_eq!(turn.tool_calls.len(), 1, "{turn:?}");
    let call = turn.tool_calls[0].clone();
    request.messages.push(Message::Assistant {
        content: turn.text.clone(),
        tool_calls: vec![call.clone()],
    });
    request.messages.push(Message::Tool {
        tool_call_id: call.id,
        name: call.name,
        content: result.into(),
        is_error: false,
        images: Vec::new(),
    });
}

fn complete(adapter: &LocalAdapter, request: &ModelRequest) -> (ModelTurn, TokenUsage) {
    let turn = block_on(adapter.complete(request, None)).unwrap();
    let usage = turn.usage.unwrap();
    eprintln!("turn {turn:?}");
    (turn, usage)
}

/// What the previous call prefilled (and, when `output_counts`, decoded) comes from the cache, but
/// at most 16 tokens.
fn assert_cached(previous: TokenUsage, next: TokenUsage, output_counts: bool) {
    let processed = previous.input_tokens
        + if output_counts {
            previous.output_tokens
        } else {
            0
        };
    assert!(
        next.cached_tokens + 16 >= processed,
        "cached {} of {} (the previous call processed {processed}: prompt {} + output {})",
        next.cached_tokens,
        next.input_tokens,
        previous.input_tokens,
        previous.output_tokens
    );
}

/// The three calls of a disclosure run (read_section, add, the answer) and their usage, then one
/// more call after the cache was forgotten.
fn disclosure_run(write_back: CallWriteBack, call_form: CallForm) -> Option<[TokenUsage; 4]> {
    let path = model_file()?;
    let config = LocalModelConfig {
        context_size: 4096,
        max_tokens: 48,
        call_write_back: write_back,
        call_form: Some(call_form),
        ..LocalModelConfig::default()
    };
    let adapter = LocalAdapter::load(&path, config).unwrap();
    assert_eq!(adapter.context_window(), Some(4096));

    // Call 1: only read_section is offered; `add` hides in the summarized section.
    let mut request = ModelRequest {
        messages: vec![Message::system(PROMPT)],
        tools: vec![read_section()],
        deferred_tools: vec![DeferredTool {
            spec: add(),
            section: "calculator".into(),
        }],
        tool_choice: ToolChoice::Tool("read_section".into()),
        ..ModelRequest::default()
    };
    let (first, first_usage) = complete(&adapter, &request);
    assert_eq!(first.tool_calls[0].name, "read_section");
    assert_eq!(first_usage.cached_tokens, 0);

    // Call 2: the section's text came back and disclosed `add` after message 2 (the tool result).
    answer_call(&mut request, &first, CALCULATOR);
    request.tools.push(add());
    request.deferred_tools.clear();
    request.tool_additions = vec![ToolAddition {
        after_message: 2,
        section: "calculator".into(),
        tools: vec!["add".into()],
    }];
    request.tool_choice = ToolChoice::Tool("add".into());
    let (second, second_usage) = complete(&adapter, &request);
    assert_eq!(second.tool_calls[0].name, "add");
    assert_eq!(
        second.tool_calls[0].arguments,
        ToolArguments::Json(json!({"a": 1234, "b": 4321}))
    );

    // Call 3: the sum came back; the answer.
    answer_call(&mut request, &second, "5555");
    request.tool_choice = ToolChoice::None;
    let (third, third_usage) = complete(&adapter, &request);
    assert!(third.tool_calls.is_empty());

    // Forgotten, the cache gives nothing to the next call (`wink eval --cold`).
    adapter.forget_cached_prefix();
    let (_, cold) = complete(&adapter, &request);
    assert_eq!(cold.cached_tokens, 0);
    Some([first_usage, second_usage, third_usage, cold])
}

/// A disclosure run in `write_back` and `call_form` whose second and third calls each take from the
/// cache what the call before prefilled (and, when `output_counts`, decoded), but at most 16 tokens.
fn assert_each_call_cached(write_back: CallWriteBack, call_form: CallForm, output_counts: bool) {
    let Some([first, second, third, _]) = disclosure_run(write_back, call_form) else {
        return;
    };
    assert_cached(first, second, output_counts);
    assert_cached(second, third, output_counts);
}

/// The defaults: calls decoded in the template's form and written back canonically, so each call
/// takes everything the previous call prefilled and decoded from the cache, but at most 16 tokens.
#[test]
fn each_call_takes_the_previous_prompt_and_output_from_the_kv_cache() {
    assert_each_call_cached(CallWriteBack::Canonical, CallForm::Template, true);
}

/// Calls decoded in any form and written back canonically: the previous prompt comes from the
/// cache, and the call the model wrote differently (a fenced block) is evaluated again.
#[test]
fn calls_in_any_form_take_the_previous_prompt_from_the_kv_cache() {
    assert_each_call_cached(CallWriteBack::Canonical, CallForm::Any, false);
}

/// Verbatim write-back: the tool-call turn is written as generated, so each call takes everything
/// the previous call prefilled and decoded from the cache, but at most 16 tokens at the boundary.
#[test]
fn verbatim_calls_take_the_previous_prompt_and_output_from_the_kv_cache() {
    assert_each_call_cached(CallWriteBack::Verbatim, CallForm::Any, true);
}

#[test]
fn a_turn_asked_again_as_a_named_call_reuses_the_prompt() {
    let Some(path) = model_file() else {
        return;
    };
    let config = LocalModelConfig {
        context_size: 2048,
        max_tokens: 64,
        ..LocalModelConfig::default()
    };
    let request = ModelRequest {
        messages: vec![
            Message::system("## 1. Task\n\nYou help with arithmetic."),
            Message::user(
                "Do not call any function now. Just tell me the name of the function you would use to add two numbers.",
            ),
        ],
        tools: vec![add()],
        ..ModelRequest::default()
    };
    // The answer names the tool (the loop's `named-tool` policy takes such a turn back) ...
    let adapter = LocalAdapter::load(&path, config).unwrap();
    let (answer, _) = complete(&adapter, &request);
    assert!(answer.tool_calls.is_empty(), "{answer:?}");
    assert!(
        answer.text.as_deref().unwrap().contains("add"),
        "{answer:?}"
    );
    // ... and asked again for a call of it, from the same prompt, the model calls it.
    let again = ModelRequest {
        tool_choice: ToolChoice::Tool("add".into()),
        ..request
    };
    let (repaired, usage) = complete(&adapter, &again);
    assert_eq!(repaired.tool_calls.len(), 1, "{repaired:?}");
    assert_eq!(repaired.tool_calls[0].name, "add");
    // The second generation re-used the prompt the first one evaluated.
    assert!(usage.cached_tokens > 0, "{usage:?}");
}
