//! One `wink run` per HTTP adapter against a loopback server that replays provider responses:
//! the adapter maps the conversation onto the provider's wire format, the loop injects the tool
//! disclosed by `read_section`, and the answer reaches stdout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

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

/// One canned reply: a JSON body or an SSE stream.
enum Canned {
    Json(Value),
    Sse(String),
}

/// Serves `responses` in order (one per request) on 127.0.0.1; records every request.
fn serve(responses: Vec<Value>) -> (String, Arc<Mutex<Vec<Recorded>>>) {
    serve_canned(responses.into_iter().map(Canned::Json).collect())
}

/// As [`serve`], with SSE replies too.
fn serve_canned(responses: Vec<Canned>) -> (String, Arc<Mutex<Vec<Recorded>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let log = recorded.clone();
    thread::spawn(move || {
        let mut responses = responses.into_iter();
        for stream in listener.incoming() {
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
            // The openai-compat adapter asks a llama.cpp server for its context size once
            // (`GET /props`); this mock is no such server.
            if request_line.starts_with("GET ") {
                write!(
                    stream,
                    "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                )
                .unwrap();
                continue;
            }
            let Some(response) = responses.next() else {
                break;
            };
            log.lock().unwrap().push(Recorded {
                path,
                headers,
                body: serde_json::from_slice(&body).unwrap(),
            });
            let (content_type, text) = match response {
                Canned::Json(value) => ("application/json", value.to_string()),
                Canned::Sse(text) => ("text/event-stream", text),
            };
            write!(stream, "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}", text.len(), text).unwrap();
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
    let (code, stdout, stderr) = run_with(
        "unified.json",
        &[
            "--model",
            model,
            "--base-url",
            base_url,
            "--params",
            r#"{"TaskParams": {"objective": "add 2 and 40"}}"#,
        ],
        env,
    );
    assert_eq!(code, 0, "{stderr}");
    (stdout, stderr)
}

/// `wink run FIXTURE ARGS...` with the provider variables cleared and `env` set: exit code,
/// stdout, stderr.
fn run_with(prompt: &str, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wink"));
    cmd.arg("run").arg(fixture(prompt)).args(args);
    for variable in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "LITELLM_API_KEY",
        "OPENAI_COMPAT_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "LITELLM_BASE_URL",
    ] {
        cmd.env_remove(variable);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
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

fn anthropic_tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}], "stop_reason": "tool_use", "usage": {"input_tokens": 100, "output_tokens": 10}})
}

fn anthropic_text(text: &str) -> Value {
    json!({"id": "msg_3", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "usage": {"input_tokens": 150, "output_tokens": 6}})
}

fn header<'a>(request: &'a Recorded, name: &str) -> Option<&'a str> {
    request
        .headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn litellm_adapter_in_anthropic_format() {
    let (base, recorded) = serve(vec![
        anthropic_tool_use("toolu_1", "read_section", json!({"section_key": "math"})),
        anthropic_tool_use("toolu_2", "add", json!({"a": 2, "b": 40})),
        anthropic_text("The sum is 42."),
    ]);
    let (code, stdout, stderr) = run_with(
        "unified.json",
        &[
            "--model",
            "litellm:claude-sonnet-4-5",
            "--litellm-format",
            "anthropic",
            "--base-url",
            &base,
            "--params",
            r#"{"TaskParams": {"objective": "add 2 and 40"}}"#,
        ],
        &[("LITELLM_API_KEY", "sk-litellm-proxy")],
    );
    assert_eq!((code, stdout.as_str()), (0, "The sum is 42.\n"), "{stderr}");
    let requests = recorded.lock().unwrap().clone();
    assert_eq!(requests.len(), 3);
    for request in &requests {
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(
            header(request, "authorization"),
            Some("Bearer sk-litellm-proxy")
        );
        assert_eq!(header(request, "x-api-key"), None);
        assert_eq!(header(request, "anthropic-version"), Some("2023-06-01"));
        assert_eq!(request.body["model"], "claude-sonnet-4-5");
        assert_eq!(request.body["max_tokens"], 8192);
    }
    assert_eq!(
        requests[2].body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap(),
        &json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "sum\n\n{\"sum\": 42}"}]})
    );
    // The same proxy in its default format speaks Chat Completions.
    let (base, recorded) = serve(vec![chat_text("Hi.")]);
    let (code, stdout, stderr) = run_with(
        "unified.json",
        &[
            "--model",
            "litellm:claude-sonnet-4-5",
            "--litellm-format",
            "openai",
            "--base-url",
            &base,
            "--params",
            r#"{"TaskParams": {"objective": "greet"}}"#,
        ],
        &[],
    );
    assert_eq!((code, stdout.as_str()), (0, "Hi.\n"), "{stderr}");
    let requests = recorded.lock().unwrap().clone();
    assert_eq!(requests[0].path, "/chat/completions");
    assert_eq!(header(&requests[0], "authorization"), None);
}

