//! What the index knows about one tool.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The searchable description of one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolDocument {
    /// The tool's name as the model calls it, e.g. `file.read`.
    pub name: String,
    /// One line: the first sentence of the description.
    pub summary: String,
    /// The full description.
    pub description: String,
    /// Parameters, nested object properties flattened to dotted names (`options.depth`).
    pub parameters: Vec<ParamDoc>,
    /// Free-form labels (`filesystem`, `read-only`, …).
    pub tags: Vec<String>,
    /// The part of a dotted name before its last `.` (`file` for `file.read`).
    pub namespace: Option<String>,
}

/// One parameter of a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamDoc {
    /// The parameter name; nested properties are joined with `.` (`filter.status`).
    pub name: String,
    /// The parameter's description (empty when the schema has none).
    pub description: String,
}

/// Nested object properties deeper than this are not collected.
const MAX_PARAM_DEPTH: usize = 3;

impl ToolDocument {
    /// A document with no parameters or tags; the summary and namespace are derived.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        let name = name.into();
        let description = description.into();
        Self {
            summary: first_sentence(&description),
            namespace: namespace_of(&name).map(str::to_owned),
            name,
            description,
            parameters: Vec::new(),
            tags: Vec::new(),
        }
    }

    /// Builds a document from a tool's JSON-schema parameters (OpenAI `parameters`, MCP
    /// `inputSchema`). Properties of `object` parameters (and of arrays of objects) are collected
    /// as dotted names up to three levels deep. Anything that is not a schema object yields no
    /// parameters.
    ///
    /// ```
    /// use serde_json::json;
    /// let doc = wink_search::ToolDocument::from_json_schema(
    ///     "file.read",
    ///     "Reads a file, e.g. a config. Returns its text.",
    ///     &json!({"type": "object", "properties": {"path": {"type": "string", "description": "File path."}}}),
    /// );
    /// assert_eq!(doc.summary, "Reads a file, e.g. a config.");
    /// assert_eq!(doc.namespace.as_deref(), Some("file"));
    /// assert_eq!(doc.parameters[0].name, "path");
    /// ```
    pub fn from_json_schema(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: &Value,
    ) -> Self {
        let mut document = Self::new(name, description);
        collect_params(parameters, "", 0, &mut document.parameters);
        document
    }

    /// Replaces the tags.
    #[must_use]
    pub fn with_tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }
}

fn collect_params(schema: &Value, prefix: &str, depth: usize, out: &mut Vec<ParamDoc>) {
    if depth >= MAX_PARAM_DEPTH {
        return;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        if let Some(items) = schema.get("items") {
            collect_params(items, prefix, depth, out);
        }
        return;
    };
    for (name, property) in properties {
        let full_name = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        let description = property
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        out.push(ParamDoc {
            name: full_name.clone(),
            description,
        });
        collect_params(property, &full_name, depth + 1, out);
    }
}

/// The part of a dotted name before its last `.`; `None` for undotted names or an empty part.
///
/// ```
/// assert_eq!(wink_search::namespace_of("github.issues.create"), Some("github.issues"));
/// assert_eq!(wink_search::namespace_of("search"), None);
/// ```
pub fn namespace_of(name: &str) -> Option<&str> {
    let (namespace, _) = name.rsplit_once('.')?;
    (!namespace.is_empty()).then_some(namespace)
}

/// Words whose trailing `.` never ends a sentence.
const ABBREVIATIONS: &[&str] = &[
    "approx", "cf", "dr", "e.g", "eg", "i.e", "ie", "incl", "jr", "mr", "mrs", "ms", "resp", "sr",
    "st", "viz", "vs",
];

/// The first sentence of `text`, whitespace collapsed, keeping its final punctuation.
///
/// A sentence ends at `.`, `!` or `?` followed by whitespace (optionally after closing `)`, `"`,
/// `'`, `]`) when the next word does not start with a lowercase letter or digit and the word
/// before is not an abbreviation (`e.g.`, `i.e.`, `vs.`, `Dr.`, single initials); at a CJK full
/// stop; at a blank line; at a line that starts a list, a heading or a docstring section
/// (`Args:`); and at a line break after a line that does not continue onto the next (the next
/// line starts with a capital or the line ends with punctuation). Decimals (`3.14`), versions
/// (`v1.2`) and dotted names (`file.read`) contain no whitespace after the `.` and never end a
/// sentence.
///
/// ```
/// use wink_search::first_sentence;
/// assert_eq!(first_sentence("Reads v1.2 files, e.g. JSON. Returns text."), "Reads v1.2 files, e.g. JSON.");
/// assert_eq!(first_sentence("List tools\nArgs:\n  q: query"), "List tools");
/// ```
pub fn first_sentence(text: &str) -> String {
    let paragraph = first_line_group(text);
    let collapsed = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = sentence_end(&collapsed).unwrap_or(collapsed.len());
    collapsed[..end].trim_end().to_owned()
}

/// The lines of `text` up to the first one that cannot continue the opening sentence.
fn first_line_group(text: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for line in text.trim().lines() {
        let line = line.trim();
        if let Some(previous) = kept.last() {
            let continues = !line.is_empty()
                && !starts_block(line)
                && !previous.ends_with(['.', '!', '?', ':', ';', '。'])
                && line.chars().next().is_some_and(|c| !c.is_uppercase());
            if !continues {
                break;
            }
        }
        kept.push(line);
    }
    kept.join(" ")
}

