//! A server that asks for input during a tool call (SEP-2322 `input_required`), answered by
//! wink's client. Elicitation: declined (`--elicitation decline`, which never reads stdin), or
//! asked at the terminal (`--elicitation ask`: a form on stderr, the answers from stdin).
//! Sampling: answered by the run's own model, spending from the run's budget. The server is
//! `wink mcp serve` with the conformance fixture, over HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};

/// `wink mcp serve tests/conformance/server.json --http` on a free port, once it serves.
fn fixture_server() -> (Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wink"))
        .args([
            "mcp",
            "serve",
            "server.json",
            "--http",
            &format!("127.0.0.1:{port}"),
        ])
        .current_dir(common::conformance_dir())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.contains("serving on"), "{first}");
    (child, format!("http://127.0.0.1:{port}/mcp"))
}

/// `wink call` of the fixture's elicitation tool with `policy`, `input` on stdin (kept open
/// when `None`): (stdout, stderr).
fn call(prompt: &str, policy: &str, input: Option<&str>) -> (String, String) {
    call_tool(
        prompt,
        "fixture.test_input_required_result_elicitation",
        policy,
        input,
    )
}

fn call_tool(prompt: &str, tool: &str, policy: &str, input: Option<&str>) -> (String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(["call", prompt, tool, "{}", "--elicitation", policy])
        .env_remove("WINK_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let kept_open = match input {
        Some(text) => {
            stdin.write_all(text.as_bytes()).unwrap();
            drop(stdin);
            None
        }
        None => Some(stdin),
    };
    let out = child.wait_with_output().unwrap();
    drop(kept_open);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A prompt file in a fresh folder naming the fixture server's `tools` by `url`.
fn client_prompt(url: &str, name: &str, tools: &[&str]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prompt = dir.join("prompt.json");
    let section = serde_json::json!({"key": "tools", "title": "Tools", "builtin": "catalog", "defer": "never",
        "servers": {"fixture": {"url": url, "enabled_tools": tools}}});
    std::fs::write(
        &prompt,
        serde_json::json!({"ns": "e2e", "key": name, "sections": [section]}).to_string(),
    )
    .unwrap();
    prompt
}

#[test]
fn elicitation_is_declined_without_reading_stdin_or_asked_at_the_terminal() {
    let (server, url) = fixture_server();
    let _server = Stops(server);
    let path = client_prompt(&url, "elicit", &["test_input_required_result_elicitation"]);
    let prompt = path.to_str().unwrap();

    // Declined: stdin stays open and unread, the call finishes.
    let (stdout, stderr) = call(prompt, "decline", None);
    let result: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["message"], "Hello, stranger!");
    assert_eq!(result["success"], true);
    assert!(!stderr.contains("asks"), "{stderr}");

    // Asked: the form on stderr, the answer from stdin.
    let (stdout, stderr) = call(prompt, "ask", Some("Alice\n"));
    let result: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["message"], "Hello, Alice!");
    assert!(
        stderr.contains("An MCP server asks: What is your name?\n  name (string): "),
        "{stderr}"
    );

    // An answer left empty for a required field declines.
    let (stdout, _) = call(prompt, "ask", Some("\n"));
    let result: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["message"], "Hello, stranger!");

    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn sampling_is_answered_by_the_runs_own_model() {
    let (server, url) = fixture_server();
    let _server = Stops(server);
    let path = client_prompt(&url, "sample", &["test_input_required_result_sampling"]);
    let dir = path.parent().unwrap();
    // The scripted model's second turn answers the server's sampling request.
    let turns = serde_json::json!([
        {"tool_calls": [{"id": "1", "name": "fixture.test_input_required_result_sampling", "arguments": {}}]},
        {"text": "Paris."},
        {"text": "Done."}
    ]);
    std::fs::write(dir.join("script.json"), turns.to_string()).unwrap();
    let transcript = dir.join("t.json");
    let session = dir.join("s.jsonl");
    let out = common::wink(&[
        "run",
        path.to_str().unwrap(),
        "--model",
        &format!("scripted:{}", dir.join("script.json").display()),
        "--transcript",
        transcript.to_str().unwrap(),
        "--session",
        session.to_str().unwrap(),
    ]);
    assert_eq!(common::stdout(&out), "Done.\n");
    assert_eq!(
        common::last_tool_results(&transcript),
        [r#"Sampling answered: {"type": "text", "text": "Paris."}"#]
    );
    // The answer is in the session: what was asked and what was done.
    let log = std::fs::read_to_string(&session).unwrap();
    let answered: Vec<serde_json::Value> = log
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|event| event.to_string().contains("McpInputAnswered"))
        .collect();
    assert_eq!(answered.len(), 1, "{log}");
    let event = answered[0].to_string();
    assert!(
        event.contains(r#""server":"fixture","tool":"test_input_required_result_sampling","method":"sampling/createMessage","message":null,"action":"answered""#),
        "{event}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Kills the fixture server when the test ends, a failed one included.
struct Stops(Child);

impl Drop for Stops {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The lines of a run's progress on stderr without their times (`[   0.4s] `).
fn progress(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .map(|line| match line.split_once("s] ") {
            Some((time, rest)) if time.starts_with('[') => rest.to_owned(),
            _ => line.to_owned(),
        })
        .collect()
}

#[test]
fn sampling_spends_from_the_runs_budget() {
    let (server, url) = fixture_server();
    let _server = Stops(server);
    let path = client_prompt(&url, "budget", &["test_input_required_result_sampling"]);
    let dir = path.parent().unwrap();
    let turns = serde_json::json!([
        {"tool_calls": [{"id": "1", "name": "fixture.test_input_required_result_sampling", "arguments": {}}]},
        {"text": "Paris."},
        {"text": "Done."}
    ]);
    std::fs::write(dir.join("script.json"), turns.to_string()).unwrap();
    let session = dir.join("s.jsonl");
    let run = |max_model_calls: &str| {
        let _ = std::fs::remove_file(&session);
        common::wink(&[
            "run",
            path.to_str().unwrap(),
            "--model",
            &format!("scripted:{}", dir.join("script.json").display()),
            "--max-model-calls",
            max_model_calls,
            "--session",
            session.to_str().unwrap(),
        ])
    };
    let tool = "tool fixture.test_input_required_result_sampling({})";
    // Three calls: the run's two turns and the sampling between them.
    let out = run("3");
    assert_eq!(common::stdout(&out), "Done.\n");
    let lines = progress(&out.stderr);
    assert!(
        lines.contains(&"done: 3 model calls, 1 tool calls, 0 input tokens (0 cached), 0 output tokens, 0 restarts".to_owned()),
        "{lines:?}"
    );
    // Two: the run's first turn and the sampling; the run's second turn is over budget.
    let out = run("2");
    assert_eq!(out.status.code(), Some(3));
    let lines = progress(&out.stderr);
    assert_eq!(
        lines[lines.len() - 3..],
        [
            format!(r#"  {tool} -> Sampling answered: {{"type": "text", "text": "Paris."}}"#),
            "done: 2 model calls, 1 tool calls, 0 input tokens (0 cached), 0 output tokens, 0 restarts".to_owned(),
            "error: budget exceeded: 2 model calls (raise it with --max-model-calls)".to_owned(),
        ]
    );
    // One: the sampling itself is refused, and the tool call fails saying why.
    let out = run("1");
    assert_eq!(out.status.code(), Some(3));
    let lines = progress(&out.stderr);
    assert_eq!(
        lines[lines.len() - 2..],
        [
            "done: 1 model calls, 1 tool calls, 0 input tokens (0 cached), 0 output tokens, 0 restarts",
            "error: budget exceeded: 1 model call (raise it with --max-model-calls)",
        ]
    );
    let log = std::fs::read_to_string(&session).unwrap();
    assert!(
        log.contains(r#""message":"Tool 'fixture.test_input_required_result_sampling' execution failed: MCP server `fixture`: sampling with script failed: scripted (script): the run's max model calls budget ran out""#),
        "{log}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
