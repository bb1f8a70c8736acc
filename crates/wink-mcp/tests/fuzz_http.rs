//! Fuzzing `wink mcp serve --http` (issue 41): HTTP requests — well-formed ones carrying
//! JSON-RPC fragments, ones with wrong lengths, methods and headers, and raw bytes — are written
//! to the server's connection handler over an in-memory pipe, the client then closing its side.
//! Every request gets an HTTP/1.1 answer or a closed connection, never a panic, within two
//! seconds of work (the runtime's clock is paused, so the server's timeouts fire as soon as the
//! exchange waits on nothing else); every error the screen gives is a JSON-RPC error with a
//! known code. Case count: `PROPTEST_CASES` (default 256); see docs/fuzzing.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use wink_mcp::{HttpEndpoint, HttpLimits, PromptServer};
use wink_session::Session;

/// JSON-RPC bodies: real messages, fragments and garbage.
fn body() -> impl Strategy<Value = Vec<u8>> {
    let fragment = prop_oneof![
        Just(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}"#.to_vec()),
        Just(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_vec()),
        Just(br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_section","arguments":{"section_key":"math"}}}"#.to_vec()),
        Just(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"a":2}}}"#.to_vec()),
        Just(br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":99999999999999999999999}}}"#.to_vec()),
        Just(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec()),
        Just(br#"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"wink://section/math"}}"#.to_vec()),
        Just(br#"[{"jsonrpc":"2.0"}]"#.to_vec()),
        Just(b"[[[[{{{{".to_vec()),
        Just(b"\xff\xfe".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..16),
    ];
    prop_oneof![
        3 => fragment.clone(),
        2 => proptest::collection::vec(fragment, 0..4).prop_map(|parts| parts.concat()),
    ]
}

fn method() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => Just("POST".to_owned()),
        2 => Just("GET".to_owned()),
        1 => Just("DELETE".to_owned()),
        1 => Just("PUT".to_owned()),
        1 => "[A-Z]{0,8}",
    ]
}

fn header() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Content-Type: application/json".to_owned()),
        Just("Content-Type: text/plain".to_owned()),
        Just("Accept: application/json, text/event-stream".to_owned()),
        Just("Accept: text/event-stream".to_owned()),
        Just("Mcp-Session-Id: 00000000-0000-0000-0000-000000000000".to_owned()),
        Just("MCP-Protocol-Version: 2025-06-18".to_owned()),
        Just("MCP-Protocol-Version: 1999-01-01".to_owned()),
        Just("Transfer-Encoding: chunked".to_owned()),
        Just("Content-Length: 99999999999999999999".to_owned()),
        Just("Content-Length: -1".to_owned()),
        Just("Expect: 100-continue".to_owned()),
        Just("Connection: keep-alive".to_owned()),
        "[A-Za-z-]{1,12}: [ -~]{0,20}",
    ]
}

/// A request: `(method, path, headers, body, length)`, the length the head announces being the
/// body's, off by some bytes, or absent.
fn request() -> impl Strategy<Value = Vec<u8>> {
    let structured = (
        method(),
        prop_oneof![Just("/mcp".to_owned()), "/[ -~]{0,10}"],
        prop_oneof![8 => Just("127.0.0.1:8765"), 1 => Just("localhost"), 1 => Just("evil.example")],
        // Mostly the headers a client sends, then others.
        prop_oneof![
            3 => Just(vec![
                "Content-Type: application/json".to_owned(),
                "Accept: application/json, text/event-stream".to_owned(),
                format!("Mcp-Session-Id: {SESSION}"),
                "MCP-Protocol-Version: 2025-06-18".to_owned(),
            ]),
            1 => Just(vec![
                "Content-Type: application/json".to_owned(),
                "Accept: application/json, text/event-stream".to_owned(),
            ]),
            1 => Just(Vec::new()),
        ],
        proptest::collection::vec(header(), 0..4),
        body(),
        prop_oneof![Just(Some(0i64)), Just(None), (-3i64..4).prop_map(Some)],
    )
        .prop_map(|(method, path, host, usual, headers, body, length)| {
            let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\n");
            for header in usual.into_iter().chain(headers) {
                head.push_str(&header);
                head.push_str("\r\n");
            }
            if let Some(off) = length {
                let announced = (body.len() as i64 + off).max(0);
                head.push_str(&format!("Content-Length: {announced}\r\n"));
            }
            head.push_str("\r\n");
            let mut bytes = head.into_bytes();
            bytes.extend(body);
            bytes
        });
    prop_oneof![
        8 => structured,
        1 => proptest::collection::vec(any::<u8>(), 0..256),
        1 => "[ -~\r\n]{0,200}".prop_map(String::into_bytes),
    ]
}

