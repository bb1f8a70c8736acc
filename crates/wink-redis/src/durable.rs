//! Durable runs: the main loop, step by step, with a checkpoint in Redis after every step of the
//! driver (a model turn received, or the tool outcomes of a turn committed). A run taken over
//! after its worker died resumes from its last checkpoint: the model calls and tool calls that
//! checkpoint records are not made again (docs/deploy.md states the guarantee and its window).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_agent::{
    BudgetTracker, Driver, EvaluateOptions, InnerLoop, LoopOutcome, MainLoop, MainLoopConfig,
    ProviderAdapter, Spent, dispatch_expansion, too_many_expansions,
};
use wink_core::{Deadline, Prompt, PromptError};
use wink_session::Session;

use crate::mailbox::{RedisMailbox, RedisMailboxError, now_ms};

/// What a run's checkpoint holds: enough to continue it on another worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunCheckpoint {
    /// Driver steps taken over the whole run.
    pub steps: u64,
    /// Restarts (section expansions) made; the current evaluation is number `restarts`.
    pub restarts: u32,
    /// The current evaluation's loop state (conversation, pending calls, outcome).
    pub state: InnerLoop,
    /// The session's slices ([`wink_session::Snapshot::to_json`]).
    pub session: Value,
    /// What the run has spent (model calls, tool calls, tokens).
    pub spent: Spent,
    /// The run's wall-clock deadline, in milliseconds since the epoch: fixed when the run first
    /// started, so time already spent (and time between a crash and the takeover) counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
}

/// Why a durable run stopped without an outcome, or could not go on.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum DurableError {
    /// Redis failed (the run's last checkpoint stays; another worker can take it over).
    #[error(transparent)]
    Redis(#[from] RedisMailboxError),
    /// The prompt could not be rendered.
    #[error(transparent)]
    Render(#[from] PromptError),
    /// The checkpoint could not be encoded, or a stored one decoded or restored.
    #[error("checkpoint: {0}")]
    Checkpoint(String),
}

/// How a durable run ended.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum DurableEnd {
    /// The run ended (with an answer, or a failure, or out of budget).
    Finished {
        /// How.
        outcome: LoopOutcome,
        /// What it spent over all its workers.
        spent: Spent,
    },
    /// Another worker holds the request's lease now: this one stopped (its work is not lost:
    /// the checkpoints up to here stay).
    LeaseLost,
    /// The worker is stopping: the run stopped after a checkpoint, for another worker to resume.
    Stopped,
}

/// Signals between a worker and one of its runs.
#[derive(Debug, Default)]
pub struct RunControl {
    /// Set by the worker's heartbeat when the lease was lost.
    pub lease_lost: AtomicBool,
    /// Set when the worker is stopping (SIGTERM).
    pub stop: Arc<AtomicBool>,
}

static CHECKPOINTS: AtomicU64 = AtomicU64::new(0);
static CHECKPOINT_MICROS: AtomicU64 = AtomicU64::new(0);

/// Checkpoints written by this process and the time spent writing them (encode + round trip).
pub fn checkpoint_stats() -> (u64, Duration) {
    (
        CHECKPOINTS.load(Ordering::Relaxed),
        Duration::from_micros(CHECKPOINT_MICROS.load(Ordering::Relaxed)),
    )
}

/// A run's prompt, session, model and settings.
#[allow(missing_debug_implementations)]
pub struct DurableRun<'a> {
    /// The prompt (params bound).
    pub prompt: &'a Prompt,
    /// The run's session (a checkpoint is restored into it).
    pub session: &'a Session,
    /// The model.
    pub adapter: &'a dyn ProviderAdapter,
    /// Loop settings, budget (its deadline is ignored: see `timeout`) and resources.
    pub config: MainLoopConfig,
    /// The run's wall-clock limit, from its first start.
    pub timeout: Option<Duration>,
}

