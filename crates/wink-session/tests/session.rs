#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use wink_session::{
    DeclarativeReducers, DeclarativeSlice, DispatchResult, Event, HandlerError, HandlerFailure,
    HandlerKind, ReducerError, SectionPath, SectionVisibility, Session, SetVisibilityOverride,
    SliceItem, SliceOp, SliceView, reducers,
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

// ---- B19 ----

#[test]
fn b19_ledger_without_reducer() {
    let session = Session::new();
    session.dispatch(note("a"));
    session.dispatch(note("b"));
    assert_eq!(session.slice::<Note>().all(), [note("a"), note("b")]);
    assert_eq!(session.slice::<Note>().latest(), Some(&note("b")));
}

#[test]
fn b19_replace_latest() {
    let session = Session::new();
    session.register_reducer::<Note, Note>(reducers::replace_latest());
    session.dispatch(note("a"));
    session.dispatch(note("b"));
    assert_eq!(session.slice::<Note>().all(), [note("b")]);
}

#[test]
fn b19_restore_reverts_a_later_append() {
    let session = Session::new();
    session.dispatch(note("a"));
    let snapshot = session.snapshot();
    session.dispatch(note("b"));
    assert_eq!(session.slice::<Note>().len(), 2);
    session.restore(&snapshot).unwrap();
    assert_eq!(session.slice::<Note>().all(), [note("a")]);
}

#[test]
fn b19_restore_into_fresh_session_names_unregistered_types() {
    let session = Session::new();
    session.dispatch(note("a"));
    session.dispatch(task(1, "t"));
    let snapshot = session.snapshot();

    let fresh = Session::new();
    fresh.dispatch(note("other"));
    let only_task = fresh.restore(&snapshot).unwrap_err();
    assert_eq!(only_task.to_string(), "Slice types not registered: Task");
    assert_eq!(
        fresh.slice::<Note>().all(),
        [note("other")],
        "a failed restore changes nothing"
    );

    let error = Session::new().restore(&snapshot).unwrap_err();
    assert_eq!(error.to_string(), "Slice types not registered: Note, Task");

    let source = Session::new();
    source.dispatch(note("a"));
    let note_only = source.snapshot();
    let fresh = Session::new();
    assert_eq!(
        fresh.restore(&note_only).unwrap_err().to_string(),
        "Slice types not registered: Note"
    );
    fresh.register_event::<Note>();
    fresh.restore(&note_only).unwrap();
    assert_eq!(fresh.slice::<Note>().all(), [note("a")]);
}

#[test]
fn rollback_is_restore() {
    let session = Session::new();
    let empty = session.snapshot();
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("a"),
        visibility: SectionVisibility::Full,
    });
    session.rollback(&empty).unwrap();
    assert!(session.visibility_overrides().is_empty());
}

// ---- built-in reducers ----

#[test]
fn upsert_by_replaces_in_place_or_appends() {
    let session = Session::new();
    session.register_reducer::<Task, Task>(reducers::upsert_by(|t: &Task| t.id));
    session.dispatch(task(1, "one"));
    session.dispatch(task(2, "two"));
    session.dispatch(task(1, "uno"));
    assert_eq!(
        session.slice::<Task>().all(),
        [task(1, "uno"), task(2, "two")]
    );
}

#[test]
fn replace_latest_by_keeps_latest_per_key_in_update_order() {
    let session = Session::new();
    session.register_reducer::<Task, Task>(reducers::replace_latest_by(|t: &Task| t.id));
    session.dispatch(task(1, "one"));
    session.dispatch(task(2, "two"));
    session.dispatch(task(1, "uno"));
    assert_eq!(
        session.slice::<Task>().all(),
        [task(2, "two"), task(1, "uno")]
    );
}

