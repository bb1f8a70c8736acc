//! The durable-log vocabulary: the header and record lines of a session log, the [`Journal`] a session writes
//! every state change to, and the reserved record types for changes that are not events.
//!
//! This module only encodes and decodes; files are handled by the `wink-store` crate.
//!
//! A log is JSON Lines. The first line is the header
//! `{"wink_session_log":1,"session_id":"<uuid>","created_at":"<RFC 3339>"}`; each following line is one record
//! `{"seq":<n>,"type":"<type name>","event":<event JSON>}` with `seq` counting from 1. Besides event types the
//! `type` may be one of the reserved `wink.*` names below, written when a slice is changed directly
//! (seed/clear/install), a snapshot is restored, or the session is reset.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::event::{ErasedEvent, Event, SessionId};
use crate::time::Timestamp;

/// Current schema version of session logs, written in the header's `wink_session_log` field.
pub const LOG_SCHEMA_VERSION: u32 = 1;

/// Record type of a direct replacement of one slice's items (`{"slice": name, "items": [...]}`).
pub const SLICE_REPLACED: &str = "wink.slice_replaced";
/// Record type of items appended directly to a slice (`{"slice": name, "items": [...]}`).
pub const SLICE_EXTENDED: &str = "wink.slice_extended";
/// Record type of a snapshot restore (`{"slices": [{"slice_type": name, "items": [...]}, ...]}`); also the
/// first record of a log attached to a session that already had state.
pub const RESTORED: &str = "wink.restored";
/// Record type of a reset (all slices cleared; payload `{}`).
pub const RESET: &str = "wink.reset";

/// True for the reserved `wink.*` record types that are not events.
pub fn is_control_record(type_name: &str) -> bool {
    matches!(
        type_name,
        SLICE_REPLACED | SLICE_EXTENDED | RESTORED | RESET
    )
}

/// The first line of a session log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogHeader {
    /// Schema version ([`LOG_SCHEMA_VERSION`] when written by this version).
    pub wink_session_log: u32,
    /// The logged session.
    pub session_id: SessionId,
    /// When the session was created.
    pub created_at: Timestamp,
    /// The prompt the log was recorded for (absent in logs written without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptIdentity>,
}

/// Which prompt a session log belongs to: resuming it with another prompt is refused by `wink run`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptIdentity {
    /// The prompt's namespace.
    pub ns: String,
    /// The prompt's key.
    pub key: String,
    /// Lowercase hex sha256 of the prompt file's bytes.
    pub sha256: String,
}

impl LogHeader {
    /// A current-version header for a session.
    pub fn new(session_id: SessionId, created_at: Timestamp) -> Self {
        Self {
            wink_session_log: LOG_SCHEMA_VERSION,
            session_id,
            created_at,
            prompt: None,
        }
    }

    /// The header naming the prompt the log is recorded for.
    #[must_use]
    pub fn with_prompt(mut self, prompt: Option<PromptIdentity>) -> Self {
        self.prompt = prompt;
        self
    }

    /// The header as one JSON line, newline included.
    pub fn encode_line(&self) -> Result<Vec<u8>, serde_json::Error> {
        let mut line = serde_json::to_vec(self)?;
        line.push(b'\n');
        Ok(line)
    }
}

/// One record line of a session log, decoded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogRecord {
    /// Position in the log, from 1.
    pub seq: u64,
    /// The event's [`Event::type_name`], or a reserved `wink.*` type.
    #[serde(rename = "type")]
    pub type_name: String,
    /// The payload.
    pub event: Value,
}

impl LogRecord {
    /// Decodes one line (without its newline).
    pub fn decode(line: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(line)
    }
}

/// Appends `{"seq":seq,"type":type_name,"event":<payload>}` and a newline to `out`.
pub fn encode_record_line(
    seq: u64,
    type_name: &str,
    payload: &dyn ErasedEvent,
    out: &mut Vec<u8>,
) -> Result<(), serde_json::Error> {
    out.extend_from_slice(b"{\"seq\":");
    out.extend_from_slice(seq.to_string().as_bytes());
    out.extend_from_slice(b",\"type\":");
    serde_json::to_writer(&mut *out, type_name)?;
    out.extend_from_slice(b",\"event\":");
    payload.write_json(out)?;
    out.extend_from_slice(b"}\n");
    Ok(())
}

/// The error a [`Journal`] reports; the change it was asked to record is not applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct JournalError {
    message: String,
}

impl JournalError {
    /// An error with this message.
    pub fn new(message: impl fmt::Display) -> Self {
        Self {
            message: message.to_string(),
        }
    }
}

/// Durable storage for a session's changes, attached with
/// [`Session::attach_journal`](crate::Session::attach_journal).
///
/// The session calls [`Journal::append`] while holding its state lock, before applying the change
/// (write-ahead): when `append` returns `Ok` the change must be as durable as the journal promises, and when
/// it returns `Err` the session does not apply the change and reports the failure.
pub trait Journal: Send + Sync {
    /// Records one change: an event (`type_name` = [`Event::type_name`]) or a reserved `wink.*` record.
    fn append(&self, type_name: &str, payload: &dyn ErasedEvent) -> Result<(), JournalError>;
}

/// Payload of [`SLICE_REPLACED`] and [`SLICE_EXTENDED`] records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SliceItemsRecord {
    pub(crate) slice: String,
    pub(crate) items: Vec<Value>,
}

impl Event for SliceItemsRecord {
    fn type_name() -> &'static str {
        SLICE_REPLACED
    }
}

/// One slice in [`RESTORED`] records and JSON snapshots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SliceRecord {
    pub(crate) slice_type: String,
    pub(crate) items: Vec<Value>,
}

/// Payload of [`RESTORED`] records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct RestoreRecord {
    pub(crate) slices: Vec<SliceRecord>,
}

impl Event for RestoreRecord {
    fn type_name() -> &'static str {
        RESTORED
    }
}

/// Payload of [`RESET`] records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ResetRecord {}

impl Event for ResetRecord {
    fn type_name() -> &'static str {
        RESET
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Serialize, Deserialize)]
    struct Note {
        text: String,
    }
    impl Event for Note {}

    #[test]
    fn record_line_round_trips() {
        let mut out = Vec::new();
        encode_record_line(
            3,
            "Note",
            &Note {
                text: "a\"b".into(),
            },
            &mut out,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            "{\"seq\":3,\"type\":\"Note\",\"event\":{\"text\":\"a\\\"b\"}}\n"
        );
        let record = LogRecord::decode(std::str::from_utf8(&out).unwrap().trim_end()).unwrap();
        assert_eq!(
            record,
            LogRecord {
                seq: 3,
                type_name: "Note".into(),
                event: serde_json::json!({"text": "a\"b"})
            }
        );
    }

    #[test]
    fn header_line() {
        let id: SessionId = "7c0e2d36-6a8e-4b59-9c55-3b1f6b5c2a10".parse().unwrap();
        let header = LogHeader::new(id, Timestamp::from_unix_micros(1_795_319_259_123_456));
        assert_eq!(
            String::from_utf8(header.encode_line().unwrap()).unwrap(),
            "{\"wink_session_log\":1,\"session_id\":\"7c0e2d36-6a8e-4b59-9c55-3b1f6b5c2a10\",\"created_at\":\"2026-11-22T03:47:39.123456Z\"}\n"
        );
        assert!(is_control_record(RESTORED));
        assert!(!is_control_record("Note"));
    }
}
