//! The one mapping from a run's session events to spans, used live (events as the session
//! publishes them) and offline (a session log, a transcript, a Redis run stream):
//!
//! - `PromptRendered` opens the run's `invoke_agent {prompt}` span (or, after a restart, its
//!   next evaluation) and gives the section tree;
//! - `ModelCalled` is a `chat {model}` span, `ToolInvoked` an `execute_tool {tool}` span (with
//!   a `retrieval` child for `find_tool`);
//! - disclosure and interventions are events of the run span: `wink.section.opened`,
//!   `wink.tools.injected`, `wink.run.restarted`, `wink.intervention` (any event type whose name
//!   says intervention or repair, with its fields);
//! - `PromptExecuted` ends the run unless a restart follows; `SubagentEvent`s are the runs of
//!   sub-agents, nested under the `execute_tool` span of the call that dispatched them.
//!
//! Span ids come from the events: the span a call was traced in when the event records it
//! (live runs), else derived from the event's id, so a log maps to the same ids every time.

mod content;
mod keyed;
mod run;

use std::sync::OnceLock;

use serde_json::Value;
use wink_agent::SubagentEvent;
use wink_session::{
    ExpansionPath, ModelCalled, PromptExecuted, PromptRendered, ToolInvoked, ToolsInjected,
    TraceParent, TraceStarted, VisibilityExpanded,
};

pub use content::{REDACTED, Redactor};
use keyed::{ByCall, ByRun};
pub(crate) use run::RunState;

use crate::semconv::{self, event as ev, operation, wink};
use crate::span::{
    AttrValue, Attributes, SpanId, SpanKind, SpanRecord, SpanStatus, Text, nanos, span_id_of,
};
use crate::text::{shared, shared_list};

/// The `find_tool` meta-tool (a retrieval over a tool catalog).
const FIND_TOOL: &str = "find_tool";
/// What `find_tool` returns by default (`wink-catalog`'s default limit).
const FIND_TOOL_DEFAULT_LIMIT: f64 = 5.0;

/// How spans are written.
#[derive(Clone, Debug, Default)]
pub struct MapOptions {
    /// Put message and tool content on spans (`gen_ai.input.messages`, tool arguments and
    /// results, the `find_tool` query): `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`.
    pub capture_content: bool,
    /// Secrets blanked out of captured content.
    pub redactor: Redactor,
}

impl MapOptions {
    /// Content capture as `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` says (`true`,
    /// any case), secrets from the environment: read once per process (every traced session
    /// asks).
    pub fn from_env() -> Self {
        static FROM_ENV: OnceLock<MapOptions> = OnceLock::new();
        FROM_ENV
            .get_or_init(|| Self {
                capture_content: std::env::var(
                    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
                )
                .is_ok_and(|v| v.trim().eq_ignore_ascii_case("true")),
                redactor: Redactor::from_env(),
            })
            .clone()
    }
}

/// Whether a session event type is an intervention or a repair (shown as
/// `wink.intervention` span events with its fields): `LoopIntervention`, `TurnRepaired`, ...
pub fn is_intervention_type(type_name: &str) -> bool {
    type_name.contains("Intervention") || type_name.contains("Repair")
}

/// Builds spans from a run's events in order; finished spans are collected for
/// [`Mapper::take_spans`].
#[derive(Debug, Default)]
pub struct Mapper {
    options: MapOptions,
    runs: ByRun<RunState>,
    /// The root run's session when events do not name theirs.
    default_key: Text,
    /// Ids the tracer chose for tool calls before their events arrived: (run, call id) → span.
    tool_spans: ByCall<SpanId>,
    /// The span the next model call of a run will be made in (chosen when asked for).
    next_chat: ByRun<SpanId>,
    /// Run ids given before the run's first event (a `TraceStarted` read back at a takeover,
    /// with the run's last `PromptRendered` when there is one).
    pending: ByRun<(TraceStarted, Option<PromptRendered>)>,
    /// The remote parent of the root run (a queued request's submitter).
    remote_parent: Option<TraceParent>,
    /// Tool calls made for a caller in another process (an MCP client), by (run, call id).
    remote_calls: ByCall<TraceParent>,
    /// The key of the session the last event named (events come in runs of one session).
    last_key: Option<(wink_session::SessionId, Text)>,
    out: Vec<SpanRecord>,
}

