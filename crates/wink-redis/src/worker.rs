//! `wink worker`: N slots, each on its own thread with its own Redis connection, taking
//! requests one at a time and running them durably; a heartbeat thread keeps every in-flight
//! request's lease and hidden entry alive.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_agent::{AsyncMailbox, LoopOutcome, MainLoopConfig, ProviderAdapter, Spent};
use wink_core::Prompt;
use wink_session::Session;

use crate::durable::{DurableEnd, DurableRun, RunControl, load_run, with_retries};
use crate::mailbox::{Claim, Published, QueueConfig, RedisMailbox, RedisReceipt};
use crate::result::{RequestResult, RequestStatus};

/// A request's body in the queue (`wink submit --params --input`): a JSON object with these two
/// keys, both optional; anything else (another key, `params` that is not an object, a body that
/// is not an object) is refused.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunRequest {
    /// Params as `wink run --params` takes them (params type name → fields).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
    /// The user message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// The W3C trace context the request was submitted under: the run continues that trace
    /// on the worker that runs it (and on the one that takes it over).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<wink_session::TraceParent>,
}

impl<'de> Deserialize<'de> for RunRequest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // A map only: serde's derive would take a sequence too (`[]` ran as an empty request).
        deserializer.deserialize_map(RequestVisitor)
    }
}

struct RequestVisitor;

impl<'de> serde::de::Visitor<'de> for RequestVisitor {
    type Value = RunRequest;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object with params and input")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<RunRequest, A::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Fields {
            #[serde(default)]
            params: Option<serde_json::Map<String, Value>>,
            #[serde(default)]
            input: Option<String>,
            #[serde(default)]
            traceparent: Option<wink_session::TraceParent>,
        }
        let fields = Fields::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        Ok(RunRequest {
            params: fields.params.map(Value::Object),
            input: fields.input,
            traceparent: fields.traceparent,
        })
    }
}

/// A run ready to start (or to resume).
#[allow(missing_debug_implementations)]
pub struct PreparedRun {
    /// The prompt, params bound.
    pub prompt: Prompt,
    /// A fresh session for it (a checkpoint is restored into it).
    pub session: Session,
    /// The model for this run.
    pub adapter: Arc<dyn ProviderAdapter>,
    /// Loop settings.
    pub config: MainLoopConfig,
    /// Wall-clock limit of the run.
    pub timeout: Option<Duration>,
}

/// Builds runs from requests (the CLI loads the prompt file).
pub trait RunFactory: Send + Sync {
    /// A run of `request`. `model_calls`: the model calls its earlier workers made (a scripted
    /// model continues its script there). `Err` is the reason the request fails.
    fn prepare(
        &self,
        request_id: &str,
        request: &RunRequest,
        model_calls: u32,
    ) -> Result<PreparedRun, String>;
}

/// Worker settings.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// Redis URL.
    pub url: String,
    /// The queue.
    pub queue: QueueConfig,
    /// Runs at once (one thread each).
    pub concurrency: usize,
    /// How long a request stays leased (and its entry hidden) without a heartbeat or a
    /// checkpoint; a worker that died is taken over after this long.
    pub lease: Duration,
    /// Idle wait between empty receives.
    pub poll: Duration,
    /// This worker's name in the consumer group and in leases (see [`WorkerConfig::new`]).
    pub consumer: String,
}

impl WorkerConfig {
    /// Defaults: one slot, a 30 s lease, 50 ms idle polls, a consumer name made of the process
    /// id and a random suffix.
    pub fn new(url: impl Into<String>, queue: QueueConfig) -> Self {
        Self {
            url: url.into(),
            queue,
            concurrency: 1,
            lease: Duration::from_secs(30),
            poll: Duration::from_millis(50),
            consumer: format!(
                "worker-{}-{}",
                std::process::id(),
                &uuid::Uuid::new_v4().simple().to_string()[..8]
            ),
        }
    }
}

/// What a worker did.
#[derive(Debug, Default)]
pub struct WorkerStats {
    /// Requests that got their result from this worker.
    pub completed: AtomicU64,
    /// Runs resumed from another worker's checkpoint.
    pub resumed: AtomicU64,
    /// Requests received that had a result already, or were leased by another worker.
    pub skipped: AtomicU64,
    /// Runs given back at a stop.
    pub released: AtomicU64,
}

