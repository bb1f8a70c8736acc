//! [`Driver`]: one evaluation, step by step.

use std::collections::HashMap;

use wink_core::{
    ContextRoom, EvaluationPhase, PromptEvaluationError, RenderedPrompt, SectionPath, ToolCall,
    ToolExecutor, ToolRef,
};
use wink_session::{
    LoopIntervention, PromptExecuted, PromptRendered, Session, Timestamp, TraceScope, TurnRepaired,
};

use super::failure::provider_failure;
use super::injection::announce_injection;
use super::telemetry::{CallRecord, error_type, outcome_status, rendered_sections};
use super::tools::{RunCallsError, run_calls};
use super::{EvaluateOptions, Evaluation, ExpansionDecider, ModelCallRecord};
use crate::budget::{
    BudgetLimit, DEFAULT_OUTPUT_RESERVE, MeasuredRequest, estimate_request_tokens_after,
};
use crate::guard::{Intervention, InterventionKind};
use crate::inner::{InnerLoop, LoopOutcome, Repair, Step, TurnEffects};
use crate::timer::{DeadlineExpired, until_deadline};
use wink_model::{ModelRequest, ModelTurn, ProviderAdapter};

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
    /// The estimate of the last request (output reserve included) and its output reserve, when
    /// the context window is known.
    last_request: Option<(u64, u64)>,
    /// Messages of the conversation the previous model call of this driver sent.
    sent_messages: usize,
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
        rendered_event = rendered_event.with_sections(rendered_sections(rendered));
        session.dispatch(rendered_event);
        let mut config = options.config.clone();
        config.supports_dynamic_tools =
            config.supports_dynamic_tools && adapter.supports_dynamic_tools();
        config.apply_profile_defaults(adapter.profile());
        let turn = config.turn_settings(adapter.profile());
        let mut state = InnerLoop::start(rendered, prompt_name, config);
        state.set_turn_settings(turn);
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
            last_request: None,
            sent_messages: 0,
        }
    }

    /// The loop state: serialize it to save the run.
    pub fn state(&self) -> &InnerLoop {
        &self.state
    }

    /// The sections the run's expansion decider holds back (a batched policy's batch so far):
    /// a checkpoint keeps them with [`Driver::state`].
    pub fn held_sections(&self) -> Vec<SectionPath> {
        self.options
            .decider
            .as_deref()
            .map(ExpansionDecider::held)
            .unwrap_or_default()
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
        let (status, error) = outcome_status(outcome);
        executed = executed.with_status(status, error);
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
        for repair in &effects.repairs {
            self.announce_repair(repair);
        }
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

    fn announce_repair(&self, repair: &Repair) {
        let action = &repair.firing.action;
        let mut event = TurnRepaired::new(&repair.firing.rule, action.as_str(), &repair.text)
            .with_session_id(self.session.id());
        if let Some(tool) = action.tool() {
            event = event.with_tool(tool);
        }
        self.session.dispatch(event);
        tracing::info!(rule = %repair.firing.rule, action = action.as_str(), "Turn repaired");
        if let Some(o) = self.options.observer {
            o.on_turn_repaired(repair);
        }
    }

    /// Whether `request` fits the model's context `window` (estimated); a request that does
    /// not fails the run, naming both sizes. Records the estimate for the room left to tools.
    fn fits_window(&mut self, request: &ModelRequest, window: Option<u64>) -> bool {
        let Some(window) = window else {
            return true;
        };
        let estimate = estimate_request_tokens_after(request, self.measured);
        let reserve = request
            .max_output_tokens
            .map_or(DEFAULT_OUTPUT_RESERVE, u64::from);
        self.last_request = Some((estimate, reserve));
        if estimate <= window {
            return true;
        }
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
        false
    }

    /// A turn the model returned: its usage counted and measured, the observer told, the loop
    /// state advanced; fragments `held` under review are shown unless a policy asked again.
    fn take_turn(
        &mut self,
        turn: ModelTurn,
        request: &ModelRequest,
        held: Option<&super::held::HeldStream>,
    ) {
        let budget = self.options.budget.clone();
        budget.record_model_call(turn.usage.as_ref());
        if let Some(record) = self.model_calls.last_mut() {
            record.usage = turn.usage;
            record.turn = Some(turn.clone());
        }
        self.measured = turn
            .usage
            .filter(|u| u.input_tokens > 0)
            .map(|u| MeasuredRequest {
                tokens: u.input_tokens + u.output_tokens,
                messages: request.messages.len(),
                tools: request.tools.len(),
            });
        if let Some(o) = self.options.observer {
            o.on_model_turn(&turn);
        }
        let effects = self.state.on_model_turn(turn);
        self.announce_effects(&effects);
        if let (Some(held), Some(stream)) = (held, self.options.stream)
            && effects
                .repairs
                .iter()
                .all(|r| !r.firing.action.asks_again())
        {
            held.release(stream);
        }
        if self.state.outcome().is_none()
            && let Some(limit) = budget.exceeded_tokens()
        {
            self.state.exhaust(limit);
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
        if !self.fits_window(&request, window) {
            return;
        }
        if let Some(o) = observer {
            o.on_model_call(
                self.state.model_calls(),
                request.messages.len(),
                &request.tools,
            );
        }
        let started_at = Timestamp::now();
        self.model_calls.push(ModelCallRecord {
            messages: request.messages.clone(),
            tools: request.tools.iter().map(|t| t.name.clone()).collect(),
            usage: None,
            turn: None,
            started_at: Some(started_at),
            ended_at: None,
        });
        let telemetry = CallRecord {
            adapter: self.adapter.name(),
            model: self.adapter.model(),
            index: self.state.model_calls(),
            started_at,
            request: &request,
            first_new: std::mem::replace(&mut self.sent_messages, request.messages.len()),
            span: self.session.traceparent(TraceScope::ModelCall),
        };
        // A turn the policies may take back is not streamed until they have reviewed it.
        let held = super::held::HeldStream::default();
        let reviewed = stream.is_some() && self.state.reviews_next_turn();
        let sink = if reviewed {
            Some(&held as &dyn wink_model::StreamSink)
        } else {
            stream
        };
        // An adapter that sends a request reads the span as it starts the call (`traceparent`).
        let call = wink_model::trace::with_traceparent(telemetry.span, || {
            self.adapter.complete(&request, sink)
        });
        let outcome = until_deadline(call, budget.budget().deadline).await;
        if let Some(record) = self.model_calls.last_mut() {
            record.ended_at = Some(Timestamp::now());
        }
        let event = match &outcome {
            Err(DeadlineExpired) => telemetry.event(Err(("timeout", "the run's deadline passed"))),
            Ok(Ok(turn)) => telemetry.event(Ok(turn)),
            Ok(Err(error)) => telemetry.event(Err((&error_type(error), &error.to_string()))),
        };
        self.session
            .dispatch(event.with_session_id(self.session.id()));
        match outcome {
            Err(DeadlineExpired) => {
                // The run ends here: what streamed before the deadline is shown, as without review.
                if let (true, Some(stream)) = (reviewed, stream) {
                    held.release(stream);
                }
                self.state.exhaust(BudgetLimit::Deadline);
            }
            Ok(Ok(turn)) => self.take_turn(turn, &request, reviewed.then_some(&held)),
            Ok(Err(error)) => {
                let (error, failure) = provider_failure(&error, self.state.prompt_name(), window);
                self.state.fail_provider(&error, failure);
            }
        }
    }

    /// The room left in the context window for the result of each of `calls` calls, in the
    /// loop's estimate (see [`ContextRoom`]): the window less what the last request used (as
    /// the provider measured it, else as estimated), the next request's output reserve and the
    /// overhead of the result messages, shared equally. `None` when the window is unknown.
    fn context_room(&self, calls: usize) -> Option<u64> {
        const MESSAGE_OVERHEAD: u64 = 8;
        let window = self.context_window()?;
        let (estimate, reserve) = self.last_request?;
        let used = self.measured.map_or(estimate, |m| m.tokens);
        let calls = calls.max(1) as u64;
        let overhead = 2 * MESSAGE_OVERHEAD * calls;
        Some(window.saturating_sub(used + reserve + overhead) / calls)
    }

    async fn run_tools(&mut self, calls: &[ToolCall]) {
        // Section reads fit what is left of the context window (`read_section` in parts).
        if let Some(room) = self.context_room(calls.len()) {
            self.executor.resources = self.executor.resources.clone().with(ContextRoom(room));
        }
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
