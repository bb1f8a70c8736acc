//! The child's telemetry on the parent's bus: every event the child session dispatches is
//! forwarded, as a [`SubagentEvent`] tagged with the child's run id, into the parent's evaluation
//! session — so it is published on the parent's bus and appended to the parent's session log.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wink_session::{
    ErasedEvent, Event, HandlerError, HandlerKind, Session, SessionId, SubscriptionId,
};

/// One event a subagent's session dispatched, as seen in the parent session (its `SubagentEvent`
/// ledger slice, its journal — the session log — and its bus).
///
/// The child's own state stays in the child: this record is telemetry, like
/// [`ToolInvoked`](wink_session::ToolInvoked). Events of nested subagents arrive unchanged, so
/// `run_id` always names the run that dispatched `event`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubagentEvent {
    /// The child's run id: its session id ([`SubagentRun::child_session_id`](super::SubagentRun)).
    pub run_id: SessionId,
    /// The session the child was forked from.
    pub parent_session_id: SessionId,
    /// The provider's id of the `dispatch_subagent` call that started the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Namespace of the child prompt.
    pub prompt_ns: String,
    /// Key of the child prompt.
    pub prompt_key: String,
    /// Nesting depth of the child (1 for a child of the root session).
    pub depth: u32,
    /// The forwarded event's type name (`ToolInvoked`, `PromptExecuted`, ...).
    pub event_type: String,
    /// The forwarded event as JSON.
    pub event: Value,
}

impl Event for SubagentEvent {}

/// Forwards what the child dispatches to the parent until dropped (then it unsubscribes).
pub(super) struct Forwarding {
    child: Session,
    subscription: SubscriptionId,
}

impl Forwarding {
    /// Subscribe to every event of `child` and dispatch each into `parent` as a copy of `tag`
    /// carrying the event (nested [`SubagentEvent`]s are passed on unchanged).
    pub(super) fn start(child: &Session, parent: &Session, tag: SubagentEvent) -> Self {
        let parent = parent.clone();
        let subscription = child.bus().subscribe_all(move |event: &dyn ErasedEvent| {
            let record = match event.as_any().downcast_ref::<SubagentEvent>() {
                Some(nested) => nested.clone(),
                None => SubagentEvent {
                    event_type: event.event_type_name().to_owned(),
                    event: event.to_json().map_err(HandlerError::new)?,
                    ..tag.clone()
                },
            };
            let result = parent.dispatch(record);
            let journal_failure = result
                .errors
                .iter()
                .find(|f| matches!(f.handler, HandlerKind::Journal));
            match journal_failure {
                Some(failure) => Err(HandlerError::new(format!(
                    "forwarding to the parent session failed: {}",
                    failure.error
                ))),
                None => Ok(()),
            }
        });
        Self {
            child: child.clone(),
            subscription,
        }
    }
}

impl Drop for Forwarding {
    fn drop(&mut self) {
        self.child.bus().unsubscribe(self.subscription);
    }
}
