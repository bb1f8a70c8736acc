//! Splitting a task into the steps it asks for.
//!
//! People hand an agent a task ("find X, chart it and save a PDF"), not a tool description. The
//! splitter cuts the text into steps, each asking for one capability:
//!
//! 1. **Structure.** Lines, list items (`1.`, `2)`, `-`, `*`, `•` at the start of a line, or
//!    `1)` inside a line), semicolons and sentence ends (`.`, `?`, `!` before a space, except
//!    after abbreviations such as `e.g.` or `St.`) separate parts. A line or list item is a step
//!    of its own.
//! 2. **Clauses.** Inside a sentence, a new step starts at `then`, `after that`, `afterwards`,
//!    `finally`, and at `and`, a comma or a colon when what follows starts with an action verb
//!    (`find`, `convert`, `save`, …) or a question word (`what`, `how`, `is`, …), after fillers
//!    such as `please`, `can you`, `I want to`.
//! 3. **Context.** A sentence or clause that asks for nothing (no action verb or question word at
//!    its start, nothing wanted: "I'm in Berlin next weekend", "if it's nice") is not a step: it
//!    joins the step before it, or the next one when it comes first or ends with a colon
//!    ("Here's a song: what key is it in").
//!
//! A text with one step (most single-capability queries) comes back whole. At most
//! [`MAX_STEPS`] steps are returned; the rest join the last one.
//!
//! ```
//! use wink_search::split_task;
//! let steps: Vec<String> = split_task("Look up Apple's stock price, then chart the last month and save it as a PDF.")
//!     .into_iter().map(|step| step.text).collect();
//! assert_eq!(steps, ["Look up Apple's stock price", "chart the last month", "save it as a PDF"]);
//! assert_eq!(split_task("What's the weather in Paris?").len(), 1);
//! ```

use serde::Serialize;

/// Most steps [`split_task`] returns.
pub const MAX_STEPS: usize = 8;

/// One step of a task: the part of the text that asks for one capability.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The step's words, without leading connectors (`and`, `then`) or trailing punctuation.
    pub text: String,
    /// Byte range of the step in the task text (context clauses joined to it included).
    pub start: usize,
    /// End of the byte range.
    pub end: usize,
}

/// Verbs that start a request ("find", "save", …), in their base (imperative) form.
const ACTION_VERBS: &[&str] = &[
    "add",
    "analyse",
    "analyze",
    "append",
    "approve",
    "archive",
    "attach",
    "book",
    "break",
    "build",
    "buy",
    "calculate",
    "cancel",
    "change",
    "chart",
    "check",
    "choose",
    "clean",
    "click",
    "collect",
    "combine",
    "commit",
    "compare",
    "compute",
    "confirm",
    "connect",
    "convert",
    "copy",
    "count",
    "crawl",
    "create",
    "delete",
    "deploy",
    "describe",
    "design",
    "dig",
    "download",
    "draft",
    "draw",
    "drop",
    "edit",
    "email",
    "estimate",
    "explain",
    "explore",
    "export",
    "extract",
    "fetch",
    "fill",
    "find",
    "fix",
    "format",
    "gather",
    "generate",
    "get",
    "give",
    "go",
    "grab",
    "import",
    "insert",
    "install",
    "jot",
    "keep",
    "kill",
    "link",
    "list",
    "load",
    "locate",
    "lock",
    "log",
    "look",
    "make",
    "map",
    "mark",
    "merge",
    "monitor",
    "move",
    "navigate",
    "note",
    "notify",
    "open",
    "order",
    "organise",
    "organize",
    "pick",
    "plan",
    "play",
    "plot",
    "post",
    "predict",
    "prepare",
    "print",
    "protect",
    "publish",
    "pull",
    "put",
    "rank",
    "read",
    "recommend",
    "record",
    "remember",
    "remind",
    "remove",
    "rename",
    "render",
    "replace",
    "reply",
    "research",
    "reserve",
    "reset",
    "resize",
    "resolve",
    "restart",
    "retrieve",
    "review",
    "roll",
    "run",
    "save",
    "scan",
    "schedule",
    "scrape",
    "search",
    "see",
    "select",
    "send",
    "set",
    "share",
    "show",
    "sign",
    "sketch",
    "sort",
    "spin",
    "split",
    "stage",
    "start",
    "stop",
    "store",
    "submit",
    "suggest",
    "summarise",
    "summarize",
    "switch",
    "tag",
    "take",
    "tell",
    "test",
    "think",
    "tidy",
    "track",
    "transcribe",
    "translate",
    "turn",
    "undo",
    "update",
    "upload",
    "validate",
    "verify",
    "visualise",
    "visualize",
    "watch",
    "write",
];

