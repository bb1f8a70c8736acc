//! `wink worker FILE --redis URL [--queue NAME] [--concurrency N] [--model SPEC]`: serve a
//! prompt file's requests from a Redis queue until stopped, with durable runs.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use clap::Args;
use wink_agent::{
    LoopConfig, MainLoopConfig, ModelRequest, ProviderAdapter, ProviderFuture, ScriptedProvider,
    StreamSink,
};
use wink_redis::{PreparedRun, RunFactory, RunRequest, WorkerConfig};
use wink_session::{Session, SessionId};

use super::common::{ModelFlags, PromptArgs};
use crate::exit::usage;

/// With this variable set to a file, a `scripted:PATH` model appends `REQUEST_ID TURN\n` to it
/// for every model call it answers (the fault test counts repeated calls with it).
pub const SCRIPTED_CALL_LOG: &str = "WINK_SCRIPTED_CALL_LOG";

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
    /// Budget: most model calls per run (default 16).
    #[arg(long, value_name = "N")]
    pub max_model_calls: Option<u32>,
}

/// The model a request runs with: a shared adapter, or a script replayed per request.
enum Model {
    Shared(Arc<dyn ProviderAdapter>),
    Script {
        script: ScriptedProvider,
        log: Option<PathBuf>,
    },
}

struct Factory {
    file: PathBuf,
    model: Model,
    context_size: Option<u64>,
    timeout: Option<Duration>,
    max_model_calls: Option<u32>,
}

impl RunFactory for Factory {
    fn prepare(
        &self,
        request_id: &str,
        request: &RunRequest,
        model_calls: u32,
    ) -> Result<PreparedRun, String> {
        let args = prompt_args(&self.file, request.params.as_ref())?;
        // The session's id is the request id: command tools see it as WINK_SESSION_ID.
        let session = match uuid::Uuid::parse_str(request_id) {
            Ok(id) => Session::builder().id(SessionId::from_uuid(id)).build(),
            Err(_) => Session::new(),
        };
        let prepared = args.prepare_in(session).map_err(|e| format!("{e:#}"))?;
        let adapter: Arc<dyn ProviderAdapter> = match &self.model {
            Model::Shared(adapter) => adapter.clone(),
            Model::Script { script, log } => {
                let start = usize::try_from(model_calls).unwrap_or(usize::MAX);
                Arc::new(ScriptRun {
                    script: script.replay_from(start),
                    request_id: request_id.to_owned(),
                    next_turn: AtomicUsize::new(start),
                    log: log.clone(),
                })
            }
        };
        let mut config = MainLoopConfig {
            loop_config: LoopConfig {
                user_message: request.input.clone(),
                context_window: self.context_size,
                ..LoopConfig::default()
            },
            // dispatch_subagent runs each child on the same model (the run's budget tracker is
            // in every tool's resources already).
            resources: match &prepared.loaded.subagents {
                Some(_) => prepared.resources.clone().with(adapter.clone()),
                None => prepared.resources.clone(),
            },
            ..MainLoopConfig::default()
        };
        if let Some(n) = self.max_model_calls {
            config.budget.max_model_calls = Some(n);
        }
        // Traced under the submitter's span; a takeover continues the run's span.
        wink_trace::trace_session_with(
            &prepared.session,
            wink_trace::TraceOptions {
                parent: request.traceparent,
                resumable: true,
            },
        );
        Ok(PreparedRun {
            prompt: prepared.prompt,
            session: prepared.session,
            adapter,
            config,
            timeout: self.timeout,
        })
    }
}

/// The prompt flags of a request: the worker's file with the request's params.
pub fn prompt_args(
    file: &std::path::Path,
    params: Option<&serde_json::Value>,
) -> Result<PromptArgs, String> {
    Ok(PromptArgs {
        file: file.to_owned(),
        params: params
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| e.to_string())?,
        expand: Vec::new(),
        summarize: Vec::new(),
        disclosure: None,
        name_hidden_tools: None,
        defer: None,
    })
}

/// One request's replay of a script (from the turn its earlier workers reached).
#[derive(Debug)]
struct ScriptRun {
    script: ScriptedProvider,
    request_id: String,
    next_turn: AtomicUsize,
    log: Option<PathBuf>,
}

static LOG_LOCK: Mutex<()> = Mutex::new(());

impl ProviderAdapter for ScriptRun {
    fn name(&self) -> &str {
        self.script.name()
    }
    fn model(&self) -> &str {
        self.script.model()
    }
    fn supports_dynamic_tools(&self) -> bool {
        self.script.supports_dynamic_tools()
    }
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        let turn = self.next_turn.fetch_add(1, Ordering::Relaxed);
        if let Some(path) = &self.log {
            let _guard = LOG_LOCK.lock().unwrap_or_else(PoisonError::into_inner);
            // One write per line: appends of several processes do not interleave.
            let line = format!("{} {turn}\n", self.request_id);
            let appended = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(line.as_bytes()));
            if let Err(e) = appended {
                tracing::warn!(path = %path.display(), error = %e, "cannot log a scripted call");
            }
        }
        self.script.complete(request, stream)
    }
}

fn seconds(flag: &str, value: f64) -> anyhow::Result<Duration> {
    if value.is_finite() && value > 0.0 && value <= super::common::MAX_TIMEOUT_SECONDS {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(usage(format!(
            "{flag} must be a positive number of seconds, not {value}"
        )))
    }
}

pub fn run(args: &WorkerArgs, stop: Arc<AtomicBool>) -> anyhow::Result<ExitCode> {
    // The file and the model are checked once, before serving anything.
    let prepared = prompt_args(&args.file, None).map_err(usage)?.prepare()?;
    let model = match args.model.model.strip_prefix("scripted:") {
        Some(path) => Model::Script {
            script: ScriptedProvider::from_file(&PathBuf::from(path))
                .map_err(|e| usage(e.to_string()))?
                .with_dynamic_tools(!args.model.no_dynamic_tools),
            log: std::env::var_os(SCRIPTED_CALL_LOG).map(PathBuf::from),
        },
        None => Model::Shared(super::common::build_model(
            &args.model.model,
            args.model.options(false, false),
            false,
            &prepared.loaded.template,
            &prepared.session,
        )?),
    };
    let mut config = WorkerConfig::new(
        args.queue.redis.clone(),
        args.queue.config(args.max_deliveries),
    );
    config.concurrency = args.concurrency.max(1);
    config.lease = seconds("--lease", args.lease)?;
    let factory = Arc::new(Factory {
        file: args.file.clone(),
        model,
        context_size: args.model.context_size,
        timeout: super::common::timeout_flag(args.timeout)?,
        max_model_calls: args.max_model_calls,
    });
    note!(
        "wink worker: {} on queue '{}' at {} ({} slots, consumer {})",
        args.file.display(),
        args.queue.queue,
        args.queue.redis,
        config.concurrency,
        config.consumer
    );
    let stats = wink_redis::run_worker(&config, factory, stop).map_err(anyhow::Error::msg)?;
    let (checkpoints, spent) = wink_redis::checkpoint_stats();
    let mean_us = if checkpoints == 0 {
        0
    } else {
        spent.as_micros() / u128::from(checkpoints)
    };
    note!(
        "wink worker: stopped: {} completed, {} resumed, {} skipped, {} released; {checkpoints} checkpoints, mean {mean_us} µs",
        stats.completed.load(Ordering::Relaxed),
        stats.resumed.load(Ordering::Relaxed),
        stats.skipped.load(Ordering::Relaxed),
        stats.released.load(Ordering::Relaxed),
    );
    Ok(ExitCode::SUCCESS)
}
