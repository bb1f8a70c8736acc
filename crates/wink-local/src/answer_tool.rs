//! The answer tool: a `final_answer` tool the embedded model may call to give its answer.
//!
//! Small models that have tools on offer keep calling them after the work is done. Measured on
//! Qwen2.5-Coder-1.5B, following a skill whose last step is "Answer with the label alone": after it
//! labelled the ticket, its most likely turn was another call (a ```json fence: 37%, a bare object:
//! 24%), and it called `close_ticket`, which nothing asked for. With a `final_answer` tool listed
//! last, the same conversation ended with `final_answer({"answer": "Ticket T-7 labelled billing."})`;
//! the earlier turns were the same calls as without it. Ending by a call is the form a model trained
//! on tool use takes most readily (as smolagents' agents end with `final_answer`).
//!
//! It joins once the work has begun: when [`crate::LocalModelConfig::answer_tool`] is on, the
//! request offers tools (none of them named `final_answer`) and a tool other than the disclosure
//! ones ([`DISCLOSURE_TOOLS`]) has returned successfully since the last user message, the answer
//! tool is announced after that result (a [`ToolAddition`], written at the end of the result's turn
//! as tools disclosed mid-conversation are), so everything before it stays as it was and the KV
//! cache keeps it. Listed with the other tools from the first call instead, it changed what the
//! model did first: over `bench/eval` the 1.5B passed 25 of 33 tasks instead of 33, answering a
//! catalog question from memory through `final_answer` and calling the wrong tool first in a
//! multi-step shop task.
//!
//! A free turn ([`DecodingConstraint::Auto`]) may call it; a turn constrained to a call
//! ([`DecodingConstraint::RequireTool`], [`DecodingConstraint::RequireNamedTool`]) may not: the
//! constraint asks for the work. A turn whose only call is `final_answer` comes back as the answer
//! text ([`LocalCompletion::text`], no tool call), so the loop, call repair and structured output
//! see an ordinary answer; beside other calls it is dropped (the answer comes after their results).
//! The tool never reaches the loop, the session or a transcript. The turn is written back into
//! later prompts as text, so a conversation that goes on after an answer (a next user message)
//! evaluates that turn again.

use std::borrow::Cow;

use serde_json::{Value, json};
use wink_core::ToolArguments;
use wink_model::{Message, ModelRequest, ToolAddition, ToolSpec};

use crate::completion::{DecodingConstraint, LocalCompletion};
use crate::repair::{ANSWER_REMINDER, DISCLOSURE_TOOLS, json_objects};

/// The answer tool's name.
pub const ANSWER_TOOL: &str = "final_answer";

/// The answer tool's spec: one string parameter, `answer`, with no description of its own
/// (Qwen2.5-Coder-0.5B answered with the description it had once: "The answer, as the user
/// reads it.").
#[must_use]
pub fn answer_tool_spec() -> ToolSpec {
    ToolSpec::new(
        ANSWER_TOOL,
        "Give your final answer to the user, once every step the task asks for is done. The run ends with it.",
        json!({
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"],
            "additionalProperties": false
        }),
    )
}

/// Where the answer tool joins `request`, which may call `callable`: the index of the message after
/// which it is announced — the last of the tool results that hold the first successful result of a
/// tool other than the disclosure ones ([`DISCLOSURE_TOOLS`]) since the last user message. `None`
/// before that, when no tool is callable, or when one is named [`ANSWER_TOOL`].
#[must_use]
pub fn joins_after(request: &ModelRequest, callable: &[ToolSpec]) -> Option<usize> {
    if callable.is_empty() || callable.iter().any(|tool| tool.name == ANSWER_TOOL) {
        return None;
    }
    // An answer repair's reminder, given to one generation only, is not a question: the tool
    // stays where the conversation has it, and the KV cache with it.
    let messages = match request.messages.split_last() {
        Some((Message::User { content }, earlier)) if content == ANSWER_REMINDER => earlier,
        _ => &request.messages[..],
    };
    let question = messages
        .iter()
        .rposition(|message| matches!(message, Message::User { .. }))
        .map_or(0, |index| index + 1);
    let first = (question..messages.len()).find(|&index| {
        matches!(&messages[index], Message::Tool { name, is_error: false, .. }
            if !DISCLOSURE_TOOLS.contains(&name.as_str()))
    })?;
    let results_end = (first..messages.len())
        .take_while(|&index| matches!(messages[index], Message::Tool { .. }))
        .last()
        .unwrap_or(first);
    Some(results_end)
}

