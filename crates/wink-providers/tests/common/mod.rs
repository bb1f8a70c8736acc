//! A loopback HTTP/1.1 server replaying scripted responses and recording the requests it got.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One recorded request.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Lower-cased names.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub at: Instant,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

/// One scripted reply.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Announce this `Content-Length` (more than the body: the connection breaks mid-body).
    pub declared_length: Option<usize>,
}

impl Reply {
    pub fn json(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.into(),
            declared_length: None,
        }
    }

    pub fn sse(body: impl Into<Vec<u8>>) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: body.into(),
            declared_length: None,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// The server: answers the scripted replies in order (then 500s), one connection per request.
pub struct Loopback {
    pub base_url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Loopback {
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let queue = Arc::new(Mutex::new(VecDeque::from(replies)));
        let recorded = Arc::clone(&requests);
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let recorded = Arc::clone(&recorded);
                let queue = Arc::clone(&queue);
                tokio::spawn(async move {
                    let Some(request) = read_request(&mut socket).await else {
                        return;
                    };
                    recorded.lock().unwrap().push(request);
                    let reply = queue.lock().unwrap().pop_front().unwrap_or_else(|| {
                        Reply::json(500, "{\"error\":\"no more scripted replies\"}")
                    });
                    let mut head = format!("HTTP/1.1 {} X\r\nconnection: close\r\n", reply.status);
                    for (name, value) in &reply.headers {
                        head.push_str(&format!("{name}: {value}\r\n"));
                    }
                    let is_stream = reply
                        .headers
                        .iter()
                        .any(|(_, value)| value == "text/event-stream");
                    match reply.declared_length {
                        Some(length) => head.push_str(&format!("content-length: {length}\r\n")),
                        None if !is_stream => {
                            head.push_str(&format!("content-length: {}\r\n", reply.body.len()))
                        }
                        None => {}
                    }
                    head.push_str("\r\n");
                    let _ = socket.write_all(head.as_bytes()).await;
                    let _ = socket.write_all(&reply.body).await;
                    let _ = socket.flush().await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        Self {
            base_url: format!("http://{address}"),
            requests,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Recorded> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(position) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break position;
        }
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let at = Instant::now();
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..read]);
    }
    Some(Recorded {
        method,
        path,
        headers,
        body,
        at,
    })
}

/// A fixture file's bytes.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

use serde_json::json;
use wink_core::{ToolArguments, ToolCall};
use wink_model::{Message, ModelRequest, ToolSpec};
use wink_schema::OutputSpec;

/// `file.read` (dotted: goes out as an alias) and `search`.
pub fn sample_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "file.read".into(),
            description: "Read a text file.".into(),
            parameters: json!({"type": "object", "properties": {
                "path": {"type": "string", "description": "Relative path."},
                "limit": {"type": "integer", "minimum": 1}
            }, "required": ["path"]}),
        },
        ToolSpec {
            name: "search".into(),
            description: "Search the workspace.".into(),
            parameters: json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
        },
    ]
}

pub fn review_output() -> OutputSpec {
    OutputSpec::object(
        "review",
        json!({"type": "object", "properties": {
            "verdict": {"type": "string", "enum": ["approve", "reject"]},
            "score": {"type": "integer"}
        }, "required": ["verdict", "score"]}),
    )
}

/// System prompt, user message, assistant tool calls, two results (the second failed), tools,
/// structured output, token cap and temperature.
pub fn sample_request() -> ModelRequest {
    ModelRequest {
        messages: vec![
            Message::system("You are a careful reviewer."),
            Message::user("Review a.txt."),
            Message::Assistant {
                content: Some("Reading it.".into()),
                tool_calls: vec![
                    ToolCall {
                        id: "call_1".into(),
                        name: "file.read".into(),
                        arguments: ToolArguments::Text("{\"path\":\"a.txt\"}".into()),
                    },
                    ToolCall {
                        id: "call_2".into(),
                        name: "search".into(),
                        arguments: ToolArguments::Json(json!({"query": "hello"})),
                    },
                ],
            },
            Message::Tool {
                tool_call_id: "call_1".into(),
                name: "file.read".into(),
                content: "hello".into(),
                is_error: false,
                images: Vec::new(),
            },
            Message::Tool {
                tool_call_id: "call_2".into(),
                name: "search".into(),
                content: "Tool 'search' execution failed: index offline".into(),
                is_error: true,
                images: Vec::new(),
            },
        ],
        tools: sample_tools(),
        output: Some(review_output()),
        max_output_tokens: Some(1024),
        temperature: Some(0.2),
        ..ModelRequest::default()
    }
}

/// Only tools, a user message: what the loopback tests send.
pub fn simple_request() -> ModelRequest {
    ModelRequest {
        messages: vec![
            Message::system("You are terse."),
            Message::user("Read a.txt"),
        ],
        tools: sample_tools(),
        ..ModelRequest::default()
    }
}