impl Mapper {
    /// A mapper writing spans as `options` say.
    pub fn new(options: MapOptions) -> Self {
        Self {
            options,
            ..Self::default()
        }
    }

    /// The root run continues `parent` (a span in another process).
    pub fn with_remote_parent(mut self, parent: Option<TraceParent>) -> Self {
        self.remote_parent = parent;
        self
    }

    /// Events that do not name their session belong to `key`'s run.
    pub fn set_default_key(&mut self, key: &str) {
        self.default_key = Text::from(key);
    }

    /// The spans finished since the last call.
    pub fn take_spans(&mut self) -> Vec<SpanRecord> {
        std::mem::take(&mut self.out)
    }

    /// Ends every open run at its last event (marked `wink.run.incomplete` unless it ended).
    pub fn finish(&mut self) {
        let mut keys: Vec<Text> = self.runs.keys().cloned().collect();
        keys.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        // Children first, so each ends before the run that dispatched it.
        keys.sort_by_key(|k| *k == self.default_key);
        for key in keys {
            if let Some(run) = self.runs.remove(&key) {
                let ended = run.maybe_ended;
                self.out.push(run.into_span(!ended));
            }
        }
    }

    /// The open run of `key`, if any.
    pub(crate) fn run(&self, key: &str) -> Option<&RunState> {
        self.runs.get(key)
    }

    /// Records that `key`'s run started as `started` says (its ids and parent) and last rendered
    /// as `rendered` says: used before the run's first event when a takeover continues it.
    pub fn resume(&mut self, key: &str, started: &TraceStarted, rendered: Option<&PromptRendered>) {
        let key = self.key_text(key);
        self.pending
            .insert(key, (started.clone(), rendered.cloned()));
    }

    /// The span id for tool call `call_id` of `key`'s run, chosen now if not yet.
    pub fn tool_span(&mut self, key: &str, call_id: &str) -> SpanId {
        let key = self.key_text(key);
        *self
            .tool_spans
            .get_or_insert_with(&key, call_id, crate::span::random_span_id)
    }

    /// The span id the next model call of `key`'s run is made in, chosen now if not yet.
    pub fn next_chat_span(&mut self, key: &str) -> SpanId {
        if let Some(span) = self.next_chat.get(key) {
            return *span;
        }
        let span = crate::span::random_span_id();
        let key = self.key_text(key);
        self.next_chat.insert(key, span);
        span
    }

    /// Tool call `call_id` of `key` is made for a caller in another process, in its span
    /// `parent`: without a run around it, its span is a child of `parent`.
    pub fn remote_call(&mut self, key: &str, call_id: &str, parent: TraceParent) {
        let key = self.key_text(key);
        self.remote_calls.insert(&key, call_id, parent);
    }

    /// The trace a tool call of `key` outside any run belongs to (its remote caller's).
    pub(crate) fn remote_call_trace(&self, key: &str, call_id: &str) -> Option<TraceParent> {
        self.remote_calls.get(key, call_id).copied()
    }

    /// Learns the tool-call span ids a log records (its `ToolInvoked` events), so a sub-agent's
    /// run, which the log holds before the call that dispatched it ends, nests under the right span.
    pub fn learn_tool_span(&mut self, key: &str, call_id: &str, span: SpanId) {
        let key = self.key_text(key);
        self.tool_spans.insert(&key, call_id, span);
    }

    /// `key` as the mapper keeps it: shared with the keys it holds already.
    fn key_text(&self, key: &str) -> Text {
        if self.default_key == key {
            return self.default_key.clone();
        }
        match &self.last_key {
            Some((_, last)) if *last == key => last.clone(),
            _ => Text::from(key),
        }
    }

    fn key_of(&mut self, session: Option<&wink_session::SessionId>) -> Text {
        let Some(session) = session else {
            return self.default_key.clone();
        };
        match &self.last_key {
            Some((id, key)) if id == session => key.clone(),
            _ => {
                let key = Text::from(session.to_string());
                self.last_key = Some((*session, key.clone()));
                key
            }
        }
    }

    /// Feeds one session event, by type name and JSON (an offline record).
    pub fn feed_json(&mut self, type_name: &str, event: &Value) {
        self.feed_json_in(None, type_name, event);
    }

