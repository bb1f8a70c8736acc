//! Running the cases: [`EvalSpec`] → [`Evaluation`] → [`Report`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use wink_agent::{Budget, LoopOutcome, ProviderAdapter, RunHooks, RunObserver};
use wink_core::ToolCall;
use wink_session::Session;

use super::cases::{Case, Expect, bad, read_cases};
use super::report::{CaseResult, Report, round3};
use crate::error::{Result, RunError};
use crate::model::ModelOptions;
use crate::prepared::{PreparedRun, RunSettings};
use crate::prompt::{PreparedPrompt, PromptSpec};

/// Most model calls per run when the spec does not say.
pub const DEFAULT_EVAL_MODEL_CALLS: u32 = 10;

/// A suite: the prompt (its params come from each case), the cases, the model and the settings
/// every run shares.
#[derive(Debug, Clone)]
pub struct EvalSpec {
    /// The prompt file and its overrides (`disclosure: expanded` renders every summarized section
    /// in full, for comparison). Each case's params replace `prompt.params`.
    pub prompt: PromptSpec,
    /// The cases file.
    pub cases: PathBuf,
    /// The model spec.
    pub model: String,
    /// Options that shape the adapter.
    pub model_options: ModelOptions,
    /// Settings of every run (each case's input replaces `settings.input`).
    pub settings: RunSettings,
    /// Runs per case; every run counts.
    pub repeat: u32,
    /// Every run starts with an empty prompt cache (the embedded model's KV cache).
    pub cold: bool,
    /// Write each run's session log into this directory, as `CASE.jsonl` (`CASE-N.jsonl` when
    /// `repeat` > 1; an earlier log of that name is replaced): `wink trace serve DIR` shows the
    /// runs side by side.
    pub sessions: Option<PathBuf>,
}

impl Default for EvalSpec {
    fn default() -> Self {
        Self {
            prompt: PromptSpec::default(),
            cases: PathBuf::new(),
            model: String::new(),
            model_options: ModelOptions::default(),
            settings: RunSettings {
                budget: Budget {
                    max_model_calls: Some(DEFAULT_EVAL_MODEL_CALLS),
                    ..Budget::default()
                },
                ..RunSettings::default()
            },
            repeat: 1,
            cold: false,
            sessions: None,
        }
    }
}

/// Where an evaluation is, for a progress display.
#[derive(Debug)]
#[non_exhaustive]
pub enum EvalProgress<'a> {
    /// Run `index` (of [`Evaluation::runs`]) of case `id` starts; `passed` runs passed so far.
    Starting {
        /// The run's index.
        index: usize,
        /// Runs passed so far.
        passed: usize,
        /// The case.
        id: &'a str,
    },
    /// A run ended.
    Finished(&'a CaseResult),
}

/// A suite ready to run: the cases read, every case's prompt checked, the model built once (a
/// local model's KV cache then carries over from one run to the next unless `cold`).
#[derive(Debug)]
pub struct Evaluation {
    spec: EvalSpec,
    cases: Vec<Case>,
    adapter: Arc<dyn ProviderAdapter>,
}

impl Evaluation {
    /// Reads the cases, builds the model and checks that every case's prompt loads and renders.
    ///
    /// # Errors
    /// [`RunError::Usage`] for a bad spec, cases file (file, line, key) or model.
    pub fn new(spec: EvalSpec) -> Result<Self> {
        Self::check(&spec)?;
        // A bad cases file is reported before a model is loaded.
        let cases = read_cases(&spec.cases)?;
        let template = wink_promptfile::load(&spec.prompt.file)
            .map_err(|e| RunError::usage(e.to_string()))?
            .template;
        let adapter = crate::model::build_model(
            &spec.model,
            spec.model_options.clone(),
            false,
            &template,
            &Session::new(),
        )?;
        Self::assemble(spec, cases, adapter)
    }

    /// As [`Evaluation::new`] over a model already built.
    ///
    /// # Errors
    /// As [`Evaluation::new`].
    pub fn with_adapter(spec: EvalSpec, adapter: Arc<dyn ProviderAdapter>) -> Result<Self> {
        Self::check(&spec)?;
        let cases = read_cases(&spec.cases)?;
        Self::assemble(spec, cases, adapter)
    }

    fn assemble(
        spec: EvalSpec,
        cases: Vec<Case>,
        adapter: Arc<dyn ProviderAdapter>,
    ) -> Result<Self> {
        let evaluation = Self {
            spec,
            cases,
            adapter,
        };
        // Every case must load and render before the first model call.
        for case in &evaluation.cases {
            evaluation.prepare(case)?;
        }
        Ok(evaluation)
    }

    fn check(spec: &EvalSpec) -> Result<()> {
        if spec.repeat == 0 {
            return Err(RunError::usage("--repeat must be at least 1"));
        }
        Ok(())
    }

    /// The cases.
    #[must_use]
    pub fn cases(&self) -> &[Case] {
        &self.cases
    }

    /// The model.
    #[must_use]
    pub fn adapter(&self) -> &Arc<dyn ProviderAdapter> {
        &self.adapter
    }

