//! `tools/call` with MCP's result forms: content blocks a tool gave are passed on as they are,
//! a tool that asks for input (`input_required`, SEP-2322) gets the client's answers on the
//! retried call, and a client that asked for progress gets the tool's progress reports.
//!
//! A tool's `requestState` goes to the client sealed (HMAC-SHA256 under a key made when the
//! server starts, bound to the tool's name and arguments): a state the client changed, or sent
//! for another call, is refused with `-32602` before the tool runs. Input requests the client
//! declared no capability for (`elicitation`, `sampling`, `roots`) are left out; when none is
//! left, the call fails with `-32021` naming the capabilities it needs.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, InputRequest, InputRequiredResult,
    JsonObject, ProgressNotificationParam, RequestStateCodec, SealOptions, ServerRequest,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use crate::call_input::{ClientInput, ProgressReporter, ProgressUpdate};
use crate::content::{ToolResultForm, result_form};
use crate::server::PromptServer;
use crate::server_sampling::{ClientChannel, NEEDS_TASKS};

/// A fresh key for sealing request states: 32 random bytes.
pub(crate) fn state_codec() -> RequestStateCodec {
    let mut key = Vec::with_capacity(32);
    key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
    key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
    RequestStateCodec::new_unchecked(key)
}

/// What a sealed state is bound to: the method, and what it was called for (a tool or prompt and
/// its arguments, a resource's URI).
pub(crate) fn binding(method: &str, name: &str, arguments: Option<&JsonObject>) -> Vec<u8> {
    let arguments = arguments.map_or_else(String::new, |a| Value::Object(a.clone()).to_string());
    format!("{method}\u{0}{name}\u{0}{arguments}").into_bytes()
}

/// Whether the client speaks 2026-07-28 or later, which takes no requests on its connection.
fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str())
}

/// The most rounds of input a handshake-era client answers on its connection for one call.
const MAX_CONNECTION_ROUNDS: usize = 10;

impl PromptServer {
    /// Runs a `tools/call` as the MCP server answers it (see the module docs). A handshake-era
    /// client (protocol before 2026-07-28) cannot take an `input_required` result: the server
    /// sends it the requests on its connection instead and runs the tool again with the answers.
    pub(crate) async fn call_tool_response(
        &self,
        mut request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let modern = is_modern(context);
        for _ in 0..MAX_CONNECTION_ROUNDS {
            match self.call_tool_once(&request, context).await? {
                CallToolResponse::InputRequired(asked) if !modern => {
                    request.input_responses = Some(ask_on_connection(&asked, context).await?);
                    request.request_state = asked.request_state;
                }
                response => return Ok(response),
            }
        }
        Err(ErrorData::internal_error(
            format!(
                "tool '{}' asked for input more than {MAX_CONNECTION_ROUNDS} times",
                request.name
            ),
            None,
        ))
    }

    /// Runs the call once: its result, or the input it asks for.
    async fn call_tool_once(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let bound = binding("tools/call", &request.name, request.arguments.as_ref());
        let mut resources = self.tool_resources();
        let declared = context.client_capabilities().unwrap_or_default();
        let channel = || match is_modern(context) {
            true => ClientChannel::Unavailable(NEEDS_TASKS.to_owned()),
            false => ClientChannel::Connection(context.peer.clone()),
        };
        if let Some(model) = self.client_model(channel, &declared) {
            resources = resources.with(model);
        }
        if let Some(input) = self.client_input(
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
            &bound,
        )? {
            resources = resources.with(input);
        }
        let forwarder = context.meta.get_progress_token().map(|token| {
            let (send, mut receive) = tokio::sync::mpsc::unbounded_channel::<ProgressUpdate>();
            let peer = context.peer.clone();
            let task = tokio::spawn(async move {
                while let Some(update) = receive.recv().await {
                    let mut param = ProgressNotificationParam::new(token.clone(), update.progress);
                    if let Some(total) = update.total {
                        param = param.with_total(total);
                    }
                    if let Some(message) = update.message {
                        param = param.with_message(message);
                    }
                    let _ = peer.notify_progress(param).await;
                }
            });
            (
                ProgressReporter::new(move |update| drop(send.send(update))),
                task,
            )
        });
        let task = match forwarder {
            Some((reporter, task)) => {
                resources = resources.with(reporter);
                Some(task)
            }
            None => None,
        };
        // The client's span (`_meta.traceparent`, MCP SEP-414): rmcp hands the request's
        // `_meta` over in the context.
        let traceparent = context
            .meta
            .get_traceparent()
            .or_else(|| {
                request
                    .meta
                    .as_ref()
                    .and_then(|meta| meta.get_traceparent())
            })
            .and_then(|text| text.parse().ok());
        let outcome = self
            .call_with(
                &request.name,
                request.arguments.clone(),
                resources,
                true,
                traceparent,
            )
            .await;
        if let Some(task) = task {
            // The reporter went with the call's resources: the forwarder ends once it has sent
            // every report, before the result goes out.
            let _ = task.await;
        }
        let done = outcome?;
        let (result, value) = (done.result, done.value);
        match value.as_ref().and_then(result_form) {
            Some(ToolResultForm::Complete(complete)) => Ok(complete.into()),
            Some(ToolResultForm::InputRequired(asked)) => self
                .ask_client(asked, &declared, &bound)
                .map(CallToolResponse::InputRequired),
            _ => Ok(result.into()),
        }
    }