    fn feed_json_in(
        &mut self,
        parent: Option<(&str, &SubagentEvent)>,
        type_name: &str,
        event: &Value,
    ) {
        match type_name {
            "PromptRendered" => {
                self.apply(event, |m, e: &PromptRendered| m.on_rendered(e, parent));
            }
            "ModelCalled" => self.apply(event, Self::on_model_called),
            "ToolInvoked" => self.apply(event, Self::on_tool_invoked),
            "ToolsInjected" => self.apply(event, Self::on_tools_injected),
            "VisibilityExpanded" => self.apply(event, Self::on_expanded),
            "PromptExecuted" => self.apply(event, Self::on_executed),
            "TraceStarted" => self.apply(event, Self::on_trace_started),
            "SubagentEvent" => self.apply(event, Self::on_subagent),
            other if is_intervention_type(other) => {
                let key = event
                    .get("session_id")
                    .and_then(Value::as_str)
                    .map_or_else(|| self.default_key.to_string(), str::to_owned);
                let ns = event_time(event);
                self.on_intervention(&key, other, event, ns);
            }
            _ => {}
        }
    }

    /// Decodes `event` as a `T` and maps it with `map` (an event that does not decode, from a
    /// log of another version, is skipped).
    fn apply<T: serde::de::DeserializeOwned>(
        &mut self,
        event: &Value,
        map: impl FnOnce(&mut Self, &T),
    ) {
        if let Ok(decoded) = serde_json::from_value::<T>(event.clone()) {
            map(self, &decoded);
        }
    }

    /// A sub-agent's event: mapped into the child's run, nested under the dispatching call.
    pub fn on_subagent(&mut self, event: &SubagentEvent) {
        self.feed_json_in(
            Some((&event.parent_session_id.to_string(), event)),
            &event.event_type,
            &event.event,
        );
    }

    /// `PromptRendered`: a run starts, or its next evaluation after a restart.
    pub fn on_rendered(&mut self, e: &PromptRendered, subagent: Option<(&str, &SubagentEvent)>) {
        let key = self.key_of(e.session_id.as_ref());
        let ns = nanos(e.created_at);
        if let Some(run) = self.runs.get_mut(&key) {
            if run.awaiting_restart {
                run.awaiting_restart = false;
                run.maybe_ended = false;
                run.evaluation += 1;
                run.touch(ns);
                run.render(&e.sections);
                return;
            }
            self.close(&key);
        }
        let mut run = match self.pending.remove(&key) {
            Some((started, _)) => RunState::started(&started),
            None => self.new_run(&key, e, subagent, ns),
        };
        run.touch(ns);
        run.rendered(e);
        self.runs.insert(key, run);
    }

    /// A fresh run's ids: a sub-agent's run joins its parent's trace under the dispatching
    /// call; a root run starts a trace (or continues the remote parent's).
    fn new_run(
        &mut self,
        key: &str,
        e: &PromptRendered,
        subagent: Option<(&str, &SubagentEvent)>,
        ns: u64,
    ) -> RunState {
        let span_id = span_id_of(&e.event_id, 1);
        if let Some((parent_key, sub)) = subagent
            && let Some(parent) = self.runs.get(parent_key)
        {
            let parent_span = sub
                .call_id
                .as_ref()
                .and_then(|call| self.tool_spans.get(parent_key, call).copied())
                .unwrap_or(parent.span_id);
            let mut run = RunState::new(parent.trace_id, span_id, ns);
            run.parent = Some(parent_span);
            return run;
        }
        if self.default_key == key
            && let Some(parent) = self.remote_parent
        {
            let mut run = RunState::new(parent.trace_id, span_id, ns);
            run.parent = Some(parent.span_id);
            run.parent_is_remote = true;
            return run;
        }
        RunState::new(*e.event_id.as_bytes(), span_id, ns)
    }

