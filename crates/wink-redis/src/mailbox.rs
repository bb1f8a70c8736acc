//! [`RedisMailbox`]: the [`AsyncMailbox`] contract on Redis Streams.
//!
//! - A request is an entry of the stream `wink:{NAME}:requests` (fields `id`, `body`); workers
//!   read it through the consumer group `wink-workers`, so a delivered entry sits in the group's
//!   pending-entries list (PEL) until acked.
//! - Visibility timeout: `receive` first takes over (`XAUTOCLAIM`) entries idle in the PEL for
//!   longer than the timeout, then reads new ones. A worker keeps a long run hidden with
//!   [`RedisMailbox::heartbeat`].
//! - `ack` removes the entry (`XACK` + `XDEL`); `nack` moves it to a sorted set until its delay
//!   has passed, then it is added again.
//! - Deliveries are counted per request id; the delivery past `max_deliveries` moves the
//!   request to `wink:{NAME}:dead` and records a `dead_lettered` result.
//! - Every entry is screened before it is delivered ([`crate::screen_entry`]): one without a
//!   valid id, with a body over `max_request_bytes` (never read whole: the receive script hands
//!   over its length only), not UTF-8, not strict JSON or not a request, or whose id another
//!   entry carries (`wink:{NAME}:request:ID` records which), is moved to the dead-letter stream
//!   with its fields byte for byte and a `reason`.
//! - Results are JSON under `wink:{NAME}:result:ID` with a TTL, published only by the holder of
//!   the request's lease: exactly one result per request id.

use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wink_agent::{AsyncMailbox, Delivery, MailboxFuture};

use crate::connect::probe;
use crate::entry::{
    DEFAULT_MAX_REQUEST_BYTES, MAX_ENTRY_FIELDS, Malformed, RawEntry, check_queue_name, entry_body,
    entry_request_id, raw_entries,
};
use crate::keys::{GROUP, QueueKeys};
use crate::result::RequestResult;
use crate::scripts;

/// Why a Redis operation failed.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum RedisMailboxError {
    /// The URL is not a Redis URL.
    #[error("--redis: '{url}' is not a Redis URL ({source})")]
    Url {
        /// As given.
        url: String,
        /// The client's reason.
        source: redis::RedisError,
    },
    /// No Redis server could be reached at the URL (or what answered is not one).
    #[error("--redis {url}: {message}")]
    Connect {
        /// As given.
        url: String,
        /// Why, in words: nothing listens there, no answer in time, not the Redis protocol.
        message: String,
    },
    /// The queue name cannot be used.
    #[error("--queue '{name}': {message}")]
    QueueName {
        /// As given.
        name: String,
        /// What is wrong with it.
        message: String,
    },
    /// A request body over the queue's limit.
    #[error(
        "the request is {size} bytes, over the limit of {max} bytes (--max-request-bytes; the workers must take it too)"
    )]
    TooLarge {
        /// The encoded body's size.
        size: usize,
        /// The limit.
        max: usize,
    },
    /// The server could not be reached or refused a command.
    #[error("redis {operation}: {source}")]
    Redis {
        /// What was being done.
        operation: &'static str,
        /// The client's error.
        source: redis::RedisError,
    },
    /// A message body could not be encoded.
    #[error("cannot encode a message: {0}")]
    Encode(serde_json::Error),
    /// The receipt's entry is not pending (acked already, or dead-lettered).
    #[error("receipt {0} is not in flight (acked already, or dead-lettered)")]
    StaleReceipt(String),
}

fn redis_error(operation: &'static str) -> impl FnOnce(redis::RedisError) -> RedisMailboxError {
    move |source| RedisMailboxError::Redis { operation, source }
}

/// One entry of a run's stream: what one driver step changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEntry {
    /// The driver step it follows (counted over the whole run, from 1).
    pub step: u64,
    /// A base entry's `events` start from the session's whole state (a `wink.restored`
    /// record, or none for a session still as prepared) rather than from the previous entry.
    pub base: bool,
    /// The session's log records since the previous entry, JSON Lines
    /// (`{"seq":n,"type":...,"event":...}`, the session-log format).
    pub events: String,
    /// The run's checkpoint (loop state, spending, deadline) as JSON.
    pub checkpoint: String,
}

