//! The async driver: runs an [`InnerLoop`] against a [`ProviderAdapter`] and a
//! [`ToolExecutor`], publishing session events on the way.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde::{Deserialize, Serialize};
use wink_core::{
    CallOutcome, EvaluationPhase, PromptEvaluationError, RenderedPrompt, Resources, SectionPath,
    SectionVisibility, ToolCall, ToolConcurrency, ToolExecutor, ToolRef,
    VisibilityExpansionRequired,
};
use wink_session::{
    ExpansionPath, PromptExecuted, PromptRendered, Session, SetVisibilityOverride, ToolsInjected,
    VisibilityExpanded,
};

use crate::budget::BudgetTracker;
use crate::conversation::{Message, ModelTurn, ToolSpec};
use crate::inner::{
    InjectedTool, InnerLoop, LoopConfig, LoopOutcome, Step, ToolOutcome,
    VisibilityExpansionRequiredData,
};
use crate::metrics;
use crate::provider::{ProviderAdapter, ProviderError, ProviderErrorKind, StreamSink};

/// One model call as the transcript records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCallRecord {
    /// The messages sent.
    pub messages: Vec<Message>,
    /// Names of the tools offered.
    pub tools: Vec<String>,
}

/// Progress callbacks (the CLI prints them to stderr).
pub trait RunObserver: Send + Sync {
    /// A model call is about to start.
    fn on_model_call(&self, index: u32, messages: usize, tools: &[ToolSpec]) {
        let _ = (index, messages, tools);
    }
    /// A model call returned.
    fn on_model_turn(&self, turn: &ModelTurn) {
        let _ = turn;
    }
    /// A tool call finished.
    fn on_tool_result(&self, call: &ToolCall, content: &str, is_error: bool) {
        let _ = (call, content, is_error);
    }
    /// Tools were injected into the conversation.
    fn on_tools_injected(&self, section: &str, tools: &[String]) {
        let _ = (section, tools);
    }
    /// The evaluation restarts with these sections expanded.
    fn on_restart(&self, sections: &[String]) {
        let _ = sections;
    }
}

/// What to do with a terminal expansion request (see `main_loop::ExpansionPolicy`).
#[derive(Debug, Clone, PartialEq)]
pub enum ExpansionDecision {
    /// Restart with these overrides.
    Restart(Vec<(SectionPath, SectionVisibility)>),
    /// Do not restart yet: answer the call with this text and continue.
    Defer(String),
}

/// Decides on expansion requests.
pub trait ExpansionDecider: Send {
    /// Decide on `request`.
    fn decide(&mut self, request: &VisibilityExpansionRequired) -> ExpansionDecision;
}

/// Options for one evaluation.
#[derive(Default)]
#[allow(missing_debug_implementations)]
pub struct EvaluateOptions<'a> {
    /// Loop settings.
    pub config: LoopConfig,
    /// The budget (shared with other evaluations of the same run).
    pub budget: BudgetTracker,
    /// Resources for tools (e.g. an `Arc<dyn wink_fs::Filesystem>`).
    pub resources: Resources,
    /// Receives streamed fragments.
    pub stream: Option<&'a dyn StreamSink>,
    /// Receives progress.
    pub observer: Option<&'a dyn RunObserver>,
    /// Decides on terminal expansion requests (default: restart with what was asked).
    pub decider: Option<&'a mut dyn ExpansionDecider>,
}

/// The result of one evaluation.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// How it ended.
    pub outcome: LoopOutcome,
    /// Every model call made, with the messages and tools it was shown.
    pub model_calls: Vec<ModelCallRecord>,
    /// The final loop state (serialize it to resume or inspect).
    pub state: InnerLoop,
}

