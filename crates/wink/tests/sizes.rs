//! Size rules of issue 21: no non-test source file under `crates/*/src` has more than
//! [`MAX_FILE_LINES`] lines before its `#[cfg(test)]` module, and no non-test function has a body of
//! more than [`MAX_FN_LINES`] lines. `tests/`, `benches/` and `#[cfg(test)]` modules are not counted.
//!
//! Every offender fails the test; split a long function into named steps, a long file into
//! modules.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 800;
const MAX_FN_LINES: usize = 100;

#[derive(Debug, PartialEq, Eq)]
struct Offender {
    path: String,
    line: usize,
    name: String,
    length: usize,
}

#[test]
fn no_source_file_or_function_is_over_the_size_limits() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap();
    let mut files = Vec::new();
    for krate in fs::read_dir(root.join("crates")).unwrap() {
        let src = krate.unwrap().path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    files.sort();
    let mut offenders = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        let path = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        offenders.extend(offenders_in(&path, &text));
    }
    let mut report = String::new();
    for offender in &offenders {
        writeln!(
            report,
            "{}:{} {} has {} lines (limit {})",
            offender.path,
            offender.line,
            describe(&offender.name),
            offender.length,
            if offender.name.is_empty() {
                MAX_FILE_LINES
            } else {
                MAX_FN_LINES
            }
        )
        .unwrap();
    }
    assert!(report.is_empty(), "size rules (issue 21):\n{report}");
}

fn describe(name: &str) -> String {
    if name.is_empty() {
        "the file".to_string()
    } else {
        format!("fn {name}")
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The file (when too long) and the functions (when too long) of one source file.
fn offenders_in(path: &str, text: &str) -> Vec<Offender> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .iter()
        .position(|line| line.starts_with("#[cfg(test)]"))
        .unwrap_or(lines.len());
    let mut offenders = Vec::new();
    if end > MAX_FILE_LINES {
        offenders.push(Offender {
            path: path.to_string(),
            line: 1,
            name: String::new(),
            length: end,
        });
    }
    let code = strip_comments_and_literals(&lines[..end].join("\n"));
    let code: Vec<&str> = code.lines().collect();
    for (index, line) in code.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        if let Some(length) = body_length(&code[index..])
            && length > MAX_FN_LINES
        {
            offenders.push(Offender {
                path: path.to_string(),
                line: index + 1,
                name,
                length,
            });
        }
    }
    offenders
}

/// The name of the function a line declares, if it does.
fn fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace();
    loop {
        let word = words.next()?;
        if word == "fn" {
            let name: String = words
                .next()?
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            return (!name.is_empty()).then_some(name);
        }
        let modifier = word.starts_with("pub")
            || matches!(word, "const" | "async" | "unsafe" | "extern" | "default")
            || word.starts_with('"');
        if !modifier {
            return None;
        }
    }
}

/// Lines strictly between the `{` that opens a function's body and the `}` that closes it, or
/// `None` when the declaration ends with `;` (a trait method without a body).
fn body_length(lines: &[&str]) -> Option<usize> {
    let mut depth = 0usize;
    let mut open_line = None;
    // Parentheses and angle brackets of the signature may hold `;` (array types); only a `;`
    // outside them ends a body-less declaration.
    let mut parens = 0usize;
    for (index, line) in lines.iter().enumerate() {
        for c in line.chars() {
            match c {
                '(' | '[' => parens += 1,
                ')' | ']' => parens = parens.saturating_sub(1),
                ';' if open_line.is_none() && parens == 0 => return None,
                '{' => {
                    if open_line.is_none() {
                        open_line = Some(index);
                    }
                    depth += 1;
                }
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && open_line.is_some() {
                        return Some((index - open_line?).saturating_sub(1));
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// The code with comments, string and character literals blanked (line breaks kept), so
/// braces inside them are not counted.
fn strip_comments_and_literals(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    let keep_newlines = |out: &mut String, slice: &[char]| {
        for c in slice {
            if *c == '\n' {
                out.push('\n');
            }
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let start = i;
            let mut depth = 0usize;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            keep_newlines(&mut out, &chars[start..i.min(chars.len())]);
        } else if c == 'r'
            && matches!(next, Some('"' | '#'))
            && !chars
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"…", r#"…"#, …
            let start = i;
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            keep_newlines(&mut out, &chars[start..j.min(chars.len())]);
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            keep_newlines(&mut out, &chars[start..i.min(chars.len())]);
            out.push_str("\"\"");
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                let mut j = i + 2;
                while j < chars.len() && chars[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

#[test]
fn the_scan_counts_body_lines_and_ignores_braces_in_literals() {
    let text = "fn short() {\n    let s = \"{\";\n    let c = '{';\n}\n\
                trait T {\n    fn declared(&self) -> [u8; 2];\n}\n";
    assert!(offenders_in("x.rs", text).is_empty());
    let mut long = String::from("pub(crate) fn long() {\n");
    for _ in 0..(MAX_FN_LINES + 1) {
        long.push_str("    let _ = \"}\"; // }\n");
    }
    long.push_str("}\n#[cfg(test)]\nmod tests {}\n");
    let found = offenders_in("x.rs", &long);
    assert_eq!(
        found,
        vec![Offender {
            path: "x.rs".to_string(),
            line: 1,
            name: "long".to_string(),
            length: MAX_FN_LINES + 1,
        }]
    );
}
