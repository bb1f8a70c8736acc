//! `wink run`: evaluate a prompt file with a model until it answers.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use wink_agent::{Budget, DEFAULT_MAX_MODEL_CALLS, LoopOutcome, RunHooks, StreamDelta, StreamSink};
use wink_run::progress::ProgressLines;
use wink_run::settings::{Limit, budget_message, parse_policy};
use wink_run::{RunSettings, RunSpec};

use super::common::{PromptArgs, run_error};

/// Exit code when a budget or the deadline ran out.
pub const BUDGET_EXIT: u8 = 3;

/// `wink run FILE --model SPEC [...]`
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub prompt: PromptArgs,
    #[command(flatten)]
    pub model: super::common::ModelFlags,
    #[command(flatten)]
    pub preopen: super::common::PreopenFlags,
    /// HTTP providers: stream the answer to stdout as it arrives, even when stdout is not a
    /// terminal (streaming is on by default for a terminal).
    #[arg(long)]
    pub stream: bool,
    /// Use the provider's native tool search for the prompt's tool catalog (anthropic:
    /// defer_loading + tool_reference; openai-responses: tool_search): every catalog tool is sent
    /// deferred and find_tool loads them, instead of tool.describe injecting them.
    #[arg(long)]
    pub native_tool_search: bool,
    /// Most restarts for section expansion.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub max_expansions: u32,
    /// Expansion policy: eager, conservative or batched:N.
    #[arg(long, value_name = "POLICY", default_value = "eager")]
    pub policy: String,
    /// Append every session event to this JSON Lines log (resumed when it exists).
    #[arg(long, value_name = "LOG.jsonl")]
    pub session: Option<PathBuf>,
    /// Resume a --session log even though it was recorded for another prompt (another ns, key
    /// or file content).
    #[arg(long)]
    pub force: bool,
    /// Write the transcript (model calls, output, usage, restarts) as JSON here.
    #[arg(long, value_name = "OUT.json")]
    pub transcript: Option<PathBuf>,
    /// A user message after the system prompt.
    #[arg(long, value_name = "TEXT")]
    pub input: Option<String>,
    /// Budget: most model calls over the run (default 16; 0 or none: unlimited).
    #[arg(long, value_name = "N", value_parser = super::common::parse_limit)]
    pub max_model_calls: Option<Limit>,
    /// Budget: most tool calls.
    #[arg(long, value_name = "N")]
    pub max_tool_calls: Option<u32>,
    /// Budget: most input (prompt) tokens over the run (default: 8 × the model's context
    /// window, or 500000 when the window is unknown; 0 or none: unlimited).
    #[arg(long, value_name = "N", value_parser = super::common::parse_limit)]
    pub max_input_tokens: Option<Limit>,
    /// Budget: most output tokens over the run.
    #[arg(long, value_name = "N")]
    pub max_output_tokens: Option<u64>,
    /// Wall-clock limit in seconds.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// More progress detail on stderr.
    #[arg(long, short)]
    pub verbose: bool,
}

/// Streams answer text to the terminal.
struct TerminalStream {
    wrote: AtomicBool,
}

impl StreamSink for TerminalStream {
    fn on_delta(&self, delta: &StreamDelta) {
        if let StreamDelta::Text { text } = delta {
            let _ = crate::output::write_stdout(text);
            self.wrote.store(true, Ordering::Relaxed);
        }
    }
}