/// Settings of a queue.
#[derive(Debug, Clone)]
pub struct QueueConfig {
    /// The queue's name (`--queue`, default `wink`).
    pub name: String,
    /// A request delivered this many times without a result goes to the dead-letter stream.
    pub max_deliveries: u32,
    /// How long results (and finished runs' checkpoints) are kept.
    pub result_ttl: Duration,
    /// The largest request body in bytes: a larger one is refused by `send` and dead-lettered
    /// by `receive`.
    pub max_request_bytes: usize,
}

impl QueueConfig {
    /// Defaults for queue `name`: 5 deliveries, results kept one day, requests up to 1 MiB.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            max_deliveries: 5,
            result_ttl: Duration::from_secs(86_400),
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
        }
    }
}

/// Identifies one delivery of a request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RedisReceipt {
    /// The stream entry (changes when a nacked request is added again).
    pub entry_id: String,
    /// The request id (`wink submit` prints it; stable across deliveries).
    pub request_id: String,
}

/// The request counts `wink queue stats` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct QueueStats {
    /// Waiting to be received (new, or nacked and waiting for their delay).
    pub pending: u64,
    /// Received by a worker and not yet acked.
    pub in_flight: u64,
    /// In the dead-letter stream.
    pub dead_lettered: u64,
    /// With a `done` or `failed` result.
    pub done: u64,
}

/// What [`RedisMailbox::claim`] found.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// This worker holds the request's lease: run it.
    Acquired,
    /// The request has a result already (ack it, do nothing else).
    Finished,
    /// Another worker holds the lease (leave the request alone).
    Held,
}

/// What [`RedisMailbox::publish`] did.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Published {
    /// The result is the request's result.
    Stored,
    /// The request had a result already; this one was dropped.
    AlreadyFinished,
    /// Another worker holds the lease; this result was dropped.
    LeaseLost,
}

/// A queue of `T` requests in Redis.
pub struct RedisMailbox<T> {
    conn: ConnectionManager,
    /// Whether the consumer group is known to exist (created once; again after `NOGROUP`).
    group_ready: Arc<AtomicBool>,
    keys: QueueKeys,
    consumer: String,
    config: QueueConfig,
    body: PhantomData<fn() -> T>,
}

