//! OpenTelemetry export as people use it: `wink run` with `OTEL_EXPORTER_OTLP_ENDPOINT`
//! pointing at a real Arize Phoenix (PyPI `arize-phoenix`, installed by scripts/setup.sh into
//! the wink cache, started here on loopback ports), read back through Phoenix's REST API: span
//! names, parent links, token attributes equal to the transcript's, the disclosure events.
//! Export over http/protobuf (the default) and over grpc (`OTEL_EXPORTER_OTLP_PROTOCOL`); the
//! resource from `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The `phoenix` command of the venv scripts/setup.sh made (or `$WINK_PHOENIX`); `None` with a
/// note outside CI when it is missing.
fn phoenix_command() -> Option<PathBuf> {
    let path = match std::env::var_os("WINK_PHOENIX") {
        Some(path) => PathBuf::from(path),
        None => {
            let cache = match (
                std::env::var_os("WINK_HOME"),
                std::env::var_os("XDG_CACHE_HOME"),
            ) {
                (Some(home), _) => PathBuf::from(home),
                (None, Some(cache)) => PathBuf::from(cache).join("wink"),
                (None, None) => {
                    PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/wink")
                }
            };
            cache.join("phoenix/bin/phoenix")
        }
    };
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but Arize Phoenix is missing at {}: run scripts/setup.sh",
        path.display()
    );
    eprintln!(
        "note: skipping: Arize Phoenix is not installed at {} (scripts/setup.sh installs it)",
        path.display()
    );
    None
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A Phoenix server of this test, stopped when dropped.
struct Phoenix {
    child: Child,
    http: u16,
    grpc: u16,
    dir: PathBuf,
}

impl Phoenix {
    fn start(command: &Path, dir: &Path) -> Self {
        let (http, grpc) = (free_port(), free_port());
        let log = std::fs::File::create(dir.join("phoenix.log")).unwrap();
        let child = Command::new(command)
            .arg("serve")
            .env("PHOENIX_HOST", "127.0.0.1")
            .env("PHOENIX_PORT", http.to_string())
            .env("PHOENIX_GRPC_PORT", grpc.to_string())
            .env("PHOENIX_WORKING_DIR", dir)
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .env("DO_NOT_TRACK", "1")
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log))
            .spawn()
            .unwrap();
        let mut phoenix = Phoenix {
            child,
            http,
            grpc,
            dir: dir.to_path_buf(),
        };
        let started = Instant::now();
        while get(http, "/healthz").is_none() {
            if let Ok(Some(status)) = phoenix.child.try_wait() {
                panic!("phoenix exited ({status}): {}", phoenix.log());
            }
            assert!(
                started.elapsed() < Duration::from_secs(180),
                "phoenix did not start within 180 s: {}",
                phoenix.log()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        phoenix
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("phoenix.log")).unwrap_or_default()
    }

    /// The spans of `project`, waiting until there are `count` of them.
    fn spans(&self, project: &str, count: usize) -> Vec<Value> {
        let started = Instant::now();
        loop {
            let spans = get(
                self.http,
                &format!("/v1/projects/{project}/spans?limit=1000"),
            )
            .and_then(|body| serde_json::from_str::<Value>(&body).ok())
            .and_then(|v| v["data"].as_array().cloned())
            .unwrap_or_default();
            if spans.len() >= count || started.elapsed() > Duration::from_secs(60) {
                return spans;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Phoenix {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `GET http://127.0.0.1:port{path}`'s body when it answers 200.
fn get(port: u16, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).ok()?;
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n")?;
    if !head.starts_with("HTTP/1.1 200") {
        return None;
    }
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return Some(dechunk(body));
    }
    Some(body.to_owned())
}

fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || tail.len() < size {
            break;
        }
        out.push_str(&tail[..size]);
        rest = tail[size..].trim_start_matches("\r\n");
    }
    out
}

fn demo_prompt() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/01_local_demo/prompt.json")
        .canonicalize()
        .unwrap()
}

/// Runs `wink run` on example 01 exporting to `endpoint` under `project`; returns the transcript.
fn run_exporting(dir: &Path, model: &str, endpoint: &str, protocol: &str, project: &str) -> Value {
    let transcript = dir.join(format!("{project}.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_wink"))
        .current_dir(dir)
        .arg("run")
        .arg(demo_prompt())
        .args(["--model", model, "--transcript"])
        .arg(&transcript)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
        .env("OTEL_SERVICE_NAME", "wink-phoenix-test")
        .env(
            "OTEL_RESOURCE_ATTRIBUTES",
            format!("openinference.project.name={project}"),
        )
        .env_remove("OTEL_SDK_DISABLED")
        .env_remove("WINK_LOG")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        !stderr.contains("export"),
        "no export warning expected: {stderr}"
    );
    serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap()
}

fn attr<'a>(span: &'a Value, key: &str) -> &'a Value {
    &span["attributes"][key]
}

