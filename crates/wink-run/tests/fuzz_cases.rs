//! Fuzzing `wink eval`'s cases files: generated case lines read back exactly; lines with a key
//! twice, unknown keys, wrong types, bad regexes, numbers past 64 bits, random text and random
//! bytes are refused with an error naming the file and line; whole files (often with repeated
//! ids) read back in order, or name the repeated id's line and its first; every case within its
//! time bound and without a panic. Case count: `PROPTEST_CASES` (default 256); see
//! docs/fuzzing.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use wink_run::eval::{parse_case, parse_cases};

const BOUND: Duration = Duration::from_secs(1);

/// A generated case: what its line says, to compare with what the parser reads.
#[derive(Debug, Clone)]
struct Generated {
    id: String,
    input: Option<String>,
    params: Option<Map<String, Value>>,
    contains: Vec<String>,
    regex: Option<String>,
    not_regex: Option<String>,
    tools_called: Vec<String>,
    tools_not_called: Vec<String>,
    max_model_calls: Option<u32>,
}

impl Generated {
    fn line(&self) -> String {
        let mut expect = Map::new();
        if !self.contains.is_empty() {
            expect.insert("contains".into(), json!(self.contains));
        }
        if let Some(r) = &self.regex {
            expect.insert("regex".into(), json!(r));
        }
        if let Some(r) = &self.not_regex {
            expect.insert("not_regex".into(), json!(r));
        }
        if !self.tools_called.is_empty() {
            expect.insert("tools_called".into(), json!(self.tools_called));
        }
        if !self.tools_not_called.is_empty() {
            expect.insert("tools_not_called".into(), json!(self.tools_not_called));
        }
        if let Some(n) = self.max_model_calls {
            expect.insert("max_model_calls".into(), json!(n));
        }
        let mut line = Map::new();
        line.insert("id".into(), json!(self.id));
        if let Some(input) = &self.input {
            line.insert("input".into(), json!(input));
        }
        if let Some(params) = &self.params {
            line.insert("params".into(), Value::Object(params.clone()));
        }
        line.insert("expect".into(), Value::Object(expect));
        Value::Object(line).to_string()
    }
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 _.-]{0,24}",
        any::<String>(),
        Just("\u{1b}]52;c;aGk=\u{7}".to_owned()),
        Just("\u{feff}x".to_owned()),
    ]
}

fn names() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec("[a-z_.]{1,12}", 0..4)
}

/// Regexes that compile (the `regex` crate's syntax), including ones that backtrack badly in
/// other engines.
fn regex() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("(a+)+$".to_owned()),
        Just("(?i)^the .*\\d{4}$".to_owned()),
        Just("[\\p{L}]+".to_owned()),
        "[a-z]{1,8}".prop_map(|s| regex::escape(&s)),
    ]
}

fn generated() -> impl Strategy<Value = Generated> {
    (
        "[a-z]{1,8}(-[a-z0-9]{1,4}){0,2}",
        proptest::option::of(text()),
        proptest::option::of(proptest::collection::btree_map(
            "[A-Z][a-z]{0,6}",
            proptest::collection::btree_map("[a-z]{1,6}", text(), 0..3),
            0..3,
        )),
        proptest::collection::vec(text(), 0..3),
        (proptest::option::of(regex()), proptest::option::of(regex())),
        (names(), names()),
        proptest::option::of(any::<u32>()),
    )
        .prop_map(
            |(id, input, params, contains, (regex, not_regex), (called, not_called), max)| {
                Generated {
                    id,
                    input,
                    params: params.map(|p| {
                        p.into_iter()
                            .map(|(k, fields)| (k, json!(fields)))
                            .collect()
                    }),
                    contains,
                    regex,
                    not_regex,
                    tools_called: called,
                    tools_not_called: not_called,
                    max_model_calls: max,
                }
            },
        )
}

