//! Why a dispatch or a registry operation failed.

use wink_core::EvaluationPhase;
use wink_model::ProviderError;

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
    /// A child model call failed, or its answer could not be used.
    #[error("the model call failed: {message}")]
    Model {
        /// What the loop reported (the provider's own message for a failed call): the text
        /// the parent model reads.
        message: String,
        /// The provider's error when the child's last model call failed (its kind and
        /// [`ProviderError::is_retryable`]); `None` when the loop rejected the answer instead.
        #[source]
        source: Option<Box<ProviderError>>,
    },
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
            Self::Model { .. }
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

    /// The provider error behind a [`DispatchSubagentError::Model`], when a model call failed.
    pub fn provider_error(&self) -> Option<&ProviderError> {
        match self {
            Self::Model { source, .. } => source.as_deref(),
            _ => None,
        }
    }

    /// Whether dispatching again may succeed: the child's model call failed with a retryable
    /// provider error (429, 5xx, connection, timeout; see [`ProviderError::is_retryable`]).
    pub fn is_retryable(&self) -> bool {
        self.provider_error()
            .is_some_and(ProviderError::is_retryable)
    }

    pub(super) fn from_outcome(
        message: String,
        phase: EvaluationPhase,
        provider_error: Option<ProviderError>,
    ) -> Self {
        match phase {
            EvaluationPhase::Request | EvaluationPhase::Response => Self::Model {
                message,
                source: provider_error.map(Box::new),
            },
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
    use wink_model::ProviderErrorKind;

    #[test]
    fn a_model_failure_keeps_the_provider_error_and_its_retryability() {
        let limited =
            ProviderError::new(ProviderErrorKind::RateLimited(None), "p", "m", "slow down");
        let error = DispatchSubagentError::from_outcome(
            "slow down".into(),
            EvaluationPhase::Request,
            Some(limited.clone()),
        );
        assert_eq!(error.provider_error(), Some(&limited));
        assert!(error.is_retryable());
        assert_eq!(
            error.tool_message(),
            "Subagent run aborted: the model call failed: slow down"
        );
        let source = std::error::Error::source(&error).map(ToString::to_string);
        assert_eq!(source, Some(limited.to_string()));
        let config = ProviderError::new(ProviderErrorKind::Config, "p", "m", "no key");
        let error = DispatchSubagentError::from_outcome(
            "no key".into(),
            EvaluationPhase::Request,
            Some(config),
        );
        assert!(!error.is_retryable());
        let rejected = DispatchSubagentError::from_outcome(
            "bad answer".into(),
            EvaluationPhase::Response,
            None,
        );
        assert_eq!(rejected.provider_error(), None);
        assert!(!rejected.is_retryable());
    }

    #[test]
    fn error_messages_split_setup_from_downstream() {
        assert_eq!(
            DispatchSubagentError::Model {
                message: "boom".into(),
                source: None
            }
            .tool_message(),
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
