//! The answer tool: a `final_answer` tool whose call gives the turn's answer.
//!
//! Small models that have tools on offer keep calling them after the work is done. Measured on
//! Qwen2.5-Coder-1.5B, following a skill whose last step is "Answer with the label alone": after
//! it labelled the ticket, its most likely turn was another call, and it called `close_ticket`,
//! which nothing asked for. With a `final_answer` tool on offer, the same conversation ended with
//! `final_answer({"answer": "Ticket T-7 labelled billing."})`. Ending by a call is the form a model
//! trained on tool use takes most readily (smolagents' agents end with `final_answer` too).
//!
//! It joins once the work has begun: when the profile offers it, the request offers tools (none
//! named `final_answer`) and a tool other than the disclosing builtins has returned successfully
//! since the question, the tool is added after that result (a [`ToolAddition`], announced where
//! tools disclosed mid-conversation are), so everything before it stays as it was and a prefix
//! cache keeps it. Offered from the first call instead, it changed what the 1.5B did first (25 of
//! 33 `bench/eval` tasks instead of 33).
//!
//! A turn whose only calls are of `final_answer` is the answer ([`take_answer`]); beside other
//! calls they are dropped (the answer comes after their results). A turn asked again as a call
//! (a turn policy's [`super::Action::RequireCall`]) should not pick it: the embedded model's
//! grammar leaves it out there; an HTTP provider may still call it, which then is the answer.

use serde_json::{Value, json};
use wink_core::ToolCall;
use wink_core::builtin::{FINAL_ANSWER, discloses_content};
use wink_model::{Message, ToolAddition, ToolSpec};

/// The answer tool's spec: one string parameter, `answer`, with no description of its own
/// (Qwen2.5-Coder-0.5B answered with the description it had once: "The answer, as the user
/// reads it.").
#[must_use]
pub fn answer_tool_spec() -> ToolSpec {
    ToolSpec::new(
        FINAL_ANSWER,
        "Give your final answer to the user, once every step the task asks for is done. The run ends with it.",
        json!({
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"],
            "additionalProperties": false
        }),
    )
}

/// Where the answer tool joins a conversation of `messages` offering `tools`: the index of the
/// message after which it is announced — the last of the tool results that hold the first
/// successful result of a tool other than the disclosing builtins since the question. `None`
/// before that, when no tool is offered, or when one is named [`FINAL_ANSWER`].
#[must_use]
pub fn joins_after(messages: &[Message], tools: &[ToolSpec]) -> Option<usize> {
    if tools.is_empty() || tools.iter().any(|tool| tool.name == FINAL_ANSWER) {
        return None;
    }
    let question = messages
        .iter()
        .rposition(|message| matches!(message, Message::User { .. }))
        .map_or(0, |index| index + 1);
    let first = (question..messages.len()).find(|&index| {
        matches!(&messages[index], Message::Tool { name, is_error: false, .. }
            if !discloses_content(name))
    })?;
    let results_end = (first..messages.len())
        .take_while(|&index| matches!(messages[index], Message::Tool { .. }))
        .last()
        .unwrap_or(first);
    Some(results_end)
}

/// The addition that announces the answer tool after message `after_message`.
#[must_use]
pub fn answer_tool_addition(after_message: usize) -> ToolAddition {
    ToolAddition {
        after_message,
        section: String::new(),
        tools: vec![FINAL_ANSWER.to_owned()],
    }
}

/// The answer of a turn whose calls are all of the answer tool (its `answer` arguments joined,
/// trimmed; `Some("")` for an empty one); `None` when the turn calls anything else, or nothing.
#[must_use]
pub fn take_answer(calls: &[ToolCall]) -> Option<String> {
    if calls.is_empty() || calls.iter().any(|call| call.name != FINAL_ANSWER) {
        return None;
    }
    let text = calls
        .iter()
        .map(|call| answer_text(&call.arguments.to_value()))
        .collect::<Vec<_>>()
        .join("\n\n");
    Some(text.trim().to_owned())
}

/// The `answer` argument of a call (a non-string value as its JSON text).
fn answer_text(arguments: &Value) -> String {
    match arguments.get("answer") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wink_core::ToolArguments;

    fn tool(name: &str) -> ToolSpec {
        ToolSpec::new(name, "", json!({"type": "object"}))
    }

    fn call(name: &str, arguments: Value) -> ToolCall {
        ToolCall {
            id: format!("call_{name}"),
            name: name.to_owned(),
            arguments: ToolArguments::Json(arguments),
        }
    }

    #[test]
    fn joins_after_the_first_successful_work_result_since_the_question() {
        let add = call("add", json!({"a": 1}));
        let read = call("read_section", json!({"section_key": "notes"}));
        let tools = [tool("add")];
        // Before any result, and after disclosure reads and failures only: not offered.
        let mut messages = vec![Message::user("Add 1 and 2.")];
        assert_eq!(joins_after(&messages, &tools), None);
        messages.push(Message::assistant_tool_calls("", vec![read.clone()]));
        messages.push(Message::tool_result(&read, "Notes."));
        messages.push(Message::assistant_tool_calls("", vec![add.clone()]));
        messages.push(Message::tool_error(&add, "bad arguments"));
        assert_eq!(joins_after(&messages, &tools), None);
        // After the first successful result, and the results beside it: offered from there on.
        messages.push(Message::assistant_tool_calls(
            "",
            vec![add.clone(), read.clone()],
        ));
        messages.push(Message::tool_result(&add, "3"));
        messages.push(Message::tool_result(&read, "Notes."));
        assert_eq!(joins_after(&messages, &tools), Some(7));
        messages.push(Message::assistant_tool_calls("", vec![add.clone()]));
        messages.push(Message::tool_result(&add, "3"));
        assert_eq!(joins_after(&messages, &tools), Some(7));
        // A new question starts again; no tools, or a tool of its own name: never.
        messages.push(Message::user("And 2 and 3?"));
        assert_eq!(joins_after(&messages, &tools), None);
        assert_eq!(joins_after(&messages, &[]), None);
        let named = [tool("add"), tool(FINAL_ANSWER)];
        messages.push(Message::assistant_tool_calls("", vec![add.clone()]));
        messages.push(Message::tool_result(&add, "5"));
        assert_eq!(joins_after(&messages, &tools), Some(12));
        assert_eq!(joins_after(&messages, &named), None);
    }

    #[test]
    fn a_turn_of_answer_calls_only_is_the_answer() {
        let answered = [call(
            FINAL_ANSWER,
            json!({"answer": "  Ticket T-7 labelled billing. "}),
        )];
        assert_eq!(
            take_answer(&answered).as_deref(),
            Some("Ticket T-7 labelled billing.")
        );
        assert_eq!(
            take_answer(&[call(FINAL_ANSWER, json!({"answer": ""}))]).as_deref(),
            Some("")
        );
        assert_eq!(
            take_answer(&[call(FINAL_ANSWER, json!({"answer": 42}))]).as_deref(),
            Some("42")
        );
        let mixed = [
            call("add", json!({"a": 1})),
            call(FINAL_ANSWER, json!({"answer": "3"})),
        ];
        assert_eq!(take_answer(&mixed), None);
        assert_eq!(take_answer(&[]), None);
    }
}