/// `request` with the answer tool announced after message `after` ([`joins_after`]), when there.
pub(crate) fn listed(request: &ModelRequest, after: Option<usize>) -> Cow<'_, ModelRequest> {
    let Some(after_message) = after else {
        return Cow::Borrowed(request);
    };
    let mut listing = request.clone();
    listing.tools.push(answer_tool_spec());
    listing.tool_additions.push(ToolAddition {
        after_message,
        section: String::new(),
        tools: vec![ANSWER_TOOL.to_owned()],
    });
    Cow::Owned(listing)
}

/// The tools a turn under `constraint` may call: `callable`, and the answer tool when `on` and the
/// turn is free.
pub(crate) fn callable_in_turn(
    mut callable: Vec<ToolSpec>,
    constraint: &DecodingConstraint,
    on: bool,
) -> Vec<ToolSpec> {
    if on && *constraint == DecodingConstraint::Auto {
        callable.push(answer_tool_spec());
    }
    callable
}

/// Takes the answer tool's calls out of `turn`: a turn whose only call is one becomes its answer
/// text; beside other calls they are dropped. Returns whether the turn became an answer.
pub(crate) fn take_answer(turn: &mut LocalCompletion) -> bool {
    if !turn.tool_calls.iter().any(|call| call.name == ANSWER_TOOL) {
        return false;
    }
    let (answers, work): (Vec<_>, Vec<_>) = turn
        .tool_calls
        .drain(..)
        .partition(|call| call.name == ANSWER_TOOL);
    turn.tool_calls = work;
    if !turn.tool_calls.is_empty() {
        return false;
    }
    let text = answers
        .iter()
        .map(|call| answer_text(&call.arguments))
        .collect::<Vec<_>>()
        .join("\n\n");
    let trimmed = text.trim();
    turn.text = (!trimmed.is_empty()).then(|| trimmed.to_owned());
    true
}

/// The answer of a text that describes a call of the answer tool instead of making it: the
/// `answer` string of the first JSON object in `text`, when `text` names [`ANSWER_TOOL`].
/// Measured on Qwen2.5-Coder-1.5B, after `km_to_miles` returned: "To give the final answer, use
/// the `final_answer` function:" and a fenced `{"answer": "42 km = 26.1 miles"}`; call repair
/// took that for a procedure and made it call `miles_to_km`.
#[must_use]
pub fn described_answer(text: &str) -> Option<String> {
    if !text.contains(ANSWER_TOOL) {
        return None;
    }
    json_objects(text).find_map(|object| {
        let answer = object.get("answer")?.as_str()?.trim();
        (!answer.is_empty()).then(|| answer.to_owned())
    })
}

