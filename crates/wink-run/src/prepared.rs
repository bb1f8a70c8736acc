//! [`RunSettings`] + a [`PreparedPrompt`] + a model → [`PreparedRun`]: catalogs decided for the
//! model's window, sections pre-opened, the loop configured; then [`PreparedRun::execute`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use wink_agent::preopen::PreopenStyle;
use wink_agent::{
    Budget, BudgetTracker, DEFAULT_MAX_MODEL_CALLS, ExpansionPolicy, LoopConfig, MainLoop,
    MainLoopConfig, ProviderAdapter, RunHooks, RunResult,
};
use wink_core::{Deadline, ToolArguments, ToolCall};
use wink_model::profile::{ModelProfile, profile_named};

use crate::error::{Result, RunError};
use crate::prompt::{DEFAULT_CONTEXT_WINDOW, PreparedPrompt};

/// How a run goes, beyond the prompt and the model: the input, the model's window, pre-opening,
/// budgets and expansion.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// A user message after the system prompt.
    pub input: Option<String>,
    /// The model spec the run uses.
    pub model_spec: String,
    /// The model's context window in tokens, overriding what the adapter reports.
    pub context_window: Option<u64>,
    /// Sections to pre-open (`None`: the prompt file's `preopen`, else the model's default).
    pub preopen: Option<usize>,
    /// How pre-opened sections reach the model.
    pub preopen_style: PreopenStyle,
    /// The run's budget (its deadline is set from `timeout` when the run starts).
    pub budget: Budget,
    /// When the budget has no input-token limit, derive one from the context window.
    pub derive_input_budget: bool,
    /// Wall-clock limit of the run.
    pub timeout: Option<Duration>,
    /// Most restarts for section expansion.
    pub max_expansions: u32,
    /// Expansion policy.
    pub policy: ExpansionPolicy,
    /// The model profile to run with, by name (`None`: the prompt file's `model_profile`, else
    /// the one the adapter chooses).
    pub profile: Option<String>,
    /// Turn policies switched on (`true`) or off (`false`) over the profile's, after the prompt
    /// file's `repairs`.
    pub repairs: BTreeMap<String, bool>,
    /// Offer the answer tool or not, whatever the profile says.
    pub answer_tool: Option<bool>,
}

impl Default for RunSettings {
    fn default() -> Self {
        Self {
            input: None,
            model_spec: String::new(),
            context_window: None,
            preopen: None,
            preopen_style: PreopenStyle::Render,
            budget: Budget {
                max_model_calls: Some(DEFAULT_MAX_MODEL_CALLS),
                ..Budget::default()
            },
            derive_input_budget: true,
            timeout: None,
            max_expansions: 8,
            policy: ExpansionPolicy::Eager,
            profile: None,
            repairs: BTreeMap::new(),
            answer_tool: None,
        }
    }
}

/// A run ready to execute: the prompt in its session, the model, and the loop's settings.
#[derive(Debug)]
pub struct PreparedRun {
    /// The prompt and its session.
    pub prompt: PreparedPrompt,
    /// The model.
    pub adapter: Arc<dyn ProviderAdapter>,
    /// The loop's settings (budget without deadline, resources, opening calls).
    pub config: MainLoopConfig,
    /// The wall-clock limit, applied when the run starts.
    pub timeout: Option<Duration>,
    /// The keys of the sections pre-opened for the input.
    pub preopened: Vec<String>,
    /// The catalog tools described before the first model call.
    pub described: Vec<String>,
    /// The model profile the run uses.
    pub profile: &'static ModelProfile,
}