/// Checks the spans of one run against its transcript: one invoke_agent, one chat per model
/// call with the transcript's tokens, one execute_tool per tool call, all under the run span,
/// and (`read`) the model's read of `orders` as a tool span and an event of the run.
fn check_run(spans: &[Value], transcript: &Value, read: bool) {
    let named = |prefix: &str| -> Vec<&Value> {
        spans
            .iter()
            .filter(|s| s["name"].as_str().unwrap().starts_with(prefix))
            .collect()
    };
    let runs = named("invoke_agent");
    assert_eq!(runs.len(), 1, "{spans:#?}");
    let run = runs[0];
    let run_id = run["context"]["span_id"].as_str().unwrap();
    let trace_id = run["context"]["trace_id"].as_str().unwrap();
    assert!(run["parent_id"].is_null(), "{run:#}");
    let calls = transcript["model_calls"].as_array().unwrap();
    let mut chats = named("chat ");
    chats.sort_by_key(|s| attr(s, "wink.model_call.index").as_i64().unwrap());
    assert_eq!(chats.len(), calls.len());
    assert_eq!(
        chats.len() as u64,
        transcript["model_call_count"].as_u64().unwrap()
    );
    for (chat, call) in chats.iter().zip(calls) {
        assert_eq!(attr(chat, "gen_ai.operation.name"), "chat");
        assert_eq!(
            attr(chat, "gen_ai.usage.input_tokens"),
            &call["usage"]["input_tokens"]
        );
        assert_eq!(
            attr(chat, "gen_ai.usage.output_tokens"),
            &call["usage"]["output_tokens"]
        );
        assert_eq!(
            attr(chat, "gen_ai.usage.cache_read.input_tokens"),
            &call["usage"]["cached_tokens"]
        );
        assert_eq!(chat["parent_id"], run_id);
        assert_eq!(chat["context"]["trace_id"], trace_id);
    }
    let tools = named("execute_tool ");
    assert_eq!(
        tools.len() as u64,
        transcript["tool_call_count"].as_u64().unwrap()
    );
    assert!(tools.iter().all(|t| t["parent_id"] == run_id));
    assert!(
        tools
            .iter()
            .any(|t| t["name"] == "execute_tool lookup_order"),
        "{tools:#?}"
    );
    assert_eq!(
        attr(run, "gen_ai.usage.input_tokens"),
        &transcript["usage"]["input_tokens"]
    );
    if !read {
        return;
    }
    assert!(
        tools
            .iter()
            .any(|t| t["name"] == "execute_tool read_section"),
        "{tools:#?}"
    );
    let events: Vec<&Value> = run["events"].as_array().unwrap().iter().collect();
    let opened: Vec<&Value> = events
        .iter()
        .filter(|e| e["name"] == "wink.section.opened")
        .map(|e| &e["attributes"]["wink.section.key"])
        .collect();
    assert!(opened.contains(&&json!("orders")), "{events:#?}");
}

#[test]
fn a_run_shows_up_in_phoenix_with_its_calls_tools_and_tokens() {
    let Some(command) = phoenix_command() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("wink-phoenix-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let phoenix = Phoenix::start(&command, &dir);

    // grpc, with a scripted model: the demo's read, tool call and answer.
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        json!([
            {"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "orders"}}],
             "usage": {"input_tokens": 400, "output_tokens": 12, "cached_tokens": 0}},
            {"tool_calls": [{"id": "c2", "name": "lookup_order", "arguments": {"order_id": "A-1042"}}],
             "usage": {"input_tokens": 520, "output_tokens": 15, "cached_tokens": 380}},
            {"text": "Order A-1042 has shipped.", "usage": {"input_tokens": 600, "output_tokens": 9, "cached_tokens": 500}}
        ])
        .to_string(),
    )
    .unwrap();
    let transcript = run_exporting(
        &dir,
        &format!("scripted:{}", script.display()),
        &format!("http://127.0.0.1:{}", phoenix.grpc),
        "grpc",
        "wink-grpc",
    );
    check_run(&phoenix.spans("wink-grpc", 6), &transcript, true);

    // http/protobuf, with the embedded model, as the README runs the demo.
    if common::embedded_model(
        "WINK_TEST_MODEL_1_5B",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "1.5b",
    )
    .is_some()
    {
        let transcript = run_exporting(
            &dir,
            "local",
            &format!("http://127.0.0.1:{}", phoenix.http),
            "http/protobuf",
            "wink-local",
        );
        let expected = 1
            + transcript["model_call_count"].as_u64().unwrap()
            + transcript["tool_call_count"].as_u64().unwrap();
        // The embedded model's run pre-opens `orders` (wink run's default for it): the model
        // calls lookup_order without reading the section first.
        check_run(
            &phoenix.spans("wink-local", expected as usize),
            &transcript,
            false,
        );
    }
    drop(phoenix);
    std::fs::remove_dir_all(&dir).unwrap();
}
