//! Live tracing: a session's events mapped to spans as the session publishes them, and handed
//! to the process's exporter as each span ends. [`trace_session`] is the one call a run path
//! makes; it also installs the session's [`TraceSource`], so the run's provider requests, MCP
//! requests and sub-agents carry the span they are made in.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use wink_agent::SubagentEvent;
use wink_session::{
    ErasedEvent, ModelCalled, PromptExecuted, PromptRendered, Session, SessionId, ToolInvoked,
    ToolsInjected, TraceParent, TraceScope, TraceSource, TraceStarted, VisibilityExpanded,
    WeakSession,
};

use crate::mapping::{MapOptions, Mapper, is_intervention_type};
use crate::span::{SpanRecord, Text};

/// How a session's run is traced.
#[derive(Clone, Debug, Default)]
pub struct TraceOptions {
    /// The span the run continues, in another process (a queued request's submitter).
    pub parent: Option<TraceParent>,
    /// A run still open when the session goes away is not exported: another process takes it
    /// over and ends its span (durable runs). By default such a run is exported, marked
    /// `wink.run.incomplete`.
    pub resumable: bool,
}

/// Traces `session`'s runs when the process exports spans (the environment asks for it:
/// [`crate::init_from_env`], else [`crate::start_from_env`] starts the exporter now); returns
/// whether it does. Calling it again for the same session does nothing.
pub fn trace_session(session: &Session) -> bool {
    trace_session_with(
        session,
        TraceOptions {
            parent: crate::propagate::env_traceparent(),
            ..TraceOptions::default()
        },
    )
}

/// [`trace_session`] with options (a remote parent, a resumable run).
pub fn trace_session_with(session: &Session, options: TraceOptions) -> bool {
    if !crate::export::start_from_env() {
        return false;
    }
    trace_session_to(session, options, Arc::new(crate::export::export));
    true
}

/// Where a traced session's finished spans go.
pub type SpanSink = Arc<dyn Fn(Vec<SpanRecord>) + Send + Sync>;

/// Traces `session`'s runs into `sink` (each span as it ends), whether or not the process
/// exports: for tests and for programs with their own exporter.
pub fn trace_session_to(session: &Session, options: TraceOptions, sink: SpanSink) {
    let mut registry = registry();
    registry.retain(|weak| weak.strong_count() > 0);
    let id = session.id();
    if registry
        .iter()
        .filter_map(Weak::upgrade)
        .any(|t| t.lock().unwrap_or_else(PoisonError::into_inner).session_id == id)
    {
        return;
    }
    let mut mapper = Mapper::new(MapOptions::from_env()).with_remote_parent(options.parent);
    let key = Text::from(id.to_string());
    mapper.set_default_key(&key);
    let state = Arc::new(Mutex::new(Live {
        mapper,
        session: session.downgrade(),
        session_id: id,
        key,
        resumable: options.resumable,
        parent: options.parent,
        sink,
    }));
    registry.push(Arc::downgrade(&state));
    drop(registry);
    let subscriber = Arc::clone(&state);
    session.bus().subscribe_all(move |event: &dyn ErasedEvent| {
        let started = Live::on_event(&subscriber, event);
        if let Some((started, session)) = started {
            let _ = session.dispatch(started);
        }
        Ok(())
    });
    session.set_trace_source(Some(Arc::new(Source(state))));
}

/// Ends the open runs of every traced session (as incomplete) and exports them: before the
/// process exits.
pub(crate) fn finish_all() {
    let live: Vec<Arc<Mutex<Live>>> = registry().iter().filter_map(Weak::upgrade).collect();
    for state in live {
        let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
        if !state.resumable {
            state.mapper.finish();
        }
        let spans = state.mapper.take_spans();
        (state.sink)(spans);
    }
}

static REGISTRY: Mutex<Vec<Weak<Mutex<Live>>>> = Mutex::new(Vec::new());

fn registry() -> MutexGuard<'static, Vec<Weak<Mutex<Live>>>> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One traced session.
struct Live {
    mapper: Mapper,
    session: WeakSession,
    session_id: SessionId,
    /// `session_id` as the mapper keys its runs.
    key: Text,
    resumable: bool,
    parent: Option<TraceParent>,
    sink: SpanSink,
}

