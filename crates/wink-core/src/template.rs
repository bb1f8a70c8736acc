//! Python `string.Template`-compatible templates (`${name}`, `$name`, `$$`), as WINK's
//! `MarkdownSection` uses them: the template text is dedented and stripped before
//! substitution, and the result is stripped after.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::ops::Range;

use crate::error::PromptError;
use crate::key::python_strip;
use wink_schema::python::is_whitespace;

/// One piece of a parsed template: literal text and placeholder names are ranges of the
/// template's source (no allocation per piece; issue 22).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// Text copied as is (`$$` ends a literal with its first `$`, the next starts after it).
    Literal(Range<usize>),
    /// The name of a `$name` / `${name}` placeholder.
    Placeholder(Range<usize>),
    /// A `$` that starts no valid placeholder; substitution fails here (Python's `ValueError`).
    Invalid { line: usize, column: usize },
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
        Self::parse(python_strip(&dedent_cow(source)))
    }

    /// [`Template::parse_section`], keeping `source` itself when dedenting and stripping leave it
    /// as it is (issue 22: no copy of the usual template).
    pub(crate) fn parse_section_owned(source: String) -> Self {
        let unchanged = match dedent_cow(&source) {
            Cow::Borrowed(text) => python_strip(text).len() == text.len(),
            Cow::Owned(_) => false,
        };
        if !unchanged {
            return Self::parse_section(&source);
        }
        let segments = parse_segments(&source);
        Self { source, segments }
    }

    /// The text that was parsed.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The names of every `$name` / `${name}` placeholder, sorted.
    pub fn placeholder_names(&self) -> BTreeSet<&str> {
        self.placeholders().collect()
    }

    /// The `$name` / `${name}` placeholders in template order, repeats included.
    pub(crate) fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Placeholder(name) => self.source.get(name.clone()),
            _ => None,
        })
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
    pub fn substitute<'v, F>(&self, lookup: F) -> Result<String, PromptError>
    where
        F: FnMut(&str) -> Option<Cow<'v, str>>,
    {
        let mut out = String::with_capacity(self.source.len());
        self.substitute_into(&mut out, lookup)?;
        Ok(out)
    }

    /// [`Template::substitute`], appended to `out` (left partly written on an error).
    fn substitute_into<'v, F>(&self, out: &mut String, mut lookup: F) -> Result<(), PromptError>
    where
        F: FnMut(&str) -> Option<Cow<'v, str>>,
    {
        for segment in &self.segments {
            match segment {
                Segment::Literal(text) => out.push_str(self.source.get(text.clone()).unwrap_or("")),
                Segment::Placeholder(name) => {
                    let name = self.source.get(name.clone()).unwrap_or("");
                    match lookup(name) {
                        Some(value) => out.push_str(&value),
                        None => {
                            return Err(PromptError::render("Missing placeholder during render.")
                                .with_placeholder(name));
                        }
                    }
                }
                Segment::Invalid { line, column } => {
                    return Err(PromptError::render(format!(
                        "Invalid placeholder in string: line {line}, col {column}"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Substitute and strip the result (what section rendering does).
    pub fn render<'v, F>(&self, lookup: F) -> Result<String, PromptError>
    where
        F: FnMut(&str) -> Option<Cow<'v, str>>,
    {
        let mut out = String::with_capacity(self.source.len());
        self.render_into(&mut out, lookup)?;
        Ok(out)
    }

    /// [`Template::render`], appended to `out` (left partly written on an error).
    pub(crate) fn render_into<'v, F>(&self, out: &mut String, lookup: F) -> Result<(), PromptError>
    where
        F: FnMut(&str) -> Option<Cow<'v, str>>,
    {
        let start = out.len();
        self.substitute_into(out, lookup)?;
        // Stripped in place (Python's `str.strip()`, as `python_strip`), not copied.
        let kept = out[start..].trim_end_matches(is_whitespace).len();
        out.truncate(start + kept);
        let leading = kept - out[start..].trim_start_matches(is_whitespace).len();
        out.drain(start..start + leading);
        Ok(())
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
    // Room for two placeholders and the text around them (most templates) without growing:
    // counting the `$` first costs more than the occasional growth.
    let mut segments = Vec::with_capacity(6);
    let mut literal_start = 0;
    let mut i = 0;
    // Each `$` in turn.
    while let Some(found) = next_dollar(bytes, i) {
        i = found;
        let after = i + 1;
        if bytes.get(after) == Some(&b'$') {
            // `$$`: the literal goes on to the first `$`; the next one starts after the second.
            push_literal(&mut segments, literal_start..after);
            i = after + 1;
        } else if bytes.get(after).copied().is_some_and(is_ident_start) {
            let end = ident_end(bytes, after + 1);
            push_literal(&mut segments, literal_start..i);
            segments.push(Segment::Placeholder(after..end));
            i = end;
        } else if bytes.get(after) == Some(&b'{')
            && bytes.get(after + 1).copied().is_some_and(is_ident_start)
            && bytes.get(ident_end(bytes, after + 2)) == Some(&b'}')
        {
            let end = ident_end(bytes, after + 2);
            push_literal(&mut segments, literal_start..i);
            segments.push(Segment::Placeholder(after + 1..end));
            i = end + 1;
        } else {
            push_literal(&mut segments, literal_start..i);
            let (line, column) = python_invalid_position(source, after);
            segments.push(Segment::Invalid { line, column });
            i = after;
        }
        literal_start = i;
    }
    push_literal(&mut segments, literal_start..bytes.len());
    segments
}

/// The index of the first `$` of `bytes` at or after `from`, looked for eight bytes at a time
/// (issue 22: a template is mostly text between a few `$`; `str::find` cost twice as much on
/// such short stretches).
fn next_dollar(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    const DOLLARS: u64 = ONES * b'$' as u64;
    let rest = bytes.get(from..)?;
    let mut skipped = 0;
    for word in rest.chunks_exact(8) {
        let mut buffer = [0u8; 8];
        buffer.copy_from_slice(word);
        // A zero byte of `x` is a `$` of the word; this test finds whether there is one.
        let x = u64::from_le_bytes(buffer) ^ DOLLARS;
        if x.wrapping_sub(ONES) & !x & HIGH_BITS != 0 {
            break;
        }
        skipped += 8;
    }
    let tail = rest.get(skipped..)?;
    tail.iter()
        .position(|&b| b == b'$')
        .map(|at| from + skipped + at)
}

/// The end of the identifier characters of `bytes` from `start`.
fn ident_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while bytes.get(end).copied().is_some_and(is_ident_continue) {
        end += 1;
    }
    end
}

fn push_literal(segments: &mut Vec<Segment>, literal: Range<usize>) {
    if !literal.is_empty() {
        segments.push(Segment::Literal(literal));
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
    dedent_cow(text).into_owned()
}

/// [`dedent`], borrowing `text` when it has nothing to remove (most templates: issue 22).
pub(crate) fn dedent_cow(text: &str) -> Cow<'_, str> {
    let mut margin: Option<&str> = None;
    let mut blank_with_spaces = false;
    for line in text.split('\n') {
        let indent_len = line
            .bytes()
            .take_while(|b| *b == b' ' || *b == b'\t')
            .count();
        if indent_len == line.len() {
            // empty or whitespace-only (made empty): no content character
            blank_with_spaces |= indent_len > 0;
            continue;
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
    if margin.is_empty() && !blank_with_spaces {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (index, line) in text.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        if !line.bytes().all(|b| b == b' ' || b == b'\t') {
            out.push_str(line.strip_prefix(margin).unwrap_or(line));
        }
    }
    Cow::Owned(out)
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
    fn every_dollar_is_found_wherever_it_falls_in_a_word() {
        for length in 0..40 {
            for at in 0..length {
                let mut text = vec![b'a'; length];
                text[at] = b'$';
                assert_eq!(next_dollar(&text, 0), Some(at));
                assert_eq!(next_dollar(&text, at), Some(at));
                assert_eq!(next_dollar(&text, at + 1), None);
            }
            assert_eq!(next_dollar(&vec![b'#'; length], 0), None);
        }
        assert_eq!(next_dollar(b"$$", 3), None);
        assert_eq!(next_dollar("é$".as_bytes(), 0), Some(2));
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