fn provider_failure(error: &ProviderError, prompt_name: &str) -> PromptEvaluationError {
    let phase = match error.kind {
        ProviderErrorKind::Decode | ProviderErrorKind::TruncatedStream => EvaluationPhase::Response,
        _ => EvaluationPhase::Request,
    };
    let e = PromptEvaluationError::new(error.to_string(), prompt_name, phase);
    match &error.raw_body {
        Some(body) => e.with_payload(body.clone()),
        None => e,
    }
}

/// Evaluate `rendered` from the start.
pub async fn evaluate(
    rendered: &RenderedPrompt,
    session: &Session,
    adapter: &dyn ProviderAdapter,
    options: EvaluateOptions<'_>,
) -> Evaluation {
    let template = rendered.template();
    let prompt_name = template.display_name();
    let mut rendered_event = PromptRendered::new(
        template.ns(),
        template.key(),
        adapter.name(),
        rendered.text.clone(),
    )
    .with_session_id(session.id())
    .with_tool_names(
        rendered
            .tool_names()
            .into_iter()
            .map(str::to_owned)
            .collect(),
    );
    if let Some(name) = template.name() {
        rendered_event = rendered_event.with_prompt_name(name);
    }
    session.dispatch(rendered_event);
    let mut config = options.config.clone();
    config.supports_dynamic_tools =
        config.supports_dynamic_tools && adapter.supports_dynamic_tools();
    let state = InnerLoop::start(rendered, prompt_name, config);
    drive(state, rendered, session, adapter, options).await
}

/// Continue a saved evaluation (`state` from [`Evaluation::state`] or a deserialized loop) against
/// the same rendered prompt.
pub async fn resume(
    mut state: InnerLoop,
    rendered: &RenderedPrompt,
    session: &Session,
    adapter: &dyn ProviderAdapter,
    options: EvaluateOptions<'_>,
) -> Evaluation {
    state.set_output(rendered.output.clone());
    drive(state, rendered, session, adapter, options).await
}

async fn drive(
    mut state: InnerLoop,
    rendered: &RenderedPrompt,
    session: &Session,
    adapter: &dyn ProviderAdapter,
    mut options: EvaluateOptions<'_>,
) -> Evaluation {
    let prompt_name = state.prompt_name().to_owned();
    let mut registry: HashMap<String, ToolRef> = rendered
        .tools
        .iter()
        .map(|t| (t.name().to_owned(), t.clone()))
        .collect();
    for injected in state.injected() {
        if let Some((_, tool)) = rendered.template_tool(&injected.spec.name) {
            registry.insert(injected.spec.name.clone(), tool);
        }
    }
    let executor = ToolExecutor {
        session: session.clone(),
        // Tools can read what the run has spent (`ctx.resource::<BudgetTracker>()`).
        resources: options.resources.clone().with(options.budget.clone()),
        deadline: options.budget.budget().deadline,
        adapter: adapter.name().to_owned(),
        prompt_name: prompt_name.clone(),
    };
    let mut model_calls = Vec::new();
    loop {
        match state.step() {
            Step::Done(outcome) => {
                let mut executed = PromptExecuted::new(prompt_name.clone(), adapter.name())
                    .with_session_id(session.id());
                if let LoopOutcome::Finished { text, output } = &outcome {
                    if let Some(t) = text {
                        executed = executed.with_text(t.clone());
                    }
                    if let Some(o) = output {
                        executed = executed.with_output(o.clone());
                    }
                }
                executed = executed.with_usage(options.budget.spent().usage);
                session.dispatch(executed);
                return Evaluation {
                    outcome,
                    model_calls,
                    state,
                };
            }
            Step::CallModel(request) => {
                if let Err(limit) = options.budget.check_model_call() {
                    state.exhaust(limit);
                    continue;
                }
                if let Some(o) = options.observer {
                    o.on_model_call(state.model_calls(), request.messages.len(), &request.tools);
                }
                model_calls.push(ModelCallRecord {
                    messages: request.messages.clone(),
                    tools: request.tools.iter().map(|t| t.name.clone()).collect(),
                });
                match adapter.complete(&request, options.stream).await {
                    Ok(turn) => {
                        options.budget.record_model_call(turn.usage.as_ref());
                        if let Some(o) = options.observer {
                            o.on_model_turn(&turn);
                        }
                        state.on_model_turn(turn);
                        if state.outcome().is_none()
                            && let Some(limit) = options.budget.exceeded_tokens()
                        {
                            state.exhaust(limit);
                        }
                    }
                    Err(error) => state.fail(&provider_failure(&error, &prompt_name)),
                }
            }
            Step::RunTools(calls) => {
                let outcomes =
                    match run_calls(&calls, &registry, &executor, rendered, &mut options).await {
                        Ok(outcomes) => outcomes,
                        Err(RunCallsError::Budget(limit)) => {
                            state.exhaust(limit);
                            continue;
                        }
                        Err(RunCallsError::Fatal(e)) => {
                            state.fail(&e);
                            continue;
                        }
                    };
                let before = state.injected().len();
                state.on_tool_outcomes(outcomes.clone());
                let new: Vec<InjectedTool> = state.injected()[before..].to_vec();
                if !new.is_empty() {
                    announce_injection(
                        &new,
                        &outcomes,
                        session,
                        &mut registry,
                        rendered,
                        options.observer,
                    );
                }
                if let Some(LoopOutcome::ExpansionRequired {
                    section_keys,
                    reason,
                    ..
                }) = state.outcome()
                {
                    session.dispatch(
                        VisibilityExpanded::new(
                            section_keys.clone(),
                            reason.clone(),
                            ExpansionPath::Restart,
                        )
                        .with_session_id(session.id()),
                    );
                    if let Some(o) = options.observer {
                        o.on_restart(section_keys);
                    }
                    metrics::record_restart();
                }
            }
        }
    }
}