/// Does `line` start a list item, a heading or a docstring section?
fn starts_block(line: &str) -> bool {
    if line.starts_with(['-', '*', '•', '#', '|', '>']) {
        return true;
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && line[digits..].starts_with(['.', ')']) {
        return true;
    }
    // `Args:`, `Returns:`, `Example usage:` alone on a line.
    line.ends_with(':') && line.split_whitespace().count() <= 2
}

/// Byte offset just after the first sentence's terminator in `text` (whitespace already
/// collapsed), if any.
fn sentence_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    for (at, c) in text.char_indices() {
        if matches!(c, '。' | '！' | '？') {
            return Some(at + c.len_utf8());
        }
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let mut after = at + 1;
        // Ellipses and `?!` runs end together.
        while after < bytes.len() && matches!(bytes[after], b'.' | b'!' | b'?') {
            after += 1;
        }
        while after < bytes.len() && matches!(bytes[after], b')' | b'"' | b'\'' | b']') {
            after += 1;
        }
        if after == bytes.len() {
            return Some(after);
        }
        if bytes[after] != b' ' {
            continue;
        }
        let next_word_start = text[after + 1..].chars().next();
        if next_word_start.is_some_and(|n| n.is_lowercase() || n.is_ascii_digit()) {
            continue;
        }
        if c == '.' && ends_with_abbreviation(&text[..at]) {
            continue;
        }
        return Some(after);
    }
    None
}

fn ends_with_abbreviation(before_dot: &str) -> bool {
    let word = before_dot
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or_default();
    let mut letters = word.chars();
    if let (Some(only), None) = (letters.next(), letters.next())
        && only.is_uppercase()
    {
        // An initial, as in `J. Smith`.
        return true;
    }
    let lower = word.to_lowercase();
    ABBREVIATIONS.contains(&lower.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn first_sentence_handles_abbreviations_decimals_and_versions() {
        let cases = [
            ("Get the weather. Then more.", "Get the weather."),
            (
                "Uses e.g. JSON or i.e. text. Next.",
                "Uses e.g. JSON or i.e. text.",
            ),
            ("Costs 3.14 dollars. Next.", "Costs 3.14 dollars."),
            (
                "Supports API v1.2 and file.read calls! Next.",
                "Supports API v1.2 and file.read calls!",
            ),
            ("Compare A vs. B fast. Next.", "Compare A vs. B fast."),
            (
                "Written by J. Smith for you. Next.",
                "Written by J. Smith for you.",
            ),
            ("Is it raining? Ask it.", "Is it raining?"),
            ("Loading... Done.", "Loading..."),
            (
                "Reads files (see docs.) Then stops.",
                "Reads files (see docs.)",
            ),
            ("No terminator here", "No terminator here"),
            (
                "Sorts items. the next is lowercase. Done.",
                "Sorts items. the next is lowercase.",
            ),
            (
                "  Leading   spaces   collapse.  ",
                "Leading spaces collapse.",
            ),
            ("获取天气。然后更多。", "获取天气。"),
            ("", ""),
        ];
        for (text, expected) in cases {
            assert_eq!(first_sentence(text), expected, "for {text:?}");
        }
    }

    #[test]
    fn first_sentence_handles_newlines() {
        let cases = [
            (
                "Reads a file from\nthe disk. More.",
                "Reads a file from the disk.",
            ),
            ("Reads a file\nReturns text", "Reads a file"),
            ("Reads a file.\nReturns text.", "Reads a file."),
            ("Summary line\n\nLong body.", "Summary line"),
            ("Lists items:\n- one\n- two", "Lists items:"),
            ("Search the web\nArgs:\n  q: the query", "Search the web"),
            ("Do things\n1. first\n2. second", "Do things"),
            ("\n\n  Indented first line.\n", "Indented first line."),
        ];
        for (text, expected) in cases {
            assert_eq!(first_sentence(text), expected, "for {text:?}");
        }
    }

    #[test]
    fn namespace_is_everything_before_the_last_dot() {
        assert_eq!(namespace_of("file.read"), Some("file"));
        assert_eq!(namespace_of("a.b.c"), Some("a.b"));
        assert_eq!(namespace_of("read"), None);
        assert_eq!(namespace_of(".hidden"), None);
    }

    #[test]
    fn json_schema_parameters_are_flattened() {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name."},
                "options": {
                    "type": "object",
                    "properties": {"units": {"type": "string", "description": "metric or imperial"}}
                },
                "tags": {"type": "array", "items": {"type": "object", "properties": {"key": {}}}}
            }
        });
        let doc = ToolDocument::from_json_schema("weather.get", "Weather. More.", &schema);
        let names: Vec<(&str, &str)> = doc
            .parameters
            .iter()
            .map(|p| (p.name.as_str(), p.description.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("city", "City name."),
                ("options", ""),
                ("options.units", "metric or imperial"),
                ("tags", ""),
                ("tags.key", ""),
            ]
        );
        assert_eq!(doc.summary, "Weather.");
        assert_eq!(doc.namespace.as_deref(), Some("weather"));
        assert!(doc.tags.is_empty());
    }

    #[test]
    fn non_schema_parameters_yield_nothing() {
        for value in [
            json!(null),
            json!("x"),
            json!([1, 2]),
            json!({"properties": 3}),
        ] {
            assert!(
                ToolDocument::from_json_schema("t", "", &value)
                    .parameters
                    .is_empty()
            );
        }
    }
}
