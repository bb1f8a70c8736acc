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

fn read_pages_lines(fs: &dyn Filesystem) -> CaseResult {
    ok(
        fs.write("notes.md", "one\ntwo\r\nthree\n", WriteMode::Create),
        "write",
    )?;
    let all = ok(fs.read("notes.md", 0, None), "read all")?;
    same(
        (
            all.path.as_str(),
            all.content.as_str(),
            all.total_lines,
            all.offset,
            all.limit,
            all.truncated,
        ),
        ("notes.md", "one\ntwo\nthree", 3, 0, 3, false),
        "read all",
    )?;
    let page = ok(fs.read("notes.md", 1, Some(1)), "read page")?;
    same(
        (
            page.content.as_str(),
            page.offset,
            page.limit,
            page.truncated,
        ),
        ("two", 1, 1, true),
        "read page",
    )?;
    let past = ok(fs.read("notes.md", 10, Some(5)), "read past end")?;
    same(
        (past.content.as_str(), past.offset, past.limit),
        ("", 3, 0),
        "read past end",
    )?;
    for _ in 0..10 {
        ok(
            fs.write("long.txt", "0123456789\n", WriteMode::Append),
            "append long",
        )?;
    }
    let capped = ok(fs.read("long.txt", 0, None), "read capped")?;
    same(
        (capped.limit, capped.truncated, capped.total_lines),
        (5, true, 10),
        "read stops at max_read_bytes",
    )
}

fn read_refuses_missing_dirs_and_binary(fs: &dyn Filesystem) -> CaseResult {
    expect_error(
        fs.read("nope.txt", 0, None),
        "File not found: nope.txt",
        "missing file",
    )?;
    ok(fs.mkdir("docs", true, true), "mkdir")?;
    expect_error(
        fs.read("docs", 0, None),
        "Is a directory, not a file: docs",
        "directory",
    )?;
    expect_error(
        fs.read("", 0, None),
        "Is a directory, not a file: .",
        "root",
    )?;
    ok(
        fs.write_bytes("blob.bin", &[0xde, 0xad, 0xbe, 0xef], WriteMode::Create),
        "write binary",
    )?;
    expect_error(
        fs.read("blob.bin", 0, None),
        "File is not valid UTF-8 text: blob.bin",
        "binary",
    )?;
    ok(
        fs.write("wide.txt", &"x".repeat(30), WriteMode::Create),
        "write wide",
    )?;
    ok(
        fs.write("wide.txt", &"y".repeat(30), WriteMode::Append),
        "append wide",
    )?;
    let page = ok(fs.read("wide.txt", 0, None), "wide read")?;
    same(
        page.content.len(),
        60,
        "a 60-byte line fits the 64-byte limit",
    )?;
    ok(
        fs.write("wide.txt", &"z".repeat(10), WriteMode::Append),
        "append wider",
    )?;
    expect_error(
        fs.read("wide.txt", 0, None),
        "Line 1 of wide.txt is 70 bytes, longer than the read limit of 64 bytes",
        "line too long",
    )
}

fn read_bytes_round_trips_and_enforces_limit(fs: &dyn Filesystem) -> CaseResult {
    let bytes: Vec<u8> = (0u8..32).collect();
    ok(
        fs.write_bytes("b/raw.bin", &bytes, WriteMode::Create),
        "write",
    )?;
    same(
        ok(fs.read_bytes("b/raw.bin"), "read_bytes")?,
        bytes,
        "read_bytes",
    )?;
    ok(
        fs.write_bytes("b/raw.bin", &[7; 32], WriteMode::Append),
        "append",
    )?;
    ok(
        fs.write_bytes("b/raw.bin", &[9; 1], WriteMode::Append),
        "append",
    )?;
    expect_error(
        fs.read_bytes("b/raw.bin"),
        "File too large to read: b/raw.bin is 65 bytes, the read limit is 64 bytes (read it in pages with offset and limit)",
        "too large",
    )?;
    expect_error(
        fs.read_bytes("b"),
        "Is a directory, not a file: b",
        "directory",
    )?;
    expect_error(
        fs.read_to_string("b/raw.bin"),
        "File too large to read: b/raw.bin is 65 bytes, the read limit is 64 bytes (read it in pages with offset and limit)",
        "read_to_string",
    )
}