/// Stands for the id of a session the case opened first (see [`exchange`]).
const SESSION: &str = "@SESSION@";

const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}"#;

/// Writes `request` on a new connection of `endpoint` over an in-memory pipe, closes the sending
/// side and reads the answer until the server closes (or a second passes). Returns it and the
/// connection's task.
async fn send(
    endpoint: &HttpEndpoint<PromptServer>,
    request: &[u8],
) -> (Vec<u8>, tokio::task::JoinHandle<()>) {
    let (mut client, server_side) = tokio::io::duplex(1 << 16);
    let serving = {
        let endpoint = endpoint.clone();
        tokio::spawn(async move { endpoint.serve_connection(server_side).await })
    };
    let _ = client.write_all(request).await;
    let _ = client.shutdown().await;
    let mut answer = Vec::new();
    let get = request.starts_with(b"GET ");
    let _ = tokio::time::timeout(
        Duration::from_secs(1),
        read_answer(&mut client, &mut answer, get),
    )
    .await;
    drop(client);
    (answer, serving)
}

/// Reads until the server closes, or (`get`) until the head of a GET's event stream has come:
/// that is the stream on which a session's server-initiated messages arrive, open for as long
/// as the session lasts.
async fn read_answer(client: &mut tokio::io::DuplexStream, answer: &mut Vec<u8>, get: bool) {
    let mut buffer = [0u8; 4096];
    while let Ok(read) = client.read(&mut buffer).await {
        if read == 0 {
            return;
        }
        answer.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(answer);
        if get
            && let Some((head, _)) = text.split_once("\r\n\r\n")
            && head.contains("content-type: text/event-stream")
        {
            return;
        }
    }
}

/// Sends `request` to a fresh endpoint; when it names [`SESSION`], an `initialize` on another
/// connection opens a session first and its id takes the placeholder's place.
async fn exchange(request: Vec<u8>) -> Vec<u8> {
    let server = PromptServer::new(common::demo_prompt(), Session::new());
    let limits = HttpLimits {
        header_timeout: Duration::from_millis(500),
        body_timeout: Duration::from_millis(500),
        max_connections: 4,
    };
    let endpoint = HttpEndpoint::new(server, limits);
    let mut tasks = Vec::new();
    let mut request = request;
    let marker = SESSION.as_bytes();
    if let Some(at) = request.windows(marker.len()).position(|w| w == marker) {
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
            INITIALIZE.len()
        );
        let (opened, task) = send(&endpoint, &[head.as_bytes(), INITIALIZE].concat()).await;
        tasks.push(task);
        let opened = String::from_utf8_lossy(&opened);
        let id = opened
            .lines()
            .find_map(|l| l.strip_prefix("mcp-session-id: "))
            .unwrap_or("none")
            .trim()
            .to_owned();
        request.splice(at..at + marker.len(), id.into_bytes());
    }
    let (answer, task) = send(&endpoint, &request).await;
    tasks.push(task);
    // Ends what is still open (a GET's event stream), then checks no connection panicked.
    endpoint.cancel();
    for task in tasks {
        if let Ok(Err(error)) = tokio::time::timeout(Duration::from_secs(1), task).await {
            assert!(!error.is_panic(), "a connection task panicked: {error}");
        }
    }
    answer
}

fn check_answer(answer: &[u8]) {
    if answer.is_empty() {
        return;
    }
    let text = String::from_utf8_lossy(answer);
    assert!(text.starts_with("HTTP/1.1 "), "{text:?}");
    let status: u16 = text[9..12].parse().unwrap_or_else(|_| panic!("{text:?}"));
    assert!((100..600).contains(&status), "{text:?}");
    // The screen's own answers are JSON-RPC errors with a known code.
    if let Some((head, body)) = text.split_once("\r\n\r\n")
        && head.contains("content-type: application/json")
        && let Ok(message) = serde_json::from_str::<Value>(body)
        && let Some(code) = message["error"]["code"].as_i64()
    {
        let standard = code == -32700 || (-32603..=-32600).contains(&code);
        let server_defined = (-32099..=-32000).contains(&code);
        assert!(standard || server_defined, "{body}");
    }
}

proptest! {
    #[test]
    fn fuzz_mcp_http_requests(request in request()) {
        let started = Instant::now();
        // Paused time: the server's header, body and idle timeouts fire as soon as the
        // exchange has nothing else to do, so the case's bound measures its work.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        let answer = runtime.block_on(exchange(request));
        check_answer(&answer);
        prop_assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    }
}
