//! Trace context handed to other processes: the `TRACEPARENT` environment variable a parent
//! process may set (as CI systems and `otel-cli` do), and the `send` span of a request queued
//! for a worker.

use wink_session::TraceParent;

use crate::span::{Attributes, SpanKind, SpanRecord, SpanStatus, random_span_id, random_trace_id};

/// The trace context of the `TRACEPARENT` environment variable, when it holds a valid one.
pub fn env_traceparent() -> Option<TraceParent> {
    std::env::var("TRACEPARENT").ok()?.parse().ok()
}

/// The trace context a request queued on `queue` carries: a `send {queue}` span (PRODUCER)
/// exported now, under `TRACEPARENT` when set; without an exporter, `TRACEPARENT` itself.
pub fn submit_span(queue: &str) -> Option<TraceParent> {
    let parent = env_traceparent();
    if crate::export::exporter().is_none() {
        return parent;
    }
    let now = crate::span::nanos(wink_session::Timestamp::now());
    let mut attributes = Attributes::default();
    attributes.set("messaging.system", "redis");
    attributes.set("messaging.operation.type", "send");
    attributes.set("messaging.destination.name", queue);
    let span = SpanRecord {
        trace_id: parent.map_or_else(random_trace_id, |p| p.trace_id),
        span_id: random_span_id(),
        parent_span_id: parent.map(|p| p.span_id),
        parent_is_remote: parent.is_some(),
        name: format!("send {queue}"),
        kind: SpanKind::Producer,
        start_ns: now,
        end_ns: now,
        attributes,
        events: Vec::new(),
        status: SpanStatus::Unset,
    };
    let context = span.context();
    crate::export::export(vec![span]);
    Some(context)
}
