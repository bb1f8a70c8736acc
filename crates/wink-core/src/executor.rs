//! Transactional tool execution with WINK's failure semantics (reference §5.8):
//! bad arguments → a failed result `Tool validation failed: …`; a handler error → a failed
//! result `Tool '<name>' execution failed: …`; an unknown tool, a tool without a handler or
//! undecodable arguments → a fatal [`PromptEvaluationError`]. Session state and the filesystem
//! are snapshotted before the call and restored when it fails, so a failed tool leaves no
//! trace. Every outcome publishes `ToolInvoked`.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_session::{Session, ToolInvoked};

use crate::error::VisibilityExpansionRequired;
use crate::render::RenderedPrompt;
use crate::tool::{
    Deadline, Resources, SectionExpansion, ToolContext, ToolError, ToolPayload, ToolRef, ToolResult,
};

/// Where an evaluation failed.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EvaluationPhase {
    /// Building or sending the request.
    Request,
    /// Reading the provider's response.
    Response,
    /// Running a tool.
    Tool,
    /// A budget or deadline ran out.
    Budget,
}

impl fmt::Display for EvaluationPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Request => "request",
            Self::Response => "response",
            Self::Tool => "tool",
            Self::Budget => "budget",
        })
    }
}

/// An evaluation failed (WINK's `PromptEvaluationError`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct PromptEvaluationError {
    /// What happened.
    pub message: String,
    /// The prompt being evaluated.
    pub prompt_name: String,
    /// Where.
    pub phase: EvaluationPhase,
    /// The provider's raw body, when there is one.
    pub provider_payload: Option<String>,
}

impl PromptEvaluationError {
    /// A new error.
    pub fn new(
        message: impl Into<String>,
        prompt_name: impl Into<String>,
        phase: EvaluationPhase,
    ) -> Self {
        Self {
            message: message.into(),
            prompt_name: prompt_name.into(),
            phase,
            provider_payload: None,
        }
    }

    /// Attach the provider's raw body.
    #[must_use]
    pub fn with_payload(mut self, payload: impl Into<String>) -> Self {
        self.provider_payload = Some(payload.into());
        self
    }
}

/// Tool-call arguments as a provider sent them: a JSON string (OpenAI) or an object (Anthropic).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolArguments {
    /// Already parsed.
    Json(Value),
    /// JSON text to parse.
    Text(String),
}

/// One tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id.
    pub id: String,
    /// The tool name (canonical, after alias decoding).
    pub name: String,
    /// Arguments.
    pub arguments: ToolArguments,
}

/// What executing one call produced.
#[derive(Debug, Clone)]
pub struct ToolCallResult {
    /// The call id.
    pub call_id: String,
    /// The tool name.
    pub name: String,
    /// The parsed arguments (`Null` when they could not be parsed).
    pub params: Value,
    /// The result.
    pub result: ToolResult<ToolPayload>,
    /// Sections (and their tools) the call disclosed.
    pub expansion: Option<SectionExpansion>,
}

impl ToolCallResult {
    /// The text sent back to the model (WINK's `serialize_tool_message`).
    pub fn model_text(&self) -> String {
        self.result.model_text()
    }
}

/// The outcome of one call.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum CallOutcome {
    /// A result for the model.
    Completed(ToolCallResult),
    /// A terminal request to re-render with sections expanded.
    ExpansionRequired(VisibilityExpansionRequired),
}

/// Shared state for executing the calls of one evaluation.
#[derive(Debug, Clone)]
pub struct ToolExecutor {
    /// The session (snapshotted around each call).
    pub session: Session,
    /// Resources (a `Arc<dyn wink_fs::Filesystem>` here is snapshotted too).
    pub resources: Resources,
    /// The evaluation deadline.
    pub deadline: Option<Deadline>,
    /// Adapter name for events.
    pub adapter: String,
    /// Prompt name for events and errors.
    pub prompt_name: String,
}

impl ToolExecutor {
    /// An executor over `session`.
    pub fn new(session: Session, prompt_name: impl Into<String>) -> Self {
        Self {
            session,
            resources: Resources::new(),
            deadline: None,
            adapter: "none".into(),
            prompt_name: prompt_name.into(),
        }
    }

    fn fatal(&self, message: impl Into<String>) -> PromptEvaluationError {
        PromptEvaluationError::new(message, self.prompt_name.clone(), EvaluationPhase::Tool)
    }

