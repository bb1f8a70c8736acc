//! Call-intent repair: an answer that names a tool the model has not called yet is taken back.
//!
//! Small models often describe the call they should make instead of making it ("To check order
//! A-1042, you can call the `lookup_order` function with the order id…", or a fenced JSON block of a
//! made-up result). Measured on Qwen2.5-Coder-1.5B over the `bench/eval` suite, this was the most
//! common failure once the right tool was on offer. Such an answer is never what the user asked for,
//! so when a free turn ([`TurnConstraint::Auto`]) ends without a call and its text names a callable
//! tool that the conversation has not called yet, the turn is generated again, from the same prompt
//! (the KV cache keeps it, only the new answer is decoded), under the tool-call grammar: a call of
//! that tool when the text names one, any call when it names several.
//!
//! A tool the conversation has called already counts only when the answer describes calling it
//! ("you can call the `get_forecast` function with…": a verb such as *call* or *use* shortly before
//! the name), so an answer that quotes the tool it used ("`get_forecast` says 5 °C") stands. The
//! model then repeats the call or makes a new one; a repeated call gets the earlier result back from
//! the loop's repetition guard with the instruction to answer. Measured on Qwen2.5-Coder-1.5B: after
//! a tool result it often explains how to call the tool instead of answering. The repair happens
//! at most once per model call.
//!
//! One answer is repaired the other way: after a tool result the model sometimes answers with a
//! line of the prompt instead of the result — most often a summarized section's suffix ("To view full
//! content, call `read_section` with key \"conversions\".", measured on Qwen2.5-Coder-1.5B after an
//! `add` result that already held the answer). When a domain tool has returned since the user's
//! question and the answer names only the disclosure tools ([`DISCLOSURE_TOOLS`]), opening a section
//! is not what the user needs: the answer is generated again after a reminder
//! ([`ANSWER_REMINDER`], a user turn given to this generation only, never kept in the conversation),
//! as plain text. So is an answer after domain tool results that shares no word or number with any
//! of them ("This is the full content of the \"dates\" section." after `42 °C = 107.6 °F`).

use crate::{ChatMessage, ChatRequest, Role, TurnConstraint};

/// Built-in tools that disclose prompt content rather than do the user's work.
pub const DISCLOSURE_TOOLS: [&str; 4] = [
    "read_section",
    "open_sections",
    "find_tool",
    "tool.describe",
];

/// The user turn that asks for the answer again ([`Repair::Answer`]).
pub const ANSWER_REMINDER: &str = "Answer my question now, using the tool results above.";

/// How a free answer is taken back.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Repair {
    /// Generate the turn again under this constraint: a call.
    Call(TurnConstraint),
    /// Generate the answer again, as plain text, after [`ANSWER_REMINDER`].
    Answer,
}

/// How to take back `answer`, the text of a free turn for `request`; `None` when it stands.
#[must_use]
pub fn repair(request: &ChatRequest, answer: &str) -> Option<Repair> {
    let Some(constraint) = repair_constraint(request, answer) else {
        if let Some(call) = procedure_constraint(request, answer) {
            return Some(Repair::Call(call));
        }
        return ungrounded(request, answer).then_some(Repair::Answer);
    };
    if !domain_result_since_question(request) {
        return Some(Repair::Call(constraint));
    }
    let nothing_new = request
        .callable_tools()
        .iter()
        .map(|t| t.name.as_str())
        .filter(|name| names_identifier(answer, name))
        .all(|name| DISCLOSURE_TOOLS.contains(&name));
    if nothing_new {
        Some(Repair::Answer)
    } else {
        Some(Repair::Call(constraint))
    }
}

/// `request` with [`ANSWER_REMINDER`] as a last user turn, for a plain-text answer.
#[must_use]
pub fn answer_request(request: &ChatRequest) -> ChatRequest {
    let mut reminded = request.clone().with_constraint(TurnConstraint::FinalAnswer);
    reminded.messages.push(ChatMessage::user(ANSWER_REMINDER));
    reminded
}