impl<T> Clone for RedisMailbox<T> {
    fn clone(&self) -> Self {
        Self {
            conn: self.conn.clone(),
            group_ready: self.group_ready.clone(),
            keys: self.keys.clone(),
            consumer: self.consumer.clone(),
            config: self.config.clone(),
            body: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for RedisMailbox<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisMailbox")
            .field("queue", &self.config.name)
            .field("consumer", &self.consumer)
            .finish_non_exhaustive()
    }
}

/// Milliseconds since the epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl<T> RedisMailbox<T> {
    /// Connect to `url` (`redis://host:port/db`) with a connection that reconnects by itself
    /// (exponential back-off) and is shared by every clone of the mailbox (commands are
    /// multiplexed over it, so one connection serves all of a worker's concurrent runs).
    ///
    /// # Errors
    /// A bad queue name or URL, or no Redis server answering within 5 s.
    pub async fn connect(url: &str, config: QueueConfig) -> Result<Self, RedisMailboxError> {
        check_queue_name(&config.name).map_err(|message| RedisMailboxError::QueueName {
            name: config.name.clone(),
            message,
        })?;
        let client = redis::Client::open(url).map_err(|source| RedisMailboxError::Url {
            url: url.to_owned(),
            source,
        })?;
        probe(&client, url).await?;
        let manager_config = ConnectionManagerConfig::new()
            .set_number_of_retries(6)
            .set_max_delay(Duration::from_secs(2))
            .set_connection_timeout(Some(Duration::from_secs(5)))
            .set_response_timeout(Some(Duration::from_secs(10)));
        let conn = ConnectionManager::new_with_config(client, manager_config)
            .await
            .map_err(redis_error("connect"))?;
        let consumer = format!(
            "{}-{}",
            std::process::id(),
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        Ok(Self {
            conn,
            group_ready: Arc::default(),
            keys: QueueKeys::new(&config.name),
            consumer,
            config,
            body: PhantomData,
        })
    }

    /// The same queue under consumer name `name` (the threads of one worker share one name, so
    /// any of them can heartbeat a lease another took).
    #[must_use]
    pub fn with_consumer(mut self, name: impl Into<String>) -> Self {
        self.consumer = name.into();
        self
    }

    /// This worker's consumer name in the group (and in leases).
    pub fn consumer(&self) -> &str {
        &self.consumer
    }

    /// The queue's keys.
    pub fn keys(&self) -> &QueueKeys {
        &self.keys
    }

    /// The queue's settings.
    pub fn config(&self) -> &QueueConfig {
        &self.config
    }

    /// Create the stream and the consumer group when missing (from the stream's start, so
    /// requests sent before the first worker are delivered).
    async fn ensure_group(&self) -> Result<(), RedisMailboxError> {
        if self.group_ready.load(Ordering::Relaxed) {
            return Ok(());
        }
        let mut conn = self.conn.clone();
        let created: Result<(), redis::RedisError> = redis::cmd("XGROUP")
            .arg("CREATE")
            .arg(self.keys.requests())
            .arg(GROUP)
            .arg("0")
            .arg("MKSTREAM")
            .query_async(&mut conn)
            .await;
        match created {
            Err(e) if e.code() != Some("BUSYGROUP") => Err(redis_error("XGROUP CREATE")(e)),
            _ => {
                self.group_ready.store(true, Ordering::Relaxed);
                Ok(())
            }
        }
    }

    async fn send_raw(&self, body: String) -> Result<String, RedisMailboxError> {
        let max = self.config.max_request_bytes;
        if body.len() > max {
            return Err(RedisMailboxError::TooLarge {
                size: body.len(),
                max,
            });
        }
        let id = uuid::Uuid::new_v4().to_string();
        let mut conn = self.conn.clone();
        let _: String = scripts::SUBMIT
            .key(self.keys.requests())
            .key(self.keys.request(&id))
            .arg(&id)
            .arg(body)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error("submit"))?;
        Ok(id)
    }

