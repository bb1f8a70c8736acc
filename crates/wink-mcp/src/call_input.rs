//! What the MCP server hands a tool for one call, in its context's resources: the client's
//! answers when the call is retried after `input_required` ([`ClientInput`]), and a
//! [`ProgressReporter`] when the client asked for progress.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

/// The client's answers for a call retried after the tool asked for input (SEP-2322): the
/// `inputResponses` object (request key → the client's result) and the tool's own state, as
/// the tool gave it (the server checked that the client returned it unchanged).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ClientInput {
    /// `inputResponses`: request key → result.
    pub responses: Value,
    /// The `requestState` the tool gave, when it gave one.
    pub state: Option<String>,
}

impl ClientInput {
    /// Answers and state.
    pub fn new(responses: Value, state: Option<String>) -> Self {
        Self { responses, state }
    }
}

/// One progress report of a running tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProgressUpdate {
    /// How far along (increasing).
    pub progress: f64,
    /// Of how much, when known.
    pub total: Option<f64>,
    /// What it is doing.
    pub message: Option<String>,
}

impl ProgressUpdate {
    /// A line a command tool wrote on stderr, when it is a progress report: a JSON object with a
    /// number `progress` and optionally a number `total` and a string `message`, nothing else.
    ///
    /// ```
    /// use wink_mcp::ProgressUpdate;
    /// let update = ProgressUpdate::from_line(r#"{"progress": 50, "total": 100}"#).unwrap();
    /// assert_eq!((update.progress, update.total), (50.0, Some(100.0)));
    /// assert!(ProgressUpdate::from_line("progress: 50").is_none());
    /// assert!(ProgressUpdate::from_line(r#"{"progress": 5, "level": "info"}"#).is_none());
    /// ```
    pub fn from_line(line: &str) -> Option<Self> {
        let Ok(Value::Object(map)) = serde_json::from_str::<Value>(line.trim()) else {
            return None;
        };
        if map
            .keys()
            .any(|k| !matches!(k.as_str(), "progress" | "total" | "message"))
        {
            return None;
        }
        let progress = map.get("progress")?.as_f64()?;
        let total = match map.get("total") {
            None => None,
            Some(total) => Some(total.as_f64()?),
        };
        let message = match map.get("message") {
            None => None,
            Some(message) => Some(message.as_str()?.to_owned()),
        };
        Some(Self {
            progress,
            total,
            message,
        })
    }
}

/// Sends a call's progress to the MCP client that asked for it (`_meta.progressToken`).
#[derive(Clone)]
pub struct ProgressReporter(Arc<dyn Fn(ProgressUpdate) + Send + Sync>);

impl fmt::Debug for ProgressReporter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressReporter")
    }
}

impl ProgressReporter {
    /// A reporter calling `report` for each update.
    pub fn new(report: impl Fn(ProgressUpdate) + Send + Sync + 'static) -> Self {
        Self(Arc::new(report))
    }

    /// Reports `update`.
    pub fn report(&self, update: ProgressUpdate) {
        (self.0)(update);
    }
}

/// Set when the client cancelled the call (`tasks/cancel`): a tool that runs long (a command)
/// checks it and stops.
#[derive(Debug, Clone, Default)]
pub struct CancelSignal(Arc<std::sync::atomic::AtomicBool>);

impl CancelSignal {
    /// Asks the call to stop.
    pub fn cancel(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether the call was asked to stop.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}
