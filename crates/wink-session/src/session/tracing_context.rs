//! A session's trace context: the [`TraceSource`] a tracer installs, asked for the span of each
//! outgoing request, and a [`WeakSession`] for the tracer's bus subscriber.

use std::fmt;
use std::sync::Arc;

use super::{Session, SessionCore};
use crate::trace::{TraceParent, TraceScope, TraceSource};

/// A handle on a [`Session`] that does not keep it alive ([`Session::downgrade`]): for a bus
/// subscriber that needs the session it listens to without holding it forever.
#[derive(Clone)]
pub struct WeakSession {
    core: std::sync::Weak<SessionCore>,
}

impl WeakSession {
    /// The session, while some [`Session`] handle on it still exists.
    pub fn upgrade(&self) -> Option<Session> {
        self.core.upgrade().map(|core| Session { core })
    }
}

impl fmt::Debug for WeakSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WeakSession")
    }
}

impl Session {
    /// Installs (or with `None` removes) the [`TraceSource`] that answers
    /// [`Session::traceparent`]; sessions forked from this one later ask the same source.
    pub fn set_trace_source(&self, source: Option<Arc<dyn TraceSource>>) {
        self.lock().trace = source;
    }

    /// The W3C trace context of the span `scope` names in this session's run: what a provider
    /// request, an MCP request or a queued request sends (`None` when the run is not traced).
    pub fn traceparent(&self, scope: TraceScope<'_>) -> Option<TraceParent> {
        let source = self.lock().trace.clone()?;
        source.traceparent(self.core.id, scope)
    }

    /// A handle that does not keep the session alive.
    pub fn downgrade(&self) -> WeakSession {
        WeakSession {
            core: Arc::downgrade(&self.core),
        }
    }

    /// Tool call `call_id` is made for a caller in another process, in its span `parent`: the
    /// call's span (when the session is traced) continues the caller's trace.
    pub fn continue_trace(&self, call_id: &str, parent: TraceParent) {
        let source = self.lock().trace.clone();
        if let Some(source) = source {
            source.remote_parent(self.core.id, call_id, parent);
        }
    }
}
