//! The builtin `ask_user` tool (`"mcp": {"ask_user": true}`) with the Rust SDK's client as the
//! person's client: the question reaches the client's elicitation handler as a form, and the
//! tool answers with what was said, or that the person declined or dismissed it. A 2026-07-28
//! client answers `input_required` and calls again; a handshake-era client (2025-11-25) gets
//! `elicitation/create` on its connection. A client without elicitation is not offered the
//! tool, and calling it anyway is `-32021`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};
use wink_mcp::{PromptServer, Published};
use wink_session::Session;

/// A client whose person gives `reply` to every form, recording the forms.
#[derive(Clone)]
struct Person {
    version: ProtocolVersion,
    elicits: bool,
    reply: ElicitResult,
    forms: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities = serde_json::from_value(if self.elicits {
            json!({"elicitation": {}})
        } else {
            json!({})
        })
        .unwrap();
        ClientConfig::new(capabilities, Implementation::new("person", "1"))
            .with_protocol_version(self.version.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.forms
            .lock()
            .unwrap()
            .push(serde_json::to_value(&request).unwrap());
        Ok(self.reply.clone())
    }
}

fn server() -> PromptServer {
    PromptServer::new(common::demo_prompt(), Session::new()).with_published(Published {
        ask_user: true,
        ..Published::default()
    })
}

/// Asks "Which city?" (choices Paris, Rome) through a client of `version` whose person gives
/// `reply`: the tool's text and error flag, the forms the person saw, the tools listed.
async fn ask(
    version: ProtocolVersion,
    elicits: bool,
    reply: ElicitResult,
) -> (Result<(String, bool), String>, Vec<Value>, Vec<String>) {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = server();
    let serving =
        tokio::spawn(async move { server.serve(server_io).await.unwrap().waiting().await });
    let person = Person {
        version,
        elicits,
        reply,
        forms: Arc::default(),
    };
    let lifecycle = if person.version == ProtocolVersion::V_2026_07_28 {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    let client = person
        .clone()
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .unwrap();
    let negotiated = client.peer_info().map(|info| info.protocol_version.clone());
    assert_eq!(negotiated, Some(person.version.clone()));
    let tools = common::tool_names(&client).await;
    let arguments = json!({"question": "Which city?", "choices": ["Paris", "Rome"]});
    let result = client
        .call_tool(
            CallToolRequestParams::new("ask_user")
                .with_arguments(arguments.as_object().unwrap().clone()),
        )
        .await
        .map(|result| {
            let text = result
                .content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect::<String>();
            (text, result.is_error == Some(true))
        })
        .map_err(|e| e.to_string());
    client.cancel().await.unwrap();
    let _ = serving.await;
    let forms = person.forms.lock().unwrap().clone();
    (result, forms, tools)
}

fn the_form() -> Value {
    json!({
        "mode": "form",
        "message": "Which city?",
        "requestedSchema": {"type": "object",
            "properties": {"answer": {"type": "string", "title": "Answer", "enum": ["Paris", "Rome"]}},
            "required": ["answer"]}
    })
}

#[tokio::test]
async fn a_2026_client_answers_the_question_through_input_required() {
    let (result, forms, tools) = ask(
        ProtocolVersion::V_2026_07_28,
        true,
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"answer": "Paris"})),
    )
    .await;
    assert_eq!(result, Ok(("The person answered: Paris".to_owned(), false)));
    assert_eq!(forms, [the_form()]);
    assert_eq!(tools, ["read_section", "ask_user"]);
}

#[tokio::test]
async fn a_handshake_era_client_gets_the_form_on_its_connection() {
    for (reply, text) in [
        (
            ElicitResult::new(ElicitationAction::Accept).with_content(json!({"answer": "Rome"})),
            "The person answered: Rome",
        ),
        (
            ElicitResult::new(ElicitationAction::Decline),
            "The person declined to answer.",
        ),
        (
            ElicitResult::new(ElicitationAction::Cancel),
            "The person dismissed the question without answering.",
        ),
    ] {
        let (result, forms, _) = ask(ProtocolVersion::V_2025_11_25, true, reply).await;
        assert_eq!(result, Ok((text.to_owned(), false)));
        assert_eq!(forms, [the_form()]);
    }
}

#[tokio::test]
async fn a_client_without_elicitation_is_not_offered_the_tool() {
    let (result, forms, tools) = ask(
        ProtocolVersion::V_2026_07_28,
        false,
        ElicitResult::new(ElicitationAction::Decline),
    )
    .await;
    assert_eq!(tools, ["read_section"]);
    let error = result.unwrap_err();
    assert!(error.contains("-32021"), "{error}");
    assert!(forms.is_empty());
}
