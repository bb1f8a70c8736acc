//! The repository speaks of the project, not of how it was built: no tracked text file mentions
//! a numbered development session ("session" followed by a space and a digit, in any case).
//! History lives in git. Vendored data sets (`data/`) and binary files are not checked.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The tracked files (`git ls-files`), or, outside a git checkout, every file under the root
/// but `target/` and `.git/`.
fn tracked_files(root: &Path) -> Vec<PathBuf> {
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output();
    match listed {
        Ok(out) if out.status.success() => out
            .stdout
            .split(|b| *b == 0)
            .filter(|name| !name.is_empty())
            .map(|name| PathBuf::from(String::from_utf8(name.to_vec()).unwrap()))
            .collect(),
        _ => {
            let mut files = Vec::new();
            walk(root, root, &mut files);
            files
        }
    }
}

fn walk(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let relative = path.strip_prefix(root).unwrap().to_path_buf();
        if relative == Path::new("target") || relative == Path::new(".git") {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, files);
        } else {
            files.push(relative);
        }
    }
}

/// Vendored data sets keep their own text.
fn checked(path: &Path) -> bool {
    !path.starts_with("data")
}

/// 1-based line numbers of the lines holding "session" + space + digit, in any case.
fn numbered_sessions(text: &[u8]) -> Vec<usize> {
    const WORD: &[u8] = b"session ";
    let mut lines = Vec::new();
    for (index, line) in text.split(|b| *b == b'\n').enumerate() {
        let hit = line.windows(WORD.len() + 1).any(|window| {
            window[..WORD.len()].eq_ignore_ascii_case(WORD) && window[WORD.len()].is_ascii_digit()
        });
        if hit {
            lines.push(index + 1);
        }
    }
    lines
}

/// "WORD N", built at run time so that this file does not itself hold what it looks for.
fn numbered(word: &str, number: u32) -> String {
    format!("{word} {number}")
}

#[test]
fn the_pattern_matches_numbered_sessions_only() {
    let text = format!("as measured in {}\n", numbered("Session", 12));
    assert_eq!(numbered_sessions(text.as_bytes()), [1]);
    let text = format!(
        "ok\n{}: notes\n{}",
        numbered("SESSION", 3),
        numbered("session", 4)
    );
    assert_eq!(numbered_sessions(text.as_bytes()), [2, 3]);
    let text = format!("a session log, session.jsonl, {}", numbered("sessions", 2));
    assert!(numbered_sessions(text.as_bytes()).is_empty());
    assert!(numbered_sessions(b"Session b50f5c3e-2d7a").is_empty());
}

#[test]
fn no_tracked_text_file_mentions_a_numbered_session() {
    let root = workspace_root();
    let files = tracked_files(&root);
    assert!(files.len() > 100, "found {} files", files.len());
    let mut found = Vec::new();
    for path in files.iter().filter(|p| checked(p)) {
        let Ok(bytes) = std::fs::read(root.join(path)) else {
            continue; // listed by git but deleted in the work tree
        };
        if bytes.contains(&0) {
            continue; // binary
        }
        for line in numbered_sessions(&bytes) {
            found.push(format!("{}:{line}", path.display()));
        }
    }
    assert!(
        found.is_empty(),
        "development history in the repository (say what is true of the project; history \
         lives in git):\n{}",
        found.join("\n")
    );
}
