//! Lenient extraction of tool calls from generated text.
//!
//! Small models write calls in several shapes; all of these are recognised, for names of offered tools:
//! `<tool_call>{"name": …, "arguments": {…}}</tool_call>` blocks (closing tag optional at the end),
//! ```` ```json ```` fenced blocks, and a bare JSON object (or array of objects) making up the whole text.
//! `arguments` may also be spelled `parameters`, or be a string holding JSON. Doubled outer braces
//! (`{{…}}`), which Qwen2.5-Coder-1.5B sometimes writes, are tolerated.

use serde_json::{Map, Value};

/// Tool calls found in a text, and the text left around them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedTurn {
    /// Text outside the calls, trimmed; `None` when nothing is left.
    pub text: Option<String>,
    /// `(tool name, arguments object)` in order of appearance.
    pub calls: Vec<(String, Value)>,
}

/// Extracts calls of the tools named in `tool_names` from `text`.
///
/// Blocks that do not parse, or that name a tool not on offer, stay in the text.
#[must_use]
pub fn parse_tool_calls(text: &str, tool_names: &[&str]) -> ParsedTurn {
    let is_known = |name: &str| tool_names.contains(&name);

    if text.contains("<tool_call>") {
        let parsed = parse_delimited(text, "<tool_call>", "</tool_call>", &is_known);
        if !parsed.calls.is_empty() {
            return parsed;
        }
    }
    if text.contains("```") {
        let parsed = parse_fenced(text, &is_known);
        if !parsed.calls.is_empty() {
            return parsed;
        }
    }
    let trimmed = text.trim();
    if let Some(calls) = calls_from_json_text(trimmed, &is_known) {
        return ParsedTurn { text: None, calls };
    }
    if let Some((calls, rest)) = leading_json_calls(trimmed, &is_known) {
        return ParsedTurn {
            text: non_empty(rest),
            calls,
        };
    }
    ParsedTurn {
        text: non_empty(text),
        calls: Vec::new(),
    }
}

fn parse_delimited(
    text: &str,
    open: &str,
    close: &str,
    is_known: &dyn Fn(&str) -> bool,
) -> ParsedTurn {
    let mut remaining = String::new();
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        let before = &rest[..start];
        let after_open = &rest[start + open.len()..];
        let (inner, after) = match after_open.find(close) {
            Some(end) => (&after_open[..end], &after_open[end + close.len()..]),
            None => (after_open, ""),
        };
        let inner_json = strip_fence(inner.trim());
        match calls_from_json_text(inner_json, is_known) {
            Some(found) => {
                remaining.push_str(before);
                calls.extend(found);
            }
            None => {
                remaining.push_str(before);
                remaining.push_str(&rest[start..rest.len() - after.len()]);
            }
        }
        rest = after;
    }
    remaining.push_str(rest);
    ParsedTurn {
        text: non_empty(&remaining),
        calls,
    }
}

fn parse_fenced(text: &str, is_known: &dyn Fn(&str) -> bool) -> ParsedTurn {
    let mut remaining = String::new();
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        let after_open = &rest[start + 3..];
        // The info string (e.g. `json`) runs to the end of the line.
        let body_start = after_open.find('\n').map_or(after_open.len(), |i| i + 1);
        let info = after_open[..body_start].trim();
        let body = &after_open[body_start..];
        let (inner, after) = match body.find("```") {
            Some(end) => (&body[..end], &body[end + 3..]),
            None => (body, ""),
        };
        let is_json_fence = info.is_empty() || info.eq_ignore_ascii_case("json");
        match is_json_fence
            .then(|| calls_from_json_text(inner.trim(), is_known))
            .flatten()
        {
            Some(found) => {
                remaining.push_str(&rest[..start]);
                calls.extend(found);
            }
            None => remaining.push_str(&rest[..rest.len() - after.len()]),
        }
        rest = after;
    }
    remaining.push_str(rest);
    ParsedTurn {
        text: non_empty(&remaining),
        calls,
    }
}

