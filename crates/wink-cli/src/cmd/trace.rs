//! `wink trace show|serve|export`: a recorded run (a session log, a transcript, a Redis request)
//! as a terminal tree, a local page, or an OTLP/JSON file. The spans are those live export
//! sends (`wink-trace`'s one mapping).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use wink_trace::page::{PageRun, PageServer};
use wink_trace::{MapOptions, read};

use crate::exit::usage;

/// `wink trace ...`
#[derive(Debug, Args)]
pub struct TraceArgs {
    #[command(subcommand)]
    pub command: TraceCommand,
}

/// Trace subcommands.
#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// Print a run as a tree: run, model calls, tools, with tokens and seconds per line.
    Show(ShowArgs),
    /// Serve a page of one or more runs on 127.0.0.1: timeline, section tree per call, tokens.
    Serve(ServeArgs),
    /// Write a run's spans as a file any OTLP tool can import.
    Export(ExportArgs),
}

/// Where recorded runs come from.
#[derive(Debug, Args)]
pub struct Sources {
    /// Session logs (`wink run --session`), transcripts (`wink run --transcript`) or
    /// directories of them (`wink eval --sessions DIR`); with --redis, request ids.
    #[arg(value_name = "RUN")]
    pub runs: Vec<String>,
    /// A session log.
    #[arg(long, value_name = "LOG.jsonl")]
    pub session: Vec<PathBuf>,
    /// A transcript.
    #[arg(long, value_name = "FILE.json")]
    pub transcript: Vec<PathBuf>,
    /// Read RUN as the id of a request on this Redis server (its durable run's stream).
    #[arg(long, value_name = "URL")]
    pub redis: Option<String>,
    /// The queue of the requests (with --redis).
    #[arg(long, value_name = "NAME", default_value = "wink", requires = "redis")]
    pub queue: String,
}

/// `wink trace show RUN...`
#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub sources: Sources,
}

/// `wink trace serve RUN... [--port N]`
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub sources: Sources,
    /// The port on 127.0.0.1 (0: any free port).
    #[arg(long, value_name = "N", default_value_t = 7410)]
    pub port: u16,
}

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// OTLP/JSON (an `ExportTraceServiceRequest`).
    #[value(name = "otlp-json")]
    OtlpJson,
}

/// `wink trace export RUN [--format otlp-json] [--output FILE]`
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub sources: Sources,
    /// The file format.
    #[arg(long, value_enum, default_value = "otlp-json")]
    pub format: ExportFormat,
    /// Write here instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(args: &TraceArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        TraceCommand::Show(show) => {
            let runs = show.sources.load(&content_for_viewing())?;
            let text: Vec<String> = runs
                .iter()
                .map(|run| format!("{}\n{}", run.label, wink_trace::show::render(&run.spans)))
                .collect();
            crate::output::println(text.join("\n").trim_end())?;
            Ok(ExitCode::SUCCESS)
        }
        TraceCommand::Serve(serve) => {
            let runs = serve.sources.load(&content_for_viewing())?;
            let server = PageServer::bind(serve.port, &runs).map_err(|e| {
                usage(format!(
                    "--port {}: cannot listen on 127.0.0.1: {e}",
                    serve.port
                ))
            })?;
            let addr = server.addr()?;
            note!(
                "wink trace: {} run file{} on http://{addr}/ (Ctrl-C to stop)",
                runs.len(),
                if runs.len() == 1 { "" } else { "s" }
            );
            server.serve();
            Ok(ExitCode::SUCCESS)
        }
        TraceCommand::Export(export) => {
            let runs = export.sources.load(&MapOptions::from_env())?;
            let spans: Vec<_> = runs.into_iter().flat_map(|r| r.spans).collect();
            let service = std::env::var("OTEL_SERVICE_NAME").unwrap_or_else(|_| "wink".to_owned());
            let text = serde_json::to_string(&wink_trace::otlp_json::request(&spans, &service))?;
            match &export.output {
                Some(path) => std::fs::write(path, text + "\n")
                    .map_err(|e| usage(format!("--output {}: {e}", path.display())))?,
                None => crate::output::println(&text)?,
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `show` and `serve` put a run's content on its spans (the recording is the user's own, read
/// on this machine); secrets of the environment are still blanked out. `export` follows
/// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, as live export does.
fn content_for_viewing() -> MapOptions {
    MapOptions {
        capture_content: true,
        ..MapOptions::from_env()
    }
}

impl Sources {
    /// The runs these flags name; one that cannot be read is a bad argument (exit 2).
    fn load(&self, options: &MapOptions) -> anyhow::Result<Vec<PageRun>> {
        let recordings = read::Recordings {
            runs: self.runs.clone(),
            sessions: self.session.clone(),
            transcripts: self.transcript.clone(),
            redis: self.redis.clone(),
            queue: self.queue.clone(),
        };
        recordings.load(options).map_err(|e| usage(e.to_string()))
    }
}
