//! The cases file of `wink eval`: one JSON object per line,
//! `{"id", "params"?, "input"?, "expect": {"contains"?, "regex"?, "not_regex"?, "tools_called"?,
//! "tools_not_called"?, "max_model_calls"?}}`. Every problem names the file, the line and the key.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Result, RunError};

/// What a case expects of its run.
#[derive(Debug, Default, Clone)]
pub struct Expect {
    /// Strings the answer contains (case-insensitive).
    pub contains: Vec<String>,
    /// A regular expression the answer matches.
    pub regex: Option<regex::Regex>,
    /// A regular expression the answer must not match (an invented fact, a forbidden claim).
    pub not_regex: Option<regex::Regex>,
    /// Tools called at least once each, in any order.
    pub tools_called: Vec<String>,
    /// Tools the run must not call, not even once (a question no tool answers, an action a
    /// procedure forbids); failed calls count.
    pub tools_not_called: Vec<String>,
    /// At most this many model calls.
    pub max_model_calls: Option<u32>,
}

/// One line of the cases file.
#[derive(Debug, Clone)]
pub struct Case {
    /// Its id (unique in the file); the part before its last `-` is its type.
    pub id: String,
    /// Its line in the file.
    pub line: usize,
    /// Params for the prompt.
    pub params: Option<Map<String, Value>>,
    /// The user message.
    pub input: Option<String>,
    /// What the run must do.
    pub expect: Expect,
}

/// The message of a problem at `file:line`, with `key` when there is one.
pub(crate) fn bad(
    file: &Path,
    line: usize,
    key: &str,
    message: impl std::fmt::Display,
) -> RunError {
    if key.is_empty() {
        RunError::usage(format!("{}:{line}: {message}", file.display()))
    } else {
        RunError::usage(format!("{}:{line}: {key}: {message}", file.display()))
    }
}

fn string_list(value: &Value, file: &Path, line: usize, key: &str) -> Result<Vec<String>> {
    let items = value
        .as_array()
        .ok_or_else(|| bad(file, line, key, "expected an array of strings"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str()
                .map(str::to_owned)
                .ok_or_else(|| bad(file, line, &format!("{key}[{i}]"), "expected a string"))
        })
        .collect()
}

/// The keys of a case's `expect`.
const EXPECT_KEYS: &str =
    "contains, regex, not_regex, tools_called, tools_not_called, max_model_calls";

fn parse_regex(value: &Value, file: &Path, line: usize, key: &str) -> Result<regex::Regex> {
    let text = value
        .as_str()
        .ok_or_else(|| bad(file, line, key, "expected a string"))?;
    regex::Regex::new(text).map_err(|e| bad(file, line, key, format!("invalid regex: {e}")))
}

fn parse_expect(value: &Value, file: &Path, line: usize) -> Result<Expect> {
    let object = value
        .as_object()
        .ok_or_else(|| bad(file, line, "expect", "expected a JSON object"))?;
    let mut expect = Expect::default();
    for (key, value) in object {
        let full = format!("expect.{key}");
        match key.as_str() {
            "contains" => expect.contains = string_list(value, file, line, &full)?,
            "tools_called" => expect.tools_called = string_list(value, file, line, &full)?,
            "tools_not_called" => {
                expect.tools_not_called = string_list(value, file, line, &full)?;
            }
            "regex" => expect.regex = Some(parse_regex(value, file, line, &full)?),
            "not_regex" => expect.not_regex = Some(parse_regex(value, file, line, &full)?),
            "max_model_calls" => {
                let n = value
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| bad(file, line, &full, "expected a non-negative integer"))?;
                expect.max_model_calls = Some(n);
            }
            _ => {
                return Err(bad(
                    file,
                    line,
                    &full,
                    format!("unknown key (expected {EXPECT_KEYS})"),
                ));
            }
        }
    }
    Ok(expect)
}

/// Parses one line. A key given twice is refused (as in prompt files), not last-one-wins.
///
/// # Errors
/// [`RunError::Usage`] naming `file`, `line` and the key.
pub fn parse_case(text: &str, file: &Path, line: usize) -> Result<Case> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        bad(
            file,
            line,
            "",
            format!("invalid JSON at column {}: {e}", e.column()),
        )
    })?;
    wink_schema::parse_strict_json(text).map_err(|e| bad(file, line, "", e))?;
    let Value::Object(object) = value else {
        return Err(bad(file, line, "", "expected a JSON object"));
    };
    let mut case = Case {
        id: String::new(),
        line,
        params: None,
        input: None,
        expect: Expect::default(),
    };
    let mut has_expect = false;
    for (key, value) in &object {
        match key.as_str() {
            "id" => {
                case.id = value
                    .as_str()
                    .filter(|id| !id.trim().is_empty())
                    .ok_or_else(|| bad(file, line, "id", "expected a non-empty string"))?
                    .to_owned();
            }
            "params" => match value {
                Value::Object(map) => case.params = Some(map.clone()),
                _ => {
                    return Err(bad(
                        file,
                        line,
                        "params",
                        "expected a JSON object mapping params type names to field values",
                    ));
                }
            },
            "input" => {
                case.input = Some(
                    value
                        .as_str()
                        .ok_or_else(|| bad(file, line, "input", "expected a string"))?
                        .to_owned(),
                );
            }
            "expect" => {
                case.expect = parse_expect(value, file, line)?;
                has_expect = true;
            }
            _ => {
                return Err(bad(
                    file,
                    line,
                    key,
                    "unknown key (expected id, params, input, expect)",
                ));
            }
        }
    }
    if case.id.is_empty() {
        return Err(bad(file, line, "id", "missing"));
    }
    if !has_expect {
        return Err(bad(file, line, "expect", "missing"));
    }
    Ok(case)
}

