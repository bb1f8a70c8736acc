//! One run being mapped: its `invoke_agent` span (open until the run ends), the section tree of
//! its current evaluation with what was opened and injected, and its totals.

use serde::Serialize;
use serde_json::Value;
use wink_session::{RenderedSectionTelemetry, SectionVisibility};

use crate::semconv::{self, wink};
use crate::span::{Attributes, SpanEvent, SpanId, SpanKind, SpanRecord, SpanStatus, TraceId};

/// A section of the current evaluation's prompt and what happened to it.
#[derive(Clone, Debug)]
pub(crate) struct SectionState {
    pub(crate) rendered: RenderedSectionTelemetry,
    /// The run's model-call index before which it was opened, and when.
    pub(crate) opened: Option<(u32, u64)>,
    /// Tools injected from it.
    pub(crate) injected: Vec<String>,
}

/// One section of `wink.prompt.sections`.
#[derive(Serialize)]
struct SectionJson<'a> {
    key: &'a str,
    title: &'a str,
    depth: u32,
    visibility: &'static str,
    bytes: u64,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    tools: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    hidden_tools: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    opened_before_call: Option<u32>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    injected: &'a [String],
}

/// A run between its first event and its end.
#[derive(Debug)]
pub(crate) struct RunState {
    pub(crate) trace_id: TraceId,
    pub(crate) span_id: SpanId,
    pub(crate) parent: Option<SpanId>,
    pub(crate) parent_is_remote: bool,
    pub(crate) start_ns: u64,
    pub(crate) last_ns: u64,
    pub(crate) session_id: String,
    pub(crate) prompt: String,
    pub(crate) prompt_key: String,
    pub(crate) adapter: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) events: Vec<SpanEvent>,
    pub(crate) sections: Vec<SectionState>,
    /// Keys opened in this run (kept over restarts, which render them in full).
    pub(crate) opened: Vec<(String, u32, u64)>,
    pub(crate) evaluation: u32,
    pub(crate) model_calls: u32,
    pub(crate) tool_calls: u32,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    pub(crate) cached_tokens: u64,
    /// The evaluation ended asking for sections: a restart may follow.
    pub(crate) awaiting_restart: bool,
    /// The last evaluation ended without saying how (a log written before statuses were
    /// recorded): the run ends unless a restart follows.
    pub(crate) maybe_ended: bool,
    pub(crate) status: Option<String>,
    pub(crate) error: Option<String>,
    /// Spans of this run handed out so far (a `TraceStarted` may re-id a run only before).
    pub(crate) emitted: u32,
    /// The conversation of the current evaluation (content capture).
    pub(crate) conversation: Vec<Value>,
    /// End of the last model call (a tool call without its own start time starts there).
    pub(crate) last_call_end_ns: u64,
    /// [`RunState::sections_json`] since the tree last changed.
    sections_text: Option<String>,
}

impl RunState {
    pub(crate) fn new(trace_id: TraceId, span_id: SpanId, start_ns: u64) -> Self {
        Self {
            trace_id,
            span_id,
            parent: None,
            parent_is_remote: false,
            start_ns,
            last_ns: start_ns,
            session_id: String::new(),
            prompt: String::new(),
            prompt_key: String::new(),
            adapter: None,
            model: None,
            events: Vec::new(),
            sections: Vec::new(),
            opened: Vec::new(),
            evaluation: 0,
            model_calls: 0,
            tool_calls: 0,
            input_tokens: 0,
            output_tokens: 0,
            cached_tokens: 0,
            awaiting_restart: false,
            maybe_ended: false,
            status: None,
            error: None,
            emitted: 0,
            conversation: Vec::new(),
            last_call_end_ns: start_ns,
            sections_text: None,
        }
    }

    /// A run whose ids a tracer recorded (`TraceStarted`).
    pub(crate) fn started(started: &wink_session::TraceStarted) -> Self {
        let mut run = Self::new(
            started.span.trace_id,
            started.span.span_id,
            crate::span::nanos(started.created_at),
        );
        if let Some(parent) = started.parent {
            run.parent = Some(parent.span_id);
            run.parent_is_remote = true;
        }
        run
    }

    /// What a `PromptRendered` says of the run: its session, prompt, adapter and sections.
    pub(crate) fn rendered(&mut self, e: &wink_session::PromptRendered) {
        self.session_id = e.session_id.map(|s| s.to_string()).unwrap_or_default();
        self.prompt = e
            .prompt_name
            .clone()
            .unwrap_or_else(|| format!("{}:{}", e.prompt_ns, e.prompt_key));
        self.prompt_key = format!("{}:{}", e.prompt_ns, e.prompt_key);
        self.adapter = Some(e.adapter.clone());
        self.render(&e.sections);
    }

    pub(crate) fn touch(&mut self, ns: u64) {
        self.last_ns = self.last_ns.max(ns);
    }

    /// A new evaluation's sections (sections opened earlier keep their mark).
    pub(crate) fn render(&mut self, sections: &[RenderedSectionTelemetry]) {
        self.sections = sections
            .iter()
            .map(|rendered| SectionState {
                opened: self
                    .opened
                    .iter()
                    .find(|(key, _, _)| *key == rendered.key)
                    .map(|(_, call, at)| (*call, *at)),
                rendered: rendered.clone(),
                injected: Vec::new(),
            })
            .collect();
        self.sections_text = None;
        self.conversation.clear();
    }

