//! `ClaudeCliAdapter` against a fake `claude` (tests/python/fake_claude.py, stdlib only) that
//! speaks the CLI's stream-json protocol and calls tools through the MCP config it is given.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use serde_json::{Value, json};
use wink_agent::{LoopOutcome, MainLoop, MainLoopConfig, ProviderAdapter, RunHooks};
use wink_core::{
    MarkdownSection, Prompt, PromptTemplate, ToolBuilder, ToolError, ToolResult, block_on,
};
use wink_providers::{ClaudeCliAdapter, ClaudeCliConfig};
use wink_session::Session;

/// A task, a summarized reference, and a summarized section holding the `add` tool.
fn demo_prompt() -> Prompt {
    let add = ToolBuilder::dynamic(
        "add",
        "Add two integers.",
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
               "required": ["a", "b"], "additionalProperties": false}),
        |args, _ctx| {
            let a = args["a"]
                .as_i64()
                .ok_or_else(|| ToolError::validation("a"))?;
            let b = args["b"]
                .as_i64()
                .ok_or_else(|| ToolError::validation("b"))?;
            Ok(ToolResult::ok("sum", json!({"sum": a + b})))
        },
    )
    .build()
    .unwrap();
    let template = PromptTemplate::builder("demo", "claude")
        .section(MarkdownSection::new("Task", "task", "Add 2 and 3."))
        .section(
            MarkdownSection::new("Reference", "reference", "Full reference.")
                .summary("Reference available.")
                .summarized(),
        )
        .section(
            MarkdownSection::new("Math", "math", "Use add for sums.")
                .summary("Arithmetic tools.")
                .summarized()
                .tool(add),
        )
        .build()
        .unwrap();
    Prompt::new(template)
}

fn fake_claude(log: &std::path::Path) -> ClaudeCliConfig {
    ClaudeCliConfig {
        program: "python3".into(),
        program_args: vec![
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests/python/fake_claude.py")
                .display()
                .to_string(),
        ],
        env: vec![("FAKE_CLAUDE_LOG".into(), log.display().to_string())],
        ..ClaudeCliConfig::default()
    }
}

#[test]
fn read_section_on_a_tool_bearing_section_restarts_claude_with_the_new_tools() {
    let dir = std::env::temp_dir().join(format!("wink-providers-claude-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("runs.jsonl");
    let _ = std::fs::remove_file(&log);
    let adapter = ClaudeCliAdapter::new(fake_claude(&log)).unwrap();
    assert!(!adapter.supports_dynamic_tools());
    assert_eq!(adapter.name(), "claude-cli");

    let main_loop = MainLoop::new(&adapter, MainLoopConfig::default());
    let session = Session::new();
    let result =
        block_on(main_loop.execute(&demo_prompt(), &session, RunHooks::default())).unwrap();

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
    let error = block_on(main_loop.execute(&demo_prompt(), &Session::new(), RunHooks::default()))
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
    let error = block_on(main_loop.execute(&demo_prompt(), &Session::new(), RunHooks::default()))
        .map(|r| format!("{:?}", r.outcome))
        .unwrap_or_else(|e| e.to_string());
    assert!(
        error.contains("cannot start '/nonexistent/claude'"),
        "{error}"
    );
}