fn write_modes(fs: &dyn Filesystem) -> CaseResult {
    let created = ok(fs.write("a.txt", "hello", WriteMode::Create), "create")?;
    same(
        (
            created.path.as_str(),
            created.mode,
            created.bytes_written,
            created.size_bytes,
            created.created,
        ),
        ("a.txt", WriteMode::Create, 5, 5, true),
        "create result",
    )?;
    expect_error(
        fs.write("a.txt", "x", WriteMode::Create),
        "File already exists: a.txt",
        "create twice",
    )?;
    let appended = ok(fs.write("a.txt", " world", WriteMode::Append), "append")?;
    same(
        (
            appended.bytes_written,
            appended.size_bytes,
            appended.created,
        ),
        (6, 11, false),
        "append result",
    )?;
    same(
        ok(fs.read_to_string("a.txt"), "read")?,
        "hello world".to_owned(),
        "after append",
    )?;
    let overwritten = ok(fs.write("a.txt", "bye", WriteMode::Overwrite), "overwrite")?;
    same(
        (overwritten.size_bytes, overwritten.created),
        (3, false),
        "overwrite result",
    )?;
    same(
        ok(fs.read_to_string("a.txt"), "read")?,
        "bye".to_owned(),
        "after overwrite",
    )?;
    let fresh = ok(
        fs.write("new.txt", "n", WriteMode::Append),
        "append to missing",
    )?;
    same(fresh.created, true, "append creates")?;
    let fresh = ok(
        fs.write("new2.txt", "n", WriteMode::Overwrite),
        "overwrite missing",
    )?;
    same(fresh.created, true, "overwrite creates")
}

fn write_creates_parents_and_checks_kinds(fs: &dyn Filesystem) -> CaseResult {
    ok(
        fs.write("deep/er/file.txt", "x", WriteMode::Create),
        "write nested",
    )?;
    same(
        ok(fs.stat("deep"), "stat")?.kind,
        FileKind::Directory,
        "parent created",
    )?;
    same(
        ok(fs.stat("deep/er"), "stat")?.kind,
        FileKind::Directory,
        "parent created",
    )?;
    expect_error(
        fs.write("deep", "x", WriteMode::Overwrite),
        "Is a directory, not a file: deep",
        "write on dir",
    )?;
    expect_error(
        fs.write(".", "x", WriteMode::Overwrite),
        "Is a directory, not a file: .",
        "write on root",
    )?;
    expect_error(
        fs.write("deep/er/file.txt/child", "x", WriteMode::Create),
        "Not a directory: deep/er/file.txt",
        "write under a file",
    )?;
    same(
        ok(fs.read_to_string("deep/er/file.txt"), "read")?,
        "x".to_owned(),
        "file untouched",
    )
}

fn write_enforces_limit(fs: &dyn Filesystem) -> CaseResult {
    expect_error(
        fs.write("big.txt", &"x".repeat(33), WriteMode::Create),
        "Content for big.txt is 33 bytes, the write limit is 32 bytes (split it into smaller appends)",
        "too large",
    )?;
    same(fs.exists("big.txt"), false, "nothing written")?;
    ok(
        fs.write("big.txt", &"x".repeat(32), WriteMode::Create),
        "at the limit",
    )?;
    Ok(())
}

