//! `wink run`: evaluate a prompt file with a model until it answers.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use clap::Args;
use serde_json::{Value, json};
use wink_agent::{
    Budget, BudgetLimit, DEFAULT_MAX_MODEL_CALLS, ExpansionPolicy, Intervention, LoopConfig,
    LoopOutcome, MainLoop, MainLoopConfig, ModelTurn, RunHooks, RunObserver, StreamDelta,
    StreamSink, ToolSpec,
};
use wink_core::{Deadline, ToolCall};

use super::common::PromptArgs;
use crate::exit::usage;

/// Exit code when a budget or the deadline ran out.
pub const BUDGET_EXIT: u8 = 3;

/// `wink run FILE --model SPEC [...]`
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub prompt: PromptArgs,
    #[command(flatten)]
    pub model: super::common::ModelFlags,
    /// Open the K summarized sections most relevant to the input (BM25 over summaries, bodies and
    /// the tools they hide; no model call) before the first model call. Default: the prompt file's
    /// `preopen`, else up to 3 (those scoring at least 60% of the best) for the embedded model
    /// (local, local:…) outside wink mode, else none;
    /// 0 turns it off.
    #[arg(long, value_name = "K")]
    pub preopen: Option<usize>,
    /// How pre-opened sections reach the model: `render` (in full in the system prompt, their
    /// tools offered from the first call) or `call` (unified mode: as the model's own first turn,
    /// one read_section call per section run before the first model call, so the system prompt
    /// stays the same for every input and a prefix cache serves it).
    #[arg(long, value_name = "STYLE", default_value = "render", value_parser = ["render", "call"])]
    pub preopen_style: String,
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
    #[arg(long, value_name = "N", value_parser = parse_limit)]
    pub max_model_calls: Option<Limit>,
    /// Budget: most tool calls.
    #[arg(long, value_name = "N")]
    pub max_tool_calls: Option<u32>,
    /// Budget: most input (prompt) tokens over the run (default: 8 × the model's context
    /// window, or 500000 when the window is unknown; 0 or none: unlimited).
    #[arg(long, value_name = "N", value_parser = parse_limit)]
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

/// A budget flag's value: a number, or `0` / `none` for unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// No limit.
    Unlimited,
    /// At most this many.
    At(u64),
}

fn parse_limit(text: &str) -> Result<Limit, String> {
    match text.trim() {
        "none" | "0" => Ok(Limit::Unlimited),
        n => n
            .parse::<u64>()
            .map(Limit::At)
            .map_err(|_| format!("'{text}' is not a number (or 0 / none for unlimited)")),
    }
}

/// The message for a run that ran out of `limit` under `budget`, naming the flag to raise it.
pub fn budget_message(limit: BudgetLimit, budget: &Budget) -> String {
    let (spent, what, flag) = match limit {
        BudgetLimit::ModelCalls => (
            budget.max_model_calls.map(u64::from),
            "model calls",
            "--max-model-calls",
        ),
        BudgetLimit::ToolCalls => (
            budget.max_tool_calls.map(u64::from),
            "tool calls",
            "--max-tool-calls",
        ),
        BudgetLimit::InputTokens => (
            budget.max_input_tokens,
            "input tokens",
            "--max-input-tokens",
        ),
        BudgetLimit::OutputTokens => (
            budget.max_output_tokens,
            "output tokens",
            "--max-output-tokens",
        ),
        _ => return "budget exceeded: the deadline passed (raise it with --timeout)".to_owned(),
    };
    match spent {
        Some(1) => format!(
            "budget exceeded: 1 {} (raise it with {flag})",
            what.strip_suffix('s').unwrap_or(what)
        ),
        Some(n) => format!("budget exceeded: {n} {what} (raise it with {flag})"),
        None => format!("budget exceeded: {what} (raise it with {flag})"),
    }
}

