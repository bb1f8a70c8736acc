//! The server through rmcp's own client over an in-memory transport.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;
use tokio::sync::Notify;
use wink_core::{SectionPath, SectionVisibility};
use wink_mcp::PromptServer;
use wink_session::{Session, SetVisibilityOverride};

#[derive(Clone, Default)]
struct Watcher {
    changed: Arc<Notify>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }
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
async fn read_section_injects_tools_and_notifies_the_client() {
    let server = PromptServer::new(common::demo_prompt(), Session::new());
    let session = server.session().clone();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let serving =
        tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let watcher = Watcher::default();
    let client = watcher.clone().serve(client_io).await.unwrap();

    let info = client.peer_info().unwrap();
    assert_eq!(
        info.capabilities.tools.as_ref().unwrap().list_changed,
        Some(true)
    );
    let names = |tools: Vec<rmcp::model::Tool>| {
        tools
            .into_iter()
            .map(|t| t.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(client.list_all_tools().await.unwrap()),
        ["read_section"]
    );

    let read = client
        .call_tool(
            CallToolRequestParams::new("read_section")
                .with_arguments(json!({"section_key": "math"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(read.is_error, Some(false));
    assert_eq!(
        text(&read),
        "Content of section 'math':\n\n## 3. Math (math)\n\nUse add for sums.\n\nNew tools are now available: add. If you cannot see them, list the tools again (tools/list) before calling them."
    );
    tokio::time::timeout(Duration::from_secs(10), watcher.changed.notified())
        .await
        .unwrap();
    assert_eq!(
        session
            .visibility_overrides()
            .get(&SectionPath::root("math")),
        Some(SectionVisibility::Full)
    );
    assert_eq!(
        names(client.list_all_tools().await.unwrap()),
        ["add", "read_section"]
    );
    let sum = client
        .call_tool(
            CallToolRequestParams::new("add")
                .with_arguments(json!({"a": 2, "b": 40}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(text(&sum), "sum\n\n{\"sum\": 42}");

    // Reading again: already expanded, no new tools, no notice.
    let again = client
        .call_tool(
            CallToolRequestParams::new("read_section")
                .with_arguments(json!({"section_key": "math"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(
        text(&again),
        "Section is already expanded.\n\n## 3. Math (math)\n\nUse add for sums."
    );

    client.cancel().await.unwrap();
    let _ = serving.await;
}

#[tokio::test]
async fn resources_prompts_and_errors() {
    let session = Session::new();
    session.dispatch(SetVisibilityOverride {
        path: SectionPath::root("reference"),
        visibility: SectionVisibility::Full,
    });
    let server = PromptServer::new(common::demo_prompt(), session);
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let serving =
        tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let client = ().serve(client_io).await.unwrap();

    let uris: Vec<String> = client
        .list_all_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert_eq!(
        uris,
        [
            "wink://demo/mcp",
            "wink://demo/mcp/task",
            "wink://demo/mcp/reference",
            "wink://demo/mcp/reference.details",
            "wink://demo/mcp/math"
        ]
    );
    let read = |uri: &str| {
        let client = &client;
        let uri = uri.to_owned();
        async move {
            match client
                .read_resource(ReadResourceRequestParams::new(uri))
                .await
                .unwrap()
                .contents
                .remove(0)
            {
                rmcp::model::ResourceContents::TextResourceContents { text, .. } => text,
                other => panic!("{other:?}"),
            }
        }
    };
    // An expanded section reads as rendered, children included; a summarized one in full.
    assert_eq!(
        read("wink://demo/mcp/reference").await,
        "## 2. Reference (reference)\n\nFull reference.\n\n### 2.1. Details (reference.details)\n\nDeep details."
    );
    assert_eq!(
        read("wink://demo/mcp/math").await,
        "## 3. Math (math)\n\nUse add for sums."
    );
    let prompt_text = read("wink://demo/mcp").await;
    assert!(prompt_text.ends_with("Arithmetic tools.\n\n---\n[This section is summarized. To view full content, call `read_section` with key \"math\".]"));
    // The URIs of earlier versions read the same.
    assert_eq!(read("wink://prompt").await, prompt_text);
    assert_eq!(
        read("wink://section/math").await,
        "## 3. Math (math)\n\nUse add for sums."
    );
    for (uri, message) in [
        (
            "wink://demo/mcp/nope",
            "Unknown section key: 'nope' (resource 'wink://demo/mcp/nope').",
        ),
        (
            "wink://section/nope",
            "Unknown section key: 'nope' (resource 'wink://section/nope').",
        ),
        (
            "wink://other/mcp/math",
            "Unknown resource 'wink://other/mcp/math': expected wink://demo/mcp or wink://demo/mcp/<dot.key>.",
        ),
        (
            "wink://demo/mcp/math?a=1",
            "Section 'math' has no params to set (resource 'wink://demo/mcp/math?a=1').",
        ),
    ] {
        let error = client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .unwrap_err();
        assert!(error.to_string().contains(message), "{error}");
    }
    // No section has params: no resource templates.
    assert!(
        client
            .list_all_resource_templates()
            .await
            .unwrap()
            .is_empty()
    );

    let prompt = client
        .get_prompt(GetPromptRequestParams::new("demo:mcp"))
        .await
        .unwrap();
    assert_eq!(prompt.messages.len(), 1);
    let unknown = client
        .get_prompt(GetPromptRequestParams::new("other"))
        .await
        .unwrap_err();
    assert!(
        unknown
            .to_string()
            .contains("Unknown prompt 'other'. Offered: demo:mcp."),
        "{unknown}"
    );
    let bad_tool = client
        .call_tool(CallToolRequestParams::new("nope"))
        .await
        .unwrap_err();
    assert!(
        bad_tool
            .to_string()
            .contains("Unknown tool 'nope'. Offered: read_section."),
        "{bad_tool}"
    );
    let bad_args = client
        .call_tool(
            CallToolRequestParams::new("read_section")
                .with_arguments(json!({}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(bad_args.is_error, Some(true));
    assert!(
        text(&bad_args).starts_with("Tool validation failed:"),
        "{}",
        text(&bad_args)
    );

    client.cancel().await.unwrap();
    let _ = serving.await;
}