#[test]
fn append_all_into_another_slice_type() {
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Title(String);
    impl SliceItem for Title {}
    impl From<Task> for Title {
        fn from(task: Task) -> Self {
            Title(task.title)
        }
    }
    let session = Session::new();
    session.register_reducer::<Title, Task>(reducers::append_all());
    session.dispatch(task(1, "x"));
    session.dispatch(task(2, "y"));
    assert_eq!(
        session.slice::<Title>().all(),
        [Title("x".into()), Title("y".into())]
    );
    assert!(
        session.slice::<Task>().is_empty(),
        "an event with a reducer is not ledgered"
    );
}

#[test]
fn several_reducers_run_in_registration_order() {
    let session = Session::new();
    session.register_reducer::<Note, Note>(reducers::append_all());
    session.register_reducer::<Note, Note>(|_: &SliceView<Note>, event: &Note| {
        Ok(SliceOp::Append(Note(format!("{}!", event.0))))
    });
    let result = session.dispatch(note("a"));
    assert_eq!(result.reducers_applied, 2);
    assert_eq!(session.slice::<Note>().all(), [note("a"), note("a!")]);
}

// ---- queries, seed, clear ----

#[test]
fn slice_queries_seed_and_clear() {
    let session = Session::new();
    session
        .seed([task(1, "a"), task(2, "b"), task(3, "c")])
        .unwrap();
    let view = session.slice::<Task>();
    assert_eq!(view.filter(|t| t.id % 2 == 1), [task(1, "a"), task(3, "c")]);
    assert_eq!(view.latest(), Some(&task(3, "c")));
    session.clear_where::<Task>(|t| t.id == 2).unwrap();
    assert_eq!(session.slice::<Task>().all(), [task(1, "a"), task(3, "c")]);
    session.clear::<Task>().unwrap();
    assert!(session.slice::<Task>().is_empty());
    assert_eq!(view.len(), 3, "views taken earlier do not change");
}

#[test]
fn reset_clears_every_slice() {
    let session = Session::new();
    session.dispatch(note("a"));
    session.reset().unwrap();
    assert!(session.slice::<Note>().is_empty());
    assert!(session.visibility_overrides().is_empty());
}

