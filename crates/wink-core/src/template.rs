//! Python `string.Template`-compatible templates (`${name}`, `$name`, `$$`), as WINK's
//! `MarkdownSection` uses them: the template text is dedented and stripped before
//! substitution, and the result is stripped after.

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::error::PromptError;
use crate::key::python_strip;

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Placeholder(String),
    /// A `$` that starts no valid placeholder; substitution fails here (Python's `ValueError`).
    Invalid {
        line: usize,
        column: usize,
    },
}

/// A parsed template.
///
/// ```
/// use wink_core::Template;
/// let t = Template::parse("Hello ${name}, you owe $$5.");
/// let out = t.substitute(|name| (name == "name").then(|| "Ada".into())).unwrap();
/// assert_eq!(out, "Hello Ada, you owe $5.");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    source: String,
    segments: Vec<Segment>,
}

impl Template {
    /// Parse `source` exactly as given (no dedent or strip).
    pub fn parse(source: &str) -> Self {
        Self {
            source: source.to_owned(),
            segments: parse_segments(source),
        }
    }

    /// Parse a section template the WINK way: dedent, then strip.
    pub fn parse_section(source: &str) -> Self {
        Self::parse(python_strip(&dedent(source)))
    }

    /// The text that was parsed.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The names of every `$name` / `${name}` placeholder, sorted.
    pub fn placeholder_names(&self) -> BTreeSet<&str> {
        self.segments
            .iter()
            .filter_map(|s| match s {
                Segment::Placeholder(name) => Some(name.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The first invalid `$` in the template, as Python reports it: `(line, column)`.
    pub fn first_invalid_placeholder(&self) -> Option<(usize, usize)> {
        self.segments.iter().find_map(|s| match s {
            Segment::Invalid { line, column } => Some((*line, *column)),
            _ => None,
        })
    }

    /// Substitute placeholders from `lookup`; the result is not stripped.
    ///
    /// Errors: a placeholder `lookup` has no value for → `Missing placeholder during render.`
    /// (placeholder attached); an invalid `$` → `Invalid placeholder in string: line L, col C`.
    pub fn substitute<'v, F>(&self, mut lookup: F) -> Result<String, PromptError>
    where
        F: FnMut(&str) -> Option<Cow<'v, str>>,
    {
        let mut out = String::with_capacity(self.source.len());
        for segment in &self.segments {
            match segment {
                Segment::Literal(text) => out.push_str(text),
                Segment::Placeholder(name) => match lookup(name) {
                    Some(value) => out.push_str(&value),
                    None => {
                        return Err(PromptError::render("Missing placeholder during render.")
                            .with_placeholder(name.clone()));
                    }
                },
                Segment::Invalid { line, column } => {
                    return Err(PromptError::render(format!(
                        "Invalid placeholder in string: line {line}, col {column}"
                    )));
                }
            }
        }
        Ok(out)
    }

    /// Substitute and strip the result (what section rendering does).
    pub fn render<'v, F>(&self, lookup: F) -> Result<String, PromptError>
    where
        F: FnMut(&str) -> Option<Cow<'v, str>>,
    {
        let out = self.substitute(lookup)?;
        Ok(python_strip(&out).to_owned())
    }
}

fn is_ident_start(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphabetic()
}

fn is_ident_continue(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphanumeric()
}

fn parse_segments(source: &str) -> Vec<Segment> {
    let bytes = source.as_bytes();
    let mut segments = Vec::new();
    let mut literal = String::new();
    let mut literal_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        literal.push_str(&source[literal_start..i]);
        let after = i + 1;
        if bytes.get(after) == Some(&b'$') {
            literal.push('$');
            i = after + 1;
        } else if bytes.get(after).copied().is_some_and(is_ident_start) {
            let mut end = after + 1;
            while bytes.get(end).copied().is_some_and(is_ident_continue) {
                end += 1;
            }
            push_literal(&mut segments, &mut literal);
            segments.push(Segment::Placeholder(source[after..end].to_owned()));
            i = end;
        } else if bytes.get(after) == Some(&b'{')
            && bytes.get(after + 1).copied().is_some_and(is_ident_start)
            && {
                let mut end = after + 2;
                while bytes.get(end).copied().is_some_and(is_ident_continue) {
                    end += 1;
                }
                bytes.get(end) == Some(&b'}')
            }
        {
            let mut end = after + 2;
            while bytes.get(end).copied().is_some_and(is_ident_continue) {
                end += 1;
            }
            push_literal(&mut segments, &mut literal);
            segments.push(Segment::Placeholder(source[after + 1..end].to_owned()));
            i = end + 1;
        } else {
            push_literal(&mut segments, &mut literal);
            let (line, column) = python_invalid_position(source, after);
            segments.push(Segment::Invalid { line, column });
            i = after;
        }
        literal_start = i;
    }
    literal.push_str(&source[literal_start..]);
    push_literal(&mut segments, &mut literal);
    segments
}

fn push_literal(segments: &mut Vec<Segment>, literal: &mut String) {
    if !literal.is_empty() {
        segments.push(Segment::Literal(std::mem::take(literal)));
    }
}

/// Python's `Template._invalid` position: `i` is the offset just after the `$`; columns are
/// counted in characters from the start of the line, as CPython does.
fn python_invalid_position(source: &str, i: usize) -> (usize, usize) {
    let before = &source[..i];
    let lines: Vec<&str> = split_lines_keepends(before);
    if lines.is_empty() {
        return (1, 1);
    }
    let previous: usize = lines[..lines.len() - 1]
        .iter()
        .map(|l| l.chars().count())
        .sum();
    let column = before.chars().count() - previous;
    (lines.len(), column)
}

/// `str.splitlines(keepends=True)` for the common line boundaries (`\n`, `\r\n`, `\r`).
fn split_lines_keepends(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&text[start..=i]);
                start = i + 1;
            }
            b'\r' => {
                let end = if bytes.get(i + 1) == Some(&b'\n') {
                    i + 1
                } else {
                    i
                };
                lines.push(&text[start..=end]);
                i = end;
                start = end + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < bytes.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Python's `textwrap.dedent`: whitespace-only lines become empty, then the longest common
/// leading run of spaces and tabs of the other lines is removed.
pub fn dedent(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let cleaned: Vec<&str> = lines
        .iter()
        .map(|line| {
            if !line.is_empty() && line.bytes().all(|b| b == b' ' || b == b'\t') {
                ""
            } else {
                line
            }
        })
        .collect();
    let mut margin: Option<&str> = None;
    for line in &cleaned {
        let indent_len = line
            .bytes()
            .take_while(|b| *b == b' ' || *b == b'\t')
            .count();
        if indent_len == line.len() {
            continue; // empty line: no content character
        }
        let indent = &line[..indent_len];
        margin = Some(match margin {
            None => indent,
            Some(m) if indent.starts_with(m) => m,
            Some(m) if m.starts_with(indent) => indent,
            Some(m) => {
                let common = m
                    .bytes()
                    .zip(indent.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &m[..common]
            }
        });
    }
    let margin = margin.unwrap_or("");
    let mut out = String::with_capacity(text.len());
    for (index, line) in cleaned.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        out.push_str(line.strip_prefix(margin).unwrap_or(line));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(t: &str, pairs: &[(&str, &str)]) -> Result<String, PromptError> {
        Template::parse(t).substitute(|name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| Cow::Owned((*v).to_owned()))
        })
    }

    #[test]
    fn substitutes_named_braced_and_escaped() {
        assert_eq!(
            render("$a and ${b}c $$d", &[("a", "1"), ("b", "2")]).unwrap(),
            "1 and 2c $d"
        );
        assert_eq!(render("${A_1}x", &[("A_1", "y")]).unwrap(), "yx");
    }

    #[test]
    fn missing_placeholder_is_reported() {
        let err = render("Hi ${who}", &[]).unwrap_err();
        assert_eq!(err.message(), "Missing placeholder during render.");
        assert_eq!(err.placeholder(), Some("who"));
    }

    #[test]
    fn invalid_placeholders_match_python_positions() {
        assert_eq!(
            render("cost $5", &[]).unwrap_err().message(),
            "Invalid placeholder in string: line 1, col 6"
        );
        assert_eq!(
            render("a\nb ${1}", &[]).unwrap_err().message(),
            "Invalid placeholder in string: line 2, col 3"
        );
        assert_eq!(
            render("$", &[]).unwrap_err().message(),
            "Invalid placeholder in string: line 1, col 1"
        );
        assert_eq!(
            render("${x", &[("x", "1")]).unwrap_err().message(),
            "Invalid placeholder in string: line 1, col 1"
        );
    }

    #[test]
    fn placeholder_names_skip_escapes() {
        let t = Template::parse("$$a ${b} $c_d $b");
        assert_eq!(
            t.placeholder_names().into_iter().collect::<Vec<_>>(),
            ["b", "c_d"]
        );
    }

    #[test]
    fn dedent_matches_textwrap() {
        assert_eq!(
            dedent("\n    Greeting:\n    ${greeting}\n  "),
            "\nGreeting:\n${greeting}\n"
        );
        assert_eq!(dedent("  a\n    b\n  c"), "a\n  b\nc");
        assert_eq!(dedent("\ta\n  b"), "\ta\n  b");
        assert_eq!(dedent("  a\n\n  b"), "a\n\nb");
        assert_eq!(dedent("    a\n  \n    b"), "a\n\nb");
        let t =
            Template::parse_section("\n            Greeting:\n            ${greeting}\n        ");
        assert_eq!(t.source(), "Greeting:\n${greeting}");
    }

    #[test]
    fn render_strips_result() {
        let t = Template::parse_section("  ${x}  ");
        assert_eq!(t.render(|_| Some(Cow::Borrowed("  hi \n"))).unwrap(), "hi");
    }
}