impl std::fmt::Display for WorkerStats {
    /// `N completed, N resumed, N skipped, N released; N checkpoints, mean N µs` (the
    /// checkpoints of this process, [`crate::checkpoint_stats`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (checkpoints, spent) = crate::durable::checkpoint_stats();
        let mean_us = spent
            .as_micros()
            .checked_div(u128::from(checkpoints))
            .unwrap_or(0);
        write!(
            f,
            "{} completed, {} resumed, {} skipped, {} released; {checkpoints} checkpoints, mean {mean_us} µs",
            self.completed.load(Ordering::Relaxed),
            self.resumed.load(Ordering::Relaxed),
            self.skipped.load(Ordering::Relaxed),
            self.released.load(Ordering::Relaxed),
        )
    }
}

/// The runs in flight: request id → (receipt, the slot's consumer name, the run's signals).
type InFlight = Arc<Mutex<HashMap<String, (RedisReceipt, String, Arc<RunControl>)>>>;

/// Run a worker until `stop` is set; returns what it did. In-flight runs stop after their
/// current step at a stop: their leases are released and their requests handed back (nack
/// without delay), so another worker resumes them from the checkpoint at once.
///
/// # Errors
/// When Redis cannot be reached at start.
pub fn run_worker(
    config: &WorkerConfig,
    factory: Arc<dyn RunFactory>,
    stop: Arc<AtomicBool>,
) -> Result<Arc<WorkerStats>, String> {
    let stats = Arc::new(WorkerStats::default());
    let in_flight: InFlight = Arc::default();
    let mut threads = Vec::new();
    for slot in 0..config.concurrency.max(1) {
        let (config, factory, stop, stats, in_flight) = (
            config.clone(),
            factory.clone(),
            stop.clone(),
            stats.clone(),
            in_flight.clone(),
        );
        let handle = std::thread::Builder::new()
            .name(format!("wink-worker-{slot}"))
            .spawn(move || slot_thread(&config, slot, factory.as_ref(), &stop, &stats, &in_flight))
            .map_err(|e| format!("cannot start a worker thread: {e}"))?;
        threads.push(handle);
    }
    let heartbeat = {
        let (config, stop, in_flight) = (config.clone(), stop.clone(), in_flight.clone());
        std::thread::Builder::new()
            .name("wink-heartbeat".into())
            .spawn(move || heartbeat_thread(&config, &stop, &in_flight))
            .map_err(|e| format!("cannot start the heartbeat thread: {e}"))?
    };
    let mut first_error = None;
    for t in threads {
        if let Ok(Err(e)) = t.join() {
            stop.store(true, Ordering::Relaxed);
            first_error.get_or_insert(e);
        }
    }
    stop.store(true, Ordering::Relaxed);
    let _ = heartbeat.join();
    match first_error {
        Some(e) => Err(e),
        None => Ok(stats),
    }
}

