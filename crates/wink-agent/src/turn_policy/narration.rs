//! `narration`: an answer given before any call since the question that narrates the work it
//! has yet to do ("To determine when order A-1042 will arrive, I need to look at the file…") is
//! asked for again as a call of any tool, the model choosing which: its own plan says better than
//! shared words which tool it needs. Measured on Qwen2.5-Coder-1.5B over an MCP filesystem
//! server: it went on to quote a file it made up.

use wink_model::ModelRequest;

use super::text::{call_since_question, callable_tools};
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

impl TurnPolicy for Narration {
    fn name(&self) -> &'static str {
        "narration"
    }

    fn review(&self, request: &ModelRequest, answer: &str) -> Option<Action> {
        let lower = answer.trim_start().to_lowercase();
        let narrating = !call_since_question(request)
            && !callable_tools(request).is_empty()
            && NARRATION_PHRASES.iter().any(|p| lower.contains(p));
        narrating.then_some(Action::RequireCall)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use wink_model::{Message, ToolSpec};

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
        // After a call since the question, the narration rule is done: the other rules decide.
        let called = after_result_of(r.clone(), "fs.list_directory");
        assert_eq!(
            repair(
                &called,
                "I need to say: it arrives on 2026-11-25 (fs.list_directory: done)."
            ),
            None
        );
        // No tool on offer: nothing to call.
        let bare = conversation(vec![Message::user("When?")], Vec::new());
        assert_eq!(repair(&bare, "Let me think: soon."), None);
    }
}
