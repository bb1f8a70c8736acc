//! The section tree of a documentation folder: one group per folder, one section per document,
//! one per heading (nested by level), large groups split into ranges; keys, titles and the
//! summaries made from titles and first sentences.

use std::path::{Path, PathBuf};

use crate::markdown::{Parsed, Part, parse_markdown, parse_text};
use crate::{DocsError, html_to_markdown};

/// One node of the tree: a folder, a document or a heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocNode {
    /// The section key (unique among its siblings).
    pub key: String,
    /// The title.
    pub title: String,
    /// The text of the node itself (a document's introduction, a heading's text).
    pub body: String,
    /// One line: a first sentence, or the titles of what it holds.
    pub summary: String,
    /// Children, in reading order.
    pub children: Vec<DocNode>,
}

/// What kind of text a file holds, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    /// `.md`, `.markdown`
    Markdown,
    /// `.html`, `.htm`
    Html,
    /// `.txt`, `.text`, man pages (`.1` … `.9`, `.man`) and files without an extension.
    Text,
}

impl DocKind {
    /// The kind of `path`, `None` for files that are not documents.
    pub fn of(path: &Path) -> Option<DocKind> {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("md" | "markdown") => Some(DocKind::Markdown),
            Some("html" | "htm") => Some(DocKind::Html),
            None
            | Some("txt" | "text" | "man" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9") => {
                Some(DocKind::Text)
            }
            Some(_) => None,
        }
    }
}

/// Longest key, in characters (keys repeat in every listing: short ones cost fewer tokens).
const KEY_CHARS: usize = 32;

/// Longest summary made from titles or a first sentence, in characters.
const SUMMARY_CHARS: usize = 200;

/// `text` as a key: lowercase ASCII letters, digits and `-`, at most [`KEY_CHARS`] characters cut
/// at a word, never empty, unique among `taken` (`-2`, `-3`, … added).
pub fn slug(text: &str, taken: &mut Vec<String>) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            word.push(c);
        } else if !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    let mut base = String::new();
    for word in words {
        let extra = usize::from(!base.is_empty()) + word.len();
        if !base.is_empty() && base.len() + extra > KEY_CHARS {
            break;
        }
        if !base.is_empty() {
            base.push('-');
        }
        base.push_str(&word);
    }
    base.truncate(KEY_CHARS);
    if base.is_empty() {
        base.push_str("section");
    }
    let mut key = base.clone();
    let mut n = 2;
    while taken.contains(&key) {
        key = format!("{base}-{n}");
        n += 1;
    }
    taken.push(key.clone());
    key
}

/// The first sentence of the prose of `text` (code blocks, tables, headings, images and HTML
/// skipped; list markers dropped): at least three words, ending at `.`, `!` or `?` followed by a
/// space, or the whole paragraph; cut to [`SUMMARY_CHARS`] at a word.
///
/// ```
/// assert_eq!(
///     wink_docs::first_sentence("```\ncode\n```\n\n| a | b |\n\n- Rust is *fast*. It is safe."),
///     Some("Rust is fast.".to_owned())
/// );
/// assert_eq!(wink_docs::first_sentence("Short."), None);
/// ```
pub fn first_sentence(text: &str) -> Option<String> {
    let mut fenced = false;
    for paragraph in text.split("\n\n") {
        let mut prose = Vec::new();
        for line in paragraph.lines() {
            let trimmed = line.trim();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fenced = !fenced;
                continue;
            }
            if fenced
                || trimmed.is_empty()
                || trimmed.starts_with(['|', '<', '#', '!', '>'])
                || trimmed.chars().all(|c| "-=*_".contains(c))
            {
                continue;
            }
            prose.push(crate::markdown::clean_inline(without_list_marker(trimmed)));
        }
        let flat = prose.join(" ");
        if flat.is_empty() {
            continue;
        }
        let sentence = sentence_end(&flat).map_or(flat.as_str(), |end| &flat[..end]);
        if sentence.split_whitespace().count() >= 3 {
            return Some(cut(sentence, SUMMARY_CHARS));
        }
    }
    None
}