    /// `TraceStarted`: the run's ids as a tracer chose them (before any of its spans).
    pub fn on_trace_started(&mut self, e: &TraceStarted) {
        let key = self.key_of(e.session_id.as_ref());
        match self.runs.get_mut(&key) {
            Some(run) if run.emitted == 0 => {
                run.trace_id = e.span.trace_id;
                run.span_id = e.span.span_id;
                run.start_ns = run.start_ns.min(nanos(e.created_at));
                if let Some(parent) = e.parent {
                    run.parent = Some(parent.span_id);
                    run.parent_is_remote = true;
                }
            }
            Some(_) => {}
            None => {
                self.pending.insert(key, (e.clone(), None));
            }
        }
    }

    /// The open run of `key`, opened from a pending `TraceStarted` when there is one.
    fn run_mut(&mut self, key: &str, ns: u64) -> Option<&mut RunState> {
        if !self.runs.contains_key(key)
            && let Some((started, rendered)) = self.pending.remove(key)
        {
            let mut run = RunState::started(&started);
            let key = self.key_text(key);
            match &rendered {
                Some(rendered) => run.rendered(rendered),
                None => run.session_id = key.clone(),
            }
            self.runs.insert(key, run);
        }
        let run = self.runs.get_mut(key)?;
        run.touch(ns);
        Some(run)
    }

    /// `ModelCalled`: a `chat` span.
    pub fn on_model_called(&mut self, e: &ModelCalled) {
        let key = self.key_of(e.session_id.as_ref());
        let (start, end) = (nanos(e.started_at), nanos(e.created_at));
        let planned = self.next_chat.remove(&key);
        let capture = self.options.capture_content;
        let redactor = self.options.redactor.clone();
        let (model, adapter) = (shared(&e.model), shared(&e.adapter));
        let provider = shared(semconv::provider_name(&e.adapter));
        let tools = shared_list(&e.tools);
        let reasons = e
            .finish_reason
            .as_ref()
            .map(|reason| shared_list(std::slice::from_ref(reason)));
        let Some(run) = self.run_mut(&key, end) else {
            return;
        };
        let span_id = e
            .span
            .map(|s| s.span_id)
            .or(planned)
            .unwrap_or_else(|| span_id_of(&e.event_id, 2));
        let mut attributes = Attributes::with_capacity(16);
        attributes.push(semconv::OPERATION_NAME, Text::from_static(operation::CHAT));
        attributes.push(semconv::PROVIDER_NAME, provider);
        attributes.push(semconv::REQUEST_MODEL, model.clone());
        attributes.push(semconv::RESPONSE_MODEL, model);
        if !run.session_id.is_empty() {
            attributes.push(semconv::CONVERSATION_ID, run.session_id.clone());
        }
        if let Some(usage) = e.usage {
            attributes.push(semconv::USAGE_INPUT_TOKENS, usage.input_tokens);
            attributes.push(semconv::USAGE_OUTPUT_TOKENS, usage.output_tokens);
            attributes.push(semconv::USAGE_CACHE_READ_INPUT_TOKENS, usage.cached_tokens);
            run.input_tokens += usage.input_tokens;
            run.output_tokens += usage.output_tokens;
            run.cached_tokens += usage.cached_tokens;
        }
        if let Some(reasons) = reasons {
            attributes.push(semconv::RESPONSE_FINISH_REASONS, reasons);
        }
        attributes.push(wink::ADAPTER, adapter);
        attributes.push(wink::MODEL_CALL_INDEX, run.model_calls);
        attributes.push(wink::EVALUATION, run.evaluation);
        attributes.push(wink::MESSAGES, e.messages);
        attributes.push(wink::TOOLS_OFFERED, tools);
        attributes.push(wink::PROMPT_SECTIONS, run.sections_json());
        if capture {
            if e.index == 0 {
                run.conversation.clear();
            }
            run.conversation.extend(e.new_messages.iter().cloned());
            chat_content(&mut attributes, e, &run.conversation, &redactor);
        }
        let mut status = SpanStatus::Unset;
        if let Some(error) = &e.error {
            attributes.push(
                semconv::ERROR_TYPE,
                e.error_type.as_deref().unwrap_or(semconv::ERROR_TYPE_OTHER),
            );
            attributes.push(wink::ERROR_MESSAGE, error.as_str());
            status = SpanStatus::Error(error.clone());
        }
        run.model_calls += 1;
        run.emitted += 1;
        run.last_call_end_ns = end;
        run.adapter.get_or_insert_with(|| e.adapter.clone());
        run.model.get_or_insert_with(|| e.model.clone());
        let span = SpanRecord {
            trace_id: run.trace_id,
            span_id,
            parent_span_id: Some(run.span_id),
            parent_is_remote: false,
            name: span_name(operation::CHAT, &e.model),
            kind: if e.adapter == "local" || e.adapter == "scripted" {
                SpanKind::Internal
            } else {
                SpanKind::Client
            },
            start_ns: start,
            end_ns: end.max(start),
            attributes,
            events: Vec::new(),
            status,
        };
        self.out.push(span);
    }