/// Openings of an answer that tells the user how to do the work instead of doing it.
const PROCEDURE_OPENINGS: [&str; 1] = ["to "];

/// Phrases of such an answer.
const PROCEDURE_PHRASES: [&str; 7] = [
    "you can",
    "you need to",
    "use the",
    "please provide",
    "following steps",
    "you would",
    "you will need",
];

/// Words that say nothing about which tool fits.
const STOP_WORDS: [&str; 40] = [
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

/// Content words shared by the answer and a tool's name and description before a repair counts.
const MIN_SHARED_WORDS: usize = 2;

/// An answer that describes a procedure ("To convert 42 degrees Celsius to Fahrenheit, use the
/// formula…", "To check the status of your last order, please provide your order ID.") without
/// naming a tool, while a tool not called yet fits it: at least [`MIN_SHARED_WORDS`] content words
/// of the answer are in that tool's name or description. A call of the best-fitting tool, or any
/// call when several fit equally. The disclosure tools never count as fitting.
fn procedure_constraint(request: &ChatRequest, answer: &str) -> Option<TurnConstraint> {
    if request.constraint != TurnConstraint::Auto {
        return None;
    }
    let lower = answer.trim_start().to_lowercase();
    let procedural = PROCEDURE_OPENINGS.iter().any(|o| lower.starts_with(o))
        && PROCEDURE_PHRASES.iter().any(|p| lower.contains(p));
    if !procedural {
        return None;
    }
    let called: Vec<&str> = request
        .messages
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.name.as_str()))
        .collect();
    let answer_words = content_words(&lower);
    let mut best: Vec<(usize, String)> = request
        .callable_tools()
        .into_iter()
        .filter(|t| {
            !DISCLOSURE_TOOLS.contains(&t.name.as_str()) && !called.contains(&t.name.as_str())
        })
        .map(|t| {
            let tool_words = content_words(&format!("{} {}", t.name, t.description).to_lowercase());
            let shared = answer_words
                .iter()
                .filter(|w| tool_words.contains(w))
                .count();
            (shared, t.name)
        })
        .filter(|(shared, _)| *shared >= MIN_SHARED_WORDS)
        .collect();
    let top = best.iter().map(|(shared, _)| *shared).max()?;
    best.retain(|(shared, _)| *shared == top);
    match best.as_slice() {
        [(_, name)] => Some(TurnConstraint::RequireNamedTool(name.clone())),
        _ => Some(TurnConstraint::RequireTool),
    }
}

/// The distinct content words of lower-case `text`, a plural `s` dropped.
fn content_words(text: &str) -> Vec<String> {
    words(text, false)
}

/// The distinct words of lower-case `text` but stop words, a plural `s` dropped; numbers kept
/// when `numbers`.
fn words(text: &str, numbers: bool) -> Vec<String> {
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

/// Has a tool other than the disclosure ones returned since the last user message?
fn domain_result_since_question(request: &ChatRequest) -> bool {
    domain_results_since_question(request).next().is_some()
}

/// The results of tools other than the disclosure ones since the last user message.
fn domain_results_since_question(request: &ChatRequest) -> impl Iterator<Item = &str> {
    request
        .messages
        .iter()
        .rev()
        .take_while(|m| m.role != Role::User)
        .filter(|m| {
            m.role == Role::Tool
                && m.name
                    .as_deref()
                    .is_some_and(|name| !DISCLOSURE_TOOLS.contains(&name))
        })
        .map(|m| m.content.as_str())
}

/// A free answer after domain tool results that shares no word or number with any of them
/// ("This is the full content of the \"dates\" section." after `42 °C = 107.6 °F`): the model lost
/// the thread; the answer is asked for again ([`Repair::Answer`]).
fn ungrounded(request: &ChatRequest, answer: &str) -> bool {
    if request.constraint != TurnConstraint::Auto || !domain_result_since_question(request) {
        return false;
    }
    let said = words(&answer.to_lowercase(), true);
    !domain_results_since_question(request).any(|result| {
        let found = words(&result.to_lowercase(), true);
        said.iter().any(|w| found.contains(w))
    })
}

/// The constraint to generate again under, when `answer` names callable tools not called yet in
/// `request` (or describes calling one it called); `None` when the answer stands.
fn repair_constraint(request: &ChatRequest, answer: &str) -> Option<TurnConstraint> {
    if request.constraint != TurnConstraint::Auto {
        return None;
    }
    let called: Vec<&str> = request
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.tool_calls.iter().map(|c| c.name.as_str()))
        .collect();
    let callable = request.callable_tools();
    let named: Vec<&str> = callable
        .iter()
        .map(|t| t.name.as_str())
        .filter(|name| {
            if called.contains(name) {
                describes_call(answer, name)
            } else {
                names_identifier(answer, name)
            }
        })
        .collect();
    match named.as_slice() {
        [] => None,
        [one] => Some(TurnConstraint::RequireNamedTool((*one).to_owned())),
        _ => Some(TurnConstraint::RequireTool),
    }
}

