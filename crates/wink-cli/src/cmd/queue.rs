//! `wink submit`, `wink result` and `wink queue stats`: the client side of a Redis queue that
//! `wink worker` serves.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::json;
use wink_agent::AsyncMailbox;
use wink_redis::{QueueConfig, RedisMailbox, RequestResult, RequestStatus, RunRequest};
use wink_run::worker::run_request;

use crate::exit::usage;
use crate::output::Format;

/// Where the queue is.
#[derive(Debug, Args)]
pub struct QueueFlags {
    /// The Redis (or Valkey) server, e.g. redis://127.0.0.1:6379/0.
    #[arg(long, value_name = "URL")]
    pub redis: String,
    /// The queue's name.
    #[arg(long, value_name = "NAME", default_value = "wink")]
    pub queue: String,
}

impl QueueFlags {
    /// The queue's settings (a bad queue name is a usage error).
    pub fn config(&self, max_deliveries: u32) -> anyhow::Result<QueueConfig> {
        wink_redis::check_queue_name(&self.queue)
            .map_err(|e| usage(format!("--queue '{}': {e}", self.queue)))?;
        let mut config = QueueConfig::new(self.queue.clone());
        config.max_deliveries = max_deliveries.max(1);
        Ok(config)
    }
}

/// `wink submit FILE --redis URL [--queue NAME] [--params JSON] [--input TEXT] [--wait] [--format json]`
#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// The prompt file (checked with the params before the request is sent; the workers run
    /// their own copy).
    pub file: PathBuf,
    #[command(flatten)]
    pub queue: QueueFlags,
    /// Params as JSON: params type name → field values.
    #[arg(long, value_name = "JSON")]
    pub params: Option<String>,
    /// A user message after the system prompt.
    #[arg(long, value_name = "TEXT")]
    pub input: Option<String>,
    /// The largest request (its JSON) the queue takes; larger ones are refused (the workers
    /// must take it too: give them the same flag).
    #[arg(long, value_name = "BYTES", default_value_t = wink_redis::DEFAULT_MAX_REQUEST_BYTES)]
    pub max_request_bytes: usize,
    /// Wait for the result and print it instead of the request id.
    #[arg(long)]
    pub wait: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `wink result REQUEST_ID --redis URL [--queue NAME] [--wait] [--format json]`
#[derive(Debug, Args)]
pub struct ResultArgs {
    /// The id `wink submit` printed.
    pub request_id: String,
    #[command(flatten)]
    pub queue: QueueFlags,
    /// Wait until the request has a result.
    #[arg(long)]
    pub wait: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `wink queue ...`
#[derive(Debug, Args)]
pub struct QueueArgs {
    #[command(subcommand)]
    pub command: QueueCommand,
}

/// Queue subcommands.
#[derive(Debug, Subcommand)]
pub enum QueueCommand {
    /// Request counts: pending, in_flight, dead_lettered, done.
    Stats(StatsArgs),
}

/// `wink queue stats --redis URL [--queue NAME] [--format json]`
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub queue: QueueFlags,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// How often `--wait` asks for the result.
const POLL: Duration = Duration::from_millis(100);

fn block_on<F: std::future::Future>(future: F) -> anyhow::Result<F::Output> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start the async runtime: {e}"))?;
    Ok(runtime.block_on(future))
}

async fn connect(
    flags: &QueueFlags,
    max_request_bytes: usize,
) -> anyhow::Result<RedisMailbox<RunRequest>> {
    let mut config = flags.config(1)?;
    config.max_request_bytes = max_request_bytes;
    RedisMailbox::connect(&flags.redis, config)
        .await
        .map_err(|e| match e {
            wink_redis::RedisMailboxError::Url { .. }
            | wink_redis::RedisMailboxError::QueueName { .. } => usage(e.to_string()),
            other => anyhow::anyhow!("{other}"),
        })
}

pub fn submit(args: &SubmitArgs) -> anyhow::Result<ExitCode> {
    let request = RunRequest {
        // The run continues this trace on the worker (TRACEPARENT, or a `send` span exported here).
        traceparent: wink_trace::submit_span(&args.queue.queue),
        ..run_request(&args.file, args.params.as_deref(), args.input.clone())
            .map_err(super::common::run_error)?
    };
    block_on(async {
        let mailbox = connect(&args.queue, args.max_request_bytes).await?;
        let id = mailbox.send(request).await.map_err(|e| match e {
            wink_redis::RedisMailboxError::TooLarge { .. } => usage(e.to_string()),
            other => anyhow::anyhow!("{other}"),
        })?;
        if !args.wait {
            let line = match args.format {
                Format::Text => id,
                Format::Json => json!({ "request_id": id }).to_string(),
            };
            crate::output::println(&line)?;
            return Ok(ExitCode::SUCCESS);
        }
        let result = mailbox
            .wait_result(&id, POLL)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        print_result(&result, args.format)
    })?
}

pub fn result(args: &ResultArgs) -> anyhow::Result<ExitCode> {
    wink_redis::check_request_id(&args.request_id)
        .map_err(|e| usage(format!("REQUEST_ID: {e}")))?;
    block_on(async {
        let mailbox = connect(&args.queue, wink_redis::DEFAULT_MAX_REQUEST_BYTES).await?;
        let result = if args.wait {
            mailbox.wait_result(&args.request_id, POLL).await
        } else {
            mailbox.result(&args.request_id).await
        }
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        print_result(&result, args.format)
    })?
}

/// Prints a result; the exit code is 0 for `done` and `pending`, 1 for `failed`,
/// `dead_lettered` and `unknown`.
fn print_result(result: &RequestResult, format: Format) -> anyhow::Result<ExitCode> {
    match format {
        Format::Json => crate::output::println(&serde_json::to_string(result)?)?,
        Format::Text => match result.status {
            RequestStatus::Done => match (&result.output, &result.text) {
                (Some(output), _) => {
                    crate::output::println(&serde_json::to_string_pretty(output)?)?;
                }
                (None, text) => crate::output::println(text.as_deref().unwrap_or(""))?,
            },
            RequestStatus::Pending => note!("request {} is pending", result.request_id),
            RequestStatus::Unknown => note!(
                "error: request {} is unknown: {}",
                result.request_id,
                result.text.as_deref().unwrap_or("")
            ),
            _ => note!(
                "error: request {} {}: {}",
                result.request_id,
                result.status.as_str(),
                result.text.as_deref().unwrap_or("")
            ),
        },
    }
    Ok(match result.status {
        RequestStatus::Failed | RequestStatus::DeadLettered | RequestStatus::Unknown => {
            ExitCode::from(crate::exit::FAILURE)
        }
        _ => ExitCode::SUCCESS,
    })
}

pub fn run(args: &QueueArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        QueueCommand::Stats(stats) => self::stats(stats),
    }
}

fn stats(args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let stats = block_on(async {
        let mailbox = connect(&args.queue, wink_redis::DEFAULT_MAX_REQUEST_BYTES).await?;
        mailbox.stats().await.map_err(|e| anyhow::anyhow!("{e}"))
    })??;
    let text = match args.format {
        Format::Json => serde_json::to_string(&stats)?,
        Format::Text => format!(
            "pending: {}\nin_flight: {}\ndead_lettered: {}\ndone: {}",
            stats.pending, stats.in_flight, stats.dead_lettered, stats.done
        ),
    };
    crate::output::println(&text)?;
    Ok(ExitCode::SUCCESS)
}
