//! Where a task tool's requests for input go (the Tasks extension with SEP-2322 input rounds),
//! with the Rust SDK's client at 2026-07-28: a tool whose input comes `Before` its task asks on
//! the call (no task yet) and the call that brings the answers starts the task, which runs with
//! them; a tool whose input comes `During` its task returns the task at once and asks through
//! it (`tasks/get` shows `input_required`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{client_2026, settled};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResponse, InputResponses};
use serde_json::json;
use wink_core::{
    MarkdownSection, Prompt, PromptTemplate, ToolBuilder, ToolContext, ToolRef, ToolResult,
};
use wink_mcp::{ClientInput, PromptServer, TaskInput, TaskTool};
use wink_session::Session;

/// A tool that asks for a name (state "round-1"), then greets it, naming the state it got back.
fn greeter(name: &str) -> ToolRef {
    ToolBuilder::dynamic(
        name,
        "Greets a person by name.",
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
        |_args, context: &mut ToolContext| match context.resource::<ClientInput>() {
            None => Ok(ToolResult::ok(
                "asking",
                json!({"resultType": "input_required", "requestState": "round-1",
                       "inputRequests": {"name": {"method": "elicitation/create", "params": {
                           "message": "Your name?",
                           "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}}}),
            )),
            Some(input) => Ok(ToolResult::message(format!(
                "Hello, {}! (state: {})",
                input.responses["name"]["content"]["name"]
                    .as_str()
                    .unwrap_or("?"),
                input.state.as_deref().unwrap_or("none")
            ))),
        },
    )
    .build()
    .unwrap()
}

fn server() -> PromptServer {
    let template = PromptTemplate::builder("demo", "tasks")
        .section(
            MarkdownSection::new("Greeting", "greeting", "Greet people.")
                .tool(greeter("greet_first"))
                .tool(greeter("greet_in_task")),
        )
        .build()
        .unwrap();
    PromptServer::new(Prompt::new(template), Session::new()).with_task_tools(vec![
        TaskTool::new("greet_first", true).with_input(TaskInput::Before),
        TaskTool::new("greet_in_task", true),
    ])
}

#[tokio::test]
async fn input_before_the_task_is_asked_on_the_call_and_input_during_it_through_the_task() {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = server();
    let serving =
        tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let client = client_2026(
        client_io,
        json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
    )
    .await;

    // Before: the first call asks, and no task exists yet.
    let first = client
        .call_tool_once(CallToolRequestParams::new("greet_first"))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("{first:?}");
    };
    let asked_json = serde_json::to_value(&asked).unwrap();
    assert_eq!(asked_json["resultType"], "input_required");
    assert_eq!(
        asked_json["inputRequests"]["name"]["params"]["message"],
        "Your name?"
    );
    assert!(asked_json.get("taskId").is_none(), "{asked_json}");
    // The sealed state is not the tool's own.
    let sealed = asked.request_state.clone().unwrap();
    assert_ne!(sealed, "round-1");

    // The call with the answer starts the task, which runs with it and the state.
    let mut answers = InputResponses::new();
    answers.insert(
        "name".into(),
        json!({"action": "accept", "content": {"name": "Alice"}}),
    );
    let mut retry = CallToolRequestParams::new("greet_first");
    retry.input_responses = Some(answers.clone());
    retry.request_state = Some(sealed.clone());
    let second = client.call_tool_once(retry).await.unwrap();
    let CallToolResponse::Task(created) = second else {
        panic!("{second:?}");
    };
    let created = serde_json::to_value(&created).unwrap();
    assert_eq!(created["resultType"], "task");
    assert!(created.get("requestState").is_none(), "{created}");
    let done = settled(&client, created["taskId"].as_str().unwrap(), &["working"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Hello, Alice! (state: round-1)"
    );

    // A changed state is refused before any task exists.
    let mut tampered = CallToolRequestParams::new("greet_first");
    tampered.input_responses = Some(answers);
    tampered.request_state = Some(format!("{sealed}x"));
    let refused = client.call_tool_once(tampered).await.unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("requestState was not issued for this request or was changed"),
        "{refused}"
    );

    // During: the call returns the task at once, and the task asks.
    let third = client
        .call_tool_once(CallToolRequestParams::new("greet_in_task"))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = third else {
        panic!("{third:?}");
    };
    let waiting = settled(&client, &created.task.task_id, &["working"]).await;
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    assert_eq!(
        waiting["inputRequests"]["name"]["params"]["message"],
        "Your name?"
    );

    client.cancel().await.unwrap();
    let _ = serving.await;
}
