//! OTLP export with the standard environment, through the OpenTelemetry SDK: spans go to a
//! batch processor (a bounded queue and a thread of its own), so a run never waits for the
//! collector; a collector that is down costs one warning and the spans it would have had.
//!
//! - on when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set,
//!   off when `OTEL_SDK_DISABLED=true`;
//! - `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`: `http/protobuf` (default), `http/json`, `grpc`;
//! - headers, timeouts, TLS and batching from the usual `OTEL_EXPORTER_OTLP_*` and
//!   `OTEL_BSP_*` variables; the resource from `OTEL_SERVICE_NAME` (default `wink`) and
//!   `OTEL_RESOURCE_ATTRIBUTES`.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, UNIX_EPOCH};

use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind as OtelKind, Status, TraceFlags, TraceId, TraceState,
};
use opentelemetry::{InstrumentationScope, KeyValue, Value as OtelValue};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{
    BatchSpanProcessor, SpanData, SpanEvents, SpanExporter, SpanLinks, SpanProcessor,
};

use crate::span::{AttrValue, Attributes, SpanKind, SpanRecord, SpanStatus, Text};

/// Why export could not start.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The exporter could not be built from the environment.
    #[error("OpenTelemetry export: {0}")]
    Build(String),
}

/// How long an exit flush waits for the collector (nothing when it already failed, or does not
/// accept a connection within [`PROBE`]).
const EXIT_FLUSH: Duration = Duration::from_secs(2);

/// How long an exit flush asks whether a collector that has not answered yet is there at all.
const PROBE: Duration = Duration::from_millis(100);

/// Where spans go: the SDK's batch processor over an OTLP exporter.
#[allow(missing_debug_implementations)]
pub struct Exporter {
    processor: BatchSpanProcessor,
    health: Arc<Health>,
    scope: InstrumentationScope,
    shut: AtomicBool,
}

/// Export failures, to warn once and not to wait at exit for a collector that is down.
#[derive(Debug, Default)]
struct Health {
    failures: AtomicU64,
    exported: AtomicU64,
    warned: AtomicBool,
    endpoint: String,
}

static EXPORTER: OnceLock<Mutex<Option<Arc<Exporter>>>> = OnceLock::new();

fn slot() -> &'static Mutex<Option<Arc<Exporter>>> {
    EXPORTER.get_or_init(|| Mutex::new(None))
}

