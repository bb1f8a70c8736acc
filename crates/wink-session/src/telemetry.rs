//! Telemetry events published while prompts are rendered and evaluated (see `EVENTS.md` of WINK v0.12):
//! [`PromptRendered`], [`PromptExecuted`], [`ToolInvoked`], [`ToolsInjected`],
//! [`VisibilityExpanded`], [`LoopIntervention`] and [`TurnRepaired`].
//!
//! Each carries an `event_id` (UUID v4) and a creation [`Timestamp`] (`created_at`; seed 003 names
//! it `timestamp` on [`ToolsInjected`]), both filled by its `new` constructor; optional fields are
//! set with the `with_*` methods.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::event::{Event, SessionId};
use crate::path::SectionVisibility;
use crate::registry::Registry;
use crate::time::Timestamp;

/// Token counts reported by a provider.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from a cache.
    pub cached_tokens: u64,
}

impl TokenUsage {
    /// Input plus output tokens.
    pub fn total_tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

/// Identity and time of a telemetry event.
pub trait TelemetryEvent: Event {
    /// The event's unique id.
    fn event_id(&self) -> Uuid;
    /// When the event was created.
    fn created_at(&self) -> Timestamp;
}

macro_rules! telemetry_event {
    ($type:ident) => {
        telemetry_event!($type, created_at);
    };
    ($type:ident, $time:ident) => {
        impl Event for $type {
            fn type_name() -> &'static str {
                stringify!($type)
            }
        }

        impl TelemetryEvent for $type {
            fn event_id(&self) -> Uuid {
                self.event_id
            }

            fn created_at(&self) -> Timestamp {
                self.$time
            }
        }
    };
}
pub(crate) use telemetry_event;

/// A prompt was rendered and is about to be sent to a provider.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptRendered {
    /// Unique id.
    pub event_id: Uuid,
    /// When rendering finished.
    pub created_at: Timestamp,
    /// Namespace of the prompt.
    pub prompt_ns: String,
    /// Key of the prompt in its namespace.
    pub prompt_key: String,
    /// Human-readable name, when set.
    pub prompt_name: Option<String>,
    /// Adapter about to execute the prompt.
    pub adapter: String,
    /// Session the evaluation runs in.
    pub session_id: Option<SessionId>,
    /// The rendered prompt text.
    pub text: String,
    /// Names of the tools offered with the prompt.
    pub tool_names: Vec<String>,
    /// The rendered sections in tree order: how each rendered and what it offers or hides.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<RenderedSectionTelemetry>,
}

/// One section of a rendered prompt, as [`PromptRendered`] records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderedSectionTelemetry {
    /// Dotted path of the section's key.
    pub key: String,
    /// The heading as rendered, without its `#` marks (`1.2. Docs (docs)`).
    pub title: String,
    /// Nesting depth (1 for a top-level section).
    pub depth: u32,
    /// Full or summarized.
    pub visibility: SectionVisibility,
    /// Bytes of the rendered prompt text the section takes (heading and body).
    pub bytes: u64,
    /// Tools the section offers (rendered in full).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// Tools the section hides while it is summarized.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden_tools: Vec<String>,
}

impl PromptRendered {
    /// A new event with a fresh id and the current time.
    pub fn new(
        prompt_ns: impl Into<String>,
        prompt_key: impl Into<String>,
        adapter: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            event_id: Uuid::new_v4(),
            created_at: Timestamp::now(),
            prompt_ns: prompt_ns.into(),
            prompt_key: prompt_key.into(),
            prompt_name: None,
            adapter: adapter.into(),
            session_id: None,
            text: text.into(),
            tool_names: Vec::new(),
            sections: Vec::new(),
        }
    }

    /// Sets the prompt name.
    pub fn with_prompt_name(mut self, prompt_name: impl Into<String>) -> Self {
        self.prompt_name = Some(prompt_name.into());
        self
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, session_id: SessionId) -> Self {
        self.session_id = Some(session_id);
        self
    }

    /// Sets the offered tool names.
    pub fn with_tool_names(mut self, tool_names: Vec<String>) -> Self {
        self.tool_names = tool_names;
        self
    }

    /// Sets the rendered sections.
    pub fn with_sections(mut self, sections: Vec<RenderedSectionTelemetry>) -> Self {
        self.sections = sections;
        self
    }
}
telemetry_event!(PromptRendered);

