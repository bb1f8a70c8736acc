//! Session transactions: a private copy of a session whose changes are committed back in one step,
//! or dropped.
//!
//! Snapshot-and-restore makes one call at a time transactional, but calls that overlap (tools of
//! one model turn running concurrently) cannot restore a snapshot without undoing each other's
//! work. A transaction isolates instead: [`Session::begin`] hands out a session that starts from
//! the current state, shares the parent's id and registrations, and records every change it
//! receives. [`SessionTransaction::commit`] re-applies those changes to the parent as live
//! dispatches (journaled and published there, in their original order); dropping the transaction
//! discards them. Nothing reaches the parent before the commit.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use wink_session::{Event, Session};
//!
//! #[derive(Clone, Debug, Serialize, Deserialize)]
//! struct Note(String);
//! impl Event for Note {}
//!
//! let session = Session::new();
//! let kept = session.begin();
//! kept.session().dispatch(Note("kept".into()));
//! let dropped = session.begin();
//! dropped.session().dispatch(Note("dropped".into()));
//! assert!(session.slice::<Note>().all().is_empty(), "nothing reaches the parent before commit");
//! kept.commit().unwrap();
//! drop(dropped);
//! let notes: Vec<String> = session.slice::<Note>().all().iter().map(|n| n.0.clone()).collect();
//! assert_eq!(notes, ["kept"]);
//! ```

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use crate::bus::DispatchResult;
use crate::event::ErasedEvent;
use crate::journal::{
    Journal, JournalError, LogRecord, RESET, RESTORED, SLICE_EXTENDED, SLICE_REPLACED,
};
use crate::session::{DispatchMode, ReplayError, Session};
use crate::time::Timestamp;

/// Changes made to a transaction's session, in order, as log records.
#[derive(Default)]
struct Recorder {
    records: Mutex<Vec<LogRecord>>,
}

impl Journal for Recorder {
    fn append(&self, type_name: &str, payload: &dyn ErasedEvent) -> Result<(), JournalError> {
        let event = payload
            .to_json()
            .map_err(|e| JournalError::new(format!("cannot encode {type_name}: {e}")))?;
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let seq = records.len() as u64 + 1;
        records.push(LogRecord {
            seq,
            type_name: type_name.to_owned(),
            event,
        });
        Ok(())
    }
}

/// A private copy of a session whose changes reach the parent only on [`commit`](Self::commit).
pub struct SessionTransaction {
    parent: Session,
    session: Session,
    recorder: Arc<Recorder>,
}

impl fmt::Debug for SessionTransaction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionTransaction")
            .field("session", &self.parent.id())
            .field("changes", &self.changes())
            .finish()
    }
}

impl Session {
    /// Starts a transaction over this session's current state. The transaction's session has the
    /// same id, tags and registrations (it is not listed as a child), its own empty bus, and no
    /// durable journal: its changes are recorded for [`SessionTransaction::commit`].
    pub fn begin(&self) -> SessionTransaction {
        let snapshot = self.snapshot();
        let registry = Arc::clone(&self.lock().registry);
        let session = Session::from_parts(
            self.id(),
            self.parent_id(),
            Timestamp::now(),
            registry,
            Arc::clone(&snapshot.slices),
            Arc::clone(&snapshot.tags),
        );
        let recorder = Arc::new(Recorder::default());
        session.lock().journal = Some(Arc::clone(&recorder) as Arc<dyn Journal>);
        SessionTransaction {
            parent: self.clone(),
            session,
            recorder,
        }
    }
}

impl SessionTransaction {
    /// The session to work in.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// How many changes are recorded so far.
    pub fn changes(&self) -> usize {
        self.recorder
            .records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Applies the recorded changes to the parent, in order, as live changes: journaled to the
    /// parent's journal, reduced, and published on the parent's bus. Event types the transaction
    /// registered are registered in the parent first. Changes the parent made meanwhile stay:
    /// the recorded events are reduced on top of them.
    ///
    /// # Errors
    /// The first record the parent cannot apply (a journal failure, an undecodable record); the
    /// records before it are applied.
    pub fn commit(self) -> Result<DispatchResult, ReplayError> {
        let registry = Arc::clone(&self.session.lock().registry);
        {
            let mut parent = self.parent.lock();
            if !Arc::ptr_eq(&parent.registry, &registry) {
                let merged = parent.registry.merged_with(&registry);
                parent.registry = Arc::new(merged);
            }
        }
        let records = std::mem::take(
            &mut *self
                .recorder
                .records
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let mut total = DispatchResult::default();
        for record in &records {
            let result = self.parent.apply_record(record, DispatchMode::Live)?;
            total.reducers_applied += result.reducers_applied;
            total.handlers_invoked += result.handlers_invoked;
            total.errors.extend(result.errors);
        }
        Ok(total)
    }

    /// Drops the recorded changes (the same as dropping the transaction).
    pub fn rollback(self) {}
}

/// A reserved `wink.*` record re-journaled as is when a transaction commits.
pub(crate) struct ReservedRecord {
    type_name: &'static str,
    event: Value,
}

impl ErasedEvent for ReservedRecord {
    fn event_type_name(&self) -> &'static str {
        self.type_name
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn to_json(&self) -> Result<Value, serde_json::Error> {
        Ok(self.event.clone())
    }
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        serde_json::to_writer(out, &self.event)
    }
}

/// The record as a reserved record, when its type is one of the `wink.*` ones.
pub(crate) fn reserved_record(record: &LogRecord) -> Option<ReservedRecord> {
    let type_name = [RESTORED, SLICE_REPLACED, SLICE_EXTENDED, RESET]
        .into_iter()
        .find(|name| *name == record.type_name)?;
    Some(ReservedRecord {
        type_name,
        event: record.event.clone(),
    })
}
