//! Sub-agents on the MCP client's model. `wink mcp serve` of a prompt file that declares
//! `subagents`, started without `--model`, runs each child's model calls as
//! `sampling/createMessage` requests to the client that called `dispatch_subagent`:
//!
//! - a handshake-era client (a protocol before 2026-07-28) gets each request on its connection;
//! - a 2026-07-28 client that negotiated the Tasks extension gets `dispatch_subagent` as a task,
//!   and each request through it (`input_required` in `tasks/get`, answered by `tasks/update`);
//! - a 2026-07-28 client without Tasks cannot be asked while a call runs, and a client that
//!   declared no `sampling` capability cannot be asked at all: the child's first model call
//!   fails, naming what the client lacks.
//!
//! A request carries the child's system prompt, its conversation and, when the client declared
//! `sampling.tools` (SEP-1577), its tools: tool calls go as `tool_use` blocks, results as
//! `tool_result` blocks (one user message per run of results), and the `tool_use` blocks of a
//! reply are the child's next calls. Without `sampling.tools` the child's tools are left out
//! and it answers in text.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::RoleServer;
use rmcp::model::{ClientCapabilities, InputRequest};
use rmcp::service::Peer;
use rmcp::task_manager::TaskContext;
use serde_json::{Map, Value, json};
use wink_agent::SubagentAdapter;
use wink_core::builtin::DISPATCH_SUBAGENT;
use wink_core::{ToolArguments, ToolCall};
use wink_model::{
    FinishReason, Message, ModelRequest, ModelTurn, ProviderAdapter, ProviderError,
    ProviderErrorKind, ProviderFuture, StreamSink, ToolChoice,
};

use crate::server::PromptServer;
use crate::server_call::ask_peer;
use crate::server_tasks::TaskTool;

/// Lists `dispatch_subagent` as a task tool (a task when the client negotiated the extension),
/// unless it is listed already.
pub(crate) fn add_dispatch_task(tools: &mut Vec<TaskTool>) {
    if !tools.iter().any(|tool| tool.name == DISPATCH_SUBAGENT) {
        tools.push(TaskTool::new(DISPATCH_SUBAGENT, false));
    }
}

impl PromptServer {
    /// The resource that runs a call's sub-agents on the client's model, reached through
    /// `channel`; `None` when the server runs them on a model of its own.
    pub(crate) fn client_model(
        &self,
        channel: impl FnOnce() -> ClientChannel,
        declared: &ClientCapabilities,
    ) -> Option<SubagentAdapter> {
        self.client_model_subagents()
            .then(|| SubagentAdapter(ClientModel::new(channel(), declared)))
    }
}

/// Why a 2026-07-28 client cannot be asked outside a task.
pub(crate) const NEEDS_TASKS: &str = "a 2026-07-28 MCP client answers this server's sampling requests for a sub-agent only through a task: negotiate the Tasks extension (io.modelcontextprotocol/tasks), or start `wink mcp serve` with --model to run sub-agents on another model";

/// The adapter's name.
const NAME: &str = "mcp-sampling";

/// The model name used until the client's first reply names its model.
const CLIENT_MODEL: &str = "mcp-client";

/// The output cap a request carries when the child set none (`maxTokens` is required).
const DEFAULT_MAX_TOKENS: u32 = 4096;

/// How the server reaches the client while a call runs.
#[derive(Clone)]
pub(crate) enum ClientChannel {
    /// Requests on the client's connection (handshake-era protocols).
    Connection(Peer<RoleServer>),
    /// Input requests of the task the call runs in.
    Task(TaskContext),
    /// None: why the client cannot be asked.
    Unavailable(String),
}

/// A model adapter whose model is the MCP client's (see the module docs).
pub(crate) struct ClientModel {
    channel: ClientChannel,
    /// Whether the client declared `sampling.tools`.
    tools: bool,
    /// Requests sent so far (task input keys are numbered by it).
    asked: AtomicUsize,
}

