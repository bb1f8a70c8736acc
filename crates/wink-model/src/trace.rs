//! The trace context of the model call being started, for adapters that send requests.
//!
//! The loop makes each model call inside [`with_traceparent`]; an adapter that sends a request
//! reads [`outgoing_traceparent`] in [`ProviderAdapter::complete`](crate::ProviderAdapter::complete)
//! itself, before it returns its future, and sends it as the W3C `traceparent` header. Outside a
//! traced call it is `None`.

use std::cell::Cell;

use wink_session::TraceParent;

thread_local! {
    static OUTGOING: Cell<Option<TraceParent>> = const { Cell::new(None) };
}

/// Runs `start` (the synchronous start of a model call) with `traceparent` as the outgoing
/// trace context of this thread, then restores what was there.
pub fn with_traceparent<R>(traceparent: Option<TraceParent>, start: impl FnOnce() -> R) -> R {
    let previous = OUTGOING.with(|cell| cell.replace(traceparent));
    let result = start();
    OUTGOING.with(|cell| cell.set(previous));
    result
}

/// The trace context of the model call being started on this thread, if it is traced.
pub fn outgoing_traceparent() -> Option<TraceParent> {
    OUTGOING.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_holds_only_inside_the_call() {
        let context: TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
            .parse()
            .unwrap();
        assert_eq!(outgoing_traceparent(), None);
        let seen = with_traceparent(Some(context), outgoing_traceparent);
        assert_eq!(seen, Some(context));
        assert_eq!(outgoing_traceparent(), None);
        let nested = with_traceparent(Some(context), || {
            with_traceparent(None, outgoing_traceparent)
        });
        assert_eq!(nested, None);
    }
}
