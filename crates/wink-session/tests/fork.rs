//! A child session starts from a parent snapshot (seed 002): `Session::fork_from` takes an earlier
//! snapshot, `Session::fork` the current state. Nothing flows between parent and child afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use wink_session::{
    ErasedEvent, Event, Journal, JournalError, SectionPath, SectionVisibility, Session,
    SetVisibilityOverride, SnapshotRestoreError, reducers,
};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Note(String);
impl Event for Note {}

fn note(text: &str) -> Note {
    Note(text.to_owned())
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Task {
    id: u32,
    title: String,
}
impl Event for Task {}

fn task(id: u32, title: &str) -> Task {
    Task {
        id,
        title: title.to_owned(),
    }
}

#[derive(Default)]
struct MemoryJournal {
    types: Mutex<Vec<String>>,
}

impl Journal for MemoryJournal {
    fn append(&self, type_name: &str, _payload: &dyn ErasedEvent) -> Result<(), JournalError> {
        self.types.lock().unwrap().push(type_name.to_owned());
        Ok(())
    }
}

fn expand(key: &str) -> SetVisibilityOverride {
    SetVisibilityOverride {
        path: SectionPath::root(key),
        visibility: SectionVisibility::Full,
    }
}

#[test]
fn parent_changes_after_the_snapshot_are_not_in_the_child() {
    let parent = Session::builder().tag("role", "planner").build();
    parent.register_reducer::<Task, Task>(reducers::upsert_by(|t: &Task| t.id));
    parent.dispatch(note("one"));
    parent.dispatch(task(1, "draft"));
    parent.dispatch(expand("guide"));
    let earlier = parent.snapshot();

    parent.dispatch(note("two"));
    parent.dispatch(task(1, "final"));
    parent.dispatch(expand("tools"));
    parent.set_tag("role", "executor");
    parent.set_tag("later", "yes");

    let child = parent.fork_from(&earlier).unwrap();
    assert_eq!(child.slice::<Note>().all(), [note("one")]);
    assert_eq!(child.slice::<Task>().all(), [task(1, "draft")]);
    assert_eq!(
        child
            .visibility_overrides()
            .get(&SectionPath::root("guide")),
        Some(SectionVisibility::Full)
    );
    assert_eq!(
        child
            .visibility_overrides()
            .get(&SectionPath::root("tools")),
        None
    );
    assert_eq!(
        child.tags().into_iter().collect::<Vec<_>>(),
        [("role".to_owned(), "planner".to_owned())],
        "the tags as they were in the snapshot"
    );
    // The parent keeps its later state.
    assert_eq!(parent.slice::<Note>().all(), [note("one"), note("two")]);
    assert_eq!(parent.slice::<Task>().all(), [task(1, "final")]);
}

#[test]
fn the_child_links_to_its_parent() {
    let parent = Session::new();
    parent.dispatch(note("one"));
    let earlier = parent.snapshot();
    parent.dispatch(note("two"));

    let first = parent.fork_from(&earlier).unwrap();
    let second = parent.fork();
    let third = parent.fork_from(&earlier).unwrap();
    assert_eq!(first.parent_id(), Some(parent.id()));
    assert_eq!(third.parent_id(), Some(parent.id()));
    assert_ne!(first.id(), third.id());
    assert_ne!(first.id(), parent.id());
    assert_eq!(
        parent.children_ids(),
        [first.id(), second.id(), third.id()],
        "oldest first, whichever way the child was started"
    );
    assert!(first.children_ids().is_empty());
    assert_eq!(parent.parent_id(), None);
    assert_eq!(second.slice::<Note>().all(), [note("one"), note("two")]);

    // The snapshot keeps describing the parent at the time it was taken.
    assert_eq!(earlier.session_id(), parent.id());
    assert_eq!(earlier.slice::<Note>().all(), [note("one")]);

    // A grandchild links to the child.
    let child_snapshot = first.snapshot();
    let grandchild = first.fork_from(&child_snapshot).unwrap();
    assert_eq!(grandchild.parent_id(), Some(first.id()));
    assert_eq!(first.children_ids(), [grandchild.id()]);
    assert_eq!(parent.children_ids().len(), 3);
}

#[test]
fn child_changes_never_reach_the_parent() {
    let parent = Session::new();
    parent.register_reducer::<Task, Task>(reducers::upsert_by(|t: &Task| t.id));
    parent.dispatch(task(1, "parent"));
    let earlier = parent.snapshot();
    let journal = Arc::new(MemoryJournal::default());
    parent.attach_journal(journal.clone()).unwrap();
    assert_eq!(
        *journal.types.lock().unwrap(),
        ["wink.restored"],
        "baseline"
    );
    journal.types.lock().unwrap().clear();
    let published = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&published);
    parent.bus().subscribe_all(move |_| {
        *counter.lock().unwrap() += 1;
        Ok(())
    });
    let parent_before = parent.snapshot();

    let child = parent.fork_from(&earlier).unwrap();
    child.dispatch(task(1, "child"));
    child.dispatch(task(2, "child only"));
    child.dispatch(note("child note"));
    child.dispatch(expand("guide"));
    child.seed([note("seeded")]).unwrap();
    child.set_tag("child", "yes");
    child.clear::<Task>().unwrap();
    child.register_reducer::<Note, Note>(reducers::replace_latest());
    child.reset().unwrap();
    child.restore(&earlier).unwrap();

    assert_eq!(parent.slice::<Task>().all(), [task(1, "parent")]);
    assert!(parent.slice::<Note>().is_empty());
    assert!(parent.visibility_overrides().is_empty());
    assert!(parent.tags().is_empty());
    assert_eq!(
        parent.snapshot().slices_json().unwrap(),
        parent_before.slices_json().unwrap()
    );
    assert_eq!(*published.lock().unwrap(), 0, "nothing on the parent's bus");
    assert!(
        journal.types.lock().unwrap().is_empty(),
        "nothing in the parent's journal"
    );
    // The child shares the parent's reducers but registers its own from then on.
    parent.dispatch(note("a"));
    parent.dispatch(note("b"));
    assert_eq!(parent.slice::<Note>().all(), [note("a"), note("b")]);
    assert_eq!(
        *journal.types.lock().unwrap(),
        ["Note", "Note"],
        "the parent's own changes are journaled"
    );
}

