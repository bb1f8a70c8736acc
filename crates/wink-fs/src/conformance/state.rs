//! Cases for removal, `stat`, path rules, and snapshots that restore a workspace.

use super::*;

pub(super) fn remove_files_and_directories(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn stat_and_exists(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn paths_are_normalized_and_confined(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn paths_through_a_file_are_not_directories(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn build_sample(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn mutate_everything(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn snapshot_restore_round_trip(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn snapshots_restore_in_any_order(fs: &dyn Filesystem) -> CaseResult {
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