/// `line` without a list marker (`- `, `* `, `+ `, `1. `, `1) `).
fn without_list_marker(line: &str) -> &str {
    for marker in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return rest.trim_start();
        }
    }
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match line[digits..]
        .strip_prefix(". ")
        .or_else(|| line[digits..].strip_prefix(") "))
    {
        Some(rest) if digits > 0 => rest.trim_start(),
        _ => line,
    }
}

/// The end (exclusive) of the first sentence of `text`.
fn sentence_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(1)).find_map(|i| {
        let ends = matches!(bytes[i], b'.' | b'!' | b'?') && bytes[i + 1] == b' ';
        // "e.g. ", "i.e. " and initials ("Edsger W. Dijkstra") do not end a sentence.
        let abbreviation = matches!(text.get(i.saturating_sub(3)..=i), Some("e.g." | "i.e."))
            || (i >= 2 && bytes[i - 1].is_ascii_uppercase() && bytes[i - 2] == b' ');
        (ends && !abbreviation).then_some(i + 1)
    })
}

/// `text` cut at a word to at most `max` characters, with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    let head = head.rsplit_once(' ').map_or(head, |(words, _)| words);
    format!("{head}…")
}

/// A summary listing `titles`: `Contents: a; b; c.`, cut to [`SUMMARY_CHARS`].
pub fn contents_summary(titles: &[&str]) -> String {
    let joined = titles.join("; ");
    let end = if joined.ends_with(['.', '!', '?']) {
        ""
    } else {
        "."
    };
    let listed = format!("Contents: {joined}{end}");
    cut(&listed, SUMMARY_CHARS)
}

/// A document file as a node: title from its first heading (else its `<title>`, else the file
/// name), its introduction as body, its headings as nested children.
pub fn document(path: &Path, text: &str, taken: &mut Vec<String>) -> DocNode {
    let kind = DocKind::of(path).unwrap_or(DocKind::Text);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (parsed, html_title) = match kind {
        DocKind::Markdown => (parse_markdown(text), None),
        DocKind::Html => {
            let page = html_to_markdown(text);
            (parse_markdown(&page.markdown), page.title)
        }
        DocKind::Text => (parse_text(text), None),
    };
    let Parsed {
        title,
        mut intro,
        mut parts,
    } = parsed;
    let mut title = title.or(html_title);
    // A man page says what it is in its NAME section: that is its title and introduction.
    if kind == DocKind::Text
        && intro.trim().is_empty()
        && parts
            .first()
            .is_some_and(|p| p.title.eq_ignore_ascii_case("name"))
    {
        intro = parts.remove(0).body;
        title = title.or_else(|| Some(cut(&crate::markdown::clean_inline(&intro), 80)));
    }
    // A page that starts with a heading of its top level (no `#` title) is titled by it.
    let top = parts.iter().map(|p| p.level).min();
    if title.is_none()
        && intro.trim().is_empty()
        && parts.first().is_some_and(|p| Some(p.level) == top)
    {
        let first = parts.remove(0);
        title = Some(first.title);
        intro = first.body;
    }
    let title = title.unwrap_or_else(|| stem.clone());
    let mut node = DocNode {
        key: slug(&stem, taken),
        title,
        body: intro,
        summary: String::new(),
        children: nest(parts),
    };
    summarize(&mut node);
    node
}

/// Headings nested by level: a heading holds the deeper ones that follow it.
fn nest(parts: Vec<Part>) -> Vec<DocNode> {
    let mut roots: Vec<(usize, DocNode)> = Vec::new();
    let mut stack: Vec<(usize, DocNode)> = Vec::new();
    let mut taken_at: Vec<Vec<String>> = vec![Vec::new()];
    for part in parts {
        while stack.last().is_some_and(|(level, _)| *level >= part.level) {
            close(&mut stack, &mut roots);
            taken_at.pop();
        }
        // `taken_at` holds the keys taken at each open level: one more than `stack`.
        let depth = stack.len();
        let key = slug(&part.title, &mut taken_at[depth]);
        taken_at.push(Vec::new());
        stack.push((
            part.level,
            DocNode {
                key,
                title: part.title,
                body: part.body,
                summary: String::new(),
                children: Vec::new(),
            },
        ));
    }
    while !stack.is_empty() {
        close(&mut stack, &mut roots);
    }
    roots.into_iter().map(|(_, node)| node).collect()
}

