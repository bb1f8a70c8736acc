//! The stdio line reader in front of the MCP SDK: every line the client sends gets an answer.
//!
//! The SDK drops a line it cannot parse without a word, so a client that sent a malformed line
//! waits forever. Each line is screened here first: a line that is not UTF-8, not JSON, nested
//! deeper than serde_json's limit (128) or longer than [`MAX_LINE_BYTES`] is answered with a
//! JSON-RPC parse error (-32700); JSON that is not one JSON-RPC 2.0 message object is an invalid
//! request (-32600); a `tools/call` whose `params` or `arguments` is not an object, or whose
//! arguments hold a key twice or an integer beyond 64 bits (which the SDK would change: the last
//! duplicate kept, the integer made a float), is invalid params (-32602). Everything else goes on
//! to the SDK. The server keeps serving either way.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// The longest line read from the client (16 MiB, without its newline); a longer line is
/// discarded up to its newline and answered with a parse error.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// JSON-RPC 2.0 parse error.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0 invalid request.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0 invalid params.
pub const INVALID_PARAMS: i64 = -32602;

/// One line cut from the client's byte stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// The bytes of a line, without its `\n`.
    Complete(Vec<u8>),
    /// A line longer than the limit (its length in bytes, newline excluded); its bytes are gone.
    TooLong(usize),
}

/// Cuts a byte stream into [`Line`]s holding at most `max` bytes of one line in memory.
#[derive(Debug)]
pub struct LineSplitter {
    max: usize,
    current: Vec<u8>,
    /// Bytes of the current line when it went over `max` (then `current` stays empty).
    overflow: Option<usize>,
}

impl LineSplitter {
    /// A splitter keeping at most `max` bytes of one line.
    pub fn new(max: usize) -> Self {
        Self {
            max,
            current: Vec::new(),
            overflow: None,
        }
    }

    /// Feed the next bytes of the stream; finished lines are appended to `lines`.
    pub fn push(&mut self, mut chunk: &[u8], lines: &mut Vec<Line>) {
        while !chunk.is_empty() {
            let (piece, rest, ends) = match chunk.iter().position(|&b| b == b'\n') {
                Some(at) => (&chunk[..at], &chunk[at + 1..], true),
                None => (chunk, &chunk[chunk.len()..], false),
            };
            self.take(piece);
            if ends {
                lines.push(self.cut());
            }
            chunk = rest;
        }
    }

    /// The last line when the stream ended without a newline.
    pub fn finish(&mut self) -> Option<Line> {
        (self.overflow.is_some() || !self.current.is_empty()).then(|| self.cut())
    }

    fn take(&mut self, piece: &[u8]) {
        match &mut self.overflow {
            Some(length) => *length += piece.len(),
            None if self.current.len() + piece.len() > self.max => {
                self.overflow = Some(self.current.len() + piece.len());
                self.current = Vec::new();
            }
            None => self.current.extend_from_slice(piece),
        }
    }

    fn cut(&mut self) -> Line {
        match self.overflow.take() {
            Some(length) => Line::TooLong(length),
            None => Line::Complete(std::mem::take(&mut self.current)),
        }
    }
}

/// What to do with one line from the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Screened {
    /// Hand it to the MCP SDK.
    Forward,
    /// Blank: nothing to answer.
    Skip,
    /// Answer the client with this JSON-RPC error response (one line, no newline).
    Answer(String),
}

/// Screens one line (see the module docs).
pub fn screen_line(line: &Line) -> Screened {
    let bytes = match line {
        Line::TooLong(length) => {
            return answer(
                &Value::Null,
                PARSE_ERROR,
                &format!(
                    "Parse error: the line is {length} bytes, longer than the limit of {MAX_LINE_BYTES} bytes"
                ),
            );
        }
        Line::Complete(bytes) => bytes,
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return answer(
            &Value::Null,
            PARSE_ERROR,
            "Parse error: the line is not valid UTF-8",
        );
    };
    let text = text.trim();
    if text.is_empty() {
        return Screened::Skip;
    }
    let message: Value = match serde_json::from_str(text) {
        Ok(message) => message,
        Err(error) => {
            return answer(&Value::Null, PARSE_ERROR, &format!("Parse error: {error}"));
        }
    };
    let Value::Object(fields) = &message else {
        return answer(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request: expected one JSON-RPC 2.0 message object",
        );
    };
    let id = match fields.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => id.clone(),
        Some(_) => {
            return answer(
                &Value::Null,
                INVALID_REQUEST,
                "Invalid Request: id must be a string, a number or null",
            );
        }
        None => Value::Null,
    };
    if fields.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return answer(
            &id,
            INVALID_REQUEST,
            "Invalid Request: jsonrpc must be \"2.0\"",
        );
    }
    match fields.get("method") {
        Some(Value::String(method)) if method == "tools/call" => {
            screen_tool_call(&id, fields, text)
        }
        Some(Value::String(_)) => Screened::Forward,
        Some(_) => answer(
            &id,
            INVALID_REQUEST,
            "Invalid Request: method must be a string",
        ),
        None if fields.contains_key("result") || fields.contains_key("error") => Screened::Forward,
        None => answer(
            &id,
            INVALID_REQUEST,
            "Invalid Request: neither a request (method) nor a response (result or error)",
        ),
    }
}

/// The text of a `tools/call`'s arguments, as the client wrote it.
#[derive(Deserialize)]
struct RawCall<'a> {
    #[serde(borrow)]
    params: RawParams<'a>,
}

#[derive(Deserialize)]
struct RawParams<'a> {
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