    /// `ToolInvoked`: an `execute_tool` span (and a `retrieval` child for `find_tool`); the
    /// sections a disclosure call opened are events of the run. A call outside any run (an
    /// MCP client's) is a span of its own, in its caller's trace when the caller sent one.
    pub fn on_tool_invoked(&mut self, e: &ToolInvoked) {
        let key = self.key_of(e.session_id.as_ref());
        let end = nanos(e.created_at);
        let call_id = e.call_id.as_deref().unwrap_or_default();
        let planned = self.tool_spans.remove(&key, call_id);
        let remote = self.remote_calls.remove(&key, call_id);
        let options = self.options.clone();
        let tool = shared(&e.name);
        let span_id = e
            .span
            .map(|s| s.span_id)
            .or(planned)
            .unwrap_or_else(|| span_id_of(&e.event_id, 3));
        let mut attributes = tool_attributes(e, tool, call_id, &options);
        let Some(run) = self.run_mut(&key, end) else {
            let trace_id = remote.map_or(*e.event_id.as_bytes(), |p| p.trace_id);
            attributes.push(semconv::CONVERSATION_ID, key.as_str());
            let start = e.started_at.map_or(end, nanos).min(end);
            if e.name == FIND_TOOL {
                self.out
                    .push(retrieval_span(e, trace_id, span_id, start, end, &options));
            }
            self.out.push(SpanRecord {
                trace_id,
                span_id,
                parent_span_id: remote.map(|p| p.span_id),
                parent_is_remote: remote.is_some(),
                name: span_name(operation::EXECUTE_TOOL, &e.name),
                kind: SpanKind::Internal,
                start_ns: start,
                end_ns: end,
                attributes,
                events: Vec::new(),
                status: tool_status(e),
            });
            return;
        };
        let start = e.started_at.map_or(run.last_call_end_ns, nanos).min(end);
        attributes.push(wink::MODEL_CALL_INDEX, run.model_calls.saturating_sub(1));
        attributes.push(wink::EVALUATION, run.evaluation);
        run.tool_calls += 1;
        run.emitted += 1;
        let (trace_id, run_span) = (run.trace_id, run.span_id);
        if e.success
            && let Some(disclosure) = &e.disclosure
        {
            for key in &disclosure.requested_sections {
                if run.open_section(key, end) {
                    let mut attrs = Attributes::default();
                    attrs.push(wink::SECTION_KEY, key.as_str());
                    attrs.push(semconv::TOOL_CALL_ID, call_id);
                    attrs.push(semconv::TOOL_NAME, e.name.as_str());
                    run.event(ev::SECTION_OPENED, end, attrs);
                }
            }
        }
        if e.name == FIND_TOOL {
            self.out
                .push(retrieval_span(e, trace_id, span_id, start, end, &options));
        }
        self.out.push(SpanRecord {
            trace_id,
            span_id,
            parent_span_id: Some(run_span),
            parent_is_remote: false,
            name: span_name(operation::EXECUTE_TOOL, &e.name),
            kind: SpanKind::Internal,
            start_ns: start,
            end_ns: end,
            attributes,
            events: Vec::new(),
            status: tool_status(e),
        });
    }

    /// `ToolsInjected`: a `wink.tools.injected` event of the run.
    pub fn on_tools_injected(&mut self, e: &ToolsInjected) {
        let key = self.key_of(e.session_id.as_ref());
        let ns = nanos(e.timestamp);
        let Some(run) = self.run_mut(&key, ns) else {
            return;
        };
        run.inject(&e.section_key, &e.tool_names);
        let mut attrs = Attributes::default();
        attrs.push(wink::SECTION_KEY, e.section_key.as_str());
        attrs.push(wink::TOOLS, e.tool_names.clone());
        run.event(ev::TOOLS_INJECTED, ns, attrs);
    }

