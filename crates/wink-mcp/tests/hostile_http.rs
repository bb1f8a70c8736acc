//! A client sending malformed requests over streamable HTTP gets an HTTP error or a JSON-RPC
//! error and the server keeps serving (issue 23, as `hostile_lines.rs` for stdio): malformed
//! JSON, invalid UTF-8, 10,000-deep nesting, a body over the size limit, a `tools/call` with
//! non-object arguments or arguments the SDK would change (a key twice, an integer beyond 64
//! bits); and clients that send nothing, half a header or half a body are cut off.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use wink_mcp::{HttpLimits, PromptServer, serve_http, serve_http_with};
use wink_session::Session;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}"#;

/// One answer: the status, the session id header, and the body (the first SSE `data:` line's
/// JSON, else the body as text).
#[derive(Debug)]
struct Answer {
    status: u16,
    session: Option<String>,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }
}

fn post(addr: SocketAddr, session: Option<&str>, body: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(id) = session {
        head.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    // The server may answer (and close) before reading a body over its limit.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    parse(&raw)
}

fn parse(raw: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let header = |name: &str| {
        head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    };
    let body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        dechunk(body)
    } else {
        body.to_owned()
    };
    let body = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:").map(str::trim))
        .find(|data| !data.is_empty())
        .map_or(body.clone(), str::to_owned);
    Answer {
        status,
        session: header("mcp-session-id"),
        body,
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            out.push_str(&rest[..size.min(rest.len())]);
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

#[test]
fn malformed_http_requests_are_answered_and_serving_goes_on() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = PromptServer::new(common::demo_prompt(), Session::new());
    let http = runtime
        .block_on(serve_http(server, "127.0.0.1:0".parse().unwrap()))
        .unwrap();
    let addr = http.local_addr();
    let init = post(addr, None, INITIALIZE.as_bytes());
    assert_eq!(init.status, 200, "{init:?}");
    let session = init.session.clone().unwrap();
    let session = Some(session.as_str());
    let initialized = post(
        addr,
        session,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(initialized.status, 202, "{initialized:?}");

    let truncated = post(addr, session, br#"{"jsonrpc": "2.0", "id": 1, "method": "#);
    assert_eq!(truncated.status, 400);
    assert_eq!(
        truncated.json(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: EOF while parsing a value at line 1 column 37"}})
    );
    let not_utf8 = post(addr, session, b"{\"x\": \"\xc3\x28\"}");
    assert_eq!(
        (not_utf8.status, not_utf8.json()["error"].clone()),
        (
            400,
            json!({"code": -32700, "message": "Parse error: the line is not valid UTF-8"})
        )
    );
    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"read_section\",\"arguments\":{{\"a\":{}{}}}}}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let deep = post(addr, session, deep.as_bytes());
    assert_eq!(
        (deep.status, deep.json()["error"]["code"].clone()),
        (400, json!(-32700)),
        "{deep:?}"
    );
    let long = vec![b' '; 16 * 1024 * 1024 + 10];
    let long = post(addr, session, &long);
    assert_eq!(
        (long.status, long.json()),
        (
            413,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: the request body is longer than the limit of 16777216 bytes"}})
        )
    );
    // A declared length over the limit is refused before the body arrives (waiting for it would
    // end in 408 after the body timeout).
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(40)))
        .unwrap();
    stream
        .write_all(
            format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 10000000000\r\n\r\n{{").as_bytes(),
        )
        .unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let declared = parse(&raw);
    assert_eq!(
        (declared.status, declared.json()["error"]["message"].clone()),
        (
            413,
            json!("Parse error: the request body is longer than the limit of 16777216 bytes")
        )
    );
    // A body between rmcp's own 4 MiB default and the 16 MiB limit reaches the server.
    let padded = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}}{}",
        " ".repeat(5 * 1024 * 1024)
    );
    let padded = post(addr, session, padded.as_bytes());
    assert_eq!(padded.json()["id"], 5, "{padded:?}");
    let empty = post(addr, session, b"  ");
    assert_eq!(
        (empty.status, empty.json()["error"]["message"].clone()),
        (400, json!("Parse error: the request body is empty"))
    );
    let array_args = post(
        addr,
        session,
        br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_section","arguments":["math"]}}"#,
    );
    assert_eq!(
        (array_args.status, array_args.json()),
        (
            200,
            json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Invalid params: tools/call arguments must be an object, not an array"}})
        )
    );
    // Arguments the SDK would change before the tool sees them are refused, as for model calls.
    let twice = post(
        addr,
        session,
        br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_section","arguments":{"section_key":"math","section_key":"reference"}}}"#,
    );
    assert_eq!(
        (twice.status, twice.json()),
        (
            200,
            json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32602, "message": "Invalid params: tools/call arguments: duplicate key 'section_key'"}})
        )
    );
    let huge = post(
        addr,
        session,
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":99999999999999999999999,"b":1}}}"#,
    );
    assert_eq!(
        huge.json()["error"]["message"],
        "Invalid params: tools/call arguments: the integer 99999999999999999999999 does not fit in 64 bits"
    );
    let not_a_message = post(addr, session, b"[1, 2]");
    assert_eq!(
        (
            not_a_message.status,
            not_a_message.json()["error"]["code"].clone()
        ),
        (400, json!(-32600))
    );

    // Still serving.
    let listed = post(
        addr,
        session,
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#,
    );
    assert_eq!(listed.json()["result"]["tools"][0]["name"], "read_section");
    runtime.block_on(http.shutdown());
}