/// Lines that must be refused: each a valid line broken one way.
fn broken() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(r#"{"id": "a", "id": "b", "expect": {}}"#.to_owned()),
        Just(r#"{"id": "a", "expect": {"regex": "x", "regex": "y"}}"#.to_owned()),
        Just(r#"{"id": "a", "expect": {"regex": "("}}"#.to_owned()),
        Just(r#"{"id": "a", "expect": {"not_regex": "[z-a]"}}"#.to_owned()),
        Just(r#"{"id": "a", "expect": {"max_model_calls": 99999999999999999999999}}"#.to_owned()),
        Just(r#"{"id": "a", "expect": {"max_model_calls": -1}}"#.to_owned()),
        Just(r#"{"id": "a", "expect": {"max_model_calls": 4294967296}}"#.to_owned()),
        Just(
            r#"{"id": "a", "params": {"T": {"n": 18446744073709551616}}, "expect": {}}"#.to_owned()
        ),
        Just(r#"{"id": "a", "expect": {"tools_called": "add"}}"#.to_owned()),
        Just(r#"{"id": "a", "expect": {"tools_not_called": [1]}}"#.to_owned()),
        Just(r#"{"id": "a", "expect": {"tools": []}}"#.to_owned()),
        Just(r#"{"id": "a", "inputs": "x", "expect": {}}"#.to_owned()),
        Just(r#"{"id": "", "expect": {}}"#.to_owned()),
        Just(r#"{"id": "a"}"#.to_owned()),
        Just(r#"{"expect": {}}"#.to_owned()),
        Just(r#"{"id": "a", "params": [], "expect": {}}"#.to_owned()),
        Just(r#"["id", "a"]"#.to_owned()),
        Just(format!("{}1{}", "[".repeat(200), "]".repeat(200))),
        "[^\n]{0,60}".prop_filter("not JSON", |s| serde_json::from_str::<Value>(s).is_err()),
    ]
}

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    assert!(start.elapsed() < BOUND, "{what} took {:?}", start.elapsed());
    out
}

proptest! {
    #[test]
    fn fuzz_eval_case_lines(case in generated(), line_no in 1usize..100_000) {
        let line = case.line();
        let parsed = timed(&line, || parse_case(&line, Path::new("c.jsonl"), line_no)).unwrap();
        prop_assert_eq!(&parsed.id, &case.id);
        prop_assert_eq!(parsed.line, line_no);
        prop_assert_eq!(&parsed.input, &case.input);
        prop_assert_eq!(&parsed.params, &case.params);
        prop_assert_eq!(&parsed.expect.contains, &case.contains);
        prop_assert_eq!(parsed.expect.regex.as_ref().map(|r| r.as_str().to_owned()), case.regex);
        prop_assert_eq!(
            parsed.expect.not_regex.as_ref().map(|r| r.as_str().to_owned()),
            case.not_regex
        );
        prop_assert_eq!(&parsed.expect.tools_called, &case.tools_called);
        prop_assert_eq!(&parsed.expect.tools_not_called, &case.tools_not_called);
        prop_assert_eq!(parsed.expect.max_model_calls, case.max_model_calls);
    }

    #[test]
    fn fuzz_eval_case_refusals(line in broken(), line_no in 1usize..100_000) {
        let error = timed(&line, || parse_case(&line, Path::new("c.jsonl"), line_no)).unwrap_err();
        let prefix = format!("c.jsonl:{line_no}: ");
        prop_assert!(error.to_string().starts_with(&prefix), "{}", error);
    }

    #[test]
    fn fuzz_eval_case_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        // Any outcome but a panic or a slow parse; a refusal names the file.
        if let Err(e) = timed("bytes", || parse_cases(&text, Path::new("c.jsonl"))) {
            prop_assert!(e.to_string().contains("c.jsonl"), "{}", e);
        }
    }

    #[test]
    fn fuzz_eval_case_files(
        ids in proptest::collection::vec("[a-d]{1,2}", 1..30),
        body in generated(),
        blank in 0usize..3,
    ) {
        // One generated case body under many ids, a few letters long so that files with repeated
        // ids are common; the variety of single lines is `fuzz_eval_case_lines`'s job. The body
        // has no regexes, so a case costs the file's reading, not the regex compiler.
        let body = Generated { regex: None, not_regex: None, ..body };
        let cases: Vec<Generated> = ids
            .into_iter()
            .map(|id| Generated { id, ..body.clone() })
            .collect();
        let mut text = String::new();
        for case in &cases {
            text.push_str(&case.line());
            text.push('\n');
            text.push_str(&"\n".repeat(blank));
        }
        let outcome = timed("file", || parse_cases(&text, Path::new("c.jsonl")));
        let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        let mut repeated = None;
        for (i, case) in cases.iter().enumerate() {
            let line = i * (blank + 1) + 1;
            if let Some(earlier) = first.get(case.id.as_str()) {
                repeated = Some((line, *earlier, case.id.clone()));
                break;
            }
            first.insert(&case.id, line);
        }
        match (outcome, repeated) {
            (Ok(parsed), None) => {
                prop_assert_eq!(parsed.len(), cases.len());
                for (i, (p, c)) in parsed.iter().zip(&cases).enumerate() {
                    prop_assert_eq!(&p.id, &c.id);
                    prop_assert_eq!(p.line, i * (blank + 1) + 1);
                }
            }
            (Err(e), Some((line, earlier, id))) => prop_assert_eq!(
                e.to_string(),
                format!("c.jsonl:{line}: id: duplicate id '{id}' (first on line {earlier})")
            ),
            (outcome, repeated) => prop_assert!(false, "{outcome:?} vs {repeated:?}"),
        }
    }
}
