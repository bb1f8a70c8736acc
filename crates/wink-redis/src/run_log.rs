//! A durable run's stream, read and written: the session's log records collected between
//! checkpoints ([`EventBuffer`]), and the chain of entries a takeover resumes from
//! ([`resume_point`]).
//!
//! The stream of a run is a sequence of [`RunEntry`]s, one per driver step. A **base** entry
//! holds the session's whole state (a `wink.restored` record); every other entry holds the
//! records of its step only. A takeover replays the last base and the entries after it whose
//! steps follow on one by one. Entries after a gap in the steps (writes a Redis fail-over lost
//! while a worker went on) are left out, and the next entry written is a base again.

use std::sync::{Arc, Mutex, PoisonError};

use wink_session::journal::encode_record_line;
use wink_session::{ErasedEvent, Journal, JournalError, LogRecord, Session};

use crate::mailbox::RunEntry;

/// A base entry is written at least every this many steps, and the stream trimmed before it:
/// a takeover replays at most this many entries, and a run's stream stays this short.
pub const BASE_EVERY: u64 = 8;

/// The [`Journal`] of a durable run's session: the records since the last checkpoint, kept in
/// memory until the next checkpoint takes them.
#[derive(Debug, Default)]
pub struct EventBuffer {
    state: Mutex<Buffered>,
}

#[derive(Debug, Default)]
struct Buffered {
    seq: u64,
    lines: Vec<u8>,
}

impl EventBuffer {
    /// A buffer whose next record is number `seq + 1`.
    pub fn after(seq: u64) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(Buffered {
                seq,
                lines: Vec::new(),
            }),
        })
    }

    /// The records buffered so far, as JSON Lines, leaving the buffer empty.
    pub fn take(&self) -> String {
        let lines = std::mem::take(&mut self.lock().lines);
        // Only serde_json output and ASCII punctuation are written: always UTF-8 (and were it
        // not, the records are kept, not dropped).
        String::from_utf8(lines)
            .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Buffered> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Journal for EventBuffer {
    fn append(&self, type_name: &str, payload: &dyn ErasedEvent) -> Result<(), JournalError> {
        let mut state = self.lock();
        let seq = state.seq + 1;
        encode_record_line(seq, type_name, payload, &mut state.lines)
            .map_err(|e| JournalError::new(format!("cannot encode a {type_name} event: {e}")))?;
        state.seq = seq;
        Ok(())
    }
}

/// Starts a base: the records buffered so far are dropped and replaced by one `wink.restored`
/// record of the session's whole state (none when the session is still as prepared).
///
/// # Errors
/// The session's slices could not be encoded.
pub fn rebase(session: &Session, buffer: &Arc<EventBuffer>) -> Result<(), JournalError> {
    session.detach_journal();
    buffer.take();
    session.attach_journal(Arc::clone(buffer) as Arc<dyn Journal>)
}

/// Where a takeover resumes: the entries to replay (the last base and the steps that follow it
/// one by one), and whether entries after them were left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumePoint<'a> {
    /// The entries to replay, oldest first; the last one holds the checkpoint.
    pub chain: &'a [RunEntry],
    /// Entries after the chain were left out (a gap in the steps).
    pub gap: bool,
}

/// The entries of `entries` (a run's stream, oldest first) a takeover resumes from; `None` when
/// there is no base entry to start from.
pub fn resume_point(entries: &[RunEntry]) -> Option<ResumePoint<'_>> {
    let start = entries.iter().rposition(|e| e.base)?;
    let mut end = start + 1;
    while end < entries.len()
        && !entries[end].base
        && entries[end].step == entries[end - 1].step + 1
    {
        end += 1;
    }
    Some(ResumePoint {
        chain: &entries[start..end],
        gap: end < entries.len(),
    })
}

/// The log records of `chain`'s entries, in order.
///
/// # Errors
/// A line that is not a log record: its step and the decoder's reason.
pub fn chain_records(chain: &[RunEntry]) -> Result<Vec<LogRecord>, String> {
    let mut records = Vec::new();
    for entry in chain {
        for line in entry.events.lines().filter(|l| !l.trim().is_empty()) {
            let record = LogRecord::decode(line).map_err(|e| {
                format!("step {}: a session record does not decode: {e}", entry.step)
            })?;
            records.push(record);
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(step: u64, base: bool) -> RunEntry {
        RunEntry {
            step,
            base,
            events: String::new(),
            checkpoint: format!("{step}"),
        }
    }

    fn steps(point: &ResumePoint<'_>) -> Vec<u64> {
        point.chain.iter().map(|e| e.step).collect()
    }

    #[test]
    fn a_takeover_replays_the_last_base_and_the_steps_after_it() {
        let entries = [entry(8, true), entry(9, false), entry(10, false)];
        let point = resume_point(&entries).unwrap();
        assert_eq!(steps(&point), [8, 9, 10]);
        assert!(!point.gap);
    }

    #[test]
    fn entries_after_a_gap_are_left_out() {
        // Step 4 was lost in a fail-over while the worker went on to write step 5.
        let entries = [
            entry(1, true),
            entry(2, false),
            entry(3, false),
            entry(5, false),
        ];
        let point = resume_point(&entries).unwrap();
        assert_eq!(steps(&point), [1, 2, 3]);
        assert!(point.gap);
    }

    #[test]
    fn a_base_after_orphaned_entries_starts_the_chain() {
        // A second worker resumed from step 3 (its base re-states it) after the orphan 5.
        let entries = [
            entry(1, true),
            entry(2, false),
            entry(3, false),
            entry(5, false),
            entry(4, true),
            entry(5, false),
        ];
        let point = resume_point(&entries).unwrap();
        assert_eq!(steps(&point), [4, 5]);
        assert!(!point.gap);
    }

    #[test]
    fn a_stream_without_a_base_has_no_resume_point() {
        assert_eq!(resume_point(&[]), None);
        assert_eq!(resume_point(&[entry(2, false)]), None);
    }

    #[test]
    fn the_buffer_numbers_records_on_from_where_it_was_resumed() {
        #[derive(Clone, serde::Serialize, serde::Deserialize)]
        struct Note {
            text: String,
        }
        impl wink_session::Event for Note {
            fn type_name() -> &'static str {
                "Note"
            }
        }
        let buffer = EventBuffer::after(7);
        let note = Note { text: "hi".into() };
        buffer.append("Note", &note).unwrap();
        buffer.append("Note", &note).unwrap();
        assert_eq!(
            buffer.take(),
            "{\"seq\":8,\"type\":\"Note\",\"event\":{\"text\":\"hi\"}}\n\
             {\"seq\":9,\"type\":\"Note\",\"event\":{\"text\":\"hi\"}}\n"
        );
        assert_eq!(buffer.take(), "");
        let records = chain_records(&[RunEntry {
            step: 1,
            base: true,
            events: "{\"seq\":8,\"type\":\"Note\",\"event\":{\"text\":\"hi\"}}\n".into(),
            checkpoint: String::new(),
        }])
        .unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].seq, 8);
        let bad = chain_records(&[RunEntry {
            step: 3,
            base: true,
            events: "not json\n".into(),
            checkpoint: String::new(),
        }])
        .unwrap_err();
        assert!(
            bad.starts_with("step 3: a session record does not decode: "),
            "{bad}"
        );
    }
}