/// Question words that start a question wherever they stand.
const WH_WORDS: &[&str] = &[
    "how", "what", "when", "where", "which", "who", "whom", "whose", "why",
];

/// Auxiliaries: they start a question at the start of a sentence only.
const AUXILIARIES: &[&str] = &[
    "are", "can", "could", "did", "do", "does", "is", "was", "were", "will", "would",
];

/// Words saying that something is wanted ("I'd like a chart", "I need a map").
const DESIRES: &[&str] = &["like", "need", "want", "wish"];

/// Words skipped before looking for a verb or question word ("and then please find …").
const FILLERS: &[&str] = &[
    "after",
    "afterwards",
    "also",
    "and",
    "first",
    "finally",
    "i",
    "id",
    "just",
    "kindly",
    "lastly",
    "let",
    "lets",
    "me",
    "next",
    "now",
    "please",
    "so",
    "that",
    "then",
    "to",
    "us",
    "we",
    "you",
];

/// Words that start a new step wherever they stand in a sentence.
const SEQUENCE_WORDS: &[&str] = &["then", "afterwards", "finally"];

/// Words before a `.` that do not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "st", "no", "approx", "incl", "fig", "jr",
    "sr", "inc", "ltd", "co",
];

/// A part of the text between boundaries.
#[derive(Debug, Clone, Copy)]
struct Fragment {
    start: usize,
    end: usize,
    /// A line or list item: a step whether or not it starts with a verb.
    structural: bool,
    /// Ends with a colon.
    heading: bool,
}

/// Splits `text` into the steps it asks for (see the module documentation).
pub fn split_task(text: &str) -> Vec<Step> {
    let mut fragments: Vec<Fragment> = Vec::new();
    for part in structural_parts(text) {
        clauses(text, part, &mut fragments);
    }
    let fragments: Vec<Fragment> = fragments
        .into_iter()
        .filter(|fragment| !trimmed(&text[fragment.start..fragment.end]).is_empty())
        .collect();
    let mut steps = join_context(text, &fragments);
    if steps.len() > MAX_STEPS {
        let last_end = steps[steps.len() - 1].1;
        steps.truncate(MAX_STEPS);
        if let Some(last) = steps.last_mut() {
            last.1 = last_end;
        }
    }
    steps
        .into_iter()
        .map(|(start, end)| Step {
            text: trimmed(&text[start..end]).to_owned(),
            start,
            end,
        })
        .collect()
}

/// Lines, list items, semicolon parts and sentences, as fragments (not yet split into clauses).
/// Lines of a text with several lines and list items (inline ones included) are structural.
fn structural_parts(text: &str) -> Vec<Fragment> {
    let multiline = text.trim().contains('\n');
    let mut parts: Vec<Fragment> = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let line_end = line_start + line.len();
        let list_item = is_list_marker_at(line.trim_start(), 0);
        let first = parts.len();
        let mut start = line_start;
        let mut inline_list = false;
        let push = |parts: &mut Vec<Fragment>, start: usize, end: usize| {
            parts.push(Fragment {
                start,
                end,
                structural: multiline || list_item,
                heading: false,
            });
        };
        for (position, c) in line.char_indices() {
            let after = &line[position + c.len_utf8()..];
            let end = match c {
                ';' | '；' | '。' | '！' | '？' => Some(position + c.len_utf8()),
                '.' | '?' | '!' => (after.chars().next().is_none_or(char::is_whitespace)
                    && !(c == '.'
                        && (is_abbreviation(&line[..position])
                            || ends_with_list_number(&line[..position]))))
                .then_some(position + 1),
                _ if position > 0
                    && line[..position].ends_with(char::is_whitespace)
                    && is_inline_list_marker_at(line, position) =>
                {
                    // An inline list ("1) … 2) …") makes every part of the line a step.
                    inline_list = true;
                    Some(position)
                }
                _ => None,
            };
            if let Some(end) = end
                && line_start + end > start
            {
                push(&mut parts, start, line_start + end);
                start = line_start + end;
            }
        }
        if line_end > start {
            push(&mut parts, start, line_end);
        }
        if inline_list {
            for part in &mut parts[first..] {
                part.structural = true;
            }
        }
        line_start = line_end;
    }
    parts
}

