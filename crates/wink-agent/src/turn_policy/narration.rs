//! `narration`: an answer given before any call since the question succeeded that narrates the
//! work it has yet to do ("To determine when order A-1042 will arrive, I need to look at the
//! file…") is asked for again as a call of any tool, the model choosing which: its own plan says
//! better than shared words which tool it needs. Measured on Qwen2.5-Coder-1.5B over an MCP
//! filesystem server: it went on to quote a file it made up. A failed call leaves the work
//! undone: after `leave_balance` failed on an id it made up ("ids look like E-104;
//! find_employee finds them"), the 1.5B answered "I would need to search for the employee ID in the employee directory".
//!
//! Once a domain tool has returned, an answer that narrates the work, or lists the steps to
//! follow, is asked for again as a plain answer, after the reminder: a plan is never the answer.
//! Measured on the 1.5B with the stock level in the result above: "To determine the number of
//! boxes of the M8 hex bolts in stock, I'll follow these steps: …", also when the repetition guard
//! had asked for the answer.

use wink_model::{ModelRequest, ToolChoice};

use super::text::{domain_results_since_question, since_question, tool_result};
use super::{Action, TurnPolicy};

/// The `narration` policy.
#[derive(Debug, Clone, Copy)]
pub struct Narration;

/// Phrases of an answer that narrates work the model has yet to do.
const NARRATION_PHRASES: [&str; 9] = [
    "i need to",
    "i'll need to",
    "i will need to",
    "i would need to",
    "i will first",
    "i'll first",
    "let me",
    "let's",
    "we need to",
];

/// Phrases of a plan given as the answer once results are in ("To place an order with Polytex
/// today, you need to follow these steps: …"), taken back only then: before any result the same
/// words may be a how-to answer from a section's text.
const PLAN_PHRASES: [&str; 2] = ["follow these steps", "the following steps"];

impl TurnPolicy for Narration {
    fn name(&self) -> &'static str {
        "narration"
    }

    fn reviews_answer_only_turns(&self) -> bool {
        true
    }

    fn review(&self, request: &ModelRequest, answer: &str) -> Option<Action> {
        let lower = answer.trim_start().to_lowercase();
        let narrates = NARRATION_PHRASES.iter().any(|p| lower.contains(p));
        if domain_results_since_question(request).any(|r| !r.failed) {
            let plans = narrates || PLAN_PHRASES.iter().any(|p| lower.contains(p));
            return plans.then_some(Action::AskAgainAsText);
        }
        if !narrates || request.tool_choice == ToolChoice::None {
            return None;
        }
        let succeeded = since_question(request)
            .filter_map(tool_result)
            .any(|r| !r.failed);
        let narrating = !succeeded && !request.callable_tools().is_empty();
        narrating.then_some(Action::RequireCall)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use wink_model::{Message, ToolChoice, ToolSpec};

    use super::super::Action;
    use super::super::fixtures::*;

    #[test]
    fn an_answer_narrating_its_own_plan_before_any_call_becomes_any_call() {
        let r = conversation(
            vec![Message::user("When will order A-1042 arrive?")],
            vec![
                ToolSpec::new(
                    "fs.list_directory",
                    "Get a detailed listing of all files and directories in a specified path.",
                    json!({"type": "object"}),
                ),
                ToolSpec::new(
                    "fs.read_text_file",
                    "Read the complete contents of a file from the file system as text.",
                    json!({"type": "object"}),
                ),
            ],
        );
        // As the 1.5B answered over the MCP filesystem server (examples/08_mcp_servers).
        let narration = "To determine when order A-1042 will arrive, I need to look at the file \
            `files/order_status.txt`. The file contains the following information:";
        assert_eq!(repair(&r, narration), Some(Action::RequireCall));
        assert_eq!(
            repair(&r, "Let me list the folder first."),
            Some(Action::RequireCall)
        );
        // An answer that narrates nothing stands.
        assert_eq!(repair(&r, "It arrives on 2026-11-25."), None);
        // After a failed call the work is still to do.
        let failed = with_result(r.clone(), "fs.list_directory", "no such folder", true);
        assert_eq!(
            repair(&failed, "I would need to look in another folder."),
            Some(Action::RequireCall)
        );
        // After a section read that succeeded, the narration rule is done: the other rules decide.
        let read = after_result_of(r.clone(), "read_section");
        assert_eq!(
            repair(&read, "I need to say: it arrives on 2026-11-25."),
            None
        );
        // No tool on offer: nothing to call.
        let bare = conversation(vec![Message::user("When?")], Vec::new());
        assert_eq!(repair(&bare, "Let me think: soon."), None);
    }

    #[test]
    fn a_plan_after_a_domain_result_is_asked_again_as_text() {
        let mut r = after_result_of(
            conversation(
                vec![Message::user("How many boxes of M8 bolts are in stock?")],
                vec![ToolSpec::new(
                    "stock_level",
                    "Stock on hand.",
                    json!({"type": "object"}),
                )],
            ),
            "stock_level",
        );
        let plan = "To determine if we need to reorder the M8 hex bolts, I'll follow these \
            steps: 1. get the stock level.";
        assert_eq!(repair(&r, plan), Some(Action::AskAgainAsText));
        // Also when the repetition guard had asked for the answer.
        r.tool_choice = ToolChoice::None;
        assert_eq!(repair(&r, plan), Some(Action::AskAgainAsText));
        let steps = "To place an order with Polytex today, you need to follow these steps: 1.";
        assert_eq!(repair(&r, steps), Some(Action::AskAgainAsText));
        assert_eq!(repair(&r, "14 boxes are in stock."), None);
        // In a free turn before any call, steps may be a how-to answer from a section: they stand.
        let how_to = conversation(
            vec![Message::user("How do I renew a loan?")],
            vec![ToolSpec::new(
                "renew_loan",
                "Renew a loan.",
                json!({"type": "object"}),
            )],
        );
        assert_eq!(repair(&how_to, "Follow these steps: 1. sign in."), None);
        // Before any result, an answer-only turn has nothing else to say.
        let mut before = conversation(vec![Message::user("How many?")], Vec::new());
        before.tool_choice = ToolChoice::None;
        assert_eq!(repair(&before, "Let me check the stock first."), None);
    }
}
