//! Documents as heading-delimited parts: Markdown (ATX `#` headings and `===`/`---` underlined
//! ones, outside code fences) and plain text (man-page style: headings are short lines in capitals
//! at the left margin, or underlined).

/// One part of a document: the text under one heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// 1 for the document's title, 2 for `##`, …
    pub level: usize,
    /// The heading's text, inline markup removed.
    pub title: String,
    /// The text up to the next heading, trimmed.
    pub body: String,
}

/// A document split at its headings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    /// The document's title: its first level-1 heading when nothing but blank lines precedes it.
    pub title: Option<String>,
    /// The text before the first heading (after the title).
    pub intro: String,
    /// The parts under the headings, in order.
    pub parts: Vec<Part>,
}

/// Collects lines into the intro or the current part.
#[derive(Default)]
struct Builder {
    parsed: Parsed,
    lines: Vec<String>,
    current: Option<(usize, String)>,
}

impl Builder {
    fn heading(&mut self, level: usize, title: String) {
        let body = self.lines.join("\n").trim_matches('\n').to_owned();
        let body = trim_blank_edges(&body);
        self.lines.clear();
        match self.current.take() {
            None if level == 1
                && self.parsed.title.is_none()
                && self.parsed.parts.is_empty()
                && body.is_empty() =>
            {
                self.parsed.title = Some(title);
                return;
            }
            None => self.parsed.intro = body,
            Some((level, title)) => self.parsed.parts.push(Part { level, title, body }),
        }
        self.current = Some((level, title));
    }

    fn finish(mut self) -> Parsed {
        let body = trim_blank_edges(&self.lines.join("\n"));
        match self.current.take() {
            None => self.parsed.intro = body,
            Some((level, title)) => self.parsed.parts.push(Part { level, title, body }),
        }
        self.parsed
    }
}

/// `text` without leading and trailing blank lines (indentation of the first line kept).
fn trim_blank_edges(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| !l.trim().is_empty());
    let end = lines.iter().rposition(|l| !l.trim().is_empty());
    match (start, end) {
        (Some(start), Some(end)) => lines[start..=end].join("\n"),
        _ => String::new(),
    }
}

/// Splits Markdown at its headings.
///
/// ```
/// let parsed = wink_docs::parse_markdown("# Guide\n\nIntro.\n\n## Install\n\nRun it.\n\n```\n# not a heading\n```\n");
/// assert_eq!(parsed.title.as_deref(), Some("Guide"));
/// assert_eq!(parsed.intro, "Intro.");
/// assert_eq!(parsed.parts[0].title, "Install");
/// assert_eq!(parsed.parts[0].body, "Run it.\n\n```\n# not a heading\n```");
/// ```
pub fn parse_markdown(text: &str) -> Parsed {
    let lines: Vec<&str> = text.lines().collect();
    let mut builder = Builder::default();
    let mut fence: Option<&str> = None;
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            }
            builder.lines.push(line.to_owned());
            index += 1;
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            builder.lines.push(line.to_owned());
            index += 1;
            continue;
        }
        if let Some((level, title)) = atx_heading(line) {
            builder.heading(level, title);
            index += 1;
            continue;
        }
        let underline = lines.get(index + 1).map(|l| l.trim());
        let previous_blank = index == 0 || lines[index - 1].trim().is_empty();
        if previous_blank
            && !line.trim().is_empty()
            && !line.starts_with([' ', '\t', '|', '-', '*', '>'])
            && let Some(level) = underline.and_then(setext_level)
        {
            builder.heading(level, clean_inline(line.trim()));
            index += 2;
            continue;
        }
        builder.lines.push(line.to_owned());
        index += 1;
    }
    builder.finish()
}

/// `# Title` (up to three spaces of indentation, one to six `#`, closing `#`s dropped).
fn atx_heading(line: &str) -> Option<(usize, String)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.len() - rest.trim_start_matches('#').len();
    if !(1..=6).contains(&level) {
        return None;
    }
    let text = &rest[level..];
    if !text.is_empty() && !text.starts_with([' ', '\t']) {
        return None;
    }
    let text = text.trim().trim_end_matches('#').trim_end();
    if text.is_empty() {
        return None;
    }
    Some((level, clean_inline(text)))
}

/// The level of a setext underline: `===` is 1, `---` is 2.
fn setext_level(line: &str) -> Option<usize> {
    if line.len() >= 3 && line.chars().all(|c| c == '=') {
        Some(1)
    } else if line.len() >= 3 && line.chars().all(|c| c == '-') {
        Some(2)
    } else {
        None
    }
}

