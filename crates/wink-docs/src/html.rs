//! HTML pages as Markdown: headings, paragraphs, lists, code blocks and tables kept, markup and
//! page furniture (scripts, styles, navigation, headers, footers, buttons) dropped. Only a page's
//! `<main>` is read when it has one (documentation generators put the page's text there), else its
//! `<body>`. A small converter for documentation pages, not a browser: malformed markup is read
//! as well as it can be, never refused.

/// Elements whose whole content is dropped.
const SKIPPED: [&str; 11] = [
    "script", "style", "nav", "header", "footer", "aside", "button", "svg", "noscript", "template",
    "head",
];

/// Elements that start and end a block (a blank line around them).
const BLOCKS: [&str; 14] = [
    "p",
    "div",
    "section",
    "article",
    "ul",
    "ol",
    "dl",
    "table",
    "blockquote",
    "figure",
    "main",
    "body",
    "details",
    "summary",
];

/// A converted page: its title (the `<title>`) and its text as Markdown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HtmlPage {
    /// The `<title>`, when the page has one.
    pub title: Option<String>,
    /// The page's text as Markdown.
    pub markdown: String,
}

/// Converts an HTML page to Markdown.
///
/// ```
/// let page = wink_docs::html_to_markdown(
///     "<html><head><title>Guide</title></head><body><nav>menu</nav><main>\
///      <h1>Install</h1><p>Run <code>rustup</code> &amp; wait.</p>\
///      <pre><code class=\"language-sh\">rustup update\n</code></pre>\
///      <ul><li>one</li><li>two</li></ul></main></body></html>",
/// );
/// assert_eq!(page.title.as_deref(), Some("Guide"));
/// assert_eq!(page.markdown, "# Install\n\nRun `rustup` & wait.\n\n```sh\nrustup update\n```\n\n- one\n- two");
/// ```
pub fn html_to_markdown(html: &str) -> HtmlPage {
    let title = element_text(html, "title").map(|t| collapse(&decode_entities(&t)));
    let content = element_inner(html, "main")
        .or_else(|| element_inner(html, "body"))
        .unwrap_or(html);
    let mut writer = Writer::default();
    let mut rest = content;
    while !rest.is_empty() {
        let Some(open) = rest.find('<') else {
            writer.text(rest);
            break;
        };
        writer.text(&rest[..open]);
        rest = &rest[open..];
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |end| &after[end + 3..]);
            continue;
        }
        let Some(close) = rest.find('>') else {
            writer.text(rest);
            break;
        };
        let tag = Tag::parse(&rest[1..close]);
        rest = &rest[close + 1..];
        let Some(tag) = tag else {
            continue;
        };
        if !tag.closing && SKIPPED.contains(&tag.name.as_str()) && !tag.self_closing {
            rest = skip_element(rest, &tag.name);
            continue;
        }
        writer.tag(&tag);
    }
    HtmlPage {
        title,
        markdown: writer.finish(),
    }
}

/// One parsed tag.
#[derive(Debug)]
struct Tag {
    name: String,
    closing: bool,
    self_closing: bool,
    attributes: String,
}

impl Tag {
    /// `inner` is what lies between `<` and `>`; `None` for declarations (`<!DOCTYPE …>`).
    fn parse(inner: &str) -> Option<Tag> {
        if inner.starts_with(['!', '?']) {
            return None;
        }
        let closing = inner.starts_with('/');
        let inner = inner.trim_start_matches('/');
        let self_closing = inner.ends_with('/');
        let end = inner
            .find(|c: char| c.is_whitespace() || c == '/')
            .unwrap_or(inner.len());
        let name = inner[..end].to_ascii_lowercase();
        if name.is_empty() {
            return None;
        }
        Some(Tag {
            name,
            closing,
            self_closing,
            attributes: inner[end..].to_owned(),
        })
    }

    /// The value of attribute `name` (quoted with `"` or `'`).
    fn attribute(&self, name: &str) -> Option<String> {
        let lower = self.attributes.to_ascii_lowercase();
        let at = lower.find(&format!("{name}="))? + name.len() + 1;
        let rest = &self.attributes[at..];
        let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let value = &rest[1..];
        value.find(quote).map(|end| value[..end].to_owned())
    }
}

