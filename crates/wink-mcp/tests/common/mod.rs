//! Shared fixtures: a prompt with a plain section, a summarized section with a child, and a
//! summarized section holding the `add` tool.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::path::PathBuf;
use std::process::Command;

use rmcp::RoleClient;
use rmcp::model::{
    ClientCapabilities, ClientConfig, GetTaskParams, Implementation, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use serde_json::{Value, json};
use wink_core::{MarkdownSection, Prompt, PromptTemplate, ToolBuilder, ToolError, ToolResult};

pub fn demo_prompt() -> Prompt {
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
    let template = PromptTemplate::builder("demo", "mcp")
        .section(MarkdownSection::new("Task", "task", "Add 2 and 3."))
        .section(
            MarkdownSection::new("Reference", "reference", "Full reference.")
                .summary("Reference available.")
                .summarized()
                .child(MarkdownSection::new("Details", "details", "Deep details.")),
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

pub fn python_script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(name)
}

/// Whether the official MCP Python SDK is importable. Outside CI a missing SDK skips the test
/// with a note; in CI (env `CI` set) it is a failure.
pub fn python_mcp_sdk() -> bool {
    let available = Command::new("python3")
        .args(["-c", "import mcp"])
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but the MCP Python SDK is missing: python3 -m pip install 'mcp==2.3.0'"
        );
        eprintln!(
            "note: skipping: the MCP Python SDK is not installed (python3 -m pip install 'mcp==2.3.0')"
        );
    }
    available
}

/// The names of the tools a client is offered, in order.
pub async fn tool_names(peer: &rmcp::Peer<rmcp::RoleClient>) -> Vec<String> {
    peer.list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

/// An rmcp client at protocol 2026-07-28 with these capabilities, on `io`.
pub async fn client_2026(
    io: tokio::io::DuplexStream,
    capabilities: Value,
) -> RunningService<RoleClient, ClientConfig> {
    let capabilities: ClientCapabilities = serde_json::from_value(capabilities).unwrap();
    ClientConfig::new(capabilities, Implementation::new("tester", "1"))
        .with_protocol_version(ProtocolVersion::V_2026_07_28)
        .serve_with_lifecycle(
            io,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap()
}

/// `tasks/get` until the task's status is none of `passing` (e.g. `["working"]`): its JSON.
pub async fn settled(
    client: &RunningService<RoleClient, ClientConfig>,
    task_id: &str,
    passing: &[&str],
) -> Value {
    for _ in 0..500 {
        let got = client.get_task(GetTaskParams::new(task_id)).await.unwrap();
        let got = serde_json::to_value(got).unwrap();
        if !passing.contains(&got["status"].as_str().unwrap_or_default()) {
            return got;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("task {task_id} did not settle");
}
