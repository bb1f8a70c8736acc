//! `wink trace` on a recorded eval of 10 runs (`wink eval --sessions DIR`): `show` prints each
//! run's tree, `export --format otlp-json` writes the spans, and `serve` gives a page that
//! headless Chromium (Debian's `chromium`) renders: every call on the timeline, the section
//! tree of an opened call with the section the model opened marked, no request to anything but
//! the page's own server, rendered in under a second (measured by the page), and a screenshot
//! kept as a test artifact (`target/test-artifacts/trace-page.png`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const CASES: usize = 10;

fn demo_prompt() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/01_local_demo/prompt.json")
        .canonicalize()
        .unwrap()
}

/// A recorded eval: 10 cases of example 01 on a scripted model, one session log each.
fn recorded_eval(dir: &Path) -> PathBuf {
    let turns: Vec<Value> = (0..CASES)
        .flat_map(|i| {
            let cached = 100 * i as u64;
            vec![
                json!({"tool_calls": [{"id": "c1", "name": "read_section", "arguments": {"section_key": "orders"}}],
                       "usage": {"input_tokens": 400, "output_tokens": 12, "cached_tokens": 0}}),
                json!({"tool_calls": [{"id": "c2", "name": "lookup_order", "arguments": {"order_id": "A-1042"}}],
                       "usage": {"input_tokens": 520, "output_tokens": 15, "cached_tokens": 380.min(cached)}}),
                json!({"text": "Order A-1042 has shipped.",
                       "usage": {"input_tokens": 600, "output_tokens": 9, "cached_tokens": 500}}),
            ]
        })
        .collect();
    let script = dir.join("script.json");
    std::fs::write(&script, Value::Array(turns).to_string()).unwrap();
    let cases = dir.join("cases.jsonl");
    let lines: Vec<String> = (1..=CASES)
        .map(|i| json!({"id": format!("case-{i:02}"), "input": "Where is order A-1042?", "expect": {"contains": ["shipped"]}}).to_string())
        .collect();
    std::fs::write(&cases, lines.join("\n")).unwrap();
    let sessions = dir.join("sessions");
    let out = Command::new(env!("CARGO_BIN_EXE_wink"))
        .current_dir(dir)
        .arg("eval")
        .arg(demo_prompt())
        .arg("--cases")
        .arg(&cases)
        .arg("--model")
        .arg(format!("scripted:{}", script.display()))
        .arg("--sessions")
        .arg(&sessions)
        .args(["--preopen", "0"])
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .output()
        .unwrap();
    let stdout = common::stdout(&out);
    assert!(stdout.contains("10/10"), "{stdout}");
    sessions
}

fn chromium() -> Option<&'static str> {
    let found = Command::new("chromium")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but chromium is missing: run scripts/setup.sh"
        );
        eprintln!(
            "note: skipping the page checks: chromium is not installed (scripts/setup.sh installs it)"
        );
        return None;
    }
    Some("chromium")
}

/// Chromium as this machine's closed network needs it: headless, no sandbox (root), and none of
/// its own background connections.
fn headless(profile: &Path, netlog: &Path) -> Command {
    let mut command = Command::new("chromium");
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--log-net-log={}", netlog.display()))
        .stderr(Stdio::null());
    command
}

