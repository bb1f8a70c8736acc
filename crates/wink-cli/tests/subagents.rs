//! Sub-agents declared in a prompt file (`"subagents": {"reviewer": "reviewer.json"}`), run by
//! `wink run` and `wink mcp serve` with the scripted provider.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use common::{fixture, stdout, usage_error, wink};
use serde_json::{Value, json};

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-subagents-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn wink_run_dispatches_a_subagent_declared_in_the_prompt_file() {
    let dir = temp_dir("run");
    let log = dir.join("session.jsonl");
    let transcript = dir.join("transcript.json");
    let out = wink(&[
        "run",
        &fixture("subagents/lead.json"),
        "--model",
        &format!("scripted:{}", fixture("subagents/script.json")),
        "--session",
        log.to_str().unwrap(),
        "--transcript",
        transcript.to_str().unwrap(),
        "--max-model-calls",
        "4",
    ]);
    assert_eq!(stdout(&out), "Reviewed: the greeting is fine.\n");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    // The parent's two model calls; the child's two ran in between, from the same budget.
    let calls = t["model_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["tools"], json!(["echo", "dispatch_subagent"]));
    let last = calls[1]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["content"], "The greeting is fine.\n\nTools used: echo");
    assert_eq!(t["model_call_count"], 4);

    // The session log holds the run's record and the child's telemetry, tagged with its run id.
    let shown: Value = serde_json::from_str(&stdout(&wink(&[
        "session",
        "show",
        log.to_str().unwrap(),
        "--format",
        "json",
    ])))
    .unwrap();
    let run = &shown["slices"]["SubagentRun"][0];
    assert_eq!(run["prompt_key"], "reviewer");
    assert_eq!(run["tools_used"], json!(["echo"]));
    assert_eq!(run["outcome"], json!({"status": "completed"}));
    let events = shown["slices"]["SubagentEvent"].as_array().unwrap();
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["event_type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "PromptRendered",
            "ModelCalled",
            "ToolInvoked",
            "ModelCalled",
            "PromptExecuted"
        ]
    );
    assert!(
        events
            .iter()
            .all(|e| e["run_id"] == run["child_session_id"])
    );
    assert_eq!(events[2]["event"]["name"], "echo");

    // The log resumes (its event types are known to `wink run`).
    let again = wink(&[
        "run",
        &fixture("subagents/lead.json"),
        "--model",
        &format!("scripted:{}", fixture("subagents/script.json")),
        "--session",
        log.to_str().unwrap(),
    ]);
    assert_eq!(stdout(&again), "Reviewed: the greeting is fine.\n");
}

#[test]
fn a_subagent_entry_must_name_its_prompt_key() {
    let err = usage_error(&["render", &fixture("subagents/bad_key.json")]);
    assert_eq!(
        err,
        format!(
            "error: {}: subagents.critic: {} declares key 'reviewer': the entry's name must be the prompt's key (the model dispatches it as prompt_key)\n",
            fixture("subagents/bad_key.json"),
            fixture("subagents/reviewer.json"),
        )
    );
}

#[test]
fn wink_render_shows_the_subagents_section() {
    let text = stdout(&wink(&["render", &fixture("subagents/lead.json")]));
    assert!(
        text.contains("## 3. Subagents (subagents)\n\nUse `dispatch_subagent`"),
        "{text}"
    );
    assert!(
        text.contains(
            "\n\nSubagent prompts:\n- prompt_ns \"demo\", prompt_key \"reviewer\": Review one text and report problems\n\nTools:\n"
        ),
        "{text}"
    );
}

#[test]
fn mcp_serve_takes_a_model_only_for_subagents() {
    let err = usage_error(&["mcp", "serve", &fixture("unified.json"), "--model", "local"]);
    assert!(
        err.starts_with("error: --model: ") && err.contains("declares no subagents"),
        "{err}"
    );
}

/// One JSON-RPC exchange over the server's stdio: send `request`, read lines until its answer.
fn call(
    stdin: &mut impl Write,
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    request: &Value,
) -> Value {
    writeln!(stdin, "{request}").unwrap();
    stdin.flush().unwrap();
    loop {
        let line = lines.next().unwrap().unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == request["id"] {
            return message;
        }
    }
}

