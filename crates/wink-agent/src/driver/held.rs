//! [`HeldStream`]: streamed fragments held back until a turn policy has reviewed the turn.

use std::sync::{Mutex, PoisonError};

use wink_model::{StreamDelta, StreamSink};

/// Collects a model call's fragments; [`HeldStream::release`] passes them on in order once the
/// turn stands (a turn taken back is never shown).
#[derive(Debug, Default)]
pub(crate) struct HeldStream {
    deltas: Mutex<Vec<StreamDelta>>,
}

impl StreamSink for HeldStream {
    fn on_delta(&self, delta: &StreamDelta) {
        self.deltas
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(delta.clone());
    }
}

impl HeldStream {
    /// Passes every fragment held to `sink`.
    pub(crate) fn release(&self, sink: &dyn StreamSink) {
        let deltas =
            std::mem::take(&mut *self.deltas.lock().unwrap_or_else(PoisonError::into_inner));
        for delta in &deltas {
            sink.on_delta(delta);
        }
    }
}
