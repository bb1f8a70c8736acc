//! Session transactions: isolated copies whose changes reach the parent only on commit, journaled
//! and published there in order — what concurrent tool calls use instead of snapshot/restore.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use wink_session::journal::encode_record_line;
use wink_session::{ErasedEvent, Event, Journal, JournalError, Session, SliceItem};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Note(String);
impl Event for Note {}

/// An event type the parent has never seen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Fresh {
    n: u32,
}
impl Event for Fresh {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Setting(String);
impl SliceItem for Setting {}

#[derive(Default)]
struct MemoryJournal {
    lines: Mutex<Vec<String>>,
}

impl Journal for MemoryJournal {
    fn append(&self, type_name: &str, payload: &dyn ErasedEvent) -> Result<(), JournalError> {
        let mut lines = self.lines.lock().unwrap();
        let mut line = Vec::new();
        encode_record_line(lines.len() as u64 + 1, type_name, payload, &mut line).unwrap();
        lines.push(String::from_utf8(line).unwrap().trim_end().to_owned());
        Ok(())
    }
}

fn notes(session: &Session) -> Vec<String> {
    session
        .slice::<Note>()
        .all()
        .iter()
        .map(|n| n.0.clone())
        .collect()
}

#[test]
fn changes_reach_the_parent_only_on_commit_journaled_and_published_there() {
    let parent = Session::new();
    let journal = Arc::new(MemoryJournal::default());
    parent.attach_journal(journal.clone()).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    parent.bus().subscribe(move |n: &Note| {
        sink.lock().unwrap().push(n.0.clone());
        Ok(())
    });

    let tx = parent.begin();
    assert_eq!(tx.session().id(), parent.id());
    assert!(
        parent.children_ids().is_empty(),
        "a transaction is not a child"
    );
    tx.session().dispatch(Note("a".into()));
    tx.session().dispatch(Note("b".into()));
    assert_eq!(notes(tx.session()), ["a", "b"]);
    assert!(notes(&parent).is_empty());
    assert!(seen.lock().unwrap().is_empty());
    assert!(journal.lines.lock().unwrap().is_empty());
    assert_eq!(tx.changes(), 2);

    let result = tx.commit().unwrap();
    assert_eq!(result.handlers_invoked, 2);
    assert_eq!(notes(&parent), ["a", "b"]);
    assert_eq!(*seen.lock().unwrap(), ["a", "b"]);
    assert_eq!(
        *journal.lines.lock().unwrap(),
        [
            r#"{"seq":1,"type":"Note","event":"a"}"#,
            r#"{"seq":2,"type":"Note","event":"b"}"#
        ]
    );
}

#[test]
fn overlapping_transactions_keep_each_others_work() {
    let parent = Session::new();
    parent.dispatch(Note("before".into()));
    let first = parent.begin();
    let second = parent.begin();
    let third = parent.begin();
    first.session().dispatch(Note("first".into()));
    second.session().dispatch(Note("second (fails)".into()));
    third.session().dispatch(Note("third".into()));
    // Each sees only its own work on top of the common start.
    assert_eq!(notes(first.session()), ["before", "first"]);
    assert_eq!(notes(third.session()), ["before", "third"]);
    parent.dispatch(Note("parent meanwhile".into()));

    third.commit().unwrap();
    second.rollback();
    first.commit().unwrap();
    assert_eq!(
        notes(&parent),
        ["before", "parent meanwhile", "third", "first"]
    );
}

#[test]
fn seeds_clears_and_new_event_types_commit_too() {
    let parent = Session::new();
    parent.register_slice::<Setting>();
    parent.seed([Setting("old".into())]).unwrap();
    let journal = Arc::new(MemoryJournal::default());
    parent.attach_journal(journal.clone()).unwrap();
    let baseline = journal.lines.lock().unwrap().len();

    let tx = parent.begin();
    tx.session().clear::<Setting>().unwrap();
    tx.session().seed([Setting("new".into())]).unwrap();
    tx.session().dispatch(Fresh { n: 7 });
    assert!(!parent.is_event_type_registered("Fresh"));
    tx.commit().unwrap();

    assert_eq!(parent.slice::<Setting>().all(), [Setting("new".into())]);
    assert_eq!(parent.slice::<Fresh>().all(), [Fresh { n: 7 }]);
    assert!(parent.is_event_type_registered("Fresh"));
    let lines = journal.lines.lock().unwrap();
    assert_eq!(
        lines[baseline..],
        [
            r#"{"seq":2,"type":"wink.slice_replaced","event":{"slice":"Setting","items":[]}}"#,
            r#"{"seq":3,"type":"wink.slice_extended","event":{"slice":"Setting","items":["new"]}}"#,
            r#"{"seq":4,"type":"Fresh","event":{"n":7}}"#
        ]
    );
}
