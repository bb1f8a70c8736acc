//! Cases for finding files: `list`, `glob` and `grep`.

use super::*;

pub(super) fn list_sorted_entries(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn glob_matches_files_under_base(fs: &dyn Filesystem) -> CaseResult {
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

pub(super) fn grep_finds_lines(fs: &dyn Filesystem) -> CaseResult {
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