/// Pops the innermost open heading into its parent (or the roots).
fn close(stack: &mut Vec<(usize, DocNode)>, roots: &mut Vec<(usize, DocNode)>) {
    if let Some(done) = stack.pop() {
        match stack.last_mut() {
            Some((_, parent)) => parent.children.push(done.1),
            None => roots.push(done),
        }
    }
}

/// Fills the summaries of `node` and its descendants: a group lists the titles of what it holds
/// (what a reader choosing where to look needs), a leaf gives the first sentence of its text,
/// else its title.
pub fn summarize(node: &mut DocNode) {
    for child in &mut node.children {
        summarize(child);
    }
    summarize_top(node);
}

/// [`summarize`] for a node whose children are summarized already.
fn summarize_top(node: &mut DocNode) {
    node.summary = if node.children.is_empty() {
        first_sentence(&node.body)
            .unwrap_or_else(|| format!("{}.", node.title.trim_end_matches('.')))
    } else {
        let titles: Vec<&str> = node.children.iter().map(|c| c.title.as_str()).collect();
        contents_summary(&titles)
    };
}

/// Splits the children of every node holding more than `max` into consecutive groups of at most
/// `max` (titled by their first and last titles), so no listing is longer than `max` lines.
pub fn limit_fan_out(node: &mut DocNode, max: usize) {
    for child in &mut node.children {
        limit_fan_out(child, max);
    }
    let max = max.max(2);
    if node.children.len() <= max {
        return;
    }
    let children = std::mem::take(&mut node.children);
    let groups = children.len().div_ceil(max);
    let size = children.len().div_ceil(groups);
    let mut taken = Vec::new();
    let mut rest = children.into_iter().peekable();
    while rest.peek().is_some() {
        let chunk: Vec<DocNode> = rest.by_ref().take(size).collect();
        let first = chunk.first().map(|c| c.title.clone()).unwrap_or_default();
        let last = chunk.last().map(|c| c.title.clone()).unwrap_or_default();
        let title = format!("{first} … {last}");
        let titles: Vec<&str> = chunk.iter().map(|c| c.title.as_str()).collect();
        let summary = contents_summary(&titles);
        node.children.push(DocNode {
            key: slug(&format!("{first} {last}"), &mut taken),
            title,
            body: String::new(),
            summary,
            children: chunk,
        });
    }
    limit_fan_out(node, max);
}

