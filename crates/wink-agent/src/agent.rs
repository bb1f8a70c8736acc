//! [`Agent`]: a provider adapter, a budget and a session owned together, so a run is
//! `agent.run(&prompt)` and sub-agents dispatched during it inherit the adapter and the budget
//! without being wired by hand.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use wink_core::{Prompt, PromptError};
use wink_session::Session;

use crate::budget::{Budget, BudgetTracker};
use crate::inner::LoopConfig;
use crate::main_loop::{MainLoop, MainLoopConfig, RunHooks, RunResult};
use wink_model::ProviderAdapter;

/// An agent: owns its model (an `Arc<dyn ProviderAdapter>`), its run settings and budget
/// ([`MainLoopConfig`]) and its [`Session`].
///
/// [`Agent::run`] is [`MainLoop::execute_with`] over these, with two resources added for the
/// run's tools, so that `dispatch_subagent` children inherit them:
/// - the adapter, as the `Arc<dyn ProviderAdapter>` resource (unless the config's resources
///   already hold one; a [`crate::SubagentAdapter`] resource still gives children another model);
/// - the run's [`BudgetTracker`], so the run and every child spend from one budget.
///
/// Each run gets a fresh tracker for [`Agent::budget`]; [`Agent::run_with`] takes one to share
/// a budget across runs. Runs of one agent share its session (a second run sees the first
/// run's state); clone the agent with [`Agent::with_session`] for a fresh one.
///
/// ```
/// use std::sync::Arc;
/// use wink_agent::{Agent, Budget, LoopOutcome, ScriptedProvider};
/// use wink_core::{block_on, MarkdownSection, Prompt, PromptTemplate};
///
/// let template = PromptTemplate::builder("demo", "hello")
///     .section(MarkdownSection::new("Task", "task", "Say hello."))
///     .build()
///     .unwrap();
/// let model = ScriptedProvider::from_json(r#"[{"text": "Hello!"}]"#, "inline").unwrap();
/// let agent = Agent::new(Arc::new(model)).with_budget(Budget {
///     max_model_calls: Some(4),
///     ..Budget::default()
/// });
/// let result = block_on(agent.run(&Prompt::new(template))).unwrap();
/// assert_eq!(result.text(), Some("Hello!"));
/// assert_eq!(result.spent.model_calls, 1);
/// ```
#[derive(Clone)]
pub struct Agent {
    adapter: Arc<dyn ProviderAdapter>,
    config: MainLoopConfig,
    session: Session,
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("adapter", &self.adapter.name())
            .field("model", &self.adapter.model())
            .field("config", &self.config)
            .field("session", &self.session.id())
            .finish()
    }
}

impl Agent {
    /// An agent over `adapter` with [`MainLoopConfig::default`] (its default budget) and a new
    /// session.
    pub fn new(adapter: Arc<dyn ProviderAdapter>) -> Self {
        Self {
            adapter,
            config: MainLoopConfig::default(),
            session: Session::new(),
        }
    }

    /// The same agent with these run settings (budget, loop settings, resources, expansion
    /// policy).
    #[must_use]
    pub fn with_config(mut self, config: MainLoopConfig) -> Self {
        self.config = config;
        self
    }

    /// The same agent with this budget for each run (and its sub-agents).
    #[must_use]
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.config.budget = budget;
        self
    }

    /// The same agent with these inner-loop settings.
    #[must_use]
    pub fn with_loop_config(mut self, loop_config: LoopConfig) -> Self {
        self.config.loop_config = loop_config;
        self
    }

    /// The same agent with a resource for its tools (added to, or replacing one of the same
    /// type in, the config's resources).
    #[must_use]
    pub fn with_resource<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.config.resources = self.config.resources.with(value);
        self
    }

    /// The same agent working in `session`.
    #[must_use]
    pub fn with_session(mut self, session: Session) -> Self {
        self.session = session;
        self
    }

    /// The model.
    pub fn adapter(&self) -> &Arc<dyn ProviderAdapter> {
        &self.adapter
    }

    /// The run settings.
    pub fn config(&self) -> &MainLoopConfig {
        &self.config
    }

    /// The session runs work in.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The budget each [`Agent::run`] gets: the config's, with the input-token limit derived
    /// from the model's context window as [`MainLoop::budget`] does.
    pub fn budget(&self) -> Budget {
        self.main_loop().budget()
    }

    /// A [`MainLoop`] over the agent's adapter and config as they are (without the resources
    /// [`Agent::run`] adds), for what the agent itself does not offer (e.g.
    /// [`MainLoop::run_worker`]).
    pub fn main_loop(&self) -> MainLoop<'_> {
        MainLoop::new(self.adapter.as_ref(), self.config.clone())
    }

    /// Run `prompt` in the agent's session until it finishes, fails, runs out of budget or
    /// exceeds `max_expansions`, under a fresh tracker for [`Agent::budget`].
    ///
    /// # Errors
    /// Render errors (bad params, ...), as [`MainLoop::execute`].
    pub async fn run<O>(&self, prompt: &Prompt<O>) -> Result<RunResult<O>, PromptError> {
        let tracker = BudgetTracker::new(self.budget());
        self.run_with(prompt, tracker, RunHooks::default()).await
    }

    /// As [`Agent::run`], spending from `tracker` (share it to cap several runs together) and
    /// with streaming and progress hooks.
    ///
    /// # Errors
    /// As [`Agent::run`].
    pub async fn run_with<O>(
        &self,
        prompt: &Prompt<O>,
        tracker: BudgetTracker,
        hooks: RunHooks<'_>,
    ) -> Result<RunResult<O>, PromptError> {
        let mut config = self.config.clone();
        if config.resources.get::<Arc<dyn ProviderAdapter>>().is_none() {
            config.resources = config.resources.with(Arc::clone(&self.adapter));
        }
        config.resources = config.resources.with(tracker.clone());
        MainLoop::new(self.adapter.as_ref(), config)
            .execute_with(prompt, &self.session, tracker, hooks)
            .await
    }
}
