//! The main loop (seed 000 "Caller Responsibilities", WINK's `MainLoop`): evaluate; when the
//! model asks for sections to be expanded, dispatch the overrides into the session, re-render
//! and evaluate again — reusing the same budget and resources — up to `max_expansions` times,
//! with an eager, conservative or batched policy.

use std::fmt;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use wink_core::{
    OutputError, Prompt, PromptError, Resources, SectionPath, SectionVisibility, ToolCall,
    VisibilityExpansionRequired,
};
use wink_session::{ExpansionPath, Session, SetVisibilityOverride, VisibilityExpanded};

use crate::budget::{Budget, BudgetTracker, Spent};
use crate::driver::{
    EvaluateOptions, Evaluation, ExpansionDecider, ExpansionDecision, RunObserver, evaluate,
};
use crate::inner::{LoopConfig, LoopOutcome, ProviderFailure};
use crate::metrics;
use wink_model::{ProviderAdapter, StreamSink};

/// How expansion requests are honoured.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "policy")]
pub enum ExpansionPolicy {
    /// Open everything requested at once (default).
    #[default]
    Eager,
    /// Open one section per restart (the first requested); the model asks again for more.
    Conservative,
    /// Accumulate requests across turns; restart once `size` distinct sections are pending or the
    /// model asks again for one already pending. Until then the call is answered with a note and
    /// the conversation continues.
    Batched {
        /// Sections to accumulate before restarting.
        size: usize,
    },
}

/// The default model-call limit of a run ([`MainLoopConfig::default`], `wink run`): a task that
/// needs a few section reads and tool calls finishes in well under 10 calls; 16 leaves room for
/// multi-step tasks while a model stuck in a loop stops after 16 calls instead of hundreds.
pub const DEFAULT_MAX_MODEL_CALLS: u32 = 16;

/// The default input-token limit of a run is this many times the model's context window: 16
/// calls that each fill half the window.
pub const INPUT_TOKENS_PER_CONTEXT_WINDOW: u64 = 8;

/// The default input-token limit of a run when the model's context window is not known.
pub const DEFAULT_MAX_INPUT_TOKENS: u64 = 500_000;

/// The default input-token limit for a model with this context window (`None`: unknown).
pub fn default_max_input_tokens(context_window: Option<u64>) -> u64 {
    context_window.map_or(DEFAULT_MAX_INPUT_TOKENS, |w| {
        w.saturating_mul(INPUT_TOKENS_PER_CONTEXT_WINDOW)
    })
}

/// Main-loop settings.
#[derive(Debug, Clone)]
pub struct MainLoopConfig {
    /// Inner-loop settings.
    pub loop_config: LoopConfig,
    /// The budget for the whole run (all evaluations). The default caps model calls at
    /// [`DEFAULT_MAX_MODEL_CALLS`]; `None` fields are unlimited.
    pub budget: Budget,
    /// When `budget.max_input_tokens` is `None`, cap the run's input tokens at
    /// [`default_max_input_tokens`] of the model's context window (default true; false leaves
    /// them unlimited).
    pub derive_input_budget: bool,
    /// Resources for tools.
    pub resources: Resources,
    /// Most restarts allowed.
    pub max_expansions: u32,
    /// Expansion policy.
    pub policy: ExpansionPolicy,
    /// Calls run before the first model call as if the model had made them (they do not count
    /// as a model call): pre-opening in the `call` style
    /// ([`crate::preopen::PreopenStyle::Call`]). Empty by default.
    pub opening_calls: Vec<ToolCall>,
}

impl Default for MainLoopConfig {
    fn default() -> Self {
        Self {
            loop_config: LoopConfig::default(),
            budget: Budget {
                max_model_calls: Some(DEFAULT_MAX_MODEL_CALLS),
                ..Budget::default()
            },
            derive_input_budget: true,
            resources: Resources::new(),
            max_expansions: 8,
            policy: ExpansionPolicy::Eager,
            opening_calls: Vec::new(),
        }
    }
}

/// The result of a run of a `Prompt<O>`: [`RunResult::output`] decodes the structured answer
/// into `O`.
pub struct RunResult<O = ()> {
    /// How the run ended (never `ExpansionRequired`: those restart, or become a failure past
    /// `max_expansions`; `Terminated` when a terminal tool ended it).
    pub outcome: LoopOutcome,
    /// Every evaluation, in order.
    pub evaluations: Vec<Evaluation>,
    /// Restarts made.
    pub restarts: u32,
    /// What the run spent.
    pub spent: Spent,
    output_type: PhantomData<fn() -> O>,
}

