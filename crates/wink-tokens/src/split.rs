//! `o200k_base`'s pre-tokenizer: the text is cut into pieces by `tiktoken`'s pattern, then each
//! piece is encoded alone.
//!
//! `tiktoken`'s pattern has one alternative the `regex` crate cannot run, `\s+(?!\S)` (a run of
//! whitespace not followed by a non-space). Without it the pattern finds the same pieces except
//! there, and [`Splitter::pieces`] corrects that case: a whitespace run without line breaks that
//! is followed by more text gives back its last character, which then starts the next piece
//! (as `\s+(?!\S)` leaves it). A run holding a line break is matched by the earlier
//! `\s*[\r\n]+` alternative in both patterns.

use regex::Regex;

/// `tiktoken`'s `o200k_base` pattern without the `\s+(?!\S)` alternative (see the module docs).
const PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"|\s*[\r\n]+",
    r"|\s+",
);

/// The compiled pre-tokenizer.
#[derive(Debug)]
pub(crate) struct Splitter {
    regex: Regex,
}

impl Splitter {
    pub(crate) fn new() -> Result<Self, String> {
        Regex::new(PATTERN)
            .map(|regex| Self { regex })
            .map_err(|e| e.to_string())
    }

    /// The pieces of `text`, in order; together they are `text`.
    pub(crate) fn pieces<'t>(&'t self, text: &'t str) -> impl Iterator<Item = &'t str> + 't {
        let mut at = 0;
        std::iter::from_fn(move || {
            if at >= text.len() {
                return None;
            }
            // Every character starts a match of some alternative; the fallback keeps the
            // pieces covering the text whatever happens.
            let mut end = match self.regex.find_at(text, at) {
                Some(m) if m.start() == at && m.end() > at => m.end(),
                _ => next_boundary(text, at),
            };
            let piece = &text[at..end];
            if end < text.len()
                && piece.chars().nth(1).is_some()
                && piece.chars().all(char::is_whitespace)
                && !piece.contains(['\r', '\n'])
                && let Some(last) = piece.chars().next_back()
            {
                end -= last.len_utf8();
            }
            let piece = &text[at..end];
            at = end;
            Some(piece)
        })
    }
}

/// The end of the character starting at `at`.
fn next_boundary(text: &str, at: usize) -> usize {
    text[at..]
        .chars()
        .next()
        .map_or(text.len(), |c| at + c.len_utf8())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<String> {
        let splitter = Splitter::new().unwrap();
        splitter.pieces(text).map(str::to_owned).collect()
    }

    #[test]
    fn whitespace_runs_leave_their_last_character_to_the_next_word() {
        assert_eq!(pieces("a   b"), ["a", "  ", " b"]);
        assert_eq!(pieces("a \tb"), ["a", " ", "\tb"]);
        assert_eq!(pieces("a  "), ["a", "  "]);
        assert_eq!(pieces("a\n  b"), ["a", "\n", " ", " b"]);
        assert_eq!(pieces("x  1"), ["x", " ", " ", "1"]);
        assert_eq!(pieces("It's 1234!"), ["It's", " ", "123", "4", "!"]);
    }
}
