//! A process-wide hook on the start of every run the main loop makes: how a tracer
//! (`wink-trace`) sees each run of a program — `wink run`, `wink eval`, an [`crate::Agent`] —
//! without every caller wiring it. Sub-agent runs are left out: their events reach the session
//! of the run that dispatched them.

use std::sync::OnceLock;

use wink_session::Session;

type Hook = Box<dyn Fn(&Session) + Send + Sync>;

static HOOK: OnceLock<Hook> = OnceLock::new();

/// Calls `hook` with the session of every top-level run [`crate::MainLoop`] starts from now on.
/// One hook per process: `false` when one is set already.
pub fn on_run_start(hook: impl Fn(&Session) + Send + Sync + 'static) -> bool {
    HOOK.set(Box::new(hook)).is_ok()
}

/// A run starts in `session`.
pub(crate) fn run_started(session: &Session) {
    if let Some(hook) = HOOK.get()
        && crate::subagent_depth(session) == 0
    {
        hook(session);
    }
}
