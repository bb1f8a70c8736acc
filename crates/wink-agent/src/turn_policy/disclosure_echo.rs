//! `disclosure-echo`: an answer that only names the disclosing builtins (`read_section`,
//! `find_tool`, …) once the work has begun is asked for again as plain text.
//!
//! After a tool result the model sometimes answers with a line of the prompt instead of the
//! result — most often a summarized section's suffix ("To view full content, call `read_section`
//! with key \"conversions\".", measured on Qwen2.5-Coder-1.5B after an `add` result that already
//! held the answer). Opening a section is not what the user needs then. Likewise after a failed
//! disclosure call (its error already said what to do: the 1.5B, told `Section 'glossary' is
//! shown in full already`, answered "you can call the `read_section` function with the key
//! "glossary.dreich"") and after a section was read successfully since the question (with
//! pre-opening by calls, the 1.5B answered "you can call the `read_section` function with the key
//! `providers-reliability`" with the answer in the result just above).

use wink_core::builtin::discloses_content;
use wink_model::ModelRequest;

use super::named_tool::described_tool;
use super::text::{
    calls_of, domain_results_since_question, named_tools, since_question, tool_result,
};
use super::{Action, TurnPolicy};

/// The `disclosure-echo` policy.
#[derive(Debug, Clone, Copy)]
pub struct DisclosureEcho;

impl TurnPolicy for DisclosureEcho {
    fn name(&self) -> &'static str {
        "disclosure-echo"
    }

    fn review(&self, request: &ModelRequest, answer: &str) -> Option<Action> {
        described_tool(request, answer)?;
        let named = named_tools(request, answer);
        if named.is_empty() || !named.iter().all(|name| discloses_content(name)) {
            return None;
        }
        // A failed call of another tool is not the work begun: an unknown tool's result says
        // which disclosing builtin to call (`tool.describe` for a catalog tool), and an answer
        // describing that call is taken back by `named-tool`, which asks for it.
        let begun = failed_disclosure_since_question(request)
            || names_a_section_read(request, answer)
            || domain_results_since_question(request).any(|result| !result.failed);
        begun.then_some(Action::AskAgainAsText)
    }
}

/// Has a disclosure call failed since the question?
fn failed_disclosure_since_question(request: &ModelRequest) -> bool {
    since_question(request)
        .filter_map(tool_result)
        .any(|r| r.failed && discloses_content(r.name))
}

/// Does `answer` name a section whose reading succeeded since the question?
fn names_a_section_read(request: &ModelRequest, answer: &str) -> bool {
    let succeeded = |id: &str| {
        since_question(request)
            .filter_map(tool_result)
            .any(|r| r.call_id == id && !r.failed)
    };
    since_question(request)
        .flat_map(calls_of)
        .filter(|call| discloses_content(&call.name) && succeeded(&call.id))
        .flat_map(|call| section_keys(&call.arguments.to_value()))
        .any(|key| !key.is_empty() && answer.contains(key.as_str()))
}

/// The section keys a disclosure call names (`section_key`, `section_keys`).
fn section_keys(arguments: &serde_json::Value) -> Vec<String> {
    let one = arguments
        .get("section_key")
        .and_then(serde_json::Value::as_str);
    let many = arguments
        .get("section_keys")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str);
    one.into_iter().chain(many).map(str::to_owned).collect()
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
    fn after_a_domain_result_an_answer_naming_only_disclosure_tools_is_asked_again() {
        let r = after_result_of(request(&["add", "read_section"]), "add");
        let echo = "To view full content, call `read_section` with key \"conversions\".";
        assert_eq!(repair(&r, echo), Some(Action::AskAgainAsText));
        // Before any domain result the same words are an intent to read the section.
        let fresh = request(&["add", "read_section"]);
        assert_eq!(
            repair(&fresh, echo),
            Some(Action::RequireTool {
                tool: "read_section".into()
            })
        );
        let read = after_result_of(request(&["add", "read_section"]), "read_section");
        assert_eq!(
            repair(&read, echo),
            Some(Action::RequireTool {
                tool: "read_section".into()
            })
        );
    }

    #[test]
    fn the_describe_call_an_unknown_tool_result_asked_for_is_required_not_taken_back() {
        let answer = "To reverse the word 'stressed', call `tool.describe` with names [\"reverse\"] first: that makes it callable.";
        let r = with_result(
            request(&["tool.describe", "find_tool"]),
            "reverse",
            "Unknown tool 'reverse'. If it is in the tool catalog, call `tool.describe` with names [\"reverse\"] first: that makes it callable. Available tools: tool.describe, find_tool.",
            true,
        );
        assert_eq!(
            repair(&r, answer),
            Some(Action::RequireTool {
                tool: "tool.describe".into()
            })
        );
    }

    #[test]
    fn a_described_disclosure_call_after_a_failed_one_is_asked_again_as_text() {
        let answer = "To get the definition of 'dreich', you can call the `read_section` function with the key \"glossary.dreich\".";
        let failed = with_result(
            shop_request("What does 'dreich' mean?"),
            "read_section",
            "Unknown section key: 'glossary.dreich'. Section 'glossary' is shown in full already: answer from its text above.",
            true,
        );
        assert_eq!(repair(&failed, answer), Some(Action::AskAgainAsText));
        // Without the failure, the described call is made.
        let fresh = shop_request("What does 'dreich' mean?");
        assert!(matches!(
            repair(&fresh, answer),
            Some(Action::RequireTool { .. } | Action::RequireCall)
        ));
    }

    #[test]
    fn a_described_read_of_a_section_read_already_is_asked_again_as_text() {
        let read = ToolCall {
            id: "preopen_0".into(),
            name: "read_section".into(),
            arguments: ToolArguments::Json(json!({"section_key": "providers-reliability"})),
        };
        let with_read = |result: Message| {
            conversation(
                vec![
                    Message::system("Answer from the docs."),
                    Message::user("What is the connect timeout of the HTTP providers?"),
                    Message::assistant_tool_calls("", vec![read.clone()]),
                    result,
                ],
                vec![tool("read_section")],
            )
        };
        let read_ok = with_read(Message::tool_result(
            &read,
            "Content of section 'providers-reliability': connect (10 s)",
        ));
        let answer = "To get the connect timeout, you can call the `read_section` function with the key `providers-reliability`.";
        assert_eq!(repair(&read_ok, answer), Some(Action::AskAgainAsText));
        // Another section, not read yet: the described read is made.
        let other =
            "To get it, you can call the `read_section` function with the key `providers-http`.";
        assert_eq!(
            repair(&read_ok, other),
            Some(Action::RequireTool {
                tool: "read_section".into()
            })
        );
        // A read that failed is not a section read.
        let read_failed = with_read(Message::tool_error(&read, "Unknown section key."));
        assert_eq!(
            repair(&read_failed, answer),
            Some(Action::AskAgainAsText),
            "a failed disclosure call answers as text already"
        );
    }
}