    /// Entries to deliver: those idle past the visibility timeout, then new ones, values over
    /// the request size limit left on the server (see [`scripts::RECEIVE`]).
    async fn take_entries(
        &self,
        max: usize,
        visibility_timeout: Duration,
    ) -> Result<Vec<RawEntry>, RedisMailboxError> {
        let mut conn = self.conn.clone();
        let _: u64 = scripts::PROMOTE
            .key(self.keys.delayed())
            .key(self.keys.requests())
            .arg(now_ms())
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error("promote delayed"))?;
        let reply: redis::Value = scripts::RECEIVE
            .key(self.keys.requests())
            .arg(GROUP)
            .arg(&self.consumer)
            .arg(millis(visibility_timeout))
            .arg(max)
            .arg(self.config.max_request_bytes)
            .arg(MAX_ENTRY_FIELDS)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error("receive"))?;
        match raw_entries(reply) {
            Some(entries) => Ok(entries),
            // The group is gone (a server restarted without persistence): create it again.
            None => {
                self.group_ready.store(false, Ordering::Relaxed);
                self.ensure_group().await?;
                Ok(Vec::new())
            }
        }
    }

    /// Moves an entry to the dead-letter stream with `reason`. When it carries `request_id`
    /// (`own`), the request gets its `dead_lettered` result.
    async fn dead_letter(
        &self,
        entry_id: &str,
        request_id: Option<&str>,
        deliveries: u32,
        reason: &str,
    ) -> Result<(), RedisMailboxError> {
        let id = request_id.unwrap_or_default();
        let json = match request_id {
            Some(id) => serde_json::to_string(&RequestResult::dead_lettered(id, reason))
                .map_err(RedisMailboxError::Encode)?,
            None => String::new(),
        };
        let mut conn = self.conn.clone();
        let _: u64 = scripts::DEAD_LETTER
            .key(self.keys.requests())
            .key(self.keys.dead())
            .key(self.keys.deliveries())
            .key(self.keys.result(id))
            .key(self.keys.request(id))
            .arg(GROUP)
            .arg(entry_id)
            .arg(id)
            .arg(deliveries)
            .arg(json)
            .arg(self.config.result_ttl.as_secs().max(1))
            .arg(reason)
            .arg(u8::from(request_id.is_some()))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error("dead-letter"))?;
        tracing::warn!(
            request_id = id,
            entry_id,
            deliveries,
            reason,
            "request dead-lettered"
        );
        Ok(())
    }

    /// Counts a delivery of the entry carrying `request_id`; `None` when another entry carries
    /// that id (see [`scripts::ADMIT`]).
    async fn admit(
        &self,
        request_id: &str,
        entry_id: &str,
    ) -> Result<Option<u32>, RedisMailboxError> {
        let mut conn = self.conn.clone();
        let count: i64 = scripts::ADMIT
            .key(self.keys.deliveries())
            .key(self.keys.request(request_id))
            .key(self.keys.requests())
            .key(self.keys.result(request_id))
            .arg(request_id)
            .arg(entry_id)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error("admit"))?;
        Ok(u32::try_from(count).ok())
    }

    /// Take the lease of a received request for `ttl` (see [`Claim`]).
    ///
    /// # Errors
    /// Redis errors.
    pub async fn claim(&self, request_id: &str, ttl: Duration) -> Result<Claim, RedisMailboxError> {
        let mut conn = self.conn.clone();
        let answer: String = scripts::CLAIM
            .key(self.keys.result(request_id))
            .key(self.keys.lease(request_id))
            .arg(&self.consumer)
            .arg(millis(ttl))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error("claim"))?;
        Ok(match answer.as_str() {
            "ok" => Claim::Acquired,
            "done" => Claim::Finished,
            _ => Claim::Held,
        })
    }

    /// Extend the lease of a request being run and keep its entry hidden for another `ttl`.
    /// `false` when the lease was lost (another worker took the request over: stop running it).
    ///
    /// # Errors
    /// Redis errors.
    pub async fn heartbeat(
        &self,
        receipt: &RedisReceipt,
        ttl: Duration,
    ) -> Result<bool, RedisMailboxError> {
        let mut conn = self.conn.clone();
        let held: u64 = scripts::HEARTBEAT
            .key(self.keys.lease(&receipt.request_id))
            .key(self.keys.requests())
            .arg(&self.consumer)
            .arg(millis(ttl))
            .arg(GROUP)
            .arg(&receipt.entry_id)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error("heartbeat"))?;
        Ok(held == 1)
    }

    /// Append `entry` to the stream of the run of `request_id`, extending the lease by `ttl`.
    /// A base entry trims the stream before it (a base holds everything a takeover needs). The
    /// same step appended again by this worker (a retry after a lost reply) is written once.
    /// `false`, with nothing written, when this worker no longer holds the lease (a checkpoint
    /// is fenced by it).
    ///
    /// # Errors
    /// Redis errors.
    pub async fn checkpoint(
        &self,
        request_id: &str,
        entry: &RunEntry,
        ttl: Duration,
    ) -> Result<bool, RedisMailboxError> {
        let mut conn = self.conn.clone();
        let held: u64 = scripts::CHECKPOINT
            .key(self.keys.lease(request_id))
            .key(self.keys.run(request_id))
            .arg(&self.consumer)
            .arg(millis(ttl))
            .arg(entry.step)
            .arg(u8::from(entry.base))
            .arg(&entry.events)
            .arg(&entry.checkpoint)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error("checkpoint"))?;
        Ok(held == 1)
    }

    /// Every entry of the stream of the run of `request_id`, oldest first (empty when the run
    /// has none). Entries this version did not write (fields missing) are left out.
    ///
    /// # Errors
    /// Redis errors.
    pub async fn run_entries(&self, request_id: &str) -> Result<Vec<RunEntry>, RedisMailboxError> {
        let mut conn = self.conn.clone();
        let range: redis::streams::StreamRangeReply = redis::cmd("XRANGE")
            .arg(self.keys.run(request_id))
            .arg("-")
            .arg("+")
            .query_async(&mut conn)
            .await
            .map_err(redis_error("XRANGE"))?;
        Ok(range
            .ids
            .iter()
            .filter_map(|e| {
                Some(RunEntry {
                    step: e.get("step")?,
                    base: e.get::<u8>("base")? == 1,
                    events: e.get("events")?,
                    checkpoint: e.get("checkpoint")?,
                })
            })
            .collect())
    }

    /// Give a lease up (a worker stopping before the run finished).
    ///
    /// # Errors
    /// Redis errors.
    pub async fn release(&self, request_id: &str) -> Result<(), RedisMailboxError> {
        let mut conn = self.conn.clone();
        let _: u64 = scripts::RELEASE
            .key(self.keys.lease(request_id))
            .arg(&self.consumer)
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error("release"))?;
        Ok(())
    }

    /// Store `result` as the request's result, unless it has one or another worker holds its
    /// lease (see [`Published`]).
    ///
    /// # Errors
    /// Redis errors.
    pub async fn publish(&self, result: &RequestResult) -> Result<Published, RedisMailboxError> {
        let json = serde_json::to_string(result).map_err(RedisMailboxError::Encode)?;
        let id = &result.request_id;
        let mut conn = self.conn.clone();
        let answer: String = scripts::PUBLISH
            .key(self.keys.lease(id))
            .key(self.keys.result(id))
            .key(self.keys.done())
            .key(self.keys.run(id))
            .key(self.keys.request(id))
            .arg(&self.consumer)
            .arg(json)
            .arg(self.config.result_ttl.as_secs().max(1))
            .invoke_async(&mut conn)
            .await
            .map_err(redis_error("publish"))?;
        Ok(match answer.as_str() {
            "ok" => Published::Stored,
            "exists" => Published::AlreadyFinished,
            _ => Published::LeaseLost,
        })
    }

    /// The result of `request_id`: its stored result; status `pending` when it has none yet,
    /// `unknown` when the queue has no such request (a mistyped id, or one whose result has
    /// expired).
    ///
    /// # Errors
    /// Redis errors; a stored result that is not valid JSON.
    pub async fn result(&self, request_id: &str) -> Result<RequestResult, RedisMailboxError> {
        let mut conn = self.conn.clone();
        let (stored, known): (Option<String>, bool) = redis::pipe()
            .cmd("GET")
            .arg(self.keys.result(request_id))
            .cmd("EXISTS")
            .arg(self.keys.request(request_id))
            .query_async(&mut conn)
            .await
            .map_err(redis_error("GET result"))?;
        match stored {
            Some(json) => serde_json::from_str(&json).map_err(RedisMailboxError::Encode),
            None if known => Ok(RequestResult::pending(request_id)),
            None => Ok(RequestResult::unknown(request_id)),
        }
    }

    /// Wait until `request_id` has a result (polling every `poll`); returns at once for a
    /// request the queue does not know (status `unknown`).
    ///
    /// # Errors
    /// Redis errors.
    pub async fn wait_result(
        &self,
        request_id: &str,
        poll: Duration,
    ) -> Result<RequestResult, RedisMailboxError> {
        loop {
            let result = self.result(request_id).await?;
            if result.status != crate::RequestStatus::Pending {
                return Ok(result);
            }
            tokio::time::sleep(poll).await;
        }
    }

    /// The queue's counts.
    ///
    /// # Errors
    /// Redis errors.
    pub async fn stats(&self) -> Result<QueueStats, RedisMailboxError> {
        let mut conn = self.conn.clone();
        let (length, delayed, dead, done): (u64, u64, u64, Option<u64>) = redis::pipe()
            .cmd("XLEN")
            .arg(self.keys.requests())
            .cmd("ZCARD")
            .arg(self.keys.delayed())
            .cmd("XLEN")
            .arg(self.keys.dead())
            .cmd("GET")
            .arg(self.keys.done())
            .query_async(&mut conn)
            .await
            .map_err(redis_error("stats"))?;
        let summary: Result<redis::Value, _> = redis::cmd("XPENDING")
            .arg(self.keys.requests())
            .arg(GROUP)
            .query_async(&mut conn)
            .await;
        let in_flight = match summary {
            Ok(redis::Value::Array(items)) => match items.first() {
                Some(redis::Value::Int(n)) => u64::try_from(*n).unwrap_or(0),
                _ => 0,
            },
            Ok(_) => 0,
            Err(e) if e.code() == Some("NOGROUP") => 0,
            Err(e) => return Err(redis_error("XPENDING")(e)),
        };
        Ok(QueueStats {
            pending: length.saturating_sub(in_flight) + delayed,
            in_flight,
            dead_lettered: dead,
            done: done.unwrap_or(0),
        })
    }
}