fn edit_replaces_exact_text(fs: &dyn Filesystem) -> CaseResult {
    ok(
        fs.write(
            "cfg.toml",
            "level = 1\nname = 'a'\nlevel = 1\n",
            WriteMode::Create,
        ),
        "write",
    )?;
    expect_error(
        fs.edit("cfg.toml", "level = 1", "level = 2", false),
        "The text to replace occurs 2 times in cfg.toml; include more surrounding text to make it unique, or replace all occurrences",
        "ambiguous",
    )?;
    let once = ok(
        fs.edit("cfg.toml", "name = 'a'", "name = 'b'", false),
        "edit once",
    )?;
    same(
        (once.path.as_str(), once.replacements),
        ("cfg.toml", 1),
        "edit once result",
    )?;
    let all = ok(
        fs.edit("cfg.toml", "level = 1", "level = 2", true),
        "edit all",
    )?;
    same(
        (all.replacements, all.size_bytes),
        (2, 31),
        "edit all result",
    )?;
    same(
        ok(fs.read_to_string("cfg.toml"), "read")?,
        "level = 2\nname = 'b'\nlevel = 2\n".to_owned(),
        "after edits",
    )?;
    expect_error(
        fs.edit("cfg.toml", "missing", "x", false),
        "The text to replace was not found in cfg.toml",
        "not found",
    )?;
    expect_error(
        fs.edit("cfg.toml", "", "x", false),
        "The text to replace must not be empty (editing cfg.toml)",
        "empty",
    )?;
    expect_error(
        fs.edit("nope.toml", "a", "b", false),
        "File not found: nope.toml",
        "missing file",
    )?;
    expect_error(
        fs.edit("cfg.toml", "name", &"n".repeat(33), false),
        "Content for cfg.toml is 33 bytes, the write limit is 32 bytes (split it into smaller appends)",
        "replacement too large",
    )?;
    // The file may grow past the write limit through edits.
    ok(fs.edit("cfg.toml", "name", &"n".repeat(30), false), "grow")?;
    same(
        ok(fs.stat("cfg.toml"), "stat")?.size_bytes,
        57,
        "grown size",
    )
}

fn mkdir_parents_and_exist_ok(fs: &dyn Filesystem) -> CaseResult {
    expect_error(
        fs.mkdir("a/b", false, false),
        "Directory not found: a",
        "missing parent",
    )?;
    ok(fs.mkdir("a/b", true, false), "mkdir parents")?;
    same(fs.exists("a"), true, "ancestor created")?;
    expect_error(
        fs.mkdir("a/b", true, false),
        "Directory already exists: a/b",
        "exists",
    )?;
    ok(fs.mkdir("a/b", false, true), "exist_ok")?;
    ok(fs.mkdir("a/c", false, false), "mkdir in existing parent")?;
    ok(fs.write("a/f", "", WriteMode::Create), "write")?;
    expect_error(
        fs.mkdir("a/f", true, true),
        "File already exists: a/f",
        "over a file",
    )?;
    expect_error(
        fs.mkdir("a/f/g", true, true),
        "Not a directory: a/f",
        "under a file",
    )?;
    ok(fs.mkdir(".", false, true), "root exist_ok")?;
    expect_error(
        fs.mkdir("", false, false),
        "Directory already exists: .",
        "root",
    )
}

fn list_sorted_entries(fs: &dyn Filesystem) -> CaseResult {
    ok(
        fs.write("src/main.rs", "fn main() {}\n", WriteMode::Create),
        "write",
    )?;
    ok(fs.write("src/lib/mod.rs", "", WriteMode::Create), "write")?;
    ok(fs.write("README.md", "# hi\n", WriteMode::Create), "write")?;
    ok(fs.mkdir("empty", true, true), "mkdir")?;
    let root: Vec<(String, String, FileKind, u64)> = ok(fs.list(""), "list root")?
        .into_iter()
        .map(|e| (e.path, e.name, e.kind, e.size_bytes))
        .collect();
    same(
        root,
        vec![
            ("README.md".into(), "README.md".into(), FileKind::File, 5),
            ("empty".into(), "empty".into(), FileKind::Directory, 0),
            ("src".into(), "src".into(), FileKind::Directory, 0),
        ],
        "root listing",
    )?;
    let src: Vec<String> = ok(fs.list("./src/"), "list src")?
        .into_iter()
        .map(|e| e.path)
        .collect();
    same(
        src,
        vec!["src/lib".to_owned(), "src/main.rs".to_owned()],
        "src listing",
    )?;
    same(
        ok(fs.list("empty"), "list empty")?.len(),
        0,
        "empty listing",
    )?;
    expect_error(
        fs.list("README.md"),
        "Not a directory: README.md",
        "list a file",
    )?;
    expect_error(
        fs.list("missing"),
        "Directory not found: missing",
        "list missing",
    )
}