/// `rest` after the end of the element `name` it starts inside (nested ones of the same name
/// counted).
fn skip_element<'a>(rest: &'a str, name: &str) -> &'a str {
    let lower = rest.to_ascii_lowercase();
    let open = format!("<{name}");
    let close = format!("</{name}");
    let mut depth = 1;
    let mut at = 0;
    while depth > 0 {
        let next_open = lower[at..].find(&open).map(|i| at + i);
        let next_close = lower[at..].find(&close).map(|i| at + i);
        match (next_open, next_close) {
            (Some(o), Some(c)) if o < c => {
                depth += 1;
                at = o + open.len();
            }
            (_, Some(c)) => {
                depth -= 1;
                at = c + close.len();
            }
            (_, None) => return "",
        }
    }
    match rest[at..].find('>') {
        Some(end) => &rest[at + end + 1..],
        None => "",
    }
}

/// The text between `<name …>` and `</name>` (the first such element).
fn element_inner<'a>(html: &'a str, name: &str) -> Option<&'a str> {
    let lower = html.to_ascii_lowercase();
    let mut search = 0;
    let start = loop {
        let at = search + lower[search..].find(&format!("<{name}"))?;
        let after = lower.as_bytes().get(at + name.len() + 1).copied();
        if matches!(after, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r')) {
            break at + lower[at..].find('>')? + 1;
        }
        search = at + 1;
    };
    let end = start
        + lower[start..]
            .rfind(&format!("</{name}>"))
            .unwrap_or(lower.len() - start);
    Some(&html[start..end])
}

/// The text of the first `<name>` element, tags removed.
fn element_text(html: &str, name: &str) -> Option<String> {
    let inner = element_inner(html, name)?;
    let mut text = String::new();
    let mut in_tag = false;
    for c in inner.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    Some(text)
}

/// Whitespace runs as one space, trimmed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Character references decoded: the five XML ones, `&nbsp;`, common typographic ones and
/// numeric ones; unknown ones are kept as written.
pub fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest[1..].find(';').map(|e| e + 1).filter(|e| *e <= 10);
        let decoded = end.and_then(|end| entity(&rest[1..end]).map(|c| (c, end)));
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        return char::from_u32(code);
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "mdash" => '—',
        "ndash" => '–',
        "hellip" => '…',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "copy" => '©',
        "times" => '×',
        "rarr" => '→',
        _ => return None,
    })
}

/// Builds the Markdown text.
#[derive(Default)]
struct Writer {
    out: String,
    /// Inside `<pre>`: text is kept as it is.
    pre: usize,
    /// Open lists: `true` for ordered ones, with their item count.
    lists: Vec<(bool, usize)>,
}

impl Writer {
    fn text(&mut self, raw: &str) {
        if raw.is_empty() {
            return;
        }
        let text = decode_entities(raw);
        if self.pre > 0 {
            self.out.push_str(&text);
            return;
        }
        let starts_with_space = text.starts_with(char::is_whitespace);
        let ends_with_space = text.ends_with(char::is_whitespace);
        let words = collapse(&text);
        if words.is_empty() {
            if starts_with_space && !self.at_line_start() && !self.out.ends_with(' ') {
                self.out.push(' ');
            }
            return;
        }
        if starts_with_space && !self.at_line_start() && !self.out.ends_with(' ') {
            self.out.push(' ');
        }
        self.out.push_str(&words);
        if ends_with_space {
            self.out.push(' ');
        }
    }

    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    fn newline(&mut self) {
        self.trim_spaces();
        if !self.at_line_start() {
            self.out.push('\n');
        }
    }

    fn blank_line(&mut self) {
        self.newline();
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }

    fn trim_spaces(&mut self) {
        while self.out.ends_with(' ') {
            self.out.pop();
        }
    }

