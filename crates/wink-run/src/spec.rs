//! [`RunSpec`]: everything one run needs, from a prompt file to a transcript — what `wink run`
//! and `Agent::from_file` prepare with [`RunSpec::prepare`].

use std::path::PathBuf;
use std::sync::Arc;

use wink_agent::{ProviderAdapter, RunHooks, RunResult};
use wink_store::SessionLog;

use crate::error::{Result, RunError};
use crate::model::ModelOptions;
use crate::prepared::{PreparedRun, RunSettings};
use crate::prompt::PromptSpec;

/// A run described in full: the prompt, the model, the run settings, and where its session log
/// and transcript go.
#[derive(Debug, Clone, Default)]
pub struct RunSpec {
    /// The prompt file and its overrides.
    pub prompt: PromptSpec,
    /// The model spec (`local`, `openai:gpt-4.1`, `scripted:PATH`, ...).
    pub model: String,
    /// Options that shape the adapter.
    pub model_options: ModelOptions,
    /// Use the provider's native tool search for the prompt's tool catalog.
    pub native_tool_search: bool,
    /// Input, pre-opening, budget, expansion.
    pub settings: RunSettings,
    /// Append every session event to this JSON Lines log (resumed when it exists).
    pub session_log: Option<PathBuf>,
    /// Resume a session log recorded for another prompt.
    pub force: bool,
    /// Write the transcript here once the run ends.
    pub transcript: Option<PathBuf>,
}

/// A prepared run with its session log kept open for the whole run.
#[derive(Debug)]
pub struct OpenedRun {
    /// The run.
    pub run: PreparedRun,
    /// Where the transcript goes.
    pub transcript: Option<PathBuf>,
    _log: Option<Arc<SessionLog>>,
}

impl RunSpec {
    /// Checks what can be checked before anything is loaded: the transcript's path must be
    /// writable.
    ///
    /// # Errors
    /// [`RunError::Usage`] naming `--transcript`.
    pub fn check(&self) -> Result<()> {
        if let Some(path) = &self.transcript {
            crate::transcript::check_writable(path)
                .map_err(|e| RunError::usage(format!("--transcript: {e}")))?;
        }
        Ok(())
    }

    /// Opens the session (resuming the session log when it exists), prepares the prompt in it,
    /// builds the model, prepares the run, and creates the session log when it is new.
    ///
    /// # Errors
    /// As [`RunSpec::check`], [`PromptSpec::load_in`], [`crate::model::build_model`] and
    /// [`PreparedRun::new`]; a log recorded for another prompt is refused unless `force`.
    pub fn prepare(&self) -> Result<OpenedRun> {
        self.prepare_with(None)
    }

    /// As [`RunSpec::prepare`] with a model already built (`None`: built from `model`).
    ///
    /// # Errors
    /// As [`RunSpec::prepare`].
    pub fn prepare_with(&self, adapter: Option<Arc<dyn ProviderAdapter>>) -> Result<OpenedRun> {
        self.check()?;
        let log_path = self.session_log.as_deref();
        let (session, mut log) = crate::log::resume(log_path)?;
        let prompt = self.prompt.load_in(session)?;
        let identity = crate::log::prompt_identity(&self.prompt.file, &prompt.loaded.template)?;
        if let (Some(path), Some(_)) = (log_path, &log) {
            crate::log::check_prompt(path, &identity, self.force)?;
        }
        let adapter = match adapter {
            Some(adapter) => {
                crate::model::native_tool_search(
                    self.native_tool_search,
                    &prompt.loaded.template,
                    &prompt.session,
                )?;
                adapter
            }
            None => crate::model::build_model(
                &self.model,
                self.model_options.clone(),
                self.native_tool_search,
                &prompt.loaded.template,
                &prompt.session,
            )?,
        };
        let mut settings = self.settings.clone();
        if settings.model_spec.is_empty() {
            settings.model_spec.clone_from(&self.model);
        }
        let run = PreparedRun::new(prompt, adapter, &settings)?;
        if let (Some(path), None) = (log_path, &log) {
            log = Some(crate::log::create(path, &run.prompt.session, identity)?);
        }
        Ok(OpenedRun {
            run,
            transcript: self.transcript.clone(),
            _log: log,
        })
    }
}

impl OpenedRun {
    /// Runs to the outcome. The transcript is written even when the run failed; an error
    /// writing it is returned beside the result, so the answer is never lost to it.
    ///
    /// # Errors
    /// As [`PreparedRun::execute`].
    pub async fn execute(&self, hooks: RunHooks<'_>) -> Result<(RunResult, Option<RunError>)> {
        let session = &self.run.prompt.session;
        let before = session.slice::<wink_session::TurnRepaired>().all().len();
        let result = self.run.execute(hooks).await?;
        let repairs = crate::transcript::repairs_since(session, before);
        let transcript_error = match &self.transcript {
            Some(path) => crate::transcript::write_transcript(
                path,
                &result,
                self.run.adapter.as_ref(),
                &repairs,
            )
            .err(),
            None => None,
        };
        Ok((result, transcript_error))
    }

    /// [`OpenedRun::execute`] on a current-thread runtime of its own.
    ///
    /// # Errors
    /// As [`OpenedRun::execute`].
    pub fn execute_blocking(&self, hooks: RunHooks<'_>) -> Result<(RunResult, Option<RunError>)> {
        crate::prepared::runtime()?.block_on(self.execute(hooks))
    }
}