impl fmt::Debug for ClientModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let channel = match &self.channel {
            ClientChannel::Connection(_) => "connection",
            ClientChannel::Task(_) => "task",
            ClientChannel::Unavailable(_) => "unavailable",
        };
        f.debug_struct("ClientModel")
            .field("channel", &channel)
            .field("tools", &self.tools)
            .finish()
    }
}

impl ClientModel {
    /// The client's model, reached through `channel`, given what the client declared.
    pub(crate) fn new(channel: ClientChannel, declared: &ClientCapabilities) -> Arc<Self> {
        let channel = match &declared.sampling {
            None => ClientChannel::Unavailable(
                "the MCP client declared no sampling capability, and this server runs sub-agents on the client's model (start `wink mcp serve` with --model to run them on another)".to_owned(),
            ),
            Some(_) => channel,
        };
        let tools = declared
            .sampling
            .as_ref()
            .is_some_and(|sampling| sampling.tools.is_some());
        Arc::new(Self {
            channel,
            tools,
            asked: AtomicUsize::new(0),
        })
    }

    fn error(&self, kind: ProviderErrorKind, message: impl Into<String>) -> ProviderError {
        ProviderError::new(kind, NAME, CLIENT_MODEL, message)
    }

    /// Sends one `sampling/createMessage` with `params`; the client's result.
    async fn ask(&self, params: Value) -> Result<Value, ProviderError> {
        let number = self.asked.fetch_add(1, Ordering::Relaxed);
        let request = json!({"method": "sampling/createMessage", "params": params});
        let request: InputRequest = serde_json::from_value(request).map_err(|e| {
            self.error(
                ProviderErrorKind::Config,
                format!("the sampling request could not be built: {e}"),
            )
        })?;
        let key = format!("sample#{number}");
        match &self.channel {
            ClientChannel::Unavailable(why) => Err(self.error(ProviderErrorKind::Config, why)),
            ClientChannel::Connection(peer) => ask_peer(peer, &key, request)
                .await
                .map_err(|e| self.error(ProviderErrorKind::Connection, e.message)),
            ClientChannel::Task(task) => task.request_input(key, request).await.map_err(|e| {
                self.error(
                    ProviderErrorKind::Cancelled,
                    format!(
                        "the task ended before the client answered sampling/createMessage: {e:?}"
                    ),
                )
            }),
        }
    }
}

impl ProviderAdapter for ClientModel {
    fn name(&self) -> &str {
        NAME
    }

    fn model(&self) -> &str {
        CLIENT_MODEL
    }

    /// Every request carries the tools on offer, so tools a section discloses join at once.
    fn supports_dynamic_tools(&self) -> bool {
        true
    }

    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        _stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        Box::pin(async move {
            let answer = self.ask(sampling_params(request, self.tools)).await?;
            turn_of(&answer).map_err(|why| {
                self.error(ProviderErrorKind::Decode, why)
                    .with_body(answer.to_string())
            })
        })
    }
}

