//! Transactional tool execution with WINK's failure semantics (reference §5.8):
//! bad arguments → a failed result `Tool validation failed: …`; a handler error → a failed
//! result `Tool '<name>' execution failed: …`; an unknown tool, a tool without a handler or
//! undecodable arguments → a fatal [`PromptEvaluationError`]. Session state and the filesystem
//! are snapshotted before the call and restored when it fails, so a failed tool leaves no
//! trace. Every outcome publishes `ToolInvoked`.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_fs::FsBatch;
use wink_session::{Session, SessionTransaction, ToolInvoked};

use crate::error::VisibilityExpansionRequired;
use crate::render::RenderedPrompt;
use crate::tool::{
    Deadline, Resources, SectionExpansion, Tool, ToolContext, ToolError, ToolPayload, ToolRef,
    ToolResponse, ToolResult,
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

impl ToolArguments {
    /// The arguments as a JSON value: text that is not JSON stays a string, empty text is `{}`.
    #[must_use]
    pub fn to_value(&self) -> Value {
        match self {
            Self::Json(value) => value.clone(),
            Self::Text(text) if text.trim().is_empty() => Value::Object(serde_json::Map::new()),
            Self::Text(text) => {
                serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
            }
        }
    }

    /// The arguments as a JSON object, as the wire forms that carry them as one (Anthropic's
    /// `input`, a Responses `function_call`, an MCP `tool_use` block) need: anything that is not
    /// an object, unparsable text included, is `{}`.
    #[must_use]
    pub fn to_object(&self) -> Value {
        match self.to_value() {
            object @ Value::Object(_) => object,
            _ => Value::Object(serde_json::Map::new()),
        }
    }
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

    /// Execute `call` against the tools the model was shown (`available`). Session and
    /// filesystem are snapshotted first and restored if the call fails.
    pub async fn execute(
        &self,
        call: &ToolCall,
        available: &[ToolRef],
        rendered: Option<&RenderedPrompt>,
    ) -> Result<CallOutcome, PromptEvaluationError> {
        let (outcome, transaction) = self
            .execute_in(call, available, rendered, Isolation::Snapshot)
            .await;
        debug_assert!(transaction.is_none());
        outcome
    }

    /// Execute calls that overlap in time (the [`ToolConcurrency::Parallel`] calls of one model
    /// turn), each still transactional without undoing the others: every call works in its own
    /// session transaction (committed to the session in call order once all are done, dropped if
    /// the call fails) and writes the filesystem through an [`FsBatch`] member (a failed call's
    /// changes are undone alone). Outcomes come back in call order.
    ///
    /// [`ToolConcurrency::Parallel`]: crate::ToolConcurrency::Parallel
    pub async fn execute_concurrently(
        &self,
        calls: &[ToolCall],
        available: &[ToolRef],
        rendered: Option<&RenderedPrompt>,
    ) -> Vec<Result<CallOutcome, PromptEvaluationError>> {
        let batch = match self.resources.get::<Arc<dyn wink_fs::Filesystem>>() {
            Some(fs) => match FsBatch::begin(Arc::clone(fs)) {
                Ok(batch) => Some(batch),
                Err(e) => {
                    let error = self.fatal(format!(
                        "Could not snapshot the filesystem before running {} calls: {e}",
                        calls.len()
                    ));
                    return calls.iter().map(|_| Err(error.clone())).collect();
                }
            },
            None => None,
        };
        type Finished = (
            Result<CallOutcome, PromptEvaluationError>,
            Option<SessionTransaction>,
        );
        let futures: Vec<Pin<Box<dyn Future<Output = Finished> + Send + '_>>> = calls
            .iter()
            .enumerate()
            .map(|(index, call)| {
                let isolation = Isolation::Transaction {
                    session: self.session.begin(),
                    filesystem: batch.as_ref().map(|b| (Arc::clone(b), index)),
                };
                Box::pin(self.execute_in(call, available, rendered, isolation))
                    as Pin<Box<dyn Future<Output = Finished> + Send + '_>>
            })
            .collect();
        let finished = join_all(futures).await;
        let mut outcomes = Vec::with_capacity(finished.len());
        for ((outcome, transaction), call) in finished.into_iter().zip(calls) {
            let outcome = match (outcome, transaction) {
                (Ok(outcome), Some(transaction)) => match transaction.commit() {
                    Ok(_) => Ok(outcome),
                    Err(e) => Err(self.fatal(format!(
                        "Could not commit the session changes of '{}': {e}",
                        call.name
                    ))),
                },
                (outcome, _) => outcome,
            };
            outcomes.push(outcome);
        }
        outcomes
    }

    /// Runs one call; with a transaction, returns it (to commit) when the call succeeded.
    async fn execute_in(
        &self,
        call: &ToolCall,
        available: &[ToolRef],
        rendered: Option<&RenderedPrompt>,
        isolation: Isolation,
    ) -> (
        Result<CallOutcome, PromptEvaluationError>,
        Option<SessionTransaction>,
    ) {
        let mut isolation = Some(isolation);
        let outcome = self
            .run_call(call, available, rendered, &mut isolation)
            .await;
        match isolation {
            Some(Isolation::Transaction { session, .. }) => (outcome, Some(session)),
            _ => (outcome, None),
        }
    }

    /// The call itself. On failure, undoes its changes and takes the isolation (so that a
    /// transaction is dropped, not committed).
    async fn run_call(
        &self,
        call: &ToolCall,
        available: &[ToolRef],
        rendered: Option<&RenderedPrompt>,
        isolation: &mut Option<Isolation>,
    ) -> Result<CallOutcome, PromptEvaluationError> {
        let Some(tool) = available.iter().find(|t| t.name() == call.name) else {
            return Err(self.fatal(format!(
                "Unknown tool '{}' requested by provider.",
                call.name
            )));
        };
        let started = Started {
            at: wink_session::Timestamp::now(),
            span: self
                .session
                .traceparent(wink_session::TraceScope::ToolCall { call_id: &call.id }),
        };
        let params = match self.decode_arguments(call)? {
            Ok(params) => params,
            Err(problem) => {
                let outcome = ToolCallResult {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    params: Value::Object(Default::default()),
                    result: ToolResult::failure(format!("Tool validation failed: {problem}")),
                    expansion: None,
                };
                self.publish(&outcome, None, &started);
                return Ok(CallOutcome::Completed(outcome));
            }
        };
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
            self.publish(&outcome, telemetry.clone(), &started);
            outcome
        };
        if let Some(refusal) =
            rendered.and_then(|r| r.policy_refusal(&call.name, &params, &self.session))
        {
            return Ok(CallOutcome::Completed(finish(
                ToolResult::failure(refusal),
                None,
            )));
        }
        let params = match validated_params(tool.as_ref(), &params, rendered) {
            Ok(params) => params,
            Err(text) => {
                return Ok(CallOutcome::Completed(finish(
                    ToolResult::failure(format!("Tool validation failed: {text}")),
                    None,
                )));
            }
        };
        let (undo, mut context) = self.call_context(call, rendered, isolation.as_ref())?;
        let outcome = tool.invoke(params, &mut context).await;
        let failed = !matches!(&outcome, Ok(response) if response.result.success);
        if failed {
            self.undo_call(call, undo.as_ref(), isolation.take())?;
        }
        self.settle(call, outcome, rendered, finish)
    }

    /// The call's arguments as a JSON object. `Ok(Err(problem))` when the model can send them
    /// again (a key twice, an integer beyond 64 bits); other malformed arguments are fatal.
    fn decode_arguments(
        &self,
        call: &ToolCall,
    ) -> Result<Result<Value, String>, PromptEvaluationError> {
        let params = match &call.arguments {
            ToolArguments::Json(v) => v.clone(),
            ToolArguments::Text(t) if t.trim().is_empty() => Value::Object(Default::default()),
            ToolArguments::Text(t) => match wink_schema::parse_strict_json(t) {
                Ok(value) => value,
                Err(wink_schema::StrictJsonError::Syntax(_)) => {
                    return Err(self.fatal("Failed to decode tool call arguments."));
                }
                Err(wink_schema::StrictJsonError::DuplicateKey(key)) => {
                    return Ok(Err(format!("duplicate key '{key}' in the arguments")));
                }
                Err(other) => return Ok(Err(format!("{other} (in the arguments)"))),
            },
        };
        if !params.is_object() {
            return Err(self.fatal("Tool call arguments must be a JSON object."));
        }
        Ok(Ok(params))
    }

    /// What the call runs with: a checkpoint to undo it by (none inside a transaction, which
    /// is undone by discarding it) and the tool context (the transaction's session and
    /// filesystem member when there is one).
    fn call_context(
        &self,
        call: &ToolCall,
        rendered: Option<&RenderedPrompt>,
        isolation: Option<&Isolation>,
    ) -> Result<(Option<Checkpoint>, ToolContext), PromptEvaluationError> {
        let undo = match isolation {
            Some(Isolation::Transaction { .. }) => None,
            _ => Some(self.checkpoint(&format!("'{}'", call.name))?),
        };
        let (session, resources) = match isolation {
            Some(Isolation::Transaction {
                session,
                filesystem,
            }) => {
                let resources = match filesystem {
                    Some((batch, index)) => self.resources.clone().with(batch.member(*index)),
                    None => self.resources.clone(),
                };
                (session.session().clone(), resources)
            }
            _ => (self.session.clone(), self.resources.clone()),
        };
        let context = ToolContext {
            session,
            telemetry: self.session.clone(),
            resources,
            deadline: self.deadline,
            call_id: Some(call.id.clone()),
            prompt_name: Some(self.prompt_name.clone()),
            rendered_text: rendered.map(|r| Arc::<str>::from(r.text.as_str())),
        };
        Ok((undo, context))
    }

    /// Undoes a failed call: rewinds to its checkpoint, or discards its filesystem changes
    /// from the transaction's batch.
    fn undo_call(
        &self,
        call: &ToolCall,
        undo: Option<&Checkpoint>,
        isolation: Option<Isolation>,
    ) -> Result<(), PromptEvaluationError> {
        match (undo, isolation) {
            (Some(undo), _) => self.rewind(undo, &format!("'{}'", call.name)),
            (None, Some(Isolation::Transaction { filesystem, .. })) => {
                if let Some((batch, index)) = filesystem {
                    let skipped = batch.discard(index).map_err(|e| {
                        self.fatal(format!(
                            "Could not undo the filesystem changes of '{}': {e}",
                            call.name
                        ))
                    })?;
                    if !skipped.is_empty() {
                        tracing::warn!(
                            tool = %call.name,
                            skipped = ?skipped,
                            "Undoing a failed call dropped concurrent changes that depended on it."
                        );
                    }
                }
                Ok(())
            }
            (None, _) => Ok(()),
        }
    }

    /// The outcome of an invoked tool (already undone when it failed): a completed call, an
    /// expansion request, or a fatal error.
    fn settle(
        &self,
        call: &ToolCall,
        outcome: Result<ToolResponse, ToolError>,
        rendered: Option<&RenderedPrompt>,
        finish: impl Fn(ToolResult<ToolPayload>, Option<SectionExpansion>) -> ToolCallResult,
    ) -> Result<CallOutcome, PromptEvaluationError> {
        match outcome {
            Ok(response) => Ok(CallOutcome::Completed(finish(
                response.result,
                response.expansion,
            ))),
            Err(ToolError::Validation(m)) => Ok(CallOutcome::Completed(finish(
                ToolResult::failure(format!("Tool validation failed: {m}")),
                None,
            ))),
            Err(ToolError::Failed(m)) => Ok(CallOutcome::Completed(finish(
                ToolResult::failure(format!("Tool '{}' execution failed: {m}", call.name)),
                None,
            ))),
            Err(ToolError::ExpansionRequired(e)) => {
                // Seed 000: the call's value is `OpenSectionsResult { requested_overrides }`;
                // WINK v0.17 raises instead, so `wink` mode records the message alone.
                let result = match rendered.map(RenderedPrompt::disclosure) {
                    Some(crate::DisclosureMode::Wink) => ToolResult::message(e.message.clone()),
                    _ => ToolResult::ok(
                        e.message.clone(),
                        crate::OpenSectionsResult::of(&e).payload(),
                    ),
                };
                finish(result, None);
                Ok(CallOutcome::ExpansionRequired(*e))
            }
            Err(ToolError::DeadlineExceeded) => Err(PromptEvaluationError::new(
                format!("Deadline exceeded while running tool '{}'.", call.name),
                self.prompt_name.clone(),
                EvaluationPhase::Tool,
            )),
            Err(ToolError::Fatal(m)) => Err(self.fatal(m)),
        }
    }

    /// The session and filesystem state to go back to if what runs next (`what`, named in
    /// error messages: `'search'`, `the tool calls`) has to be undone.
    ///
    /// # Errors
    /// The filesystem cannot take a snapshot.
    pub fn checkpoint(&self, what: &str) -> Result<Checkpoint, PromptEvaluationError> {
        let session = self.session.snapshot();
        let filesystem = match self.resources.get::<Arc<dyn wink_fs::Filesystem>>() {
            Some(fs) => Some((
                Arc::clone(fs),
                fs.snapshot().map_err(|e| {
                    self.fatal(format!(
                        "Could not snapshot the filesystem before {what}: {e}"
                    ))
                })?,
            )),
            None => None,
        };
        Ok(Checkpoint {
            session,
            filesystem,
        })
    }

    /// Puts session and filesystem back as they were at `checkpoint` (after `what`).
    ///
    /// # Errors
    /// The session or the filesystem cannot restore its snapshot.
    pub fn rewind(&self, checkpoint: &Checkpoint, what: &str) -> Result<(), PromptEvaluationError> {
        self.session.restore(&checkpoint.session).map_err(|e| {
            self.fatal(format!("Could not restore session state after {what}: {e}"))
        })?;
        if let Some((fs, snapshot)) = &checkpoint.filesystem {
            fs.restore(snapshot).map_err(|e| {
                self.fatal(format!(
                    "Could not restore the filesystem after {what}: {e}"
                ))
            })?;
        }
        Ok(())
    }

    fn publish(
        &self,
        outcome: &ToolCallResult,
        telemetry: Option<wink_session::DisclosureTelemetry>,
        started: &Started,
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
        .with_rendered_output(outcome.model_text())
        .with_started_at(started.at)
        .with_span(started.span);
        if let Some(value) = outcome.result.value.as_ref() {
            event = event.with_value(value.json.clone());
        }
        if let Some(t) = telemetry {
            event = event.with_disclosure(t);
        }
        let _ = self.session.dispatch(event);
    }
}

