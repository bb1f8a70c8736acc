//! The embedded model off the executor, on Qwen2.5-Coder-0.5B: a run's deadline stops a long
//! generation between tokens, and a final answer streams token by token through the sink API while
//! tool calls never do.
//!
//! Like `real_model.rs`, the model is found at `$WINK_TEST_MODEL` or in the default cache, and
//! `WINK_SKIP_REAL_MODEL=1` skips these tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use wink_agent::{
    BudgetLimit, LoopOutcome, MainLoop, MainLoopConfig, Message, ModelRequest, ProviderAdapter,
    RunHooks, StreamDelta, StreamSink, ToolChoice, ToolSpec,
};
use wink_core::{Deadline, MarkdownSection, Prompt, PromptTemplate, block_on};
use wink_local::{LocalAdapter, LocalModelConfig, ModelChoice, default_cache_dir, model_path};
use wink_session::Session;

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

fn adapter(path: &Path, max_tokens: u32) -> LocalAdapter {
    let config = LocalModelConfig {
        context_size: 2048,
        max_tokens,
        // One thread: a token's time stays steady on a machine shared with other work.
        threads: 1,
        ..LocalModelConfig::default()
    };
    LocalAdapter::load(path, config).unwrap()
}

/// Every text delta, with the time it arrived.
#[derive(Default)]
struct Collector {
    deltas: Mutex<Vec<(Instant, String)>>,
}

impl StreamSink for Collector {
    fn on_delta(&self, delta: &StreamDelta) {
        if let StreamDelta::Text { text } = delta {
            self.deltas
                .lock()
                .unwrap()
                .push((Instant::now(), text.clone()));
        }
    }
}

impl Collector {
    fn texts(&self) -> Vec<String> {
        self.deltas
            .lock()
            .unwrap()
            .iter()
            .map(|(_, t)| t.clone())
            .collect()
    }
}

const ESSAY: &str = "Write a very long, detailed essay of at least 2000 words about the history of the Roman Empire, \
from its founding to the fall of Constantinople.";

#[test]
fn a_deadline_ends_a_long_local_generation_within_a_second_of_it() {
    let Some(path) = model_file() else {
        return;
    };
    // 512 tokens take far longer than the deadline on the 0.5B model (tens of seconds on 2 cores).
    let adapter = adapter(&path, 512);
    let template = PromptTemplate::builder("essay", "long")
        .section(MarkdownSection::new("Task", "task", ESSAY))
        .build()
        .unwrap();
    let prompt = Prompt::new(Arc::new(template));
    let deadline = Duration::from_secs(3);
    let config = MainLoopConfig {
        budget: wink_agent::Budget {
            deadline: Some(Deadline::after(deadline)),
            ..wink_agent::Budget::default()
        },
        ..MainLoopConfig::default()
    };
    let sink = Collector::default();
    let started = Instant::now();
    let result = block_on(MainLoop::new(&adapter, config).execute(
        &prompt,
        &Session::new(),
        RunHooks {
            observer: None,
            stream: Some(&sink),
        },
    ))
    .unwrap();
    let ended = started.elapsed();
    assert_eq!(
        result.outcome,
        LoopOutcome::BudgetExceeded {
            limit: BudgetLimit::Deadline
        }
    );
    assert!(
        ended < deadline + Duration::from_secs(1),
        "the run ended {ended:?} after it started, its deadline was {deadline:?}"
    );
    // The generation itself stopped: the model is free again one token later. A token takes tens
    // of milliseconds on an idle machine, but up to seconds in a debug build on a 2-core machine
    // busy with another model (measured: 2.0 s); the 512 tokens the prompt asks for would take
    // minutes, so 10 s still tells a stopped generation from one that runs on.
    let waited = Instant::now();
    adapter.forget_cached_prefix();
    let freed = waited.elapsed();
    assert!(
        freed < Duration::from_secs(10),
        "the model was busy for {freed:?} more"
    );
    // The essay streamed while it was generated (a final answer: no tool is on offer).
    let texts = sink.texts();
    eprintln!(
        "ended after {ended:?}, model free {freed:?} later, {} deltas streamed",
        texts.len()
    );
    assert!(!texts.is_empty());
}

#[test]
fn a_final_answer_streams_token_by_token_and_a_call_does_not() {
    let Some(path) = model_file() else {
        return;
    };
    let adapter = adapter(&path, 40);
    let answer = ModelRequest {
        messages: vec![Message::user("Name three colours of the rainbow.")],
        tool_choice: ToolChoice::None,
        ..ModelRequest::default()
    };
    let sink = Collector::default();
    let turn = block_on(adapter.complete(&answer, Some(&sink))).unwrap();
    let texts = sink.texts();
    let text = turn.text.clone().unwrap();
    assert!(texts.len() > 3, "{texts:?}");
    assert_eq!(texts.concat(), text);
    // Pieces arrived while the answer was generated, not all at the end.
    let deltas = sink.deltas.lock().unwrap();
    let spread = deltas.last().unwrap().0 - deltas.first().unwrap().0;
    assert!(spread > Duration::from_millis(50), "{spread:?}");
    drop(deltas);

    // A turn that must call a tool: nothing reaches the sink.
    let call = ModelRequest {
        messages: vec![Message::user("What is the weather in Oslo?")],
        tools: vec![ToolSpec {
            name: "get_weather".into(),
            description: "Get the current weather of a city.".into(),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        }],
        tool_choice: ToolChoice::Required,
        ..ModelRequest::default()
    };
    let sink = Collector::default();
    let turn = block_on(adapter.complete(&call, Some(&sink))).unwrap();
    assert_eq!(turn.tool_calls[0].name, "get_weather");
    assert_eq!(sink.texts(), Vec::<String>::new());
}

fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn two_concurrent_runs_in_one_process_share_one_model() {
    let Some(path) = model_file() else {
        return;
    };
    let before = resident_kib();
    let first = adapter(&path, 16);
    let after_first = resident_kib();
    let second = adapter(&path, 16);
    let after_second = resident_kib();
    eprintln!(
        "RSS: {before} KiB before, +{} KiB with the first model (weights and a 2048-token context), +{} KiB with the second (a context)",
        after_first.saturating_sub(before),
        after_second.saturating_sub(after_first)
    );
    assert!(first.shares_weights_with(&second));
    let request = ModelRequest {
        messages: vec![Message::user("Say hello.")],
        tool_choice: ToolChoice::None,
        ..ModelRequest::default()
    };
    // Both runs at once, each in its own context.
    let (a, b) = std::thread::scope(|scope| {
        let a = scope.spawn(|| block_on(first.complete(&request, None)));
        let b = scope.spawn(|| block_on(second.complete(&request, None)));
        (a.join().unwrap().unwrap(), b.join().unwrap().unwrap())
    });
    // Greedy decoding on the same weights: the same answer.
    assert_eq!(a.text, b.text);
    assert!(a.text.is_some());
    // Weights are released with the last model that uses them, and loaded again afterwards.
    drop((first, second));
    let third = adapter(&path, 16);
    let fourth = adapter(&path, 16);
    assert!(third.shares_weights_with(&fourth));
}