/// The process's exporter, once [`init_from_env`] started one.
pub fn exporter() -> Option<Arc<Exporter>> {
    slot()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// Whether the environment asks for export: an OTLP endpoint is set and the SDK is not disabled.
pub fn export_requested() -> bool {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    let disabled =
        std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"));
    !disabled && (set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
}

/// Starts the process's exporter when the environment asks for one ([`export_requested`]).
/// Keep the guard for the life of the process: dropping it flushes what is queued (at most
/// 2 s; nothing is waited for when the collector already failed).
///
/// # Errors
/// The exporter cannot be built (an endpoint that is not a URL, TLS set-up).
pub fn init_from_env() -> Result<Option<ExportGuard>, ExportError> {
    Ok(start()?.then_some(ExportGuard { _private: () }))
}

/// Starts the process's exporter from the environment unless one runs, without a guard (what
/// a run prepared by `wink-run` does, so a program that never called [`init_from_env`] is
/// traced too; it then [`flush`]es after each run). Returns whether spans are exported; a
/// configuration that cannot be used is a warning, once.
pub fn start_from_env() -> bool {
    static WARNED: AtomicBool = AtomicBool::new(false);
    start().unwrap_or_else(|error| {
        if !WARNED.swap(true, Ordering::Relaxed) {
            tracing::warn!("{error}; spans are not exported");
        }
        false
    })
}

/// Set once the exporter was shut down: it is not started again.
static SHUT_DOWN: AtomicBool = AtomicBool::new(false);

fn start() -> Result<bool, ExportError> {
    let mut slot = slot().lock().unwrap_or_else(PoisonError::into_inner);
    if slot.is_some() {
        return Ok(true);
    }
    if SHUT_DOWN.load(Ordering::Relaxed) || !export_requested() {
        return Ok(false);
    }
    *slot = Some(Arc::new(Exporter::from_env()?));
    drop(slot);
    // Every run the main loop makes from now on (`wink run`, `wink eval`, an `Agent`) is traced.
    wink_agent::on_run_start(|session| {
        crate::live::trace_session(session);
    });
    Ok(true)
}

/// Exports what is queued now, when the process exports and its collector has not failed
/// (waits for the collector: at most the SDK's flush timeout, 5 s).
pub fn flush() {
    if let Some(exporter) = exporter()
        && exporter.failures() == 0
    {
        exporter.flush();
    }
}

/// Flushes and stops the exporter when dropped.
#[derive(Debug)]
pub struct ExportGuard {
    _private: (),
}

impl Drop for ExportGuard {
    fn drop(&mut self) {
        shutdown();
    }
}

/// Ends every traced run still open (as incomplete), then flushes and stops the exporter:
/// what a process does at exit and on SIGINT / SIGTERM. Waits at most 2 s, and not at all
/// when the collector already failed.
pub fn shutdown() {
    SHUT_DOWN.store(true, Ordering::Relaxed);
    crate::live::finish_all();
    let exporter = slot().lock().unwrap_or_else(PoisonError::into_inner).take();
    if let Some(exporter) = exporter {
        exporter.shutdown();
    }
}

/// Hands finished spans to the process's exporter (nothing when there is none).
pub fn export(spans: Vec<SpanRecord>) {
    if spans.is_empty() {
        return;
    }
    if let Some(exporter) = exporter() {
        for span in spans {
            exporter.send(span);
        }
    }
}

/// The protocol `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL` name
/// (http/protobuf when neither is set).
///
/// # Errors
/// An unknown protocol, named.
pub fn protocol_from_env() -> Result<Protocol, ExportError> {
    let value = [
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
    ]
    .iter()
    .find_map(|name| {
        std::env::var(name)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .map(|v| (name, v))
    });
    match value {
        None => Ok(Protocol::HttpBinary),
        Some((name, value)) => match value.trim().to_ascii_lowercase().as_str() {
            "http/protobuf" => Ok(Protocol::HttpBinary),
            "http/json" => Ok(Protocol::HttpJson),
            "grpc" => Ok(Protocol::Grpc),
            other => Err(ExportError::Build(format!(
                "{name}={other:?} is not a protocol (http/protobuf, http/json, grpc)"
            ))),
        },
    }
}

impl Exporter {
    fn from_env() -> Result<Self, ExportError> {
        // reqwest and tonic bring no crypto provider: ring, as for wink's providers.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let protocol = protocol_from_env()?;
        let endpoint = std::env::var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .or_else(|_| std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT"))
            .unwrap_or_default();
        let health = Arc::new(Health {
            endpoint,
            ..Health::default()
        });
        let build = |e: opentelemetry_otlp::ExporterBuildError| ExportError::Build(e.to_string());
        let inner = match protocol {
            Protocol::Grpc => {
                // tonic needs a Tokio runtime: one thread of its own, kept with the exporter.
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name("wink-otlp-grpc")
                    .enable_all()
                    .build()
                    .map_err(|e| ExportError::Build(format!("cannot start a runtime: {e}")))?;
                let exporter = {
                    let _entered = runtime.enter();
                    opentelemetry_otlp::SpanExporter::builder()
                        .with_tonic()
                        .build()
                        .map_err(build)?
                };
                Inner::Grpc(Arc::new(exporter), runtime)
            }
            other => Inner::Http(Box::new(
                opentelemetry_otlp::SpanExporter::builder()
                    .with_http()
                    .with_protocol(other)
                    .build()
                    .map_err(build)?,
            )),
        };
        let mut exporter = Watched {
            inner,
            health: Arc::clone(&health),
        };
        let resource = resource_from_env();
        exporter.set_resource(&resource);
        let mut processor = BatchSpanProcessor::builder(exporter).build();
        processor.set_resource(&resource);
        Ok(Self {
            processor,
            health,
            scope: InstrumentationScope::builder("wink")
                .with_version(env!("CARGO_PKG_VERSION"))
                .build(),
            shut: AtomicBool::new(false),
        })
    }

    /// Queues one span (never blocks: a full queue drops it).
    pub fn send(&self, span: SpanRecord) {
        if !self.shut.load(Ordering::Relaxed) {
            self.processor.on_end(span_data(span, &self.scope));
        }
    }

    /// Exports what is queued now, waiting for the collector (bounded by the processor's own
    /// timeout).
    pub fn flush(&self) {
        let _ = self.processor.force_flush();
    }

    /// Export failures so far.
    pub fn failures(&self) -> u64 {
        self.health.failures.load(Ordering::Relaxed)
    }

    fn shutdown(&self) {
        if self.shut.swap(true, Ordering::Relaxed) {
            return;
        }
        let health = &self.health;
        let wait = if self.failures() > 0 {
            Duration::ZERO
        } else if health.exported.load(Ordering::Relaxed) > 0
            || crate::reach::answers_within(&health.endpoint, PROBE)
        {
            EXIT_FLUSH
        } else {
            if !health.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    "OpenTelemetry export to {}: the collector does not answer; the run goes on, its spans are dropped (warned once)",
                    health.endpoint
                );
            }
            Duration::ZERO
        };
        let _ = self.processor.shutdown_with_timeout(wait);
    }
}

/// The resource: `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SERVICE_NAME` (default `wink`).
fn resource_from_env() -> Resource {
    let named = std::env::var("OTEL_SERVICE_NAME").is_ok_and(|v| !v.trim().is_empty())
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|v| {
            v.split(',')
                .any(|kv| kv.trim().starts_with("service.name="))
        });
    let builder = Resource::builder();
    if named {
        builder.build()
    } else {
        builder.with_service_name("wink").build()
    }
}

