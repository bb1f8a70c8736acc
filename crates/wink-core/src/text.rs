//! Small text helpers that reproduce Python's string semantics.

/// Python's `str.splitlines()` (without keepends): splits on `\n`, `\r\n`, `\r`, `\v`, `\f`,
/// `\x1c`, `\x1d`, `\x1e`, `\x85`, `\u2028` and `\u2029`.
pub fn python_splitlines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\u{0b}'
                | '\u{0c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if is_break {
            lines.push(&text[start..i]);
            let mut next = i + c.len_utf8();
            if c == '\r'
                && let Some((j, '\n')) = chars.peek().copied()
            {
                chars.next();
                next = j + 1;
            }
            start = next;
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_python() {
        assert_eq!(python_splitlines(""), Vec::<&str>::new());
        assert_eq!(python_splitlines("a\nb"), ["a", "b"]);
        assert_eq!(python_splitlines("a\r\nb\n"), ["a", "b"]);
        assert_eq!(python_splitlines("a\n\nb"), ["a", "", "b"]);
    }
}