fn strip_fence(text: &str) -> &str {
    let Some(body) = text.strip_prefix("```") else {
        return text;
    };
    let body = body.find('\n').map_or(body, |i| &body[i + 1..]);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

/// The whole text is one call object, or an array of call objects.
fn calls_from_json_text(
    text: &str,
    is_known: &dyn Fn(&str) -> bool,
) -> Option<Vec<(String, Value)>> {
    let value = serde_json::from_str::<Value>(text)
        .ok()
        .or_else(|| undouble_braces(text))?;
    calls_from_value(value, is_known)
}

/// A call object (or array of them) at the start of the text, followed by other text.
fn leading_json_calls<'a>(
    text: &'a str,
    is_known: &dyn Fn(&str) -> bool,
) -> Option<(Vec<(String, Value)>, &'a str)> {
    if !text.starts_with(['{', '[']) {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = stream.next()?.ok()?;
    let consumed = stream.byte_offset();
    let calls = calls_from_value(value, is_known)?;
    Some((calls, &text[consumed..]))
}

fn undouble_braces(text: &str) -> Option<Value> {
    let inner = text.strip_prefix("{{")?.strip_suffix("}}")?;
    serde_json::from_str(&format!("{{{inner}}}")).ok()
}

fn calls_from_value(value: Value, is_known: &dyn Fn(&str) -> bool) -> Option<Vec<(String, Value)>> {
    match value {
        Value::Object(object) => call_from_object(object, is_known).map(|call| vec![call]),
        Value::Array(items) if !items.is_empty() => items
            .into_iter()
            .map(|item| match item {
                Value::Object(object) => call_from_object(object, is_known),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

fn call_from_object(
    mut object: Map<String, Value>,
    is_known: &dyn Fn(&str) -> bool,
) -> Option<(String, Value)> {
    // OpenAI-style `{"function": {"name": …, "arguments": "…"}}` wrappers too.
    if let Some(Value::Object(function)) = object.remove("function") {
        object = function;
    }
    let name = object.get("name")?.as_str()?.to_owned();
    if !is_known(&name) {
        return None;
    }
    let arguments = match object
        .remove("arguments")
        .or_else(|| object.remove("parameters"))
    {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::String(encoded)) => match serde_json::from_str::<Value>(&encoded) {
            Ok(value @ Value::Object(_)) => value,
            _ => return None,
        },
        Some(value @ Value::Object(_)) => value,
        Some(_) => return None,
    };
    Some((name, arguments))
}

fn non_empty(text: &str) -> Option<String> {
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    const TOOLS: &[&str] = &["add", "get_weather"];

    fn call(name: &str, arguments: Value) -> (String, Value) {
        (name.to_owned(), arguments)
    }

    #[test]
    fn tagged_call() {
        let parsed = parse_tool_calls(
            "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1, \"b\": 2}}\n</tool_call>",
            TOOLS,
        );
        assert_eq!(
            parsed,
            ParsedTurn {
                text: None,
                calls: vec![call("add", json!({"a": 1, "b": 2}))]
            }
        );
    }

    #[test]
    fn two_tagged_calls_with_text_and_unclosed_last_tag() {
        let parsed = parse_tool_calls(
            "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1, \"b\": 2}}",
            TOOLS,
        );
        assert_eq!(
            parsed,
            ParsedTurn {
                text: Some("Let me check.".into()),
                calls: vec![
                    call("get_weather", json!({"city": "Paris"})),
                    call("add", json!({"a": 1, "b": 2}))
                ],
            }
        );
    }

    #[test]
    fn fenced_json_call() {
        let parsed = parse_tool_calls(
            "```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}\n```",
            TOOLS,
        );
        assert_eq!(
            parsed.calls,
            vec![call(
                "get_weather",
                json!({"city": "Paris", "unit": "celsius"})
            )]
        );
        assert_eq!(parsed.text, None);
    }

    #[test]
    fn fenced_call_inside_tags_and_string_arguments() {
        let parsed = parse_tool_calls(
            "<tool_call>\n```json\n{\"name\": \"add\", \"arguments\": \"{\\\"a\\\": 5}\"}\n```\n</tool_call>",
            TOOLS,
        );
        assert_eq!(parsed.calls, vec![call("add", json!({"a": 5}))]);
    }

    #[test]
    fn bare_json_doubled_braces_parameters_alias_and_arrays() {
        assert_eq!(
            parse_tool_calls("{\"name\": \"add\", \"arguments\": {\"a\": 1}}", TOOLS).calls,
            vec![call("add", json!({"a": 1}))]
        );
        assert_eq!(
            parse_tool_calls("{{\"name\": \"add\", \"parameters\": {\"a\": 1}}}", TOOLS).calls,
            vec![call("add", json!({"a": 1}))]
        );
        assert_eq!(
            parse_tool_calls("[{\"name\": \"add\"}, {\"function\": {\"name\": \"get_weather\", \"arguments\": \"{}\"}}]", TOOLS).calls,
            vec![call("add", json!({})), call("get_weather", json!({}))]
        );
        let parsed = parse_tool_calls(
            "{\"name\": \"add\", \"arguments\": {\"a\": 1}} and then I will answer.",
            TOOLS,
        );
        assert_eq!(parsed.calls, vec![call("add", json!({"a": 1}))]);
        assert_eq!(parsed.text.as_deref(), Some("and then I will answer."));
    }

    #[test]
    fn unknown_tools_and_plain_code_stay_text() {
        let text = "```json\n{\"name\": \"delete_everything\", \"arguments\": {}}\n```";
        assert_eq!(
            parse_tool_calls(text, TOOLS),
            ParsedTurn {
                text: Some(text.into()),
                calls: vec![]
            }
        );
        let code = "Here:\n```python\nprint({\"name\": \"add\"})\n```";
        assert_eq!(
            parse_tool_calls(code, TOOLS),
            ParsedTurn {
                text: Some(code.into()),
                calls: vec![]
            }
        );
        assert_eq!(
            parse_tool_calls("The sum is 5555.", TOOLS).text.as_deref(),
            Some("The sum is 5555.")
        );
        assert_eq!(parse_tool_calls("  ", TOOLS), ParsedTurn::default());
    }

    proptest! {
        #[test]
        fn never_panics(text in ".{0,200}") {
            let _ = parse_tool_calls(&text, TOOLS);
        }

        #[test]
        fn rendered_calls_round_trip(a in any::<i64>(), city in "[a-zA-Z ]{0,20}", tagged in any::<bool>()) {
            let first = crate::template::tool_call_json("add", &json!({"a": a}));
            let second = crate::template::tool_call_json("get_weather", &json!({"city": city}));
            let text = if tagged {
                format!("<tool_call>\n{first}\n</tool_call>\n<tool_call>\n{second}\n</tool_call>")
            } else {
                format!("```json\n{first}\n```\n```json\n{second}\n```")
            };
            let parsed = parse_tool_calls(&text, TOOLS);
            prop_assert_eq!(parsed.calls, vec![call("add", json!({"a": a})), call("get_weather", json!({"city": city}))]);
            prop_assert_eq!(parsed.text, None);
        }
    }
}
