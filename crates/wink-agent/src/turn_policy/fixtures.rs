//! Conversations the turn policies' unit tests review.
#![allow(clippy::unwrap_used)]

use serde_json::json;
use wink_core::{ToolArguments, ToolCall};
use wink_model::{DeferredTool, Message, ModelRequest, ToolSpec};

use super::{Action, review};

/// What the whole pipeline does with `answer` to `request`.
pub(crate) fn repair(request: &ModelRequest, answer: &str) -> Option<Action> {
    let all: Vec<String> = wink_model::profile::ALL_TURN_POLICIES
        .iter()
        .map(|name| (*name).to_owned())
        .collect();
    review(&all, request, answer).map(|firing| firing.action)
}

pub(crate) fn tool(name: &str) -> ToolSpec {
    ToolSpec::new(name, "A tool.", json!({"type": "object"}))
}

pub(crate) fn conversation(messages: Vec<Message>, tools: Vec<ToolSpec>) -> ModelRequest {
    ModelRequest {
        messages,
        tools,
        ..ModelRequest::default()
    }
}

pub(crate) fn request(tools: &[&str]) -> ModelRequest {
    conversation(
        vec![Message::user("Has order A-1042 shipped?")],
        tools.iter().map(|n| tool(n)).collect(),
    )
}

/// `request` with `tools` deferred (hidden in a summarized section).
pub(crate) fn with_deferred(mut request: ModelRequest, tools: Vec<ToolSpec>) -> ModelRequest {
    request.deferred_tools = tools
        .into_iter()
        .map(|spec| DeferredTool {
            spec,
            section: "more".into(),
        })
        .collect();
    request
}

pub(crate) fn after_result_of(mut r: ModelRequest, name: &str) -> ModelRequest {
    let call = ToolCall {
        id: format!("call_{}", r.messages.len()),
        name: name.into(),
        arguments: ToolArguments::Json(json!({})),
    };
    r.messages.push(Message::assistant_tool_calls(
        String::new(),
        vec![call.clone()],
    ));
    r.messages
        .push(Message::tool_result(&call, format!("{name}: done")));
    r
}

pub(crate) fn shop_request(question: &str) -> ModelRequest {
    let schema =
        |p: &str| json!({"type": "object", "properties": {p: {"type": "string"}}, "required": [p]});
    conversation(
        vec![Message::user(question)],
        vec![
            ToolSpec::new(
                "lookup_order",
                "Look up an order by id: status, tracking number and delivery date.",
                schema("order_id"),
            ),
            ToolSpec::new(
                "track_parcel",
                "Tell where a parcel is now and when it arrives, by tracking number.",
                schema("tracking_number"),
            ),
            ToolSpec::new(
                "find_customer",
                "Find a customer by email: customer id, name and last order id.",
                schema("email"),
            ),
            ToolSpec::new("read_section", "Read a section.", schema("key")),
        ],
    )
}

pub(crate) fn with_result(
    mut r: ModelRequest,
    name: &str,
    content: &str,
    failed: bool,
) -> ModelRequest {
    let call = ToolCall {
        id: format!("call_{}", r.messages.len()),
        name: name.into(),
        arguments: ToolArguments::Json(json!({})),
    };
    r.messages.push(Message::assistant_tool_calls(
        String::new(),
        vec![call.clone()],
    ));
    r.messages.push(if failed {
        Message::tool_error(&call, content)
    } else {
        Message::tool_result(&call, content)
    });
    r
}