/// `wink mcp serve ARGS` on stdio, initialized (at `protocol`, with these client capabilities).
struct Served {
    server: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Served {
    fn start(args: &[&str], protocol: &str, capabilities: Value) -> Self {
        let mut server = Command::new(env!("CARGO_BIN_EXE_wink"))
            .args(["mcp", "serve"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = server.stdin.take().unwrap();
        let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
        let init = call(
            &mut stdin,
            &mut lines,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": protocol, "capabilities": capabilities,
                "clientInfo": {"name": "test", "version": "0"}}}),
        );
        assert!(init["result"].is_object(), "{init}");
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        Self {
            server,
            stdin,
            lines,
        }
    }

    fn call(&mut self, request: &Value) -> Value {
        call(&mut self.stdin, &mut self.lines, request)
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
    }

    fn stop(mut self) {
        drop(self.stdin);
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

#[test]
fn mcp_serve_runs_a_dispatched_subagent_on_the_given_model() {
    // The MCP client is the parent's model; the script serves the child only.
    let dir = temp_dir("mcp");
    let script = dir.join("child.json");
    std::fs::write(
        &script,
        r#"[{"tool_calls": [{"id": "e1", "name": "echo", "arguments": {"text": "hello"}}]},
            {"text": "The greeting is fine."}]"#,
    )
    .unwrap();
    let model = format!("scripted:{}", script.display());
    let mut served = Served::start(
        &[&fixture("subagents/lead.json"), "--model", &model],
        "2025-06-18",
        json!({}),
    );
    let tools =
        served.call(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"dispatch_subagent"), "{names:?}");
    let result = served.call(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "dispatch_subagent",
            "arguments": {"mode": "ad_hoc", "prompt_ns": "demo", "prompt_key": "reviewer",
                          "instructions": "Review the greeting 'hello'."}}}),
    );
    served.stop();
    assert_eq!(result["result"]["isError"], false, "{result}");
    assert_eq!(
        result["result"]["content"][0]["text"],
        "The greeting is fine.\n\nTools used: echo"
    );
}

/// The server's next request of `method` on its stdout (other lines are skipped).
fn next_request(lines: &mut impl Iterator<Item = std::io::Result<String>>, method: &str) -> Value {
    loop {
        let line = lines.next().unwrap().unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["method"] == method {
            return message;
        }
    }
}

#[test]
fn mcp_serve_without_a_model_runs_a_subagent_on_the_clients_model() {
    let mut served = Served::start(
        &[&fixture("subagents/lead.json")],
        "2025-11-25",
        json!({"sampling": {"tools": {}}}),
    );
    served.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "dispatch_subagent",
        "arguments": {"mode": "ad_hoc", "prompt_ns": "demo", "prompt_key": "reviewer",
                      "instructions": "Review the greeting 'hello'."}}}),
    );

    // The child's first model call: its prompt, its task and the tools it may call.
    let first = next_request(&mut served.lines, "sampling/createMessage");
    let params = &first["params"];
    assert!(
        params["systemPrompt"]
            .as_str()
            .unwrap()
            .contains("You review one text and report its problems in one sentence."),
        "{first}"
    );
    assert!(
        params["messages"][0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Review the greeting 'hello'."),
        "{first}"
    );
    let tools: Vec<&str> = params["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"echo"), "{tools:?}");
    assert_eq!(params["toolChoice"], json!({"mode": "auto"}));
    served.send(&json!({"jsonrpc": "2.0", "id": first["id"], "result": {
        "role": "assistant", "model": "client-llm", "stopReason": "toolUse",
        "content": [{"type": "tool_use", "id": "u1", "name": "echo", "input": {"text": "hello"}}]}}));

    // The second: the echo's result goes back as a tool_result block.
    let second = next_request(&mut served.lines, "sampling/createMessage");
    let messages = second["params"]["messages"].as_array().unwrap();
    assert_eq!(
        messages[messages.len() - 2..],
        [
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "u1", "name": "echo", "input": {"text": "hello"}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "toolUseId": "u1",
                "content": [{"type": "text", "text": "{\"text\":\"hello\"}"}], "isError": false}]})
        ]
    );
    served.send(&json!({"jsonrpc": "2.0", "id": second["id"], "result": {
        "role": "assistant", "model": "client-llm", "stopReason": "endTurn",
        "content": {"type": "text", "text": "The greeting is fine."}}}));
    let result = loop {
        let line = served.lines.next().unwrap().unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            break message;
        }
    };
    served.stop();
    assert_eq!(result["result"]["isError"], false, "{result}");
    assert_eq!(
        result["result"]["content"][0]["text"],
        "The greeting is fine.\n\nTools used: echo"
    );
}