/// A folder as a node: its documents and sub-folders (sorted by name, hidden ones skipped). A
/// document named `index` or `readme` gives the folder its title, introduction and summary, and
/// its headings become the folder's first children. Files that are not documents are listed in
/// `skipped`.
pub fn folder(
    dir: &Path,
    taken: &mut Vec<String>,
    skipped: &mut Vec<PathBuf>,
) -> Result<Option<DocNode>, DocsError> {
    let read_error = |source| DocsError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(read_error)?
        .map(|entry| entry.map(|e| e.path()).map_err(read_error))
        .collect::<Result<_, _>>()?;
    entries.sort();
    let mut children_taken = Vec::new();
    let mut index: Option<DocNode> = None;
    let mut children = Vec::new();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            if let Some(node) = folder(&path, &mut children_taken, skipped)? {
                children.push(node);
            }
            continue;
        }
        if DocKind::of(&path).is_none() {
            skipped.push(path);
            continue;
        }
        let bytes = std::fs::read(&path).map_err(|source| DocsError::Read {
            path: path.clone(),
            source,
        })?;
        let text = String::from_utf8_lossy(&bytes);
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if index.is_none() && matches!(stem.as_str(), "index" | "readme" | "_index") {
            index = Some(document(&path, &text, &mut Vec::new()));
            continue;
        }
        children.push(document(&path, &text, &mut children_taken));
    }
    if children.is_empty() && index.is_none() {
        return Ok(None);
    }
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "docs".to_owned());
    let key = slug(&name, taken);
    let mut node = match index {
        Some(mut index) => {
            let mut own = std::mem::take(&mut index.children);
            own.append(&mut children);
            DocNode {
                key,
                title: index.title,
                body: index.body,
                summary: String::new(),
                children: own,
            }
        }
        None => DocNode {
            key,
            title: name,
            body: String::new(),
            summary: String::new(),
            children,
        },
    };
    summarize_top(&mut node);
    Ok(Some(node))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_with_no_text_and_no_heading_is_titled_by_its_file() {
        for (name, text) in [
            ("empty.html", "<main><div><p>".repeat(3000)),
            ("empty.md", String::new()),
            ("blank.txt", "\n \n".to_owned()),
        ] {
            let node = document(Path::new(name), &text, &mut Vec::new());
            let stem = name.split('.').next().unwrap_or_default();
            assert_eq!((node.key.as_str(), node.title.as_str()), (stem, stem));
            assert!(node.children.is_empty(), "{name}");
        }
    }

    #[test]
    fn slugs_are_short_unique_keys() {
        let mut taken = Vec::new();
        assert_eq!(slug("Getting Started!", &mut taken), "getting-started");
        assert_eq!(slug("Getting started", &mut taken), "getting-started-2");
        assert_eq!(slug("¿¡", &mut taken), "section");
        assert_eq!(
            slug(
                "Understanding Ownership and the Borrow Checker in Depth",
                &mut taken
            ),
            "understanding-ownership-and-the"
        );
        assert_eq!(slug(&"x".repeat(40), &mut taken), "x".repeat(32));
    }

    #[test]
    fn headings_nest_by_level_and_summaries_fall_back_to_titles() {
        let parts = vec![
            Part {
                level: 2,
                title: "A".into(),
                body: "The first part is here.".into(),
            },
            Part {
                level: 3,
                title: "A1".into(),
                body: String::new(),
            },
            Part {
                level: 4,
                title: "A1x".into(),
                body: "x".into(),
            },
            Part {
                level: 2,
                title: "B".into(),
                body: String::new(),
            },
            Part {
                level: 3,
                title: "A1".into(),
                body: String::new(),
            },
        ];
        let mut root = DocNode {
            key: "doc".into(),
            title: "Doc".into(),
            body: String::new(),
            summary: String::new(),
            children: nest(parts),
        };
        summarize(&mut root);
        assert_eq!(root.children.len(), 2);
        assert_eq!(root.children[0].children[0].children[0].key, "a1x");
        assert_eq!(root.children[1].children[0].key, "a1");
        assert_eq!(root.summary, "Contents: A; B.");
        assert_eq!(root.children[0].summary, "Contents: A1.");
        assert_eq!(root.children[0].children[0].summary, "Contents: A1x.");
        assert_eq!(root.children[1].children[0].summary, "A1.");
    }

    #[test]
    fn a_large_group_is_split_into_ranges() {
        let leaf = |i: usize| DocNode {
            key: format!("p{i}"),
            title: format!("Page {i:02}"),
            body: String::new(),
            summary: String::new(),
            children: Vec::new(),
        };
        let mut root = DocNode {
            key: "root".into(),
            title: "Root".into(),
            body: String::new(),
            summary: String::new(),
            children: (1..=50).map(leaf).collect(),
        };
        limit_fan_out(&mut root, 20);
        let sizes: Vec<usize> = root.children.iter().map(|c| c.children.len()).collect();
        assert_eq!(sizes, [17, 17, 16]);
        assert_eq!(root.children[0].title, "Page 01 … Page 17");
        assert_eq!(root.children[0].key, "page-01-page-17");
        assert!(
            root.children[2]
                .summary
                .starts_with("Contents: Page 35; Page 36;")
        );
    }

    #[test]
    fn sentences_skip_code_and_abbreviations() {
        assert_eq!(
            first_sentence("Use a tool, e.g. cargo. Then run it."),
            Some("Use a tool, e.g. cargo.".to_owned())
        );
        assert_eq!(
            first_sentence("In his essay, Edsger W. Dijkstra said so. More."),
            Some("In his essay, Edsger W. Dijkstra said so.".to_owned())
        );
        assert_eq!(first_sentence("```\ncode\n```\n\n| t |"), None);
        assert_eq!(
            first_sentence("-n COUNT\n    Rotate by COUNT bits. More."),
            Some("-n COUNT Rotate by COUNT bits.".to_owned())
        );
        assert_eq!(
            first_sentence("1. One two three’s.  x"),
            Some("One two three’s.".to_owned())
        );
        assert_eq!(cut("one two three", 8), "one two…");
    }
}
