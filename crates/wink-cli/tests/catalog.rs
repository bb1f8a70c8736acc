//! `wink catalog eval|tokens` and `wink tools list|describe|search` end to end.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/catalog")
        .join(name)
        .display()
        .to_string()
}

fn mcp_server() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../wink-catalog/tests/fixtures/mcp_server.py")
        .display()
        .to_string()
}

fn wink(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn usage_error(args: &[&str]) -> String {
    let out = wink(args);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn eval_prints_the_metrics_as_json() {
    let tools = fixture("tools.jsonl");
    let queries = fixture("queries.jsonl");
    let text = stdout(&wink(&[
        "catalog",
        "eval",
        "--tools",
        &tools,
        "--queries",
        &queries,
        "--format",
        "json",
    ]));
    let value: Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "recall@1",
            "recall@5",
            "recall@10",
            "ndcg@10",
            "mrr",
            "queries",
            "tools"
        ]
    );
    assert_eq!(value["queries"], 6);
    assert_eq!(value["tools"], 5);
    // By hand: the two single-tool queries without a shared word ("raining", "schedule a
    // meeting") retrieve nothing; the other three single-tool queries hit at rank 1; the
    // two-tool query finds both at ranks 1 and 2 (recall@1 = 1/2).
    assert_eq!(value["recall@1"], 3.5 / 6.0);
    assert_eq!(value["recall@5"], 4.0 / 6.0);
    assert_eq!(value["recall@10"], 4.0 / 6.0);
    assert_eq!(value["ndcg@10"], 4.0 / 6.0);
    assert_eq!(value["mrr"], 4.0 / 6.0);
    insta::assert_snapshot!("eval_json", text);
}

#[test]
fn eval_prints_a_table() {
    let tools = fixture("tools.jsonl");
    let queries = fixture("queries.jsonl");
    let text = stdout(&wink(&[
        "catalog",
        "eval",
        "--tools",
        &tools,
        "--queries",
        &queries,
    ]));
    insta::assert_snapshot!("eval_text", text);
}

#[test]
fn eval_errors_are_usage_errors() {
    let tools = fixture("tools.jsonl");
    let err = usage_error(&[
        "catalog",
        "eval",
        "--tools",
        &tools,
        "--queries",
        "/nonexistent/q.jsonl",
    ]);
    assert!(
        err.starts_with("error: cannot read /nonexistent/q.jsonl: "),
        "{err}"
    );
    let err = usage_error(&["catalog", "eval"]);
    assert_eq!(
        err,
        "error: give `--dataset bfcl DIR`, or `--tools TOOLS.jsonl --queries QUERIES.jsonl`\n"
    );
}

#[test]
fn tokens_reports_the_footprint() {
    let tools = fixture("tools.jsonl");
    let text = stdout(&wink(&["catalog", "tokens", &tools, "--format", "json"]));
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["tools"], 5);
    assert_eq!(value["namespaces"], 4);
    insta::assert_snapshot!("tokens_json", text);
    let out = Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(["catalog", "tokens", "tools.jsonl"])
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalog"))
        .output()
        .unwrap();
    insta::assert_snapshot!("tokens_text", stdout(&out));
}

#[test]
fn tools_list_describe_search_over_a_file() {
    let tools = fixture("tools.jsonl");
    assert_eq!(
        stdout(&wink(&[
            "tools",
            "list",
            "--catalog",
            &tools,
            "--namespace",
            "file"
        ])),
        "Namespace `file`: tools 1-2 of 2.\n- file.read: Read a file from disk and return its text.\n- file.write: Write text to a file on disk.\n"
    );
    assert_eq!(
        stdout(&wink(&[
            "tools",
            "search",
            "--catalog",
            &tools,
            "weather forecast",
            "--limit",
            "1"
        ])),
        "Tools for \"weather forecast\", best first (call `tool.describe` with a name to make it callable):\n- weather.current: Current weather for a city.\n"
    );
    assert_eq!(
        stdout(&wink(&[
            "tools",
            "describe",
            "--catalog",
            &tools,
            "weather.current"
        ])),
        "`weather.current` is now callable. Full specification:\n\n### weather.current\nCurrent weather for a city.\nParameters (JSON Schema): {\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}\nReturns: text\n"
    );
    let out = wink(&["tools", "describe", "--catalog", &tools, "nope"]);
    assert_eq!(out.status.code(), Some(1));
    let err = usage_error(&["tools", "list"]);
    assert!(err.contains("--catalog <FILE>"), "{err}");
}

#[test]
fn tools_over_an_mcp_server() {
    let command = format!("python3 {}", mcp_server());
    assert_eq!(
        stdout(&wink(&["tools", "list", "--mcp", &command])),
        "Catalog: tools 1-3 of 3.\n- add: Add two numbers.\n- echo: Echo a message back.\n- fail: Always fails.\n"
    );
    assert_eq!(
        stdout(&wink(&[
            "tools",
            "search",
            "--mcp",
            &command,
            "sum of numbers",
            "--limit",
            "1"
        ])),
        "Tools for \"sum of numbers\", best first (call `tool.describe` with a name to make it callable):\n- add: Add two numbers.\n"
    );
    let err = usage_error(&["tools", "list", "--mcp", "/nonexistent/server"]);
    assert!(
        err.starts_with("error: MCP server `/nonexistent/server`: cannot start: "),
        "{err}"
    );
}