    /// Execute `call` against the tools the model was shown (`available`).
    pub async fn execute(
        &self,
        call: &ToolCall,
        available: &[ToolRef],
        rendered: Option<&RenderedPrompt>,
    ) -> Result<CallOutcome, PromptEvaluationError> {
        let Some(tool) = available.iter().find(|t| t.name() == call.name) else {
            return Err(self.fatal(format!(
                "Unknown tool '{}' requested by provider.",
                call.name
            )));
        };
        let params = match &call.arguments {
            ToolArguments::Json(v) => v.clone(),
            ToolArguments::Text(t) if t.trim().is_empty() => Value::Object(Default::default()),
            ToolArguments::Text(t) => serde_json::from_str::<Value>(t)
                .map_err(|_| self.fatal("Failed to decode tool call arguments."))?,
        };
        if !params.is_object() {
            return Err(self.fatal("Tool call arguments must be a JSON object."));
        }
        if self.deadline.is_some_and(|d| d.is_expired()) {
            return Err(PromptEvaluationError::new(
                "Deadline exceeded before running the tool.",
                self.prompt_name.clone(),
                EvaluationPhase::Tool,
            ));
        }
        let telemetry =
            rendered.and_then(|r| r.disclosure_telemetry(&call.name, &params, &self.session));
        let finish = |result: ToolResult<ToolPayload>, expansion: Option<SectionExpansion>| {
            let outcome = ToolCallResult {
                call_id: call.id.clone(),
                name: call.name.clone(),
                params: params.clone(),
                result,
                expansion,
            };
            self.publish(&outcome, telemetry.clone());
            outcome
        };
        // Coerce like WINK's parser ("42" → 42 where an integer is expected), then validate.
        let params = wink_schema::coerce(tool.parameters(), &params);
        if let Err(errors) = wink_schema::validate(tool.parameters(), &params) {
            // WINK stops at the first problem; the other modes report every problem at once.
            let text = match rendered.map(RenderedPrompt::disclosure) {
                Some(crate::DisclosureMode::Wink) => errors
                    .errors()
                    .first()
                    .map(ToString::to_string)
                    .unwrap_or_else(|| errors.to_string()),
                _ => errors.to_string(),
            };
            return Ok(CallOutcome::Completed(finish(
                ToolResult::failure(format!("Tool validation failed: {text}")),
                None,
            )));
        }
        let session_snapshot = self.session.snapshot();
        let filesystem = self
            .resources
            .get::<Arc<dyn wink_fs::Filesystem>>()
            .cloned();
        let fs_snapshot = match &filesystem {
            Some(fs) => Some(fs.snapshot().map_err(|e| {
                self.fatal(format!(
                    "Could not snapshot the filesystem before '{}': {e}",
                    call.name
                ))
            })?),
            None => None,
        };
        let rollback = || -> Result<(), PromptEvaluationError> {
            self.session.restore(&session_snapshot).map_err(|e| {
                self.fatal(format!(
                    "Could not restore session state after '{}': {e}",
                    call.name
                ))
            })?;
            if let (Some(fs), Some(snap)) = (&filesystem, &fs_snapshot) {
                fs.restore(snap).map_err(|e| {
                    self.fatal(format!(
                        "Could not restore the filesystem after '{}': {e}",
                        call.name
                    ))
                })?;
            }
            Ok(())
        };
        let mut context = ToolContext {
            session: self.session.clone(),
            resources: self.resources.clone(),
            deadline: self.deadline,
            call_id: Some(call.id.clone()),
            prompt_name: Some(self.prompt_name.clone()),
            rendered_text: rendered.map(|r| Arc::<str>::from(r.text.as_str())),
        };
        let outcome = tool.invoke(params.clone(), &mut context).await;
        match outcome {
            Ok(response) => {
                if !response.result.success {
                    rollback()?;
                }
                Ok(CallOutcome::Completed(finish(
                    response.result,
                    response.expansion,
                )))
            }
            Err(ToolError::Validation(m)) => {
                rollback()?;
                Ok(CallOutcome::Completed(finish(
                    ToolResult::failure(format!("Tool validation failed: {m}")),
                    None,
                )))
            }
            Err(ToolError::Failed(m)) => {
                rollback()?;
                Ok(CallOutcome::Completed(finish(
                    ToolResult::failure(format!("Tool '{}' execution failed: {m}", call.name)),
                    None,
                )))
            }
            Err(ToolError::ExpansionRequired(e)) => {
                rollback()?;
                finish(ToolResult::message(e.message.clone()), None);
                Ok(CallOutcome::ExpansionRequired(*e))
            }
            Err(ToolError::DeadlineExceeded) => {
                rollback()?;
                Err(PromptEvaluationError::new(
                    format!("Deadline exceeded while running tool '{}'.", call.name),
                    self.prompt_name.clone(),
                    EvaluationPhase::Tool,
                ))
            }
            Err(ToolError::Fatal(m)) => {
                rollback()?;
                Err(self.fatal(m))
            }
        }
    }

    fn publish(
        &self,
        outcome: &ToolCallResult,
        telemetry: Option<wink_session::DisclosureTelemetry>,
    ) {
        let mut event = ToolInvoked::new(
            self.prompt_name.clone(),
            self.adapter.clone(),
            outcome.name.clone(),
            outcome.params.clone(),
            outcome.result.success,
            outcome.result.message.clone(),
        )
        .with_session_id(self.session.id())
        .with_call_id(outcome.call_id.clone())
        .with_rendered_output(outcome.model_text());
        if let Some(value) = outcome.result.value.as_ref() {
            event = event.with_value(value.json.clone());
        }
        if let Some(t) = telemetry {
            event = event.with_disclosure(t);
        }
        let _ = self.session.dispatch(event);
    }
}

/// Run a future to completion on the current thread (for synchronous callers such as
/// `wink call`; no runtime needed, tools that wait on I/O simply park the thread).
pub fn block_on<F: Future>(future: F) -> F::Output {
    struct ThreadWaker(std::thread::Thread);
    impl Wake for ThreadWaker {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(v) => return v,
            Poll::Pending => std::thread::park(),
        }
    }
}