/// The OTLP exporter of the configured protocol.
#[derive(Debug)]
enum Inner {
    Http(Box<opentelemetry_otlp::SpanExporter>),
    Grpc(
        Arc<opentelemetry_otlp::SpanExporter>,
        tokio::runtime::Runtime,
    ),
}

/// The exporter, counting failures and warning at the first one.
#[derive(Debug)]
struct Watched {
    inner: Inner,
    health: Arc<Health>,
}

impl Watched {
    fn record(&self, result: OTelSdkResult) -> OTelSdkResult {
        if result.is_ok() {
            self.health.exported.fetch_add(1, Ordering::Relaxed);
        }
        if let Err(error) = &result {
            self.health.failures.fetch_add(1, Ordering::Relaxed);
            if !self.health.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    "OpenTelemetry export to {} failed ({error}); the run goes on, spans are dropped while the collector does not answer (warned once)",
                    self.health.endpoint
                );
            }
        }
        result
    }
}

impl SpanExporter for Watched {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let result = match &self.inner {
            Inner::Http(exporter) => exporter.export(batch).await,
            Inner::Grpc(exporter, runtime) => {
                let exporter = Arc::clone(exporter);
                match runtime
                    .spawn(async move { exporter.export(batch).await })
                    .await
                {
                    Ok(result) => result,
                    Err(e) => Err(opentelemetry_sdk::error::OTelSdkError::InternalFailure(
                        e.to_string(),
                    )),
                }
            }
        };
        self.record(result)
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        match &self.inner {
            Inner::Http(exporter) => exporter.shutdown_with_timeout(timeout),
            Inner::Grpc(exporter, _) => exporter.shutdown_with_timeout(timeout),
        }
    }

    fn set_resource(&mut self, resource: &Resource) {
        match &mut self.inner {
            Inner::Http(exporter) => exporter.set_resource(resource),
            Inner::Grpc(exporter, _) => {
                if let Some(exporter) = Arc::get_mut(exporter) {
                    exporter.set_resource(resource);
                }
            }
        }
    }
}

fn otel_value(value: AttrValue) -> OtelValue {
    match value {
        AttrValue::Str(s) => OtelValue::String(s.into_otel()),
        AttrValue::Int(n) => OtelValue::I64(n),
        AttrValue::Double(x) => OtelValue::F64(x),
        AttrValue::Bool(b) => OtelValue::Bool(b),
        AttrValue::StrList(items) => OtelValue::Array(opentelemetry::Array::String(
            items.iter().cloned().map(Text::into_otel).collect(),
        )),
    }
}

fn key_values(attributes: Attributes) -> Vec<KeyValue> {
    attributes
        .0
        .into_iter()
        .map(|a| KeyValue::new(a.key, otel_value(a.value)))
        .collect()
}

fn time(ns: u64) -> std::time::SystemTime {
    UNIX_EPOCH + Duration::from_nanos(ns)
}

/// A span record as the SDK's exporters take it.
pub(crate) fn span_data(span: SpanRecord, scope: &InstrumentationScope) -> SpanData {
    let context = SpanContext::new(
        TraceId::from_bytes(span.trace_id),
        SpanId::from_bytes(span.span_id),
        TraceFlags::SAMPLED,
        false,
        TraceState::default(),
    );
    let mut events = SpanEvents::default();
    events.events = span
        .events
        .into_iter()
        .map(|e| {
            opentelemetry::trace::Event::new(e.name, time(e.time_ns), key_values(e.attributes), 0)
        })
        .collect();
    SpanData {
        span_context: context,
        parent_span_id: span
            .parent_span_id
            .map_or(SpanId::INVALID, SpanId::from_bytes),
        parent_span_is_remote: span.parent_is_remote,
        span_kind: match span.kind {
            SpanKind::Client => OtelKind::Client,
            SpanKind::Producer => OtelKind::Producer,
            _ => OtelKind::Internal,
        },
        name: Cow::Owned(span.name),
        start_time: time(span.start_ns),
        end_time: time(span.end_ns),
        attributes: key_values(span.attributes),
        dropped_attributes_count: 0,
        events,
        links: SpanLinks::default(),
        status: match span.status {
            SpanStatus::Error(message) => Status::error(message),
            _ => Status::Unset,
        },
        instrumentation_scope: scope.clone(),
    }
}