/// True when `text[at..]` starts with a list number closed by a parenthesis (`2) `), which
/// marks a list item inside a line.
fn is_inline_list_marker_at(text: &str, at: usize) -> bool {
    let rest = &text[at..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (1..=2).contains(&digits) && rest[digits..].starts_with(") ")
}

/// True when `text[at..]` starts with a list marker: `1.`/`12)` followed by a space, or `-`,
/// `*`, `•` followed by a space.
fn is_list_marker_at(text: &str, at: usize) -> bool {
    let rest = &text[at..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=2).contains(&digits) {
        let after = &rest[digits..];
        let mut chars = after.chars();
        return matches!(chars.next(), Some('.' | ')'))
            && chars.next().is_some_and(char::is_whitespace);
    }
    let mut chars = rest.chars();
    matches!(chars.next(), Some('-' | '*' | '•')) && chars.next().is_some_and(char::is_whitespace)
}

/// True when `before` is a list number (`1`, `12`) at the start of a line: the `.` after it
/// marks a list item, not a sentence end.
fn ends_with_list_number(before: &str) -> bool {
    let number = before.trim_start();
    (1..=2).contains(&number.len()) && number.bytes().all(|b| b.is_ascii_digit())
}

/// True when the word before a `.` (the end of `before`) is an abbreviation or a single letter.
fn is_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or_default()
        .trim_start_matches(['(', '"', '\'']);
    let lower = word.to_lowercase();
    ABBREVIATIONS.contains(&lower.as_str())
        || (word.chars().count() == 1 && word.chars().all(char::is_alphabetic))
}

/// Splits a structural part into clauses at `then`-words, and at `and`, commas and colons that
/// introduce a request.
fn clauses(text: &str, part: Fragment, out: &mut Vec<Fragment>) {
    let words = word_spans(&text[part.start..part.end], part.start);
    let mut start = part.start;
    for (index, &(word_start, word_end)) in words.iter().enumerate() {
        let word = normalise(&text[word_start..word_end]);
        let after_comma = text[start..word_start].trim_end().ends_with([',', '，']);
        let after_colon = text[start..word_start].trim_end().ends_with([':', '：']);
        let cut = if SEQUENCE_WORDS.contains(&word.as_str()) {
            // "and then", ", then": cut before the "and" as well.
            Some(match index.checked_sub(1).map(|i| words[i]) {
                Some((s, e)) if normalise(&text[s..e]) == "and" => s,
                _ => word_start,
            })
        } else {
            let after_that = word == "after"
                && words
                    .get(index + 1)
                    .is_some_and(|&(s, e)| normalise(&text[s..e]) == "that");
            // A colon always ends a clause; `and` and a comma only before a request.
            let request =
                (word == "and" || after_comma) && starts_request(text, &words[index..], false);
            (after_that || after_colon || request).then_some(word_start)
        };
        if let Some(cut) = cut
            && cut > start
            && !trimmed(&text[start..cut]).is_empty()
        {
            out.push(Fragment {
                start,
                end: cut,
                structural: part.structural,
                heading: text[start..cut].trim_end().ends_with([':', '：']),
            });
            start = cut;
        }
    }
    out.push(Fragment {
        start,
        end: part.end,
        structural: part.structural,
        heading: false,
    });
}