/// When a call started and the trace span it runs in (its `ToolInvoked` records both).
struct Started {
    at: wink_session::Timestamp,
    span: Option<wink_session::TraceParent>,
}

/// How a call's changes are undone when it fails.
enum Isolation {
    /// Snapshot the shared session and filesystem; restore them on failure.
    Snapshot,
    /// Work in a session transaction and an [`FsBatch`] member; drop / discard them on failure.
    Transaction {
        session: SessionTransaction,
        filesystem: Option<(Arc<FsBatch>, usize)>,
    },
}

/// Session and filesystem state to go back to ([`ToolExecutor::checkpoint`]).
#[derive(Debug)]
pub struct Checkpoint {
    session: wink_session::Snapshot,
    filesystem: Option<(Arc<dyn wink_fs::Filesystem>, wink_fs::FsSnapshot)>,
}

/// Poll several futures concurrently on the current task; outputs in input order.
pub fn join_all<'a, T>(
    futures: Vec<Pin<Box<dyn Future<Output = T> + Send + 'a>>>,
) -> impl Future<Output = Vec<T>> + Send + 'a
where
    T: Send + 'a,
{
    let len = futures.len();
    JoinAll {
        futures: futures.into_iter().map(Some).collect(),
        results: (0..len).map(|_| None).collect(),
    }
}