#[test]
fn anthropic_base_url_from_the_environment() {
    let (base, recorded) = serve(vec![anthropic_text("Hello.")]);
    let (code, stdout, stderr) = run_with(
        "unified.json",
        &[
            "--model",
            "anthropic:claude-sonnet-4-5",
            "--params",
            r#"{"TaskParams": {"objective": "greet"}}"#,
        ],
        &[
            ("ANTHROPIC_API_KEY", "sk-ant-env"),
            ("ANTHROPIC_BASE_URL", &base),
        ],
    );
    assert_eq!((code, stdout.as_str()), (0, "Hello.\n"), "{stderr}");
    let requests = recorded.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(header(&requests[0], "x-api-key"), Some("sk-ant-env"));
}

#[test]
fn openai_compat_key_from_a_named_variable_or_its_own() {
    let key = "sk-local-secret-31337";
    let dir = std::env::temp_dir().join(format!("wink-compat-key-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (flags, env) in [
        (
            vec!["--api-key-env", "MY_SERVER_KEY"],
            vec![("MY_SERVER_KEY", key), ("OPENAI_COMPAT_API_KEY", "other")],
        ),
        (vec![], vec![("OPENAI_COMPAT_API_KEY", key)]),
    ] {
        let (base, recorded) = serve(vec![
            chat_tool_call("call_1", "read_section", r#"{"section_key": "math"}"#),
            chat_tool_call("call_2", "add", r#"{"a": 2, "b": 40}"#),
            chat_text("The sum is 42."),
        ]);
        let transcript = dir.join("transcript.json");
        let session = dir.join("session.jsonl");
        let _ = std::fs::remove_file(&session);
        let base_url = format!("{base}/v1");
        let mut args = vec![
            "--model",
            "openai-compat:qwen3",
            "--base-url",
            &base_url,
            "--params",
            r#"{"TaskParams": {"objective": "add 2 and 40"}}"#,
            "--transcript",
            transcript.to_str().unwrap(),
            "--session",
            session.to_str().unwrap(),
            "--verbose",
        ];
        args.extend(flags.iter().copied());
        let (code, stdout, stderr) = run_with("unified.json", &args, &env);
        assert_eq!((code, stdout.as_str()), (0, "The sum is 42.\n"), "{stderr}");
        let requests = recorded.lock().unwrap().clone();
        assert_eq!(requests.len(), 3);
        for request in &requests {
            assert_eq!(
                header(request, "authorization"),
                Some(format!("Bearer {key}").as_str())
            );
        }
        for written in [
            std::fs::read_to_string(&transcript).unwrap(),
            std::fs::read_to_string(&session).unwrap(),
            stderr,
        ] {
            assert!(!written.is_empty());
            assert!(!written.contains(key), "{written}");
        }
    }
    // A named variable that is not set is a usage error naming it.
    let (code, stdout, stderr) = run_with(
        "unified.json",
        &[
            "--model",
            "openai-compat:qwen3",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--api-key-env",
            "NOT_SET_ANYWHERE",
        ],
        &[],
    );
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr,
        "error: --model openai-compat:qwen3: The API key variable NOT_SET_ANYWHERE is not set.\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn chat_chunk(delta: Value, finish: Option<&str>) -> String {
    let chunk = json!({"id": "chatcmpl-s", "object": "chat.completion.chunk", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], "usage": null});
    format!("data: {chunk}\n\n")
}

fn chat_usage_chunk() -> String {
    let chunk = json!({"id": "chatcmpl-s", "object": "chat.completion.chunk", "model": "m", "choices": [], "usage": {"prompt_tokens": 200, "completion_tokens": 8, "total_tokens": 208}});
    format!("data: {chunk}\n\ndata: [DONE]\n\n")
}

#[test]
fn stream_flag_streams_text_to_stdout() {
    let adding = [
        chat_chunk(json!({"role": "assistant", "content": "Adding "}), None),
        chat_chunk(json!({"content": "them. "}), None),
        chat_chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_2", "type": "function", "function": {"name": "add", "arguments": ""}}]}),
            None,
        ),
        chat_chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\": 2, "}}]}),
            None,
        ),
        chat_chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"b\": 40}"}}]}),
            None,
        ),
        chat_chunk(json!({}), Some("tool_calls")),
        chat_usage_chunk(),
    ]
    .concat();
    let answer = [
        chat_chunk(json!({"role": "assistant", "content": "The sum"}), None),
        chat_chunk(json!({"content": " is 42."}), None),
        chat_chunk(json!({}), Some("stop")),
        chat_usage_chunk(),
    ]
    .concat();
    let (base, recorded) = serve_canned(vec![
        // A server may answer a streamed request with plain JSON.
        Canned::Json(chat_tool_call(
            "call_1",
            "read_section",
            r#"{"section_key": "math"}"#,
        )),
        Canned::Sse(adding),
        Canned::Sse(answer),
    ]);
    let base_url = format!("{base}/v1");
    let (code, stdout, stderr) = run_with(
        "unified.json",
        &[
            "--model",
            "openai:gpt-4.1",
            "--base-url",
            &base_url,
            "--stream",
            "--params",
            r#"{"TaskParams": {"objective": "add 2 and 40"}}"#,
        ],
        &[("OPENAI_API_KEY", "sk-test")],
    );
    // Every text delta reaches stdout as it arrives, the text before the tool call included
    // (without streaming only the final answer is printed).
    assert_eq!(
        (code, stdout.as_str()),
        (0, "Adding them. The sum is 42.\n"),
        "{stderr}"
    );
    let requests = recorded.lock().unwrap().clone();
    assert_eq!(requests.len(), 3);
    for request in &requests {
        assert_eq!(request.body["stream"], true);
        assert_eq!(
            request.body["stream_options"],
            json!({"include_usage": true})
        );
        assert_eq!(header(request, "accept"), Some("text/event-stream"));
    }
    assert_eq!(
        requests[2].body["messages"].as_array().unwrap()[3..],
        [
            json!({"role": "assistant", "content": "Adding them. ", "tool_calls": [{"id": "call_2", "type": "function", "function": {"name": "add", "arguments": "{\"a\": 2, \"b\": 40}"}}]}),
            json!({"role": "tool", "tool_call_id": "call_2", "content": "sum\n\n{\"sum\": 42}"})
        ]
    );
}