fn parse_policy(text: &str) -> anyhow::Result<ExpansionPolicy> {
    match text {
        "eager" => Ok(ExpansionPolicy::Eager),
        "conservative" => Ok(ExpansionPolicy::Conservative),
        other => match other.strip_prefix("batched") {
            Some("") => Ok(ExpansionPolicy::Batched { size: 2 }),
            Some(n) => n
                .strip_prefix(':')
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n > 0)
                .map(|size| ExpansionPolicy::Batched { size })
                .ok_or_else(|| usage(format!("--policy: '{other}' is not batched:N with N > 0"))),
            None => Err(usage(format!(
                "--policy: unknown policy '{other}' (eager, conservative, batched:N)"
            ))),
        },
    }
}

/// Progress on stderr.
struct Progress {
    verbose: bool,
    started: Instant,
}

fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        format!("{}…", flat.chars().take(max).collect::<String>())
    } else {
        flat
    }
}

impl RunObserver for Progress {
    fn on_model_call(&self, index: u32, messages: usize, tools: &[ToolSpec]) {
        note!(
            "[{:>6.1}s] model call {} ({} messages, tools: {})",
            self.started.elapsed().as_secs_f64(),
            index + 1,
            messages,
            tools
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    fn on_model_turn(&self, turn: &ModelTurn) {
        if let Some(u) = &turn.usage {
            note!(
                "[{:>6.1}s]   tokens: {} in ({} cached), {} out",
                self.started.elapsed().as_secs_f64(),
                u.input_tokens,
                u.cached_tokens,
                u.output_tokens
            );
        }
        if self.verbose
            && let Some(t) = &turn.text
        {
            note!("           text: {}", one_line(t, 200));
        }
    }
    fn on_tool_result(&self, call: &ToolCall, content: &str, is_error: bool) {
        let args = serde_json::to_string(&call.arguments).unwrap_or_default();
        note!(
            "[{:>6.1}s]   tool {}({}) -> {}{}",
            self.started.elapsed().as_secs_f64(),
            call.name,
            one_line(&args, 120),
            if is_error { "ERROR " } else { "" },
            one_line(content, if self.verbose { 400 } else { 100 })
        );
    }
    fn on_tools_injected(&self, section: &str, tools: &[String]) {
        note!(
            "[{:>6.1}s]   injected tools from '{section}': {}",
            self.started.elapsed().as_secs_f64(),
            tools.join(", ")
        );
    }
    fn on_restart(&self, sections: &[String]) {
        note!(
            "[{:>6.1}s]   restarting with sections expanded: {}",
            self.started.elapsed().as_secs_f64(),
            sections.join(", ")
        );
    }
    fn on_intervention(&self, intervention: &Intervention) {
        let call = match (&intervention.tool, &intervention.arguments) {
            (Some(tool), Some(args)) => format!(" {tool}({})", one_line(&args.to_string(), 120)),
            _ => String::new(),
        };
        note!(
            "[{:>6.1}s]   loop {}{call}: {}",
            self.started.elapsed().as_secs_f64(),
            intervention.kind.as_str(),
            one_line(&intervention.detail, if self.verbose { 400 } else { 160 })
        );
    }
}

/// Streams answer text to the terminal.
struct TerminalStream {
    wrote: AtomicBool,
}

impl StreamSink for TerminalStream {
    fn on_delta(&self, delta: &StreamDelta) {
        if let StreamDelta::Text { text } = delta {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            self.wrote.store(true, Ordering::Relaxed);
        }
    }
}

/// `wink run`, in steps: arguments → validated settings → session (prompt, model, log) →
/// execute → transcript → report.
pub fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let settings = Settings::from_args(args)?;
    let opened = open(args, &settings)?;
    let stream = TerminalStream {
        wrote: AtomicBool::new(false),
    };
    let (result, budget) = execute(args, &settings, &opened, &stream)?;
    // A transcript that cannot be written is reported after the answer, never instead of it.
    let transcript_error = match &args.transcript {
        Some(path) => write_transcript(path, &result, opened.adapter.as_ref()).err(),
        None => None,
    };
    let provider_failure = result.provider_failure().cloned();
    let code = report_outcome(
        result.outcome,
        settings.streaming,
        &stream,
        &budget,
        provider_failure,
    )?;
    match transcript_error {
        None => Ok(code),
        Some(error) => {
            note!("error: {error:#}");
            Ok(ExitCode::from(crate::exit::FAILURE))
        }
    }
}

/// The flags checked before anything is loaded.
struct Settings {
    policy: ExpansionPolicy,
    timeout: Option<std::time::Duration>,
    /// Answers stream to the terminal (`--stream`, or stdout is a terminal).
    streaming: bool,
}

impl Settings {
    fn from_args(args: &RunArgs) -> anyhow::Result<Self> {
        let policy = parse_policy(&args.policy)?;
        if let Some(path) = &args.transcript {
            check_writable(path).map_err(|e| usage(format!("--transcript: {e}")))?;
        }
        let timeout = super::common::timeout_flag(args.timeout)?;
        let streaming = args.stream || std::io::stdout().is_terminal();
        Ok(Settings {
            policy,
            timeout,
            streaming,
        })
    }

