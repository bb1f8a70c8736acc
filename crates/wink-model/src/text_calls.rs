//! Tool calls written as text: the one parser for them. Small models write calls in their
//! answer text instead of as structured calls (the embedded model always does; servers such as
//! llama.cpp's, vLLM or Ollama leave them in the text when their own parser misses them).
//!
//! All of these shapes are recognised, for names of offered tools:
//! `<tool_call>{"name": …, "arguments": {…}}</tool_call>` blocks (closing tag optional at the end),
//! ```` ```json ```` fenced blocks, and bare JSON objects (one, an array of them, or several one
//! after another, e.g. one per line) making up the whole text.
//! `arguments` may also be spelled `parameters`, or be a string holding JSON. Doubled outer braces
//! (one extra `{`, any number of extra `}`), which Qwen2.5-Coder-1.5B writes (also through
//! llama.cpp's server), are tolerated.
//!
//! The arguments themselves are read strictly, as every provider's are: when they hold a key
//! twice or an integer beyond 64 bits, the call carries them as the model wrote them
//! ([`ToolArguments::Text`]), so the executor refuses them (`duplicate key 'a' in the
//! arguments`) instead of the tool getting the last duplicate or a rounded float (issue 23).

use std::collections::HashMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use wink_core::ToolArguments;

/// Tool calls found in a text, and the text left around them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedTurn {
    /// Text outside the calls, trimmed; `None` when nothing is left.
    pub text: Option<String>,
    /// `(tool name, arguments)` in order of appearance: a parsed object
    /// ([`ToolArguments::Json`]), or the text as written when a strict parse refuses it.
    pub calls: Vec<(String, ToolArguments)>,
}

/// Extracts calls of the tools named in `tool_names` from `text`.
///
/// Blocks that do not parse, or that name a tool not on offer, stay in the text.
#[must_use]
pub fn parse_tool_calls(text: &str, tool_names: &[&str]) -> ParsedTurn {
    parse_tool_calls_with(text, &|name: &str| {
        tool_names.contains(&name).then(|| name.to_owned())
    })
}

/// As [`parse_tool_calls`], with the names as written resolved by `resolve` (a provider's
/// wire name to the tool's own, `None` for a tool not on offer); calls carry resolved names.
#[must_use]
pub fn parse_tool_calls_with(text: &str, resolve: &dyn Fn(&str) -> Option<String>) -> ParsedTurn {
    parse_call_attempts(text, &|name: &str, _spelled: CallShape| resolve(name))
}

/// How a call object was written: with its `arguments` (or `parameters`) member, or with a
/// name alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallShape {
    /// `{"name": …, "arguments": …}`: unmistakably a call.
    NameAndArguments,
    /// `{"name": …}` alone: a call of a tool without parameters, or just an object with a name.
    NameOnly,
}

