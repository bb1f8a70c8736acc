//! The MCP Tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`): calls of the tools a
//! prompt file declares `task: true` run as tasks for clients that negotiate the extension.
//!
//! The `tools/call` returns a task at once; the tool runs beside other calls; `tasks/get`
//! reports `working`, `input_required` (with the tool's input requests, answered through
//! `tasks/update`), then `completed` with the result inlined (a tool that ran and failed is
//! `completed` with `isError`), or `failed` when the call could not run at all. `tasks/cancel`
//! kills a running command and settles the task as `cancelled`. Clients without the extension
//! get the ordinary synchronous result.
//!
//! A tool whose input comes [`TaskInput::Before`] its task gathers it on the call itself
//! (SEP-2322 rounds, then SEP-2663's composition): a call without answers runs the tool in the
//! request, and a tool that asks for input answers the call with `input_required` while no task
//! exists; the call that brings the answers starts the task, and the tool runs in it with them.

use std::collections::BTreeMap;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, CreateTaskResult,
    InputRequiredResult, JsonObject,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskContext, TaskExit, TaskOptions};
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use crate::call_input::{CancelSignal, ClientInput};
use crate::content::{ToolResultForm, result_form};
use crate::server::PromptServer;
use crate::server_sampling::ClientChannel;

/// The most `input_required` rounds one task goes through.
const MAX_ROUNDS: usize = 10;

/// How often a client is told to poll, in milliseconds.
const POLL_INTERVAL_MS: u64 = 500;

/// Where a task tool's requests for input go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TaskInput {
    /// Into the task: the call returns a task at once; `tasks/get` shows the requests and
    /// `tasks/update` answers them.
    #[default]
    During,
    /// On the call, before any task exists: a call without answers runs the tool in the request
    /// (its `input_required` goes back as the call's result, and a tool that asks for nothing
    /// answers the call directly); the call that brings answers starts the task.
    Before,
}

/// A tool whose MCP calls run as tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskTool {
    /// The tool's name.
    pub name: String,
    /// Whether clients without the Tasks extension are refused (`-32021`) rather than answered
    /// synchronously.
    pub required: bool,
    /// Where its requests for input go.
    pub input: TaskInput,
}

impl TaskTool {
    /// The tool `name`, a task required or not, its input asked for in the task.
    pub fn new(name: impl Into<String>, required: bool) -> Self {
        Self {
            name: name.into(),
            required,
            input: TaskInput::During,
        }
    }

    /// The same tool, its input asked for as `input` says.
    #[must_use]
    pub fn with_input(mut self, input: TaskInput) -> Self {
        self.input = input;
        self
    }
}

impl PromptServer {
    /// The call as a task, when its tool runs as one and the client negotiated the extension
    /// (`-32021` when the tool requires a task and the client did not).
    pub(crate) fn call_as_task(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CallToolResponse, ErrorData>> {
        let tool = self.task_tool(&request.name)?;
        let negotiated = context
            .client_capabilities()
            .is_some_and(|c| c.supports_tasks());
        if !negotiated {
            if !tool.required {
                return None;
            }
            let mut missing = rmcp::model::ClientCapabilities::default();
            missing
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                    JsonObject::new(),
                );
            return Some(Err(ErrorData::missing_required_client_capability(missing)));
        }
        let answered = request.input_responses.is_some() || request.request_state.is_some();
        // The client's answers from the rounds before the task: checked (a changed state is
        // refused) before any task exists.
        let input = match tool.input {
            TaskInput::Before if !answered => return None,
            TaskInput::Before => {
                let bound = crate::server_call::binding(
                    "tools/call",
                    &request.name,
                    request.arguments.as_ref(),
                );
                match self.client_input(
                    request.input_responses.as_ref(),
                    request.request_state.as_deref(),
                    &bound,
                ) {
                    Ok(input) => input,
                    Err(refused) => return Some(Err(refused)),
                }
            }
            TaskInput::During => None,
        };
        let server = self.clone();
        let name = request.name.to_string();
        let arguments = request.arguments.clone();
        let declared = context.client_capabilities().unwrap_or_default();
        let options = TaskOptions::new().with_poll_interval_ms(POLL_INTERVAL_MS);
        let task = self.tasks().spawn(options, move |context| {
            Box::pin(async move {
                let cancel = CancelSignal::default();
                let call = TaskCall {
                    name,
                    arguments,
                    declared,
                };
                let work = server.run_task(call, input, &context, cancel.clone());
                tokio::select! {
                    outcome = work => outcome,
                    () = context.cancelled() => {
                        cancel.cancel();
                        Err(TaskExit::Cancelled)
                    }
                }
            })
        });
        Some(Ok(CallToolResponse::Task(CreateTaskResult::new(task))))
    }

