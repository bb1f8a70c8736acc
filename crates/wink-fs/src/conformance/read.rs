//! Cases for reading: pages of lines, refusals (missing, directories, binary), bytes.

use super::*;

pub(super) fn read_pages_lines(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn read_refuses_missing_dirs_and_binary(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn read_bytes_round_trips_and_enforces_limit(fs: &dyn Filesystem) -> CaseResult {
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
