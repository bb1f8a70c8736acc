//! # wink-redis
//!
//! wink beyond one process: [`RedisMailbox`], the [`wink_agent::AsyncMailbox`] contract on
//! Redis Streams (consumer group, visibility timeout through the pending-entries list and
//! `XAUTOCLAIM`, ack, nack with delay, a dead-letter stream, results with a TTL and exactly one
//! result per request id), and [`RedisServer`], a private `redis-server` for tests and
//! benchmarks. Works with Redis 7 and Valkey.

mod connect;
mod durable;
mod entry;
mod keys;
mod mailbox;
mod result;
mod run_log;
mod scripts;
mod server;
mod worker;

pub use durable::{
    DurableEnd, DurableError, DurableRun, RunCheckpoint, RunControl, StoredRun, checkpoint_stats,
    load_run, with_retries,
};
pub use entry::{
    DEFAULT_MAX_REQUEST_BYTES, FieldValue, MAX_ENTRY_FIELDS, MAX_NAME_CHARS, Malformed, RawEntry,
    Screened, check_queue_name, check_request_id, entry_body, entry_request_id, screen_entry,
};
pub use keys::{GROUP, QueueKeys};
pub use mailbox::{
    Claim, Published, QueueConfig, QueueStats, RedisMailbox, RedisMailboxError, RedisReceipt,
    RunEntry,
};
pub use result::{RequestResult, RequestStatus};
pub use run_log::BASE_EVERY;
pub use server::{RedisServer, ServerError, redis_server_installed};
pub use worker::{
    PreparedRun, RunFactory, RunRequest, WorkerConfig, WorkerStats, request_result, run_worker,
};
