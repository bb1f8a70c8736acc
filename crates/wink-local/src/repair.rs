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

use crate::{ChatRequest, Role, TurnConstraint};

/// The constraint to generate again under, when `answer` names callable tools not called yet in
/// `request`; `None` when the answer stands.
#[must_use]
pub fn repair_constraint(request: &ChatRequest, answer: &str) -> Option<TurnConstraint> {
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
