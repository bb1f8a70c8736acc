//! Telemetry of the model calls of a run ([`ModelCalled`]) and of its trace ([`TraceStarted`]).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::event::{Event, SessionId};
use crate::telemetry::{TelemetryEvent, TokenUsage, telemetry_event};
use crate::time::Timestamp;
use crate::trace::TraceParent;

/// A tool call the model asked for in a turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestedCall {
    /// The provider's call id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub arguments: Value,
}

/// A model call returned (with a turn or an error).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelCalled {
    /// Unique id.
    pub event_id: Uuid,
    /// When the call returned.
    pub created_at: Timestamp,
    /// When the request was sent.
    pub started_at: Timestamp,
    /// The adapter (`openai`, `anthropic`, `local`, `scripted`, ...).
    pub adapter: String,
    /// The model asked.
    pub model: String,
    /// Session the evaluation runs in.
    pub session_id: Option<SessionId>,
    /// The call's number in its evaluation, from 0.
    pub index: u32,
    /// Messages sent.
    pub messages: u64,
    /// Names of the tools offered.
    pub tools: Vec<String>,
    /// Token usage the provider reported.
    pub usage: Option<TokenUsage>,
    /// Why the model stopped (`stop`, `tool_calls`, `length`, ...).
    pub finish_reason: Option<String>,
    /// The tool calls of the turn, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<RequestedCall>,
    /// The turn's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The provider error, when the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The kind of that error (`timeout`, `rate_limited`, `429`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// The messages added to the conversation since the evaluation's previous model call (all of
    /// them for its first), as the conversation JSON holds them (shared: a session clones an
    /// event for its subscribers).
    #[serde(default, skip_serializing_if = "no_messages")]
    pub new_messages: Arc<[Value]>,
    /// The trace span the call was made in (its `chat` span: the `traceparent` the request
    /// carried), when the run was traced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<TraceParent>,
}

impl ModelCalled {
    /// A call of `model` through `adapter` that started at `started_at` and returned now.
    pub fn new(
        adapter: impl Into<String>,
        model: impl Into<String>,
        index: u32,
        started_at: Timestamp,
    ) -> Self {
        Self {
            event_id: Uuid::new_v4(),
            created_at: Timestamp::now(),
            started_at,
            adapter: adapter.into(),
            model: model.into(),
            session_id: None,
            index,
            messages: 0,
            tools: Vec::new(),
            usage: None,
            finish_reason: None,
            tool_calls: Vec::new(),
            text: None,
            error: None,
            error_type: None,
            new_messages: Arc::default(),
            span: None,
        }
    }

    /// Sets the session id.
    pub fn with_session_id(mut self, session_id: SessionId) -> Self {
        self.session_id = Some(session_id);
        self
    }
}
telemetry_event!(ModelCalled);

fn no_messages(messages: &Arc<[Value]>) -> bool {
    messages.is_empty()
}

/// A tracer started recording a run: the run span's trace context and its parent. Journaled
/// with the run, so a worker that takes the run over continues the same span.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceStarted {
    /// Unique id.
    pub event_id: Uuid,
    /// When the run span started.
    pub created_at: Timestamp,
    /// The run span (`invoke_agent`).
    pub span: TraceParent,
    /// The remote parent the run continues (a queued request's submitter), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<TraceParent>,
    /// Session the run works in.
    pub session_id: Option<SessionId>,
}

impl TraceStarted {
    /// A run span started now.
    pub fn new(span: TraceParent, parent: Option<TraceParent>) -> Self {
        Self {
            event_id: Uuid::new_v4(),
            created_at: Timestamp::now(),
            span,
            parent,
            session_id: None,
        }
    }
}
telemetry_event!(TraceStarted);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_called_wire_json() {
        let mut event = ModelCalled::new(
            "openai",
            "gpt-4.1",
            1,
            Timestamp::from_unix_micros(1_795_319_259_000_000),
        );
        event.event_id = Uuid::nil();
        event.created_at = Timestamp::from_unix_micros(1_795_319_259_123_456);
        event.messages = 3;
        event.tools = vec!["read_section".into()];
        event.usage = Some(TokenUsage {
            input_tokens: 100,
            output_tokens: 7,
            cached_tokens: 64,
        });
        event.finish_reason = Some("tool_calls".into());
        event.tool_calls = vec![RequestedCall {
            id: "call_1".into(),
            name: "read_section".into(),
            arguments: serde_json::json!({"section_key": "docs"}),
        }];
        insta::assert_json_snapshot!(event, @r#"
        {
          "event_id": "00000000-0000-0000-0000-000000000000",
          "created_at": "2026-11-22T03:47:39.123456Z",
          "started_at": "2026-11-22T03:47:39.000000Z",
          "adapter": "openai",
          "model": "gpt-4.1",
          "session_id": null,
          "index": 1,
          "messages": 3,
          "tools": [
            "read_section"
          ],
          "usage": {
            "input_tokens": 100,
            "output_tokens": 7,
            "cached_tokens": 64
          },
          "finish_reason": "tool_calls",
          "tool_calls": [
            {
              "id": "call_1",
              "name": "read_section",
              "arguments": {
                "section_key": "docs"
              }
            }
          ]
        }
        "#);
        assert_eq!(ModelCalled::type_name(), "ModelCalled");
    }

    #[test]
    fn trace_started_keeps_the_span_as_a_traceparent() {
        let span: TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
            .parse()
            .unwrap();
        let event = TraceStarted::new(span, None);
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(
            json["span"],
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        );
        assert_eq!(serde_json::from_value::<TraceStarted>(json).unwrap(), event);
    }
}