/// `wink run`, in steps: arguments → run spec → prepared run (session, prompt, model, log) →
/// execute (transcript written) → report.
pub fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let streaming = args.stream || std::io::stdout().is_terminal();
    let spec = run_spec(args, streaming)?;
    spec.check().map_err(run_error)?;
    let opened = args.model.with_model_fetch(|| spec.prepare())?;
    for line in opened.run.report(args.verbose) {
        note!("wink run: {line}");
    }
    let stream = TerminalStream {
        wrote: AtomicBool::new(false),
    };
    let progress = ProgressLines::new(
        args.verbose,
        Box::new(|line| crate::output::write_stderr(line, true)),
    );
    let hooks = RunHooks {
        observer: Some(&progress),
        stream: streaming.then_some(&stream as &dyn StreamSink),
    };
    note!(
        "wink run: {} with {} ({})",
        args.prompt.file.display(),
        opened.run.adapter.name(),
        opened.run.adapter.model()
    );
    let budget = opened.run.budget();
    let (result, transcript_error) = opened.execute_blocking(hooks).map_err(run_error)?;
    progress.done(&result.spent, result.restarts);
    let provider_failure = result.provider_failure().cloned();
    let code = report_outcome(
        result.outcome,
        streaming,
        &stream,
        &budget,
        provider_failure,
    )?;
    // A transcript that cannot be written is reported after the answer, never instead of it.
    match transcript_error {
        None => Ok(code),
        Some(error) => {
            note!("error: {error}");
            Ok(ExitCode::from(crate::exit::FAILURE))
        }
    }
}

/// The run these flags describe.
fn run_spec(args: &RunArgs, streaming: bool) -> anyhow::Result<RunSpec> {
    let settings = args.model.turn_settings(RunSettings {
        input: args.input.clone(),
        model_spec: args.model.model.clone(),
        context_window: args.model.context_size,
        preopen: args.preopen.preopen,
        preopen_style: args.preopen.style()?,
        budget: Budget {
            max_model_calls: args
                .max_model_calls
                .map_or(Some(DEFAULT_MAX_MODEL_CALLS), Limit::calls),
            max_tool_calls: args.max_tool_calls,
            max_input_tokens: args.max_input_tokens.and_then(Limit::tokens),
            max_output_tokens: args.max_output_tokens,
            deadline: None,
        },
        // Unset: derived from the context window; `0` / `none`: unlimited.
        derive_input_budget: args.max_input_tokens.is_none(),
        timeout: wink_run::settings::timeout(args.timeout).map_err(run_error)?,
        max_expansions: args.max_expansions,
        policy: parse_policy(&args.policy).map_err(run_error)?,
        ..RunSettings::default()
    });
    Ok(RunSpec {
        prompt: args.prompt.spec()?,
        model: args.model.model.clone(),
        model_options: args.model.options(streaming, args.verbose),
        native_tool_search: args.native_tool_search,
        settings,
        session_log: args.session.clone(),
        force: args.force,
        transcript: args.transcript.clone(),
    })
}

/// Prints the answer (or why there is none) and gives the exit code.
fn report_outcome(
    outcome: LoopOutcome,
    streaming: bool,
    stream: &TerminalStream,
    budget: &Budget,
    provider_failure: Option<wink_agent::ProviderFailure>,
) -> anyhow::Result<ExitCode> {
    match outcome {
        LoopOutcome::Finished { text, output } => {
            if streaming && stream.wrote.load(Ordering::Relaxed) && output.is_none() {
                crate::output::println("")?;
            } else if let Some(output) = output {
                crate::output::println(&serde_json::to_string_pretty(&output)?)?;
            } else {
                crate::output::println(text.as_deref().unwrap_or(""))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        LoopOutcome::Terminated { name, content, .. } => {
            note!("run ended by the terminal tool '{name}'");
            if streaming && stream.wrote.load(Ordering::Relaxed) {
                crate::output::println("")?;
            }
            crate::output::println(&content)?;
            Ok(ExitCode::SUCCESS)
        }
        LoopOutcome::BudgetExceeded { limit } => {
            note!("error: {}", budget_message(limit, budget));
            Ok(ExitCode::from(BUDGET_EXIT))
        }
        LoopOutcome::Failed { message, phase } => {
            note!("error: run failed ({phase}): {message}");
            if let Some(failure) = provider_failure {
                for line in failure.to_string().lines() {
                    note!("  {line}");
                }
            }
            Ok(ExitCode::from(crate::exit::FAILURE))
        }
        LoopOutcome::ExpansionRequired { section_keys, .. } => {
            note!(
                "error: run stopped waiting for sections {}",
                section_keys.join(", ")
            );
            Ok(ExitCode::from(crate::exit::FAILURE))
        }
        _ => Ok(ExitCode::from(crate::exit::FAILURE)),
    }
}