/// Reads until the server closes the connection; what it sent. Fails after `limit`.
fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> Vec<u8> {
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .unwrap_or_else(|e| panic!("the server kept the connection open ({e}); read {raw:?}"));
    raw
}

#[test]
fn clients_that_send_nothing_half_a_header_or_half_a_body_are_cut_off() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = PromptServer::new(common::demo_prompt(), Session::new());
    let limits = HttpLimits {
        header_timeout: Duration::from_millis(300),
        body_timeout: Duration::from_millis(300),
        max_connections: 4,
    };
    let http = runtime
        .block_on(serve_http_with(
            server,
            "127.0.0.1:0".parse().unwrap(),
            limits,
        ))
        .unwrap();
    let addr = http.local_addr();
    // Nothing at all, then half a header: closed without an answer.
    let mut silent = TcpStream::connect(addr).unwrap();
    assert_eq!(read_until_closed(&mut silent, Duration::from_secs(20)), b"");
    let mut half = TcpStream::connect(addr).unwrap();
    half.write_all(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Ty")
        .unwrap();
    assert_eq!(read_until_closed(&mut half, Duration::from_secs(20)), b"");
    // A body promised and not sent: HTTP 408 with a JSON-RPC error.
    let mut short = TcpStream::connect(addr).unwrap();
    short
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
        .unwrap();
    let answer = parse(&read_until_closed(&mut short, Duration::from_secs(20)));
    assert_eq!(
        (answer.status, answer.json()),
        (
            408,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: the request body did not arrive within 0.3 s"}})
        )
    );
    // Still serving.
    let init = post(addr, None, INITIALIZE.as_bytes());
    assert_eq!(init.status, 200, "{init:?}");
    runtime.block_on(http.shutdown());
}

#[test]
fn connections_beyond_the_cap_wait_for_a_free_slot() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = PromptServer::new(common::demo_prompt(), Session::new());
    let limits = HttpLimits {
        max_connections: 1,
        ..HttpLimits::default()
    };
    let http = runtime
        .block_on(serve_http_with(
            server,
            "127.0.0.1:0".parse().unwrap(),
            limits,
        ))
        .unwrap();
    let addr = http.local_addr();
    let holder = TcpStream::connect(addr).unwrap();
    // Give the accept loop time to take the holder in.
    std::thread::sleep(Duration::from_millis(200));
    let mut waiting = TcpStream::connect(addr).unwrap();
    let body = INITIALIZE.as_bytes();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    waiting.write_all(request.as_bytes()).unwrap();
    waiting.write_all(body).unwrap();
    waiting
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut byte = [0u8; 1];
    let early = waiting.read(&mut byte);
    assert!(
        early.as_ref().is_err_and(|e| matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        )),
        "answered while the only slot was taken: {early:?}"
    );
    // The holder leaves: its slot serves the waiting client.
    drop(holder);
    let started = Instant::now();
    let answer = parse(&read_until_closed(&mut waiting, Duration::from_secs(20)));
    assert_eq!(
        answer.status,
        200,
        "{answer:?} after {:?}",
        started.elapsed()
    );
    runtime.block_on(http.shutdown());
}