fn screen_tool_call(id: &Value, fields: &serde_json::Map<String, Value>, text: &str) -> Screened {
    let Some(Value::Object(params)) = fields.get("params") else {
        return answer(
            id,
            INVALID_PARAMS,
            "Invalid params: tools/call params must be an object with a name",
        );
    };
    match params.get("arguments") {
        None => Screened::Forward,
        Some(Value::Object(_)) => strict_arguments(id, text),
        Some(other) => answer(
            id,
            INVALID_PARAMS,
            &format!(
                "Invalid params: tools/call arguments must be an object, not {}",
                json_kind(other)
            ),
        ),
    }
}

/// Forward a `tools/call` whose arguments parse strictly (no key twice, every integer within 64
/// bits); answer invalid params otherwise.
fn strict_arguments(id: &Value, text: &str) -> Screened {
    let refused = |why: String| {
        answer(
            id,
            INVALID_PARAMS,
            &format!("Invalid params: tools/call arguments: {why}"),
        )
    };
    match serde_json::from_str::<RawCall<'_>>(text) {
        Ok(RawCall {
            params: RawParams {
                arguments: Some(raw),
            },
        }) => match wink_schema::parse_strict_json(raw.get()) {
            Ok(_) => Screened::Forward,
            Err(error) => refused(error.to_string()),
        },
        Ok(_) => Screened::Forward,
        // A key of the message twice (`params`, `arguments`): which one the SDK would take is
        // not the client's to guess.
        Err(error) => answer(
            id,
            INVALID_PARAMS,
            &format!("Invalid params: tools/call: {error}"),
        ),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn answer(id: &Value, code: i64, message: &str) -> Screened {
    Screened::Answer(
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn lines_of(chunks: &[&[u8]], max: usize) -> Vec<Line> {
        let mut splitter = LineSplitter::new(max);
        let mut lines = Vec::new();
        for chunk in chunks {
            splitter.push(chunk, &mut lines);
        }
        lines.extend(splitter.finish());
        lines
    }

    #[test]
    fn splitter_cuts_lines_across_chunks_and_bounds_long_ones() {
        assert_eq!(
            lines_of(&[b"ab", b"c\nd", b"e\n\nf"], 10),
            [
                Line::Complete(b"abc".to_vec()),
                Line::Complete(b"de".to_vec()),
                Line::Complete(Vec::new()),
                Line::Complete(b"f".to_vec()),
            ]
        );
        assert_eq!(
            lines_of(&[b"12345", b"678\nok\n", b"123456789"], 4),
            [
                Line::TooLong(8),
                Line::Complete(b"ok".to_vec()),
                Line::TooLong(9)
            ]
        );
        assert_eq!(
            lines_of(&[b"1234\n"], 4),
            [Line::Complete(b"1234".to_vec())]
        );
    }

    fn answered(line: &[u8]) -> Value {
        match screen_line(&Line::Complete(line.to_vec())) {
            Screened::Answer(text) => serde_json::from_str(&text).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn malformed_lines_get_parse_errors() {
        assert_eq!(
            answered(b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\""),
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: EOF while parsing an object at line 1 column 36"}})
        );
        assert_eq!(
            answered(b"{\"a\": \"\xff\"}")["error"],
            json!({"code": -32700, "message": "Parse error: the line is not valid UTF-8"})
        );
        let deep = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{{\"name\":\"x\",\"arguments\":{{\"a\":{}{}}}}}}}",
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        assert_eq!(
            answered(deep.as_bytes())["error"],
            json!({"code": -32700, "message": "Parse error: recursion limit exceeded at line 1 column 209"})
        );
        assert_eq!(
            screen_line(&Line::TooLong(17_000_000)),
            Screened::Answer(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is 17000000 bytes, longer than the limit of 16777216 bytes"}}"#.into()
            )
        );
    }

    #[test]
    fn invalid_requests_and_params() {
        assert_eq!(answered(b"[1, 2]")["error"]["code"], json!(INVALID_REQUEST));
        assert_eq!(
            answered(br#"{"jsonrpc": "1.0", "id": 4, "method": "ping"}"#),
            json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32600, "message": "Invalid Request: jsonrpc must be \"2.0\""}})
        );
        assert_eq!(
            answered(
                br#"{"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {"name": "add", "arguments": [1, 2]}}"#
            ),
            json!({"jsonrpc": "2.0", "id": "c", "error": {"code": -32602, "message": "Invalid params: tools/call arguments must be an object, not an array"}})
        );
        assert_eq!(
            screen_line(&Line::Complete(
                br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1}}}"#.to_vec()
            )),
            Screened::Forward
        );
        assert_eq!(
            screen_line(&Line::Complete(b"  \r".to_vec())),
            Screened::Skip
        );
        assert_eq!(
            answered(
                br#"{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "a": 2}}}"#
            ),
            json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "Invalid params: tools/call arguments: duplicate key 'a'"}})
        );
        assert_eq!(
            answered(
                br#"{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "add", "arguments": {"a": {"n": 99999999999999999999999}}}}"#
            ),
            json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32602, "message": "Invalid params: tools/call arguments: the integer 99999999999999999999999 does not fit in 64 bits"}})
        );
        assert_eq!(
            answered(
                br#"{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1}, "arguments": {"a": 2}}}"#
            )["error"]["code"],
            json!(INVALID_PARAMS)
        );
        assert_eq!(
            screen_line(&Line::Complete(
                br#"{"jsonrpc": "2.0", "id": 9, "result": {}}"#.to_vec()
            )),
            Screened::Forward
        );
    }
}
