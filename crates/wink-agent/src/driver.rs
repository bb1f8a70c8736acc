//! The async driver: runs an [`InnerLoop`] against a [`ProviderAdapter`] and a
//! [`ToolExecutor`], publishing session events on the way.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use wink_core::{
    CallOutcome, EvaluationPhase, PromptEvaluationError, READ_SECTION, RenderedPrompt, Resources,
    SectionPath, SectionVisibility, ToolCall, ToolCallResult, ToolConcurrency, ToolExecutor,
    ToolRef, VisibilityExpansionRequired, expansion_overrides, is_disclosure_tool,
};
use wink_session::{
    ExpansionPath, LoopIntervention, PromptExecuted, PromptRendered, Session,
    SetVisibilityOverride, TokenUsage, ToolsInjected, VisibilityExpanded,
};

use crate::budget::{BudgetLimit, BudgetTracker, MeasuredRequest, estimate_request_tokens_after};
use crate::guard::{Intervention, InterventionKind};
use crate::inner::{
    InjectedTool, Injection, InnerLoop, LoopConfig, LoopOutcome, ProviderFailure, Step,
    ToolOutcome, TurnEffects, VisibilityExpansionRequiredData,
};
use crate::metrics;
use crate::timer::{DeadlineExpired, until_deadline};
use wink_model::{Message, ModelRequest, ModelTurn, ToolSpec};
use wink_model::{ProviderAdapter, ProviderError, ProviderErrorKind, StreamSink};

