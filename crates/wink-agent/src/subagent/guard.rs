//! Wrappers around the child's run: counting its model calls and tokens, catching its panics.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use wink_session::TokenUsage;

use wink_model::ModelRequest;
use wink_model::{ProviderAdapter, ProviderError, ProviderFuture, StreamSink};

#[derive(Debug, Clone, Default)]
pub(super) struct Meter {
    pub(super) calls: u32,
    pub(super) usage: TokenUsage,
    /// The error of the child's latest model call, when that call failed: the typed source of a
    /// [`super::DispatchSubagentError::Model`].
    pub(super) last_error: Option<ProviderError>,
}

/// Counts the child's own model calls and tokens (the budget tracker may be shared).
#[derive(Debug)]
pub(super) struct MeteredAdapter {
    pub(super) inner: Arc<dyn ProviderAdapter>,
    pub(super) meter: Mutex<Meter>,
}

impl MeteredAdapter {
    pub(super) fn meter(&self) -> Meter {
        self.meter
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl ProviderAdapter for MeteredAdapter {
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
    fn forget_cached_prefix(&self) {
        self.inner.forget_cached_prefix();
    }
    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
        stream: Option<&'a dyn StreamSink>,
    ) -> ProviderFuture<'a> {
        self.meter
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .calls += 1;
        let call = self.inner.complete(request, stream);
        Box::pin(async move {
            let result = call.await;
            let mut meter = self.meter.lock().unwrap_or_else(PoisonError::into_inner);
            let turn = match result {
                Ok(turn) => {
                    meter.last_error = None;
                    turn
                }
                Err(error) => {
                    meter.last_error = Some(error.clone());
                    return Err(error);
                }
            };
            if let Some(u) = &turn.usage {
                meter.usage.input_tokens += u.input_tokens;
                meter.usage.output_tokens += u.output_tokens;
                meter.usage.cached_tokens += u.cached_tokens;
            }
            Ok(turn)
        })
    }
}

/// Polls a future, turning a panic during a poll into an error (the future is not polled again).
pub(super) struct CatchUnwind<F> {
    pub(super) future: Pin<Box<F>>,
}

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = self.get_mut().future.as_mut();
        match catch_unwind(AssertUnwindSafe(move || future.poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    wink_session::panic_payload_text(payload)
        .unwrap_or("panic with a non-text payload")
        .to_owned()
}
