//! Fuzzing the prompt-file loader: random documents and a kept corpus of real prompt files
//! under deterministic mutations (truncations, byte flips, deletions) must load or fail with a
//! located error — never panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use wink_promptfile::{FileFormat, PromptFileError, load_str};

fn corpus() -> Vec<(PathBuf, FileFormat, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            FileFormat::from_path(&p).map(|f| (p.clone(), f, std::fs::read_to_string(&p).unwrap()))
        })
        .collect()
}

fn check(text: &str, format: FileFormat) {
    match load_str(text, format, Path::new("."), "fuzz") {
        Ok(_) => {}
        Err(PromptFileError::Syntax { line, column, .. }) => assert!(line >= 1 && column >= 1),
        Err(PromptFileError::Invalid {
            key_path, message, ..
        }) => {
            assert!(!key_path.is_empty());
            assert!(!message.is_empty());
        }
        Err(other) => panic!("unexpected error kind: {other}"),
    }
}

#[test]
fn the_corpus_loads() {
    let files = corpus();
    assert!(files.len() >= 7);
    for (path, format, text) in &files {
        load_str(
            text,
            *format,
            path.parent().unwrap(),
            &path.display().to_string(),
        )
        .unwrap();
    }
}

#[test]
fn mutated_corpus_files_never_panic() {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for (_, format, text) in corpus() {
        let bytes = text.as_bytes();
        for cut in (0..bytes.len()).step_by(7) {
            check(&String::from_utf8_lossy(&bytes[..cut]), format);
        }
        for _ in 0..300 {
            let mut m = bytes.to_vec();
            let i = (next() % m.len() as u64) as usize;
            match next() % 3 {
                0 => m[i] = (next() % 128) as u8,
                1 => {
                    m.remove(i);
                }
                _ => {
                    let alphabet = b"{}[]\":,$ \n#-";
                    m.insert(i, alphabet[(next() % alphabet.len() as u64) as usize]);
                }
            }
            check(&String::from_utf8_lossy(&m), format);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        for format in [FileFormat::Json, FileFormat::Toml, FileFormat::Yaml] {
            check(&text, format);
        }
    }

    #[test]
    fn structured_garbage_never_panics(value in arb_json(3)) {
        let text = serde_json::to_string(&value).unwrap();
        check(&text, FileFormat::Json);
    }
}

fn arb_json(depth: u32) -> BoxedStrategy<serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        prop::sample::select(vec![
            "ns",
            "key",
            "sections",
            "title",
            "template",
            "params",
            "tools",
            "${x}",
            "summary",
            "workspace",
            "full"
        ])
        .prop_map(Value::from),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let keys = prop::sample::select(vec![
        "ns",
        "key",
        "name",
        "sections",
        "title",
        "template",
        "params",
        "tools",
        "children",
        "summary",
        "visibility",
        "enabled",
        "defaults",
        "description",
        "parameters",
        "type",
        "handler",
        "command",
        "builtin",
        "output",
    ]);
    prop_oneof![
        leaf,
        prop::collection::vec(arb_json(depth - 1), 0..3).prop_map(Value::Array),
        prop::collection::vec((keys, arb_json(depth - 1)), 0..5)
            .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
    ]
    .boxed()
}

#[test]
fn the_editor_json_schema_accepts_the_corpus_and_rejects_typos() {
    let schema_path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/prompt-file.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    for (path, format, text) in corpus() {
        let value: serde_json::Value = match format {
            FileFormat::Json => serde_json::from_str(&text).unwrap(),
            FileFormat::Toml => toml::from_str(&text).unwrap(),
            _ => serde_yaml_ng::from_str(&text).unwrap(),
        };
        if let Err(e) = wink_schema::validate(&schema, &value) {
            panic!("{}: {e}", path.display());
        }
    }
    let bad = serde_json::json!({"ns": "a", "key": "b", "sections": [{"key": "x", "titel": "X"}]});
    assert!(wink_schema::validate(&schema, &bad).is_err());
    let bad = serde_json::json!({"ns": "a", "key": "b", "subagents": {"reviewer": 3}});
    assert!(wink_schema::validate(&schema, &bad).is_err());
    // (The schema's `pattern` on sub-agent file names is for editors: wink_schema ignores it.)
    let good = serde_json::json!({"ns": "a", "key": "b", "subagents": {"reviewer": "r.yaml"}});
    assert!(wink_schema::validate(&schema, &good).is_ok());
}

// The fuzz target (docs/fuzzing.md): its case count is `PROPTEST_CASES` (default 256).
proptest! {
    #[test]
    fn fuzz_prompt_file_loader(value in arb_json(4), text in any::<String>(), mutation in any::<(usize, u8)>()) {
        let started = std::time::Instant::now();
        let json = serde_json::to_string(&value).unwrap();
        check(&json, FileFormat::Json);
        for format in [FileFormat::Json, FileFormat::Toml, FileFormat::Yaml] {
            check(&text, format);
        }
        let files = corpus_texts();
        let (path_index, byte) = mutation;
        let (format, original) = &files[path_index % files.len()];
        let mut bytes = original.as_bytes().to_vec();
        let at = path_index % bytes.len().max(1);
        if let Some(slot) = bytes.get_mut(at) {
            *slot = byte % 128;
        }
        check(&String::from_utf8_lossy(&bytes), *format);
        prop_assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }
}

/// The corpus, read once per process.
fn corpus_texts() -> &'static [(FileFormat, String)] {
    static TEXTS: std::sync::OnceLock<Vec<(FileFormat, String)>> = std::sync::OnceLock::new();
    TEXTS.get_or_init(|| corpus().into_iter().map(|(_, f, t)| (f, t)).collect())
}