    /// Runs the tool, round after round while it asks for input (the first round with `input`,
    /// the answers the call brought).
    async fn run_task(
        self,
        call: TaskCall,
        mut input: Option<ClientInput>,
        context: &TaskContext,
        cancel: CancelSignal,
    ) -> Result<CallToolResult, TaskExit> {
        for round in 0..MAX_ROUNDS {
            let mut resources = self.tool_resources().with(cancel.clone());
            if let Some(input) = input.take() {
                resources = resources.with(input);
            }
            let channel = || ClientChannel::Task(context.clone());
            if let Some(model) = self.client_model(channel, &call.declared) {
                resources = resources.with(model);
            }
            let server = self.clone();
            let (call_name, call_arguments) = (call.name.clone(), call.arguments.clone());
            let runtime = tokio::runtime::Handle::current();
            // A command tool runs synchronously: on a blocking thread, so that polling and
            // cancelling go on meanwhile.
            let done = tokio::task::spawn_blocking(move || {
                runtime.block_on(server.call_with(
                    &call_name,
                    call_arguments,
                    resources,
                    false,
                    None,
                ))
            })
            .await
            .map_err(|e| {
                ErrorData::internal_error(format!("the task's call failed: {e}"), None)
            })??;
            if let Some(why) = done.broke {
                return Err(TaskExit::Error(ErrorData::internal_error(why, None)));
            }
            match done.value.as_ref().and_then(result_form) {
                Some(ToolResultForm::Complete(result)) => return Ok(result),
                Some(ToolResultForm::InputRequired(asked)) => {
                    input = Some(ask_in_task(context, asked, round).await?);
                }
                _ => return Ok(done.result),
            }
        }
        Err(TaskExit::Error(ErrorData::internal_error(
            format!("the tool asked for input more than {MAX_ROUNDS} times"),
            None,
        )))
    }
}

/// The call a task runs: the tool, its arguments, and what the client declared.
struct TaskCall {
    name: String,
    arguments: Option<JsonObject>,
    declared: ClientCapabilities,
}

/// Puts the tool's input requests to the client through the task (`input_required` in
/// `tasks/get`) and waits for every answer (`tasks/update`). Keys are made unique per round.
async fn ask_in_task(
    context: &TaskContext,
    asked: InputRequiredResult,
    round: usize,
) -> Result<ClientInput, TaskExit> {
    let waits: Vec<_> = asked
        .input_requests
        .unwrap_or_default()
        .into_iter()
        .map(|(key, request)| {
            let context = context.clone();
            let asked_key = if round == 0 {
                key.clone()
            } else {
                format!("{key}#{round}")
            };
            tokio::spawn(async move { (key, context.request_input(asked_key, request).await) })
        })
        .collect();
    let mut answers = BTreeMap::new();
    for wait in waits {
        let (key, answer) = wait.await.map_err(|e| {
            ErrorData::internal_error(format!("waiting for input failed: {e}"), None)
        })?;
        answers.insert(key, answer?);
    }
    let responses = serde_json::to_value(answers).unwrap_or(Value::Null);
    Ok(ClientInput::new(responses, asked.request_state))
}