/// A connection of `slot`: each slot is a consumer of its own (`CONSUMER-SLOT`), so a slot
/// never takes over a run another slot of the same worker is still making.
async fn connect(config: &WorkerConfig, slot: usize) -> Result<RedisMailbox<RunRequest>, String> {
    RedisMailbox::connect(&config.url, config.queue.clone())
        .await
        .map(|m| m.with_consumer(format!("{}-{slot}", config.consumer)))
        .map_err(|e| e.to_string())
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

fn heartbeat_thread(
    config: &WorkerConfig,
    stop: &AtomicBool,
    in_flight: &InFlight,
) -> Result<(), String> {
    let rt = runtime()?;
    rt.block_on(async {
        let mailbox = connect(config, usize::MAX).await?;
        let tick = (config.lease / 3).max(Duration::from_millis(50));
        let mut last = std::time::Instant::now();
        while !stop.load(Ordering::Relaxed) {
            // Short naps, so a stopping worker does not wait a whole tick for this thread.
            tokio::time::sleep(Duration::from_millis(50)).await;
            if last.elapsed() < tick {
                continue;
            }
            last = std::time::Instant::now();
            let runs: Vec<(RedisReceipt, String, Arc<RunControl>)> = in_flight
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .values()
                .cloned()
                .collect();
            for (receipt, consumer, control) in runs {
                let slot = mailbox.clone().with_consumer(consumer);
                match slot.heartbeat(&receipt, config.lease).await {
                    Ok(false) => control.lease_lost.store(true, Ordering::Relaxed),
                    Ok(true) => {}
                    Err(e) => tracing::warn!(error = %e, "heartbeat failed"),
                }
            }
        }
        Ok(())
    })
}

fn slot_thread(
    config: &WorkerConfig,
    slot: usize,
    factory: &dyn RunFactory,
    stop: &Arc<AtomicBool>,
    stats: &WorkerStats,
    in_flight: &InFlight,
) -> Result<(), String> {
    let rt = runtime()?;
    rt.block_on(async {
        let mailbox = connect(config, slot).await?;
        while !stop.load(Ordering::Relaxed) {
            let deliveries = match mailbox.receive(1, config.lease).await {
                Ok(d) => d,
                Err(e) => {
                    tracing::warn!(error = %e, "receive failed; retrying");
                    tokio::time::sleep(config.poll.max(Duration::from_millis(200))).await;
                    continue;
                }
            };
            if deliveries.is_empty() {
                tokio::time::sleep(config.poll).await;
                continue;
            }
            for delivery in deliveries {
                let receipt = delivery.receipt;
                let slot = Slot {
                    mailbox: &mailbox,
                    config,
                    factory,
                    stats,
                    in_flight,
                };
                if let Err(e) = slot.handle(&receipt, &delivery.body, stop).await {
                    // The request stays pending: it is delivered again after the lease.
                    tracing::warn!(request_id = %receipt.request_id, error = %e, "run interrupted");
                }
                in_flight
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&receipt.request_id);
            }
        }
        Ok(())
    })
}

struct Slot<'a> {
    mailbox: &'a RedisMailbox<RunRequest>,
    config: &'a WorkerConfig,
    factory: &'a dyn RunFactory,
    stats: &'a WorkerStats,
    in_flight: &'a InFlight,
}

impl Slot<'_> {
    async fn handle(
        &self,
        receipt: &RedisReceipt,
        request: &RunRequest,
        stop: &Arc<AtomicBool>,
    ) -> Result<(), String> {
        let id = &receipt.request_id;
        let error = |e: &dyn std::fmt::Display| e.to_string();
        match self
            .mailbox
            .claim(id, self.config.lease)
            .await
            .map_err(|e| error(&e))?
        {
            Claim::Finished => {
                self.stats.skipped.fetch_add(1, Ordering::Relaxed);
                let _ = self.mailbox.ack(receipt).await;
                return Ok(());
            }
            // Another worker runs it; its heartbeat takes the entry back.
            Claim::Held => {
                self.stats.skipped.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
            _ => {}
        }
        let control = Arc::new(RunControl {
            lease_lost: AtomicBool::new(false),
            stop: stop.clone(),
        });
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                id.clone(),
                (
                    receipt.clone(),
                    self.mailbox.consumer().to_owned(),
                    control.clone(),
                ),
            );
        let stored = load_run(self.mailbox, id).await.map_err(|e| error(&e))?;
        if stored.is_some() {
            self.stats.resumed.fetch_add(1, Ordering::Relaxed);
        }
        let model_calls = stored
            .as_ref()
            .map_or(0, |run| run.checkpoint.spent.model_calls);
        let end = match self.factory.prepare(id, request, model_calls) {
            Err(message) => DurableEnd::Finished {
                outcome: LoopOutcome::Failed {
                    message,
                    phase: wink_core::EvaluationPhase::Request,
                },
                spent: Spent::default(),
            },
            Ok(run) => {
                let durable = DurableRun {
                    prompt: &run.prompt,
                    session: &run.session,
                    adapter: run.adapter.as_ref(),
                    config: run.config.clone(),
                    timeout: run.timeout,
                };
                match durable
                    .execute(self.mailbox, id, self.config.lease, stored, &control)
                    .await
                {
                    Ok(end) => end,
                    Err(crate::durable::DurableError::Render(e)) => DurableEnd::Finished {
                        outcome: LoopOutcome::Failed {
                            message: e.to_string(),
                            phase: wink_core::EvaluationPhase::Request,
                        },
                        spent: Spent::default(),
                    },
                    Err(e) => return Err(e.to_string()),
                }
            }
        };
        match end {
            DurableEnd::Finished { outcome, spent } => {
                let result = request_result(id, &outcome, spent);
                let published = with_retries(|| self.mailbox.publish(&result)).await;
                match published.map_err(|e| error(&e))? {
                    Published::Stored => {
                        self.stats.completed.fetch_add(1, Ordering::Relaxed);
                    }
                    Published::AlreadyFinished => {}
                    _ => return Ok(()),
                }
                let _ = self.mailbox.ack(receipt).await;
            }
            DurableEnd::Stopped => {
                self.stats.released.fetch_add(1, Ordering::Relaxed);
                self.mailbox.release(id).await.map_err(|e| error(&e))?;
                let _ = self.mailbox.nack(receipt, Duration::ZERO).await;
            }
            _ => {}
        }
        Ok(())
    }
}