    fn tag(&mut self, tag: &Tag) {
        let name = tag.name.as_str();
        match (name, tag.closing) {
            ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", false) => {
                self.blank_line();
                let level = usize::from(name.as_bytes()[1] - b'0');
                self.out.push_str(&"#".repeat(level));
                self.out.push(' ');
            }
            ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", true) => self.blank_line(),
            ("pre", false) => {
                self.blank_line();
                self.out.push_str("```\n");
                self.pre += 1;
            }
            ("pre", true) => {
                self.pre = self.pre.saturating_sub(1);
                if !self.out.ends_with('\n') {
                    self.out.push('\n');
                }
                self.out.push_str("```");
                self.blank_line();
            }
            ("code", false) if self.pre > 0 => {
                let language = tag
                    .attribute("class")
                    .and_then(|class| {
                        class
                            .split_whitespace()
                            .find_map(|c| c.strip_prefix("language-").map(str::to_owned))
                    })
                    .unwrap_or_default();
                if self.out.ends_with("```\n") && !language.is_empty() {
                    self.out.pop();
                    self.out.push_str(&language);
                    self.out.push('\n');
                }
            }
            ("code", _) if self.pre == 0 => self.out.push('`'),
            ("br", _) => {
                if self.pre > 0 {
                    self.out.push('\n');
                } else {
                    self.newline();
                }
            }
            ("hr", _) => {
                self.blank_line();
                self.out.push_str("---");
                self.blank_line();
            }
            ("ul" | "ol", false) => {
                if self.lists.is_empty() {
                    self.blank_line();
                } else {
                    self.newline();
                }
                self.lists.push((name == "ol", 0));
            }
            ("ul" | "ol", true) => {
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank_line();
                }
            }
            ("li", false) => {
                self.newline();
                let depth = self.lists.len().saturating_sub(1);
                self.out.push_str(&"  ".repeat(depth));
                match self.lists.last_mut() {
                    Some((true, count)) => {
                        *count += 1;
                        self.out.push_str(&format!("{count}. "));
                    }
                    _ => self.out.push_str("- "),
                }
            }
            ("li", true) | ("dt", _) | ("dd", _) => self.newline(),
            ("tr", false) => {
                self.newline();
                self.out.push('|');
            }
            ("td" | "th", true) => {
                self.trim_spaces();
                self.out.push_str(" |");
            }
            ("td" | "th", false) => self.out.push(' '),
            ("tr", true) => self.newline(),
            ("img", _) => {
                if let Some(alt) = tag.attribute("alt").filter(|a| !a.trim().is_empty()) {
                    self.text(&alt);
                }
            }
            (block, _) if BLOCKS.contains(&block) && self.lists.is_empty() => self.blank_line(),
            (block, _) if BLOCKS.contains(&block) => self.newline(),
            _ => {}
        }
    }

    fn finish(self) -> String {
        let mut lines: Vec<&str> = Vec::new();
        let mut blank = 0;
        for line in self.out.lines() {
            let line = line.trim_end();
            if line.is_empty() {
                blank += 1;
                if blank > 1 {
                    continue;
                }
            } else {
                blank = 0;
            }
            lines.push(line);
        }
        lines.join("\n").trim_matches('\n').to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_nested_lists_entities_and_skipped_furniture() {
        let page = html_to_markdown(
            "<body><header>Site</header><p>A&nbsp;&lt;b&gt; &#x41;&#66; &unknown; &amp</p>\
             <ol><li>first<ul><li>inner</li></ul></li><li>second</li></ol>\
             <table><tr><th>Key</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>\
             <script>var x = '<p>';</script><!-- note --><p>End<br>line</p></body>",
        );
        assert_eq!(page.title, None);
        assert_eq!(
            page.markdown,
            "A <b> AB &unknown; &amp\n\n1. first\n  - inner\n2. second\n\n| Key | Value |\n| a | 1 |\n\nEnd\nline"
        );
    }

    #[test]
    fn attributes_and_skipping_nested_elements() {
        let tag = Tag::parse("code class='language-rust' id=x").unwrap();
        assert_eq!(tag.attribute("class").as_deref(), Some("language-rust"));
        assert_eq!(tag.attribute("id"), None);
        assert_eq!(skip_element("<nav>a</nav>b</nav>c", "nav"), "c");
        assert_eq!(skip_element("unterminated", "nav"), "");
    }
}
