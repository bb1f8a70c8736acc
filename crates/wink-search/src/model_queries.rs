//! Capability queries written by a model: a task is turned into one short search query per step
//! before it is searched, in place of the steps [`crate::split_task`] finds
//! ([`crate::TaskInput::Steps`]). This module holds what the model is told and how its answer
//! is read; the model call itself belongs to the caller (it does I/O).
//!
//! ```
//! use wink_search::model_queries::parse_queries;
//!
//! let answer = "1. Read the CSV file\n2. `convert currency`\n- send an email\n";
//! assert_eq!(parse_queries(answer), ["read the CSV file", "convert currency", "send an email"]);
//! ```

use crate::split::MAX_STEPS;

/// The system message of the model call that writes a task's queries.
pub const INSTRUCTIONS: &str = "You turn a user's request into the search queries that find the tools it needs in a tool catalog. Write one query per step of the request, in the order the steps come, each on its own line: a verb and what it acts on, in at most eight words (for example: read a file, convert currency, send an email). Write only the queries: no numbering, no explanations, no tool names you invent.";

/// Most tokens the model may write for a task's queries.
pub const MAX_OUTPUT_TOKENS: u32 = 96;

/// The user message of the model call for `task`.
#[must_use]
pub fn user_message(task: &str) -> String {
    format!("Request: {}", task.trim())
}

/// The queries in a model's answer, at most [`MAX_STEPS`]: one per non-empty line, with list
/// markers (`-`, `*`, `•`, `1.`, `2)`), a label (`Query:`, `Step 2:`), surrounding quotes or backticks
/// and a trailing period taken off; the first letter is lower-cased unless the second is
/// upper-case too (`CSV`). Lines that only introduce a list (ending in `:`) and repeats are
/// left out. An answer with no query gives an empty list: the caller searches the task's text.
#[must_use]
pub fn parse_queries(answer: &str) -> Vec<String> {
    let mut queries: Vec<String> = Vec::new();
    for line in answer.lines() {
        let Some(query) = query_of_line(line) else {
            continue;
        };
        if queries.iter().any(|q| q.eq_ignore_ascii_case(&query)) {
            continue;
        }
        queries.push(query);
        if queries.len() == MAX_STEPS {
            break;
        }
    }
    queries
}

fn query_of_line(line: &str) -> Option<String> {
    let line = line.trim();
    if line.is_empty() || line.ends_with(':') || line.starts_with("```") {
        return None;
    }
    let line = strip_marker(line);
    let line = match line.split_once(':') {
        Some((label, rest)) if is_label(label) && !rest.trim().is_empty() => rest.trim(),
        _ => line,
    };
    // Twice: `"read a file".` and `"read a file."` alike.
    let line = unwrap_query(unwrap_query(line));
    if !line.chars().any(char::is_alphanumeric) {
        return None;
    }
    Some(lower_first(line))
}

/// `text` without surrounding quotes, backticks or asterisks and without a trailing `.`, `;`
/// or `,`.
fn unwrap_query(text: &str) -> &str {
    text.trim()
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '*'))
        .trim()
        .trim_end_matches(['.', ';', ','])
        .trim()
}

/// `Query`, `Step 2`, `Search query 1`: a label before the query, not part of it.
fn is_label(text: &str) -> bool {
    let text = text.trim().to_lowercase();
    text.split_whitespace().count() <= 3
        && ["query", "step", "search"]
            .iter()
            .any(|word| text.starts_with(word))
}

/// `line` without a leading bullet or number (`- `, `* `, `• `, `1. `, `2) `).
fn strip_marker(line: &str) -> &str {
    let unbulleted = line.trim_start_matches(['-', '*', '•']).trim_start();
    if unbulleted.len() != line.len() {
        return unbulleted;
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        let rest = &line[digits..];
        if let Some(rest) = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')')) {
            return rest.trim_start();
        }
    }
    line
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(_), Some(second)) if second.is_uppercase() => text.to_owned(),
        (Some(first), _) => first
            .to_lowercase()
            .chain(text[first.len_utf8()..].chars())
            .collect(),
        (None, _) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_markers_labels_quotes_and_periods_are_taken_off() {
        let answer = "Here are the queries:\n\n1. Search the web for flights.\n2) \"book a hotel\"\n* Query: send an email\nStep 4: convert: USD to EUR\n• `Add a calendar event`;\n- CSV to JSON\n";
        assert_eq!(
            parse_queries(answer),
            [
                "search the web for flights",
                "book a hotel",
                "send an email",
                "convert: USD to EUR",
                "add a calendar event",
                "CSV to JSON"
            ]
        );
    }

    #[test]
    fn repeats_and_empty_lines_are_left_out_and_at_most_max_steps_are_kept() {
        let answer = "read a file\n\nRead a file\n---\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
        assert_eq!(
            parse_queries(answer),
            ["read a file", "b", "c", "d", "e", "f", "g", "h"]
        );
        assert_eq!(MAX_STEPS, 8);
    }

    #[test]
    fn an_answer_without_queries_is_empty() {
        assert!(parse_queries("").is_empty());
        assert!(parse_queries("```\n```\n-\n...\n").is_empty());
    }

    #[test]
    fn the_user_message_holds_the_task() {
        assert_eq!(user_message("  Book a flight\n"), "Request: Book a flight");
    }

    proptest::proptest! {
        #[test]
        fn any_answer_gives_at_most_max_steps_non_empty_queries(answer in "\\PC{0,300}") {
            let queries = parse_queries(&answer);
            proptest::prop_assert!(queries.len() <= MAX_STEPS);
            for query in &queries {
                proptest::prop_assert!(query.chars().any(char::is_alphanumeric));
                proptest::prop_assert!(!query.contains('\n'));
            }
        }
    }
}
