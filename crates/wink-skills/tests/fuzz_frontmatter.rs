//! Fuzzing the `SKILL.md` front-matter reader (issue 41). Two targets in one test:
//!
//! - generated front matter, block YAML whose scalars (plain, quoted, block, multi-line) hold the
//!   characters of refused constructs as text, with keys plain or quoted: it reads back exactly,
//!   and with one refused construct put where a node starts (flow collection, anchor, alias,
//!   tag; after a quoted key too) it is refused, naming it, on its line;
//! - random text and the real `SKILL.md` files of `data/skills/`, mutated: a verdict without a
//!   panic, errors located on a line of the file.
//!
//! Every case ends within a second. Case count: `PROPTEST_CASES` (default 256); see
//! docs/fuzzing.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use wink_skills::{Node, parse_front_matter};

/// Text a scalar may hold: letters, spaces and the characters of the refused constructs.
const TEXT: &str = "[a-z][a-z&*!\\[\\]{} ]{0,8}[a-z]";

/// A generated value, and how it is written.
#[derive(Debug, Clone)]
enum Value {
    Plain(String),
    Single(String),
    Double(String),
    /// `|` block scalar: lines of text.
    Literal(Vec<String>),
    /// A plain scalar continued on the next line (`a` then `b`: the text `a b`).
    Folded(String, String),
    Map(Vec<(KeyStyle, Value)>),
    Seq(Vec<Value>),
}

#[derive(Debug, Clone, Copy)]
enum KeyStyle {
    Plain,
    Single,
    Double,
}

/// A refused construct and its name in the error.
#[derive(Debug, Clone, Copy)]
enum Refused {
    Flow,
    Map,
    Anchor,
    Alias,
    Tag,
}

impl Refused {
    fn text(self) -> &'static str {
        match self {
            Self::Flow => "[a, b]",
            Self::Map => "{a: b}",
            Self::Anchor => "&x a",
            Self::Alias => "*x",
            Self::Tag => "!t a",
        }
    }

    fn message(self) -> &'static str {
        match self {
            Self::Flow | Self::Map => "flow style is not allowed",
            Self::Anchor => "anchors are not allowed",
            Self::Alias => "aliases are not allowed",
            Self::Tag => "tags are not allowed",
        }
    }
}

fn value() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        TEXT.prop_map(Value::Plain),
        TEXT.prop_map(Value::Single),
        TEXT.prop_map(Value::Double),
        proptest::collection::vec(TEXT, 1..3).prop_map(Value::Literal),
        (TEXT, TEXT).prop_map(|(a, b)| Value::Folded(a, b)),
    ];
    scalar.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec((key_style(), inner.clone()), 1..4).prop_map(Value::Map),
            proptest::collection::vec(inner, 1..4).prop_map(Value::Seq),
        ]
    })
}

fn key_style() -> impl Strategy<Value = KeyStyle> {
    prop_oneof![
        Just(KeyStyle::Plain),
        Just(KeyStyle::Single),
        Just(KeyStyle::Double)
    ]
}

fn key(style: KeyStyle, name: &str) -> String {
    match style {
        KeyStyle::Plain => name.to_owned(),
        KeyStyle::Single => format!("'{name}'"),
        KeyStyle::Double => format!("\"{name}\""),
    }
}

/// Writes `value` as the value of a key or an entry whose line starts at column `indent`:
/// `head` is what precedes it on its first line. Returns the lines.
fn write(value: &Value, head: &str, indent: usize, out: &mut Vec<String>) {
    let pad = " ".repeat(indent + 2);
    match value {
        Value::Plain(text) => out.push(format!("{head} {text}")),
        Value::Single(text) => out.push(format!("{head} '{text}'")),
        Value::Double(text) => out.push(format!("{head} \"{text}\"")),
        Value::Literal(lines) => {
            out.push(format!("{head} |"));
            out.extend(lines.iter().map(|l| format!("{pad}{l}")));
        }
        Value::Folded(a, b) => {
            out.push(format!("{head} {a}"));
            out.push(format!("{pad}{b}"));
        }
        Value::Map(entries) => {
            out.push(head.to_owned());
            for (i, (style, value)) in entries.iter().enumerate() {
                let name = format!("{pad}{}:", key(*style, &format!("k{i}")));
                write(value, &name, indent + 2, out);
            }
        }
        Value::Seq(items) => {
            out.push(head.to_owned());
            for item in items {
                write(item, &format!("{pad}-"), indent + 2, out);
            }
        }
    }
}

/// The node `value` reads back as.
fn expected(value: &Value) -> Node {
    match value {
        Value::Plain(t) | Value::Single(t) | Value::Double(t) => Node::Scalar(t.trim().to_owned()),
        Value::Literal(lines) => Node::Scalar(format!("{}\n", lines.join("\n"))),
        Value::Folded(a, b) => Node::Scalar(format!("{} {}", a.trim(), b.trim())),
        Value::Map(entries) => Node::Map(
            entries
                .iter()
                .enumerate()
                .map(|(i, (_, v))| (format!("k{i}"), expected(v)))
                .collect(),
        ),
        Value::Seq(items) => Node::Seq(items.iter().map(expected).collect()),
    }
}