fn glob_matches_files_under_base(fs: &dyn Filesystem) -> CaseResult {
    for file in ["src/a.rs", "src/b.md", "src/sub/c.rs", "tests/d.rs", "e.rs"] {
        ok(fs.write(file, "x", WriteMode::Create), "write")?;
    }
    ok(fs.mkdir("src/dir.rs", true, true), "mkdir")?;
    same(
        ok(fs.glob("**/*.rs", ""), "glob all")?,
        vec![
            "e.rs".into(),
            "src/a.rs".into(),
            "src/sub/c.rs".into(),
            "tests/d.rs".into(),
        ],
        "recursive glob (directories excluded)",
    )?;
    same(
        ok(fs.glob("*.rs", ""), "glob top")?,
        vec!["e.rs".to_owned()],
        "top-level glob",
    )?;
    same(
        ok(fs.glob("*.rs", "src"), "glob in src")?,
        vec!["src/a.rs".to_owned()],
        "glob relative to base",
    )?;
    same(
        ok(fs.glob("**/*.{rs,md}", "src"), "glob braces")?,
        vec!["src/a.rs".into(), "src/b.md".into(), "src/sub/c.rs".into()],
        "glob braces",
    )?;
    same(
        ok(fs.glob("*", "missing"), "glob missing")?,
        Vec::<String>::new(),
        "missing base",
    )?;
    expect_error(
        fs.glob("*", "e.rs"),
        "Not a directory: e.rs",
        "base is a file",
    )?;
    expect_error(
        fs.glob("[a", ""),
        "Invalid glob pattern '[a': unclosed '['",
        "bad pattern",
    )
}

fn grep_finds_lines(fs: &dyn Filesystem) -> CaseResult {
    ok(
        fs.write("src/a.rs", "fn alpha() {}\nlet x = 1;\n", WriteMode::Create),
        "write",
    )?;
    ok(
        fs.write("src/a.rs", "fn beta() {}\n", WriteMode::Append),
        "append",
    )?;
    ok(
        fs.write("src/b.md", "fn in docs\n", WriteMode::Create),
        "write",
    )?;
    ok(
        fs.write("other/c.rs", "fn gamma() {}\n", WriteMode::Create),
        "write",
    )?;
    ok(
        fs.write_bytes("src/bin.dat", b"fn \xff\n", WriteMode::Create),
        "write binary",
    )?;
    let found: Vec<(String, usize, String, usize, usize)> =
        ok(fs.grep(r"fn \w+\(", "", None), "grep")?
            .into_iter()
            .map(|m| (m.path, m.line_number, m.line, m.match_start, m.match_end))
            .collect();
    same(
        found,
        vec![
            ("other/c.rs".into(), 1, "fn gamma() {}".into(), 0, 9),
            ("src/a.rs".into(), 1, "fn alpha() {}".into(), 0, 9),
            ("src/a.rs".into(), 3, "fn beta() {}".into(), 0, 8),
        ],
        "grep everything",
    )?;
    let in_src: Vec<(String, usize)> = ok(fs.grep("^fn", "src", Some("*.md")), "grep filtered")?
        .into_iter()
        .map(|m| (m.path, m.line_number))
        .collect();
    same(in_src, vec![("src/b.md".to_owned(), 1)], "grep with glob")?;
    let single: Vec<usize> = ok(fs.grep("beta", "src/a.rs", None), "grep one file")?
        .into_iter()
        .map(|m| m.line_number)
        .collect();
    same(single, vec![3], "grep a single file")?;
    ok(
        fs.write(
            "many.txt",
            "hit\nhit\nhit\nhit\nhit\nhit\nhit\n",
            WriteMode::Create,
        ),
        "write",
    )?;
    same(
        ok(fs.grep("hit", "", None), "grep capped")?.len(),
        5,
        "max_grep_matches",
    )?;
    same(
        ok(fs.grep("x", "missing", None), "grep missing")?.len(),
        0,
        "missing base",
    )?;
    let message = error_message(fs.grep("(", "", None), "bad regex")?;
    if !message.starts_with("Invalid regular expression '(':") {
        return Err(format!("bad regex: unexpected message {message}"));
    }
    Ok(())
}