/// Heading text without inline markup: `[text](url)` → `text`, emphasis and code marks dropped
/// (other brackets kept).
pub fn clean_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let after = &rest[c.len_utf8()..];
        match c {
            '`' | '*' => {}
            '_' if out.is_empty()
                || out.ends_with(' ')
                || after.is_empty()
                || after.starts_with(' ') => {}
            '[' => {
                // A link: its text, then skip `(url)`.
                if let Some(close) = after.find("](")
                    && let Some(end) = after[close + 2..].find(')')
                    && !after[..close].contains('[')
                {
                    out.push_str(&after[..close]);
                    rest = &after[close + 2 + end + 1..];
                    continue;
                }
                out.push('[');
            }
            other => out.push(other),
        }
        rest = after;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Splits plain text at its headings: short lines in capitals at the left margin (`NAME`,
/// `DESCRIPTION`, `EXIT STATUS` in man pages) are level 2, underlined lines level 1 (`===`) or 2
/// (`---`). A man page's header and footer lines (`LS(1)   User Commands   LS(1)`) are dropped.
///
/// ```
/// let parsed = wink_docs::parse_text("LS(1)      User Commands      LS(1)\n\nNAME\n       ls - list directory contents\n\nDESCRIPTION\n       List information about the FILEs.\n\nGNU coreutils 9.1     September 2022     LS(1)\n");
/// assert_eq!(parsed.parts.len(), 2);
/// assert_eq!(parsed.parts[0].title, "NAME");
/// assert_eq!(parsed.parts[0].body, "ls - list directory contents");
/// assert_eq!(parsed.parts[1].body, "List information about the FILEs.");
/// ```
pub fn parse_text(text: &str) -> Parsed {
    let lines: Vec<&str> = text.lines().filter(|line| !is_man_margin(line)).collect();
    let mut builder = Builder::default();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        let underline = lines.get(index + 1).map(|l| l.trim());
        if !line.trim().is_empty()
            && !line.starts_with([' ', '\t'])
            && let Some(level) = underline.and_then(setext_level)
        {
            builder.heading(level, line.trim().to_owned());
            index += 2;
            continue;
        }
        if is_caps_heading(line) {
            builder.heading(2, line.trim().to_owned());
            index += 1;
            continue;
        }
        builder.lines.push(line.to_owned());
        index += 1;
    }
    let mut parsed = builder.finish();
    parsed.intro = dedent(&parsed.intro);
    for part in &mut parsed.parts {
        part.body = dedent(&part.body);
    }
    parsed
}

/// A man page's header or footer: text ending in `NAME(SECTION)` (`LS(1)`), spread over the line.
fn is_man_margin(line: &str) -> bool {
    let trimmed = line.trim();
    let Some(last) = trimmed.split_whitespace().last() else {
        return false;
    };
    let manual_reference = |word: &str| {
        word.strip_suffix(')')
            .and_then(|w| w.split_once('('))
            .is_some_and(|(name, section)| {
                !name.is_empty()
                    && section.len() <= 4
                    && section.chars().next().is_some_and(|c| c.is_ascii_digit())
            })
    };
    manual_reference(last) && trimmed.contains("   ")
}

/// A heading line of plain text: at the left margin, at most 60 characters, letters in capitals
/// only (two or more), and only letters, digits, spaces and `-/&,:()` otherwise.
fn is_caps_heading(line: &str) -> bool {
    let trimmed = line.trim_end();
    if trimmed.is_empty() || line.starts_with([' ', '\t']) || trimmed.chars().count() > 60 {
        return false;
    }
    let letters = trimmed.chars().filter(|c| c.is_alphabetic()).count();
    letters >= 2
        && trimmed
            .chars()
            .all(|c| c.is_uppercase() || c.is_ascii_digit() || " -/&,:()".contains(c))
}

/// `text` with the indentation its non-blank lines share removed.
fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| l.get(indent..).unwrap_or_else(|| l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_headings_setext_and_fences() {
        let parsed = parse_markdown(
            "Intro line.\n\nTitle Two\n=========\n\nBody.\n\n### Deep `code` [link](http://x)\n\nMore.\n\n~~~\n## no\n~~~\n",
        );
        assert_eq!(parsed.title, None);
        assert_eq!(parsed.intro, "Intro line.");
        assert_eq!(
            parsed.parts,
            [
                Part {
                    level: 1,
                    title: "Title Two".into(),
                    body: "Body.".into()
                },
                Part {
                    level: 3,
                    title: "Deep code link".into(),
                    body: "More.\n\n~~~\n## no\n~~~".into()
                },
            ]
        );
        assert_eq!(atx_heading("#hashtag"), None);
        assert_eq!(atx_heading("    # indented code"), None);
        assert_eq!(
            clean_inline("**Bold** _it_ snake_case"),
            "Bold it snake_case"
        );
    }

    #[test]
    fn plain_text_headings_are_capital_lines_or_underlined() {
        let parsed = parse_text(
            "Overview\n--------\n  Some text.\n\nEXIT STATUS\n   0 on success.\n   Not A HEADING\n",
        );
        let titles: Vec<&str> = parsed.parts.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, ["Overview", "EXIT STATUS"]);
        assert_eq!(parsed.parts[1].body, "0 on success.\nNot A HEADING");
        assert!(!is_caps_heading("A"));
        assert!(is_man_margin(
            "GNU coreutils 9.1        September 2022        LS(1)"
        ));
        assert!(!is_man_margin("see ls(1)"));
    }
}
