//! Session logs (`--session LOG.jsonl`): every session event appended as it happens; a log that
//! exists is resumed, but only for the prompt it was recorded for.

use std::path::Path;
use std::sync::Arc;

use wink_core::PromptTemplate;
use wink_session::{PromptIdentity, Session};
use wink_store::{FsyncPolicy, SessionLog};

use crate::error::{Result, RunError};

/// Every event is flushed to disk as it is appended.
const FSYNC: FsyncPolicy = FsyncPolicy::EveryEvent;

/// The session of a run that logs to `path`: replayed from the log when it exists (with its log
/// kept open), else a new session (the log is created by [`create`] once the prompt is known).
///
/// # Errors
/// [`RunError::Usage`] naming `--session` when the log cannot be read or is in use.
pub fn resume(path: Option<&Path>) -> Result<(Session, Option<Arc<SessionLog>>)> {
    match path {
        Some(path) if path.exists() => {
            let (session, log, _report) =
                wink_store::open_session(path, FSYNC, crate::prompt::register_run_events)
                    .map_err(|e| RunError::usage(format!("--session: {e}")))?;
            Ok((session, Some(log)))
        }
        _ => Ok((Session::new(), None)),
    }
}

/// A new log at `path` for `session`, recording which prompt it is for.
///
/// # Errors
/// [`RunError::Usage`] naming `--session`.
pub fn create(path: &Path, session: &Session, identity: PromptIdentity) -> Result<Arc<SessionLog>> {
    SessionLog::create_for_prompt(path, session, FSYNC, Some(identity))
        .map_err(|e| RunError::usage(format!("--session: {e}")))
}

/// The prompt a session log records: ns, key and the sha256 of the prompt file.
///
/// # Errors
/// [`RunError::Usage`] when the file cannot be read.
pub fn prompt_identity(file: &Path, template: &PromptTemplate) -> Result<PromptIdentity> {
    let sha256 = wink_store::sha256_file(file)
        .map_err(|e| RunError::usage(format!("cannot read {}: {e}", file.display())))?;
    Ok(PromptIdentity {
        ns: template.ns().to_owned(),
        key: template.key().to_owned(),
        sha256,
    })
}

/// Refuses to resume a log recorded for another prompt, unless `force`.
///
/// # Errors
/// [`RunError::Usage`] naming both prompts and the way out.
pub fn check_prompt(path: &Path, identity: &PromptIdentity, force: bool) -> Result<()> {
    let header =
        wink_store::read_header(path).map_err(|e| RunError::usage(format!("--session: {e}")))?;
    match header.prompt {
        Some(logged) if logged != *identity && !force => Err(RunError::usage(format!(
            "--session: {} was recorded for prompt {}:{} (sha256 {}), not {}:{} (sha256 {}); \
             use another log, or --force to resume it anyway",
            path.display(),
            logged.ns,
            logged.key,
            logged.sha256,
            identity.ns,
            identity.key,
            identity.sha256
        ))),
        _ => Ok(()),
    }
}
