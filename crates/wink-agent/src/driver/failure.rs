//! A provider error as the loop's failure: the message the model-facing result carries, the
//! phase, and the provider context kept beside it.

use wink_core::{EvaluationPhase, PromptEvaluationError};

use crate::inner::ProviderFailure;
use wink_model::{ProviderError, ProviderErrorKind};

pub(super) fn provider_failure(
    error: &ProviderError,
    prompt_name: &str,
    context_window: Option<u64>,
) -> (PromptEvaluationError, ProviderFailure) {
    let phase = match error.kind {
        ProviderErrorKind::Decode | ProviderErrorKind::TruncatedStream => EvaluationPhase::Response,
        _ => EvaluationPhase::Request,
    };
    // WINK reports the adapter's own message (`result.error == "adapter failure"`); the
    // provider, model, status and body travel beside it. A context overflow says so first.
    let message = match (&error.kind, context_window) {
        (ProviderErrorKind::ContextOverflow, Some(window)) => format!(
            "the request does not fit the model's context window ({window} tokens): {}",
            error.message
        ),
        (ProviderErrorKind::ContextOverflow, None) => format!(
            "the request does not fit the model's context window: {}",
            error.message
        ),
        _ => error.message.clone(),
    };
    let e = PromptEvaluationError::new(message, prompt_name, phase);
    let e = match &error.raw_body {
        Some(body) => e.with_payload(body.clone()),
        None => e,
    };
    let failure = ProviderFailure {
        provider: error.provider.clone(),
        model: error.model.clone(),
        status: match error.kind {
            ProviderErrorKind::Status(status) => Some(status),
            ProviderErrorKind::RateLimited(_) => Some(429),
            _ => None,
        },
        raw_body: error.raw_body.clone(),
    };
    (e, failure)
}

impl std::fmt::Display for ProviderFailure {
    /// `provider: P, model: M[, HTTP S]`, and on a second line `provider body: …` when the
    /// provider sent one.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "provider: {}, model: {}", self.provider, self.model)?;
        if let Some(status) = self.status {
            write!(f, ", HTTP {status}")?;
        }
        match &self.raw_body {
            Some(body) => write!(f, "\nprovider body: {body}"),
            None => Ok(()),
        }
    }
}