/// A front matter of top-level keys `t0`, `t1`, ... and its text; with `refused`, the value
/// (or key) of entry `at` is the construct instead, on the returned line.
fn document(
    entries: &[(KeyStyle, Value)],
    refused: Option<(usize, Refused, bool)>,
) -> (String, Option<usize>) {
    let mut lines = vec!["---".to_owned()];
    let mut line_of_refused = None;
    for (i, (style, value)) in entries.iter().enumerate() {
        let name = key(*style, &format!("t{i}"));
        match refused {
            Some((at, construct, on_key)) if at == i => {
                line_of_refused = Some(lines.len() + 1);
                if on_key {
                    lines.push(format!("{} {name}: a", construct.text()));
                } else {
                    lines.push(format!("{name}: {}", construct.text()));
                }
            }
            _ => write(value, &format!("{name}:"), 0, &mut lines),
        }
    }
    lines.push("---".to_owned());
    lines.push("Body.".to_owned());
    (lines.join("\n"), line_of_refused)
}

fn refused() -> impl Strategy<Value = Refused> {
    prop_oneof![
        Just(Refused::Flow),
        Just(Refused::Map),
        Just(Refused::Anchor),
        Just(Refused::Alias),
        Just(Refused::Tag)
    ]
}

/// The real `SKILL.md` files of `data/skills/` (read once).
fn corpus() -> &'static [String] {
    static CORPUS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(read_corpus)
}

fn read_corpus() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/skills");
    let mut files = Vec::new();
    for group in ["valid", "edge", "invalid"] {
        let Ok(dirs) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        for dir in dirs.flatten() {
            if let Ok(text) = std::fs::read_to_string(dir.path().join("SKILL.md")) {
                files.push(text.replace("\r\n", "\n"));
            }
        }
    }
    files.sort();
    files
}

/// Random text made of front-matter fragments.
fn fragments() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("---\n".to_owned()),
        Just("name: a\n".to_owned()),
        Just("description: |\n".to_owned()),
        Just("  - x\n".to_owned()),
        Just("\"k\": ".to_owned()),
        Just("'it''s'".to_owned()),
        Just("\"esc \\\" [\"".to_owned()),
        Just("? k\n: v\n".to_owned()),
        Just("&a ".to_owned()),
        Just("*a".to_owned()),
        Just("!!str ".to_owned()),
        Just("[{".to_owned()),
        Just("# c\n".to_owned()),
        Just("\t".to_owned()),
        Just("\n".to_owned()),
        "[ -~]{0,12}",
        any::<String>().prop_map(|s| s.chars().take(8).collect()),
    ];
    proptest::collection::vec(piece, 0..30).prop_map(|parts| parts.concat())
}

fn check_located(text: &str) {
    if let Err(e) = parse_front_matter(text) {
        assert!(
            e.line >= 1 && e.line <= text.split('\n').count() + 1,
            "{e:?}"
        );
        assert!(!e.message.is_empty());
    }
}

proptest! {
    #[test]
    fn fuzz_skill_front_matter(
        entries in proptest::collection::vec((key_style(), value()), 1..5),
        refused in proptest::option::of((0usize..5, refused(), any::<bool>())),
        text in fragments(),
        mutation in (any::<usize>(), any::<usize>(), any::<u8>()),
    ) {
        let started = Instant::now();
        let refused = refused.filter(|(at, _, _)| *at < entries.len());
        let (document, line) = document(&entries, refused);
        match (parse_front_matter(&document), refused) {
            (Ok(parsed), None) => {
                let want: Vec<(String, Node)> = entries
                    .iter()
                    .enumerate()
                    .map(|(i, (_, v))| (format!("t{i}"), expected(v)))
                    .collect();
                prop_assert_eq!(parsed.entries, want, "{}", document);
            }
            (Err(e), Some((_, construct, _))) => {
                prop_assert_eq!(
                    e.message,
                    format!("Invalid YAML in frontmatter: {} (line {})", construct.message(), line.unwrap()),
                    "{}", document
                );
            }
            (verdict, _) => prop_assert!(false, "{document}\n→ {verdict:?}"),
        }
        check_located(&text);
        // A real SKILL.md, cut and with a byte replaced.
        let files = corpus();
        if !files.is_empty() {
            let file = files[mutation.0 % files.len()].as_bytes();
            let mut bytes = file[..mutation.1 % (file.len() + 1)].to_vec();
            if !bytes.is_empty() {
                let at = mutation.0 % bytes.len();
                bytes[at] = mutation.2;
            }
            check_located(&String::from_utf8_lossy(&bytes));
        }
        prop_assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    }
}