/// One model call as the transcript records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCallRecord {
    /// The messages sent.
    pub messages: Vec<Message>,
    /// Names of the tools offered.
    pub tools: Vec<String>,
    /// Token usage the provider reported for the call (`None` when it reported none or the
    /// call failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
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
    /// The main loop restarts the evaluation with these sections (dotted paths) expanded.
    fn on_restart(&self, sections: &[String]) {
        let _ = sections;
    }
    /// The loop stepped in (a repeated call, an answer-only call, an unknown tool, an
    /// auto-opened section, a request too large for the context window).
    fn on_intervention(&self, intervention: &Intervention) {
        let _ = intervention;
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

    /// Decide on `request`, made by a call of `tool` (`open_sections`, or `read_section` on the
    /// restart path); the default ignores the tool.
    fn decide_for(
        &mut self,
        tool: &str,
        request: &VisibilityExpansionRequired,
    ) -> ExpansionDecision {
        let _ = tool;
        self.decide(request)
    }
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
    /// Tool calls to run before the first model call: the turn that auto-opened sections before
    /// a restart ([`InnerLoop::replay_calls`]).
    pub replay: Vec<ToolCall>,
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

fn provider_failure(
    error: &ProviderError,
    prompt_name: &str,
    context_window: Option<u64>,
) -> (PromptEvaluationError, ProviderFailure) {
    let phase = match error.kind {
        ProviderErrorKind::Decode | ProviderErrorKind::TruncatedStream => EvaluationPhase::Response,
        _ => EvaluationPhase::Request,
    };
    // WINK reports the adapter's own message (`result.error == "adapter failure"`); the
    // provider, model, status and body travel beside it. A context overflow says so first.
    let message = match (&error.kind, context_window) {
        (ProviderErrorKind::ContextOverflow, Some(window)) => format!(
            "the request does not fit the model's context window ({window} tokens): {}",
            error.message
        ),
        (ProviderErrorKind::ContextOverflow, None) => format!(
            "the request does not fit the model's context window: {}",
            error.message
        ),
        _ => error.message.clone(),
    };
    let e = PromptEvaluationError::new(message, prompt_name, phase);
    let e = match &error.raw_body {
        Some(body) => e.with_payload(body.clone()),
        None => e,
    };
    let failure = ProviderFailure {
        provider: error.provider.clone(),
        model: error.model.clone(),
        status: match error.kind {
            ProviderErrorKind::Status(status) => Some(status),
            ProviderErrorKind::RateLimited(_) => Some(429),
            _ => None,
        },
        raw_body: error.raw_body.clone(),
    };
    (e, failure)
}

/// Evaluate `rendered` from the start.
pub async fn evaluate(
    rendered: &RenderedPrompt,
    session: &Session,
    adapter: &dyn ProviderAdapter,
    options: EvaluateOptions<'_>,
) -> Evaluation {
    Driver::start(rendered, session, adapter, options)
        .run()
        .await
}

/// Continue a saved evaluation (`state` from [`Evaluation::state`], [`Driver::into_state`] or a
/// deserialized loop) against the same rendered prompt.
pub async fn resume(
    state: InnerLoop,
    rendered: &RenderedPrompt,
    session: &Session,
    adapter: &dyn ProviderAdapter,
    options: EvaluateOptions<'_>,
) -> Evaluation {
    Driver::resume(state, rendered, session, adapter, options)
        .run()
        .await
}

/// Runs one evaluation step by step: each [`Driver::advance`] makes one model call or runs the
/// tool calls of one model turn. Between steps [`Driver::state`] is a consistent, serialisable
/// save point; [`Driver::into_state`] stops the run there and [`Driver::resume`] continues it.
///
/// A wall-clock deadline in the budget is raced against every model call: a provider that
/// never answers ends the evaluation with [`BudgetLimit::Deadline`] when the deadline passes.
#[allow(missing_debug_implementations)]
pub struct Driver<'a, 'o> {
    state: InnerLoop,
    rendered: &'a RenderedPrompt,
    session: &'a Session,
    adapter: &'a dyn ProviderAdapter,
    options: EvaluateOptions<'o>,
    registry: HashMap<String, ToolRef>,
    executor: ToolExecutor,
    model_calls: Vec<ModelCallRecord>,
    announced: bool,
    /// The last request the provider measured (for the context-window estimate).
    measured: Option<MeasuredRequest>,
}

impl<'a, 'o> Driver<'a, 'o> {
    /// Start evaluating `rendered` (publishes `PromptRendered`).
    pub fn start(
        rendered: &'a RenderedPrompt,
        session: &'a Session,
        adapter: &'a dyn ProviderAdapter,
        options: EvaluateOptions<'o>,
    ) -> Self {
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
        let mut options = options;
        let replay = std::mem::take(&mut options.replay);
        let mut driver = Self::resume(state, rendered, session, adapter, options);
        if !replay.is_empty() {
            let effects = driver.state.replay(replay);
            driver.announce_effects(&effects);
        }
        driver
    }

    /// Continue a saved evaluation against the same rendered prompt.
    pub fn resume(
        mut state: InnerLoop,
        rendered: &'a RenderedPrompt,
        session: &'a Session,
        adapter: &'a dyn ProviderAdapter,
        options: EvaluateOptions<'o>,
    ) -> Self {
        state.set_output(rendered.output.clone());
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
            prompt_name,
        };
        Self {
            state,
            rendered,
            session,
            adapter,
            options,
            registry,
            executor,
            model_calls: Vec::new(),
            announced: false,
            measured: None,
        }
    }

    /// The loop state: serialize it to save the run.
    pub fn state(&self) -> &InnerLoop {
        &self.state
    }

    /// The model calls this driver made, with the messages and tools each was shown.
    pub fn model_calls(&self) -> &[ModelCallRecord] {
        &self.model_calls
    }

    /// Stop here and keep the loop state (to serialize and [`Driver::resume`] later).
    pub fn into_state(self) -> InnerLoop {
        self.state
    }

    /// Run to the end.
    pub async fn run(mut self) -> Evaluation {
        loop {
            if let Some(outcome) = self.advance().await {
                let outcome = outcome.clone();
                return Evaluation {
                    outcome,
                    model_calls: self.model_calls,
                    state: self.state,
                };
            }
        }
    }

    /// Take one step: call the model, or run the calls of the last model turn. Returns the
    /// outcome once the evaluation has ended (and publishes `PromptExecuted` the first time).
    pub async fn advance(&mut self) -> Option<&LoopOutcome> {
        match self.state.step() {
            Step::Done(_) => {}
            Step::CallModel(request) => self.call_model(request).await,
            Step::RunTools(calls) => self.run_tools(&calls).await,
        }
        if self.state.outcome().is_some() && !self.announced {
            self.announced = true;
            self.announce_end();
        }
        self.state.outcome()
    }

    fn announce_end(&self) {
        let Some(outcome) = self.state.outcome() else {
            return;
        };
        let mut executed =
            PromptExecuted::new(self.state.prompt_name().to_owned(), self.adapter.name())
                .with_session_id(self.session.id());
        if let LoopOutcome::Finished { text, output } = outcome {
            if let Some(t) = text {
                executed = executed.with_text(t.clone());
            }
            if let Some(o) = output {
                executed = executed.with_output(o.clone());
            }
        }
        executed = executed.with_usage(self.options.budget.spent().usage);
        self.session.dispatch(executed);
    }

    /// The model's context window: the loop config's, else the adapter's.
    pub fn context_window(&self) -> Option<u64> {
        self.state
            .config()
            .context_window
            .or_else(|| self.adapter.context_window())
    }

    fn announce_effects(&mut self, effects: &TurnEffects) {
        for intervention in &effects.interventions {
            self.announce_intervention(intervention);
        }
        for injection in &effects.injections {
            announce_injection(
                injection,
                self.session,
                &mut self.registry,
                self.rendered,
                self.options.observer,
                "a call of a tool it hid opened the section",
            );
        }
    }

    fn announce_intervention(&self, intervention: &Intervention) {
        let mut event = LoopIntervention::new(intervention.kind.as_str(), &intervention.detail)
            .with_session_id(self.session.id());
        event.tool.clone_from(&intervention.tool);
        event.arguments.clone_from(&intervention.arguments);
        self.session.dispatch(event);
        tracing::info!(kind = intervention.kind.as_str(), tool = ?intervention.tool, detail = %intervention.detail, "Loop intervention");
        if let Some(o) = self.options.observer {
            o.on_intervention(intervention);
        }
    }

    async fn call_model(&mut self, request: ModelRequest) {
        // Copied out: the options themselves (with the `!Sync` decider) are not held across
        // the await.
        let budget = self.options.budget.clone();
        let observer = self.options.observer;
        let stream = self.options.stream;
        if let Err(limit) = budget.check_model_call() {
            self.state.exhaust(limit);
            return;
        }
        let window = self.context_window();
        if let Some(window) = window {
            let estimate = estimate_request_tokens_after(&request, self.measured);
            if estimate > window {
                let message = format!(
                    "the next request (~{estimate} tokens) does not fit the model's context window ({window} tokens)"
                );
                self.announce_intervention(&Intervention::new(
                    InterventionKind::ContextWindow,
                    message.clone(),
                ));
                self.state.fail(&PromptEvaluationError::new(
                    message,
                    self.state.prompt_name(),
                    EvaluationPhase::Request,
                ));
                return;
            }
        }
        if let Some(o) = observer {
            o.on_model_call(
                self.state.model_calls(),
                request.messages.len(),
                &request.tools,
            );
        }
        self.model_calls.push(ModelCallRecord {
            messages: request.messages.clone(),
            tools: request.tools.iter().map(|t| t.name.clone()).collect(),
            usage: None,
        });
        let call = self.adapter.complete(&request, stream);
        match until_deadline(call, budget.budget().deadline).await {
            Err(DeadlineExpired) => self.state.exhaust(BudgetLimit::Deadline),
            Ok(Ok(turn)) => {
                budget.record_model_call(turn.usage.as_ref());
                if let Some(record) = self.model_calls.last_mut() {
                    record.usage = turn.usage;
                }
                self.measured =
                    turn.usage
                        .filter(|u| u.input_tokens > 0)
                        .map(|u| MeasuredRequest {
                            tokens: u.input_tokens + u.output_tokens,
                            messages: request.messages.len(),
                            tools: request.tools.len(),
                        });
                if let Some(o) = observer {
                    o.on_model_turn(&turn);
                }
                let effects = self.state.on_model_turn(turn);
                self.announce_effects(&effects);
                if self.state.outcome().is_none()
                    && let Some(limit) = budget.exceeded_tokens()
                {
                    self.state.exhaust(limit);
                }
            }
            Ok(Err(error)) => {
                let (error, failure) = provider_failure(&error, self.state.prompt_name(), window);
                self.state.fail_provider(&error, failure);
            }
        }
    }

    async fn run_tools(&mut self, calls: &[ToolCall]) {
        let deadline = self.options.budget.budget().deadline;
        // With a deadline, the turn's calls race it; if it passes first they are dropped
        // mid-way, so the turn's changes are undone from a snapshot taken here.
        let undo = match deadline {
            Some(_) => match self.executor.checkpoint("the tool calls") {
                Ok(undo) => Some(undo),
                Err(e) => {
                    self.state.fail(&e);
                    return;
                }
            },
            None => None,
        };
        let turn = run_calls(
            calls,
            &self.registry,
            &self.executor,
            self.rendered,
            &mut self.options,
            self.state.config().supports_dynamic_tools,
        );
        let result = match until_deadline(turn, deadline).await {
            Ok(result) => result,
            Err(DeadlineExpired) => {
                if let Some(undo) = undo
                    && let Err(e) = self
                        .executor
                        .rewind(&undo, "the tool calls cut off by the deadline")
                {
                    self.state.fail(&e);
                    return;
                }
                self.state.exhaust(BudgetLimit::Deadline);
                return;
            }
        };
        let outcomes = match result {
            Ok(outcomes) => outcomes,
            Err(RunCallsError::Budget(limit)) => {
                self.state.exhaust(limit);
                return;
            }
            // A tool that ran out of time ends the run as the deadline, not as a failure.
            Err(RunCallsError::Fatal(_))
                if self
                    .options
                    .budget
                    .budget()
                    .deadline
                    .is_some_and(|d| d.is_expired()) =>
            {
                self.state.exhaust(BudgetLimit::Deadline);
                return;
            }
            Err(RunCallsError::Fatal(e)) => {
                self.state.fail(&e);
                return;
            }
        };
        let injections = self.state.on_tool_outcomes(outcomes);
        for injection in &injections {
            announce_injection(
                injection,
                self.session,
                &mut self.registry,
                self.rendered,
                self.options.observer,
                "read_section disclosed tools",
            );
        }
    }
}

