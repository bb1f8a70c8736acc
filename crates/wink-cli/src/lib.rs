//! The `wink` command line: its arguments ([`Cli`]) and what each subcommand does
//! ([`main`]). The binary is `src/main.rs`; the arguments are a library so that tests can
//! parse command lines (every `wink` line the docs show) without running them.

#[macro_use]
mod output;
mod cmd;
mod exit;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use cmd::run::RunArgs;

/// Build, inspect and run LLM agents whose prompts disclose themselves progressively.
#[derive(Debug, Parser)]
#[command(name = "wink", version, about, long_about = None)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render a prompt file to its prompt text (or JSON with tools and token counts).
    Render(cmd::render::RenderArgs),
    /// Run one tool of a rendered prompt file and print its result as JSON.
    Call(cmd::call::CallArgs),
    /// Run a prompt file with a model until it answers (progress on stderr, answer on stdout).
    Run(Box<cmd::run::RunArgs>),
    /// Run a prompt file over a JSON Lines file of cases: pass rate, tokens, model calls, time.
    Eval(Box<cmd::eval::EvalArgs>),
    /// Inspect session logs.
    Session(cmd::session::SessionArgs),
    /// Tool catalogs: search quality (`eval`) and token footprint (`tokens`).
    Catalog(cmd::catalog::CatalogArgs),
    /// A tool catalog's meta-tools (list, describe, search) over a JSON tool list or an MCP server.
    Tools(cmd::tools::ToolsArgs),
    /// Serve a prompt file to MCP clients (Claude Code, the Claude Agent SDK, ...).
    Mcp(cmd::mcp::McpArgs),
    /// Agent Skills (SKILL.md folders): list them with token counts, or validate them.
    Skills(cmd::skills::SkillsArgs),
    /// The embedded local model: fetch it, or show where it is cached.
    Model(cmd::local_model::ModelArgs),
    /// Serve a prompt file's requests from a Redis queue with durable runs, until stopped
    /// (SIGTERM: in-flight runs stop after their current step and are handed back).
    Worker(Box<cmd::worker::WorkerArgs>),
    /// Send a request to a Redis queue: prints its id, or with --wait its result.
    Submit(cmd::queue::SubmitArgs),
    /// One request's result: {"request_id", "status", "text", "output", "usage"}.
    Result(cmd::queue::ResultArgs),
    /// A Redis queue's counts.
    Queue(cmd::queue::QueueArgs),
    /// A folder of Markdown, HTML or plain-text documents as a prompt file of summarized
    /// sections, grouped by folder and heading.
    DocsToPrompt(cmd::docs::DocsArgs),
    /// See a recorded run: a terminal tree, a local page, or an OTLP/JSON file.
    Trace(cmd::trace::TraceArgs),
}

/// [`Cli`] with the `render` subcommand alone: what `wink render ...` is parsed with, so that
/// clap builds the arguments of one subcommand rather than of all of them (building them all
/// took about 0.5 M instructions of a render's start). A test checks that `render` reads alike in
/// both: help, arguments and errors.
#[derive(Debug, Parser)]
#[command(name = "wink", version, about, long_about = None)]
pub struct RenderOnly {
    /// `render`.
    #[command(subcommand)]
    pub command: RenderCommand,
}

/// The one subcommand of [`RenderOnly`].
#[derive(Debug, Subcommand)]
pub enum RenderCommand {
    /// Render a prompt file to its prompt text (or JSON with tools and token counts).
    Render(cmd::render::RenderArgs),
}

/// The command line parsed by [`RenderOnly`] when its first argument is `render`, else `None`.
/// Errors and `--help` are reported (and the process exits) as [`Cli::parse`] does.
fn parse_render_only() -> Option<Cli> {
    if std::env::args_os()
        .nth(1)
        .is_none_or(|first| first != "render")
    {
        return None;
    }
    let RenderOnly {
        command: RenderCommand::Render(args),
    } = RenderOnly::parse();
    Some(Cli {
        command: Command::Render(args),
    })
}

/// Parses the process's arguments, runs the subcommand and gives the exit code.
#[must_use]
pub fn main() -> ExitCode {
    init_tracing();
    wink_providers::install_crypto_provider();
    let cli = parse_render_only().unwrap_or_else(Cli::parse);
    // OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set: flushed when this guard drops, and on
    // SIGINT / SIGTERM by the signal handlers below.
    let otel = start_otel();
    if matches!(
        cli.command,
        Command::Call(_) | Command::Run(_) | Command::Eval(_)
    ) || (otel.is_some() && matches!(cli.command, Command::Mcp(_)))
    {
        wink_run::signals::exit_on_signals(say);
    }
    let outcome = match cli.command {
        Command::Render(args) => cmd::render::run(&args),
        Command::Call(args) => cmd::call::run(&args),
        Command::Run(args) => cmd::run::run(&args),
        Command::Eval(args) => cmd::eval::run(&args),
        Command::Model(args) => cmd::local_model::run(&args),
        Command::Session(args) => cmd::session::run(&args),
        Command::Catalog(args) => cmd::catalog::run(&args),
        Command::Tools(args) => cmd::tools::run(&args),
        Command::Mcp(args) => cmd::mcp::run(&args),
        Command::Skills(args) => cmd::skills::run(&args),
        Command::Worker(args) => {
            cmd::worker::run(&args, wink_run::signals::stop_flag_on_signals(say))
        }
        Command::Submit(args) => cmd::queue::submit(&args),
        Command::Result(args) => cmd::queue::result(&args),
        Command::Queue(args) => cmd::queue::run(&args),
        Command::DocsToPrompt(args) => cmd::docs::run(&args),
        Command::Trace(args) => cmd::trace::run(&args),
    };
    drop(otel);
    match outcome {
        Ok(code) => code,
        Err(error) => {
            note!("error: {error:#}");
            exit::code_for(&error)
        }
    }
}

/// The OTLP exporter, when the environment asks for one; a configuration it cannot use is a
/// warning, never a failed command.
fn start_otel() -> Option<wink_trace::ExportGuard> {
    wink_trace::init_from_env().unwrap_or_else(|error| {
        tracing::warn!("{error}; spans are not exported");
        None
    })
}

/// Log to stderr, filtered by `WINK_LOG` (e.g. `WINK_LOG=info`); warnings by default, but only
/// errors from llama.cpp, whose load-time warnings are about the model file and not the user's to
/// act on (Qwen2.5-Coder's GGUF: "control-looking token: 128247 '</s>' was not control-type" on
/// every run), and nothing from the MCP SDK, whose failures wink reports itself, naming the
/// server (its own lines print Rust types: `worker quit with fatal: Transport channel closed`).
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("WINK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,llama-cpp-2=error,rmcp=off"));
    // Written through the same escaping as every other line on stderr (so without colours):
    // logged text comes from servers, files and models too.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| output::LogWriter)
        .with_ansi(false)
        .without_time()
        .try_init();
}

/// Prints a line of the signal watcher (`wink_run::signals`).
fn say(line: &str) {
    note!("{line}");
}