/// A prompt evaluation completed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptExecuted {
    /// Unique id.
    pub event_id: Uuid,
    /// When the evaluation finished.
    pub created_at: Timestamp,
    /// Name of the prompt.
    pub prompt_name: String,
    /// Adapter that executed it.
    pub adapter: String,
    /// Session the evaluation ran in.
    pub session_id: Option<SessionId>,
    /// Final text of the response, if any.
    pub text: Option<String>,
    /// Structured output, if any.
    pub output: Option<Value>,
    /// Token usage of the whole evaluation.
    pub usage: Option<TokenUsage>,
    /// How the evaluation ended: `finished`, `terminated`, `budget_exceeded`, `failed`,
    /// `expansion_required` (a restart with more sections may follow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Why it failed or stopped, for every status but `finished` and `terminated`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl PromptExecuted {
    /// A new event with a fresh id and the current time.
    pub fn new(prompt_name: impl Into<String>, adapter: impl Into<String>) -> Self {
        Self {
            event_id: Uuid::new_v4(),
            created_at: Timestamp::now(),
            prompt_name: prompt_name.into(),
            adapter: adapter.into(),
            session_id: None,
            text: None,
            output: None,
            usage: None,
            status: None,
            error: None,
        }
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, session_id: SessionId) -> Self {
        self.session_id = Some(session_id);
        self
    }

    /// Sets the response text.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    /// Sets the structured output.
    pub fn with_output(mut self, output: Value) -> Self {
        self.output = Some(output);
        self
    }

    /// Sets the token usage.
    pub fn with_usage(mut self, usage: TokenUsage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// Sets how the evaluation ended, and why when it did not finish.
    pub fn with_status(mut self, status: impl Into<String>, error: Option<String>) -> Self {
        self.status = Some(status.into());
        self.error = error;
        self
    }
}
telemetry_event!(PromptExecuted);

/// Disclosure details of an `open_sections` / `read_section` call (seed 000's telemetry).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DisclosureTelemetry {
    /// Section keys (dotted paths) the model asked for.
    pub requested_sections: Vec<String>,
    /// The model's stated reason.
    pub reason: Option<String>,
    /// Visibility of every section at invocation time, by dotted path (seed 000's
    /// `current_visibility_state`; logs written before the rename used `visibility_state`).
    #[serde(alias = "visibility_state")]
    pub current_visibility_state: BTreeMap<String, SectionVisibility>,
}

/// A tool handler ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolInvoked {
    /// Unique id.
    pub event_id: Uuid,
    /// When the handler returned.
    pub created_at: Timestamp,
    /// Name of the prompt that requested the call.
    pub prompt_name: String,
    /// Adapter executing the prompt.
    pub adapter: String,
    /// Session the evaluation runs in.
    pub session_id: Option<SessionId>,
    /// Tool name.
    pub name: String,
    /// Provider correlation id of the call.
    pub call_id: Option<String>,
    /// Arguments passed to the tool.
    pub params: Value,
    /// Whether the tool succeeded.
    pub success: bool,
    /// The tool result message.
    pub message: String,
    /// The tool result value.
    pub value: Option<Value>,
    /// The text sent back to the model.
    pub rendered_output: String,
    /// Token usage attributed to the call.
    pub usage: Option<TokenUsage>,
    /// Disclosure details for the disclosure tools.
    pub disclosure: Option<DisclosureTelemetry>,
    /// When the call started (its arguments were checked, then the handler ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Timestamp>,
    /// The trace span the call ran in (its `execute_tool` span), when the run was traced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<crate::trace::TraceParent>,
}

