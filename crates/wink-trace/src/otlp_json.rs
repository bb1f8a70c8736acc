//! Spans as an OTLP/JSON `ExportTraceServiceRequest` (the protobuf JSON mapping OTLP/HTTP
//! uses: lowercase hex ids, 64-bit integers and nanosecond times as strings), the file
//! `wink trace export --format otlp-json` writes and the page reads.

use serde_json::{Map, Value, json};

use crate::span::{AttrValue, Attributes, SpanKind, SpanRecord, SpanStatus, hex};

fn any_value(value: &AttrValue) -> Value {
    match value {
        AttrValue::Str(s) => json!({"stringValue": s}),
        AttrValue::Int(n) => json!({"intValue": n.to_string()}),
        AttrValue::Double(x) => json!({"doubleValue": x}),
        AttrValue::Bool(b) => json!({"boolValue": b}),
        AttrValue::StrList(items) => json!({"arrayValue": {
            "values": items.iter().map(|s| json!({"stringValue": s})).collect::<Vec<_>>()
        }}),
    }
}

fn key_values(attributes: &Attributes) -> Value {
    Value::Array(
        attributes
            .0
            .iter()
            .map(|a| json!({"key": a.key, "value": any_value(&a.value)}))
            .collect(),
    )
}

fn kind(kind: SpanKind) -> u8 {
    match kind {
        SpanKind::Client => 3,
        SpanKind::Producer => 4,
        _ => 1,
    }
}

/// One span in OTLP/JSON.
pub fn span_json(span: &SpanRecord) -> Value {
    let mut out = Map::new();
    out.insert("traceId".into(), json!(hex(&span.trace_id)));
    out.insert("spanId".into(), json!(hex(&span.span_id)));
    if let Some(parent) = &span.parent_span_id {
        out.insert("parentSpanId".into(), json!(hex(parent)));
    }
    // Span flags: the W3C sampled flag, and whether the parent is known to be remote.
    let remote = if span.parent_is_remote { 0x300 } else { 0x100 };
    out.insert("flags".into(), json!(remote | 1));
    out.insert("name".into(), json!(span.name));
    out.insert("kind".into(), json!(kind(span.kind)));
    out.insert("startTimeUnixNano".into(), json!(span.start_ns.to_string()));
    out.insert("endTimeUnixNano".into(), json!(span.end_ns.to_string()));
    out.insert("attributes".into(), key_values(&span.attributes));
    if !span.events.is_empty() {
        out.insert(
            "events".into(),
            Value::Array(
                span.events
                    .iter()
                    .map(|e| {
                        json!({
                            "timeUnixNano": e.time_ns.to_string(),
                            "name": e.name,
                            "attributes": key_values(&e.attributes),
                        })
                    })
                    .collect(),
            ),
        );
    }
    out.insert(
        "status".into(),
        match &span.status {
            SpanStatus::Error(message) => json!({"code": 2, "message": message}),
            _ => json!({}),
        },
    );
    Value::Object(out)
}

/// An `ExportTraceServiceRequest` holding `spans`, from service `service`.
pub fn request(spans: &[SpanRecord], service: &str) -> Value {
    json!({
        "resourceSpans": [{
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]},
            "scopeSpans": [{
                "scope": {"name": "wink", "version": env!("CARGO_PKG_VERSION")},
                "spans": spans.iter().map(span_json).collect::<Vec<_>>(),
            }],
        }]
    })
}