    /// `VisibilityExpanded`: sections opened (dynamically, or by a restart that follows).
    pub fn on_expanded(&mut self, e: &VisibilityExpanded) {
        let key = self.key_of(e.session_id.as_ref());
        let ns = nanos(e.created_at);
        let Some(run) = self.run_mut(&key, ns) else {
            return;
        };
        for section in &e.section_keys {
            if run.open_section(section, ns) {
                let mut attrs = Attributes::default();
                attrs.push(wink::SECTION_KEY, section.as_str());
                run.event(ev::SECTION_OPENED, ns, attrs);
            }
        }
        if e.path == ExpansionPath::Restart {
            run.awaiting_restart = true;
            let mut attrs = Attributes::default();
            attrs.push(wink::SECTIONS, e.section_keys.clone());
            attrs.push("wink.reason", e.reason.as_str());
            run.event(ev::RUN_RESTARTED, ns, attrs);
        }
    }

    /// An intervention or repair event: a `wink.intervention` event of the run with the
    /// event's fields (`arguments`, `params` and `text`, which hold what the model wrote, only
    /// with content capture).
    pub fn on_intervention(&mut self, key: &str, type_name: &str, event: &Value, ns: u64) {
        let capture = self.options.capture_content;
        let redactor = self.options.redactor.clone();
        let Some(run) = self.run_mut(key, ns) else {
            return;
        };
        let mut attrs = Attributes::default();
        attrs.push(wink::EVENT_TYPE, type_name);
        if let Value::Object(fields) = event {
            for (field, value) in fields {
                if matches!(field.as_str(), "event_id" | "created_at" | "session_id") {
                    continue;
                }
                let content = matches!(field.as_str(), "arguments" | "params" | "text");
                if content && !capture {
                    continue;
                }
                let value = match value {
                    Value::Null => continue,
                    Value::Bool(b) => AttrValue::Bool(*b),
                    Value::Number(n) => n.as_i64().map_or_else(
                        || AttrValue::Double(n.as_f64().unwrap_or(0.0)),
                        AttrValue::Int,
                    ),
                    Value::String(s) => AttrValue::Str(redactor.clean(s).into()),
                    other => AttrValue::Str(redactor.json(other).into()),
                };
                attrs.set(format!("wink.{field}"), value);
            }
        }
        run.event(ev::INTERVENTION, ns, attrs);
    }

    /// `PromptExecuted`: the run ends, unless it asked for sections (a restart may follow).
    pub fn on_executed(&mut self, e: &PromptExecuted) {
        let key = self.key_of(e.session_id.as_ref());
        let ns = nanos(e.created_at);
        let Some(run) = self.run_mut(&key, ns) else {
            return;
        };
        run.status.clone_from(&e.status);
        run.error.clone_from(&e.error);
        match e.status.as_deref() {
            Some("expansion_required") => run.awaiting_restart = true,
            Some(_) => self.close(&key),
            // A log from before statuses: ended, unless a restart follows.
            None => run.maybe_ended = true,
        }
    }

    fn close(&mut self, key: &str) {
        if let Some(run) = self.runs.remove(key) {
            let incomplete = run.status.is_none() && !run.maybe_ended;
            self.out.push(run.into_span(incomplete));
        }
    }
}

/// A span's name: its operation and what it is about (`chat gpt-4.1`), written without the
/// formatting machinery.
pub(crate) fn span_name(operation: &str, subject: &str) -> String {
    let mut name = String::with_capacity(operation.len() + 1 + subject.len());
    name.push_str(operation);
    name.push(' ');
    name.push_str(subject);
    name
}

/// The time of an event from its `created_at` (or `timestamp`) field, in Unix nanoseconds.
pub(crate) fn event_time(event: &Value) -> u64 {
    event
        .get("created_at")
        .or_else(|| event.get("timestamp"))
        .and_then(|v| serde_json::from_value::<wink_session::Timestamp>(v.clone()).ok())
        .map_or(0, nanos)
}