impl ToolInvoked {
    /// A new event with a fresh id and the current time; `rendered_output` starts as `message`.
    pub fn new(
        prompt_name: impl Into<String>,
        adapter: impl Into<String>,
        name: impl Into<String>,
        params: Value,
        success: bool,
        message: impl Into<String>,
    ) -> Self {
        let message = message.into();
        Self {
            event_id: Uuid::new_v4(),
            created_at: Timestamp::now(),
            prompt_name: prompt_name.into(),
            adapter: adapter.into(),
            session_id: None,
            name: name.into(),
            call_id: None,
            params,
            success,
            rendered_output: message.clone(),
            message,
            value: None,
            usage: None,
            disclosure: None,
            started_at: None,
            span: None,
        }
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, session_id: SessionId) -> Self {
        self.session_id = Some(session_id);
        self
    }

    /// Sets the provider call id.
    pub fn with_call_id(mut self, call_id: impl Into<String>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }

    /// Sets the result value.
    pub fn with_value(mut self, value: Value) -> Self {
        self.value = Some(value);
        self
    }

    /// Sets the text sent back to the model.
    pub fn with_rendered_output(mut self, rendered_output: impl Into<String>) -> Self {
        self.rendered_output = rendered_output.into();
        self
    }

    /// Sets the token usage.
    pub fn with_usage(mut self, usage: TokenUsage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// Sets the disclosure details.
    pub fn with_disclosure(mut self, disclosure: DisclosureTelemetry) -> Self {
        self.disclosure = Some(disclosure);
        self
    }

    /// Sets when the call started.
    pub fn with_started_at(mut self, started_at: Timestamp) -> Self {
        self.started_at = Some(started_at);
        self
    }

    /// Sets the trace span the call ran in.
    pub fn with_span(mut self, span: Option<crate::trace::TraceParent>) -> Self {
        self.span = span;
        self
    }
}
telemetry_event!(ToolInvoked);

/// Tools of an expanded section were added to a running conversation (seed 003).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolsInjected {
    /// Unique id.
    pub event_id: Uuid,
    /// When the tools were injected (seed 003's name; logs written before the rename used
    /// `created_at`).
    #[serde(alias = "created_at")]
    pub timestamp: Timestamp,
    /// Names of the injected tools.
    pub tool_names: Vec<String>,
    /// Key of the expanded section.
    pub section_key: String,
    /// Session the evaluation runs in.
    pub session_id: Option<SessionId>,
}

impl ToolsInjected {
    /// A new event with a fresh id and the current time.
    pub fn new(tool_names: Vec<String>, section_key: impl Into<String>) -> Self {
        Self {
            event_id: Uuid::new_v4(),
            timestamp: Timestamp::now(),
            tool_names,
            section_key: section_key.into(),
            session_id: None,
        }
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, session_id: SessionId) -> Self {
        self.session_id = Some(session_id);
        self
    }
}
telemetry_event!(ToolsInjected, timestamp);

/// How an expansion reached the model.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExpansionPath {
    /// Tools were injected into the running conversation.
    Dynamic,
    /// The evaluation restarted with the new visibility.
    Restart,
}

/// Sections were expanded at the model's request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VisibilityExpanded {
    /// Unique id.
    pub event_id: Uuid,
    /// When the expansion happened.
    pub created_at: Timestamp,
    /// Dotted paths of the expanded sections.
    pub section_keys: Vec<String>,
    /// The model's stated reason.
    pub reason: String,
    /// Dynamic injection or restart.
    pub path: ExpansionPath,
    /// Session the evaluation runs in.
    pub session_id: Option<SessionId>,
}

impl VisibilityExpanded {
    /// A new event with a fresh id and the current time.
    pub fn new(section_keys: Vec<String>, reason: impl Into<String>, path: ExpansionPath) -> Self {
        Self {
            event_id: Uuid::new_v4(),
            created_at: Timestamp::now(),
            section_keys,
            reason: reason.into(),
            path,
            session_id: None,
        }
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, session_id: SessionId) -> Self {
        self.session_id = Some(session_id);
        self
    }
}
telemetry_event!(VisibilityExpanded);

