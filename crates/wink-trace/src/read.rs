//! A recorded run as spans: a session log (`wink run --session`), a transcript
//! (`wink run --transcript`) or a durable run's Redis stream, through the one mapping.

use std::path::Path;

use serde_json::{Value, json};
use wink_redis::RunEntry;
use wink_session::LogRecord;
use wink_session::journal::RESTORED;

use crate::mapping::{MapOptions, Mapper, event_time, is_intervention_type};
use crate::span::{SpanRecord, span_id_of};

mod runs;
mod transcript;

pub use runs::{Recordings, run_of_request, run_of_session_log, run_of_transcript, runs_at};

/// A recording that cannot be read.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be read.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// The recording holds no run.
    #[error("{0}: no run in it (no PromptRendered, ModelCalled or ToolInvoked event)")]
    Empty(String),
    /// Nothing to read was named.
    #[error("no run given: name session logs or transcripts, or request ids with --redis URL")]
    NoRun,
    /// A request's run on a Redis queue cannot be read.
    #[error("request {id}: {message}")]
    Request {
        /// The request id.
        id: String,
        /// Why.
        message: String,
    },
}

/// The event types the mapping reads; others in a log are skipped.
const MAPPED: [&str; 9] = [
    "PromptRendered",
    "TraceStarted",
    "ModelCalled",
    "ToolInvoked",
    "ToolsInjected",
    "VisibilityExpanded",
    "PromptExecuted",
    "SubagentEvent",
    "LoopIntervention",
];

fn mapped(type_name: &str) -> bool {
    MAPPED.contains(&type_name) || is_intervention_type(type_name)
}

/// Order of event types published at the same microsecond (as the loop publishes them).
fn rank(type_name: &str) -> usize {
    MAPPED
        .iter()
        .position(|t| *t == type_name)
        .unwrap_or(MAPPED.len())
}

/// The events of a log's records, in order. A `wink.restored` record before any event (a
/// whole state: a log started on a session that had events, a Redis base entry) gives its
/// telemetry in time order; later ones (a failed tool call's state put back) repeat what came
/// before and are skipped.
pub fn events_of(records: &[LogRecord]) -> Vec<(String, Value)> {
    let mut events = Vec::new();
    for record in records {
        if record.type_name == RESTORED {
            if !events.is_empty() {
                continue;
            }
            let mut restored: Vec<(String, Value)> = record
                .event
                .get("slices")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|slice| {
                    let name = slice.get("slice_type")?.as_str()?;
                    mapped(name).then(|| {
                        let items = slice.get("items").and_then(Value::as_array).cloned();
                        items
                            .unwrap_or_default()
                            .into_iter()
                            .map(move |item| (name.to_owned(), item))
                    })
                })
                .flatten()
                .collect();
            restored.sort_by_key(|(name, item)| (time_of(name, item), rank(name)));
            events.extend(restored);
        } else if mapped(&record.type_name) {
            events.push((record.type_name.clone(), record.event.clone()));
        }
    }
    events
}

fn time_of(type_name: &str, event: &Value) -> u64 {
    if type_name == "SubagentEvent" {
        return event.get("event").map_or(0, event_time);
    }
    event_time(event)
}

/// Maps `events` (type name and JSON, in order) to spans. `session`: the root run's session
/// id, for events that do not name theirs.
pub fn map_events(
    events: &[(String, Value)],
    session: Option<&str>,
    options: MapOptions,
) -> Vec<SpanRecord> {
    let mut mapper = Mapper::new(options);
    if let Some(session) = session {
        mapper.set_default_key(session);
    }
    learn_dispatching_calls(&mut mapper, events);
    for (type_name, event) in events {
        mapper.feed_json(type_name, event);
    }
    mapper.finish();
    mapper.take_spans()
}