/// True when the words (from a clause's first word on) start with an action verb or a question
/// word once fillers are skipped, or name what is wanted ("I'd like a chart"). Auxiliaries
/// (`is`, `can`, …) start a question only at the start of a sentence (`sentence_start`); after
/// `and` or a comma they are skipped like fillers ("and is it cheap" is not a new request, "and
/// can you find" is).
fn starts_request(text: &str, words: &[(usize, usize)], sentence_start: bool) -> bool {
    let mut wanting = false;
    for &(start, end) in words.iter().take(6) {
        let word = normalise(&text[start..end]);
        let word = word.as_str();
        if ACTION_VERBS.contains(&word) || WH_WORDS.contains(&word) {
            return true;
        }
        if AUXILIARIES.contains(&word) {
            if sentence_start {
                return true;
            }
            continue;
        }
        if DESIRES.contains(&word) {
            wanting = true;
            continue;
        }
        if !FILLERS.contains(&word) {
            return wanting && word != "to";
        }
    }
    false
}

/// Byte ranges of the words of `text` (offset by `offset`): runs of letters, digits, `'`, `-`.
fn word_spans(text: &str, offset: usize) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        let inside = c.is_alphanumeric() || matches!(c, '\'' | '’' | '-');
        match (inside, start) {
            (true, None) => start = Some(at),
            (false, Some(s)) => {
                spans.push((offset + s, offset + at));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((offset + s, offset + text.len()));
    }
    spans
}

/// A word lowercased, without a contraction (`what's` → `what`, `I'd` → `i`).
fn normalise(word: &str) -> String {
    let word = word.split(['\'', '’']).next().unwrap_or(word);
    word.to_lowercase()
}

/// Joins context fragments to their steps; returns step byte ranges.
fn join_context(text: &str, fragments: &[Fragment]) -> Vec<(usize, usize)> {
    let is_step: Vec<bool> = fragments
        .iter()
        .map(|fragment| {
            fragment.structural
                || starts_request(
                    text,
                    &word_spans(&text[fragment.start..fragment.end], fragment.start),
                    true,
                )
        })
        .collect();
    let mut steps: Vec<(usize, usize)> = Vec::new();
    let mut pending: Option<usize> = None;
    for (index, fragment) in fragments.iter().enumerate() {
        if is_step[index] {
            steps.push((pending.take().unwrap_or(fragment.start), fragment.end));
        } else if fragment.heading || steps.is_empty() {
            // A heading ("Here's a song: …") or leading context joins the next step.
            pending.get_or_insert(fragment.start);
        } else if let Some(last) = steps.last_mut() {
            last.1 = fragment.end;
        }
    }
    if let Some(start) = pending {
        // Nothing but context: the whole text is one step.
        let end = fragments.last().map_or(text.len(), |f| f.end);
        steps.push((start, end));
    }
    if steps.is_empty() && !trimmed(text).is_empty() {
        steps.push((0, text.len()));
    }
    steps
}

