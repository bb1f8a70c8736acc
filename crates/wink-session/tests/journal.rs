#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use wink_session::journal::encode_record_line;
use wink_session::{
    ErasedEvent, Event, HandlerKind, Journal, JournalError, LogRecord, ReplayError, Session,
    SnapshotRestoreError,
};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Note(String);
impl Event for Note {}

/// Keeps record lines in memory; fails on demand.
#[derive(Default)]
struct MemoryJournal {
    lines: Mutex<Vec<String>>,
    failing: AtomicBool,
}

impl Journal for MemoryJournal {
    fn append(&self, type_name: &str, payload: &dyn ErasedEvent) -> Result<(), JournalError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(JournalError::new("disk full"));
        }
        let mut lines = self.lines.lock().unwrap();
        let mut line = Vec::new();
        encode_record_line(lines.len() as u64 + 1, type_name, payload, &mut line).unwrap();
        lines.push(String::from_utf8(line).unwrap());
        Ok(())
    }
}

#[test]
fn a_journal_failure_means_the_event_is_not_applied() {
    let session = Session::new();
    let journal = Arc::new(MemoryJournal::default());
    session.attach_journal(journal.clone()).unwrap();
    let published = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&published);
    session.bus().subscribe(move |_: &Note| {
        *counter.lock().unwrap() += 1;
        Ok(())
    });
    assert!(session.dispatch(Note("kept".into())).ok());

    journal.failing.store(true, Ordering::SeqCst);
    let result = session.dispatch(Note("lost".into()));
    assert_eq!(result.errors.len(), 1);
    assert_eq!(result.errors[0].handler, HandlerKind::Journal);
    assert_eq!(result.errors[0].to_string(), "journal -> disk full");
    assert_eq!(result.handlers_invoked, 0);
    assert_eq!(session.slice::<Note>().all(), [Note("kept".into())]);
    assert_eq!(*published.lock().unwrap(), 1);

    assert_eq!(
        session.seed([Note("x".into())]).unwrap_err().to_string(),
        "disk full"
    );
    assert_eq!(session.slice::<Note>().len(), 1);
    let snapshot = session.snapshot();
    let error = session.restore(&snapshot).unwrap_err();
    assert!(matches!(error, SnapshotRestoreError::Journal(_)));
    assert_eq!(
        error.to_string(),
        "could not record the restore in the session journal: disk full"
    );
    assert_eq!(journal.lines.lock().unwrap().len(), 1);
}

#[test]
fn memory_journal_replays_to_the_same_state() {
    let session = Session::new();
    let journal = Arc::new(MemoryJournal::default());
    session.attach_journal(journal.clone()).unwrap();
    session.dispatch(Note("a".into()));
    let snapshot = session.snapshot();
    session.dispatch(Note("b".into()));
    session.restore(&snapshot).unwrap();
    session.seed([Note("c".into())]).unwrap();
    session.clear_where::<Note>(|n| n.0 == "a").unwrap();
    session.dispatch(Note("d".into()));

    let lines = journal.lines.lock().unwrap().clone();
    assert_eq!(lines[0], "{\"seq\":1,\"type\":\"Note\",\"event\":\"a\"}\n");
    assert_eq!(
        lines[4],
        "{\"seq\":5,\"type\":\"wink.slice_replaced\",\"event\":{\"slice\":\"Note\",\"items\":[\"c\"]}}\n"
    );

    let replayed = Session::new();
    let unknown = replayed
        .replay_record(&LogRecord::decode(lines[0].trim_end()).unwrap())
        .unwrap_err();
    assert!(matches!(unknown, ReplayError::UnknownEventType(ref name) if name == "Note"));
    replayed.register_event::<Note>();
    for line in &lines {
        replayed
            .replay_record(&LogRecord::decode(line.trim_end()).unwrap())
            .unwrap();
    }
    assert_eq!(
        replayed.slice::<Note>().all(),
        [Note("c".into()), Note("d".into())]
    );
    assert_eq!(
        replayed.slices_json().unwrap(),
        session.slices_json().unwrap()
    );
}

#[test]
fn attaching_to_a_changed_session_records_a_baseline_first() {
    let session = Session::new();
    session.dispatch(Note("early".into()));
    let journal = Arc::new(MemoryJournal::default());
    session.attach_journal(journal.clone()).unwrap();
    let lines = journal.lines.lock().unwrap().clone();
    assert_eq!(lines.len(), 1);
    assert!(lines[0].starts_with("{\"seq\":1,\"type\":\"wink.restored\",\"event\":{\"slices\":[{\"slice_type\":\"Note\",\"items\":[\"early\"]},"));
    let detached = session.detach_journal();
    assert!(detached.is_some());
    session.dispatch(Note("unlogged".into()));
    assert_eq!(journal.lines.lock().unwrap().len(), 1);
}