/// Verbs that, shortly before a tool's name, describe calling it.
const CALL_VERBS: [&str; 9] = [
    "call", "calling", "use", "using", "invoke", "invoking", "run", "running", "execute",
];

/// How far before the name (in characters) a verb counts.
const VERB_WINDOW: usize = 40;

/// Does `text` describe calling `name` (a call verb within [`VERB_WINDOW`] characters before a
/// whole-identifier occurrence)?
fn describes_call(text: &str, name: &str) -> bool {
    identifier_starts(text, name).into_iter().any(|start| {
        let before: String = text[..start]
            .chars()
            .rev()
            .take(VERB_WINDOW)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<String>()
            .to_lowercase();
        before
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| CALL_VERBS.contains(&word))
    })
}

/// Does `text` contain `name` as a whole identifier (not inside a longer name)?
fn names_identifier(text: &str, name: &str) -> bool {
    !identifier_starts(text, name).is_empty()
}

/// Byte offsets where `name` occurs in `text` as a whole identifier.
fn identifier_starts(text: &str, name: &str) -> Vec<usize> {
    if name.is_empty() {
        return Vec::new();
    }
    let is_name_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    text.match_indices(name)
        .map(|(start, _)| start)
        .filter(|&start| {
            let before = text[..start].chars().next_back();
            let after = text[start + name.len()..].chars().next();
            // A trailing full stop ends a sentence, it does not continue the name.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ChatMessage, ToolCall, ToolSpec};
    use serde_json::json;

    fn tool(name: &str) -> ToolSpec {
        ToolSpec::new(name, "A tool.", json!({"type": "object"}))
    }

    fn request(tools: &[&str]) -> ChatRequest {
        ChatRequest::new(vec![ChatMessage::user("Has order A-1042 shipped?")])
            .with_tools(tools.iter().map(|n| tool(n)).collect())
    }

    #[test]
    fn an_answer_that_describes_a_call_is_repaired_toward_that_tool() {
        let r = request(&["lookup_order", "track_parcel"]);
        let answer =
            "To check it, you can call the `lookup_order` function with the order id A-1042.";
        assert_eq!(
            repair_constraint(&r, answer),
            Some(TurnConstraint::RequireNamedTool("lookup_order".into()))
        );
    }

    #[test]
    fn several_names_ask_for_any_call() {
        let r = request(&["lookup_order", "track_parcel"]);
        let answer = "Call lookup_order, then track_parcel.";
        assert_eq!(
            repair_constraint(&r, answer),
            Some(TurnConstraint::RequireTool)
        );
    }

    #[test]
    fn deferred_tools_count_as_callable() {
        let r = request(&["read_section"]).with_deferred_tools(vec![tool("miles_to_km")]);
        let answer = "Use the `miles_to_km` function:\n```json\n{\"km\": 8.05}\n```";
        assert_eq!(
            repair_constraint(&r, answer),
            Some(TurnConstraint::RequireNamedTool("miles_to_km".into()))
        );
    }

    #[test]
    fn answers_naming_no_tool_or_only_called_ones_stand() {
        let mut r = request(&["get_forecast"]);
        assert_eq!(repair_constraint(&r, "Oslo will be 5 °C."), None);
        r.messages.push(ChatMessage::assistant_tool_calls(
            String::new(),
            vec![ToolCall {
                id: "call_0".into(),
                name: "get_forecast".into(),
                arguments: json!({"city": "Oslo"}),
            }],
        ));
        assert_eq!(
            repair_constraint(&r, "According to `get_forecast`, Oslo will be 5 °C."),
            None
        );
        // Describing the call again (instead of answering) is repaired.
        assert_eq!(
            repair_constraint(
                &r,
                "To get the weather in Oslo, you can call the `get_forecast` function with the city name \"Oslo\"."
            ),
            Some(TurnConstraint::RequireNamedTool("get_forecast".into()))
        );
    }

    fn after_result_of(mut r: ChatRequest, name: &str) -> ChatRequest {
        let call = ToolCall {
            id: format!("call_{}", r.messages.len()),
            name: name.into(),
            arguments: json!({}),
        };
        r.messages.push(ChatMessage::assistant_tool_calls(
            String::new(),
            vec![call.clone()],
        ));
        r.messages
            .push(ChatMessage::tool_result(&call, format!("{name}: done")));
        r
    }

    #[test]
    fn after_a_domain_result_an_answer_naming_only_disclosure_tools_is_asked_again() {
        let r = after_result_of(request(&["add", "read_section"]), "add");
        let echo = "To view full content, call `read_section` with key \"conversions\".";
        assert_eq!(repair(&r, echo), Some(Repair::Answer));
        // Before any domain result the same words are an intent to read the section.
        let fresh = request(&["add", "read_section"]);
        assert_eq!(
            repair(&fresh, echo),
            Some(Repair::Call(TurnConstraint::RequireNamedTool(
                "read_section".into()
            )))
        );
        let read = after_result_of(request(&["add", "read_section"]), "read_section");
        assert_eq!(
            repair(&read, echo),
            Some(Repair::Call(TurnConstraint::RequireNamedTool(
                "read_section".into()
            )))
        );
    }

    #[test]
    fn after_a_domain_result_a_new_domain_tool_is_still_called() {
        let r = after_result_of(
            request(&["lookup_order", "track_parcel", "read_section"]),
            "lookup_order",
        );
        assert_eq!(
            repair(&r, "Now call `track_parcel` with TRK-9931."),
            Some(Repair::Call(TurnConstraint::RequireNamedTool(
                "track_parcel".into()
            )))
        );
        assert_eq!(repair(&r, "It is done: it has shipped."), None);
    }

    #[test]
    fn after_a_domain_result_describing_the_same_call_again_is_still_a_call() {
        // Measured on the 1.5B: after Oslo's forecast it describes the Oslo call again; made to
        // call, it asks for Rome's (a repeat would get the guard's answer).
        let mut r = request(&["get_forecast"]);
        let call = ToolCall {
            id: "call_0".into(),
            name: "get_forecast".into(),
            arguments: json!({"city": "Oslo"}),
        };
        r.messages.push(ChatMessage::assistant_tool_calls(
            String::new(),
            vec![call.clone()],
        ));
        r.messages
            .push(ChatMessage::tool_result(&call, "snow, -2 °C"));
        let again = "To get the forecast for Oslo, you can call the `get_forecast` function with the city name \"Oslo\".";
        assert_eq!(
            repair(&r, again),
            Some(Repair::Call(TurnConstraint::RequireNamedTool(
                "get_forecast".into()
            )))
        );
    }

    #[test]
    fn a_procedure_that_fits_an_uncalled_tool_becomes_its_call() {
        let r = request(&["add", "read_section"]).with_deferred_tools(vec![
            ToolSpec::new(
                "celsius_to_fahrenheit",
                "Convert degrees Celsius to degrees Fahrenheit.",
                json!({"type": "object"}),
            ),
            ToolSpec::new(
                "km_to_miles",
                "Convert kilometres to miles.",
                json!({"type": "object"}),
            ),
        ]);
        let before = r.clone();
        let r = after_result_of(r, "add");
        assert_eq!(
            repair(
                &r,
                "To convert 42 degrees Celsius to Fahrenheit, use the formula: (Celsius * 9/5) + 32."
            ),
            Some(Repair::Call(TurnConstraint::RequireNamedTool(
                "celsius_to_fahrenheit".into()
            )))
        );
        // An answer, or a procedure no tool fits, stands.
        assert_eq!(repair(&before, "42 °C is 107.6 °F."), None);
        assert_eq!(
            repair(
                &before,
                "To return an item, you can send it back within 30 days."
            ),
            None
        );
        // Without the procedure's phrasing the words alone do not count.
        assert_eq!(
            repair(&before, "To convert Celsius to Fahrenheit: 107.6 degrees."),
            None
        );
    }

    #[test]
    fn a_procedure_that_fits_several_tools_equally_asks_for_any_call() {
        let r = ChatRequest::new(vec![ChatMessage::user(
            "What's the status of my last order?",
        )])
        .with_tools(vec![
            ToolSpec::new(
                "lookup_order",
                "Look up an order by id: status, tracking number and delivery date.",
                json!({"type": "object"}),
            ),
            ToolSpec::new(
                "find_customer",
                "Find a customer by email: customer id, name and last order id.",
                json!({"type": "object"}),
            ),
        ]);
        assert_eq!(
            repair(
                &r,
                "To check the status of your last order, please provide your order ID."
            ),
            Some(Repair::Call(TurnConstraint::RequireTool))
        );
    }

    #[test]
    fn an_answer_sharing_nothing_with_the_results_is_asked_again() {
        let mut r = request(&["celsius_to_fahrenheit"]);
        let call = ToolCall {
            id: "call_0".into(),
            name: "celsius_to_fahrenheit".into(),
            arguments: json!({"celsius": 42}),
        };
        r.messages.push(ChatMessage::assistant_tool_calls(
            String::new(),
            vec![call.clone()],
        ));
        r.messages.push(ChatMessage::tool_result(
            &call,
            "42 °C = 107.6 °F\n\n{\"fahrenheit\": 107.6}",
        ));
        assert_eq!(
            repair(&r, "This is the full content of the \"dates\" section."),
            Some(Repair::Answer)
        );
        assert_eq!(repair(&r, "It is 107.6 °F."), None);
        assert_eq!(repair(&r, "Fahrenheit: about one hundred and eight."), None);
        // Before any domain result an answer is not checked against results.
        let fresh = request(&["celsius_to_fahrenheit"]);
        assert_eq!(repair(&fresh, "Hello there."), None);
        let read = after_result_of(request(&["read_section"]), "read_section");
        assert_eq!(repair(&read, "Hello there."), None);
    }

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
    fn the_answer_request_ends_with_the_reminder_and_asks_for_text() {
        let r = after_result_of(request(&["add"]), "add");
        let reminded = answer_request(&r);
        assert_eq!(reminded.constraint, TurnConstraint::FinalAnswer);
        assert_eq!(reminded.messages.len(), r.messages.len() + 1);
        assert_eq!(reminded.messages[..r.messages.len()], r.messages[..]);
        let last = &reminded.messages[r.messages.len()];
        assert_eq!(
            (last.role, last.content.as_str()),
            (
                Role::User,
                "Answer my question now, using the tool results above."
            )
        );
    }

    #[test]
    fn only_free_turns_are_repaired() {
        let r = request(&["add"]).with_constraint(TurnConstraint::FinalAnswer);
        assert_eq!(repair_constraint(&r, "Call add."), None);
    }

    #[test]
    fn a_call_is_described_by_a_verb_shortly_before_the_name() {
        assert!(describes_call("you can call the `add` function", "add"));
        assert!(describes_call("Using add, the sum is 5.", "add"));
        assert!(!describes_call("The add tool says 5.", "add"));
        assert!(!describes_call(
            "I will call you back tomorrow when the weather changes; add says 5.",
            "add"
        ));
        assert!(!describes_call("call add_days", "add"));
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
}
