//! One `wink run` per HTTP adapter against a loopback server that replays provider responses:
//! the adapter maps the conversation onto the provider's wire format, the loop injects the tool
//! disclosed by `read_section`, and the answer reaches stdout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{Value, json};

#[derive(Debug, Clone)]
struct Recorded {
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

/// Serves `responses` in order (one per request) on 127.0.0.1; records every request.
fn serve(responses: Vec<Value>) -> (String, Arc<Mutex<Vec<Recorded>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let log = recorded.clone();
    thread::spawn(move || {
        for (stream, response) in listener.incoming().zip(responses) {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let path = request_line
                .split_whitespace()
                .nth(1)
                .unwrap_or("")
                .to_owned();
            let mut headers = Vec::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                let (k, v) = line.split_once(':').unwrap();
                let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_owned());
                if k == "content-length" {
                    length = v.parse().unwrap();
                }
                headers.push((k, v));
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            log.lock().unwrap().push(Recorded {
                path,
                headers,
                body: serde_json::from_slice(&body).unwrap(),
            });
            let text = response.to_string();
            write!(stream, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}", text.len(), text).unwrap();
        }
    });
    (format!("http://{addr}"), recorded)
}

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn run(model: &str, base_url: &str, env: &[(&str, &str)]) -> (String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wink"));
    cmd.args([
        "run",
        &fixture("unified.json"),
        "--model",
        model,
        "--base-url",
        base_url,
        "--params",
        r#"{"TaskParams": {"objective": "add 2 and 40"}}"#,
    ]);
    cmd.env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("LITELLM_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_BASE_URL");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        out.status.success(),
        "exit {:?}: {stderr}",
        out.status.code()
    );
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

fn chat_tool_call(id: &str, name: &str, args: &str) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": name, "arguments": args}}]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}})
}

fn chat_text(text: &str) -> Value {
    json!({"id": "chatcmpl-2", "object": "chat.completion", "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 200, "completion_tokens": 8, "total_tokens": 208}})
}

fn tools_offered_chat(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn check_chat_flow(model: &str, env: &[(&str, &str)], auth: Option<&str>) {
    let (base, recorded) = serve(vec![
        chat_tool_call("call_1", "read_section", r#"{"section_key": "math"}"#),
        chat_tool_call("call_2", "add", r#"{"a": 2, "b": 40}"#),
        chat_text("The sum is 42."),
    ]);
    let (stdout, stderr) = run(model, &format!("{base}/v1"), env);
    assert_eq!(stdout, "The sum is 42.\n", "{stderr}");
    let requests = recorded.lock().unwrap().clone();
    assert_eq!(requests.len(), 3);
    assert!(
        requests.iter().all(|r| r.path == "/v1/chat/completions"),
        "{requests:?}"
    );
    assert_eq!(tools_offered_chat(&requests[0].body), ["read_section"]);
    assert_eq!(
        tools_offered_chat(&requests[1].body),
        ["read_section", "add"]
    );
    let messages = requests[2].body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages.last().unwrap()["role"], "tool");
    assert_eq!(messages.last().unwrap()["content"], "sum\n\n{\"sum\": 42}");
    let header = requests[0]
        .headers
        .iter()
        .find(|(k, _)| k == "authorization")
        .map(|(_, v)| v.as_str());
    assert_eq!(header, auth);
}

#[test]
fn openai_chat_adapter() {
    check_chat_flow(
        "openai:gpt-4.1",
        &[("OPENAI_API_KEY", "sk-test-openai")],
        Some("Bearer sk-test-openai"),
    );
}

#[test]
fn litellm_adapter() {
    check_chat_flow(
        "litellm:my-alias",
        &[("LITELLM_API_KEY", "sk-test-litellm")],
        Some("Bearer sk-test-litellm"),
    );
}

#[test]
fn openai_compat_adapter() {
    check_chat_flow("openai-compat:qwen", &[], None);
}

#[test]
fn openai_responses_adapter() {
    let call = |id: &str, name: &str, args: &str| json!({"id": "resp_1", "object": "response", "model": "m", "status": "completed", "output": [{"type": "function_call", "id": format!("fc_{id}"), "call_id": id, "name": name, "arguments": args, "status": "completed"}], "usage": {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110}});
    let (base, recorded) = serve(vec![
        call("call_1", "read_section", r#"{"section_key": "math"}"#),
        call("call_2", "add", r#"{"a": 2, "b": 40}"#),
        json!({"id": "resp_3", "object": "response", "model": "m", "status": "completed", "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "The sum is 42.", "annotations": []}]}], "usage": {"input_tokens": 150, "output_tokens": 6, "total_tokens": 156}}),
    ]);
    let (stdout, stderr) = run(
        "openai-responses:gpt-4.1",
        &format!("{base}/v1"),
        &[("OPENAI_API_KEY", "sk-test")],
    );
    assert_eq!(stdout, "The sum is 42.\n", "{stderr}");
    let requests = recorded.lock().unwrap().clone();
    assert!(requests.iter().all(|r| r.path == "/v1/responses"));
    let names = |b: &Value| {
        b["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&requests[1].body), ["read_section", "add"]);
    let input = requests[2].body["input"].as_array().unwrap();
    assert_eq!(input.last().unwrap()["type"], "function_call_output");
    assert_eq!(input.last().unwrap()["call_id"], "call_2");
}

#[test]
fn anthropic_adapter() {
    let call = |id: &str, name: &str, input: Value| json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}], "stop_reason": "tool_use", "usage": {"input_tokens": 100, "output_tokens": 10}});
    let (base, recorded) = serve(vec![
        call("toolu_1", "read_section", json!({"section_key": "math"})),
        call("toolu_2", "add", json!({"a": 2, "b": 40})),
        json!({"id": "msg_3", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": "The sum is 42."}], "stop_reason": "end_turn", "usage": {"input_tokens": 150, "output_tokens": 6}}),
    ]);
    let (stdout, stderr) = run(
        "anthropic:claude-sonnet-4-5",
        &base,
        &[("ANTHROPIC_API_KEY", "sk-ant-test")],
    );
    assert_eq!(stdout, "The sum is 42.\n", "{stderr}");
    let requests = recorded.lock().unwrap().clone();
    assert!(requests.iter().all(|r| r.path == "/v1/messages"));
    assert!(
        requests[0]
            .headers
            .iter()
            .any(|(k, v)| k == "x-api-key" && v == "sk-ant-test")
    );
    assert!(
        requests[0].body["system"]
            .as_str()
            .unwrap_or_default()
            .contains("## 1. Task (task)")
            || requests[0].body["system"].is_array()
    );
    let names = |b: &Value| {
        b["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&requests[1].body), ["read_section", "add"]);
    let last = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"][0]["type"], "tool_result");
    assert_eq!(last["content"][0]["tool_use_id"], "toolu_2");
}