fn tool_names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let name = t["name"]
                .as_str()
                .unwrap_or_else(|| t["type"].as_str().unwrap());
            if t.get("defer_loading") == Some(&json!(true)) {
                format!("{name} (deferred)")
            } else {
                name.to_owned()
            }
        })
        .collect()
}

/// `find_tool`'s answer in native mode.
const FOUND: &str = "Tools for \"add two integers\", best first (loaded: call them directly):\n- math.add: Add two integers and return the sum.";

#[test]
fn native_tool_search_with_anthropic() {
    let (base, recorded) = serve(vec![
        anthropic_tool_use(
            "toolu_1",
            "find_tool",
            json!({"purpose": "add two integers"}),
        ),
        anthropic_tool_use("toolu_2", "math__add", json!({"a": 2, "b": 40})),
        anthropic_text("The sum is 42."),
    ]);
    let (code, stdout, stderr) = run_with(
        "catalog_prompt.json",
        &[
            "--model",
            "anthropic:claude-sonnet-4-5",
            "--base-url",
            &base,
            "--native-tool-search",
        ],
        &[("ANTHROPIC_API_KEY", "sk-ant-test")],
    );
    assert_eq!((code, stdout.as_str()), (0, "The sum is 42.\n"), "{stderr}");
    let requests = recorded.lock().unwrap().clone();
    assert_eq!(requests.len(), 3);
    let deferred = [
        "math__add (deferred)",
        "file__read (deferred)",
        "file__write (deferred)",
        "web__search (deferred)",
        "weather__current (deferred)",
        "calendar__create_event (deferred)",
    ];
    // The same tool list on every call: nothing is injected, the provider loads what it finds.
    for request in &requests {
        assert_eq!(
            tool_names(&request.body["tools"]),
            [
                &["tool__list", "tool__describe", "find_tool"][..],
                &deferred
            ]
            .concat()
        );
    }
    assert_eq!(
        requests[1].body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap(),
        &json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [
            {"type": "text", "text": FOUND},
            {"type": "tool_reference", "tool_name": "math__add"}
        ]}]})
    );
    assert_eq!(
        requests[2].body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap(),
        &json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "sum\n\n{\"sum\": 42}"}]})
    );
}

