//! What a run does on SIGINT and SIGTERM: the command tools it started are killed with
//! everything they started, the trace exporter is flushed, and the process exits 130 / 143. A
//! worker instead stops taking work on the first signal and exits on the second.
//!
//! The front end says what happens: [`Say`] gets the line to print.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Prints a line for the user (the front end chooses where).
pub type Say = fn(&str);

/// On SIGINT or SIGTERM: kill the running command tools with everything they started, then
/// exit 130 / 143 (SIGKILL cannot be caught: see `wink_promptfile::kill_running_commands`).
pub fn exit_on_signals(say: Say) {
    watch(None, say);
}

/// A worker's stop flag: the first SIGINT or SIGTERM sets it (in-flight runs stop after their
/// current step and are handed back); a second one exits at once (130 / 143), killing the
/// running command tools.
pub fn stop_flag_on_signals(say: Say) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    watch(Some(stop.clone()), say);
    stop
}

/// Watches SIGINT and SIGTERM on a thread of its own. With `stop`, the first signal sets it and
/// only a second one exits; without, the first one exits.
fn watch(stop: Option<Arc<AtomicBool>>, say: Say) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
        else {
            return;
        };
        let (Ok(mut interrupt), Ok(mut terminate)) = runtime.block_on(async {
            (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            )
        }) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("wink-signals".into())
            .spawn(move || {
                let code = loop {
                    let code = runtime.block_on(async {
                        tokio::select! {
                            _ = interrupt.recv() => 130,
                            _ = terminate.recv() => 143,
                        }
                    });
                    match &stop {
                        Some(flag) if !flag.swap(true, Ordering::Relaxed) => {
                            say("wink worker: stopping: in-flight runs stop after their current step");
                        }
                        _ => break code,
                    }
                };
                wink_promptfile::kill_running_commands();
                if stop.is_none() {
                    say("wink: stopped by a signal; the running command tools were killed");
                }
                #[cfg(feature = "trace")]
                wink_trace::shutdown();
                std::process::exit(code);
            });
    }
    #[cfg(not(unix))]
    let _ = (stop, say);
}
