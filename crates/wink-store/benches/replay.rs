//! Log benchmarks: replay of a 100k-event log, and append throughput per fsync policy.
//!
//! Run with `cargo bench -p wink-store --bench replay`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::OnceLock;

use divan::counter::ItemsCount;
use divan::{Bencher, black_box};
use serde::{Deserialize, Serialize};
use wink_session::{Event, Session};
use wink_store::{FsyncPolicy, SessionLog};

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Note {
    id: u64,
    text: String,
}
impl Event for Note {}

const LOG_EVENTS: u64 = 100_000;

fn main() {
    divan::main();
}

fn bench_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wink-store-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn log_of_100k() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let path = bench_dir().join("replay-100k.jsonl");
        let _ = std::fs::remove_file(&path);
        let session = Session::new();
        SessionLog::create(&path, &session, FsyncPolicy::Never).unwrap();
        for id in 0..LOG_EVENTS {
            session.dispatch(Note {
                id,
                text: format!("note number {id}"),
            });
        }
        path
    })
}

/// Reading and replaying a 100k-event log into a fresh session.
#[divan::bench(sample_count = 10)]
fn replay_100k(bencher: Bencher) {
    let path = log_of_100k();
    bencher.counter(ItemsCount::new(LOG_EVENTS)).bench(|| {
        let session = wink_store::session_builder(path).unwrap().build();
        session.register_event::<Note>();
        let report = wink_store::replay(path, &session).unwrap();
        assert_eq!(report.records as u64, LOG_EVENTS);
        session
    });
}

fn append(bencher: Bencher, policy: FsyncPolicy, events: u64) {
    let dir = bench_dir();
    let mut run = 0u64;
    bencher
        .counter(ItemsCount::new(events))
        .with_inputs(|| {
            run += 1;
            let path = dir.join(format!("append-{policy:?}-{run}.jsonl"));
            let _ = std::fs::remove_file(&path);
            let session = Session::new();
            SessionLog::create(&path, &session, policy).unwrap();
            (session, path)
        })
        .bench_local_values(|(session, path)| {
            for id in 0..events {
                black_box(session.dispatch(Note {
                    id,
                    text: "appended".into(),
                }));
            }
            std::fs::remove_file(path).unwrap();
            session
        });
}

/// Dispatch with a log attached, `FsyncPolicy::Never`.
#[divan::bench(sample_count = 10)]
fn append_no_fsync(bencher: Bencher) {
    append(bencher, FsyncPolicy::Never, 10_000);
}

/// Dispatch with a log attached, `FsyncPolicy::EveryEvent` (one fsync per event).
#[divan::bench(sample_count = 5)]
fn append_fsync_every_event(bencher: Bencher) {
    append(bencher, FsyncPolicy::EveryEvent, 200);
}
