//! The store's error type.

use std::io;
use std::path::PathBuf;

use wink_session::{JournalError, ReplayError, SessionId};

/// Everything that can go wrong reading, writing, replaying or showing a session log.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file operation failed.
    #[error("session log {path}: {action}: {source}")]
    Io {
        /// The log file.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The I/O error.
        source: io::Error,
    },
    /// `create` refused to overwrite an existing file.
    #[error("session log {path} already exists; open it to append or choose another path")]
    AlreadyExists {
        /// The log file.
        path: PathBuf,
    },
    /// Another process (or another `SessionLog` of this one) holds the log open for writing.
    #[error(
        "session log {path} is in use by another run (it is locked); wait for that run to end or choose another log"
    )]
    Locked {
        /// The log file.
        path: PathBuf,
    },
    /// The file has no complete header line.
    #[error(
        "session log {path} has no complete header line (empty, or the process stopped while creating it)"
    )]
    MissingHeader {
        /// The log file.
        path: PathBuf,
    },
    /// The header line is not a session-log header.
    #[error("session log {path}: invalid header line: {reason}")]
    InvalidHeader {
        /// The log file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The log was written by a newer wink.
    #[error(
        "session log {path} has schema version {found}, newer than the supported version {supported}; upgrade wink to read it"
    )]
    UnsupportedVersion {
        /// The log file.
        path: PathBuf,
        /// Version in the header.
        found: u64,
        /// Newest version this build reads.
        supported: u32,
    },
    /// A record line before the last one does not decode (a torn *last* line is dropped instead).
    #[error("session log {path}, line {line}: corrupt record: {reason}")]
    CorruptRecord {
        /// The log file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A record could not be replayed into the session.
    #[error("session log {path}, record {seq}: {source}")]
    Replay {
        /// The log file.
        path: PathBuf,
        /// The record's seq.
        seq: u64,
        /// Why.
        source: ReplayError,
    },
    /// The session given to `resume` is not the logged one.
    #[error("session log {path} belongs to session {logged}, not {given}")]
    SessionMismatch {
        /// The log file.
        path: PathBuf,
        /// Session id in the header.
        logged: SessionId,
        /// Id of the session passed in.
        given: SessionId,
    },
    /// Attaching the log to the session failed (writing the baseline record).
    #[error("session log {path}: {source}")]
    Journal {
        /// The log file.
        path: PathBuf,
        /// The journal error.
        source: JournalError,
    },
    /// `show --slice` named a slice the log does not have.
    #[error("session log {path} has no slice {name:?}; slices: {}", available.join(", "))]
    UnknownSlice {
        /// The log file.
        path: PathBuf,
        /// The requested slice.
        name: String,
        /// The slices the log has, sorted.
        available: Vec<String>,
    },
    /// JSON encoding for `show` failed.
    #[error("session log {path}: cannot encode output: {source}")]
    Encode {
        /// The log file.
        path: PathBuf,
        /// The encoding error.
        source: serde_json::Error,
    },
}