#[test]
fn native_tool_search_with_openai_responses() {
    let (base, recorded) = serve(vec![
        json!({"id": "resp_1", "object": "response", "model": "m", "status": "completed", "output": [{"type": "tool_search_call", "id": "tsc_1", "call_id": "call_1", "execution": "client", "arguments": {"purpose": "add two integers"}, "status": "completed"}], "usage": {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110}}),
        json!({"id": "resp_2", "object": "response", "model": "m", "status": "completed", "output": [{"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "math__add", "arguments": "{\"a\": 2, \"b\": 40}", "status": "completed"}], "usage": {"input_tokens": 120, "output_tokens": 10, "total_tokens": 130}}),
        json!({"id": "resp_3", "object": "response", "model": "m", "status": "completed", "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "The sum is 42.", "annotations": []}]}], "usage": {"input_tokens": 150, "output_tokens": 6, "total_tokens": 156}}),
    ]);
    let base_url = format!("{base}/v1");
    let (code, stdout, stderr) = run_with(
        "catalog_prompt.json",
        &[
            "--model",
            "openai-responses:gpt-5.4",
            "--base-url",
            &base_url,
            "--native-tool-search",
        ],
        &[("OPENAI_API_KEY", "sk-test")],
    );
    assert_eq!((code, stdout.as_str()), (0, "The sum is 42.\n"), "{stderr}");
    let requests = recorded.lock().unwrap().clone();
    assert_eq!(requests.len(), 3);
    let deferred = [
        "math__add (deferred)",
        "file__read (deferred)",
        "file__write (deferred)",
        "web__search (deferred)",
        "weather__current (deferred)",
        "calendar__create_event (deferred)",
    ];
    for request in &requests {
        assert_eq!(
            tool_names(&request.body["tools"]),
            [
                &["tool__list", "tool__describe", "tool_search"][..],
                &deferred
            ]
            .concat()
        );
    }
    let add = json!({"type": "function", "name": "math__add", "description": "Add two integers and return the sum.",
        "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"], "additionalProperties": false},
        "strict": true});
    assert_eq!(
        requests[1].body["input"].as_array().unwrap()[1..],
        [
            json!({"type": "tool_search_call", "call_id": "call_1", "execution": "client", "arguments": {"purpose": "add two integers"}, "status": "completed"}),
            json!({"type": "tool_search_output", "call_id": "call_1", "execution": "client", "tools": [add]})
        ]
    );
    assert_eq!(
        requests[2].body["input"].as_array().unwrap()[3..],
        [
            json!({"type": "function_call", "call_id": "call_2", "name": "math__add", "arguments": "{\"a\": 2, \"b\": 40}"}),
            json!({"type": "function_call_output", "call_id": "call_2", "output": "sum\n\n{\"sum\": 42}"})
        ]
    );
}

#[test]
fn provider_flags_are_checked() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["--model", "openai:gpt-4.1", "--native-tool-search"],
            "error: --native-tool-search needs a provider with native tool search (anthropic:MODEL, openai-responses:MODEL), not 'openai:gpt-4.1'\n",
        ),
        (
            &["--model", "openai:gpt-4.1", "--litellm-format", "anthropic"],
            "error: --litellm-format applies to litellm:MODEL only, not to 'openai:gpt-4.1'\n",
        ),
        (
            &["--model", "scripted:x.json", "--api-key-env", "K"],
            "error: --api-key-env applies to HTTP providers, not to scripted:PATH\n",
        ),
        (
            &["--model", "anthropic:claude", "--native-tool-search"],
            "error: --native-tool-search: the prompt has no tool catalog section (builtin: catalog) with tools\n",
        ),
    ];
    for (args, expected) in cases {
        let (code, stdout, stderr) = run_with(
            "unified.json",
            args,
            &[("OPENAI_API_KEY", "k"), ("ANTHROPIC_API_KEY", "k")],
        );
        assert_eq!(
            (code, stdout.as_str(), stderr.as_str()),
            (2, "", expected),
            "{args:?}"
        );
    }
}

