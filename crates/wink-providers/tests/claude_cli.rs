//! `ClaudeCliAdapter` against a fake `claude` (tests/python/fake_claude.py, stdlib only) that
//! speaks the CLI's stream-json protocol and calls tools through the MCP config it is given.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use serde_json::Value;
use wink_agent::{LoopOutcome, MainLoop, MainLoopConfig, ProviderAdapter, RunHooks};
use wink_core::block_on;
use wink_mcp::{ClaudeCliAdapter, ClaudeCliConfig};
use wink_session::Session;

fn fake_claude(log: &std::path::Path) -> ClaudeCliConfig {
    ClaudeCliConfig {
        program: "python3".into(),
        program_args: vec![
            common::python_script("fake_claude.py")
                .display()
                .to_string(),
        ],
        env: vec![("FAKE_CLAUDE_LOG".into(), log.display().to_string())],
        ..ClaudeCliConfig::default()
    }
}

#[test]
fn read_section_on_a_tool_bearing_section_restarts_claude_with_the_new_tools() {
    let dir = std::env::temp_dir().join(format!("wink-mcp-claude-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("runs.jsonl");
    let _ = std::fs::remove_file(&log);
    let adapter = ClaudeCliAdapter::new(fake_claude(&log)).unwrap();
    assert!(!adapter.supports_dynamic_tools());
    assert_eq!(adapter.name(), "claude-cli");

    let main_loop = MainLoop::new(&adapter, MainLoopConfig::default());
    let session = Session::new();
    let result =
        block_on(main_loop.execute(&common::demo_prompt(), &session, RunHooks::default())).unwrap();

    assert_eq!(
        result.outcome,
        LoopOutcome::Finished {
            text: Some("The sum is sum\n\n{\"sum\": 5}".into()),
            output: None
        }
    );
    assert_eq!(result.restarts, 1);
    assert_eq!(adapter.processes_started(), 2);
    let runs: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["tools"], serde_json::json!(["read_section"]));
    assert_eq!(runs[1]["tools"], serde_json::json!(["add", "read_section"]));
    assert!(
        runs[0]["system"]
            .as_str()
            .unwrap()
            .contains("Arithmetic tools.")
    );
    assert!(
        runs[1]["system"]
            .as_str()
            .unwrap()
            .contains("## 3. Math (math)\n\nUse add for sums.")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cli_that_exits_early_is_a_provider_error_with_its_stderr() {
    let adapter = ClaudeCliAdapter::new(ClaudeCliConfig {
        program: "python3".into(),
        program_args: vec![
            "-c".into(),
            "import sys; print('not logged in', file=sys.stderr); sys.exit(3)".into(),
        ],
        ..ClaudeCliConfig::default()
    })
    .unwrap();
    let main_loop = MainLoop::new(&adapter, MainLoopConfig::default());
    let error =
        block_on(main_loop.execute(&common::demo_prompt(), &Session::new(), RunHooks::default()))
            .map(|r| format!("{:?}", r.outcome))
            .unwrap_or_else(|e| e.to_string());
    assert!(
        error.contains("claude exited (exit status: 3) before answering: not logged in"),
        "{error}"
    );
}

#[test]
fn a_missing_cli_is_a_config_error() {
    let adapter = ClaudeCliAdapter::new(ClaudeCliConfig {
        program: "/nonexistent/claude".into(),
        ..ClaudeCliConfig::default()
    })
    .unwrap();
    let main_loop = MainLoop::new(&adapter, MainLoopConfig::default());
    let error =
        block_on(main_loop.execute(&common::demo_prompt(), &Session::new(), RunHooks::default()))
            .map(|r| format!("{:?}", r.outcome))
            .unwrap_or_else(|e| e.to_string());
    assert!(
        error.contains("cannot start '/nonexistent/claude'"),
        "{error}"
    );
}
