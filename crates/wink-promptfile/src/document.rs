//! Parsing a prompt file's text into a JSON value, strictly: a key given twice in one object
//! (JSON, YAML; TOML's parser already refuses it) is an error naming its key path, and YAML
//! nested deeper than [`MAX_NESTING`] is refused before the parser sees it.

use serde_json::Value;
use wink_schema::{DUPLICATE_KEY as DUPLICATE, StrictValue};

use crate::{FileFormat, PromptFileError, display_key_path};

/// The deepest nesting of `[` / `{` accepted in a YAML prompt file. Deeper documents are refused
/// before parsing (the YAML parser's time grows with the square of the depth).
pub const MAX_NESTING: usize = 1_000;

/// Parses `text` in `format` (see the module docs).
pub(crate) fn parse_document(
    text: &str,
    format: FileFormat,
    origin: &str,
) -> Result<Value, PromptFileError> {
    let syntax = |line: usize, column: usize, message: String| PromptFileError::Syntax {
        path: origin.to_owned(),
        line: line.max(1),
        column: column.max(1),
        message,
    };
    let duplicate =
        |path: String, message: String, at: Option<(usize, usize)>| PromptFileError::Invalid {
            path: origin.to_owned(),
            key_path: display_key_path(&path),
            message: match at {
                Some((line, column)) => format!("{message} (line {line}, column {column})"),
                None => message,
            },
        };
    match format {
        FileFormat::Json => {
            // Fast path without key-path tracking; on any error the text is read again with it,
            // for the error's key path (issue 22).
            let mut fast = serde_json::Deserializer::from_str(text);
            if let Ok(value) = <StrictValue as serde::Deserialize>::deserialize(&mut fast)
                && fast.end().is_ok()
            {
                return Ok(value.0);
            }
            let mut deserializer = serde_json::Deserializer::from_str(text);
            let value = serde_path_to_error::deserialize::<_, StrictValue>(&mut deserializer)
                .map_err(|e| {
                    let path = e.path().to_string();
                    let inner = e.into_inner();
                    let message = strip_position(&inner.to_string());
                    if message.starts_with(DUPLICATE) {
                        duplicate(path, message, Some((inner.line(), inner.column())))
                    } else {
                        syntax(inner.line(), inner.column(), inner.to_string())
                    }
                })?;
            deserializer
                .end()
                .map_err(|e| syntax(e.line(), e.column(), e.to_string()))?;
            Ok(value.0)
        }
        FileFormat::Toml => toml::from_str::<Value>(text).map_err(|e| {
            let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
            syntax(line, column, e.message().trim().to_owned())
        }),
        FileFormat::Yaml => {
            if let Some((line, column)) = too_deep(text, MAX_NESTING) {
                return Err(syntax(
                    line,
                    column,
                    format!("nesting deeper than {MAX_NESTING} levels"),
                ));
            }
            let deserializer = serde_yaml_ng::Deserializer::from_str(text);
            serde_path_to_error::deserialize::<_, StrictValue>(deserializer)
                .map(|v| v.0)
                .map_err(|e| {
                    let path = e.path().to_string();
                    let inner = e.into_inner();
                    let at = inner.location().map(|l| (l.line(), l.column()));
                    let message = inner.to_string();
                    // The parser locates the mapping, not the repeated key: the key path says more.
                    if let Some(start) = message.find(DUPLICATE) {
                        duplicate(path, strip_position(&message[start..]), None)
                    } else {
                        let (line, column) = at.unwrap_or((1, 1));
                        syntax(line, column, message)
                    }
                })
        }
    }
}

/// A parser message without its trailing ` at line L column C`.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

/// 1-based (line, column) of a character of `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Where YAML flow brackets (`[`, `{`) first nest deeper than `max`, outside quotes and comments.
/// A rough, linear scan: it may count brackets inside block scalars, which only matters for
/// templates holding more than `max` unclosed brackets.
fn too_deep(text: &str, max: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut comment = false;
    let mut escaped = false;
    let mut previous = '\n';
    for (offset, c) in text.char_indices() {
        if c == '\n' {
            comment = false;
        } else if comment {
        } else if let Some(q) = quote {
            if c == q && !escaped {
                quote = None;
            }
        } else {
            match c {
                '#' if previous.is_whitespace() => comment = true,
                '"' | '\'' if depth > 0 || previous.is_whitespace() || previous == ':' => {
                    quote = Some(c);
                }
                '[' | '{' => {
                    depth += 1;
                    if depth > max {
                        return Some(line_col(text, offset));
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        escaped = quote == Some('"') && c == '\\' && !escaped;
        previous = c;
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn nesting_is_measured_outside_quotes_and_comments() {
        assert_eq!(too_deep("a: [[[1]]]", 3), None);
        assert_eq!(too_deep("a: [[[[1]]]]", 3), Some((1, 7)));
        assert_eq!(too_deep("a: '[[[['\nb: \"{{{{\" # [[[[", 3), None);
        assert_eq!(too_deep("a: \"\\\"[[[[\"", 3), None);
        assert_eq!(too_deep("x:\n  - [\n   [\n    [[1]]]]", 3), Some((4, 6)));
    }
}
