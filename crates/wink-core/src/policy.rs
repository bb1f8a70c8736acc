//! Tool policies: rules a section attaches to its prompt that may refuse a tool call before it
//! runs. The [`crate::ToolExecutor`] asks every policy of the rendered template (whatever the
//! sections' visibility) before each call, except calls of the builtin disclosure tools
//! (`read_section`, `open_sections`), which stay available so the model can change course; a
//! refusal becomes the call's failed result, with the policy's message as its text. The skills
//! section's `allowed-tools` rule is one (`wink-skills`).

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use wink_session::Session;

/// A shared policy.
pub type ToolPolicyRef = Arc<dyn ToolPolicy>;

/// What a policy sees of a call about to run.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct PolicyRequest<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The parsed arguments.
    pub params: &'a Value,
    /// The session the call runs in (its `ToolInvoked` events are the calls made so far).
    pub session: &'a Session,
}

impl<'a> PolicyRequest<'a> {
    /// A request for `tool` with `params` in `session`.
    pub fn new(tool: &'a str, params: &'a Value, session: &'a Session) -> Self {
        Self {
            tool,
            params,
            session,
        }
    }
}

/// A rule over tool calls.
pub trait ToolPolicy: Send + Sync + fmt::Debug {
    /// `None` lets the call run; `Some(message)` refuses it: the call gets a failed result
    /// whose text is `message`, and its tool does not run.
    fn check(&self, request: PolicyRequest<'_>) -> Option<String>;
}