/// As [`parse_tool_calls_with`], with `resolve` also told how each call object was written, so
/// it can take a call of a tool it does not offer when the object spells its arguments (a
/// model calling a tool it has not been given yet: the loop then answers that call).
#[must_use]
pub fn parse_call_attempts(
    text: &str,
    resolve: &dyn Fn(&str, CallShape) -> Option<String>,
) -> ParsedTurn {
    let is_known = resolve;

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
    if let Some(calls) = call_sequence(trimmed, &is_known) {
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

/// Resolves a tool name as written (in a call object of that shape) to the tool's own, `None`
/// when no such tool is taken.
type Resolve<'a> = &'a dyn Fn(&str, CallShape) -> Option<String>;

fn parse_delimited(text: &str, open: &str, close: &str, is_known: Resolve<'_>) -> ParsedTurn {
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

fn parse_fenced(text: &str, is_known: Resolve<'_>) -> ParsedTurn {
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
fn calls_from_json_text(text: &str, is_known: Resolve<'_>) -> Option<Vec<(String, ToolArguments)>> {
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return calls_from_value(value, is_known).map(|calls| strictly(text, calls));
    }
    let undoubled = undouble_braces(text)?;
    let value = serde_json::from_str::<Value>(undoubled).ok()?;
    calls_from_value(value, is_known).map(|calls| strictly(undoubled, calls))
}

/// Several call objects one after another (one per line, as small models list them), making up
/// the whole text.
fn call_sequence(text: &str, is_known: Resolve<'_>) -> Option<Vec<(String, ToolArguments)>> {
    if !text.starts_with('{') {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let (mut calls, mut start, mut objects) = (Vec::new(), 0, 0);
    while let Some(item) = stream.next() {
        let found = calls_from_value(item.ok()?, is_known)?;
        let end = stream.byte_offset();
        calls.extend(strictly(text[start..end].trim(), found));
        (start, objects) = (end, objects + 1);
    }
    (objects > 1).then_some(calls)
}

/// A call object (or array of them) at the start of the text, followed by other text.
fn leading_json_calls<'a>(
    text: &'a str,
    is_known: Resolve<'_>,
) -> Option<(Vec<(String, ToolArguments)>, &'a str)> {
    if !text.starts_with(['{', '[']) {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = stream.next()?.ok()?;
    let consumed = stream.byte_offset();
    let calls = calls_from_value(value, is_known)?;
    Some((strictly(&text[..consumed], calls), &text[consumed..]))
}

/// The object inside doubled outer braces: `{{"name": …, "arguments": {…}}}}` (one extra `{`,
/// any number of extra `}`).
fn undouble_braces(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('{')?;
    if !inner.trim_start().starts_with('{') {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_str(inner).into_iter::<Value>();
    stream.next()?.ok()?;
    let end = stream.byte_offset();
    inner[end..]
        .chars()
        .all(|c| c == '}' || c.is_whitespace())
        .then(|| &inner[..end])
}

/// The calls parsed from `source` (one call object or an array of them), each call's arguments
/// kept as the text `source` gives them when a strict parse refuses that text.
fn strictly(source: &str, calls: Vec<(String, Value)>) -> Vec<(String, ToolArguments)> {
    let mut raw = raw_arguments(source).into_iter();
    calls
        .into_iter()
        .map(|(name, value)| {
            let arguments = match raw.next().flatten() {
                Some(text) if strict_parse_refuses(&text) => ToolArguments::Text(text),
                _ => ToolArguments::Json(value),
            };
            (name, arguments)
        })
        .collect()
}

/// A key twice or an integer beyond 64 bits (what the executor refuses in argument text).
fn strict_parse_refuses(text: &str) -> bool {
    matches!(
        wink_schema::parse_strict_json(text),
        Err(wink_schema::StrictJsonError::DuplicateKey(_)
            | wink_schema::StrictJsonError::IntegerTooLarge(_))
    )
}

/// The arguments text of each call object in `source`, as [`call_from_object`] picks them
/// (inside a `function` wrapper, `arguments` else `parameters`, a string holding JSON decoded).
fn raw_arguments(source: &str) -> Vec<Option<String>> {
    let Ok(raw) = serde_json::from_str::<&RawValue>(source) else {
        return Vec::new();
    };
    if !raw.get().starts_with('[') {
        return vec![call_arguments(raw.get())];
    }
    serde_json::from_str::<Vec<&RawValue>>(raw.get())
        .map(|items| {
            items
                .iter()
                .map(|item| call_arguments(item.get()))
                .collect()
        })
        .unwrap_or_default()
}

fn call_arguments(object: &str) -> Option<String> {
    let fields: HashMap<String, &RawValue> = serde_json::from_str(object).ok()?;
    if let Some(function) = fields.get("function")
        && function.get().starts_with('{')
    {
        return call_arguments(function.get());
    }
    let arguments = fields
        .get("arguments")
        .or_else(|| fields.get("parameters"))?;
    if arguments.get().starts_with('"') {
        serde_json::from_str::<String>(arguments.get()).ok()
    } else {
        Some(arguments.get().to_owned())
    }
}

fn calls_from_value(value: Value, is_known: Resolve<'_>) -> Option<Vec<(String, Value)>> {
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
    is_known: Resolve<'_>,
) -> Option<(String, Value)> {
    // OpenAI-style `{"function": {"name": …, "arguments": "…"}}` wrappers too.
    if let Some(Value::Object(function)) = object.remove("function") {
        object = function;
    }
    let shape = if object.contains_key("arguments") || object.contains_key("parameters") {
        CallShape::NameAndArguments
    } else {
        CallShape::NameOnly
    };
    let name = is_known(object.get("name")?.as_str()?, shape)?;
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

/// `calls` with each call written again verbatim in the same turn (same name, same arguments as
/// JSON values) kept once. Small models loop: Qwen2.5-Coder-1.5B wrote one
/// `fs.read_text_file({"path": "folder/shipping.md"})` four times in a turn, and each ran.
#[must_use]
pub fn distinct_calls(calls: Vec<(String, ToolArguments)>) -> Vec<(String, ToolArguments)> {
    let mut kept: Vec<(String, ToolArguments)> = Vec::with_capacity(calls.len());
    for (name, arguments) in calls {
        let value = arguments.to_value();
        if !kept
            .iter()
            .any(|(n, a)| *n == name && a.to_value() == value)
        {
            kept.push((name, arguments));
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    const TOOLS: &[&str] = &["add", "get_weather"];

    fn call(name: &str, arguments: Value) -> (String, ToolArguments) {
        (name.to_owned(), ToolArguments::Json(arguments))
    }

    fn as_written(name: &str, arguments: &str) -> (String, ToolArguments) {
        (name.to_owned(), ToolArguments::Text(arguments.to_owned()))
    }

    #[test]
    fn several_bare_calls_one_per_line_are_several_calls() {
        let text = "{\"name\": \"add\", \"arguments\": {\"a\": 1}}\n{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Oslo\\\"}\"}\n{\"name\": \"add\", \"arguments\": {\"a\": 1, \"a\": 2}}";
        assert_eq!(
            parse_tool_calls(text, TOOLS),
            ParsedTurn {
                text: None,
                calls: vec![
                    call("add", json!({"a": 1})),
                    call("get_weather", json!({"city": "Oslo"})),
                    as_written("add", r#"{"a": 1, "a": 2}"#),
                ],
            }
        );
        // One call of a tool not on offer: the first stays a call, the rest text.
        let mixed = "{\"name\": \"add\", \"arguments\": {}}\n{\"name\": \"rm\", \"arguments\": {}}";
        assert_eq!(
            parse_tool_calls(mixed, TOOLS),
            ParsedTurn {
                text: Some("{\"name\": \"rm\", \"arguments\": {}}".to_owned()),
                calls: vec![call("add", json!({}))],
            }
        );
    }

    #[test]
    fn arguments_a_strict_parse_refuses_are_kept_as_written() {
        // A key twice: the lenient parse would keep `"a": 2` only.
        assert_eq!(
            parse_tool_calls(
                "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1, \"a\": 2}}\n</tool_call>",
                TOOLS
            )
            .calls,
            vec![as_written("add", r#"{"a": 1, "a": 2}"#)]
        );
        // An integer beyond 64 bits: the lenient parse would make it 1.2345678901234568e29.
        assert_eq!(
            parse_tool_calls(
                r#"{"name": "add", "arguments": {"a": 123456789012345678901234567890, "b": 1}}"#,
                TOOLS
            )
            .calls,
            vec![as_written(
                "add",
                r#"{"a": 123456789012345678901234567890, "b": 1}"#
            )]
        );
        // In string-encoded arguments, `parameters`, a `function` wrapper, doubled braces,
        // arrays (only the refused call is kept as text) and before trailing text.
        assert_eq!(
            parse_tool_calls(
                r#"{"name": "add", "arguments": "{\"a\": 1, \"a\": 1}"}"#,
                TOOLS
            )
            .calls,
            vec![as_written("add", r#"{"a": 1, "a": 1}"#)]
        );
        assert_eq!(
            parse_tool_calls(
                r#"{{"name": "add", "parameters": {"a": {"x": 1, "x": 2}}}}"#,
                TOOLS
            )
            .calls,
            vec![as_written("add", r#"{"a": {"x": 1, "x": 2}}"#)]
        );
        assert_eq!(
            parse_tool_calls(
                r#"[{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"function": {"name": "add", "arguments": {"a": 1, "a": 2}}}]"#,
                TOOLS
            )
            .calls,
            vec![
                call("get_weather", json!({"city": "Oslo"})),
                as_written("add", r#"{"a": 1, "a": 2}"#)
            ]
        );
        let parsed = parse_tool_calls(
            r#"{"name": "add", "arguments": {"a": -99999999999999999999}} then I answer."#,
            TOOLS,
        );
        assert_eq!(
            parsed.calls,
            vec![as_written("add", r#"{"a": -99999999999999999999}"#)]
        );
        assert_eq!(parsed.text.as_deref(), Some("then I answer."));
        // Within 64 bits, and keys repeated only in different objects, stay parsed.
        assert_eq!(
            parse_tool_calls(
                r#"{"name": "add", "arguments": {"a": 18446744073709551615, "b": {"a": -9223372036854775808}}}"#,
                TOOLS
            )
            .calls,
            vec![call(
                "add",
                json!({"a": 18446744073709551615_u64, "b": {"a": -9223372036854775808_i64}})
            )]
        );
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
            let first = json!({"name": "add", "arguments": {"a": a}}).to_string();
            let second = json!({"name": "get_weather", "arguments": {"city": city}}).to_string();
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

    #[test]
    fn a_call_repeated_in_one_turn_is_kept_once() {
        let text = "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>\n\
                    <tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"b\"}}\n</tool_call>\n\
                    <tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>";
        let parsed = parse_tool_calls(text, &["read"]);
        assert_eq!(parsed.calls.len(), 3);
        let kept: Vec<(String, serde_json::Value)> = distinct_calls(parsed.calls)
            .into_iter()
            .map(|(name, arguments)| (name, arguments.to_value()))
            .collect();
        assert_eq!(
            kept,
            [
                ("read".to_owned(), serde_json::json!({"path": "a"})),
                ("read".to_owned(), serde_json::json!({"path": "b"})),
            ]
        );
    }
}