impl<O> Clone for RunResult<O> {
    fn clone(&self) -> Self {
        Self {
            outcome: self.outcome.clone(),
            evaluations: self.evaluations.clone(),
            restarts: self.restarts,
            spent: self.spent,
            output_type: PhantomData,
        }
    }
}

impl<O> fmt::Debug for RunResult<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunResult")
            .field("outcome", &self.outcome)
            .field("evaluations", &self.evaluations)
            .field("restarts", &self.restarts)
            .field("spent", &self.spent)
            .finish()
    }
}

impl<O> RunResult<O> {
    fn new(
        outcome: LoopOutcome,
        evaluations: Vec<Evaluation>,
        restarts: u32,
        spent: Spent,
    ) -> Self {
        Self {
            outcome,
            evaluations,
            restarts,
            spent,
            output_type: PhantomData,
        }
    }

    /// The same result without its output type.
    pub fn erase(self) -> RunResult {
        RunResult::new(self.outcome, self.evaluations, self.restarts, self.spent)
    }

    /// The provider behind the failure, when the run ended because a model call failed
    /// ([`LoopOutcome::Failed`] then holds the provider's own message).
    pub fn provider_failure(&self) -> Option<&ProviderFailure> {
        self.evaluations
            .last()
            .and_then(|e| e.state.provider_failure())
    }

    /// The final answer text, when the run finished with text (structured runs finish with
    /// an output instead, as in WINK).
    pub fn text(&self) -> Option<&str> {
        match &self.outcome {
            LoopOutcome::Finished { text, .. } => text.as_deref(),
            _ => None,
        }
    }
}

impl<O: DeserializeOwned> RunResult<O> {
    /// The structured output decoded into `O`.
    ///
    /// # Errors
    /// [`RunOutputError::Unfinished`] when the run did not finish (budget, failure),
    /// [`RunOutputError::Output`] when it finished without a structured output or the output
    /// does not fit `O`.
    pub fn output(&self) -> Result<O, RunOutputError> {
        match &self.outcome {
            LoopOutcome::Finished {
                output: Some(value),
                ..
            } => Ok(wink_core::decode_output::<O>(value)?),
            LoopOutcome::Finished { output: None, .. } => Err(RunOutputError::Output(
                OutputError::Parse(wink_schema::OutputParseError::NotDeclared),
            )),
            other => Err(RunOutputError::Unfinished {
                outcome: other.summary(),
            }),
        }
    }
}

/// Why [`RunResult::output`] has no value.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum RunOutputError {
    /// The run ended without an answer.
    #[error("The run did not finish: {outcome}")]
    Unfinished {
        /// How it ended instead.
        outcome: String,
    },
    /// The answer is not a valid output of the prompt's type.
    #[error(transparent)]
    Output(#[from] OutputError),
}

struct PolicyState {
    policy: ExpansionPolicy,
    pending: Vec<SectionPath>,
}

impl ExpansionDecider for PolicyState {
    fn decide(&mut self, request: &VisibilityExpansionRequired) -> ExpansionDecision {
        self.decide_for(wink_core::OPEN_SECTIONS, request)
    }

    /// The same policy for `open_sections` and for `read_section` on the restart path; a
    /// deferral note names the tool to call again.
    fn decide_for(
        &mut self,
        tool: &str,
        request: &VisibilityExpansionRequired,
    ) -> ExpansionDecision {
        let requested: Vec<SectionPath> = request.requested_overrides.keys().cloned().collect();
        match self.policy {
            ExpansionPolicy::Eager => ExpansionDecision::Restart(
                requested
                    .into_iter()
                    .map(|p| (p, SectionVisibility::Full))
                    .collect(),
            ),
            ExpansionPolicy::Conservative => ExpansionDecision::Restart(
                requested
                    .into_iter()
                    .take(1)
                    .map(|p| (p, SectionVisibility::Full))
                    .collect(),
            ),
            ExpansionPolicy::Batched { size } => {
                let insisting = requested.iter().any(|p| self.pending.contains(p));
                for p in requested {
                    if !self.pending.contains(&p) {
                        self.pending.push(p);
                    }
                }
                if insisting || self.pending.len() >= size.max(1) {
                    let all = std::mem::take(&mut self.pending);
                    ExpansionDecision::Restart(
                        all.into_iter()
                            .map(|p| (p, SectionVisibility::Full))
                            .collect(),
                    )
                } else {
                    let keys: Vec<String> = self.pending.iter().map(SectionPath::dotted).collect();
                    ExpansionDecision::Defer(format!(
                        "Noted: sections {} will be opened together once {} are requested. Continue with what you have, or call {tool} again with the same key to open them now.",
                        keys.join(", "),
                        size
                    ))
                }
            }
        }
    }

