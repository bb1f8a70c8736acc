//! A client sending malformed lines over stdio gets JSON-RPC errors and the server keeps serving
//! (issue 23): malformed JSON, invalid UTF-8, 10,000-deep nesting, a line over 16 MiB, a
//! `tools/call` with non-object arguments.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use wink_mcp::PromptServer;
use wink_session::Session;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_lines_are_answered_and_serving_goes_on() {
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_side);
    let server = PromptServer::new(common::demo_prompt(), Session::new());
    let serving = tokio::spawn(server.serve_streams(server_read, server_write));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut answers = BufReader::new(client_read).lines();
    let mut next = async || -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), answers.next_line())
            .await
            .expect("an answer within 20 s")
            .unwrap()
            .expect("a line");
        serde_json::from_str(&line).unwrap()
    };

    client_write
        .write_all(format!("{INITIALIZE}\n").as_bytes())
        .await
        .unwrap();
    assert_eq!(next().await["id"], 0);
    client_write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .unwrap();

    client_write
        .write_all(b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \n")
        .await
        .unwrap();
    let answer = next().await;
    assert_eq!(answer["id"], Value::Null);
    assert_eq!(answer["error"]["code"], -32700);

    client_write
        .write_all(b"{\"x\": \"\xc3\x28\"}\n")
        .await
        .unwrap();
    assert_eq!(
        next().await["error"],
        json!({"code": -32700, "message": "Parse error: the line is not valid UTF-8"})
    );

    let deep = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"read_section\",\"arguments\":{{\"a\":{}{}}}}}}}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    client_write.write_all(deep.as_bytes()).await.unwrap();
    assert_eq!(next().await["error"]["code"], -32700);

    let mut long = vec![b' '; 16 * 1024 * 1024 + 10];
    long.push(b'\n');
    client_write.write_all(&long).await.unwrap();
    assert_eq!(
        next().await["error"],
        json!({"code": -32700, "message": "Parse error: the line is 16777226 bytes, longer than the limit of 16777216 bytes"})
    );

    client_write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"read_section\",\"arguments\":[\"math\"]}}\n")
        .await
        .unwrap();
    assert_eq!(
        next().await,
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Invalid params: tools/call arguments must be an object, not an array"}})
    );

    // Still serving.
    client_write
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}\n")
        .await
        .unwrap();
    let listed = next().await;
    assert_eq!(listed["id"], 4);
    assert_eq!(listed["result"]["tools"][0]["name"], "read_section");

    client_write.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(20), serving)
        .await
        .expect("the server stops when its input ends")
        .unwrap()
        .unwrap();
}
