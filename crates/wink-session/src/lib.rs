//! Event-sourced session state for wink agents.
//!
//! A [`Session`] holds typed *slices* (persistent vectors of items keyed by item type). State changes only by
//! dispatching events: [`Session::dispatch`] runs the reducers registered for the event's type — or, when
//! there are none, appends the event to a *ledger* slice of its own type — and then publishes it on the
//! session's [`EventBus`]. Snapshots are O(1) and immutable; [`Session::restore`] goes back to one and
//! [`Session::fork`] starts a child session from one. A [`Journal`] attached to the session receives every
//! change before it is applied; the `wink-store` crate writes it as an append-only JSON Lines log that
//! [`Session::replay_record`] replays.
//!
//! This crate does no file or network I/O and needs no async runtime.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use wink_session::{Event, Session, reducers};
//!
//! #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
//! struct Note(String);
//! impl Event for Note {}
//!
//! let session = Session::new();
//! session.dispatch(Note("a".into()));
//! session.dispatch(Note("b".into()));
//! assert_eq!(session.slice::<Note>().all(), [Note("a".into()), Note("b".into())]);
//!
//! let before = session.snapshot();
//! session.register_reducer::<Note, Note>(reducers::replace_latest());
//! session.dispatch(Note("c".into()));
//! assert_eq!(session.slice::<Note>().all(), [Note("c".into())]);
//!
//! session.restore(&before).unwrap();
//! assert_eq!(session.slice::<Note>().latest(), Some(&Note("b".into())));
//!
//! let error = Session::new().restore(&before).unwrap_err();
//! assert_eq!(error.to_string(), "Slice types not registered: Note");
//! ```

mod bus;
mod event;
pub mod journal;
mod model_call;
mod path;
mod reducer;
mod registry;
mod session;
mod slice;
mod snapshot;
mod telemetry;
mod time;
mod trace;
mod transaction;
mod visibility;

pub use bus::{
    DispatchError, DispatchResult, EventBus, HandlerError, HandlerFailure, HandlerKind,
    SubscriptionId, panic_payload_text,
};
pub use event::{ErasedEvent, Event, SessionId, SliceItem, short_type_name};
pub use journal::{
    Journal, JournalError, LOG_SCHEMA_VERSION, LogHeader, LogRecord, PromptIdentity,
};
pub use model_call::{ModelCalled, RequestedCall, TraceStarted};
pub use path::{SectionPath, SectionVisibility};
pub use reducer::{DeclarativeReducers, DeclarativeSlice, Reducer, ReducerError};
pub use session::{ReplayError, Session, SessionBuilder, WeakSession};
pub use slice::{SliceOp, SliceView};
pub use snapshot::{SNAPSHOT_VERSION, Snapshot, SnapshotRestoreError};
pub use telemetry::{
    DisclosureTelemetry, ExpansionPath, LoopIntervention, PromptExecuted, PromptRendered,
    RenderedSectionTelemetry, TelemetryEvent, TokenUsage, ToolInvoked, ToolsInjected, TurnRepaired,
    VisibilityExpanded,
};
pub use time::{Timestamp, TimestampParseError};
pub use trace::{TraceParent, TraceParentError, TraceScope, TraceSource};
pub use transaction::SessionTransaction;
pub use visibility::{
    ClearAllVisibilityOverrides, ClearVisibilityOverride, SetVisibilityOverride,
    VisibilityOverrides,
};

/// The built-in reducers.
pub mod reducers {
    pub use crate::reducer::{
        AppendAll, ReplaceLatest, ReplaceLatestBy, UpsertBy, append_all, replace_latest,
        replace_latest_by, upsert_by,
    };
}
