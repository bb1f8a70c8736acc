//! The server seen by a client this project did not write: the official MCP Python SDK
//! (`pip install mcp`, tested with 2.3.0) over streamable HTTP, in both protocol eras.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

use serde_json::{Value, json};
use wink_mcp::{PromptServer, serve_http};
use wink_session::Session;

fn expected(modern: bool) -> Value {
    json!({
        "modern": modern,
        "tools_list_changed_capability": true,
        "instructions_head": "## 1. Task (task)",
        "tools_before": ["read_section"],
        "resources": ["wink://demo/mcp", "wink://demo/mcp/task", "wink://demo/mcp/reference",
                      "wink://demo/mcp/reference.details", "wink://demo/mcp/math"],
        "section_resource": "## 3. Math (math)\n\nUse add for sums.",
        "alias_resource": "## 3. Math (math)\n\nUse add for sums.",
        "prompts": ["demo:mcp"],
        "prompt_text": "## 1. Task (task)\n\nAdd 2 and 3.\n\n## 2. Reference (reference)\n\nReference available.\n\n---\n[This section is summarized. Call `read_section` with key \"reference\" to view full content including subsections: details.]\n\n## 3. Math (math)\n\nArithmetic tools.\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"math\".]",
        "early_call": {"is_error": true, "text": "Tool 'add' is not available yet: it belongs to section 'math', which is summarized. Call read_section with key \"math\" first."},
        "read_section": {"is_error": false, "text": "Content of section 'math':\n\n## 3. Math (math)\n\nUse add for sums.\n\nNew tools are now available: add. If you cannot see them, list the tools again (tools/list) before calling them."},
        "list_changed": true,
        "tools_after": ["add", "read_section"],
        "tool_call": {"is_error": false, "text": "sum\n\n{\"sum\": 5}"},
    })
}

fn run_client(mode: &str) -> Value {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = PromptServer::new(common::demo_prompt(), Session::new());
    let http = runtime
        .block_on(serve_http(server, "127.0.0.1:0".parse().unwrap()))
        .unwrap();
    let output = Command::new("python3")
        .arg(common::python_script("mcp_client_check.py"))
        .args([
            "--mode",
            mode,
            "--url",
            &http.url(),
            "--section",
            "math",
            "--tool",
            "add",
        ])
        .args(["--tool-args", r#"{"a": 2, "b": 3}"#])
        .output()
        .unwrap();
    runtime.block_on(http.shutdown());
    assert!(
        output.status.success(),
        "python client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn python_sdk_handshake_era_client_gets_list_changed_and_the_injected_tool() {
    if !common::python_mcp_sdk() {
        return;
    }
    assert_eq!(run_client("legacy"), expected(false));
}

#[test]
fn python_sdk_2026_client_gets_list_changed_through_subscriptions_listen() {
    if !common::python_mcp_sdk() {
        return;
    }
    assert_eq!(run_client("auto"), expected(true));
}