impl<T: Serialize + DeserializeOwned + Send + 'static> RedisMailbox<T> {
    async fn receive_decoded(
        &self,
        max: usize,
        visibility_timeout: Duration,
    ) -> Result<Vec<Delivery<T, RedisReceipt>>, RedisMailboxError> {
        self.ensure_group().await?;
        let entries = self.take_entries(max.max(1), visibility_timeout).await?;
        let mut out = Vec::with_capacity(entries.len());
        for entry in entries {
            let request_id = match entry_request_id(&entry) {
                Ok(id) => id,
                Err(Malformed { reason, .. }) => {
                    self.dead_letter(&entry.entry_id, None, 1, &reason).await?;
                    continue;
                }
            };
            let Some(count) = self.admit(&request_id, &entry.entry_id).await? else {
                let reason = format!("another entry carries the request id {request_id}");
                self.dead_letter(&entry.entry_id, None, 1, &reason).await?;
                continue;
            };
            if count > self.config.max_deliveries {
                let reason = format!("delivered {} times without a result", count - 1);
                self.dead_letter(&entry.entry_id, Some(&request_id), count - 1, &reason)
                    .await?;
                continue;
            }
            // A body no worker can read would only be delivered again and again.
            match entry_body::<T>(&entry, &request_id, self.config.max_request_bytes) {
                Ok(body) => out.push(Delivery {
                    body,
                    receipt: RedisReceipt {
                        entry_id: entry.entry_id,
                        request_id,
                    },
                    delivery_count: count,
                }),
                Err(Malformed { reason, .. }) => {
                    self.dead_letter(&entry.entry_id, Some(&request_id), count, &reason)
                        .await?;
                }
            }
        }
        Ok(out)
    }
}

