//! Hostile prompt files (issue 23): duplicate keys, pathological nesting and size are refused or
//! loaded in linear time, with errors naming the key path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::{Duration, Instant};

use wink_promptfile::{FileFormat, load_str};

fn error(text: &str, format: FileFormat, origin: &str) -> String {
    load_str(text, format, Path::new("."), origin)
        .unwrap_err()
        .to_string()
}

#[test]
fn duplicate_keys_in_json_are_refused_with_their_key_path() {
    assert_eq!(
        error(
            r#"{"ns": "a", "key": "b",
 "sections": [{"key": "x", "title": "X", "template": "one"}],
 "sections": [{"key": "y", "title": "Y", "template": "two"}]}"#,
            FileFormat::Json,
            "p.json"
        ),
        "p.json: (document): duplicate key 'sections' (line 3, column 11)"
    );
    assert_eq!(
        error(
            r#"{"ns": "a", "key": "b", "sections": [{"key": "x", "title": "X", "template": "one", "title": "Z"}]}"#,
            FileFormat::Json,
            "p.json"
        ),
        "p.json: sections[0]: duplicate key 'title' (line 1, column 90)"
    );
}

#[test]
fn duplicate_keys_in_yaml_are_refused_with_their_key_path() {
    let text = "ns: a\nkey: b\nsections:\n  - key: x\n    title: X\n    template: one\n    template: two\n";
    assert_eq!(
        error(text, FileFormat::Yaml, "p.yaml"),
        "p.yaml: sections[0]: duplicate key 'template'"
    );
    let text = "ns: a\nkey: b\nsections: []\nns: c\n";
    assert_eq!(
        error(text, FileFormat::Yaml, "p.yaml"),
        "p.yaml: (document): duplicate key 'ns'"
    );
}

#[test]
fn deeply_nested_yaml_is_refused_before_parsing() {
    let depth = 100_000;
    let text = format!(
        "ns: a\nkey: b\nsections: {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let started = Instant::now();
    assert_eq!(
        error(&text, FileFormat::Yaml, "p.yaml"),
        "p.yaml:3:1011: syntax error: nesting deeper than 1000 levels"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

fn sections_file(count: usize) -> String {
    let sections: Vec<String> = (0..count)
        .map(|i| format!(r#"{{"key": "s{i}", "title": "S{i}", "template": "Body {i}."}}"#))
        .collect();
    format!(
        r#"{{"ns": "a", "key": "b", "sections": [{}]}}"#,
        sections.join(",")
    )
}

fn load_time(count: usize) -> Duration {
    let text = sections_file(count);
    let started = Instant::now();
    let loaded = load_str(&text, FileFormat::Json, Path::new("."), "p.json").unwrap();
    assert_eq!(loaded.template.nodes().len(), count);
    started.elapsed()
}

#[test]
fn loading_many_sections_takes_linear_time() {
    // Quadratic loading made 8× the sections take ~64× the time; linear takes ~8×.
    let small = load_time(5_000);
    let large = load_time(40_000);
    assert!(
        large < small * 24 + Duration::from_millis(200),
        "5,000 sections: {small:?}; 40,000 sections: {large:?}"
    );
}

#[test]
fn deeply_nested_json_and_toml_fail_fast_without_overflowing_the_stack() {
    let depth = 100_000;
    let started = Instant::now();
    let json = format!(
        r#"{{"ns": "a", "key": "b", "sections": {}{}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let message = error(&json, FileFormat::Json, "p.json");
    assert!(
        message.starts_with("p.json:1:163: syntax error: recursion limit exceeded"),
        "{message}"
    );
    let toml = format!(
        "ns = \"a\"\nkey = \"b\"\nsections = {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let message = error(&toml, FileFormat::Toml, "p.toml");
    assert!(message.starts_with("p.toml:3:"), "{message}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}