impl DurableRun<'_> {
    /// Run to the end, checkpointing after every driver step to the run's stream, resuming
    /// from `checkpoint` when given.
    ///
    /// # Errors
    /// Redis, render and checkpoint errors.
    pub async fn execute<T>(
        self,
        mailbox: &RedisMailbox<T>,
        request_id: &str,
        lease: Duration,
        checkpoint: Option<RunCheckpoint>,
        control: &RunControl,
    ) -> Result<DurableEnd, DurableError> {
        let main_loop = MainLoop::new(self.adapter, self.config.clone());
        let mut budget = main_loop.budget();
        let deadline_ms = match &checkpoint {
            Some(cp) => cp.deadline_ms,
            None => self
                .timeout
                .map(|t| now_ms().saturating_add(u64::try_from(t.as_millis()).unwrap_or(u64::MAX))),
        };
        budget.deadline = deadline_ms
            .map(|at| Deadline::after(Duration::from_millis(at.saturating_sub(now_ms()))));
        let (mut state, mut restarts, mut steps, spent) = match checkpoint {
            Some(cp) => {
                self.session
                    .restore_json(&cp.session)
                    .map_err(|e| DurableError::Checkpoint(e.to_string()))?;
                (Some(cp.state), cp.restarts, cp.steps, cp.spent)
            }
            None => (None, 0, 0, Spent::default()),
        };
        let tracker = BudgetTracker::resume(budget, spent);
        let mut decider = self.config.policy.decider();
        let mut replay = Vec::new();
        loop {
            let rendered = self.prompt.render_with(self.session)?;
            let options = EvaluateOptions {
                config: self.config.loop_config.clone(),
                budget: tracker.clone(),
                resources: self.config.resources.clone(),
                decider: Some(decider.as_mut()),
                replay: std::mem::take(&mut replay),
                ..EvaluateOptions::default()
            };
            let mut driver = match state.take() {
                Some(saved) => {
                    Driver::resume(saved, &rendered, self.session, self.adapter, options)
                }
                None => Driver::start(&rendered, self.session, self.adapter, options),
            };
            let outcome = loop {
                if control.stop.load(Ordering::Relaxed) {
                    return Ok(DurableEnd::Stopped);
                }
                let ended = driver.advance().await.cloned();
                steps += 1;
                let cp = RunCheckpoint {
                    steps,
                    restarts,
                    state: driver.state().clone(),
                    session: self
                        .session
                        .snapshot()
                        .to_json()
                        .map_err(|e| DurableError::Checkpoint(e.to_string()))?,
                    spent: tracker.spent(),
                    deadline_ms,
                };
                if control.lease_lost.load(Ordering::Relaxed)
                    || !save(mailbox, request_id, &cp, lease).await?
                {
                    return Ok(DurableEnd::LeaseLost);
                }
                if let Some(outcome) = ended {
                    break outcome;
                }
            };
            let LoopOutcome::ExpansionRequired {
                requested_overrides,
                reason,
                ..
            } = &outcome
            else {
                return Ok(DurableEnd::Finished {
                    outcome,
                    spent: tracker.spent(),
                });
            };
            if restarts >= self.config.max_expansions {
                return Ok(DurableEnd::Finished {
                    outcome: too_many_expansions(self.config.max_expansions),
                    spent: tracker.spent(),
                });
            }
            replay = driver.state().replay_calls().to_vec();
            dispatch_expansion(self.session, requested_overrides, reason);
            restarts += 1;
        }
    }
}

/// Attempts of [`with_retries`], 100 ms apart: a Redis restart or fail-over of a few seconds
/// does not cut off the runs in flight.
const ATTEMPTS: u32 = 30;

/// Runs `operation` again while it fails for a Redis reason (the connection reconnects by
/// itself). Every operation retried this way is idempotent: a checkpoint appended twice is the
/// same checkpoint; a result published twice is refused the second time.
///
/// # Errors
/// The last error.
pub async fn with_retries<T, F, Fut>(mut operation: F) -> Result<T, RedisMailboxError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, RedisMailboxError>>,
{
    let mut attempt = 1;
    loop {
        match operation().await {
            Err(RedisMailboxError::Redis {
                operation: op,
                source,
            }) if attempt < ATTEMPTS => {
                tracing::warn!(operation = op, error = %source, attempt, "redis failed; retrying");
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => return other,
        }
    }
}

async fn save<T>(
    mailbox: &RedisMailbox<T>,
    request_id: &str,
    checkpoint: &RunCheckpoint,
    lease: Duration,
) -> Result<bool, DurableError> {
    let started = Instant::now();
    let json =
        serde_json::to_string(checkpoint).map_err(|e| DurableError::Checkpoint(e.to_string()))?;
    let held = with_retries(|| mailbox.checkpoint(request_id, &json, lease)).await?;
    CHECKPOINTS.fetch_add(1, Ordering::Relaxed);
    CHECKPOINT_MICROS.fetch_add(
        u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        Ordering::Relaxed,
    );
    Ok(held)
}

/// The last checkpoint of the run of `request_id`, decoded.
///
/// # Errors
/// Redis errors; a checkpoint that does not decode.
pub async fn load_checkpoint<T>(
    mailbox: &RedisMailbox<T>,
    request_id: &str,
) -> Result<Option<RunCheckpoint>, DurableError> {
    match mailbox.last_checkpoint(request_id).await? {
        None => Ok(None),
        Some(json) => serde_json::from_str(&json)
            .map(Some)
            .map_err(|e| DurableError::Checkpoint(format!("run {request_id}: {e}"))),
    }
}
