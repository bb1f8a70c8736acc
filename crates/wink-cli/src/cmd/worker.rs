//! `wink worker FILE --redis URL [--queue NAME] [--concurrency N] [--model SPEC]`: serve a
//! prompt file's requests from a Redis queue until stopped, with durable runs.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use clap::Args;
use wink_agent::Budget;
use wink_redis::WorkerConfig;
use wink_run::settings::Limit;
use wink_run::worker::WorkerRuns;
use wink_run::{PromptSpec, RunSettings};

use super::common::{ModelFlags, run_error};

/// `wink worker`
#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The prompt file every request runs.
    pub file: PathBuf,
    #[command(flatten)]
    pub queue: super::queue::QueueFlags,
    /// Runs at once (one thread each).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub concurrency: usize,
    #[command(flatten)]
    pub model: ModelFlags,
    /// Seconds a request stays leased to this worker without a checkpoint or heartbeat; a
    /// worker that died is taken over after this long.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub lease: f64,
    /// Deliveries before a request goes to the dead-letter stream.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub max_deliveries: u32,
    /// Wall-clock limit of each run in seconds, from its first start (a takeover keeps it).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Budget: most model calls per run (default 16; 0 or none: unlimited).
    #[arg(long, value_name = "N", value_parser = super::common::parse_limit)]
    pub max_model_calls: Option<Limit>,
    /// The largest request (its JSON) run; a larger one is dead-lettered unread.
    #[arg(long, value_name = "BYTES", default_value_t = wink_redis::DEFAULT_MAX_REQUEST_BYTES)]
    pub max_request_bytes: usize,
}

pub fn run(args: &WorkerArgs, stop: Arc<AtomicBool>) -> anyhow::Result<ExitCode> {
    let defaults = RunSettings::default();
    let settings = args.model.turn_settings(RunSettings {
        context_window: args.model.context_size,
        budget: Budget {
            max_model_calls: args
                .max_model_calls
                .map_or(defaults.budget.max_model_calls, Limit::calls),
            ..defaults.budget
        },
        timeout: wink_run::settings::timeout(args.timeout).map_err(run_error)?,
        ..defaults
    });
    // The file and the model are checked once, before serving anything.
    let runs = args.model.with_model_fetch(|| {
        WorkerRuns::new(
            PromptSpec::file(&args.file),
            &args.model.model,
            args.model.options(false, false),
            settings.clone(),
        )
    })?;
    let mut config = WorkerConfig::new(
        args.queue.redis.clone(),
        args.queue.config(args.max_deliveries)?,
    );
    config.concurrency = args.concurrency.max(1);
    config.queue.max_request_bytes = args.max_request_bytes;
    config.lease = wink_run::settings::seconds("--lease", args.lease).map_err(run_error)?;
    let factory = Arc::new(runs);
    note!(
        "wink worker: {} on queue '{}' at {} ({} slots, consumer {})",
        args.file.display(),
        args.queue.queue,
        args.queue.redis,
        config.concurrency,
        config.consumer
    );
    let stats = wink_redis::run_worker(&config, factory, stop).map_err(anyhow::Error::msg)?;
    note!("wink worker: stopped: {stats}");
    Ok(ExitCode::SUCCESS)
}