struct JoinAll<'a, T> {
    futures: Vec<Option<Pin<Box<dyn Future<Output = T> + Send + 'a>>>>,
    results: Vec<Option<T>>,
}

impl<T> Future for JoinAll<'_, T> {
    type Output = Vec<T>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<T>> {
        let this = self.get_mut();
        let mut pending = false;
        for (slot, result) in this.futures.iter_mut().zip(this.results.iter_mut()) {
            if let Some(f) = slot {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => {
                        *result = Some(v);
                        *slot = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            return Poll::Pending;
        }
        Poll::Ready(this.results.iter_mut().filter_map(Option::take).collect())
    }
}

impl<T> Unpin for JoinAll<'_, T> {}

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

/// The arguments coerced like WINK's parser (`"42"` → 42 where an integer is expected) and
/// validated against the tool's schema; the failure text otherwise. WINK stops at the first
/// problem; the other modes report every problem at once.
fn validated_params(
    tool: &dyn Tool,
    params: &Value,
    rendered: Option<&RenderedPrompt>,
) -> Result<Value, String> {
    let params = wink_schema::coerce(tool.parameters(), params);
    if let Err(errors) = wink_schema::validate(tool.parameters(), &params) {
        let text = match rendered.map(RenderedPrompt::disclosure) {
            Some(crate::DisclosureMode::Wink) => errors
                .errors()
                .first()
                .map(ToString::to_string)
                .unwrap_or_else(|| errors.to_string()),
            _ => errors.to_string(),
        };
        return Err(text);
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::ToolArguments;

    #[test]
    fn arguments_as_an_object_are_empty_unless_they_are_one() {
        let object = |arguments: ToolArguments| arguments.to_object();
        assert_eq!(
            object(ToolArguments::Text("{\"a\":1}".into())),
            json!({"a": 1})
        );
        assert_eq!(object(ToolArguments::Text("{oops".into())), json!({}));
        assert_eq!(object(ToolArguments::Text("  ".into())), json!({}));
        assert_eq!(object(ToolArguments::Json(json!([1, 2]))), json!({}));
        assert_eq!(
            object(ToolArguments::Json(json!({"b": [2]}))),
            json!({"b": [2]})
        );
    }
}
