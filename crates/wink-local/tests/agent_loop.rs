//! The embedded model inside the agent loop: [`LocalAdapter`] on Qwen2.5-Coder-0.5B runs the demo prompt of
//! `examples/01_local_demo` through [`MainLoop`], with progressive disclosure and tool injection.
//!
//! Like `real_model.rs`, the model is found at `$WINK_TEST_MODEL` or in the default cache, and
//! `WINK_SKIP_REAL_MODEL=1` skips the test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use wink_agent::{
    Budget, LoopOutcome, MainLoop, MainLoopConfig, ModelTurn, ProviderAdapter, RunHooks,
    RunObserver,
};
use wink_core::{Prompt, ToolCall, block_on};
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

/// Records the model turns and the tool calls of the run.
#[derive(Default)]
struct Recorder {
    turns: Mutex<Vec<ModelTurn>>,
    tool_calls: Mutex<Vec<(String, String, bool)>>,
}

impl RunObserver for Recorder {
    fn on_model_turn(&self, turn: &ModelTurn) {
        self.turns.lock().unwrap().push(turn.clone());
    }
    fn on_tool_result(&self, call: &ToolCall, content: &str, is_error: bool) {
        self.tool_calls
            .lock()
            .unwrap()
            .push((call.name.clone(), content.to_owned(), is_error));
    }
}

#[test]
fn local_adapter_runs_the_demo_prompt_in_the_main_loop() {
    let Some(path) = model_file() else {
        return;
    };
    let config = LocalModelConfig {
        context_size: 4096,
        max_tokens: 96,
        ..LocalModelConfig::default()
    };
    let adapter = LocalAdapter::load(&path, config).unwrap();
    assert!(adapter.supports_dynamic_tools());

    let demo =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/01_local_demo/prompt.json");
    let loaded = wink_promptfile::load(&demo).unwrap();
    let prompt = Prompt::new(loaded.template.clone());
    let session = Session::new();
    let main_loop = MainLoop::new(
        &adapter,
        MainLoopConfig {
            budget: Budget {
                max_model_calls: Some(5),
                ..Budget::default()
            },
            ..MainLoopConfig::default()
        },
    );
    let recorder = Recorder::default();
    let hooks = RunHooks {
        observer: Some(&recorder),
        stream: None,
    };
    let result = block_on(main_loop.execute(&prompt, &session, hooks)).unwrap();

    let turns = recorder.turns.lock().unwrap();
    let tool_calls = recorder.tool_calls.lock().unwrap();
    eprintln!("outcome: {:?}", result.outcome);
    eprintln!("tool calls: {tool_calls:#?}");
    // The model opened a section (the only tool offered at first) and the run finished with an answer.
    assert_eq!(
        turns[0].tool_calls.first().map(|c| c.name.as_str()),
        Some("read_section"),
        "{turns:#?}"
    );
    assert!(!tool_calls.is_empty());
    match &result.outcome {
        LoopOutcome::Finished {
            text: Some(text), ..
        } => assert!(!text.trim().is_empty()),
        other => panic!("the run did not finish with an answer: {other:?}"),
    }
    assert!(result.spent.model_calls >= 2 && result.spent.model_calls <= 5);
    // Later calls reuse the KV cache of the earlier ones.
    let usage = turns.last().unwrap().usage.unwrap();
    assert!(usage.cached_tokens > 0, "{usage:?}");
}