#[test]
fn native_tool_search_over_an_mcp_server() {
    let Some(bin) = common::npm_servers() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wink-native-mcp-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(dir.join("data/notes.txt"), "hello from wink\n").unwrap();
    let prompt = dir.join("prompt.json");
    let file = json!({"ns": "demo", "key": "native", "sections": [
        {"key": "tools", "title": "Tools", "builtin": "catalog", "defer": "always",
         "servers": {"fs": {"command": [bin.join("mcp-server-filesystem"), dir.join("data")]}}}]});
    std::fs::write(&prompt, file.to_string()).unwrap();
    let notes = dir.join("data/notes.txt");
    let (base, recorded) = serve(vec![
        anthropic_tool_use(
            "toolu_1",
            "find_tool",
            json!({"purpose": "read a text file"}),
        ),
        anthropic_tool_use("toolu_2", "fs__read_text_file", json!({"path": notes})),
        anthropic_text("It says hello."),
    ]);
    let home = dir.join("home");
    let (code, stdout, stderr) = run_with(
        prompt.to_str().unwrap(),
        &[
            "--model",
            "anthropic:claude-sonnet-4-5",
            "--base-url",
            &base,
            "--native-tool-search",
        ],
        &[
            ("ANTHROPIC_API_KEY", "sk-ant-test"),
            ("WINK_HOME", home.to_str().unwrap()),
        ],
    );
    assert_eq!((code, stdout.as_str()), (0, "It says hello.\n"), "{stderr}");
    let requests = recorded.lock().unwrap().clone();
    let tools = tool_names(&requests[0].body["tools"]);
    assert!(
        tools.contains(&"fs__read_text_file (deferred)".to_owned()),
        "{tools:?}"
    );
    assert_eq!(tool_names(&requests[2].body["tools"]), tools);
    let reference = &requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"][0]["content"];
    assert!(
        reference
            .as_array()
            .unwrap()
            .contains(&json!({"type": "tool_reference", "tool_name": "fs__read_text_file"})),
        "{reference}"
    );
    assert_eq!(
        requests[2].body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap(),
        &json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "hello from wink\n"}]})
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn images_a_command_tool_prints_reach_anthropic_beside_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = dir.path().join("look.json");
    let print = r#"import json; print(json.dumps({"content": [{"type": "text", "text": "The page:"}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]}))"#;
    let file = json!({"ns": "tests", "key": "look", "sections": [
        {"key": "task", "title": "Task", "template": "Say what the page shows.",
         "tools": [{"name": "screenshot", "description": "Take a screenshot of the page.",
                    "parameters": {"type": "object", "properties": {}},
                    "handler": {"command": ["python3", "-c", print]}}]}
    ]});
    std::fs::write(&prompt, file.to_string()).unwrap();
    let (base, recorded) = serve(vec![
        anthropic_tool_use("toolu_1", "screenshot", json!({})),
        anthropic_text("A login form."),
    ]);
    let (code, stdout, stderr) = run_with(
        prompt.to_str().unwrap(),
        &[
            "--model",
            "anthropic:claude-sonnet-4-5",
            "--base-url",
            &base,
        ],
        &[("ANTHROPIC_API_KEY", "sk-ant-test")],
    );
    assert_eq!((code, stdout.as_str()), (0, "A login form.\n"), "{stderr}");
    let requests = recorded.lock().unwrap().clone();
    let last = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last["content"][0]["content"],
        json!([
            {"type": "text", "text": "The page:\n\n{\"type\":\"image\",\"data\":\"<12 base64 characters>\",\"mimeType\":\"image/png\"}"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
        ])
    );
}
