//! One run being mapped: its `invoke_agent` span (open until the run ends), the section tree of
//! its current evaluation with what was opened and injected, and its totals.

use serde::Serialize;
use serde_json::Value;
use wink_session::{RenderedSectionTelemetry, SectionVisibility};

use crate::semconv::{self, wink};
use crate::span::{Attributes, SpanEvent, SpanId, SpanKind, SpanRecord, SpanStatus, Text, TraceId};

/// A section of the current evaluation's prompt and what happened to it.
#[derive(Clone, Debug)]
pub(crate) struct SectionState {
    pub(crate) key: String,
    /// Its object in `wink.prompt.sections` up to what the run changes (written once, when the
    /// prompt is rendered): the object without its closing brace.
    rendered: String,
    /// The run's model-call index before which it was opened, and when.
    pub(crate) opened: Option<(u32, u64)>,
    /// Tools injected from it.
    pub(crate) injected: Vec<String>,
}

/// What a section of `wink.prompt.sections` says of itself as rendered; the run adds
/// `opened_before_call` and `injected`.
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
}

impl SectionState {
    fn new(rendered: &RenderedSectionTelemetry, opened: Option<(u32, u64)>) -> Self {
        let json = SectionJson {
            key: &rendered.key,
            title: &rendered.title,
            depth: rendered.depth,
            visibility: match rendered.visibility {
                SectionVisibility::Full => "full",
                _ => "summary",
            },
            bytes: rendered.bytes,
            tools: &rendered.tools,
            hidden_tools: &rendered.hidden_tools,
        };
        let mut text = serde_json::to_string(&json).unwrap_or_else(|_| "{}".to_owned());
        text.pop();
        Self {
            key: rendered.key.clone(),
            rendered: text,
            opened,
            injected: Vec::new(),
        }
    }

    /// Its object in `wink.prompt.sections`, now.
    fn write_json(&self, out: &mut String) {
        out.push_str(&self.rendered);
        if let Some((call, _)) = self.opened {
            out.push_str(",\"opened_before_call\":");
            out.push_str(&call.to_string());
        }
        if !self.injected.is_empty() {
            out.push_str(",\"injected\":");
            out.push_str(
                &serde_json::to_string(&self.injected).unwrap_or_else(|_| "[]".to_owned()),
            );
        }
        out.push('}');
    }
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
    pub(crate) session_id: Text,
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
    sections_text: Option<Text>,
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
            session_id: Text::default(),
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
        self.session_id = e
            .session_id
            .map_or_else(Text::default, |s| Text::from(s.to_string()));
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
            .map(|rendered| {
                let opened = self
                    .opened
                    .iter()
                    .find(|(key, _, _)| *key == rendered.key)
                    .map(|(_, call, at)| (*call, *at));
                SectionState::new(rendered, opened)
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
        if let Some(section) = self.sections.iter_mut().find(|s| s.key == key) {
            section.opened = Some((self.model_calls, ns));
            self.sections_text = None;
        }
        true
    }

    pub(crate) fn inject(&mut self, key: &str, tools: &[String]) {
        if let Some(section) = self.sections.iter_mut().find(|s| s.key == key) {
            section.injected.extend(tools.iter().cloned());
            self.sections_text = None;
        }
    }

    /// The section tree as a model call sees it now (`wink.prompt.sections`), built again only
    /// when it changed.
    pub(crate) fn sections_json(&mut self) -> Text {
        if let Some(text) = &self.sections_text {
            return text.clone();
        }
        let text = Text::from(self.build_sections_json());
        self.sections_text = Some(text.clone());
        text
    }

    fn build_sections_json(&self) -> String {
        let size: usize = self.sections.iter().map(|s| s.rendered.len() + 48).sum();
        let mut out = String::with_capacity(size + 2);
        out.push('[');
        for (i, section) in self.sections.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            section.write_json(&mut out);
        }
        out.push(']');
        out
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
        attributes.push(
            semconv::OPERATION_NAME,
            Text::from_static(semconv::operation::INVOKE_AGENT),
        );
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
            attributes.push(semconv::CONVERSATION_ID, self.session_id.clone());
            attributes.push(semconv::AGENT_ID, self.session_id.clone());
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

#[cfg(test)]
mod tests {
    use wink_session::{RenderedSectionTelemetry, SectionVisibility};

    use super::*;

    fn section(
        key: &str,
        visibility: SectionVisibility,
        hidden: &[&str],
    ) -> RenderedSectionTelemetry {
        RenderedSectionTelemetry {
            key: key.to_owned(),
            title: format!("1. \"{key}\""),
            depth: 1,
            visibility,
            bytes: 42,
            tools: Vec::new(),
            hidden_tools: hidden.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    #[test]
    fn the_section_tree_says_what_was_opened_and_injected() {
        let mut run = RunState::new([1; 16], [2; 8], 0);
        run.render(&[
            section("task", SectionVisibility::Full, &[]),
            section("docs", SectionVisibility::Summary, &["search"]),
        ]);
        let first = run.sections_json();
        assert_eq!(
            first.as_str(),
            r#"[{"key":"task","title":"1. \"task\"","depth":1,"visibility":"full","bytes":42},{"key":"docs","title":"1. \"docs\"","depth":1,"visibility":"summary","bytes":42,"hidden_tools":["search"]}]"#
        );
        assert!(std::ptr::eq(first.as_str(), run.sections_json().as_str()));
        run.model_calls = 1;
        assert!(run.open_section("docs", 5));
        assert!(!run.open_section("docs", 6));
        run.inject("docs", &["search".to_owned()]);
        assert_eq!(
            run.sections_json().as_str(),
            r#"[{"key":"task","title":"1. \"task\"","depth":1,"visibility":"full","bytes":42},{"key":"docs","title":"1. \"docs\"","depth":1,"visibility":"summary","bytes":42,"hidden_tools":["search"],"opened_before_call":1,"injected":["search"]}]"#
        );
    }
}