impl PreparedRun {
    /// Prepares `prompt` to run on `adapter` under `settings`: catalogs with `defer: auto`
    /// decide for the model's window, the sections most relevant to the input are pre-opened
    /// (not when every section is expanded), and the loop is configured.
    ///
    /// # Errors
    /// [`RunError::Usage`] when a catalog cannot decide or the prompt does not render.
    pub fn new(
        mut prompt: PreparedPrompt,
        adapter: Arc<dyn ProviderAdapter>,
        settings: &RunSettings,
    ) -> Result<Self> {
        let known_window = settings.context_window.or_else(|| adapter.context_window());
        let window = known_window.unwrap_or(DEFAULT_CONTEXT_WINDOW);
        if window != DEFAULT_CONTEXT_WINDOW {
            prompt.decide_catalogs(window)?;
        }
        let profile = match settings
            .profile
            .as_ref()
            .or(prompt.loaded.model_profile.as_ref())
        {
            Some(name) => {
                profile_named(name).map_err(|e| RunError::usage(format!("--profile: {e}")))?
            }
            None => adapter.profile(),
        };
        let mut repairs = prompt.loaded.repairs.clone();
        repairs.extend(settings.repairs.iter().map(|(k, v)| (k.clone(), *v)));
        wink_agent::turn_policy::check_policy_names(repairs.keys().map(String::as_str))
            .map_err(|e| RunError::usage(format!("--no-repair: {e}")))?;
        let preopen = crate::preopen::effective_preopen(
            settings.preopen,
            prompt.loaded.preopen,
            profile,
            prompt.prompt.template().disclosure(),
        );
        let (mut preopened, mut opening_calls) = (Vec::new(), Vec::new());
        if let Some(k) = preopen
            && !prompt.expanded
        {
            let done = crate::preopen::preopen(
                &prompt,
                settings.input.as_deref(),
                k,
                settings.preopen_style,
                known_window,
            )?;
            preopened = done.opened.into_iter().map(|(key, _)| key).collect();
            opening_calls = done.calls;
        }
        let described = opening_calls.iter().flat_map(described_names).collect();
        let config = MainLoopConfig {
            loop_config: LoopConfig {
                user_message: settings.input.clone(),
                context_window: settings.context_window,
                profile: Some(profile.name.to_owned()),
                repairs,
                answer_tool: settings.answer_tool,
                ..LoopConfig::default()
            },
            budget: settings.budget,
            derive_input_budget: settings.derive_input_budget,
            resources: with_sampler(&prompt.resources, &adapter),
            max_expansions: settings.max_expansions,
            policy: settings.policy,
            opening_calls,
        };
        Ok(Self {
            prompt,
            adapter,
            config,
            timeout: settings.timeout,
            preopened,
            described,
            profile,
        })
    }

    /// The catalog deferral decisions (section path, decision).
    #[must_use]
    pub fn decisions(&self) -> &[(String, wink_catalog::DeferDecision)] {
        &self.prompt.decisions
    }

    /// The loop's settings with the tool resources a run adds: a prompt that dispatches
    /// sub-agents gets the model and the run's budget tracker, so each child runs on the same
    /// model and spends from the run's budget.
    #[must_use]
    pub fn loop_config(&self, tracker: Option<&BudgetTracker>) -> MainLoopConfig {
        let mut config = self.config.clone();
        if self.prompt.loaded.subagents.is_some() {
            config.resources = config.resources.with(self.adapter.clone());
            if let Some(tracker) = tracker {
                config.resources = config.resources.with(tracker.clone());
            }
        }
        config
    }

    /// The budget the run spends from: the config's (its input-token limit derived from the
    /// context window when asked), with a deadline `timeout` from now.
    #[must_use]
    pub fn budget(&self) -> Budget {
        let mut budget = MainLoop::new(self.adapter.as_ref(), self.config.clone()).budget();
        budget.deadline = self.timeout.map(Deadline::after);
        budget
    }

    /// Runs the prompt to its outcome.
    ///
    /// # Errors
    /// [`RunError::Usage`] when the prompt does not render (the file named).
    pub async fn execute(&self, hooks: RunHooks<'_>) -> Result<RunResult> {
        let tracker = BudgetTracker::new(self.budget());
        let config = self.loop_config(Some(&tracker));
        MainLoop::new(self.adapter.as_ref(), config)
            .execute_with(&self.prompt.prompt, &self.prompt.session, tracker, hooks)
            .await
            .map_err(|e| RunError::usage(format!("{}: {e}", self.prompt.loaded_file())))
    }

    /// [`PreparedRun::execute`] on a current-thread runtime of its own.
    ///
    /// # Errors
    /// As [`PreparedRun::execute`]; [`RunError::Failed`] when the runtime cannot start.
    pub fn execute_blocking(&self, hooks: RunHooks<'_>) -> Result<RunResult> {
        runtime()?.block_on(self.execute(hooks))
    }
}

/// A current-thread async runtime with timers and I/O.
///
/// # Errors
/// [`RunError::Failed`] when it cannot start.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RunError::failed(format!("cannot start the async runtime: {e}")))
}

/// The catalog tool names a pre-opening `tool.describe` call describes.
/// `resources` with the run's model answering MCP servers' sampling requests.
fn with_sampler(
    resources: &wink_core::Resources,
    adapter: &Arc<dyn ProviderAdapter>,
) -> wink_core::Resources {
    let answers = resources
        .get::<wink_mcp::ClientAnswers>()
        .cloned()
        .unwrap_or_default();
    resources.clone().with(wink_mcp::ClientAnswers {
        sampler: Some(Arc::clone(adapter)),
        ..answers
    })
}

fn described_names(call: &ToolCall) -> Vec<String> {
    match (call.name.as_str(), &call.arguments) {
        (wink_catalog::TOOL_DESCRIBE, ToolArguments::Json(args)) => args["names"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| n.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}