/// Reads every case of `file`; blank lines are skipped. Linear in the number of cases.
///
/// # Errors
/// [`RunError::Usage`] naming `--cases` when the file cannot be read or holds no case, and the
/// file, line and key of the first bad line (a duplicate id names the line of the first).
pub fn read_cases(file: &Path) -> Result<Vec<Case>> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| RunError::usage(format!("--cases {}: {e}", file.display())))?;
    parse_cases(&text, file)
}

/// As [`read_cases`], from the file's text.
///
/// # Errors
/// As [`read_cases`].
pub fn parse_cases(text: &str, file: &Path) -> Result<Vec<Case>> {
    let mut cases: Vec<Case> = Vec::new();
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case = parse_case(line, file, index + 1)?;
        if let Some(first) = first_line.get(&case.id) {
            return Err(bad(
                file,
                case.line,
                "id",
                format!("duplicate id '{}' (first on line {first})", case.id),
            ));
        }
        first_line.insert(case.id.clone(), case.line);
        cases.push(case);
    }
    if cases.is_empty() {
        return Err(RunError::usage(format!(
            "--cases {}: no cases",
            file.display()
        )));
    }
    Ok(cases)
}

/// The task type of a case: its id without the last `-` segment (`single-hidden-03` →
/// `single-hidden`).
#[must_use]
pub fn case_type(id: &str) -> &str {
    id.rsplit_once('-').map_or(id, |(prefix, _)| prefix)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn err(line: &str) -> String {
        parse_case(line, Path::new("c.jsonl"), 7)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn case_errors_name_the_file_line_and_key() {
        assert_eq!(err(r#"{"id": "a"}"#), "c.jsonl:7: expect: missing");
        assert_eq!(err(r#"{"expect": {}}"#), "c.jsonl:7: id: missing");
        assert_eq!(
            err(r#"{"id": "a", "expect": {"regex": "("}}"#)
                .lines()
                .next()
                .unwrap(),
            "c.jsonl:7: expect.regex: invalid regex: regex parse error:"
        );
        assert_eq!(
            err(r#"{"id": "a", "expect": {"tools": []}}"#),
            "c.jsonl:7: expect.tools: unknown key (expected contains, regex, not_regex, tools_called, tools_not_called, max_model_calls)"
        );
        assert_eq!(
            err(r#"{"id": "a", "expect": {"tools_called": ["x", 1]}}"#),
            "c.jsonl:7: expect.tools_called[1]: expected a string"
        );
        assert_eq!(
            err(r#"{"id": "a", "expect": {"not_regex": "["}}"#)
                .lines()
                .next()
                .unwrap(),
            "c.jsonl:7: expect.not_regex: invalid regex: regex parse error:"
        );
        assert_eq!(
            err(r#"{"id": "a", "expect": {"tools_not_called": "add"}}"#),
            "c.jsonl:7: expect.tools_not_called: expected an array of strings"
        );
        assert_eq!(
            err(r#"{"id": "a", "inputs": "x", "expect": {}}"#),
            "c.jsonl:7: inputs: unknown key (expected id, params, input, expect)"
        );
        assert_eq!(
            err("{\"id\": "),
            "c.jsonl:7: invalid JSON at column 7: EOF while parsing a value at line 1 column 7"
        );
    }

    #[test]
    fn a_key_given_twice_is_refused_not_last_one_wins() {
        assert_eq!(
            err(r#"{"id": "a", "id": "b", "expect": {}}"#),
            "c.jsonl:7: duplicate key 'id'"
        );
        assert_eq!(
            err(r#"{"id": "a", "expect": {"regex": "x", "regex": "y"}}"#),
            "c.jsonl:7: duplicate key 'regex'"
        );
    }

    #[test]
    fn duplicate_ids_name_the_first_line() {
        let text = "{\"id\": \"a\", \"expect\": {}}\n\n{\"id\": \"a\", \"expect\": {}}\n";
        assert_eq!(
            parse_cases(text, Path::new("c.jsonl"))
                .unwrap_err()
                .to_string(),
            "c.jsonl:3: id: duplicate id 'a' (first on line 1)"
        );
        assert_eq!(
            parse_cases("\n \n", Path::new("c.jsonl"))
                .unwrap_err()
                .to_string(),
            "--cases c.jsonl: no cases"
        );
    }

    #[test]
    fn many_cases_parse_in_linear_time() {
        // 200,000 distinct ids: a quadratic duplicate check takes minutes here.
        let text: String = (0..200_000)
            .map(|i| format!("{{\"id\": \"case-{i}\", \"expect\": {{}}}}\n"))
            .collect();
        assert_eq!(
            parse_cases(&text, Path::new("c.jsonl")).unwrap().len(),
            200_000
        );
    }

    #[test]
    fn the_case_type_is_the_id_without_its_last_segment() {
        assert_eq!(case_type("single-hidden-03"), "single-hidden");
        assert_eq!(case_type("multi-1"), "multi");
        assert_eq!(case_type("plain"), "plain");
    }
}
