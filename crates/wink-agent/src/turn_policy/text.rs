//! What the turn policies read in a conversation and in an answer: the question, the calls and
//! results since it, the tools an answer names, and the words of a text (the callable tools are
//! [`ModelRequest::callable_tools`]).

use wink_core::ToolCall;
use wink_core::builtin::discloses_content;
use wink_model::{Message, ModelRequest, ToolSpec};

/// The calls of an assistant message (none for the others).
pub(crate) fn calls_of(message: &Message) -> &[ToolCall] {
    match message {
        Message::Assistant { tool_calls, .. } => tool_calls.as_slice(),
        _ => &[],
    }
}

/// A tool result: its call id, tool name, content and whether the call failed.
pub(crate) struct ToolResult<'a> {
    pub call_id: &'a str,
    pub name: &'a str,
    pub content: &'a str,
    pub failed: bool,
}

/// The tool result `message` is, when it is one.
pub(crate) fn tool_result(message: &Message) -> Option<ToolResult<'_>> {
    match message {
        Message::Tool {
            tool_call_id,
            name,
            content,
            is_error,
            ..
        } => Some(ToolResult {
            call_id: tool_call_id,
            name,
            content,
            failed: *is_error,
        }),
        _ => None,
    }
}

/// Where the question is: the last user message, or, when the conversation has none, its first
/// message (the prompt itself, which the model is asked to carry out).
pub(crate) fn question_index(request: &ModelRequest) -> usize {
    request
        .messages
        .iter()
        .rposition(|m| matches!(m, Message::User { .. }))
        .unwrap_or(0)
}

/// The question's text, and whether a user wrote it: `false` when the prompt itself is the
/// question (the conversation's first message, system or user, which names the tools it
/// describes).
pub(crate) fn question(request: &ModelRequest) -> Option<(&str, bool)> {
    let index = question_index(request);
    match request.messages.get(index)? {
        Message::User { content } | Message::System { content } => Some((content, index > 0)),
        _ => None,
    }
}

/// The messages after the question, newest first.
pub(crate) fn since_question(request: &ModelRequest) -> impl Iterator<Item = &Message> {
    let start = question_index(request) + 1;
    request
        .messages
        .get(start..)
        .unwrap_or_default()
        .iter()
        .rev()
}

/// The results of tools other than the disclosing builtins since the question, newest first.
pub(crate) fn domain_results_since_question(
    request: &ModelRequest,
) -> impl Iterator<Item = ToolResult<'_>> {
    since_question(request)
        .filter_map(tool_result)
        .filter(|r| !discloses_content(r.name))
}

/// Has a tool other than the disclosing builtins returned since the question?
pub(crate) fn domain_result_since_question(request: &ModelRequest) -> bool {
    domain_results_since_question(request).next().is_some()
}

/// The names of every tool called in the conversation.
pub(crate) fn called_names(request: &ModelRequest) -> Vec<&str> {
    request
        .messages
        .iter()
        .flat_map(|m| calls_of(m).iter().map(|c| c.name.as_str()))
        .collect()
}

/// The names of the tools called since the question, newest first.
pub(crate) fn called_since_question(request: &ModelRequest) -> Vec<&str> {
    since_question(request)
        .flat_map(calls_of)
        .map(|call| call.name.as_str())
        .collect()
}

/// Words that say nothing about which tool fits.
pub(crate) const STOP_WORDS: [&str; 40] = [
    "a",
    "an",
    "the",
    "to",
    "of",
    "and",
    "or",
    "in",
    "on",
    "for",
    "with",
    "by",
    "from",
    "at",
    "as",
    "is",
    "are",
    "be",
    "it",
    "its",
    "this",
    "that",
    "these",
    "you",
    "your",
    "can",
    "use",
    "using",
    "please",
    "provide",
    "following",
    "step",
    "i",
    "my",
    "me",
    "we",
    "will",
    "would",
    "need",
    "then",
];

/// The distinct content words of lower-case `text`, a plural `s` dropped.
pub(crate) fn content_words(text: &str) -> Vec<String> {
    words(text, false)
}

/// The distinct words of lower-case `text` but stop words, a plural `s` dropped; numbers kept
/// when `numbers`.
pub(crate) fn words(text: &str, numbers: bool) -> Vec<String> {
    let mut words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && (numbers || !w.chars().all(|c| c.is_ascii_digit())))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 && !stem.ends_with(['s', 'u', 'i']) => stem.to_owned(),
            _ => w.to_owned(),
        })
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// How many of `said` (content words) are in `tool`'s name or description.
pub(crate) fn shared_words(said: &[String], tool: &ToolSpec) -> usize {
    let tool_words = content_words(&format!("{} {}", tool.name, tool.description).to_lowercase());
    said.iter().filter(|w| tool_words.contains(w)).count()
}

