//! The in-memory backend against the shared conformance suite, plus
//! properties only a pure backend can check cheaply.

use std::sync::Arc;

use proptest::prelude::*;
use wink_fs::{Filesystem, FsLimits, InMemoryFilesystem, WriteMode, conformance};

#[test]
fn in_memory_backend_passes_the_conformance_suite() {
    let failures = conformance::run(&mut |limits: FsLimits| {
        Arc::new(InMemoryFilesystem::with_limits(limits)) as Arc<dyn Filesystem>
    });
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_suite_has_every_case() {
    assert_eq!(conformance::CASES.len(), 17);
}

#[test]
fn shared_arc_is_usable_from_threads() {
    let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
    let handles: Vec<_> = (0..4)
        .map(|worker| {
            let fs = Arc::clone(&fs);
            std::thread::spawn(move || {
                for item in 0..50 {
                    fs.write(&format!("w{worker}/{item}.txt"), "x", WriteMode::Create)
                        .unwrap();
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(fs.glob("**/*.txt", "").unwrap().len(), 200);
}

#[derive(Debug, Clone)]
enum Op {
    Write(String, String, WriteMode),
    Mkdir(String),
    Remove(String),
    Edit(String, String, String),
}

fn path_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "b", "c", ".", "..", ""]),
        1..4,
    )
    .prop_map(|segments| segments.join("/"))
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        (
            path_strategy(),
            "[xy\n]{0,6}",
            prop::sample::select(vec![
                WriteMode::Create,
                WriteMode::Overwrite,
                WriteMode::Append
            ])
        )
            .prop_map(|(p, c, m)| Op::Write(p, c, m)),
        path_strategy().prop_map(Op::Mkdir),
        path_strategy().prop_map(Op::Remove),
        (path_strategy(), "[xy]{1,2}", "[xy]{0,2}").prop_map(|(p, o, n)| Op::Edit(p, o, n)),
    ]
}

fn apply(fs: &dyn Filesystem, op: &Op) {
    // Errors are part of the game: only the resulting state is checked.
    let _ = match op {
        Op::Write(path, content, mode) => fs.write(path, content, *mode).map(drop),
        Op::Mkdir(path) => fs.mkdir(path, true, true),
        Op::Remove(path) => fs.remove(path, true),
        Op::Edit(path, old, new) => fs.edit(path, old, new, true).map(drop),
    };
}

proptest! {
    #[test]
    fn restore_undoes_any_sequence_of_operations(
        setup in prop::collection::vec(op_strategy(), 0..12),
        later in prop::collection::vec(op_strategy(), 0..12),
    ) {
        let fs = InMemoryFilesystem::new();
        for op in &setup {
            apply(&fs, op);
        }
        let before = conformance::dump(&fs).unwrap();
        let snapshot = fs.snapshot().unwrap();
        for op in &later {
            apply(&fs, op);
        }
        fs.restore(&snapshot).unwrap();
        prop_assert_eq!(conformance::dump(&fs).unwrap(), before);
    }

    #[test]
    fn every_entry_has_directory_ancestors(ops in prop::collection::vec(op_strategy(), 0..20)) {
        let fs = InMemoryFilesystem::new();
        for op in &ops {
            apply(&fs, op);
        }
        for (path, _, _) in conformance::dump(&fs).unwrap() {
            for ancestor in wink_fs::path::ancestors(&path) {
                prop_assert!(fs.stat(ancestor).unwrap().is_dir(), "{ancestor} of {path}");
            }
        }
    }
}
