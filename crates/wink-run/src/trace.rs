//! Live tracing of the runs prepared here (feature `trace`): with `OTEL_EXPORTER_OTLP_ENDPOINT`
//! set, every session a prompt is loaded in — `wink run`, `wink eval`, `wink worker`,
//! `wink mcp serve`, [`crate::FileAgent`] — exports OpenTelemetry GenAI spans as its run goes
//! (`wink-trace`). Without the feature, or without the environment, nothing happens.

use wink_session::{Session, TraceParent};

/// Traces `session` (its runs, and tool calls made for an MCP client) when spans are exported;
/// a session traced already is left as it is.
pub(crate) fn attach(session: &Session) {
    #[cfg(feature = "trace")]
    wink_trace::trace_session(session);
    #[cfg(not(feature = "trace"))]
    let _ = session;
}

/// Traces the session of a queued request's run: under the submitter's span `parent`, and
/// resumable (a run this worker does not finish is ended by the worker that takes it over).
pub(crate) fn attach_queued(session: &Session, parent: Option<TraceParent>) {
    #[cfg(feature = "trace")]
    wink_trace::trace_session_with(
        session,
        wink_trace::TraceOptions {
            parent,
            resumable: true,
        },
    );
    #[cfg(not(feature = "trace"))]
    let _ = (session, parent);
}

/// Sends the spans of a finished run now, for a program that may exit next without flushing
/// ([`crate::FileAgent`]); nothing when spans are not exported or the collector has failed.
pub(crate) fn flush() {
    #[cfg(feature = "trace")]
    wink_trace::flush();
}
