//! Durable runs: the main loop, step by step, with a checkpoint in Redis after every step of the
//! driver (a model turn received, or the tool outcomes of a turn committed): the session events
//! of the step and the loop state, appended to the run's stream ([`crate::run_log`]). A run
//! taken over after its worker died replays the session events and resumes from its last
//! checkpoint: the model calls and tool calls that checkpoint records are not made again
//! (docs/deploy.md states the guarantee and its window).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use wink_agent::{
    BudgetTracker, Driver, EvaluateOptions, InnerLoop, LoopOutcome, MainLoop, MainLoopConfig,
    ProviderAdapter, Spent, dispatch_expansion, too_many_expansions,
};
use wink_core::{Deadline, Prompt, PromptError, SectionPath};
use wink_session::{Journal, LogRecord, Session};

use crate::mailbox::{RedisMailbox, RedisMailboxError, RunEntry, now_ms};
use crate::run_log::{BASE_EVERY, EventBuffer, chain_records, rebase, resume_point};

/// What a run's checkpoint holds: enough to continue it on another worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunCheckpoint {
    /// Driver steps taken over the whole run.
    pub steps: u64,
    /// Restarts (section expansions) made; the current evaluation is number `restarts`.
    pub restarts: u32,
    /// The current evaluation's loop state (conversation, pending calls, outcome).
    pub state: InnerLoop,
    /// What the run has spent (model calls, tool calls, tokens).
    pub spent: Spent,
    /// The run's wall-clock deadline, in milliseconds since the epoch: fixed when the run first
    /// started, so time already spent (and time between a crash and the takeover) counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    /// Sections the expansion policy holds back so far (a batched policy's batch).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<SectionPath>,
}

/// A run's progress as stored: its last checkpoint, and the session's log records up to it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    /// The last checkpoint.
    pub checkpoint: RunCheckpoint,
    /// The session's records from the last base entry to the checkpoint: replayed into a
    /// freshly prepared session, they give the session the checkpoint was written with.
    pub events: Vec<LogRecord>,
    /// Entries written after a gap in the steps were left out (writes lost in a Redis
    /// fail-over); the run's next entry is a base.
    pub gap: bool,
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
    /// from `stored` when given (its events are replayed into `session`, which must be
    /// prepared as for a fresh run).
    ///
    /// # Errors
    /// Redis, render and checkpoint errors.
    pub async fn execute<T>(
        self,
        mailbox: &RedisMailbox<T>,
        request_id: &str,
        lease: Duration,
        stored: Option<StoredRun>,
        control: &RunControl,
    ) -> Result<DurableEnd, DurableError> {
        let main_loop = MainLoop::new(self.adapter, self.config.clone());
        let mut budget = main_loop.budget();
        let deadline_ms = match &stored {
            Some(run) => run.checkpoint.deadline_ms,
            None => self
                .timeout
                .map(|t| now_ms().saturating_add(u64::try_from(t.as_millis()).unwrap_or(u64::MAX))),
        };
        budget.deadline = deadline_ms
            .map(|at| Deadline::after(Duration::from_millis(at.saturating_sub(now_ms()))));
        let mut decider = self.config.policy.decider();
        let journal = JournalAttached::new(self.session, request_id, stored.as_ref())?;
        let mut writer = EntryWriter {
            mailbox,
            request_id,
            lease,
            journal: &journal,
            base_next: stored.as_ref().is_none_or(|run| run.gap),
        };
        let (mut state, mut restarts, mut steps, spent) = match stored {
            Some(run) => {
                let cp = run.checkpoint;
                decider.hold(cp.held);
                (Some(cp.state), cp.restarts, cp.steps, cp.spent)
            }
            None => (None, 0, 0, Spent::default()),
        };
        let tracker = BudgetTracker::resume(budget, spent);
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
                    spent: tracker.spent(),
                    deadline_ms,
                    held: driver.held_sections(),
                };
                if control.lease_lost.load(Ordering::Relaxed) || !writer.save(&cp).await? {
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

/// A durable run's session with its [`EventBuffer`] attached as the journal (after replaying
/// the stored events into it); detached again when the run stops.
struct JournalAttached<'s> {
    session: &'s Session,
    buffer: Arc<EventBuffer>,
}

impl<'s> JournalAttached<'s> {
    fn new(
        session: &'s Session,
        request_id: &str,
        stored: Option<&StoredRun>,
    ) -> Result<Self, DurableError> {
        let mut seq = 0;
        if let Some(run) = stored {
            for record in &run.events {
                session.replay_record(record).map_err(|e| {
                    DurableError::Checkpoint(format!(
                        "run {request_id}: session record {} ({}): {e}",
                        record.seq, record.type_name
                    ))
                })?;
                seq = record.seq;
            }
        }
        let buffer = EventBuffer::after(seq);
        session.resume_journal(Arc::clone(&buffer) as Arc<dyn Journal>);
        Ok(Self { session, buffer })
    }
}

impl Drop for JournalAttached<'_> {
    fn drop(&mut self) {
        self.session.detach_journal();
    }
}

/// Appends a run's entries: the step's session records and its checkpoint, or a base.
struct EntryWriter<'a, 'j, T> {
    mailbox: &'a RedisMailbox<T>,
    request_id: &'a str,
    lease: Duration,
    journal: &'j JournalAttached<'j>,
    /// The next entry must be a base (the run's first, or the first after a gap).
    base_next: bool,
}

impl<T> EntryWriter<'_, '_, T> {
    /// Append the entry of `checkpoint`'s step. `false` when the lease was lost.
    async fn save(&mut self, checkpoint: &RunCheckpoint) -> Result<bool, DurableError> {
        let started = Instant::now();
        let base = self.base_next || checkpoint.steps.is_multiple_of(BASE_EVERY);
        if base {
            rebase(self.journal.session, &self.journal.buffer)
                .map_err(|e| DurableError::Checkpoint(e.to_string()))?;
        }
        let entry = RunEntry {
            step: checkpoint.steps,
            base,
            events: self.journal.buffer.take(),
            checkpoint: serde_json::to_string(checkpoint)
                .map_err(|e| DurableError::Checkpoint(e.to_string()))?,
        };
        let held =
            with_retries(|| self.mailbox.checkpoint(self.request_id, &entry, self.lease)).await?;
        self.base_next = false;
        CHECKPOINTS.fetch_add(1, Ordering::Relaxed);
        CHECKPOINT_MICROS.fetch_add(
            u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        Ok(held)
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

/// What the run of `request_id` has stored: its last checkpoint and the session's records up to
/// it (`None` when it has no checkpoint to resume from).
///
/// # Errors
/// Redis errors; an entry that does not decode.
pub async fn load_run<T>(
    mailbox: &RedisMailbox<T>,
    request_id: &str,
) -> Result<Option<StoredRun>, DurableError> {
    let entries = mailbox.run_entries(request_id).await?;
    let Some(point) = resume_point(&entries) else {
        return Ok(None);
    };
    let Some(last) = point.chain.last() else {
        return Ok(None);
    };
    let checkpoint = serde_json::from_str(&last.checkpoint).map_err(|e| {
        DurableError::Checkpoint(format!("run {request_id}: step {}: {e}", last.step))
    })?;
    let events = chain_records(point.chain)
        .map_err(|e| DurableError::Checkpoint(format!("run {request_id}: {e}")))?;
    Ok(Some(StoredRun {
        checkpoint,
        events,
        gap: point.gap,
    }))
}
