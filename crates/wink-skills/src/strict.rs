//! The constructs `strictyaml` refuses and `serde_yaml_ng` accepts: flow collections (`[a, b]`,
//! `{k: v}`), anchors (`&a`), aliases (`*a`) and tags (`!t`) where a node starts — a key or a
//! value, quoted keys included.
//!
//! This is a lexer for YAML's block context, not a parser: it follows where each line's nodes
//! start (after `- `, after a key's `:`), steps over quoted scalars (also when they span lines),
//! and skips the contents of block scalars (`|`, `>`) and the continuation lines of multi-line
//! plain scalars, so text inside a scalar is never mistaken for a construct. Anything else that
//! is not YAML is left to the parser that runs after it.

/// What the lexer is inside of when a line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// Nothing: the line starts new nodes.
    Nothing,
    /// A block scalar whose parent node is at this column: more indented lines (and blank
    /// ones) are its content.
    Block(usize),
    /// A plain scalar that may continue on lines indented more than this column.
    Plain(usize),
    /// A quoted scalar not closed yet (its quote character).
    Quoted(u8),
}

/// The first refused construct: its line (1-based, as in the file: the front matter starts on
/// the file's first line) and what it is.
pub(crate) fn strict_violation(raw: &str) -> Option<(usize, &'static str)> {
    let mut open = Open::Nothing;
    for (index, line) in raw.split('\n').enumerate() {
        let bytes = line.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        let blank = bytes[indent..]
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r'));
        let at = match open {
            Open::Quoted(quote) => match quoted_end(bytes, 0, quote) {
                Some(end) => end,
                None => continue,
            },
            Open::Block(parent) | Open::Plain(parent) if blank || indent > parent => continue,
            _ => {
                open = Open::Nothing;
                if blank || bytes[indent] == b'#' {
                    continue;
                }
                match line_nodes(bytes, indent) {
                    Ok(next) => {
                        open = next;
                        continue;
                    }
                    Err(what) => return Some((index + 1, what)),
                }
            }
        };
        // The rest of a line after a quoted scalar closed: a key's value may follow.
        match after_quoted(bytes, at, 0) {
            Ok(next) => open = next,
            Err(what) => return Some((index + 1, what)),
        }
    }
    None
}

/// Reads the nodes a line starts (at `at`, its first non-space byte): sequence entries, then a
/// key or a value. Returns what stays open at the line's end.
fn line_nodes(line: &[u8], mut at: usize) -> Result<Open, &'static str> {
    // `- ` entries (and `? ` explicit keys), possibly several on one line.
    let mut column = at;
    while let Some(&b'-' | &b'?') = line.get(at) {
        match line.get(at + 1) {
            None | Some(b' ' | b'\t' | b'\r') => {
                column = at;
                at = skip_spaces(line, at + 1);
                if at >= line.len() || line[at] == b'#' {
                    return Ok(Open::Nothing);
                }
            }
            _ => break,
        }
    }
    node(line, at, column)
}

/// A node starting at `at` whose parent is at `column`: a key (then its value) or a value.
fn node(line: &[u8], at: usize, column: usize) -> Result<Open, &'static str> {
    match line.get(at) {
        None | Some(b'#') => Ok(Open::Nothing),
        Some(b'[' | b'{') => Err("flow style is not allowed"),
        Some(b'&') => Err("anchors are not allowed"),
        Some(b'*') => Err("aliases are not allowed"),
        Some(b'!') => Err("tags are not allowed"),
        Some(b'|' | b'>') => Ok(Open::Block(column)),
        Some(&quote @ (b'"' | b'\'')) => match quoted_end(line, at + 1, quote) {
            Some(end) => after_quoted(line, end, at),
            None => Ok(Open::Quoted(quote)),
        },
        Some(_) => match key_end(line, at) {
            // `key: value`: the value's parent is the key.
            Some(colon) => value(line, colon + 1, at),
            None => Ok(Open::Plain(column)),
        },
    }
}

/// After a quoted scalar that started at `start` and ended before `at`: `: value` when it was a
/// key, else nothing more (a comment at most).
fn after_quoted(line: &[u8], at: usize, start: usize) -> Result<Open, &'static str> {
    let at = skip_spaces(line, at);
    match (line.get(at), line.get(at + 1)) {
        (Some(b':'), None | Some(b' ' | b'\t' | b'\r')) => value(line, at + 1, start),
        _ => Ok(Open::Nothing),
    }
}