#[test]
fn a_snapshot_with_unregistered_slice_types_starts_no_child() {
    let other = Session::new();
    other.dispatch(note("elsewhere"));
    other.dispatch(task(7, "elsewhere"));
    let foreign = other.snapshot();

    let parent = Session::new();
    let error = parent.fork_from(&foreign).unwrap_err();
    assert!(matches!(
        error,
        SnapshotRestoreError::UnregisteredSliceTypes(_)
    ));
    assert_eq!(error.to_string(), "Slice types not registered: Note, Task");
    assert!(parent.children_ids().is_empty());

    // Once the types are known, any snapshot can seed a child (as restore would).
    parent.register_event::<Note>();
    parent.register_event::<Task>();
    let child = parent.fork_from(&foreign).unwrap();
    assert_eq!(child.slice::<Note>().all(), [note("elsewhere")]);
    assert_eq!(child.parent_id(), Some(parent.id()));
    assert_eq!(parent.children_ids(), [child.id()]);
}

#[test]
fn slices_reduced_by_names_reducer_targets_or_the_ledger() {
    let session = Session::new();
    assert_eq!(
        session.slices_reduced_by("SetVisibilityOverride"),
        Some(vec!["VisibilityOverrides"])
    );
    assert_eq!(
        session.slices_reduced_by("ClearAllVisibilityOverrides"),
        Some(vec!["VisibilityOverrides"])
    );
    assert_eq!(session.slices_reduced_by("Note"), None);
    session.dispatch(note("a"));
    assert_eq!(session.slices_reduced_by("Note"), Some(vec!["Note"]));
    session.register_reducer::<Task, Note>(|_: &_, n: &Note| {
        Ok(wink_session::SliceOp::Append(task(0, &n.0)))
    });
    session.register_reducer::<Note, Note>(reducers::replace_latest());
    session.register_reducer::<Task, Note>(|_: &_, n: &Note| {
        Ok(wink_session::SliceOp::Append(task(1, &n.0)))
    });
    assert_eq!(
        session.slices_reduced_by("Note"),
        Some(vec!["Task", "Note"]),
        "each target once, in registration order"
    );
}
