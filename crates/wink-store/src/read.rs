//! Reading a session log: header check, record decoding, torn-tail detection and replay.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;
use wink_session::{
    DispatchResult, HandlerFailure, LOG_SCHEMA_VERSION, LogHeader, LogRecord, Session,
};

use crate::error::StoreError;

/// A torn last line: bytes after the last complete record that do not form one (a write cut short by a crash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// 1-based line number of the torn line.
    pub line: usize,
    /// Its length in bytes.
    pub bytes: u64,
}

/// The decoded content of a session log.
#[derive(Debug, Clone)]
pub struct LogContents {
    /// The header line.
    pub header: LogHeader,
    /// The complete records, in order.
    pub records: Vec<LogRecord>,
    /// The dropped torn last line, if there was one.
    pub torn_tail: Option<TornTail>,
    /// Length in bytes of the valid prefix (header and complete records).
    pub valid_len: u64,
}

impl LogContents {
    /// Seq of the last record (0 when there is none).
    pub fn last_seq(&self) -> u64 {
        self.records.last().map_or(0, |record| record.seq)
    }
}

/// What [`replay`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayReport {
    /// Number of records applied.
    pub records: usize,
    /// Whether a torn last line was dropped.
    pub dropped_torn_line: bool,
    /// Reducer failures that happened while replaying (they also happened live), with the record's seq.
    pub reducer_failures: Vec<(u64, HandlerFailure)>,
}

fn io_error(path: &Path, action: &'static str) -> impl FnOnce(std::io::Error) -> StoreError {
    let path = path.to_path_buf();
    move |source| StoreError::Io {
        path,
        action,
        source,
    }
}

pub(crate) fn parse_header(path: &Path, line: &[u8]) -> Result<LogHeader, StoreError> {
    let invalid = |reason: String| StoreError::InvalidHeader {
        path: path.to_path_buf(),
        reason,
    };
    let value: Value =
        serde_json::from_slice(line).map_err(|error| invalid(format!("not JSON: {error}")))?;
    let version = value
        .get("wink_session_log")
        .and_then(Value::as_u64)
        .ok_or_else(|| invalid("missing numeric field \"wink_session_log\"".to_owned()))?;
    if version > u64::from(LOG_SCHEMA_VERSION) {
        return Err(StoreError::UnsupportedVersion {
            path: path.to_path_buf(),
            found: version,
            supported: LOG_SCHEMA_VERSION,
        });
    }
    serde_json::from_value(value).map_err(|error| invalid(error.to_string()))
}

/// Reads and checks a session log without changing it.
///
/// A torn last line (no trailing newline, or a last line that is not a valid record) is dropped with a
/// `tracing` warning and reported in [`LogContents::torn_tail`]; an invalid line before the last one is a
/// [`StoreError::CorruptRecord`]. A header with a newer schema version is [`StoreError::UnsupportedVersion`].
pub fn read_log(path: impl AsRef<Path>) -> Result<LogContents, StoreError> {
    let path = path.as_ref();
    let file = File::open(path).map_err(io_error(path, "open"))?;
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();

    let header_len = reader
        .read_until(b'\n', &mut line)
        .map_err(io_error(path, "read"))?;
    if header_len == 0 || line.last() != Some(&b'\n') {
        return Err(StoreError::MissingHeader {
            path: path.to_path_buf(),
        });
    }
    let header = parse_header(path, &line[..line.len() - 1])?;

    let mut records: Vec<LogRecord> = Vec::new();
    let mut valid_len = header_len as u64;
    let mut line_number = 1;
    // A line that failed to decode: an error unless it turns out to be the last line.
    let mut pending_bad: Option<(usize, u64, String)> = None;
    let mut torn_tail = None;
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(io_error(path, "read"))?;
        if read == 0 {
            break;
        }
        line_number += 1;
        if let Some((bad_line, _, reason)) = pending_bad.take() {
            return Err(StoreError::CorruptRecord {
                path: path.to_path_buf(),
                line: bad_line,
                reason,
            });
        }
        if line.last() != Some(&b'\n') {
            torn_tail = Some(TornTail {
                line: line_number,
                bytes: read as u64,
            });
            break;
        }
        let content = &line[..line.len() - 1];
        if content.iter().all(u8::is_ascii_whitespace) {
            valid_len += read as u64;
            continue;
        }
        match serde_json::from_slice::<LogRecord>(content) {
            Ok(record) => {
                if let Some(previous) = records.last()
                    && record.seq <= previous.seq
                {
                    pending_bad = Some((
                        line_number,
                        read as u64,
                        format!("seq {} does not follow seq {}", record.seq, previous.seq),
                    ));
                    continue;
                }
                records.push(record);
                valid_len += read as u64;
            }
            Err(error) => pending_bad = Some((line_number, read as u64, error.to_string())),
        }
    }
    if let Some((bad_line, bytes, _)) = pending_bad {
        torn_tail = Some(TornTail {
            line: bad_line,
            bytes,
        });
    }
    if let Some(torn) = &torn_tail {
        tracing::warn!(
            path = %path.display(),
            line = torn.line,
            bytes = torn.bytes,
            "Dropping torn last line of session log (a write interrupted by a crash; it was never acknowledged)."
        );
    }
    Ok(LogContents {
        header,
        records,
        torn_tail,
        valid_len,
    })
}

/// Reads a log and truncates a torn last line, so that appends start on a clean line.
pub fn repair_log(path: impl AsRef<Path>) -> Result<LogContents, StoreError> {
    let path = path.as_ref();
    let contents = read_log(path)?;
    if contents.torn_tail.is_some() {
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io_error(path, "open for repair"))?;
        file.set_len(contents.valid_len)
            .map_err(io_error(path, "truncate torn line"))?;
        file.sync_all()
            .map_err(io_error(path, "sync after truncation"))?;
    }
    Ok(contents)
}

/// Applies the records of a log to `session` (reducers only: nothing is journaled or published).
///
/// Every event type in the log must be registered in the session (dispatching, [`Session::register_event`],
/// a reducer or an install registers it).
pub fn replay_records(
    path: &Path,
    contents: &LogContents,
    session: &Session,
) -> Result<ReplayReport, StoreError> {
    let mut report = ReplayReport {
        dropped_torn_line: contents.torn_tail.is_some(),
        ..ReplayReport::default()
    };
    for record in &contents.records {
        let result: DispatchResult =
            session
                .replay_record(record)
                .map_err(|source| StoreError::Replay {
                    path: PathBuf::from(path),
                    seq: record.seq,
                    source,
                })?;
        report.records += 1;
        report.reducer_failures.extend(
            result
                .errors
                .into_iter()
                .map(|failure| (record.seq, failure)),
        );
    }
    Ok(report)
}

/// Reads the log at `path` (without changing it) and replays it into `session`.
pub fn replay(path: impl AsRef<Path>, session: &Session) -> Result<ReplayReport, StoreError> {
    let path = path.as_ref();
    let contents = read_log(path)?;
    replay_records(path, &contents, session)
}

/// Reads only the header of a log (checking its version).
pub fn read_header(path: impl AsRef<Path>) -> Result<LogHeader, StoreError> {
    let path = path.as_ref();
    let file = File::open(path).map_err(io_error(path, "open"))?;
    let mut line = Vec::new();
    BufReader::new(file)
        .read_until(b'\n', &mut line)
        .map_err(io_error(path, "read"))?;
    if line.last() != Some(&b'\n') {
        return Err(StoreError::MissingHeader {
            path: path.to_path_buf(),
        });
    }
    parse_header(path, &line[..line.len() - 1])
}