    fn held(&self) -> Vec<SectionPath> {
        self.pending.clone()
    }

    fn hold(&mut self, sections: Vec<SectionPath>) {
        for path in sections {
            if !self.pending.contains(&path) {
                self.pending.push(path);
            }
        }
    }
}

impl ExpansionPolicy {
    /// The decider that applies this policy over one run (it remembers the sections a batched
    /// policy holds back).
    pub fn decider(self) -> Box<dyn ExpansionDecider> {
        Box::new(PolicyState {
            policy: self,
            pending: Vec::new(),
        })
    }
}

/// The outcome of a run that asked for more than `max_expansions` restarts.
pub fn too_many_expansions(max_expansions: u32) -> LoopOutcome {
    LoopOutcome::Failed {
        message: format!("Exceeded the maximum of {max_expansions} visibility expansions."),
        phase: wink_core::EvaluationPhase::Tool,
    }
}

/// Before a restart: dispatch the overrides the model asked for into `session` (after the
/// caller's own, so the model's win where both name a section, seed 000) and the
/// `VisibilityExpanded` event, and count the restart. Returns the dotted paths expanded.
pub fn dispatch_expansion(
    session: &Session,
    requested_overrides: &[(SectionPath, SectionVisibility)],
    reason: &str,
) -> Vec<String> {
    for (path, visibility) in requested_overrides {
        session.dispatch(SetVisibilityOverride {
            path: path.clone(),
            visibility: *visibility,
        });
    }
    let expanded: Vec<String> = requested_overrides
        .iter()
        .map(|(path, _)| path.dotted())
        .collect();
    session.dispatch(
        VisibilityExpanded::new(expanded.clone(), reason.to_owned(), ExpansionPath::Restart)
            .with_session_id(session.id()),
    );
    metrics::record_restart();
    expanded
}

/// Runs a prompt to completion, restarting on expansion requests.
#[derive(Debug)]
pub struct MainLoop<'a> {
    adapter: &'a dyn ProviderAdapter,
    config: MainLoopConfig,
}

/// Optional hooks for a run.
#[derive(Default)]
#[allow(missing_debug_implementations)]
pub struct RunHooks<'a> {
    /// Streamed fragments.
    pub stream: Option<&'a dyn StreamSink>,
    /// Progress.
    pub observer: Option<&'a dyn RunObserver>,
}

impl<'a> MainLoop<'a> {
    /// A main loop over `adapter`.
    pub fn new(adapter: &'a dyn ProviderAdapter, config: MainLoopConfig) -> Self {
        Self { adapter, config }
    }

    /// The config.
    pub fn config(&self) -> &MainLoopConfig {
        &self.config
    }

    /// The budget [`MainLoop::execute`] runs under: the config's, with the input-token limit
    /// derived from the model's context window when it is unset and
    /// [`MainLoopConfig::derive_input_budget`] is on.
    pub fn budget(&self) -> Budget {
        let mut budget = self.config.budget;
        if budget.max_input_tokens.is_none() && self.config.derive_input_budget {
            let window = self
                .config
                .loop_config
                .context_window
                .or_else(|| self.adapter.context_window());
            budget.max_input_tokens = Some(default_max_input_tokens(window));
        }
        budget
    }

    /// Evaluate `prompt` in `session` until it finishes, fails, runs out of budget or exceeds
    /// `max_expansions`. Render errors (bad params, ...) are returned as errors.
    pub async fn execute<O>(
        &self,
        prompt: &Prompt<O>,
        session: &Session,
        hooks: RunHooks<'_>,
    ) -> Result<RunResult<O>, PromptError> {
        self.execute_with(prompt, session, BudgetTracker::new(self.budget()), hooks)
            .await
    }

