//! `ungrounded`: an answer after results of the user's work that shares no word or number with
//! any of them ("This is the full content of the \"dates\" section." after `42 °C = 107.6 °F`)
//! lost the thread: it is asked for again as plain text, after a reminder. So is an answer that
//! says it lacks the information right after a tool returned it: measured on
//! Qwen2.5-Coder-1.5B, given a library card's loans it answered "I have no information about the
//! book you are asking about", and after placing a hold, "I don't know.".

use wink_model::ModelRequest;

use super::text::{domain_result_since_question, domain_results_since_question, words};
use super::{Action, TurnPolicy};

/// The `ungrounded` policy.
#[derive(Debug, Clone, Copy)]
pub struct Ungrounded;

/// Phrases of an answer that says it lacks the information.
const DENIALS: [&str; 5] = [
    "i don't know",
    "i do not know",
    "no information",
    "don't have any information",
    "do not have any information",
];

impl TurnPolicy for Ungrounded {
    fn name(&self) -> &'static str {
        "ungrounded"
    }

    fn review(&self, request: &ModelRequest, answer: &str) -> Option<Action> {
        if !domain_result_since_question(request) {
            return None;
        }
        let lower = answer.to_lowercase().replace('\u{2019}', "'");
        let latest_succeeded = domain_results_since_question(request)
            .next()
            .is_some_and(|result| !result.failed);
        if latest_succeeded && DENIALS.iter().any(|d| lower.contains(d)) {
            return Some(Action::AskAgainAsText);
        }
        let said = words(&lower, true);
        let grounded = domain_results_since_question(request).any(|result| {
            let found = words(&result.content.to_lowercase(), true);
            said.iter().any(|w| found.contains(w))
        });
        (!grounded).then_some(Action::AskAgainAsText)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use wink_core::{ToolArguments, ToolCall};
    use wink_model::Message;

    use super::super::Action;
    use super::super::fixtures::*;

    #[test]
    fn an_answer_sharing_nothing_with_the_results_is_asked_again() {
        let mut r = request(&["celsius_to_fahrenheit"]);
        let call = ToolCall {
            id: "call_0".into(),
            name: "celsius_to_fahrenheit".into(),
            arguments: ToolArguments::Json(json!({"celsius": 42})),
        };
        r.messages.push(Message::assistant_tool_calls(
            String::new(),
            vec![call.clone()],
        ));
        r.messages.push(Message::tool_result(
            &call,
            "42 °C = 107.6 °F\n\n{\"fahrenheit\": 107.6}",
        ));
        assert_eq!(
            repair(&r, "This is the full content of the \"dates\" section."),
            Some(Action::AskAgainAsText)
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
    fn an_answer_denying_what_the_latest_result_returned_is_asked_again() {
        let loans = with_result(
            request(&["member_loans"]),
            "member_loans",
            "loans of card 2231-0192: {\"loans\": [{\"title\": \"Piranesi\"}]}",
            false,
        );
        for denial in [
            "I have no information about the book you are asking about.",
            "I don\u{2019}t know.",
        ] {
            assert_eq!(
                repair(&loans, denial),
                Some(Action::AskAgainAsText),
                "{denial}"
            );
        }
        assert_eq!(repair(&loans, "You have Piranesi out."), None);
        // After a failed call, not knowing may be the answer.
        let failed = with_result(
            request(&["member_loans"]),
            "member_loans",
            "no card 12",
            true,
        );
        assert_eq!(repair(&failed, "I don't know card 12."), None);
    }
}