    /// The run's budget; a timeout starts counting now.
    fn budget(&self, args: &RunArgs) -> Budget {
        Budget {
            max_model_calls: match args.max_model_calls {
                None => Some(DEFAULT_MAX_MODEL_CALLS),
                Some(Limit::Unlimited) => None,
                Some(Limit::At(n)) => Some(u32::try_from(n).unwrap_or(u32::MAX)),
            },
            max_tool_calls: args.max_tool_calls,
            max_input_tokens: match args.max_input_tokens {
                Some(Limit::At(n)) => Some(n),
                _ => None,
            },
            max_output_tokens: args.max_output_tokens,
            deadline: self.timeout.map(Deadline::after),
        }
    }
}

/// The prompt prepared in its session, the model, the calls made before the first model call,
/// and the session log kept open for the whole run.
struct Opened {
    prepared: super::common::PreparedPrompt,
    adapter: std::sync::Arc<dyn wink_agent::ProviderAdapter>,
    opening_calls: Vec<ToolCall>,
    _log: Option<std::sync::Arc<wink_store::SessionLog>>,
}

/// Opens the session (resuming `--session` when it exists), prepares the prompt in it, builds
/// the model, decides deferred catalogs for its window, pre-opens sections, and creates the
/// session log when `--session` names a new file.
fn open(args: &RunArgs, settings: &Settings) -> anyhow::Result<Opened> {
    let model_options = args.model.options(settings.streaming, args.verbose);
    let fsync = wink_store::FsyncPolicy::EveryEvent;
    let (session, mut log) = match &args.session {
        Some(path) if path.exists() => {
            let (session, log, _report) =
                wink_store::open_session(path, fsync, super::common::register_run_events)
                    .map_err(|e| usage(format!("--session: {e}")))?;
            (session, Some(log))
        }
        _ => (wink_session::Session::new(), None),
    };
    let mut prepared = args.prompt.prepare_in(session)?;
    let identity = prompt_identity(&args.prompt.file, &prepared.loaded.template)?;
    if let (Some(path), Some(_)) = (&args.session, &log) {
        check_log_prompt(path, &identity, args.force)?;
    }
    let adapter = super::common::build_model(
        &args.model.model,
        model_options,
        args.native_tool_search,
        &prepared.loaded.template,
        &prepared.session,
    )?;
    decide_catalogs(args, &mut prepared, adapter.as_ref())?;
    let opening_calls = preopen_calls(args, &prepared)?;
    if let (Some(path), None) = (&args.session, &log) {
        log = Some(
            wink_store::SessionLog::create_for_prompt(
                path,
                &prepared.session,
                fsync,
                Some(identity),
            )
            .map_err(|e| usage(format!("--session: {e}")))?,
        );
    }
    Ok(Opened {
        prepared,
        adapter,
        opening_calls,
        _log: log,
    })
}

/// Catalogs with `defer: auto` decide for this model's window; every decision but `always` is
/// reported.
fn decide_catalogs(
    args: &RunArgs,
    prepared: &mut super::common::PreparedPrompt,
    adapter: &dyn wink_agent::ProviderAdapter,
) -> anyhow::Result<()> {
    let window = args
        .model
        .context_size
        .or_else(|| adapter.context_window())
        .unwrap_or(super::common::DEFAULT_CONTEXT_WINDOW);
    if window != super::common::DEFAULT_CONTEXT_WINDOW {
        prepared.decide_catalogs(window)?;
    }
    for (path, decision) in &prepared.decisions {
        if decision.policy != "always" {
            note!(
                "wink run: catalog '{path}' {} ({}: {} schema tokens, threshold {} of {} tokens)",
                decision.decision,
                decision.policy,
                decision.schema_tokens,
                decision
                    .threshold_tokens
                    .map_or("none".to_owned(), |t| t.to_string()),
                decision.context_window
            );
        }
    }
    Ok(())
}

/// The sections pre-opened for the input (`--preopen`), reported, and the calls that open them.
fn preopen_calls(
    args: &RunArgs,
    prepared: &super::common::PreparedPrompt,
) -> anyhow::Result<Vec<ToolCall>> {
    let Some(k) = super::common::effective_preopen(
        args.preopen,
        prepared.loaded.preopen,
        &args.model.model,
        prepared.prompt.template().disclosure(),
    ) else {
        return Ok(Vec::new());
    };
    let preopened =
        super::common::preopen(prepared, args.input.as_deref(), k, &args.preopen_style)?;
    if !preopened.opened.is_empty() {
        let keys: Vec<&str> = preopened.opened.iter().map(|(k, _)| k.as_str()).collect();
        note!("wink run: pre-opened {}", keys.join(", "));
    }
    for call in &preopened.calls {
        if let (wink_catalog::TOOL_DESCRIBE, wink_core::ToolArguments::Json(args)) =
            (call.name.as_str(), &call.arguments)
        {
            note!("wink run: pre-described {}", args["names"]);
        }
    }
    Ok(preopened.calls)
}

/// Runs the main loop to its outcome on a current-thread runtime and reports what it spent;
/// returns the result and the budget it ran under.
fn execute(
    args: &RunArgs,
    settings: &Settings,
    opened: &Opened,
    stream: &TerminalStream,
) -> anyhow::Result<(wink_agent::RunResult, Budget)> {
    let Opened {
        prepared, adapter, ..
    } = opened;
    let budget = settings.budget(args);
    let tracker = wink_agent::BudgetTracker::new(budget);
    let resources = match &prepared.loaded.subagents {
        // dispatch_subagent runs each child on the same model, spending from the run's budget.
        Some(_) => (prepared.resources.clone())
            .with(adapter.clone())
            .with(tracker.clone()),
        None => prepared.resources.clone(),
    };
    let config = MainLoopConfig {
        loop_config: LoopConfig {
            user_message: args.input.clone(),
            context_window: args.model.context_size,
            ..LoopConfig::default()
        },
        budget,
        // Unset: derived from the context window; `0` / `none`: unlimited.
        derive_input_budget: args.max_input_tokens.is_none(),
        resources,
        max_expansions: args.max_expansions,
        policy: settings.policy,
        opening_calls: opened.opening_calls.clone(),
    };
    let progress = Progress {
        verbose: args.verbose,
        started: Instant::now(),
    };
    let hooks = RunHooks {
        observer: Some(&progress),
        stream: settings.streaming.then_some(stream as &dyn StreamSink),
    };
    note!(
        "wink run: {} with {} ({})",
        args.prompt.file.display(),
        adapter.name(),
        adapter.model()
    );
    let main_loop = MainLoop::new(adapter.as_ref(), config);
    let budget = main_loop.budget();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start the async runtime: {e}"))?;
    let result = runtime
        .block_on(main_loop.execute_with(&prepared.prompt, &prepared.session, tracker, hooks))
        .map_err(|e| usage(format!("{}: {e}", args.prompt.file.display())))?;
    let spent = result.spent;
    note!(
        "[{:>6.1}s] done: {} model calls, {} tool calls, {} input tokens ({} cached), {} output tokens, {} restarts",
        progress.started.elapsed().as_secs_f64(),
        spent.model_calls,
        spent.tool_calls,
        spent.usage.input_tokens,
        spent.usage.cached_tokens,
        spent.usage.output_tokens,
        result.restarts
    );
    Ok((result, budget))
}

/// The prompt a session log records: ns, key and the sha256 of the prompt file.
fn prompt_identity(
    file: &std::path::Path,
    template: &wink_core::PromptTemplate,
) -> anyhow::Result<wink_session::PromptIdentity> {
    let sha256 = wink_local::sha256_file(file).map_err(|e| usage(e.to_string()))?;
    Ok(wink_session::PromptIdentity {
        ns: template.ns().to_owned(),
        key: template.key().to_owned(),
        sha256,
    })
}

/// Refuses to resume a log recorded for another prompt, unless `force`.
fn check_log_prompt(
    path: &std::path::Path,
    identity: &wink_session::PromptIdentity,
    force: bool,
) -> anyhow::Result<()> {
    let header = wink_store::read_header(path).map_err(|e| usage(format!("--session: {e}")))?;
    match header.prompt {
        Some(logged) if logged != *identity && !force => Err(usage(format!(
            "--session: {} was recorded for prompt {}:{} (sha256 {}), not {}:{} (sha256 {}); \
             use another log, or --force to resume it anyway",
            path.display(),
            logged.ns,
            logged.key,
            logged.sha256,
            identity.ns,
            identity.key,
            identity.sha256
        ))),
        _ => Ok(()),
    }
}

/// Refuses an output path that cannot be written, before the run does any work: its directory
/// must exist and accept a new file (probed with the temporary file the write will use).
fn check_writable(path: &std::path::Path) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!("{} is a directory", path.display()));
    }
    let probe = temporary_path(path);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|_| std::fs::remove_file(&probe))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn write_transcript(
    path: &std::path::Path,
    result: &wink_agent::RunResult,
    adapter: &dyn wink_agent::ProviderAdapter,
) -> anyhow::Result<()> {
    let spent = result.spent;
    {
        let calls: Vec<Value> = result
            .evaluations
            .iter()
            .flat_map(|e| e.model_calls.iter())
            .map(|c| {
                json!({
                    "messages": c.messages,
                    "tools": c.tools,
                    "usage": c.usage.unwrap_or_default(),
                    "started_at": c.started_at,
                    "ended_at": c.ended_at,
                })
            })
            .collect();
        let (text, output) = match &result.outcome {
            LoopOutcome::Finished { text, output } => (json!(text), json!(output)),
            LoopOutcome::Terminated { content, value, .. } => (json!(content), json!(value)),
            _ => (Value::Null, Value::Null),
        };
        let transcript = json!({
            "adapter": adapter.name(),
            "model": adapter.model(),
            "status": result.outcome,
            "model_calls": calls,
            "output": output,
            "text": text,
            "usage": spent.usage,
            "model_call_count": spent.model_calls,
            "tool_call_count": spent.tool_calls,
            "restarts": result.restarts,
            "provider_failure": result.provider_failure(),
        });
        let data = serde_json::to_string_pretty(&transcript)?;
        write_atomically(path, data.as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write transcript {}: {e}", path.display()))?;
    }
    Ok(())
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
                let status = failure
                    .status
                    .map(|s| format!(", HTTP {s}"))
                    .unwrap_or_default();
                note!(
                    "  provider: {}, model: {}{status}",
                    failure.provider,
                    failure.model
                );
                if let Some(body) = failure.raw_body {
                    note!("  provider body: {body}");
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

/// The temporary file a write of `path` goes through.
fn temporary_path(path: &std::path::Path) -> PathBuf {
    path.with_extension("tmp-wink")
}

fn write_atomically(path: &std::path::Path, data: &[u8]) -> std::io::Result<()> {
    let tmp = temporary_path(path);
    std::fs::write(&tmp, data)?;
    std::fs::rename(&tmp, path)
}
