//! One `tools/call` on a connection: `input_required` rounds answered as the run says
//! ([`ClientAnswers`]), and one login when an HTTP server asks for authorization or more scope.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, DEFAULT_MRTR_MAX_ROUNDS,
    InputResponses,
};
use rmcp::{Peer, RoleClient};
use serde_json::Value;
use wink_core::ToolError;

use super::answers::ClientAnswers;
use super::connection::plain;
use super::servers::ServerSpec;

/// One request for input the client answered during a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    /// `elicitation/create`, `roots/list`, ...
    pub method: String,
    /// The server's message (elicitation).
    pub message: Option<String>,
    /// What was done: `accept`, `decline`, `cancel`, `answered`.
    pub action: String,
}

/// Why a call failed: the tool's error, or the server's authorization challenge (a 401, or a
/// 403 for more scope).
enum CallFailure {
    Tool(ToolError),
    Challenge(String),
}

impl From<ToolError> for CallFailure {
    fn from(error: ToolError) -> Self {
        Self::Tool(error)
    }
}

/// [`call_rounds`], logging in once (where wink can) when an HTTP server asks for
/// authorization or more scope, then calling again; a second challenge ends the call.
pub(crate) async fn call_stepping_up(
    peer: Peer<RoleClient>,
    params: CallToolRequestParams,
    answers: ClientAnswers,
    hung_up: Arc<AtomicBool>,
    http: Option<(ServerSpec, String)>,
) -> Result<(CallToolResult, Vec<Answered>), ToolError> {
    let mut logged_in = false;
    loop {
        let challenge = match call_rounds(&peer, params.clone(), &answers, &hung_up).await {
            Ok(done) => return Ok(done),
            Err(CallFailure::Tool(error)) => return Err(error),
            Err(CallFailure::Challenge(challenge)) => challenge,
        };
        let Some((spec, url)) = &http else {
            return Err(ToolError::Failed(format!(
                "authorization refused: {challenge}"
            )));
        };
        if logged_in {
            return Err(ToolError::Failed(format!(
                "the server refused the call again after logging in ({challenge})"
            )));
        }
        if !super::http_auth::may_log_in(spec) {
            return Err(ToolError::Failed(super::http_auth::login_needed(spec)));
        }
        super::http_auth::log_in(spec, url, challenge)
            .await
            .map_err(ToolError::Failed)?;
        logged_in = true;
    }
}

/// `tools/call`, answering `input_required` rounds until the server completes the call.
async fn call_rounds(
    peer: &Peer<RoleClient>,
    mut params: CallToolRequestParams,
    answers: &ClientAnswers,
    hung_up: &AtomicBool,
) -> Result<(CallToolResult, Vec<Answered>), CallFailure> {
    let failed = |e: rmcp::ServiceError| {
        if let Some(challenge) = super::http_auth::service_challenge(&e) {
            return CallFailure::Challenge(challenge);
        }
        if matches!(
            e,
            rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_)
        ) {
            hung_up.store(true, Ordering::SeqCst);
        }
        CallFailure::Tool(ToolError::Failed(plain(&e)))
    };
    let mut answered = Vec::new();
    for _ in 0..DEFAULT_MRTR_MAX_ROUNDS {
        let asked = match peer.call_tool_once(params.clone()).await.map_err(failed)? {
            CallToolResponse::Complete(result) => return Ok((result, answered)),
            CallToolResponse::InputRequired(asked) => asked,
            _ => {
                return Err(CallFailure::Tool(ToolError::Failed(
                    "the server answered with a task, which wink's client did not ask for"
                        .to_owned(),
                )));
            }
        };
        let mut responses = InputResponses::new();
        for (key, request) in asked.input_requests.unwrap_or_default() {
            let request = serde_json::to_value(&request).unwrap_or(Value::Null);
            let method = request["method"].as_str().unwrap_or("").to_owned();
            let answers = answers.clone();
            let (value, action, message) =
                tokio::task::spawn_blocking(move || answers.answer(&request))
                    .await
                    .map_err(|e| ToolError::Failed(format!("answering the server failed: {e}")))?
                    .map_err(ToolError::Failed)?;
            answered.push(Answered {
                method,
                message,
                action,
            });
            responses.insert(key, value);
        }
        if responses.is_empty() {
            // A round that only carries state: give the server a moment.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        params.input_responses = (!responses.is_empty()).then_some(responses);
        params.request_state = asked.request_state;
    }
    Err(CallFailure::Tool(ToolError::Failed(format!(
        "the server asked for input more than {DEFAULT_MRTR_MAX_ROUNDS} times"
    ))))
}