fn remove_files_and_directories(fs: &dyn Filesystem) -> CaseResult {
    ok(fs.write("d/e/f.txt", "x", WriteMode::Create), "write")?;
    ok(fs.write("g.txt", "x", WriteMode::Create), "write")?;
    ok(fs.mkdir("empty", true, true), "mkdir")?;
    ok(fs.remove("g.txt", false), "remove file")?;
    same(fs.exists("g.txt"), false, "file removed")?;
    ok(fs.remove("empty", false), "remove empty dir")?;
    same(fs.exists("empty"), false, "dir removed")?;
    expect_error(
        fs.remove("d", false),
        "Directory not empty: d (remove it recursively to delete its contents too)",
        "non-empty",
    )?;
    ok(fs.remove("d", true), "remove recursive")?;
    same(fs.exists("d/e/f.txt"), false, "tree removed")?;
    same(ok(fs.list(""), "list")?.len(), 0, "workspace empty")?;
    expect_error(fs.remove("d", true), "File not found: d", "missing")?;
    expect_error(
        fs.remove(".", true),
        "Cannot remove the workspace root",
        "root",
    )
}

fn stat_and_exists(fs: &dyn Filesystem) -> CaseResult {
    let root = ok(fs.stat(""), "stat root")?;
    same(
        (root.path.as_str(), root.kind),
        ("", FileKind::Directory),
        "root",
    )?;
    ok(fs.write("x/y.txt", "12345", WriteMode::Create), "write")?;
    let file = ok(fs.stat("x//y.txt"), "stat file")?;
    same(
        (
            file.path.as_str(),
            file.name.as_str(),
            file.kind,
            file.size_bytes,
        ),
        ("x/y.txt", "y.txt", FileKind::File, 5),
        "file",
    )?;
    if file.modified.is_none() {
        return Err("stat file: no modification time".to_owned());
    }
    expect_error(fs.stat("x/z"), "File not found: x/z", "missing")?;
    same(
        (
            fs.exists("x"),
            fs.exists("x/y.txt"),
            fs.exists("nope"),
            fs.exists("../x"),
            fs.exists("/x"),
        ),
        (true, true, false, false, false),
        "exists",
    )
}

fn paths_are_normalized_and_confined(fs: &dyn Filesystem) -> CaseResult {
    ok(
        fs.write("a/./b//c.txt", "c", WriteMode::Create),
        "write odd path",
    )?;
    same(
        ok(fs.read_to_string("a/b/c.txt"), "read")?,
        "c".to_owned(),
        "normalised",
    )?;
    same(
        ok(fs.read_to_string("a/x/../b/c.txt/"), "read")?,
        "c".to_owned(),
        "dot-dot inside",
    )?;
    let escape = "Path escapes the workspace root: ../etc/passwd";
    expect_error(fs.read("../etc/passwd", 0, None), escape, "read")?;
    expect_error(fs.read_bytes("../etc/passwd"), escape, "read_bytes")?;
    expect_error(
        fs.write("../etc/passwd", "x", WriteMode::Overwrite),
        escape,
        "write",
    )?;
    expect_error(fs.edit("../etc/passwd", "a", "b", false), escape, "edit")?;
    expect_error(fs.mkdir("../etc/passwd", true, true), escape, "mkdir")?;
    expect_error(fs.list("../etc/passwd"), escape, "list")?;
    expect_error(fs.glob("*", "../etc/passwd"), escape, "glob")?;
    expect_error(fs.grep("x", "../etc/passwd", None), escape, "grep")?;
    expect_error(fs.remove("../etc/passwd", true), escape, "remove")?;
    expect_error(fs.stat("../etc/passwd"), escape, "stat")?;
    expect_error(
        fs.read("/etc/passwd", 0, None),
        "Absolute paths are not allowed, use a path relative to the workspace root: /etc/passwd",
        "absolute",
    )?;
    expect_error(
        fs.write("a/../../b", "x", WriteMode::Overwrite),
        "Path escapes the workspace root: a/../../b",
        "nested escape",
    )
}

