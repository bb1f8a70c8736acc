//! Attaching a session to a journal (a session log, a durable run's stream) and taking it off.

use std::sync::Arc;

use super::Session;
use crate::journal::{Journal, JournalError, RESTORED, RestoreRecord};
use crate::snapshot::slice_records;

impl Session {
    /// Attaches a journal: from now on every change is appended to it before it is applied.
    ///
    /// When the session already changed since it was created, a `wink.restored` record holding the current
    /// slices is appended first, so that replaying the journal reproduces the state.
    pub fn attach_journal(&self, journal: Arc<dyn Journal>) -> Result<(), JournalError> {
        let mut state = self.lock();
        if state.changed {
            let slices = slice_records(&state.slices).map_err(|error| {
                JournalError::new(format!("cannot encode the current slices: {error}"))
            })?;
            journal.append(RESTORED, &RestoreRecord { slices })?;
        }
        state.journal = Some(journal);
        Ok(())
    }

    /// Attaches a journal that already holds this session's history (a log that was just replayed into it):
    /// unlike [`Session::attach_journal`] no baseline record is written.
    pub fn resume_journal(&self, journal: Arc<dyn Journal>) {
        self.lock().journal = Some(journal);
    }

    /// Detaches the journal, returning it.
    pub fn detach_journal(&self) -> Option<Arc<dyn Journal>> {
        self.lock().journal.take()
    }
}
