//! `wink mcp serve` end to end with the official MCP Python SDK as the client (stdio and HTTP),
//! plus the command's error contract.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

const PARAMS: &str = r#"{"TaskParams": {"objective": "fix bug"}}"#;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn client_script() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../wink-mcp/tests/python/mcp_client_check.py")
        .display()
        .to_string()
}

fn python_mcp_sdk() -> bool {
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

fn run_client(extra: &[&str]) -> Value {
    let output = Command::new("python3")
        .arg(client_script())
        .args([
            "--section",
            "math",
            "--tool",
            "add",
            "--tool-args",
            r#"{"a": 2, "b": 3}"#,
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn check_transcript(seen: &Value, modern: bool) {
    assert_eq!(seen["modern"], modern);
    assert_eq!(seen["tools_before"], serde_json::json!(["read_section"]));
    assert_eq!(
        seen["read_section"]["text"],
        "Content of section 'math':\n\n## 3. Math (math)\n\nUse add for sums.\n\nNew tools are now available: add. If you cannot see them, list the tools again (tools/list) before calling them."
    );
    assert_eq!(seen["list_changed"], true);
    assert_eq!(
        seen["tools_after"],
        serde_json::json!(["add", "read_section"])
    );
    assert_eq!(seen["tool_call"]["text"], "sum\n\n{\"sum\": 5}");
    assert_eq!(seen["prompts"], serde_json::json!(["demo:unified"]));
    assert!(
        seen["prompt_text"]
            .as_str()
            .unwrap()
            .starts_with("## 1. Task (task)\n\nDo: fix bug")
    );
    assert_eq!(
        seen["resources"],
        serde_json::json!([
            "wink://demo/unified",
            "wink://demo/unified/task",
            "wink://demo/unified/reference",
            "wink://demo/unified/reference.details",
            "wink://demo/unified/math"
        ])
    );
    // The section's resource, and its alias `wink://section/math`.
    assert_eq!(
        seen["section_resource"],
        "## 3. Math (math)\n\nUse add for sums."
    );
    assert_eq!(seen["alias_resource"], seen["section_resource"]);
}

#[test]
fn stdio_with_the_python_sdk_in_both_protocol_eras() {
    if !python_mcp_sdk() {
        return;
    }
    let file = fixture("unified.json");
    for (mode, modern) in [("legacy", false), ("auto", true)] {
        let seen = run_client(&[
            "--mode",
            mode,
            "--",
            env!("CARGO_BIN_EXE_wink"),
            "mcp",
            "serve",
            &file,
            "--params",
            PARAMS,
        ]);
        check_transcript(&seen, modern);
    }
}

/// `wink mcp serve unified.json --http 127.0.0.1:0` through `command` (wink itself, or a wrapper
/// whose arguments then name wink): the server, its stderr after the first line, and its URL.
fn serve_http(
    mut command: Command,
) -> (
    std::process::Child,
    BufReader<std::process::ChildStderr>,
    String,
) {
    if command.get_program() != env!("CARGO_BIN_EXE_wink") {
        command.arg(env!("CARGO_BIN_EXE_wink"));
    }
    let mut server = command
        .args([
            "mcp",
            "serve",
            &fixture("unified.json"),
            "--params",
            PARAMS,
            "--http",
            "127.0.0.1:0",
        ])
        .env_remove("WINK_LOG")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("wink mcp: serving on ")
        .unwrap_or_else(|| panic!("{line}"))
        .to_owned();
    (server, stderr, url)
}

#[test]
fn http_on_loopback_with_the_python_sdk() {
    if !python_mcp_sdk() {
        return;
    }
    let (mut server, _, url) = serve_http(Command::new(env!("CARGO_BIN_EXE_wink")));
    let seen = run_client(&["--mode", "auto", "--url", &url]);
    server.kill().unwrap();
    let _ = server.wait();
    check_transcript(&seen, true);
}

#[test]
fn http_refuses_non_loopback_and_bad_addresses() {
    let file = fixture("unified.json");
    for (addr, message) in [
        (
            "0.0.0.0:8080",
            "error: --http: refusing to serve MCP over HTTP on 0.0.0.0:8080: only loopback addresses (127.0.0.1, ::1) are allowed",
        ),
        (
            "192.168.1.10:80",
            "error: --http: refusing to serve MCP over HTTP on 192.168.1.10:80",
        ),
        (
            "localhost",
            "error: --http: 'localhost' is not a socket address like 127.0.0.1:8765",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_wink"))
            .args(["mcp", "serve", &file, "--http", addr])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with(message), "{err}");
    }
}

#[test]
fn unknown_params_are_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_wink"))
        .args([
            "mcp",
            "serve",
            &fixture("unified.json"),
            "--params",
            "{\"Nope\": {}}",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: --params: unknown params type 'Nope'"),
        "{err}"
    );
}

#[test]
fn out_of_file_descriptors_the_http_server_backs_off_and_logs_sparingly() {
    if Command::new("prlimit").arg("--version").output().is_err() {
        eprintln!("note: skipping: prlimit (util-linux) is not installed");
        return;
    }
    // 64 file descriptors: the clients below take them all.
    let mut prlimit = Command::new("prlimit");
    prlimit.args(["--nofile=64:64", "--"]);
    let (mut server, mut stderr, url) = serve_http(prlimit);
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let clients: Vec<std::net::TcpStream> = (0..100)
        .filter_map(|_| std::net::TcpStream::connect(&addr).ok())
        .collect();
    std::thread::sleep(std::time::Duration::from_secs(2));
    drop(clients);
    // Serving again once descriptors are free.
    let mut probe = std::net::TcpStream::connect(&addr).unwrap();
    std::io::Write::write_all(
        &mut probe,
        b"GET /mcp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    probe
        .set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let mut answer = String::new();
    let _ = std::io::Read::read_to_string(&mut probe, &mut answer);
    assert!(answer.starts_with("HTTP/1.1 "), "{answer:?}");
    server.kill().unwrap();
    let _ = server.wait();
    let mut logged = String::new();
    let _ = std::io::Read::read_to_string(&mut stderr, &mut logged);
    let warnings = logged.matches("MCP HTTP accept failed").count();
    // A failure per retry was 7.4 million lines in 15 s; now at most one every ten seconds.
    assert!(
        (1..=2).contains(&warnings),
        "{warnings} warnings:\n{logged}"
    );
    assert!(logged.contains("Too many open files"), "{logged}");
}