fn paths_through_a_file_are_not_directories(fs: &dyn Filesystem) -> CaseResult {
    ok(fs.write("f", "x", WriteMode::Create), "write")?;
    let expected = "Not a directory: f";
    expect_error(fs.read("f/x", 0, None), expected, "read")?;
    expect_error(fs.stat("f/x/y"), expected, "stat")?;
    expect_error(fs.list("f/x"), expected, "list")?;
    expect_error(fs.list("f"), expected, "list the file")?;
    expect_error(fs.glob("*", "f/x"), expected, "glob")?;
    expect_error(fs.grep("x", "f/x", None), expected, "grep")?;
    expect_error(fs.remove("f/x", true), expected, "remove")?;
    expect_error(fs.mkdir("f/x", false, false), expected, "mkdir")?;
    expect_error(fs.edit("f/x", "a", "b", false), expected, "edit")?;
    same(fs.exists("f/x"), false, "exists")
}

fn build_sample(fs: &dyn Filesystem) -> CaseResult {
    ok(
        fs.write("src/main.rs", "fn main() {}\n", WriteMode::Create),
        "write",
    )?;
    ok(
        fs.write("src/util/mod.rs", "pub fn helper() {}\n", WriteMode::Create),
        "write",
    )?;
    ok(
        fs.write("docs/guide.md", "# Guide\n", WriteMode::Create),
        "write",
    )?;
    ok(
        fs.write_bytes("assets/logo.bin", &[0, 159, 146, 150], WriteMode::Create),
        "write",
    )?;
    ok(fs.mkdir("empty/nested", true, true), "mkdir")
}

fn mutate_everything(fs: &dyn Filesystem) -> CaseResult {
    ok(
        fs.write(
            "src/main.rs",
            "fn main() { changed() }\n",
            WriteMode::Overwrite,
        ),
        "overwrite",
    )?;
    ok(
        fs.edit("src/util/mod.rs", "helper", "renamed", false),
        "edit",
    )?;
    ok(
        fs.write("docs/guide.md", "more\n", WriteMode::Append),
        "append",
    )?;
    ok(fs.remove("assets", true), "remove dir")?;
    ok(fs.remove("empty/nested", false), "remove empty dir")?;
    ok(fs.mkdir("fresh/dir", true, false), "mkdir")?;
    ok(
        fs.write("fresh/file.txt", "new", WriteMode::Create),
        "create",
    )?;
    ok(fs.remove("docs", true), "remove docs")?;
    ok(
        fs.write("docs", "now a file", WriteMode::Create),
        "file where a dir was",
    )?;
    ok(fs.remove("src/main.rs", false), "remove file")?;
    ok(
        fs.mkdir("src/main.rs", false, false),
        "dir where a file was",
    )
}

fn snapshot_restore_round_trip(fs: &dyn Filesystem) -> CaseResult {
    build_sample(fs)?;
    let before = dump(fs)?;
    let snapshot = ok(fs.snapshot(), "snapshot")?;
    mutate_everything(fs)?;
    if dump(fs)? == before {
        return Err("mutations changed nothing".to_owned());
    }
    ok(fs.restore(&snapshot), "restore")?;
    same(dump(fs)?, before.clone(), "restored tree")?;
    ok(fs.restore(&snapshot), "restore again")?;
    same(dump(fs)?, before, "restoring twice is harmless")
}

fn snapshots_restore_in_any_order(fs: &dyn Filesystem) -> CaseResult {
    let empty = ok(fs.snapshot(), "snapshot empty")?;
    build_sample(fs)?;
    let sample = dump(fs)?;
    let built = ok(fs.snapshot(), "snapshot built")?;
    mutate_everything(fs)?;
    let mutated = dump(fs)?;
    let changed = ok(fs.snapshot(), "snapshot mutated")?;
    ok(fs.restore(&empty), "restore empty")?;
    same(dump(fs)?, Vec::new(), "empty restored")?;
    ok(fs.restore(&changed), "restore mutated")?;
    same(dump(fs)?, mutated, "mutated restored")?;
    ok(fs.restore(&built), "restore built")?;
    same(dump(fs)?, sample, "built restored")
}
