//! Disclosure counters (`wink.tools.injected`, `wink.disclosure.restarts`,
//! `wink.disclosure.dynamic`): process-wide, exposed as a snapshot and as `tracing` events.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

static TOOLS_INJECTED: AtomicU64 = AtomicU64::new(0);
static RESTARTS: AtomicU64 = AtomicU64::new(0);
static DYNAMIC: AtomicU64 = AtomicU64::new(0);

/// The counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct MetricsSnapshot {
    /// `wink.tools.injected`: tools added to running conversations.
    #[serde(rename = "wink.tools.injected")]
    pub tools_injected: u64,
    /// `wink.disclosure.restarts`: evaluations restarted to expand sections.
    #[serde(rename = "wink.disclosure.restarts")]
    pub disclosure_restarts: u64,
    /// `wink.disclosure.dynamic`: expansions handled by injecting tools.
    #[serde(rename = "wink.disclosure.dynamic")]
    pub disclosure_dynamic: u64,
}

/// Read the counters.
pub fn metrics() -> MetricsSnapshot {
    MetricsSnapshot {
        tools_injected: TOOLS_INJECTED.load(Ordering::Relaxed),
        disclosure_restarts: RESTARTS.load(Ordering::Relaxed),
        disclosure_dynamic: DYNAMIC.load(Ordering::Relaxed),
    }
}

pub(crate) fn record_injection(tools: usize) {
    TOOLS_INJECTED.fetch_add(tools as u64, Ordering::Relaxed);
    DYNAMIC.fetch_add(1, Ordering::Relaxed);
    tracing::info!(
        counter = "wink.tools.injected",
        value = tools,
        "tools injected"
    );
    tracing::info!(
        counter = "wink.disclosure.dynamic",
        value = 1,
        "dynamic disclosure"
    );
}

pub(crate) fn record_restart() {
    RESTARTS.fetch_add(1, Ordering::Relaxed);
    tracing::info!(
        counter = "wink.disclosure.restarts",
        value = 1,
        "disclosure restart"
    );
}
