//! Sub-agents on the MCP client's model (`PromptServer::with_client_model_subagents`), with the
//! Rust SDK's client at 2026-07-28: with the Tasks extension, `dispatch_subagent` runs as a
//! task and the child's model call is put to the client through it (`sampling/createMessage` in
//! `tasks/get`, answered by `tasks/update`); without the extension the call fails, naming what
//! the client lacks.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{client_2026, settled};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResponse, InputResponses, UpdateTaskParams};
use serde_json::json;
use wink_agent::{PromptRegistry, PromptSubagentToolsSection};
use wink_core::{MarkdownSection, Prompt, PromptTemplate};
use wink_mcp::PromptServer;
use wink_session::Session;

fn server() -> PromptServer {
    let registry = PromptRegistry::new();
    registry
        .register(
            PromptTemplate::builder("demo", "reviewer")
                .section(MarkdownSection::new(
                    "Role",
                    "role",
                    "You review one text and report its problems in one sentence.",
                ))
                .build()
                .unwrap(),
        )
        .unwrap();
    let subagents = PromptSubagentToolsSection::builder(registry)
        .build()
        .unwrap();
    let template = PromptTemplate::builder("demo", "lead")
        .section(MarkdownSection::new(
            "Task",
            "task",
            "Hand the review to the reviewer.",
        ))
        .section(subagents)
        .build()
        .unwrap();
    PromptServer::new(Prompt::new(template), Session::new()).with_client_model_subagents()
}

fn dispatch() -> CallToolRequestParams {
    let arguments = json!({"mode": "ad_hoc", "prompt_ns": "demo", "prompt_key": "reviewer",
                           "instructions": "Review the greeting 'hello'."});
    CallToolRequestParams::new("dispatch_subagent")
        .with_arguments(arguments.as_object().unwrap().clone())
}

#[tokio::test]
async fn a_subagent_asks_the_clients_model_through_its_task() {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = server();
    let serving =
        tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let client = client_2026(
        client_io,
        json!({"sampling": {"tools": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
    )
    .await;

    let response = client.call_tool_once(dispatch()).await.unwrap();
    let CallToolResponse::Task(created) = response else {
        panic!("{response:?}");
    };
    let task_id = created.task.task_id.clone();
    let waiting = settled(&client, &task_id, &["working"]).await;
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    let asked = &waiting["inputRequests"]["sample#0"];
    assert_eq!(asked["method"], "sampling/createMessage", "{waiting}");
    let params = &asked["params"];
    assert_eq!(params["maxTokens"], 4096);
    assert_eq!(params["messages"][0]["role"], "user");
    let task = params["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(task.contains("Review the greeting 'hello'."), "{task}");
    let system = params["systemPrompt"].as_str().unwrap();
    assert!(
        system.contains("You review one text and report its problems in one sentence."),
        "{system}"
    );

    let mut answers = InputResponses::new();
    answers.insert(
        "sample#0".into(),
        json!({"role": "assistant", "model": "client-llm", "stopReason": "endTurn",
               "content": {"type": "text", "text": "The greeting is fine."}}),
    );
    client
        .update_task(UpdateTaskParams::new(&task_id, answers))
        .await
        .unwrap();
    let done = settled(&client, &task_id, &["working", "input_required"]).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], json!(false), "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "The greeting is fine."
    );

    client.cancel().await.unwrap();
    let _ = serving.await;
}

#[tokio::test]
async fn without_tasks_a_2026_client_is_told_what_it_lacks() {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = server();
    let serving =
        tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let client = client_2026(client_io, json!({"sampling": {}})).await;

    let response = client.call_tool_once(dispatch()).await.unwrap();
    let CallToolResponse::Complete(result) = response else {
        panic!("{response:?}");
    };
    let result = serde_json::to_value(result).unwrap();
    assert_eq!(result["isError"], json!(true), "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("a 2026-07-28 MCP client answers this server's sampling requests for a sub-agent only through a task: negotiate the Tasks extension (io.modelcontextprotocol/tasks), or start `wink mcp serve` with --model to run sub-agents on another model"),
        "{text}"
    );

    client.cancel().await.unwrap();
    let _ = serving.await;
}