impl Live {
    /// Maps one event; returns a `TraceStarted` to record in the session when a run began.
    fn on_event(
        state: &Arc<Mutex<Live>>,
        event: &dyn ErasedEvent,
    ) -> Option<(TraceStarted, Session)> {
        let mut guard = state.lock().unwrap_or_else(PoisonError::into_inner);
        let live = &mut *guard;
        live.continue_taken_over_run();
        let before = live.mapper.run(&live.key).map(|r| r.span_id);
        let any = event.as_any();
        let mapper = &mut live.mapper;
        if let Some(e) = any.downcast_ref::<PromptRendered>() {
            mapper.on_rendered(e, None);
        } else if let Some(e) = any.downcast_ref::<ModelCalled>() {
            mapper.on_model_called(e);
        } else if let Some(e) = any.downcast_ref::<ToolInvoked>() {
            mapper.on_tool_invoked(e);
        } else if let Some(e) = any.downcast_ref::<ToolsInjected>() {
            mapper.on_tools_injected(e);
        } else if let Some(e) = any.downcast_ref::<VisibilityExpanded>() {
            mapper.on_expanded(e);
        } else if let Some(e) = any.downcast_ref::<PromptExecuted>() {
            mapper.on_executed(e);
        } else if let Some(e) = any.downcast_ref::<TraceStarted>() {
            mapper.on_trace_started(e);
        } else if let Some(e) = any.downcast_ref::<SubagentEvent>() {
            mapper.on_subagent(e);
        } else if is_intervention_type(event.event_type_name())
            && let Ok(json) = event.to_json()
        {
            let key = json
                .get("session_id")
                .and_then(serde_json::Value::as_str)
                .unwrap_or(&live.key);
            let ns = crate::mapping::event_time(&json);
            live.mapper
                .on_intervention(key, event.event_type_name(), &json, ns);
        }
        let spans = live.mapper.take_spans();
        if !spans.is_empty() {
            (live.sink)(spans);
        }
        let run = live.mapper.run(&live.key)?;
        if before == Some(run.span_id) {
            return None;
        }
        let mut started = TraceStarted::new(
            TraceParent {
                trace_id: run.trace_id,
                span_id: run.span_id,
                sampled: true,
            },
            live.parent,
        );
        started.created_at = wink_session::Timestamp::from_unix_micros(
            i64::try_from(run.start_ns / 1_000).unwrap_or(i64::MAX),
        );
        started.session_id = Some(live.session_id);
        Some((started, live.session.upgrade()?))
    }

    /// A run another worker started (its `TraceStarted` replayed into the session) goes on
    /// under the same span.
    fn continue_taken_over_run(&mut self) {
        if self.mapper.run(&self.key).is_some() {
            return;
        }
        let Some(session) = self.session.upgrade() else {
            return;
        };
        let recorded = session.slice::<TraceStarted>().all();
        if let Some(started) = recorded
            .iter()
            .rev()
            .find(|s| s.session_id == Some(self.session_id))
        {
            let ended = session.slice::<PromptExecuted>().all().iter().any(|e| {
                e.created_at >= started.created_at
                    && e.status
                        .as_deref()
                        .is_some_and(|s| s != "expansion_required")
            });
            if !ended {
                let rendered = session.slice::<PromptRendered>().all();
                let last = rendered
                    .iter()
                    .rev()
                    .find(|r| r.session_id == Some(self.session_id));
                self.mapper.resume(&self.key, started, last);
            }
        }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        if !self.resumable {
            self.mapper.finish();
        }
        let spans = self.mapper.take_spans();
        if !spans.is_empty() {
            (self.sink)(spans);
        }
    }
}

/// The trace context of a traced session's spans, for its outgoing requests.
struct Source(Arc<Mutex<Live>>);

impl TraceSource for Source {
    fn remote_parent(&self, session: SessionId, call_id: &str, parent: TraceParent) {
        let mut live = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        live.mapper
            .remote_call(&session.to_string(), call_id, parent);
    }

    fn traceparent(&self, session: SessionId, scope: TraceScope<'_>) -> Option<TraceParent> {
        let mut live = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let key = if session == live.session_id {
            live.continue_taken_over_run();
            live.key.clone()
        } else {
            Text::from(session.to_string())
        };
        let Some(run) = live.mapper.run(&key) else {
            // A tool call outside any run, for a caller that sent its trace (MCP serve).
            let TraceScope::ToolCall { call_id } = scope else {
                return None;
            };
            let parent = live.mapper.remote_call_trace(&key, call_id)?;
            return Some(TraceParent {
                trace_id: parent.trace_id,
                span_id: live.mapper.tool_span(&key, call_id),
                sampled: true,
            });
        };
        let (trace_id, run_span) = (run.trace_id, run.span_id);
        let span_id = match scope {
            TraceScope::ModelCall => live.mapper.next_chat_span(&key),
            TraceScope::ToolCall { call_id } => live.mapper.tool_span(&key, call_id),
            _ => run_span,
        };
        Some(TraceParent {
            trace_id,
            span_id,
            sampled: true,
        })
    }
}
