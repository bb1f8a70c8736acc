//! Cases for changing files: write modes, parents and kinds, the size limit, edits,
//! `mkdir`.

use super::*;

pub(super) fn write_modes(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn write_creates_parents_and_checks_kinds(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn write_enforces_limit(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn edit_replaces_exact_text(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn mkdir_parents_and_exist_ok(fs: &dyn Filesystem) -> CaseResult {
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
