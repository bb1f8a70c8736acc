//! Text helpers for tool names and descriptions, shared by the prompt core (tool metadata, level-1
//! listings) and the catalog search, so both read a name's namespace and a description's first
//! sentence the same way.

/// The part of a dotted name before its last `.`; `None` for undotted names or an empty part.
///
/// ```
/// assert_eq!(wink_schema::namespace_of("github.issues.create"), Some("github.issues"));
/// assert_eq!(wink_schema::namespace_of("search"), None);
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
/// use wink_schema::first_sentence;
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
}