/// `text` without surrounding whitespace, list markers, leading connectors and trailing
/// punctuation.
fn trimmed(text: &str) -> &str {
    let mut rest = text.trim();
    loop {
        let before = rest;
        rest = rest.trim_start_matches([',', ':', ';', '，', '：', '-', '*', '•', ' ', '\n']);
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if (1..=2).contains(&digits) && is_list_marker_at(rest, 0) {
            rest = rest[digits + 1..].trim_start();
        }
        for connector in [
            "and then ",
            "and ",
            "then ",
            "also ",
            "finally ",
            "afterwards ",
        ] {
            if rest.len() > connector.len()
                && rest.is_char_boundary(connector.len())
                && rest[..connector.len()].eq_ignore_ascii_case(connector)
            {
                rest = rest[connector.len()..].trim_start();
            }
        }
        if rest == before {
            break;
        }
    }
    rest.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, ',' | '.' | ';' | ':' | '!' | '?' | '，' | '。')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(text: &str) -> Vec<String> {
        split_task(text).into_iter().map(|step| step.text).collect()
    }

    #[test]
    fn single_requests_stay_whole() {
        for text in [
            "What's the weather in Paris?",
            "Find the area of a triangle with base 10 and height 5.",
            "Convert 4.5 km to miles, e.g. for my run.",
            "Summarize the top topics on Weibo, Zhihu and Douyin.",
            "",
        ] {
            let found = steps(text);
            assert!(found.len() <= 1, "{text}: {found:?}");
            if !text.is_empty() {
                assert_eq!(found, [text.trim_end_matches(['.', '?'])], "{text}");
            }
        }
    }

    #[test]
    fn clauses_with_verbs_become_steps() {
        assert_eq!(
            steps(
                "Check whether lodash has known vulnerabilities and suggest lighter alternatives with their sizes."
            ),
            [
                "Check whether lodash has known vulnerabilities",
                "suggest lighter alternatives with their sizes"
            ]
        );
        assert_eq!(
            steps(
                "Show me the git status, stage everything, and commit it with the message 'fix'."
            ),
            [
                "Show me the git status",
                "stage everything",
                "commit it with the message 'fix'"
            ]
        );
        assert_eq!(
            steps(
                "What is Bitcoin at, how has it moved this month, and what's the fear and greed index saying?"
            ),
            [
                "What is Bitcoin at",
                "how has it moved this month",
                "what's the fear and greed index saying"
            ]
        );
        assert_eq!(
            steps("Download the paper then summarize it"),
            ["Download the paper", "summarize it"]
        );
    }

    #[test]
    fn context_joins_a_step() {
        assert_eq!(
            steps(
                "I'm in Berlin next weekend. What's the weather going to be, and can you find me an Airbnb?"
            ),
            [
                "I'm in Berlin next weekend. What's the weather going to be",
                "can you find me an Airbnb"
            ]
        );
        assert_eq!(
            steps("Help me prepare for Kyoto: how's the weather, and where can we stay?"),
            [
                "Help me prepare for Kyoto: how's the weather",
                "where can we stay"
            ]
        );
        assert_eq!(
            steps("Look up the character Jinhsi: her skills and her profile."),
            ["Look up the character Jinhsi: her skills and her profile"]
        );
        assert_eq!(
            steps("What's the weather in Hangzhou? If it's nice, suggest a dish for a picnic."),
            [
                "What's the weather in Hangzhou? If it's nice",
                "suggest a dish for a picnic"
            ]
        );
    }

    #[test]
    fn lines_and_list_items_are_steps() {
        assert_eq!(
            steps("1. weather in Paris\n2. 100 EUR in USD\n3) the time there"),
            ["weather in Paris", "100 EUR in USD", "the time there"]
        );
        assert_eq!(
            steps("1) find the weather in Paris 2) convert 100 EUR to USD"),
            ["find the weather in Paris", "convert 100 EUR to USD"]
        );
        assert_eq!(steps("- a\n- b"), ["a", "b"]);
        // A semicolon ends a clause; a clause that asks for nothing is context.
        assert_eq!(
            steps("weather in Oslo; time in Oslo"),
            ["weather in Oslo; time in Oslo"]
        );
        // Something wanted is a request; an auxiliary starts a question after a sentence end,
        // not after "and".
        assert_eq!(
            steps("The plan is ready. I'd like a radar chart; is it cheap and is it fast?"),
            [
                "The plan is ready. I'd like a radar chart",
                "is it cheap and is it fast"
            ]
        );
    }

    #[test]
    fn ranges_point_into_the_text() {
        let text = "Find the file, then open it.";
        let found = split_task(text);
        assert_eq!(&text[found[0].start..found[0].end], "Find the file, ");
        assert_eq!(&text[found[1].start..found[1].end], "then open it.");
        let many: String = (0..12).map(|i| format!("Find item {i}. ")).collect();
        let found = split_task(&many);
        assert_eq!(found.len(), MAX_STEPS);
        assert_eq!(found[MAX_STEPS - 1].end, many.trim_end().len());
    }
}