/// Every request the net log saw start: (URL, initiator). The page's own requests carry its
/// origin as initiator; the browser's background requests carry none ("not an origin").
fn requests(netlog: &Path) -> Vec<(String, String)> {
    let log: Value = serde_json::from_str(&std::fs::read_to_string(netlog).unwrap()).unwrap();
    let start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"].clone();
    log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == start)
        .map(|e| {
            (
                e["params"]["url"].as_str().unwrap_or_default().to_owned(),
                e["params"]["initiator"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect()
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(sessions: &Path) -> (Server, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(env!("CARGO_BIN_EXE_wink"))
        .args(["trace", "serve"])
        .arg(sessions)
        .args(["--port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server(child);
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "wink trace serve did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, port)
}

#[test]
fn a_recorded_eval_as_tree_file_and_page() {
    let dir = std::env::temp_dir().join(format!("wink-trace-page-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let sessions = recorded_eval(&dir);

    // The tree of one run: run, calls, the tools each asked for, tokens and seconds per line.
    let out = common::wink(&[
        "trace",
        "show",
        sessions.join("case-01.jsonl").to_str().unwrap(),
    ]);
    let tree = common::stdout(&out);
    let lines: Vec<&str> = tree.lines().collect();
    assert_eq!(lines[0], "case-01");
    assert!(lines[1].starts_with("invoke_agent order_desk  finished  3 model calls, 2 tool calls  1,520 in (500 cached) / 36 out  "), "{tree}");
    let shapes = [
        "├─ chat script  tool_calls  400 in (0 cached) / 12 out  ",
        "│  └─ execute_tool read_section  ",
        "├─ · opened orders",
        "├─ · injected lookup_order (from orders)",
        "├─ chat script  tool_calls  520 in (0 cached) / 15 out  ",
        "│  └─ execute_tool lookup_order  ",
        "└─ chat script  stop  600 in (500 cached) / 9 out  ",
    ];
    assert_eq!(lines.len(), 2 + shapes.len(), "{tree}");
    for (line, shape) in lines[2..].iter().zip(shapes) {
        assert!(
            line.starts_with(shape),
            "{line:?} does not start with {shape:?}\n{tree}"
        );
    }

    // The spans as OTLP/JSON: 10 runs of 6 spans.
    let export = dir.join("eval.otlp.json");
    let out = common::wink(&[
        "trace",
        "export",
        sessions.to_str().unwrap(),
        "--format",
        "otlp-json",
        "--output",
        export.to_str().unwrap(),
    ]);
    common::stdout(&out);
    let otlp: Value = serde_json::from_str(&std::fs::read_to_string(&export).unwrap()).unwrap();
    let spans = otlp["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap();
    assert_eq!(spans.len(), CASES * 6);
    assert_eq!(
        spans
            .iter()
            .filter(|s| s["name"] == "invoke_agent order_desk")
            .count(),
        CASES
    );

    let Some(_) = chromium() else {
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    };
    let (_server, port) = serve(&sessions);
    let url = format!("http://127.0.0.1:{port}/#run=0&call=1");
    let profile = dir.join("profile");
    let netlog = dir.join("netlog.json");
    let out = headless(&profile, &netlog)
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(dom.contains("data-rendered=\"true\""), "{dom}");
    // The page timed itself from navigation to the last run drawn.
    let render_ms: f64 = dom
        .split("data-render-ms=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|ms| ms.parse().ok())
        .unwrap();
    eprintln!("the page rendered 10 runs in {render_ms} ms");
    assert!(render_ms < 1000.0, "rendered in {render_ms} ms");
    // Every run, and every call and tool on its timeline.
    assert_eq!(dom.matches("<article class=\"run\"").count(), CASES);
    assert_eq!(dom.matches("data-op=\"chat\"").count(), CASES * 3);
    assert_eq!(dom.matches("data-op=\"execute_tool\"").count(), CASES * 2);
    // The opened call (run 0, call 2) shows its section tree with `orders` marked opened.
    assert!(
        dom.contains("data-key=\"orders\" data-state=\"opened\""),
        "{dom}"
    );
    assert!(dom.contains("opened · call 2"), "{dom}");
    // The page asked nothing of any server but its own (the browser's own background
    // requests, which this machine's closed network refuses, carry no page origin).
    let origin = format!("http://127.0.0.1:{port}");
    let seen = requests(&netlog);
    let from_page: Vec<&str> = seen
        .iter()
        .filter(|(_, initiator)| initiator.starts_with("http"))
        .map(|(url, _)| url.as_str())
        .collect();
    for file in ["/style.css", "/app.js", "/runs.json"] {
        assert!(
            from_page.contains(&format!("{origin}{file}").as_str()),
            "{seen:?}"
        );
    }
    let foreign: Vec<&&str> = from_page
        .iter()
        .filter(|url| !url.starts_with(&format!("{origin}/")))
        .collect();
    assert!(foreign.is_empty(), "requests to other servers: {foreign:?}");
    assert!(
        seen.iter()
            .all(|(_, initiator)| !initiator.starts_with("http") || *initiator == origin),
        "{seen:?}"
    );

    // The screenshot, kept as a test artifact.
    let artifacts = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/test-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let shot = artifacts.join("trace-page.png");
    let _ = std::fs::remove_file(&shot);
    let status = headless(&profile, &dir.join("netlog-shot.json"))
        .arg("--window-size=1400,1500")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000);
    std::fs::remove_dir_all(&dir).unwrap();
}
