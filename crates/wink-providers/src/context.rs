//! The model's context window: configured, asked of a llama.cpp server (`GET /props`), or from a
//! small table of hosted models.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use serde_json::Value;

use crate::config::AdapterConfig;

/// How long the one-time `/props` probe may take to connect, and to answer.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);
/// The largest `/props` answer read.
const PROBE_MAX_BYTES: u64 = 4 << 20;

/// Context windows of hosted models by name prefix (longest prefix wins), in tokens.
const HOSTED_CONTEXT_WINDOWS: [(&str, u64); 8] = [
    ("claude-", 200_000),
    ("gpt-4o", 128_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-3.5-turbo", 16_385),
];

/// The documented context window of a hosted model (`anthropic`, `openai`, `openai-responses`):
/// the entry of [`HOSTED_CONTEXT_WINDOWS`] whose name is the longest prefix of `model`.
pub(crate) fn hosted_context_window(config: &AdapterConfig) -> Option<u64> {
    if !matches!(
        config.provider.as_str(),
        "anthropic" | "openai" | "openai-responses"
    ) {
        return None;
    }
    HOSTED_CONTEXT_WINDOWS
        .iter()
        .filter(|(prefix, _)| config.model.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, window)| *window)
}

/// What a llama.cpp server says of itself (`GET /props`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ServerProps {
    /// `default_generation_settings.n_ctx`: the context of one slot.
    pub(crate) context: Option<u64>,
    /// `model_path`: the GGUF it serves (its file name names the model family).
    pub(crate) model_path: Option<String>,
}

/// What a llama.cpp server reports: `GET {server}/props` ([`ServerProps`]). `{server}` is the
/// base URL without a trailing `/v1`. Plain `http://` only; `None` when the server does not
/// answer in time, answers something else (vLLM, Ollama: 404) or the URL is `https://`.
pub(crate) fn probe_server_props(config: &AdapterConfig) -> Option<ServerProps> {
    let rest = config.base_url.strip_prefix("http://")?;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let path = path.trim_end_matches('/');
    let path = path
        .strip_suffix("v1")
        .unwrap_or(path)
        .trim_end_matches('/');
    let target = if path.is_empty() {
        "/props".to_owned()
    } else {
        format!("/{path}/props")
    };
    let host_port = if authority.contains(':') && !authority.ends_with(']') {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let address = host_port.to_socket_addrs().ok()?.next()?;
    let mut stream = TcpStream::connect_timeout(&address, PROBE_TIMEOUT).ok()?;
    stream.set_read_timeout(Some(PROBE_TIMEOUT)).ok()?;
    stream.set_write_timeout(Some(PROBE_TIMEOUT)).ok()?;
    let mut head = format!(
        "GET {target} HTTP/1.1\r\nhost: {authority}\r\naccept: application/json\r\nconnection: close\r\n"
    );
    if let Some(key) = &config.api_key {
        head.push_str(&format!("authorization: Bearer {}\r\n", key.expose()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).ok()?;
    let mut reply = Vec::new();
    stream.take(PROBE_MAX_BYTES).read_to_end(&mut reply).ok()?;
    let body = http_body(&reply)?;
    let props: Value = serde_json::from_slice(&body).ok()?;
    Some(ServerProps {
        context: props
            .pointer("/default_generation_settings/n_ctx")
            .and_then(Value::as_u64)
            .filter(|n_ctx| *n_ctx > 0),
        model_path: props
            .get("model_path")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// The body of a `200` HTTP/1.1 reply (plain or chunked).
fn http_body(reply: &[u8]) -> Option<Vec<u8>> {
    let head_end = reply.windows(4).position(|window| window == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&reply[..head_end]).to_ascii_lowercase();
    let status = head.lines().next()?.split_whitespace().nth(1)?;
    if status != "200" {
        return None;
    }
    let body = &reply[head_end + 4..];
    let chunked = head
        .lines()
        .any(|line| line.starts_with("transfer-encoding:") && line.contains("chunked"));
    if !chunked {
        return Some(body.to_vec());
    }
    let mut decoded = Vec::new();
    let mut rest = body;
    loop {
        let line_end = rest.windows(2).position(|window| window == b"\r\n")?;
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Some(decoded);
        }
        decoded.extend_from_slice(rest.get(..size)?);
        rest = rest.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_chunked_bodies() {
        let plain = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(http_body(plain), Some(b"{}".to_vec()));
        let chunked =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4\r\n\":1}\r\n0\r\n\r\n";
        assert_eq!(http_body(chunked), Some(b"{\"a\":1}".to_vec()));
        assert_eq!(http_body(b"HTTP/1.1 404 Not Found\r\n\r\nno"), None);
    }

    #[test]
    fn hosted_table_by_longest_prefix() {
        let window = |config: AdapterConfig| hosted_context_window(&config);
        assert_eq!(
            window(AdapterConfig::anthropic("claude-sonnet-4-5")),
            Some(200_000)
        );
        assert_eq!(window(AdapterConfig::openai("gpt-4o-mini")), Some(128_000));
        assert_eq!(
            window(AdapterConfig::openai("gpt-4.1-mini")),
            Some(1_047_576)
        );
        assert_eq!(
            window(AdapterConfig::openai_responses("gpt-5.1")),
            Some(400_000)
        );
        assert_eq!(window(AdapterConfig::openai("my-finetune")), None);
        assert_eq!(
            window(AdapterConfig::openai_compat("gpt-4o", "http://x/v1")),
            None
        );
    }
}