/// The agent loop stepped in on a model turn instead of running it as asked: a repeated call
/// answered with the earlier result, an answer-only model call, an unknown tool answered with
/// a failed result, a hidden tool's section opened automatically, a request that would not fit
/// the context window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopIntervention {
    /// Unique id.
    pub event_id: Uuid,
    /// When the loop stepped in.
    pub created_at: Timestamp,
    /// What it did: `repeated_call`, `answer_only`, `unknown_tool`, `auto_open`, ...
    pub kind: String,
    /// The tool the model called, when a call prompted it.
    pub tool: Option<String>,
    /// The call's arguments, when a call prompted it.
    pub arguments: Option<Value>,
    /// What the loop did, in words.
    pub detail: String,
    /// Session the evaluation runs in.
    pub session_id: Option<SessionId>,
}

impl LoopIntervention {
    /// A new event with a fresh id and the current time.
    pub fn new(kind: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            event_id: Uuid::new_v4(),
            created_at: Timestamp::now(),
            kind: kind.into(),
            tool: None,
            arguments: None,
            detail: detail.into(),
            session_id: None,
        }
    }

    /// Sets the tool call that prompted it.
    pub fn with_call(mut self, tool: impl Into<String>, arguments: Value) -> Self {
        self.tool = Some(tool.into());
        self.arguments = Some(arguments);
        self
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, session_id: SessionId) -> Self {
        self.session_id = Some(session_id);
        self
    }
}
telemetry_event!(LoopIntervention);

/// A turn policy took back a model's turn (or rewrote its answer): the model half did what
/// was asked, and the loop asked again — as a call, a call of a named tool, or a plain answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnRepaired {
    /// Unique id.
    pub event_id: Uuid,
    /// When the turn was taken back.
    pub created_at: Timestamp,
    /// The policy that fired (`named-tool`, `procedure`, `ungrounded`, ...).
    pub rule: String,
    /// What the loop did: `answer` (the text read as the answer), `ask_again_as_text`,
    /// `require_call`, `require_tool`, `follow_up`.
    pub action: String,
    /// The tool the new turn must call, for `require_tool` and `follow_up`.
    pub tool: Option<String>,
    /// The answer text that was taken back.
    pub text: String,
    /// Session the evaluation runs in.
    pub session_id: Option<SessionId>,
}

impl TurnRepaired {
    /// A new event with a fresh id and the current time.
    pub fn new(
        rule: impl Into<String>,
        action: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            event_id: Uuid::new_v4(),
            created_at: Timestamp::now(),
            rule: rule.into(),
            action: action.into(),
            tool: None,
            text: text.into(),
            session_id: None,
        }
    }

    /// Sets the tool the new turn must call.
    pub fn with_tool(mut self, tool: impl Into<String>) -> Self {
        self.tool = Some(tool.into());
        self
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, session_id: SessionId) -> Self {
        self.session_id = Some(session_id);
        self
    }
}
telemetry_event!(TurnRepaired);