    /// The client's answers on a retried request, its `requestState` opened (refused with
    /// `-32602` when it was not issued for this request or was changed); `None` on a first call.
    pub(crate) fn client_input(
        &self,
        responses: Option<&rmcp::model::InputResponses>,
        sealed: Option<&str>,
        bound: &[u8],
    ) -> Result<Option<ClientInput>, ErrorData> {
        if responses.is_none() && sealed.is_none() {
            return Ok(None);
        }
        let state = match sealed {
            Some(sealed) => {
                let opened = self.state_codec().open_with(sealed, bound).map_err(|e| {
                    ErrorData::invalid_params(
                        format!("requestState was not issued for this request or was changed: {e}"),
                        None,
                    )
                })?;
                Some(
                    String::from_utf8(opened)
                        .map_err(|_| ErrorData::invalid_params("requestState is not text", None))?,
                )
            }
            None => None,
        };
        if let Some((key, _)) = responses
            .into_iter()
            .flatten()
            .find(|(_, response)| !response.is_object())
        {
            return Err(ErrorData::invalid_params(
                format!("inputResponses.{key} is not a result object"),
                None,
            ));
        }
        let responses = responses.map_or(Value::Null, |r| {
            serde_json::to_value(r).unwrap_or(Value::Null)
        });
        Ok(Some(ClientInput::new(responses, state)))
    }

    /// A request for input as the client gets it: requests it cannot answer left out, the state
    /// sealed.
    pub(crate) fn ask_client(
        &self,
        mut asked: InputRequiredResult,
        declared: &ClientCapabilities,
        bound: &[u8],
    ) -> Result<InputRequiredResult, ErrorData> {
        if let Some(requests) = asked.input_requests.take() {
            let mut missing = ClientCapabilities::default();
            let mut kept = requests.clone();
            kept.retain(|_, request| match request {
                InputRequest::Elicitation(_) if declared.elicitation.is_none() => {
                    missing.elicitation = Some(Default::default());
                    false
                }
                InputRequest::CreateMessage(_) if declared.sampling.is_none() => {
                    missing.sampling = Some(Default::default());
                    false
                }
                InputRequest::ListRoots(_) if declared.roots.is_none() => {
                    missing.roots = Some(Default::default());
                    false
                }
                _ => true,
            });
            if kept.is_empty() && !requests.is_empty() {
                return Err(ErrorData::missing_required_client_capability(missing));
            }
            asked.input_requests = Some(kept);
        }
        if let Some(state) = asked.request_state.take() {
            let sealed = self
                .state_codec()
                .seal_with(state.as_bytes(), &SealOptions::new().associated_data(bound));
            asked.request_state = Some(sealed);
        }
        Ok(asked)
    }
}

/// Sends `asked`'s requests to a handshake-era client on its connection (`elicitation/create`,
/// `sampling/createMessage`, `roots/list`) and collects its answers, keyed as asked.
async fn ask_on_connection(
    asked: &InputRequiredResult,
    context: &RequestContext<RoleServer>,
) -> Result<rmcp::model::InputResponses, ErrorData> {
    let mut answers = rmcp::model::InputResponses::new();
    for (key, request) in asked.input_requests.iter().flatten() {
        let answer = ask_peer(&context.peer, key, request.clone()).await?;
        answers.insert(key.clone(), answer);
    }
    Ok(answers)
}

/// Sends one input request (`key` names it in errors) to a handshake-era client on its
/// connection; its answer.
pub(crate) async fn ask_peer(
    peer: &Peer<RoleServer>,
    key: &str,
    request: InputRequest,
) -> Result<Value, ErrorData> {
    let request: ServerRequest = match request {
        InputRequest::Elicitation(request) => request.into(),
        InputRequest::CreateMessage(request) => request.into(),
        InputRequest::ListRoots(request) => request.into(),
        other => {
            let method = serde_json::to_value(&other).unwrap_or_default()["method"].clone();
            return Err(ErrorData::internal_error(
                format!(
                    "input '{key}' asks the client for {method}, which wink cannot send on a connection"
                ),
                None,
            ));
        }
    };
    let answer = peer.send_request(request).await.map_err(|e| {
        ErrorData::internal_error(
            format!("the client did not answer input '{key}': {e}"),
            None,
        )
    })?;
    serde_json::to_value(answer).map_err(|e| {
        ErrorData::internal_error(format!("the client's answer to '{key}': {e}"), None)
    })
}
