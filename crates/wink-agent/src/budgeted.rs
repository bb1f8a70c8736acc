//! A model that spends from a run's budget when it is called outside the loop on the run's
//! behalf: an MCP server's sampling request (`sampling/createMessage`) answered with the run's
//! own model during a tool call.

use std::sync::Arc;

use wink_model::{
    ModelRequest, ProviderAdapter, ProviderError, ProviderErrorKind, ProviderFuture, StreamSink,
};

use crate::budget::BudgetTracker;

/// `inner`, each call checked against the run's [`BudgetTracker`] first (refused when its
/// model calls, tokens or deadline ran out, as the loop's own next call would be) and recorded
/// in it afterwards (one model call, its token usage).
///
/// ```
/// use std::sync::Arc;
/// use wink_agent::{Budget, BudgetTracker, BudgetedAdapter, ScriptedProvider};
/// use wink_model::{ModelRequest, ProviderAdapter};
///
/// let tracker = BudgetTracker::new(Budget { max_model_calls: Some(1), ..Budget::default() });
/// let model = ScriptedProvider::from_json(r#"[{"text": "Paris."}, {"text": "Rome."}]"#, "inline")
///     .unwrap();
/// let budgeted = BudgetedAdapter::new(Arc::new(model), tracker.clone());
/// let request = ModelRequest::default();
/// let first = wink_core::block_on(budgeted.complete(&request, None)).unwrap();
/// assert_eq!(first.text.as_deref(), Some("Paris."));
/// assert_eq!(tracker.spent().model_calls, 1);
/// let refused = wink_core::block_on(budgeted.complete(&request, None)).unwrap_err();
/// assert_eq!(refused.message, "the run's max model calls budget ran out");
/// ```
#[derive(Debug, Clone)]
pub struct BudgetedAdapter {
    inner: Arc<dyn ProviderAdapter>,
    budget: BudgetTracker,
}

impl BudgetedAdapter {
    /// `inner` spending from `budget`.
    pub fn new(inner: Arc<dyn ProviderAdapter>, budget: BudgetTracker) -> Self {
        Self { inner, budget }
    }
}

impl ProviderAdapter for BudgetedAdapter {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn model(&self) -> &str {
        self.inner.model()
    }
    fn supports_dynamic_tools(&self) -> bool {
        self.inner.supports_dynamic_tools()
    }
    fn context_window(&self) -> Option<u64> {
        self.inner.context_window()
    }
    fn profile(&self) -> &'static wink_model::profile::ModelProfile {
        self.inner.profile()
    }
    fn forget_cached_prefix(&self) {
        self.inner.forget_cached_prefix();
    }
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        if let Err(limit) = self.budget.check_model_call() {
            let refused = ProviderError::new(
                ProviderErrorKind::Other,
                self.inner.name(),
                self.inner.model(),
                format!("the run's {limit} budget ran out"),
            );
            return Box::pin(std::future::ready(Err(refused)));
        }
        let call = self.inner.complete(request, stream);
        Box::pin(async move {
            let turn = call.await?;
            self.budget.record_model_call(turn.usage.as_ref());
            Ok(turn)
        })
    }
}