/// Byte offsets where `name` occurs in `text` as a whole identifier (not inside a longer name;
/// a trailing full stop ends a sentence, it does not continue the name).
pub(crate) fn identifier_starts(text: &str, name: &str) -> Vec<usize> {
    if name.is_empty() {
        return Vec::new();
    }
    let is_name_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    text.match_indices(name)
        .map(|(start, _)| start)
        .filter(|&start| {
            let before = text[..start].chars().next_back();
            let after = text[start + name.len()..].chars().next();
            let after_ok = match after {
                None => true,
                Some('.') => text[start + name.len() + 1..]
                    .chars()
                    .next()
                    .is_none_or(|c| !is_name_char(c)),
                Some(c) => !is_name_char(c),
            };
            before.is_none_or(|c| !is_name_char(c)) && after_ok
        })
        .collect()
}

/// Does `text` contain `name` as a whole identifier?
pub(crate) fn names_identifier(text: &str, name: &str) -> bool {
    !identifier_starts(text, name).is_empty()
}

/// Of `names`, the one `text` names first as a whole identifier; `None` when it names none.
pub(crate) fn first_named<'a>(
    names: impl IntoIterator<Item = &'a str>,
    text: &str,
) -> Option<&'a str> {
    names
        .into_iter()
        .filter_map(|name| Some((identifier_starts(text, name).first().copied()?, name)))
        .min()
        .map(|(_, name)| name)
}

/// The callable tools the answer names.
pub(crate) fn named_tools(request: &ModelRequest, answer: &str) -> Vec<String> {
    request
        .callable_tools()
        .into_iter()
        .map(|t| t.name)
        .filter(|name| names_identifier(answer, name))
        .collect()
}

/// Consecutive words an answer shares with a result before it counts as quoting it.
pub(crate) const QUOTE_WORDS: usize = 6;

/// Does `answer` quote a successful result since the question (any tool's, a section read's
/// included): [`QUOTE_WORDS`] consecutive words, case and punctuation aside, in both?
pub(crate) fn quotes_a_result(request: &ModelRequest, answer: &str) -> bool {
    let said = word_sequence(answer);
    if said.len() < QUOTE_WORDS {
        return false;
    }
    since_question(request)
        .filter_map(tool_result)
        .filter(|result| !result.failed)
        .any(|result| {
            let found = word_sequence(result.content);
            let runs: std::collections::HashSet<&[String]> = found.windows(QUOTE_WORDS).collect();
            said.windows(QUOTE_WORDS).any(|run| runs.contains(run))
        })
}

/// The words of `text` in order, lower-cased, punctuation dropped.
fn word_sequence(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The JSON objects in `text`, in order of their opening braces (an object nested in one that
/// parses comes after it too).
pub(crate) fn json_objects(
    text: &str,
) -> impl Iterator<Item = serde_json::Map<String, serde_json::Value>> + '_ {
    text.match_indices('{').filter_map(|(start, _)| {
        serde_json::Deserializer::from_str(&text[start..])
            .into_iter::<serde_json::Map<String, serde_json::Value>>()
            .next()?
            .ok()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::super::fixtures::{request, with_result};
    use super::{content_words, names_identifier, quotes_a_result};

    #[test]
    fn content_words_drop_stop_words_digits_and_plurals() {
        assert_eq!(
            content_words("to convert 42 degrees celsius, use the formula"),
            ["celsius", "convert", "degree", "formula"]
        );
        assert_eq!(
            content_words("address class status analysis"),
            ["address", "analysis", "class", "status"]
        );
    }

    #[test]
    fn names_match_whole_identifiers_only() {
        assert!(names_identifier("call `add`.", "add"));
        assert!(names_identifier("use add.", "add"));
        assert!(names_identifier(
            "unit.inches_to_cm(12)",
            "unit.inches_to_cm"
        ));
        assert!(!names_identifier("I added them", "add"));
        assert!(!names_identifier("call add_days", "add"));
        assert!(!names_identifier("call unit.add", "add"));
        assert!(!names_identifier("see add.py", "add"));
        assert!(!names_identifier("anything", ""));
    }

    #[test]
    fn an_answer_quotes_six_words_of_a_successful_result() {
        let section =
            "Damage caused by not descaling, by a drop or by water in the base is not covered.";
        let read = with_result(request(&["read_section"]), "read_section", section, false);
        assert!(quotes_a_result(
            &read,
            "According to the warranty, damage caused by not descaling, by a drop or by water is not covered."
        ));
        // Five words in a row are not a quote.
        assert!(!quotes_a_result(
            &read,
            "According to the warranty, damage caused by not descaling is not covered."
        ));
        let failed = with_result(request(&["read_section"]), "read_section", section, true);
        assert!(!quotes_a_result(
            &failed,
            "According to the warranty, damage caused by not descaling, by a drop or by water is not covered."
        ));
    }
}
