//! Property tests of the template engine (the "fuzz" suite: any input, no panic; exact
//! semantics for the inputs that matter).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::borrow::Cow;

use proptest::prelude::*;
use wink_core::{MarkdownSection, Section, Template, dedent};

#[derive(Debug, Clone)]
enum Piece {
    Literal(String),
    Placeholder(String, bool),
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        "[^$]{0,12}".prop_map(Piece::Literal),
        ("[a-zA-Z_][a-zA-Z0-9_]{0,8}", any::<bool>())
            .prop_map(|(n, braced)| Piece::Placeholder(n, braced)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parsing_and_substituting_anything_never_panics(text in any::<String>()) {
        let t = Template::parse(&text);
        let _ = t.substitute(|_| Some(Cow::Borrowed("x")));
        let _ = Template::parse_section(&text).render(|_| None);
        let _ = t.placeholder_names();
    }

    #[test]
    fn escaped_dollars_round_trip(text in any::<String>()) {
        let escaped = text.replace('$', "$$");
        let t = Template::parse(&escaped);
        prop_assert!(t.placeholder_names().is_empty());
        prop_assert_eq!(t.substitute(|_| None).unwrap(), text);
    }

    #[test]
    fn substitution_is_concatenation(pieces in proptest::collection::vec(piece(), 0..8)) {
        let mut source = String::new();
        let mut expected = String::new();
        for (i, p) in pieces.iter().enumerate() {
            match p {
                Piece::Literal(s) => { source.push_str(s); expected.push_str(s); }
                Piece::Placeholder(name, braced) => {
                    // An unbraced placeholder followed by an identifier character would absorb it.
                    let next_text = pieces[i + 1..].iter().find_map(|p| match p {
                        Piece::Literal(s) if s.is_empty() => None,
                        Piece::Literal(s) => Some(s.as_str()),
                        Piece::Placeholder(..) => Some("$"),
                    });
                    let next_is_ident = next_text.is_some_and(|s| s.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'));
                    if *braced || next_is_ident { source.push_str(&format!("${{{name}}}")); } else { source.push_str(&format!("${name}")); }
                    expected.push('<'); expected.push_str(name); expected.push('>');
                }
            }
        }
        let out = Template::parse(&source).substitute(|n| Some(Cow::Owned(format!("<{n}>")))).unwrap();
        prop_assert_eq!(out, expected);
    }

    #[test]
    fn dedent_is_idempotent_and_keeps_non_blank_text(lines in proptest::collection::vec("[ \t]{0,4}[a-z$ ]{0,8}", 0..6)) {
        let text = lines.join("\n");
        let once = dedent(&text);
        prop_assert_eq!(dedent(&once), once.clone());
        let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        prop_assert_eq!(squash(&once), squash(&text));
    }

    #[test]
    fn dedent_is_textwraps(lines in proptest::collection::vec("[ \t]{0,4}[a-z$ \t]{0,6}", 0..6)) {
        let text = lines.join("\n");
        prop_assert_eq!(dedent(&text), reference_dedent(&text));
    }

    #[test]
    fn the_unknown_placeholder_is_the_first_of_the_sorted_names(
        body in "([a-c ]|\\$[a-d]|\\$\\{[a-d]\\}|\\$\\$){0,8}",
        summary in proptest::option::of("([a-c ]|\\$[a-d]|\\$\\$){0,6}"),
        known in proptest::collection::vec("[a-d]", 0..4),
    ) {
        let mut section = MarkdownSection::new("T", "t", &body);
        if let Some(summary) = &summary {
            section = section.summary(summary);
        }
        let is_known = |name: &str| known.iter().any(|k| k == name);
        let expected = section
            .placeholder_names()
            .into_iter()
            .chain(section.summary_placeholder_names())
            .find(|name| !is_known(name));
        prop_assert_eq!(section.unknown_placeholder(&is_known), expected);
    }
}

/// `textwrap.dedent` as first written (lines collected, then joined): the reference for the
/// version that borrows the text when there is nothing to remove.
fn reference_dedent(text: &str) -> String {
    let blank = |l: &str| !l.is_empty() && l.bytes().all(|b| b == b' ' || b == b'\t');
    let cleaned: Vec<&str> = text
        .split('\n')
        .map(|l| if blank(l) { "" } else { l })
        .collect();
    let mut margin: Option<String> = None;
    for line in cleaned.iter().filter(|l| !l.is_empty()) {
        let indent: String = line
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        margin = Some(match margin {
            None => indent,
            Some(m) => m
                .chars()
                .zip(indent.chars())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    let margin = margin.unwrap_or_default();
    cleaned
        .iter()
        .map(|l| l.strip_prefix(margin.as_str()).unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

// The fuzz target (docs/fuzzing.md): its case count is `PROPTEST_CASES` (default 256).
proptest! {
    #[test]
    fn fuzz_template_parser(text in "(\\$|\\{|\\}|[a-z_]|[^a-z]){0,64}", wide in any::<String>()) {
        let started = std::time::Instant::now();
        for input in [&text, &wide] {
            let t = Template::parse(input);
            let _ = t.substitute(|_| Some(Cow::Borrowed("x")));
            let _ = Template::parse_section(input).render(|_| None);
            let _ = Template::parse_section(input).first_invalid_placeholder();
            let _ = dedent(input);
        }
        prop_assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }
}