impl<T: Serialize + DeserializeOwned + Send + 'static> AsyncMailbox<T> for RedisMailbox<T> {
    type Receipt = RedisReceipt;
    type Error = RedisMailboxError;

    fn send(&self, body: T) -> MailboxFuture<'_, String, RedisMailboxError> {
        let encoded = serde_json::to_string(&body).map_err(RedisMailboxError::Encode);
        Box::pin(async move { self.send_raw(encoded?).await })
    }

    fn receive(
        &self,
        max: usize,
        visibility_timeout: Duration,
    ) -> MailboxFuture<'_, Vec<Delivery<T, RedisReceipt>>, RedisMailboxError> {
        Box::pin(self.receive_decoded(max, visibility_timeout))
    }

    fn ack<'a>(&'a self, receipt: &'a RedisReceipt) -> MailboxFuture<'a, (), RedisMailboxError> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let acked: u64 = scripts::ACK
                .key(self.keys.requests())
                .key(self.keys.deliveries())
                .arg(GROUP)
                .arg(&receipt.entry_id)
                .arg(&receipt.request_id)
                .invoke_async(&mut conn)
                .await
                .map_err(redis_error("ack"))?;
            match acked {
                1 => Ok(()),
                _ => Err(RedisMailboxError::StaleReceipt(receipt.entry_id.clone())),
            }
        })
    }

    fn nack<'a>(
        &'a self,
        receipt: &'a RedisReceipt,
        delay: Duration,
    ) -> MailboxFuture<'a, (), RedisMailboxError> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let visible_at = now_ms().saturating_add(u64::try_from(delay.as_millis()).unwrap_or(0));
            let moved: u64 = scripts::NACK
                .key(self.keys.requests())
                .key(self.keys.delayed())
                .arg(GROUP)
                .arg(&receipt.entry_id)
                .arg(&receipt.request_id)
                .arg(visible_at)
                .invoke_async(&mut conn)
                .await
                .map_err(redis_error("nack"))?;
            match moved {
                1 => Ok(()),
                _ => Err(RedisMailboxError::StaleReceipt(receipt.entry_id.clone())),
            }
        })
    }
}
