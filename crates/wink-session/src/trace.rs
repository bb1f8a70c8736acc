//! W3C trace context for what a session's run sends out: [`TraceParent`] (the `traceparent`
//! header, `00-<trace id>-<span id>-<flags>`) and the [`TraceSource`] a tracer installs on a
//! session ([`Session::set_trace_source`](crate::Session::set_trace_source)) so that provider
//! requests, MCP requests and sub-agent runs carry the span they are made in.
//!
//! Nothing here records or exports spans: that is the tracer's job (`wink-trace`). A session
//! without a source answers `None`, and nothing is sent.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::event::SessionId;

/// One span's W3C trace context: a 16-byte trace id, an 8-byte span id and the sampled flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TraceParent {
    /// The trace the span belongs to (never all zeros).
    pub trace_id: [u8; 16],
    /// The span (never all zeros).
    pub span_id: [u8; 8],
    /// The `sampled` trace flag.
    pub sampled: bool,
}

/// A `traceparent` value that is not version `00` with a non-zero trace and span id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid traceparent {input:?}: {reason} (expected 00-<32 hex>-<16 hex>-<2 hex>)")]
pub struct TraceParentError {
    input: String,
    reason: &'static str,
}

impl TraceParent {
    /// The header value: `00-<trace id>-<span id>-01` (or `-00` when not sampled).
    pub fn header(&self) -> String {
        self.to_string()
    }

    /// The trace id as 32 lowercase hex digits.
    pub fn trace_id_hex(&self) -> String {
        hex(&self.trace_id)
    }

    /// The span id as 16 lowercase hex digits.
    pub fn span_id_hex(&self) -> String {
        hex(&self.span_id)
    }
}

fn hex(bytes: &[u8]) -> String {
    use fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != N * 2
        || !text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return None;
    }
    let mut out = [0u8; N];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(i * 2..i * 2 + 2)?, 16).ok()?;
    }
    Some(out)
}

impl fmt::Display for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "00-{}-{}-{}",
            self.trace_id_hex(),
            self.span_id_hex(),
            if self.sampled { "01" } else { "00" }
        )
    }
}

impl FromStr for TraceParent {
    type Err = TraceParentError;

    /// Parses version `00` as the W3C Trace Context recommendation gives it (lowercase hex;
    /// all-zero ids are invalid). Later versions are read by their first four fields.
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let error = |reason| TraceParentError {
            input: input.chars().take(80).collect(),
            reason,
        };
        let text = input.trim();
        let mut parts = text.split('-');
        let (Some(version), Some(trace), Some(span), Some(flags)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(error("four dash-separated fields are needed"));
        };
        let version = unhex::<1>(version).ok_or_else(|| error("bad version"))?;
        if version[0] == 0xff {
            return Err(error("version ff is invalid"));
        }
        if version[0] == 0 && parts.next().is_some() {
            return Err(error("version 00 has exactly four fields"));
        }
        let trace_id = unhex::<16>(trace).ok_or_else(|| error("bad trace id"))?;
        let span_id = unhex::<8>(span).ok_or_else(|| error("bad span id"))?;
        let flags = unhex::<1>(flags).ok_or_else(|| error("bad flags"))?;
        if trace_id == [0; 16] {
            return Err(error("the trace id is all zeros"));
        }
        if span_id == [0; 8] {
            return Err(error("the span id is all zeros"));
        }
        Ok(Self {
            trace_id,
            span_id,
            sampled: flags[0] & 1 == 1,
        })
    }
}

impl Serialize for TraceParent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TraceParent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What an outgoing request is part of, when a session is asked for its trace context.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceScope<'a> {
    /// The run itself (its `invoke_agent` span).
    Run,
    /// The model call about to be made (its `chat` span).
    ModelCall,
    /// A tool call (its `execute_tool` span), by the provider's call id.
    ToolCall {
        /// The call id.
        call_id: &'a str,
    },
}

/// Gives the trace context of a span of a session's run (a tracer installs one on the
/// session). `session` is the session asking: a sub-agent's session asks through its parent's
/// source.
pub trait TraceSource: Send + Sync {
    /// The context of the span `scope` names in `session`'s run, when it is traced.
    fn traceparent(&self, session: SessionId, scope: TraceScope<'_>) -> Option<TraceParent>;

    /// Tool call `call_id` of `session` is made for a caller in another process, in its span
    /// `parent` (an MCP request's `_meta.traceparent`): the call's span continues that trace.
    fn remote_parent(&self, session: SessionId, call_id: &str, parent: TraceParent) {
        let _ = (session, call_id, parent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_the_w3c_example() {
        let text = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        let parsed: TraceParent = text.parse().unwrap();
        assert!(parsed.sampled);
        assert_eq!(parsed.trace_id_hex(), "0af7651916cd43dd8448eb211c80319c");
        assert_eq!(parsed.span_id_hex(), "b7ad6b7169203331");
        assert_eq!(parsed.header(), text);
        assert_eq!(
            serde_json::to_value(parsed).unwrap(),
            serde_json::json!(text)
        );
        let unsampled: TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
            .parse()
            .unwrap();
        assert!(!unsampled.sampled);
    }

    #[test]
    fn rejects_what_the_recommendation_rejects() {
        for bad in [
            "",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "00-0af7651916cd43dd8448eb211c8031-b7ad6b7169203331-01",
        ] {
            let error = bad.parse::<TraceParent>().unwrap_err();
            assert!(
                error.to_string().starts_with("invalid traceparent"),
                "{bad}"
            );
        }
        // A later version may carry more fields.
        let later: TraceParent = "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-xyz"
            .parse()
            .unwrap();
        assert_eq!(later.span_id_hex(), "b7ad6b7169203331");
    }
}
