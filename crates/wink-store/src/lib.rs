//! Durable session logs for wink: every change of a [`Session`] appended as one JSON line, written so that a
//! crash never loses an acknowledged event nor leaves an unreadable log, and replayed to rebuild the session.
//!
//! # Format
//!
//! A log is UTF-8 JSON Lines. The first line is the header, then one line per change, in order:
//!
//! ```text
//! {"wink_session_log":1,"session_id":"c70e2d36-6a8e-4b59-9c55-3b1f6b5c2a10","created_at":"2026-11-22T03:47:39.123456Z"}
//! {"seq":1,"type":"Note","event":"a"}
//! {"seq":2,"type":"SetVisibilityOverride","event":{"path":["reference"],"visibility":"full"}}
//! ```
//!
//! `type` is the event's `Event::type_name`, or one of the reserved records documented in
//! [`wink_session::journal`] (`wink.slice_replaced`, `wink.slice_extended`, `wink.restored`, `wink.reset`)
//! for changes that are not events. `seq` counts from 1 and increases by one per line.
//!
//! # Durability
//!
//! The session writes each change to the log *before* applying it ([`wink_session::Journal`]). A line is
//! encoded completely in memory and written with one `write` to a file opened in append mode, then synced
//! per the [`FsyncPolicy`]: [`FsyncPolicy::EveryEvent`] (the default) calls `fsync` before the dispatch
//! returns, so an acknowledged event survives power loss; [`FsyncPolicy::Never`] leaves write-back to the OS
//! (acknowledged events survive a process crash, not a machine crash). The header and the directory entry
//! are always synced on creation. A failed append is truncated away and reported in the dispatch result; the
//! session does not apply that change.
//!
//! A crash in the middle of a write can only leave a *torn last line*. Readers detect it (no trailing newline,
//! or a last line that is not a valid record), drop it with a `tracing` warning, and [`SessionLog::resume`]
//! truncates it before appending. An invalid line anywhere else is reported as
//! [`StoreError::CorruptRecord`]. A header with a schema version newer than [`LOG_SCHEMA_VERSION`] is
//! [`StoreError::UnsupportedVersion`], naming the file and the version.
//!
//! # Locking
//!
//! A [`SessionLog`] holds an exclusive OS file lock on its file (`flock` on Unix, through
//! `std::fs::File::try_lock`) from creation or resumption until it is dropped: a second writer, in this
//! process or another, fails at once with [`StoreError::Locked`] instead of interleaving sequence numbers.
//! Readers ([`read_log`], [`show`]) do not lock. The lock is released by the OS when the process ends,
//! however it ends.
//!
//! # `wink session show`
//!
//! [`show`] prints a log's events and the slices replay yields (the CLI's
//! `wink session show FILE [--slice TYPE] [--format text|json]`). Text:
//!
//! ```text
//! Session c70e2d36-6a8e-4b59-9c55-3b1f6b5c2a10
//!   log: session.jsonl
//!   schema: 1
//!   created: 2026-11-22T03:47:39.123456Z
//!   records: 2
//!
//! Events (2):
//!   #1 Note "a"
//!   #2 Note "b"
//!
//! Slices (2):
//!   Note (2 items)
//!     - "a"
//!     - "b"
//!   VisibilityOverrides (1 item)
//!     - {"overrides":[]}
//! ```
//!
//! A dropped torn line adds `  dropped torn last line: line N (B bytes)` after `records`. JSON (pretty
//! printed): `{"header": {...}, "events": [{"seq", "type", "event"}, ...], "slices": {"<type>": [items...]}}`,
//! plus `"dropped_torn_line": N` when one was dropped. With `--slice TYPE` only that slice is shown, with the
//! records that reduced into it: events whose reducers target it (for a ledger, the events of its own type),
//! `wink.slice_*` records naming it, and `wink.restored` / `wink.reset` records (they set every slice). So
//! `--slice VisibilityOverrides` lists the `SetVisibilityOverride`, `ClearVisibilityOverride` and
//! `ClearAllVisibilityOverrides` events that built the overrides.
//!
//! # Example
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use wink_session::{Event, Session};
//! use wink_store::{FsyncPolicy, SessionLog, ShowFormat};
//!
//! #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
//! struct Note(String);
//! impl Event for Note {}
//!
//! let path = std::env::temp_dir().join(format!("wink-store-doc-{}.jsonl", std::process::id()));
//! # let _ = std::fs::remove_file(&path);
//! let session = Session::new();
//! SessionLog::create(&path, &session, FsyncPolicy::EveryEvent)?;
//! session.dispatch(Note("a".into()));
//! session.dispatch(Note("b".into()));
//!
//! let (id, notes) = (session.id(), session.slice::<Note>().all());
//! drop(session); // the log stays locked while its session lives
//!
//! // Rebuild the session from its log.
//! let (reopened, _log, report) = wink_store::open_session(&path, FsyncPolicy::EveryEvent, |s| {
//!     s.register_event::<Note>();
//! })?;
//! assert_eq!(report.records, 2);
//! assert_eq!(reopened.id(), id);
//! assert_eq!(reopened.slice::<Note>().all(), notes);
//!
//! let text = wink_store::show(&path, Some("Note"), ShowFormat::Text)?;
//! assert!(text.contains("  Note (2 items)\n    - \"a\"\n    - \"b\"\n"));
//! # std::fs::remove_file(&path).ok();
//! # Ok::<(), wink_store::StoreError>(())
//! ```

mod error;
mod log;
mod read;
mod show;

use std::path::Path;
use std::sync::Arc;

pub use error::StoreError;
pub use log::{FsyncPolicy, SessionLog};
pub use read::{LogContents, ReplayReport, TornTail, read_header, read_log, repair_log, replay};
pub use show::{ShowFormat, show, show_with};
pub use wink_session::LOG_SCHEMA_VERSION;

/// The lowercase hex sha256 of the file at `path` (a log's [`wink_session::PromptIdentity`]
/// records the prompt file's).
///
/// # Errors
/// The I/O error.
pub fn sha256_file(path: impl AsRef<std::path::Path>) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    use std::fmt::Write as _;
    let data = std::fs::read(path)?;
    let mut hex = String::with_capacity(64);
    for byte in Sha256::digest(&data) {
        let _ = write!(hex, "{byte:02x}");
    }
    Ok(hex)
}
use wink_session::{Session, SessionBuilder};

/// A [`SessionBuilder`] with the id and creation time recorded in the log's header.
pub fn session_builder(path: impl AsRef<Path>) -> Result<SessionBuilder, StoreError> {
    let header = read_header(path)?;
    Ok(Session::builder()
        .id(header.session_id)
        .created_at(header.created_at))
}

/// Reopens a logged session: builds it with the logged id, lets `configure` register its reducers and event
/// types, replays the log, and attaches the log for further appends (see [`SessionLog::resume`]).
pub fn open_session(
    path: impl AsRef<Path>,
    policy: FsyncPolicy,
    configure: impl FnOnce(&Session),
) -> Result<(Session, Arc<SessionLog>, ReplayReport), StoreError> {
    let path = path.as_ref();
    // Locked first: a log another run is still writing is refused before it is read.
    let file = log::open_locked(path)?;
    let session = session_builder(path)?.build();
    configure(&session);
    let (log, report) = SessionLog::resume_locked(path, file, &session, policy)?;
    Ok((session, log, report))
}
