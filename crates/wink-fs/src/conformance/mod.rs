//! A conformance suite every [`Filesystem`] backend must pass.
//!
//! Backends call [`run`] from a test with a factory that builds a fresh, empty
//! workspace for the given limits, and assert that no case failed:
//!
//! ```
//! use std::sync::Arc;
//! use wink_fs::{conformance, Filesystem, InMemoryFilesystem};
//! let failures = conformance::run(&mut |limits| {
//!     Arc::new(InMemoryFilesystem::with_limits(limits)) as Arc<dyn Filesystem>
//! });
//! assert!(failures.is_empty(), "{failures:#?}");
//! ```

use std::fmt::Debug;
use std::sync::Arc;

use crate::{FileKind, Filesystem, FsError, FsLimits, WriteMode};

mod read;
mod search;
mod state;
mod write;
use read::*;
use search::*;
use state::*;
use write::*;

/// Outcome of one case: `Err` carries what went wrong.
pub type CaseResult = Result<(), String>;

/// A named conformance case.
pub type Case = (&'static str, fn(&dyn Filesystem) -> CaseResult);

/// Limits used by every case (small, so limit errors are cheap to provoke).
pub const LIMITS: FsLimits = FsLimits {
    max_read_bytes: 64,
    max_write_bytes: 32,
    max_grep_matches: 5,
};

/// Run every case against a fresh workspace from `make`; returns `"case: problem"` lines.
pub fn run(make: &mut dyn FnMut(FsLimits) -> Arc<dyn Filesystem>) -> Vec<String> {
    CASES
        .iter()
        .filter_map(|(name, case)| {
            let fs = make(LIMITS);
            case(fs.as_ref())
                .err()
                .map(|problem| format!("{name}: {problem}"))
        })
        .collect()
}

/// Every case, by name.
pub const CASES: &[Case] = &[
    ("read_pages_lines", read_pages_lines),
    (
        "read_refuses_missing_dirs_and_binary",
        read_refuses_missing_dirs_and_binary,
    ),
    (
        "read_bytes_round_trips_and_enforces_limit",
        read_bytes_round_trips_and_enforces_limit,
    ),
    ("write_modes", write_modes),
    (
        "write_creates_parents_and_checks_kinds",
        write_creates_parents_and_checks_kinds,
    ),
    ("write_enforces_limit", write_enforces_limit),
    ("edit_replaces_exact_text", edit_replaces_exact_text),
    ("mkdir_parents_and_exist_ok", mkdir_parents_and_exist_ok),
    ("list_sorted_entries", list_sorted_entries),
    (
        "glob_matches_files_under_base",
        glob_matches_files_under_base,
    ),
    ("grep_finds_lines", grep_finds_lines),
    ("remove_files_and_directories", remove_files_and_directories),
    ("stat_and_exists", stat_and_exists),
    (
        "paths_are_normalized_and_confined",
        paths_are_normalized_and_confined,
    ),
    (
        "paths_through_a_file_are_not_directories",
        paths_through_a_file_are_not_directories,
    ),
    ("snapshot_restore_round_trip", snapshot_restore_round_trip),
    (
        "snapshots_restore_in_any_order",
        snapshots_restore_in_any_order,
    ),
];

fn ok<T>(result: Result<T, FsError>, what: &str) -> Result<T, String> {
    result.map_err(|error| format!("{what}: unexpected error: {error}"))
}

fn error_message<T: Debug>(result: Result<T, FsError>, what: &str) -> Result<String, String> {
    match result {
        Ok(value) => Err(format!("{what}: expected an error, got {value:?}")),
        Err(error) => Ok(error.to_string()),
    }
}

fn same<T: PartialEq + Debug>(actual: T, expected: T, what: &str) -> CaseResult {
    if actual == expected {
        Ok(())
    } else {
        Err(format!("{what}: expected {expected:?}, got {actual:?}"))
    }
}

fn expect_error<T: Debug>(result: Result<T, FsError>, expected: &str, what: &str) -> CaseResult {
    same(error_message(result, what)?.as_str(), expected, what)
}

/// Every entry of the workspace as `(path, kind, content)` (content empty for directories).
///
/// # Errors
/// The first filesystem error met, as text.
pub fn dump(fs: &dyn Filesystem) -> Result<Vec<(String, FileKind, Vec<u8>)>, String> {
    let mut out = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(dir) = pending.pop() {
        for entry in ok(fs.list(&dir), "listing for dump")? {
            let content = if entry.is_file() {
                ok(fs.read_bytes(&entry.path), "reading for dump")?
            } else {
                pending.push(entry.path.clone());
                Vec::new()
            };
            out.push((entry.path, entry.kind, content));
        }
    }
    out.sort();
    Ok(out)
}
