#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Property: replaying a session's log reproduces exactly the live session's state.

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use wink_session::{
    ClearAllVisibilityOverrides, ClearVisibilityOverride, DeclarativeReducers, DeclarativeSlice,
    Event, ReducerError, SectionPath, SectionVisibility, Session, SetVisibilityOverride, SliceItem,
    SliceOp, SliceView, Snapshot, ToolInvoked, reducers,
};
use wink_store::{FsyncPolicy, SessionLog};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Note(String);
impl Event for Note {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Task {
    id: u8,
    title: String,
}
impl Event for Task {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Risky(u8);
impl Event for Risky {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct RiskyLog(u8);
impl SliceItem for RiskyLog {}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Counter(i64);
impl SliceItem for Counter {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Add(i64);
impl Event for Add {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Divide(i64);
impl Event for Divide {}

impl DeclarativeSlice for Counter {
    fn register_reducers(reducers: &mut DeclarativeReducers<Self>) {
        reducers
            .on(|state: &Counter, event: &Add| Counter(state.0.saturating_add(event.0)))
            .try_on(|state: &Counter, event: &Divide| {
                state
                    .0
                    .checked_div(event.0)
                    .map(Counter)
                    .ok_or_else(|| ReducerError::from("division by zero"))
            });
    }
}

fn configure(session: &Session) {
    session.register_event::<Note>();
    session.register_reducer::<Task, Task>(reducers::upsert_by(|t: &Task| t.id));
    session.register_reducer::<RiskyLog, Risky>(|_: &SliceView<RiskyLog>, event: &Risky| {
        if event.0.is_multiple_of(3) {
            panic!("risky {}", event.0);
        }
        if event.0 % 3 == 1 {
            return Err(ReducerError::from("refused"));
        }
        Ok(SliceOp::Append(RiskyLog(event.0)))
    });
    session.install(Counter(1)).unwrap();
}

#[derive(Clone, Debug)]
enum Op {
    Note(String),
    Task(u8, String),
    Risky(u8),
    Add(i64),
    Divide(i64),
    SetVisibility(String, bool),
    ClearVisibility(String),
    ClearAllVisibility,
    SeedNotes(Vec<String>),
    ClearTasks,
    ClearShortNotes,
    Snapshot,
    RestoreEarliest,
    Reset,
    Tool(String),
}

fn op() -> impl Strategy<Value = Op> {
    let key = prop::sample::select(vec!["a", "b", "c"]).prop_map(str::to_owned);
    prop_oneof![
        4 => "[a-z]{0,6}".prop_map(Op::Note),
        3 => (0u8..4, "[a-z]{1,4}").prop_map(|(id, title)| Op::Task(id, title)),
        2 => any::<u8>().prop_map(Op::Risky),
        2 => (-5i64..5).prop_map(Op::Add),
        1 => (-2i64..3).prop_map(Op::Divide),
        2 => (key.clone(), any::<bool>()).prop_map(|(k, full)| Op::SetVisibility(k, full)),
        1 => key.prop_map(Op::ClearVisibility),
        1 => Just(Op::ClearAllVisibility),
        1 => prop::collection::vec("[a-z]{0,3}", 0..3).prop_map(Op::SeedNotes),
        1 => Just(Op::ClearTasks),
        1 => Just(Op::ClearShortNotes),
        1 => Just(Op::Snapshot),
        1 => Just(Op::RestoreEarliest),
        1 => Just(Op::Reset),
        1 => "[a-z]{1,5}".prop_map(Op::Tool),
    ]
}

fn apply(session: &Session, op: &Op, snapshots: &mut Vec<Snapshot>) {
    match op {
        Op::Note(text) => drop(session.dispatch(Note(text.clone()))),
        Op::Task(id, title) => drop(session.dispatch(Task {
            id: *id,
            title: title.clone(),
        })),
        Op::Risky(value) => drop(session.dispatch(Risky(*value))),
        Op::Add(value) => drop(session.dispatch(Add(*value))),
        Op::Divide(value) => drop(session.dispatch(Divide(*value))),
        Op::SetVisibility(key, full) => drop(session.dispatch(SetVisibilityOverride {
            path: SectionPath::root(key.clone()),
            visibility: if *full {
                SectionVisibility::Full
            } else {
                SectionVisibility::Summary
            },
        })),
        Op::ClearVisibility(key) => drop(session.dispatch(ClearVisibilityOverride {
            path: SectionPath::root(key.clone()),
        })),
        Op::ClearAllVisibility => drop(session.dispatch(ClearAllVisibilityOverrides)),
        Op::SeedNotes(texts) => session.seed(texts.iter().cloned().map(Note)).unwrap(),
        Op::ClearTasks => session.clear::<Task>().unwrap(),
        Op::ClearShortNotes => session.clear_where::<Note>(|n| n.0.len() < 2).unwrap(),
        Op::Snapshot => snapshots.push(session.snapshot()),
        Op::RestoreEarliest => {
            if let Some(snapshot) = snapshots.first() {
                session.restore(snapshot).unwrap();
            }
        }
        Op::Reset => session.reset().unwrap(),
        Op::Tool(name) => drop(session.dispatch(ToolInvoked::new(
            "prompt",
            "test",
            name.clone(),
            serde_json::json!({"n": name}),
            true,
            "ok",
        ))),
    }
}

fn temp_path() -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("wink-store-prop-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.jsonl", COUNTER.fetch_add(1, Ordering::Relaxed)));
    let _ = fs::remove_file(&path);
    path
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn replay_of_log_equals_live_state(
        before_log in prop::collection::vec(op(), 0..4),
        ops in prop::collection::vec(op(), 0..40),
    ) {
        let path = temp_path();
        let live = Session::new();
        configure(&live);
        let mut snapshots = Vec::new();
        for op in &before_log {
            apply(&live, op, &mut snapshots);
        }
        SessionLog::create(&path, &live, FsyncPolicy::Never).unwrap();
        for op in &ops {
            apply(&live, op, &mut snapshots);
        }

        let replayed = wink_store::session_builder(&path).unwrap().build();
        configure(&replayed);
        wink_store::replay(&path, &replayed).unwrap();
        prop_assert_eq!(replayed.slices_json().unwrap(), live.slices_json().unwrap());
        prop_assert_eq!(replayed.id(), live.id());
        fs::remove_file(&path).unwrap();
    }
}