/// The attributes of an `execute_tool` span.
fn tool_attributes(e: &ToolInvoked, tool: Text, call_id: &str, options: &MapOptions) -> Attributes {
    let mut attributes = Attributes::with_capacity(10);
    attributes.push(
        semconv::OPERATION_NAME,
        Text::from_static(operation::EXECUTE_TOOL),
    );
    attributes.push(semconv::TOOL_NAME, tool);
    attributes.push(semconv::TOOL_TYPE, Text::from_static("function"));
    if !call_id.is_empty() {
        attributes.push(semconv::TOOL_CALL_ID, call_id);
    }
    if options.capture_content {
        attributes.push(
            semconv::TOOL_CALL_ARGUMENTS,
            options.redactor.json(&e.params),
        );
        attributes.push(
            semconv::TOOL_CALL_RESULT,
            options.redactor.clean(&e.rendered_output),
        );
    }
    if !e.success {
        let error_type = if e.message.starts_with("Tool validation failed") {
            "validation"
        } else {
            "tool_error"
        };
        attributes.push(semconv::ERROR_TYPE, error_type);
        attributes.push(wink::ERROR_MESSAGE, e.message.as_str());
    }
    attributes
}

fn tool_status(e: &ToolInvoked) -> SpanStatus {
    if e.success {
        SpanStatus::Unset
    } else {
        SpanStatus::Error(e.message.clone())
    }
}

/// The content attributes of a `chat` span.
fn chat_content(
    attributes: &mut Attributes,
    e: &ModelCalled,
    conversation: &[Value],
    redactor: &Redactor,
) {
    if let Some(system) = content::system_instructions(conversation) {
        attributes.push(semconv::SYSTEM_INSTRUCTIONS, redactor.json(&system));
    }
    let input: Vec<Value> = conversation
        .iter()
        .filter_map(content::genai_message)
        .collect();
    attributes.push(semconv::INPUT_MESSAGES, redactor.json(&Value::Array(input)));
    let mut parts = Vec::new();
    if let Some(text) = e.text.as_ref().filter(|t| !t.is_empty()) {
        parts.push(serde_json::json!({"type": "text", "content": text}));
    }
    for call in &e.tool_calls {
        parts.push(serde_json::json!({
            "type": "tool_call", "id": call.id, "name": call.name,
            "arguments": content::arguments(Some(&call.arguments)),
        }));
    }
    let output = serde_json::json!([{
        "role": "assistant",
        "parts": parts,
        "finish_reason": e.finish_reason.clone().unwrap_or_else(|| "stop".to_owned()),
    }]);
    attributes.push(semconv::OUTPUT_MESSAGES, redactor.json(&output));
}

/// The `retrieval` span of a `find_tool` call, child of its `execute_tool` span.
fn retrieval_span(
    e: &ToolInvoked,
    trace_id: crate::span::TraceId,
    parent: SpanId,
    start: u64,
    end: u64,
    options: &MapOptions,
) -> SpanRecord {
    let mut attributes = Attributes::default();
    attributes.push(
        semconv::OPERATION_NAME,
        Text::from_static(operation::RETRIEVAL),
    );
    attributes.push(semconv::DATA_SOURCE_ID, "tool_catalog");
    let top_k = e
        .params
        .get("limit")
        .and_then(Value::as_f64)
        .unwrap_or(FIND_TOOL_DEFAULT_LIMIT);
    attributes.push(semconv::REQUEST_TOP_K, AttrValue::Double(top_k));
    let hits = e
        .rendered_output
        .lines()
        .filter(|line| line.trim_start().starts_with("- "))
        .count() as u64;
    attributes.push(wink::RETRIEVAL_RESULTS, hits);
    if options.capture_content
        && let Some(query) = e.params.get("purpose").and_then(Value::as_str)
    {
        attributes.push(semconv::RETRIEVAL_QUERY_TEXT, options.redactor.clean(query));
    }
    let status = if e.success {
        SpanStatus::Unset
    } else {
        SpanStatus::Error(e.message.clone())
    };
    SpanRecord {
        trace_id,
        span_id: span_id_of(&e.event_id, 4),
        parent_span_id: Some(parent),
        parent_is_remote: false,
        name: span_name(operation::RETRIEVAL, "tool_catalog"),
        kind: SpanKind::Internal,
        start_ns: start,
        end_ns: end,
        attributes,
        events: Vec::new(),
        status,
    }
}
