//! The runs of `wink worker`: each request of a Redis queue prepared as any other run (the
//! request's params and input, pre-opening, catalogs decided for the model's window, budgets).

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use wink_agent::{ModelRequest, ProviderAdapter, ProviderFuture, ScriptedProvider, StreamSink};
use wink_redis::{RunFactory, RunRequest};
use wink_session::{Session, SessionId};

use crate::error::{Result, RunError};
use crate::model::ModelOptions;
use crate::prepared::{PreparedRun, RunSettings};
use crate::prompt::PromptSpec;

/// With this variable set to a file, a `scripted:PATH` model appends `REQUEST_ID TURN\n` to it
/// for every model call it answers (the fault test counts repeated calls with it).
pub const SCRIPTED_CALL_LOG: &str = "WINK_SCRIPTED_CALL_LOG";

/// The model a request runs with: a shared adapter, or a script replayed per request.
#[derive(Debug)]
enum Model {
    Shared(Arc<dyn ProviderAdapter>),
    Script {
        script: ScriptedProvider,
        log: Option<PathBuf>,
    },
}

/// Builds each request's run: the worker's prompt file with the request's params and input.
#[derive(Debug)]
pub struct WorkerRuns {
    prompt: PromptSpec,
    model: Model,
    settings: RunSettings,
}

impl WorkerRuns {
    /// Checks the prompt file and builds the model once, before serving anything. A
    /// `scripted:PATH` model replays its script for every request, from the turn the request's
    /// earlier workers reached.
    ///
    /// # Errors
    /// [`RunError::Usage`] for a bad prompt file or model.
    pub fn new(
        prompt: PromptSpec,
        model_spec: &str,
        model_options: ModelOptions,
        mut settings: RunSettings,
    ) -> Result<Self> {
        let prepared = prompt.load()?;
        let model = match model_spec.strip_prefix("scripted:") {
            Some(path) => Model::Script {
                script: ScriptedProvider::from_file(&PathBuf::from(path))
                    .map_err(|e| RunError::usage(e.to_string()))?
                    .with_dynamic_tools(!model_options.no_dynamic_tools),
                log: std::env::var_os(SCRIPTED_CALL_LOG).map(PathBuf::from),
            },
            None => Model::Shared(crate::model::build_model(
                model_spec,
                model_options,
                false,
                &prepared.loaded.template,
                &prepared.session,
            )?),
        };
        if settings.model_spec.is_empty() {
            model_spec.clone_into(&mut settings.model_spec);
        }
        Ok(Self {
            prompt,
            model,
            settings,
        })
    }

    fn adapter(&self, request_id: &str, model_calls: u32) -> Arc<dyn ProviderAdapter> {
        match &self.model {
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
        }
    }
}

/// A request for a queue that `wink worker FILE` serves: `params` (JSON text) and `input`
/// checked against the prompt file first, so bad params fail on the sender, not on a worker.
/// The request continues no trace (`traceparent` is the sender's to set).
///
/// # Errors
/// [`RunError::Usage`] when `params` is not JSON or does not bind, or the file does not load.
pub fn run_request(
    file: &std::path::Path,
    params: Option<&str>,
    input: Option<String>,
) -> Result<RunRequest> {
    let params = params.map(PromptSpec::params_json).transpose()?;
    PromptSpec {
        params: params.clone(),
        ..PromptSpec::file(file)
    }
    .load()?;
    Ok(RunRequest {
        params,
        input,
        traceparent: None,
    })
}

impl RunFactory for WorkerRuns {
    fn prepare(
        &self,
        request_id: &str,
        request: &RunRequest,
        model_calls: u32,
    ) -> Result<wink_redis::PreparedRun, String> {
        let mut prompt = self.prompt.clone();
        prompt.params.clone_from(&request.params);
        // The session's id is the request id: command tools see it as WINK_SESSION_ID.
        let session = match uuid::Uuid::parse_str(request_id) {
            Ok(id) => Session::builder().id(SessionId::from_uuid(id)).build(),
            Err(_) => Session::new(),
        };
        // Continues the submitter's trace; a takeover continues the run's span.
        crate::trace::attach_queued(&session, request.traceparent);
        let prepared = prompt.load_in(session).map_err(|e| e.to_string())?;
        let mut settings = self.settings.clone();
        settings.input.clone_from(&request.input);
        let run = PreparedRun::new(prepared, self.adapter(request_id, model_calls), &settings)
            .map_err(|e| e.to_string())?;
        let config = run.loop_config(None);
        Ok(wink_redis::PreparedRun {
            prompt: run.prompt.prompt,
            session: run.prompt.session,
            adapter: run.adapter,
            config,
            timeout: run.timeout,
        })
    }
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
