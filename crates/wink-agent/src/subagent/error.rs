//! Why a dispatch or a registry operation failed.

use wink_core::EvaluationPhase;

use crate::budget::BudgetLimit;

/// Why a dispatch did not produce a result.
///
/// [`DispatchSubagentError::Invalid`] becomes a tool validation error; every other variant a
/// concise failed tool result with no payload ([`DispatchSubagentError::tool_message`]).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DispatchSubagentError {
    /// The arguments were invalid (the model sees `Tool validation failed: …`).
    #[error("{0}")]
    Invalid(String),
    /// The child prompt could not be built, composed with the tool suite, bound or rendered.
    #[error("Subagent prompt '{ns}:{key}' could not be loaded: {message}")]
    PromptUnavailable {
        /// Prompt namespace.
        ns: String,
        /// Prompt key.
        key: String,
        /// Why.
        message: String,
    },
    /// The child session could not be hydrated from the parent's snapshot.
    #[error("Subagent session could not be hydrated from the parent snapshot: {0}")]
    Snapshot(String),
    /// The tool's resources lack what a dispatch needs.
    #[error("Subagent dispatch is not configured: {0}")]
    NotConfigured(String),
    /// A child model call failed.
    #[error("the model call failed: {0}")]
    Model(String),
    /// A child tool failed fatally.
    #[error("a tool failed: {0}")]
    Tool(String),
    /// The (shared) budget ran out during the child's run.
    #[error("the budget ran out ({0})")]
    BudgetExhausted(BudgetLimit),
    /// The child panicked (a tool, usually); the panic was caught.
    #[error("the subagent panicked: {0}")]
    Panicked(String),
    /// The child's evaluation failed in another way.
    #[error("{0}")]
    Failed(String),
}

impl DispatchSubagentError {
    /// Whether the child ran and its run was aborted (as opposed to invalid arguments or a
    /// failure to set the child up).
    pub fn is_downstream(&self) -> bool {
        matches!(
            self,
            Self::Model(_)
                | Self::Tool(_)
                | Self::BudgetExhausted(_)
                | Self::Panicked(_)
                | Self::Failed(_)
        )
    }

    /// The message of the failed tool result: `Subagent run aborted: …` for downstream failures,
    /// the error itself otherwise.
    pub fn tool_message(&self) -> String {
        if self.is_downstream() {
            format!("Subagent run aborted: {self}")
        } else {
            self.to_string()
        }
    }

    pub(super) fn from_outcome(message: String, phase: EvaluationPhase) -> Self {
        match phase {
            EvaluationPhase::Request | EvaluationPhase::Response => Self::Model(message),
            EvaluationPhase::Tool => Self::Tool(message),
            _ => Self::Failed(message),
        }
    }
}

/// Why a registry operation failed.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptRegistryError {
    /// `(ns, key)` is already registered.
    #[error("A subagent prompt is already registered as '{ns}:{key}'.")]
    Duplicate {
        /// Namespace.
        ns: String,
        /// Key.
        key: String,
    },
    /// `(ns, key)` is not registered.
    #[error("No subagent prompt is registered as '{ns}:{key}'.")]
    Unknown {
        /// Namespace.
        ns: String,
        /// Key.
        key: String,
    },
    /// The namespace or key is empty.
    #[error("Subagent prompt namespace and key must be non-empty strings.")]
    EmptyKey,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_split_setup_from_downstream() {
        assert_eq!(
            DispatchSubagentError::Model("boom".into()).tool_message(),
            "Subagent run aborted: the model call failed: boom"
        );
        assert_eq!(
            DispatchSubagentError::BudgetExhausted(BudgetLimit::ModelCalls).tool_message(),
            "Subagent run aborted: the budget ran out (max model calls)"
        );
        assert_eq!(
            DispatchSubagentError::Snapshot("bad".into()).tool_message(),
            "Subagent session could not be hydrated from the parent snapshot: bad"
        );
        assert!(!DispatchSubagentError::Invalid("x".into()).is_downstream());
    }
}
