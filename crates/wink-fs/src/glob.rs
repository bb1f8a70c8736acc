//! Shell-style glob patterns over workspace-relative paths.
//!
//! Syntax:
//!
//! | pattern | matches |
//! | --- | --- |
//! | `*` | any run of characters within one path segment (dot files included) |
//! | `?` | one character other than `/` |
//! | `[abc]`, `[a-z]`, `[!a]` / `[^a]` | one character from (or not from) the set |
//! | `**` as a whole segment | zero or more segments |
//! | `{a,b}` | either alternative (may nest) |
//! | `\x` | the character `x` literally |
//!
//! A leading `./` or `/` and repeated slashes are ignored.

use crate::FsError;

/// Most alternatives a pattern may expand to through `{...}`.
const MAX_ALTERNATIVES: usize = 256;

/// A compiled glob pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobPattern {
    source: String,
    alternatives: Vec<Vec<Segment>>,
    has_separator: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    AnyDepth,
    Tokens(Vec<Token>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(char),
    AnyRun,
    AnyChar,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl GlobPattern {
    /// Compile a pattern.
    ///
    /// ```
    /// use wink_fs::GlobPattern;
    /// let rust = GlobPattern::new("**/*.{rs,toml}").unwrap();
    /// assert!(rust.matches("src/lib.rs"));
    /// assert!(rust.matches("Cargo.toml"));
    /// assert!(!rust.matches("README.md"));
    /// ```
    ///
    /// # Errors
    /// [`FsError::InvalidGlob`] for an unclosed `[` or `{`, a trailing `\`,
    /// or too many `{}` alternatives.
    pub fn new(pattern: &str) -> Result<Self, FsError> {
        let invalid = |reason: &str| FsError::InvalidGlob {
            pattern: pattern.to_owned(),
            reason: reason.to_owned(),
        };
        let expanded = expand_braces(pattern).map_err(|reason| invalid(&reason))?;
        let mut alternatives = Vec::with_capacity(expanded.len());
        for alternative in &expanded {
            alternatives.push(compile_alternative(alternative).map_err(|reason| invalid(&reason))?);
        }
        let has_separator = alternatives
            .iter()
            .any(|segments| segments.len() > 1 || segments.first() == Some(&Segment::AnyDepth));
        Ok(Self {
            source: pattern.to_owned(),
            alternatives,
            has_separator,
        })
    }

    /// The pattern as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// True when the pattern spans directories (contains `/` or `**`). Patterns
    /// without a separator can be matched against file names alone, the way
    /// `grep`'s `glob` filter uses them.
    #[must_use]
    pub fn has_separator(&self) -> bool {
        self.has_separator
    }

    /// Does the normalised relative `path` match?
    #[must_use]
    pub fn matches(&self, path: &str) -> bool {
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        self.alternatives
            .iter()
            .any(|pattern| match_segments(pattern, &segments))
    }

    /// For `grep`'s file filter: patterns with a separator match the path
    /// relative to the search base, others match the file name at any depth.
    #[must_use]
    pub fn matches_file(&self, relative_path: &str) -> bool {
        if self.has_separator {
            self.matches(relative_path)
        } else {
            self.matches(crate::path::file_name(relative_path))
        }
    }
}

fn expand_braces(pattern: &str) -> Result<Vec<String>, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut open = None;
    let mut depth = 0usize;
    let mut commas = Vec::new();
    let mut index = 0;
    while index < chars.len() {
        match chars[index] {
            '\\' => index += 1,
            '[' => {
                // Skip character classes: braces inside them are literal.
                let mut probe = index + 1;
                if probe < chars.len() && matches!(chars[probe], '!' | '^') {
                    probe += 1;
                }
                if probe < chars.len() && chars[probe] == ']' {
                    probe += 1;
                }
                while probe < chars.len() && chars[probe] != ']' {
                    probe += 1;
                }
                if probe < chars.len() {
                    index = probe;
                }
            }
            '{' => {
                if depth == 0 {
                    open = Some(index);
                    commas.clear();
                }
                depth += 1;
            }
            ',' if depth == 1 => commas.push(index),
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    let start = open.unwrap_or(0);
                    let prefix: String = chars[..start].iter().collect();
                    let suffix: String = chars[index + 1..].iter().collect();
                    let mut bounds = vec![start];
                    bounds.extend(commas.iter().copied());
                    bounds.push(index);
                    let mut out = Vec::new();
                    for pair in bounds.windows(2) {
                        let choice: String = chars[pair[0] + 1..pair[1]].iter().collect();
                        for expanded in expand_braces(&format!("{prefix}{choice}{suffix}"))? {
                            out.push(expanded);
                            if out.len() > MAX_ALTERNATIVES {
                                return Err(format!(
                                    "expands to more than {MAX_ALTERNATIVES} alternatives"
                                ));
                            }
                        }
                    }
                    return Ok(out);
                }
            }
            _ => {}
        }
        index += 1;
    }
    if depth > 0 {
        return Err("unclosed '{'".to_owned());
    }
    Ok(vec![pattern.to_owned()])
}