    /// Marks `key` opened now (before model call number `self.model_calls`); `false` when it
    /// was open already.
    pub(crate) fn open_section(&mut self, key: &str, ns: u64) -> bool {
        if self.opened.iter().any(|(k, _, _)| k == key) {
            return false;
        }
        self.opened.push((key.to_owned(), self.model_calls, ns));
        if let Some(section) = self.sections.iter_mut().find(|s| s.rendered.key == key) {
            section.opened = Some((self.model_calls, ns));
            self.sections_text = None;
        }
        true
    }

    pub(crate) fn inject(&mut self, key: &str, tools: &[String]) {
        if let Some(section) = self.sections.iter_mut().find(|s| s.rendered.key == key) {
            section.injected.extend(tools.iter().cloned());
            self.sections_text = None;
        }
    }

    /// The section tree as a model call sees it now (`wink.prompt.sections`), built again only
    /// when it changed.
    pub(crate) fn sections_json(&mut self) -> String {
        if let Some(text) = &self.sections_text {
            return text.clone();
        }
        let text = self.build_sections_json();
        self.sections_text = Some(text.clone());
        text
    }

    fn build_sections_json(&self) -> String {
        let items: Vec<SectionJson<'_>> = self
            .sections
            .iter()
            .map(|s| SectionJson {
                key: &s.rendered.key,
                title: &s.rendered.title,
                depth: s.rendered.depth,
                visibility: match s.rendered.visibility {
                    SectionVisibility::Full => "full",
                    _ => "summary",
                },
                bytes: s.rendered.bytes,
                tools: &s.rendered.tools,
                hidden_tools: &s.rendered.hidden_tools,
                opened_before_call: s.opened.map(|(call, _)| call),
                injected: &s.injected,
            })
            .collect();
        serde_json::to_string(&items).unwrap_or_default()
    }

    pub(crate) fn event(&mut self, name: &str, ns: u64, attributes: Attributes) {
        self.touch(ns);
        self.events.push(SpanEvent {
            name: name.to_owned(),
            time_ns: ns,
            attributes,
        });
    }

    /// The run's `invoke_agent` span, ended at its last event. `incomplete`: the trace was cut
    /// before the run ended.
    pub(crate) fn into_span(self, incomplete: bool) -> SpanRecord {
        let mut attributes = Attributes::default();
        attributes.push(semconv::OPERATION_NAME, semconv::operation::INVOKE_AGENT);
        if let Some(adapter) = &self.adapter {
            attributes.push(semconv::PROVIDER_NAME, semconv::provider_name(adapter));
            attributes.push(wink::ADAPTER, adapter.as_str());
        }
        if let Some(model) = &self.model {
            attributes.push(semconv::REQUEST_MODEL, model.as_str());
        }
        attributes.push(semconv::AGENT_NAME, self.prompt.as_str());
        if !self.prompt_key.is_empty() {
            attributes.push(wink::PROMPT, self.prompt_key.as_str());
        }
        if !self.session_id.is_empty() {
            attributes.push(semconv::CONVERSATION_ID, self.session_id.as_str());
            attributes.push(semconv::AGENT_ID, self.session_id.as_str());
        }
        attributes.push(semconv::USAGE_INPUT_TOKENS, self.input_tokens);
        attributes.push(semconv::USAGE_OUTPUT_TOKENS, self.output_tokens);
        attributes.push(semconv::USAGE_CACHE_READ_INPUT_TOKENS, self.cached_tokens);
        attributes.push(wink::RUN_MODEL_CALLS, self.model_calls);
        attributes.push(wink::RUN_TOOL_CALLS, self.tool_calls);
        attributes.push(wink::RUN_RESTARTS, self.evaluation);
        let mut status = SpanStatus::Unset;
        match self.status.as_deref() {
            Some(run_status) => {
                attributes.push(wink::RUN_STATUS, run_status);
                if matches!(
                    run_status,
                    "failed" | "budget_exceeded" | "expansion_required"
                ) {
                    let message = self.error.clone().unwrap_or_else(|| run_status.to_owned());
                    attributes.push(semconv::ERROR_TYPE, run_status);
                    attributes.push(wink::ERROR_MESSAGE, message.as_str());
                    status = SpanStatus::Error(message);
                }
            }
            None if incomplete => attributes.push(wink::RUN_INCOMPLETE, true),
            None => {}
        }
        let name = if self.prompt.is_empty() {
            semconv::operation::INVOKE_AGENT.to_owned()
        } else {
            super::span_name(semconv::operation::INVOKE_AGENT, &self.prompt)
        };
        SpanRecord {
            trace_id: self.trace_id,
            span_id: self.span_id,
            parent_span_id: self.parent,
            parent_is_remote: self.parent_is_remote,
            name,
            kind: SpanKind::Internal,
            start_ns: self.start_ns,
            end_ns: self.last_ns.max(self.start_ns),
            attributes,
            events: self.events,
            status,
        }
    }
}