/// The `sampling/createMessage` params for `request`; its tools only when `tools` (the client
/// declared `sampling.tools`).
pub(crate) fn sampling_params(request: &ModelRequest, tools: bool) -> Value {
    let mut system = Vec::new();
    let mut messages: Vec<Value> = Vec::new();
    for message in &request.messages {
        match message {
            Message::System { content } => system.push(content.as_str()),
            Message::User { content } => {
                messages.push(json!({"role": "user", "content": [text(content)]}));
            }
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut blocks: Vec<Value> = content.iter().map(|c| text(c)).collect();
                blocks.extend(tool_calls.iter().map(|call| {
                    json!({"type": "tool_use", "id": call.id, "name": call.name,
                           "input": call.arguments.to_object()})
                }));
                messages.push(json!({"role": "assistant", "content": blocks}));
            }
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                images,
                ..
            } => {
                let mut result = vec![text(content)];
                result.extend(images.iter().map(|image| {
                    json!({"type": "image", "data": image.data, "mimeType": image.mime_type})
                }));
                let block = json!({"type": "tool_result", "toolUseId": tool_call_id,
                                   "content": result, "isError": is_error});
                match messages.last_mut() {
                    Some(last) if ends_with_tool_results(last) => {
                        if let Some(blocks) = last["content"].as_array_mut() {
                            blocks.push(block);
                        }
                    }
                    _ => messages.push(json!({"role": "user", "content": [block]})),
                }
            }
            _ => {}
        }
    }
    let mut params = Map::new();
    params.insert("messages".into(), Value::Array(messages));
    if !system.is_empty() {
        params.insert("systemPrompt".into(), json!(system.join("\n\n")));
    }
    let max_tokens = request.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    params.insert("maxTokens".into(), json!(max_tokens));
    if let Some(temperature) = request.temperature {
        params.insert("temperature".into(), json!(temperature));
    }
    if tools && !request.tools.is_empty() {
        let specs: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({"name": tool.name, "description": tool.description,
                       "inputSchema": tool.parameters})
            })
            .collect();
        params.insert("tools".into(), Value::Array(specs));
        let mode = match request.tool_choice {
            ToolChoice::None => "none",
            ToolChoice::Required | ToolChoice::Tool(_) => "required",
            _ => "auto",
        };
        params.insert("toolChoice".into(), json!({"mode": mode}));
    }
    Value::Object(params)
}

/// A text block.
fn text(content: &str) -> Value {
    json!({"type": "text", "text": content})
}

/// Whether `message` is a user message of tool results (the next result joins it).
fn ends_with_tool_results(message: &Value) -> bool {
    message["role"] == "user"
        && message["content"]
            .as_array()
            .and_then(|blocks| blocks.last())
            .is_some_and(|block| block["type"] == "tool_result")
}