fn announce_injection(
    new: &[InjectedTool],
    outcomes: &[ToolOutcome],
    session: &Session,
    registry: &mut HashMap<String, ToolRef>,
    rendered: &RenderedPrompt,
    observer: Option<&dyn RunObserver>,
) {
    for outcome in outcomes {
        let ToolOutcome::Result {
            disclosed,
            disclosed_section: Some(section),
            ..
        } = outcome
        else {
            continue;
        };
        let names: Vec<String> = disclosed
            .iter()
            .filter(|t| new.iter().any(|n| n.spec.name == t.spec.name))
            .map(|t| t.spec.name.clone())
            .collect();
        if names.is_empty() {
            continue;
        }
        let mut paths = vec![section.clone()];
        for t in disclosed {
            if !paths.contains(&t.section) {
                paths.push(t.section.clone());
            }
        }
        for path in &paths {
            session.dispatch(SetVisibilityOverride {
                path: path.clone(),
                visibility: SectionVisibility::Full,
            });
        }
        for name in &names {
            if let Some((_, tool)) = rendered.template_tool(name) {
                registry.insert(name.clone(), tool);
            }
        }
        session.dispatch(
            ToolsInjected::new(names.clone(), section.dotted()).with_session_id(session.id()),
        );
        session.dispatch(
            VisibilityExpanded::new(
                vec![section.dotted()],
                "read_section disclosed tools",
                ExpansionPath::Dynamic,
            )
            .with_session_id(session.id()),
        );
        metrics::record_injection(names.len());
        tracing::info!(section_key = %section.dotted(), tool_count = names.len(), tool_names = ?names, "Injected tools from section expansion");
        if let Some(o) = observer {
            o.on_tools_injected(&section.dotted(), &names);
        }
    }
}

type CallFuture<'a> =
    Pin<Box<dyn Future<Output = Result<CallOutcome, PromptEvaluationError>> + Send + 'a>>;

enum RunCallsError {
    Budget(crate::budget::BudgetLimit),
    Fatal(PromptEvaluationError),
}

