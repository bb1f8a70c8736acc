//! Session benchmarks: dispatch throughput, snapshot cost by session size, copy-on-write after a snapshot.
//!
//! Run with `cargo bench -p wink-session --bench session`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use divan::counter::ItemsCount;
use divan::{Bencher, black_box};
use serde::{Deserialize, Serialize};
use wink_session::{
    Event, SectionPath, SectionVisibility, Session, SetVisibilityOverride, reducers,
};

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Tick(u64);
impl Event for Tick {}

const EVENTS: u64 = 100_000;

fn main() {
    divan::main();
}

/// Small events appended to the default ledger (no reducer, no subscriber).
#[divan::bench(sample_count = 20)]
fn dispatch_ledger(bencher: Bencher) {
    bencher
        .counter(ItemsCount::new(EVENTS))
        .with_inputs(Session::new)
        .bench_local_values(|session| {
            for i in 0..EVENTS {
                black_box(session.dispatch(Tick(i)));
            }
            session
        });
}

/// Small events through a registered `replace_latest` reducer.
#[divan::bench(sample_count = 20)]
fn dispatch_replace_latest(bencher: Bencher) {
    bencher
        .counter(ItemsCount::new(EVENTS))
        .with_inputs(|| {
            let session = Session::new();
            session.register_reducer::<Tick, Tick>(reducers::replace_latest());
            session
        })
        .bench_local_values(|session| {
            for i in 0..EVENTS {
                black_box(session.dispatch(Tick(i)));
            }
            session
        });
}

/// Small events delivered to one bus subscriber after the ledger append.
#[divan::bench(sample_count = 20)]
fn dispatch_with_subscriber(bencher: Bencher) {
    bencher
        .counter(ItemsCount::new(EVENTS))
        .with_inputs(|| {
            let session = Session::new();
            session.bus().subscribe(|tick: &Tick| {
                black_box(tick);
                Ok(())
            });
            session
        })
        .bench_local_values(|session| {
            for i in 0..EVENTS {
                black_box(session.dispatch(Tick(i)));
            }
            session
        });
}

/// `SetVisibilityOverride` through the declarative `VisibilityOverrides` slice.
#[divan::bench(sample_count = 20)]
fn dispatch_visibility_override(bencher: Bencher) {
    let paths: Vec<SectionPath> = (0..16)
        .map(|i| SectionPath::root(format!("section{i}")))
        .collect();
    bencher
        .counter(ItemsCount::new(10_000u64))
        .with_inputs(Session::new)
        .bench_local_values(|session| {
            for i in 0..10_000usize {
                black_box(session.dispatch(SetVisibilityOverride {
                    path: paths[i % paths.len()].clone(),
                    visibility: if i % 2 == 0 {
                        SectionVisibility::Full
                    } else {
                        SectionVisibility::Summary
                    },
                }));
            }
            session
        });
}

fn session_with(events: u64) -> Session {
    let session = Session::new();
    for i in 0..events {
        session.dispatch(Tick(i));
    }
    session
}

/// Taking a snapshot of a session holding `n` events (flat: O(1)).
#[divan::bench(args = [10, 1_000, 100_000, 1_000_000])]
fn snapshot(bencher: Bencher, n: u64) {
    let session = session_with(n);
    bencher.bench_local(|| black_box(session.snapshot()));
}

/// A snapshot followed by one dispatch, which pays the copy-on-write of the shared slice storage.
#[divan::bench(args = [10, 1_000, 100_000, 1_000_000])]
fn snapshot_then_dispatch(bencher: Bencher, n: u64) {
    let session = session_with(n);
    bencher.bench_local(|| {
        let snapshot = session.snapshot();
        black_box(session.dispatch(Tick(0)));
        snapshot
    });
}
