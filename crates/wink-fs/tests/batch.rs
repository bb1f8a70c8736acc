//! `FsBatch`: concurrent writers over one filesystem, each undoable alone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use wink_fs::{Filesystem, FsBatch, FsLimits, InMemoryFilesystem, WriteMode, conformance};

fn memory() -> Arc<dyn Filesystem> {
    Arc::new(InMemoryFilesystem::new())
}

#[test]
fn a_batch_member_passes_the_conformance_suite() {
    let failures = conformance::run(&mut |limits: FsLimits| {
        let base: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::with_limits(limits));
        FsBatch::begin(base).unwrap().member(0)
    });
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn discarding_one_member_keeps_every_other_members_changes_in_order() {
    let fs = memory();
    fs.write("log.txt", "start\n", WriteMode::Overwrite)
        .unwrap();
    fs.write("old.txt", "old", WriteMode::Overwrite).unwrap();
    let batch = FsBatch::begin(Arc::clone(&fs)).unwrap();
    let (a, b, c) = (batch.member(0), batch.member(1), batch.member(2));
    a.write("log.txt", "a1\n", WriteMode::Append).unwrap();
    b.write("log.txt", "b1\n", WriteMode::Append).unwrap();
    c.mkdir("out/deep", true, false).unwrap();
    b.remove("old.txt", false).unwrap();
    a.write("log.txt", "a2\n", WriteMode::Append).unwrap();
    c.write("out/deep/c.txt", "c", WriteMode::Create).unwrap();
    b.edit("log.txt", "start", "START", false).unwrap();
    // A failed write is not logged (and changes nothing).
    assert!(
        a.write("out/deep/c.txt", "again", WriteMode::Create)
            .is_err()
    );

    assert!(batch.discard(1).unwrap().is_empty());
    assert_eq!(fs.read_to_string("log.txt").unwrap(), "start\na1\na2\n");
    assert_eq!(fs.read_to_string("old.txt").unwrap(), "old");
    assert_eq!(fs.read_to_string("out/deep/c.txt").unwrap(), "c");

    // Discarding another one later works the same way.
    assert!(batch.discard(2).unwrap().is_empty());
    assert!(!fs.exists("out"));
    assert_eq!(fs.read_to_string("log.txt").unwrap(), "start\na1\na2\n");
}

#[test]
fn changes_that_depended_on_the_discarded_member_are_reported_and_skipped() {
    let fs = memory();
    let batch = FsBatch::begin(Arc::clone(&fs)).unwrap();
    let (a, b) = (batch.member(0), batch.member(1));
    a.write("draft.md", "hello", WriteMode::Create).unwrap();
    b.edit("draft.md", "hello", "hello world", false).unwrap();
    b.write("b.md", "b", WriteMode::Create).unwrap();
    let skipped = batch.discard(0).unwrap();
    assert_eq!(
        skipped,
        ["edit draft.md by call 1 (File not found: draft.md)"]
    );
    assert!(!fs.exists("draft.md"));
    assert_eq!(fs.read_to_string("b.md").unwrap(), "b");
}

#[test]
fn a_member_restoring_its_own_snapshot_is_replayed_as_a_restore() {
    let fs = memory();
    let batch = FsBatch::begin(Arc::clone(&fs)).unwrap();
    let (a, b) = (batch.member(0), batch.member(1));
    a.write("a.txt", "a", WriteMode::Create).unwrap();
    let before = a.snapshot().unwrap();
    a.write("tmp.txt", "scratch", WriteMode::Create).unwrap();
    a.restore(&before).unwrap();
    b.write("b.txt", "b", WriteMode::Create).unwrap();
    batch.discard(1).unwrap();
    assert_eq!(fs.read_to_string("a.txt").unwrap(), "a");
    assert!(!fs.exists("tmp.txt"));
    assert!(!fs.exists("b.txt"));
}
