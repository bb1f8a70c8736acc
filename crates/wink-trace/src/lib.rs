//! # wink-trace
//!
//! See a run. One mapping from a run's session events to OpenTelemetry GenAI spans
//! ([`mapping`]), used live — [`trace_session`] maps a session's events as they happen and the
//! exporter ([`init_from_env`]) sends them over OTLP with the standard `OTEL_*` environment — and
//! offline: [`read`] turns a session log, a transcript or a Redis run stream into the same spans
//! for `wink trace show` (a terminal tree, [`show`]), `wink trace serve` (a local page,
//! [`page`]) and `wink trace export --format otlp-json` ([`otlp_json`]).
//!
//! The attribute names are pinned in [`semconv`].

pub mod export;
pub mod live;
pub mod mapping;
pub mod otlp_json;
pub mod page;
pub mod propagate;
mod reach;
pub mod read;
pub mod semconv;
pub mod show;
pub mod span;
mod text;

pub use export::{
    ExportError, ExportGuard, export_requested, flush, init_from_env, shutdown, start_from_env,
};
pub use live::{SpanSink, TraceOptions, trace_session, trace_session_to, trace_session_with};
pub use mapping::{MapOptions, Mapper, Redactor};
pub use propagate::{env_traceparent, submit_span};
pub use span::{AttrValue, Attributes, SpanEvent, SpanKind, SpanRecord, SpanStatus, Text};
