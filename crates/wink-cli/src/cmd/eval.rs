//! `wink eval`: run a prompt file over a JSON Lines file of cases and report pass rate, tokens,
//! model calls and time (the harness is `wink_run::eval`).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use wink_agent::Budget;
use wink_run::eval::{EvalProgress, EvalSpec, Evaluation};
use wink_run::settings::Limit;
use wink_run::{PromptSpec, RunSettings};

use super::common::{ModelFlags, run_error};

/// `wink eval PROMPT --cases CASES.jsonl [...]`
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The prompt file (.json, .toml, .yaml).
    pub prompt: PathBuf,
    /// The cases: one JSON object per line, `{"id", "params"?, "input"?, "expect": {"contains"?,
    /// "regex"?, "not_regex"?, "tools_called"?, "tools_not_called"?,
    /// "max_model_calls"?}}`.
    #[arg(long, value_name = "CASES.jsonl")]
    pub cases: PathBuf,
    #[command(flatten)]
    pub model: ModelFlags,
    #[command(flatten)]
    pub view: super::common::ViewFlags,
    /// Run each case N times; every run counts.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub repeat: u32,
    /// Output: text (a table) or json.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
    pub format: String,
    #[command(flatten)]
    pub preopen: super::common::PreopenFlags,
    /// Most model calls per run (a run that needs more fails; default 10; 0 or none:
    /// unlimited, as in `wink run`).
    #[arg(long, value_name = "N", value_parser = super::common::parse_limit)]
    pub max_model_calls: Option<Limit>,
    /// Wall-clock limit per run, in seconds.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Start every run with an empty prompt cache (the embedded model's KV cache), as a new
    /// `wink run` process would; calls within a run still reuse it. Without it, a local model's
    /// cache carries over from one run to the next (the prompt's shared prefix is evaluated once).
    #[arg(long)]
    pub cold: bool,
    /// One line per run on stderr (answer and reason for a failure).
    #[arg(long, short)]
    pub verbose: bool,
    /// Write each run's session log into DIR, as CASE.jsonl (CASE-N.jsonl with --repeat):
    /// `wink trace serve DIR` shows the runs side by side.
    #[arg(long, value_name = "DIR")]
    pub sessions: Option<PathBuf>,
}

/// The suite these flags describe.
fn eval_spec(args: &EvalArgs) -> anyhow::Result<EvalSpec> {
    let defaults = EvalSpec::default();
    Ok(EvalSpec {
        prompt: args.view.apply(PromptSpec::file(&args.prompt)),
        cases: args.cases.clone(),
        model: args.model.model.clone(),
        model_options: args.model.options(false, false),
        settings: args.model.turn_settings(RunSettings {
            model_spec: args.model.model.clone(),
            context_window: args.model.context_size,
            preopen: args.preopen.preopen,
            preopen_style: args.preopen.style()?,
            budget: Budget {
                max_model_calls: args
                    .max_model_calls
                    .map_or(defaults.settings.budget.max_model_calls, Limit::calls),
                ..Budget::default()
            },
            timeout: wink_run::settings::timeout(args.timeout).map_err(run_error)?,
            ..defaults.settings
        }),
        repeat: args.repeat,
        cold: args.cold,
        sessions: args.sessions.clone(),
    })
}

pub fn run(args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let spec = eval_spec(args)?;
    let evaluation = args
        .model
        .with_model_fetch(|| Evaluation::new(spec.clone()))?;
    let bar = ProgressBar {
        total: evaluation.runs(),
        started: Instant::now(),
        enabled: std::io::stderr().is_terminal(),
    };
    let report = evaluation
        .run(&mut |progress| match progress {
            EvalProgress::Starting { index, passed, id } => bar.draw(index, passed, id),
            EvalProgress::Finished(result) if args.verbose => {
                bar.clear();
                note!(
                    "{} {}: {}",
                    if result.passed { "PASS" } else { "FAIL" },
                    result.id,
                    result.failure.as_deref().unwrap_or("ok")
                );
            }
            _ => {}
        })
        .map_err(run_error)?;
    bar.clear();
    let text = if args.format == "json" {
        serde_json::to_string_pretty(&report)?
    } else {
        report.text()
    };
    crate::output::println(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// A hand-drawn progress line on stderr (only on a terminal).
struct ProgressBar {
    total: usize,
    started: Instant,
    enabled: bool,
}

impl ProgressBar {
    fn draw(&self, done: usize, passed: usize, current: &str) {
        if !self.enabled {
            return;
        }
        const WIDTH: usize = 24;
        let filled = (done * WIDTH).checked_div(self.total).unwrap_or(WIDTH);
        crate::output::erase_line();
        note_inline!(
            "[{}{}] {done}/{} runs, {passed} passed, {:.0}s  {current}",
            "#".repeat(filled),
            "-".repeat(WIDTH - filled),
            self.total,
            self.started.elapsed().as_secs_f64()
        );
        let _ = std::io::stderr().flush();
    }

    fn clear(&self) {
        if self.enabled {
            crate::output::erase_line();
            let _ = std::io::stderr().flush();
        }
    }
}