    /// Runs in all: cases × repeat.
    #[must_use]
    pub fn runs(&self) -> usize {
        self.cases.len() * self.spec.repeat as usize
    }

    /// Runs every case `repeat` times, in order, telling `progress` where it is.
    ///
    /// # Errors
    /// [`RunError::Failed`] when the async runtime cannot start; a case whose prompt stops
    /// rendering is a [`RunError::Usage`] naming its line.
    pub fn run(&self, progress: &mut dyn FnMut(EvalProgress<'_>)) -> Result<Report> {
        let runtime = crate::prepared::runtime()?;
        if let Some(dir) = &self.spec.sessions {
            std::fs::create_dir_all(dir)
                .map_err(|e| RunError::usage(format!("--sessions {}: {e}", dir.display())))?;
        }
        let started = Instant::now();
        let mut results: Vec<CaseResult> = Vec::with_capacity(self.runs());
        let runs = self
            .cases
            .iter()
            .flat_map(|c| std::iter::repeat_n(c, self.spec.repeat as usize));
        for (index, case) in runs.enumerate() {
            let passed = results.iter().filter(|r| r.passed).count();
            progress(EvalProgress::Starting {
                index,
                passed,
                id: &case.id,
            });
            if self.spec.cold {
                self.adapter.forget_cached_prefix();
            }
            let log = self
                .spec
                .sessions
                .as_ref()
                .map(|dir| match self.spec.repeat {
                    1 => dir.join(format!("{}.jsonl", case.id)),
                    repeat => {
                        dir.join(format!("{}-{}.jsonl", case.id, index % repeat as usize + 1))
                    }
                });
            let result = self.run_case(&runtime, case, log.as_deref())?;
            progress(EvalProgress::Finished(&result));
            results.push(result);
        }
        Ok(Report::new(results, started.elapsed().as_secs_f64()))
    }

    /// A fresh session log at `path` (an earlier one there is replaced) for a case's run.
    fn session_log(
        &self,
        path: &Path,
        prompt: &PreparedPrompt,
    ) -> Result<Arc<wink_store::SessionLog>> {
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(RunError::usage(format!(
                    "--sessions: {}: {e}",
                    path.display()
                )));
            }
        }
        let identity =
            crate::log::prompt_identity(&self.spec.prompt.file, &prompt.loaded.template)?;
        wink_store::SessionLog::create_for_prompt(
            path,
            &prompt.session,
            wink_store::FsyncPolicy::Never,
            Some(identity),
        )
        .map_err(|e| RunError::usage(format!("--sessions: {e}")))
    }

    /// The case's prompt in a fresh session (each run starts from the file, workspace
    /// included).
    fn prepare(&self, case: &Case) -> Result<PreparedPrompt> {
        let mut spec = self.spec.prompt.clone();
        spec.params = case.params.clone().map(Value::Object);
        let prepared = spec.load_in(Session::new()).map_err(|e| {
            let message = e.to_string();
            match message.strip_prefix("--params: ") {
                Some(rest) => bad(&self.spec.cases, case.line, "params", rest),
                None => e,
            }
        })?;
        prepared
            .prompt
            .render_with(&prepared.session)
            .map_err(|e| bad(&self.spec.cases, case.line, "params", e))?;
        Ok(prepared)
    }

    fn run_case(
        &self,
        runtime: &tokio::runtime::Runtime,
        case: &Case,
        log: Option<&Path>,
    ) -> Result<CaseResult> {
        let prompt = self.prepare(case)?;
        let _log = match log {
            Some(path) => Some(self.session_log(path, &prompt)?),
            None => None,
        };
        let mut settings = self.spec.settings.clone();
        settings.input.clone_from(&case.input);
        if settings.model_spec.is_empty() {
            settings.model_spec.clone_from(&self.spec.model);
        }
        let run = PreparedRun::new(prompt, self.adapter.clone(), &settings)?;
        let tools = ToolLog::default();
        let hooks = RunHooks {
            observer: Some(&tools),
            stream: None,
        };
        let started = Instant::now();
        let result = runtime
            .block_on(run.execute(hooks))
            .map_err(|e| bad(&self.spec.cases, case.line, "", e))?;
        let seconds = started.elapsed().as_secs_f64();
        let called = tools.names.into_inner().unwrap_or_default();
        let spent = result.spent;
        let calls = result
            .evaluations
            .iter()
            .flat_map(|evaluation| evaluation.model_calls.iter())
            .map(|call| call.usage.unwrap_or_default())
            .collect();
        let (answer, failure) = match &result.outcome {
            LoopOutcome::Finished { text, output } => {
                let answer = match output {
                    Some(output) => output.to_string(),
                    None => text.clone().unwrap_or_default(),
                };
                (Some(answer), None)
            }
            other => (None, Some(describe_outcome(other))),
        };
        let failure =
            failure.or_else(|| check(&case.expect, answer.as_deref(), &called, spent.model_calls));
        Ok(CaseResult {
            id: case.id.clone(),
            passed: failure.is_none(),
            model_calls: spent.model_calls,
            tool_calls: spent.tool_calls,
            prompt_tokens: spent.usage.input_tokens,
            cached_tokens: spent.usage.cached_tokens,
            output_tokens: spent.usage.output_tokens,
            seconds: round3(seconds),
            answer,
            calls,
            failure,
        })
    }
}