// ---- declarative slices ----

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Counter {
    total: i64,
}
impl SliceItem for Counter {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Add(i64);
impl Event for Add {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Divide(i64);
impl Event for Divide {}

impl Counter {
    fn add(&self, event: &Add) -> Self {
        Counter {
            total: self.total + event.0,
        }
    }
}

impl DeclarativeSlice for Counter {
    fn register_reducers(reducers: &mut DeclarativeReducers<Self>) {
        reducers
            .on(Counter::add)
            .try_on(|state: &Counter, event: &Divide| {
                if event.0 == 0 {
                    return Err(ReducerError::from("division by zero"));
                }
                Ok(Counter {
                    total: state.total / event.0,
                })
            });
    }
}

#[test]
fn declarative_slice_folds_events() {
    let session = Session::new();
    session.install(Counter { total: 10 }).unwrap();
    session.dispatch(Add(5));
    session.dispatch(Divide(3));
    assert_eq!(session.slice::<Counter>().all(), [Counter { total: 5 }]);
}

// ---- failure isolation ----

#[test]
fn failing_reducer_is_isolated_and_reported() {
    let session = Session::new();
    session.install(Counter { total: 7 }).unwrap();
    let result = session.dispatch(Divide(0));
    assert_eq!(
        result,
        DispatchResult {
            handlers_invoked: 0,
            reducers_applied: 0,
            errors: vec![HandlerFailure {
                handler: HandlerKind::Reducer {
                    event_type: "Divide",
                    slice_type: "Counter"
                },
                error: "division by zero".into()
            }],
        }
    );
    assert_eq!(
        result.errors[0].to_string(),
        "reducer Divide -> Counter -> division by zero"
    );
    assert_eq!(session.slice::<Counter>().all(), [Counter { total: 7 }]);
}

#[test]
fn panicking_reducer_is_isolated_and_other_reducers_still_run() {
    let session = Session::new();
    session.dispatch(note("kept"));
    session.register_reducer::<Note, Note>(
        |_: &SliceView<Note>, _: &Note| -> Result<SliceOp<Note>, ReducerError> {
            panic!("reducer exploded")
        },
    );
    session.register_reducer::<Note, Note>(reducers::append_all());
    let result = session.dispatch(note("new"));
    assert_eq!(result.reducers_applied, 1);
    assert_eq!(result.errors.len(), 1);
    assert_eq!(result.errors[0].error, "panicked: reducer exploded");
    assert_eq!(session.slice::<Note>().all(), [note("kept"), note("new")]);
    // the session stays usable
    assert!(session.dispatch(note("again")).reducers_applied == 1);
}

#[test]
fn bus_handler_failures_are_isolated() {
    let session = Session::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let failing = session
        .bus()
        .subscribe(|_: &Note| Err(HandlerError::from("nope")));
    let panicking = session
        .bus()
        .subscribe(|_: &Note| -> Result<(), HandlerError> { panic!("handler exploded") });
    let log = Arc::clone(&seen);
    session.bus().subscribe(move |n: &Note| {
        log.lock().unwrap().push(n.0.clone());
        Ok(())
    });
    let result = session.dispatch(note("a"));
    assert_eq!(result.handlers_invoked, 3);
    assert_eq!(
        result.errors,
        [
            HandlerFailure {
                handler: HandlerKind::Subscriber(failing),
                error: "nope".into()
            },
            HandlerFailure {
                handler: HandlerKind::Subscriber(panicking),
                error: "panicked: handler exploded".into()
            },
        ]
    );
    assert_eq!(*seen.lock().unwrap(), ["a"]);
    assert_eq!(
        session.slice::<Note>().all(),
        [note("a")],
        "reducers ran before the bus"
    );
    assert!(session.bus().unsubscribe(failing));
    assert!(session.bus().unsubscribe(panicking));
    assert!(session.dispatch(note("b")).ok());
}

#[test]
fn bus_handlers_may_dispatch_into_the_session() {
    let session = Session::new();
    let inner = session.clone();
    session.bus().subscribe(move |t: &Task| {
        inner.dispatch(Note(format!("task {}", t.id)));
        Ok(())
    });
    assert!(session.dispatch(task(4, "x")).ok());
    assert_eq!(session.slice::<Note>().all(), [note("task 4")]);
}

#[test]
fn subscribers_get_the_event_the_session_stored() {
    // A ledger event is published as the slice holds it: not a copy of it.
    let session = Session::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let inner = session.clone();
    session.bus().subscribe(move |n: &Note| {
        let stored = inner.slice::<Note>();
        let same = std::ptr::eq(n, stored.latest().unwrap());
        log.lock().unwrap().push((n.0.clone(), same));
        Ok(())
    });
    session.dispatch(note("a"));
    session.dispatch(note("b"));
    assert_eq!(
        *seen.lock().unwrap(),
        [("a".to_owned(), true), ("b".to_owned(), true)]
    );
}

// ---- snapshots ----

#[test]
fn snapshots_are_immutable() {
    let session = Session::new();
    session.dispatch(note("a"));
    let snapshot = session.snapshot();
    session.dispatch(note("b"));
    session.clear::<Note>().unwrap();
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("x"),
        visibility: SectionVisibility::Summary,
    });
    assert_eq!(snapshot.slice::<Note>().all(), [note("a")]);
    assert!(
        snapshot
            .slice::<wink_session::VisibilityOverrides>()
            .latest()
            .unwrap()
            .is_empty()
    );
    assert_eq!(snapshot.slice_type_names(), ["Note", "VisibilityOverrides"]);
    assert_eq!(snapshot.session_id(), session.id());
}

