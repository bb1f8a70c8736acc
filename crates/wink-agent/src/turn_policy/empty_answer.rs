//! `empty-answer`: a turn that ends with neither text nor a call is asked for again, and so is
//! one whose text only repeats the tool definitions the model was given.
//!
//! A model may end its turn at once, having written nothing. Qwen2.5-Coder-1.5B served by
//! llama.cpp's server does so when the repetition guard asks for an answer without tools
//! (`tool_choice` none): one token, the end of the turn, and the run finished with an empty
//! answer although the tool result above held it. An empty answer is never what the user asked
//! for, so this policy also reviews such answer-only turns, as `narration` does.
//!
//! The same model served so sometimes opens its first turn by writing out the tool definitions
//! its chat template put in the system prompt (`<tools>\n{"type": "function", "function":
//! {"name": "read_section", …`), up to the turn's token limit. That says nothing either: left to
//! `named-tool`, the first tool the echo lists was asked for, whichever it was.
//!
//! What the new turn must be: a call of the answer tool when the request offers it (its
//! `answer` is the run's answer, and the tool is callable even when other tools are not), else
//! a call of any tool when none has returned since the question, else a plain answer after the
//! reminder.

use wink_core::builtin::FINAL_ANSWER;
use wink_model::ModelRequest;

use super::text::{since_question, tool_result};
use super::{Action, TurnPolicy};

/// The `empty-answer` policy.
#[derive(Debug, Clone, Copy)]
pub struct EmptyAnswer;

impl TurnPolicy for EmptyAnswer {
    fn name(&self) -> &'static str {
        "empty-answer"
    }

    fn reviews_answer_only_turns(&self) -> bool {
        true
    }

    fn review(&self, request: &ModelRequest, answer: &str) -> Option<Action> {
        if !answer.trim().is_empty() && !only_echoes_tool_definitions(answer) {
            return None;
        }
        if request.tools.iter().any(|tool| tool.name == FINAL_ANSWER) {
            return Some(Action::RequireTool {
                tool: FINAL_ANSWER.to_owned(),
            });
        }
        let returned = since_question(request).any(|m| tool_result(m).is_some());
        let may_call = request.tool_choice == wink_model::ToolChoice::Auto;
        Some(if !returned && may_call && !request.tools.is_empty() {
            Action::RequireCall
        } else {
            Action::AskAgainAsText
        })
    }
}

/// Whether `answer` is nothing but tool definitions as a chat template writes them: a
/// `<tools>` block (closed or cut off by the token limit) with nothing after it, or a JSON object
/// of the shape `{"type": "function", "function": {…}}` from its first character, possibly cut off.
fn only_echoes_tool_definitions(answer: &str) -> bool {
    let text = answer.trim();
    if let Some(block) = text.strip_prefix("<tools>") {
        return block
            .split_once("</tools>")
            .is_none_or(|(_, after)| after.trim().is_empty());
    }
    let squeezed: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .take(40)
        .collect();
    squeezed.starts_with(r#"{"type":"function","function":{"#)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use wink_model::ToolChoice;

    use super::super::Action;
    use super::super::answer_tool::answer_tool_spec;
    use super::super::fixtures::*;

    #[test]
    fn an_empty_answer_after_a_result_asks_for_the_answer_tool_when_offered() {
        let mut r = after_result_of(request(&["lookup_order"]), "lookup_order");
        r.tools.push(answer_tool_spec());
        for answer in ["", "  \n"] {
            assert_eq!(
                repair(&r, answer),
                Some(Action::RequireTool {
                    tool: "final_answer".into()
                })
            );
        }
        // Also when the repetition guard had asked for an answer without tools.
        r.tool_choice = ToolChoice::None;
        assert_eq!(
            repair(&r, ""),
            Some(Action::RequireTool {
                tool: "final_answer".into()
            })
        );
        assert_eq!(repair(&r, "Order A-1042 shipped."), None);
    }

    #[test]
    fn without_the_answer_tool_an_empty_answer_asks_for_a_call_or_for_text() {
        let r = request(&["lookup_order"]);
        assert_eq!(repair(&r, ""), Some(Action::RequireCall));
        let after = after_result_of(r, "lookup_order");
        assert_eq!(repair(&after, ""), Some(Action::AskAgainAsText));
        let mut answering = request(&["lookup_order"]);
        answering.tool_choice = ToolChoice::None;
        assert_eq!(repair(&answering, ""), Some(Action::AskAgainAsText));
        assert_eq!(repair(&request(&[]), ""), Some(Action::AskAgainAsText));
    }

    #[test]
    fn an_answer_that_only_echoes_tool_definitions_is_an_empty_answer() {
        let mut r = request(&["read_section"]);
        r.tools.push(answer_tool_spec());
        let final_answer = Some(Action::RequireTool {
            tool: "final_answer".into(),
        });
        for echo in [
            "<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"read_section\", \"description\": \"Read the full",
            "<tools>\n{\"type\": \"function\"}\n</tools>\n",
            "{\"type\": \"function\", \"function\": {\"name\": \"read_section\"}}",
        ] {
            assert_eq!(repair(&r, echo), final_answer, "{echo}");
        }
        // An echo followed by an answer, or an answer quoting a definition, stands.
        for answer in [
            "<tools>{\"type\": \"function\"}</tools>\nReturn shipping is free over 50 EUR.",
            "The tool is {\"type\": \"function\", \"function\": {\"name\": \"x\"}}.",
        ] {
            assert_eq!(repair(&r, answer), None, "{answer}");
        }
    }

    #[test]
    fn a_turn_that_must_call_a_tool_is_not_reviewed() {
        let mut r = request(&["lookup_order"]);
        r.tool_choice = ToolChoice::Required;
        assert_eq!(repair(&r, ""), None);
    }
}