/// Sub-agent runs come before the call that dispatched them ends: the spans of those calls are
/// learnt first, so the runs nest under them.
fn learn_dispatching_calls(mapper: &mut Mapper, events: &[(String, Value)]) {
    let dispatching: Vec<(String, String)> = events
        .iter()
        .filter(|(t, _)| t == "SubagentEvent")
        .filter_map(|(_, e)| {
            Some((
                e.get("parent_session_id")?.as_str()?.to_owned(),
                e.get("call_id")?.as_str()?.to_owned(),
            ))
        })
        .collect();
    let mut learn = |session: &str, invoked: &Value| {
        let Some(call) = invoked.get("call_id").and_then(Value::as_str) else {
            return;
        };
        if !dispatching.iter().any(|(s, c)| s == session && c == call) {
            return;
        }
        let recorded = invoked
            .get("span")
            .and_then(|s| serde_json::from_value::<wink_session::TraceParent>(s.clone()).ok())
            .map(|s| s.span_id);
        let derived = invoked
            .get("event_id")
            .and_then(|id| serde_json::from_value::<uuid::Uuid>(id.clone()).ok())
            .map(|id| span_id_of(&id, 3));
        if let Some(span) = recorded.or(derived) {
            mapper.learn_tool_span(session, call, span);
        }
    };
    for (type_name, event) in events {
        match type_name.as_str() {
            "ToolInvoked" => {
                let session = event
                    .get("session_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                learn(session, event);
            }
            "SubagentEvent"
                if event.get("event_type").and_then(Value::as_str) == Some("ToolInvoked") =>
            {
                if let (Some(run), Some(inner)) = (
                    event.get("run_id").and_then(Value::as_str),
                    event.get("event"),
                ) {
                    learn(run, inner);
                }
            }
            _ => {}
        }
    }
}

fn file_error(path: &Path, message: impl std::fmt::Display) -> ReadError {
    ReadError::File {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

/// The spans of a session log.
///
/// # Errors
/// The log cannot be read, or holds no run.
pub fn from_session_log(path: &Path, options: MapOptions) -> Result<Vec<SpanRecord>, ReadError> {
    let contents = wink_store::read_log(path).map_err(|e| file_error(path, e))?;
    let events = events_of(&contents.records);
    let session = contents.header.session_id.to_string();
    non_empty(path, map_events(&events, Some(&session), options))
}

/// The spans of a transcript (`wink run --transcript`).
///
/// # Errors
/// The file cannot be read or is not a transcript.
pub fn from_transcript(path: &Path, options: MapOptions) -> Result<Vec<SpanRecord>, ReadError> {
    let text = std::fs::read_to_string(path).map_err(|e| file_error(path, e))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        file_error(
            path,
            format!("not JSON (line {}, column {}): {e}", e.line(), e.column()),
        )
    })?;
    let label = path.file_stem().map_or_else(
        || "transcript".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    );
    let events = transcript::events(&value, &label).map_err(|e| file_error(path, e))?;
    let mut spans = map_events(&events, None, options);
    if events.iter().any(|(t, _)| t == transcript::TIMING_UNKNOWN) {
        for span in spans.iter_mut().filter(|s| s.parent_span_id.is_none()) {
            span.attributes
                .set(crate::semconv::wink::TIMING_UNKNOWN, true);
        }
    }
    non_empty(path, spans)
}

/// The spans of a durable run's stream (its entries, oldest first).
///
/// # Errors
/// An entry's records do not decode, or the stream holds no run.
pub fn from_run_entries(
    request_id: &str,
    entries: &[RunEntry],
    options: MapOptions,
) -> Result<Vec<SpanRecord>, ReadError> {
    let start = entries.iter().position(|e| e.base).unwrap_or(0);
    let mut records = Vec::new();
    for entry in &entries[start..] {
        for line in entry.events.lines().filter(|l| !l.trim().is_empty()) {
            let record = LogRecord::decode(line).map_err(|e| ReadError::File {
                path: format!("request {request_id}"),
                message: format!("step {}: a session record does not decode: {e}", entry.step),
            })?;
            // Later bases repeat what the entries before them hold.
            if record.type_name == RESTORED && !records.is_empty() {
                continue;
            }
            records.push(record);
        }
    }
    let events = events_of(&records);
    let session = events.iter().find_map(|(_, e)| {
        e.get("session_id")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let spans = map_events(&events, session.as_deref(), options);
    if spans.is_empty() {
        return Err(ReadError::Empty(format!("request {request_id}")));
    }
    Ok(spans)
}

/// The spans of a session log or a transcript, told apart by their first bytes.
///
/// # Errors
/// As [`from_session_log`] and [`from_transcript`].
pub fn from_file(path: &Path, options: MapOptions) -> Result<Vec<SpanRecord>, ReadError> {
    let head = std::fs::read(path).map_err(|e| file_error(path, e))?;
    let first_line = head.split(|b| *b == b'\n').next().unwrap_or_default();
    let is_log = serde_json::from_slice::<Value>(first_line)
        .ok()
        .is_some_and(|v| v.get("wink_session_log").is_some());
    if is_log {
        from_session_log(path, options)
    } else {
        from_transcript(path, options)
    }
}

fn non_empty(path: &Path, spans: Vec<SpanRecord>) -> Result<Vec<SpanRecord>, ReadError> {
    if spans.is_empty() {
        Err(ReadError::Empty(path.display().to_string()))
    } else {
        Ok(spans)
    }
}

/// A JSON value for a transcript's synthetic event.
pub(crate) fn stamp(micros: i64) -> Value {
    json!(wink_session::Timestamp::from_unix_micros(micros))
}