/// Registers the telemetry event types (every session does this so logs holding them can be replayed).
pub(crate) fn register_telemetry_events(registry: &mut Registry) {
    registry.register_event::<PromptRendered>();
    registry.register_event::<PromptExecuted>();
    registry.register_event::<ToolInvoked>();
    registry.register_event::<ToolsInjected>();
    registry.register_event::<VisibilityExpanded>();
    registry.register_event::<LoopIntervention>();
    registry.register_event::<TurnRepaired>();
    registry.register_event::<crate::model_call::ModelCalled>();
    registry.register_event::<crate::model_call::TraceStarted>();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_invoked_wire_json() {
        let mut event = ToolInvoked::new(
            "p",
            "openai",
            "search",
            serde_json::json!({"q": "x"}),
            true,
            "ok",
        )
        .with_call_id("call_1")
        .with_usage(TokenUsage {
            input_tokens: 10,
            output_tokens: 5,
            cached_tokens: 2,
        });
        event.event_id = Uuid::nil();
        event.created_at = Timestamp::from_unix_micros(1_795_319_259_123_456);
        insta::assert_json_snapshot!(event, @r#"
        {
          "event_id": "00000000-0000-0000-0000-000000000000",
          "created_at": "2026-11-22T03:47:39.123456Z",
          "prompt_name": "p",
          "adapter": "openai",
          "session_id": null,
          "name": "search",
          "call_id": "call_1",
          "params": {
            "q": "x"
          },
          "success": true,
          "message": "ok",
          "value": null,
          "rendered_output": "ok",
          "usage": {
            "input_tokens": 10,
            "output_tokens": 5,
            "cached_tokens": 2
          },
          "disclosure": null
        }
        "#);
        assert_eq!(event.usage.unwrap().total_tokens(), 15);
        assert_eq!(ToolInvoked::type_name(), "ToolInvoked");
    }

    #[test]
    fn loop_intervention_wire_json() {
        let mut event = LoopIntervention::new("repeated_call", "answered with the earlier result")
            .with_call("stock", serde_json::json!({"title": "Dune"}));
        event.event_id = Uuid::nil();
        event.created_at = Timestamp::from_unix_micros(1_795_319_259_123_456);
        insta::assert_json_snapshot!(event, @r#"
        {
          "event_id": "00000000-0000-0000-0000-000000000000",
          "created_at": "2026-11-22T03:47:39.123456Z",
          "kind": "repeated_call",
          "tool": "stock",
          "arguments": {
            "title": "Dune"
          },
          "detail": "answered with the earlier result",
          "session_id": null
        }
        "#);
        assert_eq!(LoopIntervention::type_name(), "LoopIntervention");
    }

    #[test]
    fn constructors_fill_ids_and_times() {
        let a = PromptRendered::new("ns", "key", "local", "text");
        let b = PromptRendered::new("ns", "key", "local", "text");
        assert_ne!(a.event_id(), b.event_id());
        assert!(b.created_at() >= a.created_at());
        let expanded =
            VisibilityExpanded::new(vec!["a.b".into()], "need it", ExpansionPath::Restart);
        assert_eq!(serde_json::to_value(expanded.path).unwrap(), "restart");
        let injected = ToolsInjected::new(vec!["t".into()], "s");
        assert_eq!(injected.created_at(), injected.timestamp);
    }

    #[test]
    fn tools_injected_wire_json_uses_seed_003_field_names() {
        let mut event = ToolsInjected::new(vec!["search".into(), "fetch".into()], "tools.web");
        event.event_id = Uuid::nil();
        event.timestamp = Timestamp::from_unix_micros(1_795_319_259_123_456);
        insta::assert_json_snapshot!(event, @r#"
        {
          "event_id": "00000000-0000-0000-0000-000000000000",
          "timestamp": "2026-11-22T03:47:39.123456Z",
          "tool_names": [
            "search",
            "fetch"
          ],
          "section_key": "tools.web",
          "session_id": null
        }
        "#);
        // Logs written before the rename still load.
        let mut old = serde_json::to_value(&event).unwrap();
        let time = old.as_object_mut().unwrap().remove("timestamp").unwrap();
        old["created_at"] = time;
        assert_eq!(serde_json::from_value::<ToolsInjected>(old).unwrap(), event);
    }

    #[test]
    fn disclosure_telemetry_wire_json_uses_seed_000_field_names() {
        let telemetry = DisclosureTelemetry {
            requested_sections: vec!["context".into()],
            reason: Some("need it".into()),
            current_visibility_state: BTreeMap::from([
                ("context".to_owned(), SectionVisibility::Summary),
                ("task".to_owned(), SectionVisibility::Full),
            ]),
        };
        insta::assert_json_snapshot!(telemetry, @r#"
        {
          "requested_sections": [
            "context"
          ],
          "reason": "need it",
          "current_visibility_state": {
            "context": "summary",
            "task": "full"
          }
        }
        "#);
        let old = serde_json::json!({
            "requested_sections": ["context"],
            "reason": "need it",
            "visibility_state": {"context": "summary", "task": "full"}
        });
        assert_eq!(
            serde_json::from_value::<DisclosureTelemetry>(old).unwrap(),
            telemetry
        );
    }
}