/// The result of a run that ended with `outcome`.
pub fn request_result(request_id: &str, outcome: &LoopOutcome, spent: Spent) -> RequestResult {
    let (status, text, output) = match outcome {
        LoopOutcome::Finished { text, output } => {
            (RequestStatus::Done, text.clone(), output.clone())
        }
        LoopOutcome::Terminated { content, value, .. } => {
            (RequestStatus::Done, Some(content.clone()), value.clone())
        }
        LoopOutcome::BudgetExceeded { limit } => (
            RequestStatus::Failed,
            Some(format!("budget exceeded: {limit}")),
            None,
        ),
        LoopOutcome::Failed { message, phase } => (
            RequestStatus::Failed,
            Some(format!("run failed ({phase}): {message}")),
            None,
        ),
        other => (RequestStatus::Failed, Some(other.summary()), None),
    };
    RequestResult {
        request_id: request_id.to_owned(),
        status,
        text,
        output,
        usage: spent.usage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wink_agent::BudgetLimit;
    use wink_session::TokenUsage;

    fn spent(input: u64) -> Spent {
        Spent {
            model_calls: 1,
            tool_calls: 0,
            usage: TokenUsage {
                input_tokens: input,
                output_tokens: 1,
                cached_tokens: 0,
            },
        }
    }

    #[test]
    fn outcomes_map_to_the_result_statuses() {
        let done = request_result(
            "r",
            &LoopOutcome::Finished {
                text: Some("hi".into()),
                output: None,
            },
            spent(5),
        );
        assert_eq!(
            (done.status, done.text.as_deref(), done.usage.input_tokens),
            (RequestStatus::Done, Some("hi"), 5)
        );
        let terminated = request_result(
            "r",
            &LoopOutcome::Terminated {
                name: "submit".into(),
                content: "filed".into(),
                value: Some(serde_json::json!({"id": 7})),
            },
            spent(1),
        );
        assert_eq!(terminated.status, RequestStatus::Done);
        assert_eq!(terminated.output, Some(serde_json::json!({"id": 7})));
        let budget = request_result(
            "r",
            &LoopOutcome::BudgetExceeded {
                limit: BudgetLimit::ModelCalls,
            },
            spent(1),
        );
        assert_eq!(
            (budget.status, budget.text.as_deref()),
            (
                RequestStatus::Failed,
                Some("budget exceeded: max model calls")
            )
        );
    }

    #[test]
    fn stats_say_what_the_worker_did_and_what_checkpoints_cost() {
        let stats = WorkerStats::default();
        stats.completed.store(3, Ordering::Relaxed);
        stats.resumed.store(1, Ordering::Relaxed);
        stats.released.store(2, Ordering::Relaxed);
        let line = stats.to_string();
        assert!(
            line.starts_with("3 completed, 1 resumed, 0 skipped, 2 released; ")
                && line.ends_with(" µs")
                && line.contains(" checkpoints, mean "),
            "{line}"
        );
    }
}