    /// As [`MainLoop::execute`], spending from an existing tracker (shared budgets).
    pub async fn execute_with<O>(
        &self,
        prompt: &Prompt<O>,
        session: &Session,
        budget: BudgetTracker,
        hooks: RunHooks<'_>,
    ) -> Result<RunResult<O>, PromptError> {
        crate::run_hook::run_started(session);
        let mut policy = PolicyState {
            policy: self.config.policy,
            pending: Vec::new(),
        };
        let mut evaluations: Vec<Evaluation> = Vec::new();
        let mut restarts = 0;
        loop {
            let replay = evaluations.last().map_or_else(
                || self.config.opening_calls.clone(),
                |e| e.state.replay_calls().to_vec(),
            );
            let rendered = prompt.render_with(session)?;
            let options = EvaluateOptions {
                config: self.config.loop_config.clone(),
                budget: budget.clone(),
                resources: self.config.resources.clone(),
                stream: hooks.stream,
                observer: hooks.observer,
                decider: Some(&mut policy),
                replay,
            };
            let evaluation = evaluate(&rendered, session, self.adapter, options).await;
            let outcome = evaluation.outcome.clone();
            evaluations.push(evaluation);
            let LoopOutcome::ExpansionRequired {
                requested_overrides,
                reason,
                ..
            } = &outcome
            else {
                return Ok(RunResult::new(
                    outcome,
                    evaluations,
                    restarts,
                    budget.spent(),
                ));
            };
            if restarts >= self.config.max_expansions {
                let outcome = too_many_expansions(self.config.max_expansions);
                return Ok(RunResult::new(
                    outcome,
                    evaluations,
                    restarts,
                    budget.spent(),
                ));
            }
            let expanded = dispatch_expansion(session, requested_overrides, reason);
            if let Some(o) = hooks.observer {
                o.on_restart(&expanded);
            }
            restarts += 1;
        }
    }
}

/// What a worker sends back for one request.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerResult {
    /// The request message's id ([`crate::Receipt::message_id`]).
    pub request_id: u64,
    /// How the run ended (`None` when it could not start).
    pub outcome: Option<LoopOutcome>,
    /// Why it could not start or failed to render.
    pub error: Option<String>,
    /// Restarts made.
    pub restarts: u32,
}

impl WorkerResult {
    /// Whether the run finished with an answer (or a terminal tool ended it).
    pub fn success(&self) -> bool {
        matches!(
            self.outcome,
            Some(LoopOutcome::Finished { .. } | LoopOutcome::Terminated { .. })
        )
    }
}

/// Worker settings.
#[derive(Debug, Clone, Copy)]
pub struct WorkerOptions {
    /// Stop after this many receive rounds (`None`: until the request mailbox is empty).
    pub max_iterations: Option<usize>,
    /// How long a received request stays hidden from other workers.
    pub visibility_timeout: std::time::Duration,
    /// Requests taken per round.
    pub batch: usize,
}

impl Default for WorkerOptions {
    fn default() -> Self {
        Self {
            max_iterations: None,
            visibility_timeout: std::time::Duration::from_secs(300),
            batch: 1,
        }
    }
}

impl MainLoop<'_> {
    /// Run as a worker (WINK's `MainLoop.run`): receive requests, build each one's prompt and
    /// session with `initialize`, execute, send a [`WorkerResult`] and ack the request. A request
    /// that cannot be initialized or rendered still gets a result with `error` and is acked;
    /// delivery is at-least-once, so `initialize` should tolerate a request seen twice. Returns
    /// how many requests were handled.
    pub async fn run_worker<R, F>(
        &self,
        requests: &dyn crate::Mailbox<R>,
        responses: &dyn crate::Mailbox<WorkerResult>,
        initialize: F,
        options: WorkerOptions,
    ) -> usize
    where
        R: Clone + Send,
        F: Fn(&R) -> Result<(Prompt, Session), String>,
    {
        let mut handled = 0;
        let mut round = 0;
        loop {
            if options.max_iterations.is_some_and(|m| round >= m) {
                return handled;
            }
            round += 1;
            let deliveries = requests.receive(options.batch.max(1), options.visibility_timeout);
            if deliveries.is_empty() {
                return handled;
            }
            for delivery in deliveries {
                let request_id = delivery.receipt.message_id();
                let result = match initialize(&delivery.body) {
                    Err(error) => WorkerResult {
                        request_id,
                        outcome: None,
                        error: Some(error),
                        restarts: 0,
                    },
                    Ok((prompt, session)) => {
                        match self.execute(&prompt, &session, RunHooks::default()).await {
                            Ok(run) => WorkerResult {
                                request_id,
                                outcome: Some(run.outcome),
                                error: None,
                                restarts: run.restarts,
                            },
                            Err(error) => WorkerResult {
                                request_id,
                                outcome: None,
                                error: Some(error.to_string()),
                                restarts: 0,
                            },
                        }
                    }
                };
                responses.send(result);
                // The receipt can only be stale if the visibility timeout expired during the run;
                // the request will then be delivered again (at-least-once).
                let _ = requests.ack(&delivery.receipt);
                handled += 1;
            }
        }
    }
}
