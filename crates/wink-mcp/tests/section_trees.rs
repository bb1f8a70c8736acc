//! A tree of summarized groups over MCP (rmcp's own client, in-memory transport): the prompt lists
//! one line per group, `search_sections` is offered and finds a nested section, `read_section`
//! lists a group's sections and gives a leaf's text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::json;
use wink_core::{MarkdownSection, Prompt, PromptTemplate, SearchSections};
use wink_mcp::PromptServer;
use wink_session::Session;

fn leaf(title: &str, key: &str, body: &str, summary: &str) -> MarkdownSection {
    MarkdownSection::new(title, key, body)
        .summary(summary)
        .summarized()
}

fn manual() -> Prompt {
    let template = PromptTemplate::builder("demo", "manual")
        .search_sections(SearchSections::On)
        .section(MarkdownSection::new(
            "Task",
            "task",
            "Answer from the manual.",
        ))
        .section(
            leaf(
                "Network",
                "net",
                "Network settings.",
                "Ports, proxies and timeouts.",
            )
            .child(leaf(
                "Ports",
                "ports",
                "The server listens on port 7878.",
                "Which ports are used.",
            ))
            .child(leaf(
                "Proxies",
                "proxies",
                "Set HTTPS_PROXY to use a proxy.",
                "Proxy settings.",
            )),
        )
        .build()
        .unwrap();
    Prompt::new(template)
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn groups_search_and_reads_work_over_mcp() {
    let server = PromptServer::new(manual(), Session::new());
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let serving =
        tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let client = ().serve(client_io).await.unwrap();
    let tools = common::tool_names(&client).await;
    assert_eq!(tools, ["read_section", "search_sections"]);
    let call = |name: &'static str, arguments: serde_json::Value| {
        let client = &client;
        async move {
            client
                .call_tool(
                    CallToolRequestParams::new(name)
                        .with_arguments(arguments.as_object().unwrap().clone()),
                )
                .await
                .unwrap()
        }
    };
    let found = call(
        "search_sections",
        json!({"query": "which port does the server listen on"}),
    )
    .await;
    assert_eq!(found.is_error, Some(false));
    assert!(
        text(&found).starts_with(
            "Sections matching \"which port does the server listen on\", best first:\n\n1. Ports (net.ports): The server listens on port 7878."
        ),
        "{}",
        text(&found)
    );
    let group = call("read_section", json!({"section_key": "net"})).await;
    assert_eq!(
        text(&group),
        "Content of section 'net':\n\n## 2. Network (net)\n\nNetwork settings.\n\n\
         ### 2.1. Ports (net.ports)\n\nWhich ports are used.\n\n---\n\
         [This section is summarized. To view full content, call `read_section` with key \"net.ports\".]\n\n\
         ### 2.2. Proxies (net.proxies)\n\nProxy settings.\n\n---\n\
         [This section is summarized. To view full content, call `read_section` with key \"net.proxies\".]"
    );
    let leaf = call("read_section", json!({"section_key": "net.ports"})).await;
    assert_eq!(
        text(&leaf),
        "Content of section 'net.ports':\n\n### 2.1. Ports (net.ports)\n\nThe server listens on port 7878."
    );
    let prompt = match client
        .read_resource(ReadResourceRequestParams::new("wink://prompt"))
        .await
        .unwrap()
        .contents
        .remove(0)
    {
        ResourceContents::TextResourceContents { text, .. } => text,
        other => panic!("{other:?}"),
    };
    assert!(
        prompt.ends_with("- Network (net): Ports, proxies and timeouts. [2 sections]"),
        "{prompt}"
    );
    client.cancel().await.unwrap();
    let _ = serving.await;
}