/// A call's arguments as the object `tool_use` carries (`{}` when they are not an object).
/// The turn in a client's `CreateMessageResult`: its text blocks joined, its `tool_use` blocks
/// as calls. `Err` names what is not a result.
pub(crate) fn turn_of(answer: &Value) -> Result<ModelTurn, String> {
    if answer.get("role").and_then(Value::as_str) != Some("assistant") {
        return Err("the client's sampling result is not an assistant message".to_owned());
    }
    let blocks = match answer.get("content") {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(block @ Value::Object(_)) => vec![block.clone()],
        _ => return Err("the client's sampling result has no content".to_owned()),
    };
    let mut texts = Vec::new();
    let mut tool_calls = Vec::new();
    for block in &blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => texts.push(block["text"].as_str().unwrap_or_default().to_owned()),
            Some("tool_use") => {
                let (Some(id), Some(name)) = (block["id"].as_str(), block["name"].as_str()) else {
                    return Err("a tool_use block of the client's result has no id or name".into());
                };
                tool_calls.push(ToolCall {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    arguments: ToolArguments::Json(
                        block.get("input").cloned().unwrap_or(json!({})),
                    ),
                });
            }
            other => {
                return Err(format!(
                    "the client's sampling result holds a block of type {}, which a sub-agent cannot read",
                    other.unwrap_or("typeless")
                ));
            }
        }
    }
    let finish_reason = match answer.get("stopReason").and_then(Value::as_str) {
        Some("maxTokens") => FinishReason::Length,
        _ if !tool_calls.is_empty() => FinishReason::ToolCalls,
        Some("toolUse") => FinishReason::ToolCalls,
        _ => FinishReason::Stop,
    };
    let text = texts.join("");
    Ok(ModelTurn {
        text: (!text.is_empty()).then_some(text),
        tool_calls,
        finish_reason,
        ..ModelTurn::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use wink_model::{ToolImage, ToolSpec};

    fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: ToolArguments::Text(arguments.into()),
        }
    }

    #[test]
    fn a_child_conversation_as_sampling_params() {
        let first = call("c1", "read_section", r#"{"section_key": "docs"}"#);
        let second = call("c2", "shot", "{}");
        let request = ModelRequest {
            messages: vec![
                Message::system("You review code."),
                Message::user("Review src/lib.rs."),
                Message::assistant_tool_calls("Reading.", vec![first.clone(), second.clone()]),
                Message::tool_result(&first, "The docs."),
                Message::tool_error(&second, "No screen.")
                    .with_images(vec![ToolImage::new("image/png", "AAAA")]),
            ],
            tools: vec![ToolSpec::new(
                "shot",
                "Take a screenshot.",
                json!({"type": "object"}),
            )],
            tool_choice: ToolChoice::Required,
            max_output_tokens: Some(512),
            ..ModelRequest::default()
        };
        let expected_messages = json!([
            {"role": "user", "content": [{"type": "text", "text": "Review src/lib.rs."}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "c1", "name": "read_section", "input": {"section_key": "docs"}},
                {"type": "tool_use", "id": "c2", "name": "shot", "input": {}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "toolUseId": "c1", "content": [{"type": "text", "text": "The docs."}], "isError": false},
                {"type": "tool_result", "toolUseId": "c2", "content": [
                    {"type": "text", "text": "No screen."},
                    {"type": "image", "data": "AAAA", "mimeType": "image/png"}
                ], "isError": true}
            ]}
        ]);
        assert_eq!(
            sampling_params(&request, true),
            json!({
                "messages": expected_messages,
                "systemPrompt": "You review code.",
                "maxTokens": 512,
                "tools": [{"name": "shot", "description": "Take a screenshot.", "inputSchema": {"type": "object"}}],
                "toolChoice": {"mode": "required"}
            })
        );
        assert_eq!(
            sampling_params(&request, false),
            json!({"messages": expected_messages, "systemPrompt": "You review code.", "maxTokens": 512})
        );
    }

    #[test]
    fn results_become_turns() {
        let turn = turn_of(
            &json!({"role": "assistant", "model": "m", "stopReason": "toolUse", "content": [
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "t1", "name": "shot", "input": {"full": true}}
            ]}),
        )
        .unwrap();
        assert_eq!(turn.text.as_deref(), Some("Looking."));
        assert_eq!(
            turn.tool_calls,
            [ToolCall {
                id: "t1".into(),
                name: "shot".into(),
                arguments: ToolArguments::Json(json!({"full": true}))
            }]
        );
        assert_eq!(turn.finish_reason, FinishReason::ToolCalls);
        let single = turn_of(&json!({"role": "assistant", "model": "m", "content": {"type": "text", "text": "Done."}}))
            .unwrap();
        assert_eq!(
            (single.text.as_deref(), single.finish_reason),
            (Some("Done."), FinishReason::Stop)
        );
        let cut = turn_of(
            &json!({"role": "assistant", "model": "m", "stopReason": "maxTokens", "content": []}),
        )
        .unwrap();
        assert_eq!((cut.text, cut.finish_reason), (None, FinishReason::Length));
    }

    #[test]
    fn what_is_not_a_result_is_named() {
        let errors: Vec<String> = [
            json!({"role": "user", "content": []}),
            json!({"role": "assistant"}),
            json!({"role": "assistant", "content": [{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]}),
            json!({"role": "assistant", "content": [{"type": "tool_use", "name": "x"}]}),
        ]
        .iter()
        .map(|answer| turn_of(answer).unwrap_err())
        .collect();
        assert_eq!(
            errors,
            [
                "the client's sampling result is not an assistant message",
                "the client's sampling result has no content",
                "the client's sampling result holds a block of type audio, which a sub-agent cannot read",
                "a tool_use block of the client's result has no id or name",
            ]
        );
    }
}
