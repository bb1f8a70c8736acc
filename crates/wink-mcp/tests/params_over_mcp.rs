//! A prompt's params over MCP: the arguments of its prompt (`prompts/list`, `prompts/get`) and
//! a resource template per section with params (`wink://NS/KEY/SECTION{?field,...}`), driven
//! by the official Rust SDK's client over an in-memory pipe.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rmcp::ServiceExt;
use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};
use wink_core::{FieldType, MarkdownSection, ParamField, ParamsType, Prompt, PromptTemplate};
use wink_mcp::PromptServer;
use wink_session::Session;

/// Sections `task` (shown) and `guide` (summarized) over the params `TaskParams`, `objective`
/// bound to "sums", `count` defaulting to 1; `about` has no params.
fn params_prompt() -> Prompt {
    let params = ParamsType::named(
        "TaskParams",
        vec![
            ParamField {
                name: "objective".into(),
                field_type: FieldType::String,
                default: None,
            },
            ParamField {
                name: "count".into(),
                field_type: FieldType::Integer,
                default: Some(json!(1)),
            },
        ],
    );
    let template = PromptTemplate::builder("demo", "params")
        .section(
            MarkdownSection::new("Task", "task", "Do ${objective} ${count} times.")
                .params_type(params.clone()),
        )
        .section(
            MarkdownSection::new("Guide", "guide", "A guide to ${objective}.")
                .params_type(params)
                .summary("How to do it.")
                .summarized(),
        )
        .section(MarkdownSection::new("About", "about", "No params here."))
        .build()
        .unwrap();
    Prompt::new(template).bind_json("TaskParams", json!({"objective": "sums"}))
}

fn text(contents: &ResourceContents) -> &str {
    match contents {
        ResourceContents::TextResourceContents { text, .. } => text,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn params_are_prompt_arguments_and_section_templates() {
    let server = PromptServer::new(params_prompt(), Session::new());
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let serving =
        tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let client = ().serve(client_io).await.unwrap();

    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(
        serde_json::to_value(&prompts[0].arguments).unwrap(),
        json!([
            {"name": "objective", "required": false,
             "description": "Field 'objective' of the params 'TaskParams' (a string); absent: \"sums\"."},
            {"name": "count", "required": false,
             "description": "Field 'count' of the params 'TaskParams' (an integer); absent: 1."}
        ])
    );
    let get = |arguments: Value| {
        let client = &client;
        async move {
            let mut request = GetPromptRequestParams::new("demo:params");
            request.arguments = arguments.as_object().cloned();
            client.get_prompt(request).await
        }
    };
    let prompt = get(json!({"count": "3"})).await.unwrap();
    let shown = serde_json::to_value(&prompt.messages[0].content).unwrap();
    assert_eq!(
        shown["text"].as_str().unwrap().lines().nth(2),
        Some("Do sums 3 times.")
    );
    let prompt = get(json!({"objective": "products", "count": 2}))
        .await
        .unwrap();
    let shown = serde_json::to_value(&prompt.messages[0].content).unwrap();
    assert_eq!(
        shown["text"].as_str().unwrap().lines().nth(2),
        Some("Do products 2 times.")
    );
    for (arguments, message) in [
        (
            json!({"count": "often"}),
            "Argument 'count': 'often' is not an integer (field 'count')",
        ),
        (
            json!({"nope": "1"}),
            "Unknown argument 'nope' of prompt 'demo:params'. Its arguments: objective, count.",
        ),
    ] {
        let error = get(arguments).await.unwrap_err();
        assert!(error.to_string().contains(message), "{error}");
    }

    let templates: Vec<(String, String)> = client
        .list_all_resource_templates()
        .await
        .unwrap()
        .into_iter()
        .map(|t| {
            (
                t.uri_template.clone(),
                t.description.clone().unwrap_or_default(),
            )
        })
        .collect();
    let described = "The section rendered with the given fields of the params 'TaskParams': objective (a string), count (an integer); a field left out keeps the served value.";
    assert_eq!(
        templates,
        [
            (
                "wink://demo/params/task{?objective,count}".to_owned(),
                described.to_owned()
            ),
            (
                "wink://demo/params/guide{?objective,count}".to_owned(),
                described.to_owned()
            ),
        ]
    );
    let read = |uri: &str| {
        let client = &client;
        let uri = uri.to_owned();
        async move {
            client
                .read_resource(ReadResourceRequestParams::new(uri))
                .await
        }
    };
    for (uri, expected) in [
        (
            "wink://demo/params/task",
            "## 1. Task (task)\n\nDo sums 1 times.",
        ),
        (
            "wink://demo/params/task?count=2",
            "## 1. Task (task)\n\nDo sums 2 times.",
        ),
        (
            "wink://demo/params/task?objective=long%20division&count=4",
            "## 1. Task (task)\n\nDo long division 4 times.",
        ),
        // A summarized section reads in full, with the fields given.
        (
            "wink://demo/params/guide?objective=tests",
            "## 2. Guide (guide)\n\nA guide to tests.",
        ),
    ] {
        let contents = read(uri).await.unwrap().contents;
        assert_eq!(text(&contents[0]), expected, "{uri}");
    }
    for (uri, message) in [
        (
            "wink://demo/params/task?nope=1",
            "Section 'task' has no param 'nope' (resource 'wink://demo/params/task?nope=1'); its params: objective, count.",
        ),
        (
            "wink://demo/params/task?count=x",
            "'x' is not an integer (field 'count') (resource 'wink://demo/params/task?count=x').",
        ),
        (
            "wink://demo/params/task?count=1&count=2",
            "Param 'count' is given twice (resource 'wink://demo/params/task?count=1&count=2').",
        ),
        (
            "wink://demo/params/about?count=1",
            "Section 'about' has no params to set (resource 'wink://demo/params/about?count=1').",
        ),
    ] {
        let error = read(uri).await.unwrap_err();
        assert!(error.to_string().contains(message), "{error}");
    }
    // The served params did not change.
    let contents = read("wink://demo/params/task").await.unwrap().contents;
    assert_eq!(text(&contents[0]), "## 1. Task (task)\n\nDo sums 1 times.");

    client.cancel().await.unwrap();
    let _ = serving.await;
}