/// The `answer` argument of a call (a non-string value as its JSON text).
fn answer_text(arguments: &ToolArguments) -> String {
    match arguments.to_value().get("answer") {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::completion::{LocalTimings, LocalUsage};
    use wink_core::ToolCall;

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

    fn turn(calls: Vec<ToolCall>) -> LocalCompletion {
        LocalCompletion {
            text: None,
            tool_calls: calls,
            usage: LocalUsage::default(),
            timings: LocalTimings::default(),
        }
    }

    fn request(messages: Vec<Message>) -> ModelRequest {
        ModelRequest {
            messages,
            tools: vec![tool("add")],
            ..ModelRequest::default()
        }
    }

    #[test]
    fn joins_after_the_first_successful_work_result_since_the_question() {
        let add = call("add", json!({"a": 1}));
        let read = call("read_section", json!({"section_key": "notes"}));
        let callable = [tool("add")];
        // Before any result, and after disclosure reads and failures only: not offered.
        let asked = vec![Message::user("Add 1 and 2.")];
        assert_eq!(joins_after(&request(asked.clone()), &callable), None);
        let mut messages = asked;
        messages.push(Message::assistant_tool_calls("", vec![read.clone()]));
        messages.push(Message::tool_result(&read, "Notes."));
        messages.push(Message::assistant_tool_calls("", vec![add.clone()]));
        messages.push(Message::tool_error(&add, "bad arguments"));
        assert_eq!(joins_after(&request(messages.clone()), &callable), None);
        // After the first successful result, and the results beside it: offered from there on.
        messages.push(Message::assistant_tool_calls(
            "",
            vec![add.clone(), read.clone()],
        ));
        messages.push(Message::tool_result(&add, "3"));
        messages.push(Message::tool_result(&read, "Notes."));
        assert_eq!(joins_after(&request(messages.clone()), &callable), Some(7));
        messages.push(Message::assistant_tool_calls("", vec![add.clone()]));
        messages.push(Message::tool_result(&add, "3"));
        assert_eq!(joins_after(&request(messages.clone()), &callable), Some(7));
        // An answer repair's reminder is not a new question.
        let mut reminded = messages.clone();
        reminded.push(Message::user(ANSWER_REMINDER));
        assert_eq!(joins_after(&request(reminded), &callable), Some(7));
        // A new question starts again; no tools, or a tool of its own name: never.
        messages.push(Message::user("And 2 and 3?"));
        assert_eq!(joins_after(&request(messages.clone()), &callable), None);
        assert_eq!(joins_after(&request(messages.clone()), &[]), None);
        let named = [tool("add"), tool(ANSWER_TOOL)];
        messages.push(Message::assistant_tool_calls("", vec![add.clone()]));
        messages.push(Message::tool_result(&add, "5"));
        assert_eq!(joins_after(&request(messages.clone()), &callable), Some(12));
        assert_eq!(joins_after(&request(messages), &named), None);
    }

    #[test]
    fn is_callable_only_in_a_free_turn() {
        let callable = [tool("add")];
        let names = |constraint: DecodingConstraint, on: bool| {
            callable_in_turn(callable.to_vec(), &constraint, on)
                .into_iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(DecodingConstraint::Auto, true), ["add", ANSWER_TOOL]);
        assert_eq!(names(DecodingConstraint::Auto, false), ["add"]);
        assert_eq!(names(DecodingConstraint::RequireTool, true), ["add"]);
        assert_eq!(
            names(DecodingConstraint::RequireNamedTool("add".into()), true),
            ["add"]
        );
    }

    #[test]
    fn is_announced_after_the_message_it_joins_after() {
        let request = request(vec![Message::user("Add 1 and 2.")]);
        let listing = listed(&request, Some(0));
        let names: Vec<_> = listing.tools.iter().map(|t| t.name.clone()).collect();
        assert_eq!(names, ["add", ANSWER_TOOL]);
        assert_eq!(
            listing.tool_additions,
            [ToolAddition {
                after_message: 0,
                section: String::new(),
                tools: vec![ANSWER_TOOL.to_owned()],
            }]
        );
        assert!(matches!(listed(&request, None), Cow::Borrowed(_)));
    }

    #[test]
    fn a_lone_answer_call_becomes_the_answer_text() {
        let mut answered = turn(vec![call(
            ANSWER_TOOL,
            json!({"answer": "  Ticket T-7 labelled billing. "}),
        )]);
        assert!(take_answer(&mut answered));
        assert_eq!(
            answered.text.as_deref(),
            Some("Ticket T-7 labelled billing.")
        );
        assert!(answered.tool_calls.is_empty());

        let mut empty = turn(vec![call(ANSWER_TOOL, json!({"answer": ""}))]);
        assert!(take_answer(&mut empty));
        assert_eq!(empty.text, None);

        let mut number = turn(vec![call(ANSWER_TOOL, json!({"answer": 42}))]);
        assert!(take_answer(&mut number));
        assert_eq!(number.text.as_deref(), Some("42"));
    }

    #[test]
    fn a_described_answer_call_gives_its_answer() {
        assert_eq!(
            described_answer(
                "To give the final answer, use the `final_answer` function:\n```\n{\"answer\": \"42 km = 26.1 miles\"}\n```"
            )
            .as_deref(),
            Some("42 km = 26.1 miles")
        );
        // The object with the answer may follow others; the tool must be named.
        assert_eq!(
            described_answer("final_answer {x} {\"a\": 1} {\"answer\": \"yes\"}").as_deref(),
            Some("yes")
        );
        assert_eq!(described_answer("{\"answer\": \"yes\"}"), None);
        assert_eq!(
            described_answer("Use final_answer with {\"answer\": \" \"}"),
            None
        );
        assert_eq!(described_answer("Use final_answer."), None);
    }

    #[test]
    fn beside_other_calls_the_answer_call_is_dropped() {
        let mut mixed = turn(vec![
            call("add", json!({"a": 1})),
            call(ANSWER_TOOL, json!({"answer": "3"})),
        ]);
        assert!(!take_answer(&mut mixed));
        assert_eq!(mixed.text, None);
        assert_eq!(mixed.tool_calls, [call("add", json!({"a": 1}))]);

        let mut work = turn(vec![call("add", json!({"a": 1}))]);
        assert!(!take_answer(&mut work));
        assert_eq!(work.tool_calls.len(), 1);
    }
}