fn compile_alternative(pattern: &str) -> Result<Vec<Segment>, String> {
    let trimmed = pattern.strip_prefix("./").unwrap_or(pattern);
    let mut segments = Vec::new();
    for raw in trimmed.split('/').filter(|s| !s.is_empty() && *s != ".") {
        if raw == "**" {
            if segments.last() != Some(&Segment::AnyDepth) {
                segments.push(Segment::AnyDepth);
            }
        } else {
            segments.push(Segment::Tokens(compile_segment(raw)?));
        }
    }
    Ok(segments)
}

fn compile_segment(segment: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = segment.chars().collect();
    let mut tokens = Vec::new();
    let mut index = 0;
    while index < chars.len() {
        match chars[index] {
            '*' => {
                if tokens.last() != Some(&Token::AnyRun) {
                    tokens.push(Token::AnyRun);
                }
            }
            '?' => tokens.push(Token::AnyChar),
            '\\' => {
                index += 1;
                let escaped = chars
                    .get(index)
                    .ok_or_else(|| "trailing '\\' escapes nothing".to_owned())?;
                tokens.push(Token::Literal(*escaped));
            }
            '[' => {
                let (token, next) = compile_class(&chars, index)?;
                tokens.push(token);
                index = next;
                continue;
            }
            other => tokens.push(Token::Literal(other)),
        }
        index += 1;
    }
    Ok(tokens)
}

/// Parse a class starting at `chars[start] == '['`; return it and the index after `]`.
fn compile_class(chars: &[char], start: usize) -> Result<(Token, usize), String> {
    let mut index = start + 1;
    let negated = matches!(chars.get(index), Some('!' | '^'));
    if negated {
        index += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let Some(&current) = chars.get(index) else {
            return Err("unclosed '['".to_owned());
        };
        if current == ']' && !first {
            return Ok((Token::Class { negated, ranges }, index + 1));
        }
        first = false;
        let low = if current == '\\' {
            index += 1;
            *chars.get(index).ok_or_else(|| "unclosed '['".to_owned())?
        } else {
            current
        };
        if chars.get(index + 1) == Some(&'-') && chars.get(index + 2).is_some_and(|c| *c != ']') {
            let high = chars[index + 2];
            if high < low {
                return Err(format!("range '{low}-{high}' is reversed"));
            }
            ranges.push((low, high));
            index += 3;
        } else {
            ranges.push((low, low));
            index += 1;
        }
    }
}

fn match_segments(pattern: &[Segment], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((Segment::AnyDepth, rest)) => {
            (0..=path.len()).any(|skip| match_segments(rest, &path[skip..]))
        }
        Some((Segment::Tokens(tokens), rest)) => match path.split_first() {
            Some((first, others)) => match_tokens(tokens, first) && match_segments(rest, others),
            None => false,
        },
    }
}

/// Wildcard match of one segment, backtracking only to the most recent `*`.
fn match_tokens(tokens: &[Token], text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let (mut t, mut c) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while c < chars.len() {
        match tokens.get(t) {
            Some(Token::AnyRun) => {
                star = Some((t, c));
                t += 1;
                continue;
            }
            Some(token) if token_matches(token, chars[c]) => {
                t += 1;
                c += 1;
                continue;
            }
            _ => {}
        }
        match star {
            Some((star_t, star_c)) => {
                t = star_t + 1;
                c = star_c + 1;
                star = Some((star_t, star_c + 1));
            }
            None => return false,
        }
    }
    tokens[t.min(tokens.len())..]
        .iter()
        .all(|token| *token == Token::AnyRun)
}