/// Run the calls of one turn: consecutive calls of tools that allow it run concurrently;
/// results come back in call order; a terminal expansion skips the calls after it.
async fn run_calls(
    calls: &[ToolCall],
    registry: &HashMap<String, ToolRef>,
    executor: &ToolExecutor,
    rendered: &RenderedPrompt,
    options: &mut EvaluateOptions<'_>,
) -> Result<Vec<ToolOutcome>, RunCallsError> {
    let available: Vec<ToolRef> = registry.values().cloned().collect();
    let mut outcomes: Vec<ToolOutcome> = Vec::with_capacity(calls.len());
    let mut index = 0;
    let mut stopped = false;
    while index < calls.len() {
        if stopped {
            let c = &calls[index];
            outcomes.push(ToolOutcome::Skipped {
                call_id: c.id.clone(),
                name: c.name.clone(),
            });
            index += 1;
            continue;
        }
        let parallel = |c: &ToolCall| {
            registry
                .get(&c.name)
                .is_some_and(|t| t.concurrency() == ToolConcurrency::Parallel)
        };
        let mut end = index + 1;
        if parallel(&calls[index]) {
            while end < calls.len() && parallel(&calls[end]) {
                end += 1;
            }
        }
        let batch = &calls[index..end];
        for _ in batch {
            options
                .budget
                .check_tool_call()
                .map_err(RunCallsError::Budget)?;
            options.budget.record_tool_call();
        }
        let futures: Vec<CallFuture<'_>> = batch
            .iter()
            .map(|c| {
                Box::pin(executor.execute(c, &available, Some(rendered)))
                    as Pin<Box<dyn Future<Output = _> + Send>>
            })
            .collect();
        let results = join_all(futures).await;
        for (call, result) in batch.iter().zip(results) {
            let outcome = result.map_err(RunCallsError::Fatal)?;
            let outcome = match outcome {
                CallOutcome::Completed(r) => {
                    let content = r.model_text();
                    if let Some(o) = options.observer {
                        o.on_tool_result(call, &content, !r.result.success);
                    }
                    let (disclosed, disclosed_section) = match &r.expansion {
                        Some(e) => (
                            e.tools
                                .iter()
                                .map(|(p, t)| InjectedTool {
                                    spec: ToolSpec::of(t),
                                    section: p.clone(),
                                })
                                .collect(),
                            Some(e.path.clone()),
                        ),
                        None => (Vec::new(), None),
                    };
                    ToolOutcome::Result {
                        call_id: r.call_id,
                        name: r.name,
                        content,
                        is_error: !r.result.success,
                        disclosed,
                        disclosed_section,
                    }
                }
                CallOutcome::ExpansionRequired(e) => {
                    let decision = match options.decider.as_deref_mut() {
                        Some(d) => d.decide(&e),
                        None => ExpansionDecision::Restart(
                            e.requested_overrides
                                .iter()
                                .map(|(p, v)| (p.clone(), *v))
                                .collect(),
                        ),
                    };
                    match decision {
                        ExpansionDecision::Defer(text) => {
                            if let Some(o) = options.observer {
                                o.on_tool_result(call, &text, false);
                            }
                            ToolOutcome::Result {
                                call_id: call.id.clone(),
                                name: call.name.clone(),
                                content: text,
                                is_error: false,
                                disclosed: Vec::new(),
                                disclosed_section: None,
                            }
                        }
                        ExpansionDecision::Restart(overrides) => {
                            stopped = true;
                            let mut data =
                                VisibilityExpansionRequiredData::from_error(call.id.clone(), &e);
                            data.requested_overrides = overrides;
                            ToolOutcome::Expansion(data)
                        }
                    }
                }
            };
            outcomes.push(outcome);
        }
        index = end;
    }
    Ok(outcomes)
}

/// Poll several futures concurrently on the current task; outputs in input order.
fn join_all<'a, T>(futures: Vec<Pin<Box<dyn Future<Output = T> + Send + 'a>>>) -> JoinAll<'a, T> {
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
