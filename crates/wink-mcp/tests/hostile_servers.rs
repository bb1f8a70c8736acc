//! MCP servers that misbehave, and what wink does about them: a stdio server gets only the
//! environment it is given, secrets never follow a redirect to another origin, a flood of
//! notifications does not grow memory, an oversized message is reported at once, and the
//! handshake waits no longer than the server's timeout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use wink_mcp::{INHERITED_VARIABLES, LazyServer, McpServer, ServerSpec};

/// The Python interpreter itself (`python3` may be a shell script, as pyenv's shims are, which
/// adds variables of its own).
fn python() -> String {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn hostile(args: &[&str]) -> ServerSpec {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile_server.py")
        .display()
        .to_string();
    let python = python();
    let command = [python.as_str(), script.as_str()]
        .into_iter()
        .chain(args.iter().copied())
        .map(str::to_owned)
        .collect();
    ServerSpec::stdio("hostile", command)
}

#[test]
fn a_stdio_server_gets_only_the_environment_it_is_given() {
    // cargo runs this test with CARGO_MANIFEST_DIR, CARGO_PKG_NAME, ... set: none of them may
    // reach the server; its entry's variables do, `${VAR}` references expanded.
    assert!(std::env::var_os("CARGO_PKG_NAME").is_some());
    let spec = hostile(&["env"])
        .env("TOKEN", "given")
        .env("PKG", "${CARGO_PKG_NAME}");
    let server = McpServer::connect(&spec).unwrap();
    let seen: Vec<&str> = server
        .tools()
        .iter()
        .filter_map(|t| t.name.strip_prefix("env_"))
        .collect();
    let mut expected: Vec<&str> = INHERITED_VARIABLES
        .into_iter()
        .filter(|name| std::env::var_os(name).is_some())
        .chain(["TOKEN", "PKG"])
        .collect();
    expected.sort_unstable();
    assert_eq!(seen, expected);
}

/// A one-connection HTTP server answering every request with `reply`; the request heads it got.
fn http_once(reply: String) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let heads = Arc::new(Mutex::new(Vec::new()));
    let seen = heads.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            seen.lock().unwrap().push(head);
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    (port, heads)
}

#[test]
fn secrets_do_not_follow_a_redirect_to_another_origin() {
    let (elsewhere, reached) = http_once(
        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            .to_owned(),
    );
    let (port, _) = http_once(format!(
        "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://localhost:{elsewhere}/mcp\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    ));
    // The secret's value comes from a variable cargo sets for every test run.
    let spec = ServerSpec::http("remote", format!("http://127.0.0.1:{port}/mcp"))
        .header_env("X-Api-Key", "CARGO_PKG_NAME");
    let error = McpServer::connect(&spec).unwrap_err().to_string();
    assert!(
        error.ends_with(&format!(
            ": the server redirected to http://localhost:{elsewhere}, another origin: not followed, since its headers_env secrets go to http://127.0.0.1:{port} only"
        )),
        "{error}"
    );
    assert_eq!(*reached.lock().unwrap(), Vec::<String>::new());
}

/// The peak resident memory of this process so far, in KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_flood_of_notifications_does_not_grow_memory() {
    let before = peak_rss_kib();
    // 300,000 notifications before the answer: about 2 KB each stayed in memory (600 MB).
    let server = McpServer::connect(&hostile(&["flood", "300000"])).unwrap();
    assert_eq!(server.tools()[0].name, "echo");
    let grown = peak_rss_kib().saturating_sub(before);
    assert!(grown < 100 * 1024, "peak memory grew by {grown} KiB");
}

#[test]
fn an_oversized_message_is_reported_at_once() {
    let error = McpServer::connect_within(&hostile(&["oversized"]), Duration::from_secs(120))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(
            "tools/list failed: Transport closed: the server sent a message of more than"
        ) && error.contains("bytes, over the limit of 16777216 bytes"),
        "{error}"
    );
}

#[test]
fn the_handshake_waits_as_long_as_the_server_timeout() {
    let server = LazyServer::new(hostile(&["silent"]), None).call_timeout(Duration::from_secs(1));
    let error = server.load_tools().unwrap_err().to_string();
    assert_eq!(
        error,
        "MCP server `hostile`: no answer to the handshake within 1 s"
    );
}