fn token_matches(token: &Token, ch: char) -> bool {
    match token {
        Token::Literal(expected) => *expected == ch,
        Token::AnyChar => true,
        Token::AnyRun => false,
        Token::Class { negated, ranges } => {
            ranges
                .iter()
                .any(|(low, high)| (*low..=*high).contains(&ch))
                != *negated
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn matches(pattern: &str, path: &str) -> bool {
        GlobPattern::new(pattern).unwrap().matches(path)
    }

    #[test]
    fn star_stays_within_a_segment() {
        assert!(matches("*.rs", "lib.rs"));
        assert!(matches("*.rs", ".hidden.rs"));
        assert!(!matches("*.rs", "src/lib.rs"));
        assert!(matches("src/*.rs", "src/lib.rs"));
        assert!(matches("*", "a"));
        assert!(!matches("*", "a/b"));
        assert!(matches("a*b*c", "aXbYc"));
        assert!(!matches("a*b*c", "aXbY"));
    }

    #[test]
    fn double_star_spans_zero_or_more_segments() {
        assert!(matches("**/*.rs", "lib.rs"));
        assert!(matches("**/*.rs", "a/b/c/lib.rs"));
        assert!(matches("src/**/mod.rs", "src/mod.rs"));
        assert!(matches("src/**/mod.rs", "src/a/b/mod.rs"));
        assert!(!matches("src/**/mod.rs", "lib/a/mod.rs"));
        assert!(matches("**", "a/b/c"));
        assert!(matches("a/**", "a/b/c"));
        assert!(matches("a/**/**/c", "a/c"));
        assert!(matches("a**b", "aXXb"));
        assert!(!matches("a**b", "aX/Xb"));
    }

    #[test]
    fn question_marks_classes_and_escapes() {
        assert!(matches("?.md", "a.md"));
        assert!(!matches("?.md", "ab.md"));
        assert!(matches("[abc].txt", "b.txt"));
        assert!(!matches("[abc].txt", "d.txt"));
        assert!(matches("[a-c][!0-9]", "bx"));
        assert!(!matches("[a-c][^0-9]", "b1"));
        assert!(matches("[]]", "]"));
        assert!(matches("\\*", "*"));
        assert!(!matches("\\*", "a"));
        assert!(matches("[{]", "{"));
    }

    #[test]
    fn braces_expand_and_nest() {
        assert!(matches("*.{rs,md}", "a.md"));
        assert!(matches("{src,tests}/**/*.{r{s,lib}}", "tests/x/y.rlib"));
        assert!(!matches("*.{rs,md}", "a.txt"));
        assert!(matches("{,a}b", "b"));
    }

    #[test]
    fn leading_dot_slash_and_slashes_are_ignored() {
        assert!(matches("./src//*.rs", "src/lib.rs"));
        assert!(matches("/src/*.rs", "src/lib.rs"));
    }

    #[test]
    fn invalid_patterns_are_reported() {
        assert_eq!(
            GlobPattern::new("[ab").unwrap_err().to_string(),
            "Invalid glob pattern '[ab': unclosed '['"
        );
        assert_eq!(
            GlobPattern::new("{a,b").unwrap_err().to_string(),
            "Invalid glob pattern '{a,b': unclosed '{'"
        );
        assert_eq!(
            GlobPattern::new("a\\").unwrap_err().to_string(),
            "Invalid glob pattern 'a\\': trailing '\\' escapes nothing"
        );
        assert_eq!(
            GlobPattern::new("[z-a]").unwrap_err().to_string(),
            "Invalid glob pattern '[z-a]': range 'z-a' is reversed"
        );
        assert!(GlobPattern::new("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}").is_err());
    }

    #[test]
    fn file_name_matching_for_patterns_without_separator() {
        let pattern = GlobPattern::new("*.py").unwrap();
        assert!(!pattern.has_separator());
        assert!(pattern.matches_file("a/b/c.py"));
        let nested = GlobPattern::new("a/*.py").unwrap();
        assert!(nested.has_separator());
        assert!(!nested.matches_file("b/a/c.py"));
        assert!(GlobPattern::new("**/x").unwrap().has_separator());
    }

    proptest! {
        #[test]
        fn literal_patterns_match_only_themselves(path in "[a-z]{1,4}(/[a-z]{1,4}){0,3}", other in "[a-z]{1,4}") {
            prop_assert!(matches(&path, &path));
            prop_assert_eq!(matches(&path, &other), path == other);
        }

        #[test]
        fn double_star_suffix_matches_every_path_ending_in_name(prefix in "([a-z]{1,3}/){0,4}", name in "[a-z]{1,5}") {
            let path = format!("{prefix}{name}.rs");
            prop_assert!(matches("**/*.rs", &path));
            let by_name = format!("**/{name}.rs");
            prop_assert!(matches(&by_name, &path));
        }
    }
}
