//! The builtin `ask_user` tool of `wink mcp serve` (a prompt file's `"mcp": {"ask_user": true}`):
//! the client's model asks the person at the client a question, through the client's
//! elicitation (an `elicitation/create` request with one `answer` field, a choice when
//! `choices` are given). The tool answers with what the person said, or that they declined or
//! dismissed the question.
//!
//! The tool asks in MCP's input form (SEP-2322 `input_required`): a 2026-07-28 client answers
//! and calls again; a handshake-era client gets the `elicitation/create` request on its
//! connection (`server_call`). A client that declared no elicitation is not offered the tool,
//! and a call from one fails with `-32021`.

use serde_json::{Value, json};
use wink_core::{ToolBuilder, ToolContext, ToolError, ToolRef, ToolResult};

use crate::call_input::ClientInput;

/// The tool's name.
pub const ASK_USER: &str = "ask_user";

/// The key of the tool's one input request.
const ANSWER: &str = "answer";

/// The `ask_user` tool.
pub(crate) fn ask_user_tool() -> Result<ToolRef, wink_core::PromptError> {
    let parameters = json!({
        "type": "object",
        "properties": {
            "question": {"type": "string", "description": "The question, as the person should read it."},
            "choices": {"type": "array", "items": {"type": "string"},
                        "description": "The answers the person may pick from; leave out for a free answer."}
        },
        "required": ["question"],
        "additionalProperties": false
    });
    ToolBuilder::dynamic(
        ASK_USER,
        "Ask the person using this client a question and wait for the answer (the client shows it as a form). Returns what they answered, or that they declined or dismissed the question.",
        parameters,
        ask,
    )
    .build()
}

fn ask(arguments: Value, context: &mut ToolContext) -> Result<ToolResult<Value>, ToolError> {
    let question = arguments["question"].as_str().unwrap_or_default();
    let Some(input) = context.resource::<ClientInput>() else {
        let mut answer = json!({"type": "string", "title": "Answer"});
        if let Some(choices) = arguments.get("choices").filter(|c| c.is_array()) {
            answer["enum"] = choices.clone();
        }
        let request = json!({
            "method": "elicitation/create",
            "params": {
                "message": question,
                "requestedSchema": {"type": "object", "properties": {ANSWER: answer}, "required": [ANSWER]}
            }
        });
        return Ok(ToolResult::ok(
            "Waiting for the person's answer.",
            json!({"resultType": "input_required", "inputRequests": {ANSWER: request}}),
        ));
    };
    Ok(answered(&input.responses[ANSWER]))
}

/// The tool's result for the client's answer to the elicitation.
fn answered(response: &Value) -> ToolResult<Value> {
    match response["action"].as_str() {
        Some("accept") => {
            let said = match &response["content"][ANSWER] {
                Value::String(text) => text.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            ToolResult::ok(
                format!("The person answered: {said}"),
                json!({"action": "accept", ANSWER: said}),
            )
            .excluding_value()
        }
        Some("decline") => ToolResult::ok(
            "The person declined to answer.",
            json!({"action": "decline"}),
        )
        .excluding_value(),
        Some("cancel") => ToolResult::ok(
            "The person dismissed the question without answering.",
            json!({"action": "cancel"}),
        )
        .excluding_value(),
        _ => ToolResult::failure(format!(
            "The client's answer to the question is not an elicitation result: {response}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_declines_and_dismissals_read_plainly() {
        let text = |response: Value| {
            let result = answered(&response);
            (result.message, result.success)
        };
        assert_eq!(
            text(json!({"action": "accept", "content": {"answer": "Paris"}})),
            ("The person answered: Paris".to_owned(), true)
        );
        assert_eq!(
            text(json!({"action": "accept", "content": {"answer": 3}})),
            ("The person answered: 3".to_owned(), true)
        );
        assert_eq!(
            text(json!({"action": "decline"})),
            ("The person declined to answer.".to_owned(), true)
        );
        assert_eq!(
            text(json!({"action": "cancel"})),
            (
                "The person dismissed the question without answering.".to_owned(),
                true
            )
        );
        assert_eq!(
            text(Value::Null),
            (
                "The client's answer to the question is not an elicitation result: null".to_owned(),
                false
            )
        );
    }
}