#[test]
fn snapshot_json_round_trips() {
    let session = Session::builder().tag("purpose", "test").build();
    session.dispatch(note("a"));
    session.dispatch(note("b"));
    let json = session.snapshot().to_json().unwrap();
    let mut shown = json.clone();
    shown["created_at"] = "<time>".into();
    shown["session_id"] = "<id>".into();
    shown["tags"]["session_id"] = "<id>".into();
    insta::assert_json_snapshot!(shown, @r#"
    {
      "children_ids": [],
      "created_at": "<time>",
      "parent_id": null,
      "session_id": "<id>",
      "slices": [
        {
          "item_type": "Note",
          "items": [
            "a",
            "b"
          ],
          "slice_type": "Note"
        },
        {
          "item_type": "VisibilityOverrides",
          "items": [
            {
              "overrides": []
            }
          ],
          "slice_type": "VisibilityOverrides"
        }
      ],
      "tags": {
        "purpose": "test",
        "session_id": "<id>"
      },
      "version": "1"
    }
    "#);

    let other = Session::new();
    assert_eq!(
        other.restore_json(&json).unwrap_err().to_string(),
        "Slice types not registered: Note"
    );
    other.register_event::<Note>();
    other.restore_json(&json).unwrap();
    assert_eq!(other.slice::<Note>().all(), [note("a"), note("b")]);

    let mut newer = json;
    newer["version"] = "2".into();
    assert_eq!(
        other.restore_json(&newer).unwrap_err().to_string(),
        "snapshot version \"2\" is not supported (expected \"1\")"
    );
}

// ---- sessions: ids, tags, fork ----

#[test]
fn ids_tags_and_created_at() {
    let a = Session::builder().tag("role", "root").build();
    let b = Session::new();
    assert_ne!(a.id(), b.id());
    assert_eq!(a.tags().get("role").map(String::as_str), Some("root"));
    a.set_tag("k", "v");
    assert_eq!(a.tags().len(), 2);
    assert!(a.created_at() <= b.created_at());
    assert_eq!(
        a.clone().id(),
        a.id(),
        "clones are handles to the same session"
    );
}

#[test]
fn child_session_is_isolated_from_its_parent() {
    let parent = Session::new();
    parent.register_reducer::<Task, Task>(reducers::upsert_by(|t: &Task| t.id));
    parent.dispatch(note("before"));
    parent.dispatch(task(1, "parent"));
    let parent_events = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&parent_events);
    parent.bus().subscribe_all(move |_| {
        *counter.lock().unwrap() += 1;
        Ok(())
    });

    let child = parent.fork();
    assert_eq!(child.parent_id(), Some(parent.id()));
    assert_ne!(child.id(), parent.id());
    assert_eq!(parent.children_ids(), [child.id()]);
    // snapshot parity
    assert_eq!(child.slice::<Note>().all(), [note("before")]);
    assert_eq!(child.slice::<Task>().all(), [task(1, "parent")]);

    child.dispatch(note("child"));
    child.dispatch(task(1, "child"));
    child.dispatch(SetVisibilityOverride {
        path: SectionPath::root("s"),
        visibility: SectionVisibility::Full,
    });
    assert_eq!(
        child.slice::<Task>().all(),
        [task(1, "child")],
        "the child shares the parent's reducers"
    );

    assert_eq!(parent.slice::<Note>().all(), [note("before")]);
    assert_eq!(parent.slice::<Task>().all(), [task(1, "parent")]);
    assert!(parent.visibility_overrides().is_empty());
    assert_eq!(
        *parent_events.lock().unwrap(),
        0,
        "child events are not published on the parent's bus"
    );

    // and the other way round
    parent.dispatch(note("parent later"));
    assert_eq!(child.slice::<Note>().all(), [note("before"), note("child")]);
    // registrations made in the child do not reach the parent
    child.register_reducer::<Note, Note>(reducers::replace_latest());
    parent.dispatch(note("x"));
    assert_eq!(parent.slice::<Note>().len(), 3);
}

#[test]
fn sessions_are_shareable_across_threads() {
    let session = Session::new();
    let handles: Vec<_> = (0..4)
        .map(|thread| {
            let session = session.clone();
            std::thread::spawn(move || {
                for i in 0..250 {
                    session.dispatch(task(thread * 1000 + i, "t"));
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(session.slice::<Task>().len(), 1000);
}