fn announce_injection(
    injection: &Injection,
    session: &Session,
    registry: &mut HashMap<String, ToolRef>,
    rendered: &RenderedPrompt,
    observer: Option<&dyn RunObserver>,
    reason: &str,
) {
    let section = &injection.section;
    let names: Vec<String> = injection
        .tools
        .iter()
        .map(|t| t.spec.name.clone())
        .collect();
    // The section read and the descendants owning injected tools are full from now on, so a
    // resumed or re-rendered conversation agrees with what the model saw.
    let mut paths = vec![section.clone()];
    for t in &injection.tools {
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
        VisibilityExpanded::new(vec![section.dotted()], reason, ExpansionPath::Dynamic)
            .with_session_id(session.id()),
    );
    metrics::record_injection(names.len());
    tracing::info!(section_key = %section.dotted(), tool_count = names.len(), tool_names = ?names, "Injected tools from section expansion");
    if let Some(o) = observer {
        o.on_tools_injected(&section.dotted(), &names);
    }
}

enum RunCallsError {
    Budget(crate::budget::BudgetLimit),
    Fatal(PromptEvaluationError),
}

/// Run the calls of one turn: consecutive calls of tools that allow it run concurrently;
/// results come back in call order. A call that ends the turn — a restart request
/// (`open_sections`, or without `dynamic_tools` a `read_section` that discloses tools) or a
/// successful call of a terminal tool — ends its concurrent batch, and the calls after it are
/// not run (each is answered as skipped).
async fn run_calls(
    calls: &[ToolCall],
    registry: &HashMap<String, ToolRef>,
    executor: &ToolExecutor,
    rendered: &RenderedPrompt,
    options: &mut EvaluateOptions<'_>,
    dynamic_tools: bool,
) -> Result<Vec<ToolOutcome>, RunCallsError> {
    let available: Vec<ToolRef> = registry.values().cloned().collect();
    let mut outcomes: Vec<ToolOutcome> = Vec::with_capacity(calls.len());
    let mut index = 0;
    let mut stopped = false;
    // Calls that may end the turn close their concurrent batch, so nothing after them runs early.
    let may_end_turn = |c: &ToolCall| {
        registry.get(&c.name).is_some_and(|t| t.is_terminal())
            || (!dynamic_tools && c.name == READ_SECTION)
    };
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
        if parallel(&calls[index]) && !may_end_turn(&calls[index]) {
            while end < calls.len() && parallel(&calls[end]) {
                end += 1;
                if may_end_turn(&calls[end - 1]) {
                    break;
                }
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
        // Overlapping calls each run in their own transaction (a failed one is undone alone).
        let results = match batch {
            [call] => vec![executor.execute(call, &available, Some(rendered)).await],
            _ => {
                executor
                    .execute_concurrently(batch, &available, Some(rendered))
                    .await
            }
        };
        for (call, result) in batch.iter().zip(results) {
            let outcome = match result.map_err(RunCallsError::Fatal)? {
                CallOutcome::Completed(r) => {
                    let terminal = registry.get(&call.name).is_some_and(|t| t.is_terminal());
                    completed_outcome(r, terminal, dynamic_tools, rendered, options)
                }
                CallOutcome::ExpansionRequired(e) => expansion_outcome(call, &e, options),
            };
            if let Some(o) = options.observer {
                match &outcome {
                    ToolOutcome::Result {
                        content, is_error, ..
                    } => o.on_tool_result(call, content, *is_error),
                    ToolOutcome::Terminal { content, .. } => o.on_tool_result(call, content, false),
                    _ => {}
                }
            }
            stopped |= matches!(
                outcome,
                ToolOutcome::Expansion(_) | ToolOutcome::Terminal { .. }
            );
            outcomes.push(outcome);
        }
        index = end;
    }
    Ok(outcomes)
}

/// The outcome of a call that produced a result: a successful terminal tool ends the evaluation;
/// without `dynamic_tools` a `read_section` that discloses tools is a restart request (the
/// summarized sections hiding the one read, outermost first, then it and the descendants owning
/// its tools), decided by the expansion policy like an `open_sections` call.
fn completed_outcome(
    r: ToolCallResult,
    terminal: bool,
    dynamic_tools: bool,
    rendered: &RenderedPrompt,
    options: &mut EvaluateOptions<'_>,
) -> ToolOutcome {
    let content = r.model_text();
    let is_error = !r.result.success;
    if terminal && !is_error && !is_disclosure_tool(&r.name) {
        return ToolOutcome::Terminal {
            call_id: r.call_id,
            name: r.name,
            content,
            value: r.result.value.map(|v| v.json),
        };
    }
    let Some(expansion) = &r.expansion else {
        return ToolOutcome::Result {
            call_id: r.call_id,
            name: r.name,
            content,
            is_error,
            disclosed: Vec::new(),
            disclosed_section: None,
        };
    };
    if !dynamic_tools {
        let hiding = rendered.sections.iter().filter(|s| {
            s.visibility == SectionVisibility::Summary && expansion.path.is_descendant_of(&s.path)
        });
        let overrides: IndexMap<SectionPath, SectionVisibility> = hiding
            .map(|s| s.path.clone())
            .chain(expansion_overrides(expansion))
            .map(|p| (p, SectionVisibility::Full))
            .collect();
        let keys = overrides.keys().map(SectionPath::dotted).collect();
        let request = VisibilityExpansionRequired::new(
            keys,
            overrides,
            "Adapter does not support dynamic tools",
        );
        return match decide(&r.name, &request, options) {
            ExpansionDecision::Restart(overrides) => {
                let mut data = VisibilityExpansionRequiredData::from_error(r.call_id, &request);
                data.requested_overrides = overrides;
                ToolOutcome::Expansion(data)
            }
            // The content is shown; the tools wait for the restart.
            ExpansionDecision::Defer(note) => ToolOutcome::Result {
                call_id: r.call_id,
                name: r.name,
                content: format!("{content}\n\n{note}"),
                is_error,
                disclosed: Vec::new(),
                disclosed_section: None,
            },
        };
    }
    ToolOutcome::Result {
        disclosed: expansion
            .tools
            .iter()
            .map(|(p, t)| InjectedTool {
                spec: ToolSpec::of(t),
                section: p.clone(),
                after_message: 0,
                disclosed_by: String::new(),
            })
            .collect(),
        disclosed_section: Some(expansion.path.clone()),
        call_id: r.call_id,
        name: r.name,
        content,
        is_error,
    }
}

/// The outcome of an `open_sections` restart request, as the expansion policy decides it.
fn expansion_outcome(
    call: &ToolCall,
    request: &VisibilityExpansionRequired,
    options: &mut EvaluateOptions<'_>,
) -> ToolOutcome {
    match decide(&call.name, request, options) {
        ExpansionDecision::Defer(text) => ToolOutcome::Result {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: text,
            is_error: false,
            disclosed: Vec::new(),
            disclosed_section: None,
        },
        ExpansionDecision::Restart(overrides) => {
            let mut data = VisibilityExpansionRequiredData::from_error(call.id.clone(), request);
            data.requested_overrides = overrides;
            ToolOutcome::Expansion(data)
        }
    }
}

fn decide(
    tool: &str,
    request: &VisibilityExpansionRequired,
    options: &mut EvaluateOptions<'_>,
) -> ExpansionDecision {
    match options.decider.as_deref_mut() {
        Some(d) => d.decide_for(tool, request),
        None => ExpansionDecision::Restart(
            request
                .requested_overrides
                .iter()
                .map(|(p, v)| (p.clone(), *v))
                .collect(),
        ),
    }
}