/// The value after a key's `:` (at `at`); the key is at `column`.
fn value(line: &[u8], at: usize, column: usize) -> Result<Open, &'static str> {
    let at = skip_spaces(line, at);
    if at >= line.len() {
        return Ok(Open::Nothing);
    }
    match node(line, at, column)? {
        // A plain value continues on lines indented more than its key.
        Open::Plain(_) => Ok(Open::Plain(column)),
        other => Ok(other),
    }
}

/// Where the `:` of a plain key starting at `at` is (`: `, `:` at the end of the line), when the
/// plain scalar there is a key; a ` #` before it starts a comment.
fn key_end(line: &[u8], at: usize) -> Option<usize> {
    let mut i = at;
    while i < line.len() {
        match line[i] {
            b'#' if i > at && matches!(line[i - 1], b' ' | b'\t') => return None,
            b':' if matches!(line.get(i + 1), None | Some(b' ' | b'\t' | b'\r')) => {
                return Some(i);
            }
            _ => i += 1,
        }
    }
    None
}

/// The index just past the closing `quote` of a scalar whose text starts at `at`, when it closes
/// on this line: `''` is an escaped quote in single quotes, `\` escapes in double quotes.
fn quoted_end(line: &[u8], mut at: usize, quote: u8) -> Option<usize> {
    while at < line.len() {
        match line[at] {
            b'\\' if quote == b'"' => at += 2,
            b'\'' if quote == b'\'' && line.get(at + 1) == Some(&b'\'') => at += 2,
            b if b == quote => return Some(at + 1),
            _ => at += 1,
        }
    }
    None
}

fn skip_spaces(line: &[u8], mut at: usize) -> usize {
    while matches!(line.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(raw: &str) -> Option<(usize, &'static str)> {
        strict_violation(raw)
    }

    #[test]
    fn quoted_keys_do_not_hide_what_follows_them() {
        assert_eq!(
            refused("\nname: a\n\"allowed-tools\": [Read]\n"),
            Some((3, "flow style is not allowed"))
        );
        assert_eq!(
            refused("\n'x': &a b\n"),
            Some((2, "anchors are not allowed"))
        );
        assert_eq!(
            refused("\n\"x\": *a\n"),
            Some((2, "aliases are not allowed"))
        );
        assert_eq!(
            refused("\n\"x\" : !!str b\n"),
            Some((2, "tags are not allowed"))
        );
        assert_eq!(
            refused("\nmetadata:\n  \"k\": {a: b}\n"),
            Some((3, "flow style is not allowed"))
        );
    }

    #[test]
    fn keys_and_sequence_entries_are_node_starts_too() {
        assert_eq!(
            refused("\n&a name: x\n"),
            Some((2, "anchors are not allowed"))
        );
        assert_eq!(refused("\n!t name: x\n"), Some((2, "tags are not allowed")));
        assert_eq!(
            refused("\nlist:\n  - [a]\n"),
            Some((3, "flow style is not allowed"))
        );
        assert_eq!(
            refused("\nlist:\n  - - *x\n"),
            Some((3, "aliases are not allowed"))
        );
        assert_eq!(
            refused("\nlist:\n  - k: {a: 1}\n"),
            Some((3, "flow style is not allowed"))
        );
    }

    #[test]
    fn scalar_text_is_not_a_construct() {
        for raw in [
            "\ndescription: |\n  [not flow]\n  {nor this}\nname: a\n",
            "\n- a: |\n    [x]\n  b: c\n",
            "\ndescription: a plain value\n  [continued] &here *and !here\nname: a\n",
            "\ndescription: \"a quoted value\n  [continued on a line]\"\nname: a\n",
            "\ndescription: 'it''s [fine]'\n",
            "\ndescription: \"escaped \\\" [quote]\"\n",
            "\nname: a # [comment]\n",
            "\n# [a comment line]\nname: a\n",
            "\nurl: http://x/[y]\n",
            "\nkey:[not a key]\n",
            "\n\"k: [x]\": v\n",
        ] {
            assert_eq!(refused(raw), None, "{raw:?}");
        }
    }

    #[test]
    fn a_block_scalar_ends_where_its_parent_column_resumes() {
        assert_eq!(
            refused("\n- a: |\n    text\n  b: [x]\n"),
            Some((4, "flow style is not allowed"))
        );
        assert_eq!(
            refused("\nd: >\n  text\n\n  more\ne: &x y\n"),
            Some((6, "anchors are not allowed"))
        );
    }
}