/// Records the names of the tools a run called.
#[derive(Default)]
struct ToolLog {
    names: Mutex<Vec<String>>,
}

impl RunObserver for ToolLog {
    fn on_tool_result(&self, call: &ToolCall, _content: &str, _is_error: bool) {
        if let Ok(mut names) = self.names.lock() {
            names.push(call.name.clone());
        }
    }
}

fn describe_outcome(outcome: &LoopOutcome) -> String {
    match outcome {
        LoopOutcome::BudgetExceeded { limit } => format!("stopped: the {limit} budget ran out"),
        LoopOutcome::Failed { message, phase } => format!("failed ({phase}): {message}"),
        LoopOutcome::ExpansionRequired { section_keys, .. } => {
            format!("stopped waiting for sections {}", section_keys.join(", "))
        }
        _ => "did not finish".to_owned(),
    }
}

/// Why a finished run does not meet `expect` (`None`: it passes). `contains` is
/// case-insensitive; `tools_called` needs each name called at least once, in any order;
/// `not_regex` and `tools_not_called` fail on any match or any call (failed calls count).
#[must_use]
pub fn check(
    expect: &Expect,
    answer: Option<&str>,
    called: &[String],
    model_calls: u32,
) -> Option<String> {
    let answer = answer.unwrap_or_default();
    let lower = answer.to_lowercase();
    if let Some(missing) = expect
        .contains
        .iter()
        .find(|needle| !lower.contains(&needle.to_lowercase()))
    {
        return Some(format!("the answer does not contain {missing:?}"));
    }
    if let Some(regex) = &expect.regex
        && !regex.is_match(answer)
    {
        return Some(format!("the answer does not match /{}/", regex.as_str()));
    }
    if let Some(regex) = &expect.not_regex
        && let Some(found) = regex.find(answer)
    {
        return Some(format!(
            "the answer matches /{}/ ({:?}), which it must not",
            regex.as_str(),
            found.as_str()
        ));
    }
    if let Some(missing) = expect.tools_called.iter().find(|t| !called.contains(t)) {
        return Some(format!(
            "{missing} was not called (called: {})",
            called.join(", ")
        ));
    }
    if let Some(forbidden) = expect.tools_not_called.iter().find(|t| called.contains(t)) {
        return Some(format!("{forbidden} was called, which the case forbids"));
    }
    if let Some(max) = expect.max_model_calls
        && model_calls > max
    {
        return Some(format!("{model_calls} model calls, more than {max}"));
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::path::Path;

    use super::*;
    use crate::eval::parse_case;

    fn expect(line: &str) -> Expect {
        parse_case(line, Path::new("c.jsonl"), 1).unwrap().expect
    }

    #[test]
    fn check_reports_the_first_unmet_expectation() {
        let e = expect(
            r#"{"id": "a", "expect": {"contains": ["5555"], "regex": "^The", "tools_called": ["add"], "max_model_calls": 2}}"#,
        );
        let called = vec!["read_section".to_owned(), "add".to_owned()];
        assert_eq!(check(&e, Some("The sum is 5555."), &called, 2), None);
        assert_eq!(
            check(&e, Some("the SUM is 5555."), &called, 2).as_deref(),
            Some("the answer does not match /^The/")
        );
        assert_eq!(
            check(&e, Some("The sum is 5556."), &called, 2).as_deref(),
            Some("the answer does not contain \"5555\"")
        );
        assert_eq!(
            check(&e, Some("The sum is 5555."), &called[..1], 2).as_deref(),
            Some("add was not called (called: read_section)")
        );
        assert_eq!(
            check(&e, Some("The sum is 5555."), &called, 3).as_deref(),
            Some("3 model calls, more than 2")
        );
    }

    #[test]
    fn negative_expectations_fail_on_a_match_or_a_call() {
        let e = expect(
            r#"{"id": "a", "expect": {"regex": "(?i)do not know", "not_regex": "\\d{4}-\\d{2}", "tools_not_called": ["issue_refund", "escalate"]}}"#,
        );
        let read = vec!["read_section".to_owned()];
        assert_eq!(check(&e, Some("I do not know."), &read, 2), None);
        assert_eq!(check(&e, Some("I do not know."), &[], 1), None);
        assert_eq!(
            check(&e, Some("I do not know: maybe 2026-04-01."), &read, 2).as_deref(),
            Some("the answer matches /\\d{4}-\\d{2}/ (\"2026-04\"), which it must not")
        );
        let refunded = vec!["read_section".to_owned(), "issue_refund".to_owned()];
        assert_eq!(
            check(&e, Some("I do not know."), &refunded, 3).as_deref(),
            Some("issue_refund was called, which the case forbids")
        );
    }
}
