//! `Agent::from_file`: an agent described by a prompt file, prepared exactly as `wink run`
//! prepares it (same params, overrides, pre-opening, catalogs, budgets, transcript).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use wink_agent::{Agent, Budget, ProviderAdapter, RunHooks, RunResult};

use crate::error::Result;
use crate::spec::{OpenedRun, RunSpec};

/// Agents from prompt files: `Agent::from_file(path)` (with this trait in scope, as
/// `wink::prelude` brings it).
///
/// ```no_run
/// use wink_agent::Agent;
/// use wink_run::FromPromptFile;
///
/// let result = Agent::from_file("examples/01_local_demo/prompt.json")
///     .model("local")
///     .input("What is 17 + 25?")
///     .run_blocking()?;
/// println!("{}", result.text().unwrap_or_default());
/// # Ok::<(), wink_run::RunError>(())
/// ```
pub trait FromPromptFile {
    /// The agent the prompt file at `path` describes (read when it first runs).
    fn from_file(path: impl Into<PathBuf>) -> FileAgent;
}

impl FromPromptFile for Agent {
    fn from_file(path: impl Into<PathBuf>) -> FileAgent {
        FileAgent::new(path)
    }
}

/// An agent described by a prompt file: a [`RunSpec`] set up with builder methods, run with
/// [`FileAgent::run`]. The model is `local` (the embedded model) unless set.
#[derive(Debug, Clone)]
pub struct FileAgent {
    spec: RunSpec,
    adapter: Option<Arc<dyn ProviderAdapter>>,
}

impl FileAgent {
    /// The agent of the prompt file at `path`, with the embedded model.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            spec: RunSpec {
                prompt: crate::prompt::PromptSpec::file(path),
                model: "local".to_owned(),
                ..RunSpec::default()
            },
            adapter: None,
        }
    }

    /// The agent of `spec`.
    #[must_use]
    pub fn from_spec(spec: RunSpec) -> Self {
        Self {
            spec,
            adapter: None,
        }
    }

    /// The model, by spec (`local`, `openai:gpt-4.1`, `scripted:PATH`, ...).
    #[must_use]
    pub fn model(mut self, spec: &str) -> Self {
        spec.clone_into(&mut self.spec.model);
        self
    }

    /// A model already built (shared between agents, a test double, ...).
    #[must_use]
    pub fn adapter(mut self, adapter: Arc<dyn ProviderAdapter>) -> Self {
        self.adapter = Some(adapter);
        self
    }

    /// Params: a JSON object mapping params type names to field values.
    #[must_use]
    pub fn params(mut self, params: Value) -> Self {
        self.spec.prompt.params = Some(params);
        self
    }

    /// The user message.
    #[must_use]
    pub fn input(mut self, text: impl Into<String>) -> Self {
        self.spec.settings.input = Some(text.into());
        self
    }

    /// The disclosure mode (`unified`, `wink`, `open-sections`, `context-files`, `expanded`).
    #[must_use]
    pub fn disclosure(mut self, mode: &str) -> Self {
        self.spec.prompt.disclosure = Some(mode.to_owned());
        self
    }

    /// Sections to pre-open (0: none).
    #[must_use]
    pub fn preopen(mut self, k: usize) -> Self {
        self.spec.settings.preopen = Some(k);
        self
    }

    /// The run's budget.
    #[must_use]
    pub fn budget(mut self, budget: Budget) -> Self {
        self.spec.settings.budget = budget;
        self
    }

    /// The run's wall-clock limit.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.spec.settings.timeout = Some(timeout);
        self
    }

    /// Append every session event to this JSON Lines log (resumed when it exists).
    #[must_use]
    pub fn session_log(mut self, path: impl Into<PathBuf>) -> Self {
        self.spec.session_log = Some(path.into());
        self
    }

    /// Write the run's transcript here.
    #[must_use]
    pub fn transcript(mut self, path: impl Into<PathBuf>) -> Self {
        self.spec.transcript = Some(path.into());
        self
    }

    /// The spec, to set what the builder methods do not.
    pub fn spec_mut(&mut self) -> &mut RunSpec {
        &mut self.spec
    }

    /// The spec.
    #[must_use]
    pub fn spec(&self) -> &RunSpec {
        &self.spec
    }

    /// Loads the file, builds the model and prepares the run.
    ///
    /// # Errors
    /// As [`RunSpec::prepare`].
    pub fn prepare(&self) -> Result<OpenedRun> {
        self.spec.prepare_with(self.adapter.clone())
    }

    /// Prepares and runs the agent to its outcome, writing the transcript when asked.
    ///
    /// # Errors
    /// As [`RunSpec::prepare`]; a transcript that cannot be written.
    pub async fn run(&self) -> Result<RunResult> {
        self.run_with(RunHooks::default()).await
    }

    /// As [`FileAgent::run`], with streaming and progress hooks.
    ///
    /// # Errors
    /// As [`FileAgent::run`].
    pub async fn run_with(&self, hooks: RunHooks<'_>) -> Result<RunResult> {
        let (result, transcript_error) = self.prepare()?.execute(hooks).await?;
        crate::trace::flush();
        match transcript_error {
            Some(error) => Err(error),
            None => Ok(result),
        }
    }

    /// [`FileAgent::run`] on a current-thread runtime of its own.
    ///
    /// # Errors
    /// As [`FileAgent::run`].
    pub fn run_blocking(&self) -> Result<RunResult> {
        crate::prepared::runtime()?.block_on(self.run())
    }
}
