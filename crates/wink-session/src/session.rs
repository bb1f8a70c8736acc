//! The session: typed slices keyed by type, reducers, dispatch, snapshots, forks and the journal hook.

use std::any::TypeId;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::Value;

use crate::bus::{DispatchResult, EventBus, HandlerFailure, HandlerKind};
use crate::event::{Event, SessionId, SliceItem};
use crate::journal::{
    Journal, JournalError, RESET, RESTORED, ResetRecord, RestoreRecord, SLICE_EXTENDED,
    SLICE_REPLACED, SliceItemsRecord, SliceRecord,
};
use crate::reducer::{DeclarativeReducers, DeclarativeSlice, Reducer, Registration};
use crate::registry::Registry;
use crate::slice::{SliceMap, SliceOp, SliceView};
use crate::snapshot::{Snapshot, SnapshotRestoreError, parse_snapshot_slices, slice_records};
use crate::telemetry::register_telemetry_events;
use crate::time::Timestamp;
use crate::trace::{TraceParent, TraceScope, TraceSource};
use crate::visibility::VisibilityOverrides;

mod replay;

use replay::decode_records;

/// What a dispatch publishes once the session's lock is released: the event as its ledger
/// stored it (a view of the ledger keeps it; nothing is copied), or the event itself.
enum Published<E> {
    Stored(SliceView<E>),
    Owned(E),
}

/// Whether a dispatch is live (journal, then reducers, then bus) or a replay of a logged event (reducers only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DispatchMode {
    Live,
    Replay,
}

/// Why a log record could not be replayed into a session.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The record's type is not registered in the session (register it with
    /// [`Session::register_event`] or a reducer before replaying).
    #[error("event type {0:?} is not registered in this session")]
    UnknownEventType(String),
    /// The record's payload does not decode as its type.
    #[error("record of type {type_name}: payload does not decode: {source}")]
    Decode {
        /// The record type.
        type_name: String,
        /// The decoding error.
        source: serde_json::Error,
    },
    /// A `wink.restored` or `wink.slice_*` record that cannot be applied.
    #[error("record of type {type_name}: {source}")]
    Restore {
        /// The record type.
        type_name: String,
        /// Why.
        source: SnapshotRestoreError,
    },
    /// Committing a record to a session whose journal refused it.
    #[error("record of type {type_name}: the journal refused it: {source}")]
    Journal {
        /// The record type.
        type_name: String,
        /// The journal's error.
        source: JournalError,
    },
}

struct SessionCore {
    id: SessionId,
    parent_id: Option<SessionId>,
    created_at: Timestamp,
    bus: EventBus,
    state: Mutex<SessionState>,
}

pub(crate) struct SessionState {
    pub(crate) registry: Arc<Registry>,
    pub(crate) slices: Arc<SliceMap>,
    tags: Arc<BTreeMap<String, String>>,
    children_ids: Arc<Vec<SessionId>>,
    pub(crate) journal: Option<Arc<dyn Journal>>,
    /// Where outgoing requests of the session's run find their trace context (a tracer's).
    trace: Option<Arc<dyn TraceSource>>,
    /// True once anything changed the slices after construction (decides whether attaching a journal writes a
    /// baseline `wink.restored` record).
    changed: bool,
}

/// An event-sourced session: typed slices of state changed only by dispatched events (through reducers),
/// with O(1) snapshots, forks, an event bus and an optional durable journal.
///
/// `Session` is a cheap-to-clone shared handle (`Send + Sync`); clones see the same state.
///
/// Dispatch order: journal (write-ahead) → every reducer registered for the event's type, in registration
/// order (or the default ledger: append to the slice of the event's own type) → bus subscribers. Reducers run
/// under the session's lock and must not call back into the session; bus handlers may.
#[derive(Clone)]
pub struct Session {
    core: Arc<SessionCore>,
}

/// A handle on a [`Session`] that does not keep it alive ([`Session::downgrade`]): for a bus
/// subscriber that needs the session it listens to without holding it forever.
#[derive(Clone)]
pub struct WeakSession {
    core: std::sync::Weak<SessionCore>,
}

impl WeakSession {
    /// The session, while some [`Session`] handle on it still exists.
    pub fn upgrade(&self) -> Option<Session> {
        self.core.upgrade().map(|core| Session { core })
    }
}

impl fmt::Debug for WeakSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WeakSession")
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("Session")
            .field("id", &self.core.id)
            .field("parent_id", &self.core.parent_id)
            .field("created_at", &self.core.created_at)
            .field("slices", &state.slices)
            .finish_non_exhaustive()
    }
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

/// Options for a new [`Session`]: id, creation time, tags.
#[derive(Debug, Clone, Default)]
pub struct SessionBuilder {
    id: Option<SessionId>,
    created_at: Option<Timestamp>,
    tags: BTreeMap<String, String>,
}

impl SessionBuilder {
    /// Use this id instead of a fresh one (e.g. when reopening a logged session).
    pub fn id(mut self, id: SessionId) -> Self {
        self.id = Some(id);
        self
    }

    /// Use this creation time instead of now.
    pub fn created_at(mut self, created_at: Timestamp) -> Self {
        self.created_at = Some(created_at);
        self
    }

    /// Adds a tag.
    pub fn tag(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.tags.insert(key.into(), value.into());
        self
    }

    /// Builds the session with [`VisibilityOverrides`] installed and the telemetry events registered.
    pub fn build(self) -> Session {
        let session = Session::from_parts(
            self.id.unwrap_or_default(),
            None,
            self.created_at.unwrap_or_else(Timestamp::now),
            Arc::new(Registry::default()),
            Arc::new(SliceMap::default()),
            Arc::new(self.tags),
        );
        {
            let mut state = session.lock();
            let registry = Arc::make_mut(&mut state.registry);
            register_telemetry_events(registry);
            for registration in declarative_registrations::<VisibilityOverrides>() {
                registry.add(registration);
            }
            if let Some(slice) = Arc::make_mut(&mut state.slices).view_mut::<VisibilityOverrides>()
            {
                slice.apply(SliceOp::Replace(vec![VisibilityOverrides::default()]));
            }
        }
        session
    }
}

fn declarative_registrations<S: DeclarativeSlice>() -> Vec<Registration> {
    let mut reducers = DeclarativeReducers::<S>::new();
    S::register_reducers(&mut reducers);
    reducers.registrations
}

impl Session {
    /// A fresh root session with [`VisibilityOverrides`] installed.
    pub fn new() -> Session {
        Self::builder().build()
    }

    /// Options for a new session.
    pub fn builder() -> SessionBuilder {
        SessionBuilder::default()
    }

    pub(crate) fn from_parts(
        id: SessionId,
        parent_id: Option<SessionId>,
        created_at: Timestamp,
        registry: Arc<Registry>,
        slices: Arc<SliceMap>,
        tags: Arc<BTreeMap<String, String>>,
    ) -> Session {
        let state = SessionState {
            registry,
            slices,
            tags,
            children_ids: Arc::new(Vec::new()),
            journal: None,
            trace: None,
            changed: false,
        };
        Session {
            core: Arc::new(SessionCore {
                id,
                parent_id,
                created_at,
                bus: EventBus::new(),
                state: Mutex::new(state),
            }),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, SessionState> {
        self.core
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// This session's id.
    pub fn id(&self) -> SessionId {
        self.core.id
    }

    /// The session this one was forked from.
    pub fn parent_id(&self) -> Option<SessionId> {
        self.core.parent_id
    }

    /// Ids of the sessions forked from this one, oldest first.
    pub fn children_ids(&self) -> Vec<SessionId> {
        self.lock().children_ids.to_vec()
    }

    /// When the session was created.
    pub fn created_at(&self) -> Timestamp {
        self.core.created_at
    }

    /// The session's tags.
    pub fn tags(&self) -> BTreeMap<String, String> {
        (*self.lock().tags).clone()
    }

    /// Sets a tag (tags are metadata: not part of the slices, not journaled).
    pub fn set_tag(&self, key: impl Into<String>, value: impl Into<String>) {
        let mut state = self.lock();
        Arc::make_mut(&mut state.tags).insert(key.into(), value.into());
    }

    /// Installs (or with `None` removes) the [`TraceSource`] that answers
    /// [`Session::traceparent`]; sessions forked from this one later ask the same source.
    pub fn set_trace_source(&self, source: Option<Arc<dyn TraceSource>>) {
        self.lock().trace = source;
    }

    /// The W3C trace context of the span `scope` names in this session's run: what a provider
    /// request, an MCP request or a queued request sends (`None` when the run is not traced).
    pub fn traceparent(&self, scope: TraceScope<'_>) -> Option<TraceParent> {
        let source = self.lock().trace.clone()?;
        source.traceparent(self.core.id, scope)
    }

    /// A handle that does not keep the session alive.
    pub fn downgrade(&self) -> WeakSession {
        WeakSession {
            core: Arc::downgrade(&self.core),
        }
    }

    /// Tool call `call_id` is made for a caller in another process, in its span `parent`: the
    /// call's span (when the session is traced) continues the caller's trace.
    pub fn continue_trace(&self, call_id: &str, parent: TraceParent) {
        let source = self.lock().trace.clone();
        if let Some(source) = source {
            source.remote_parent(self.core.id, call_id, parent);
        }
    }

    /// The session's event bus (events are published on it after their reducers ran).
    pub fn bus(&self) -> &EventBus {
        &self.core.bus
    }

    /// Makes `E` known by name, so logs and snapshots holding it can be replayed. Dispatching an `E` or
    /// registering a reducer for it does this too.
    pub fn register_event<E: Event>(&self) {
        Arc::make_mut(&mut self.lock().registry).register_event::<E>();
    }

    /// Makes the slice type `T` known (so snapshots holding it can be restored).
    pub fn register_slice<T: SliceItem>(&self) {
        Arc::make_mut(&mut self.lock().registry).register_slice::<T>();
    }

    /// Runs `reducer` on the `T` slice for every dispatched `E` (after reducers registered earlier). Once an
    /// event type has a reducer it is no longer appended to its default ledger.
    pub fn register_reducer<T: SliceItem, E: Event>(&self, reducer: impl Reducer<T, E>) {
        Arc::make_mut(&mut self.lock().registry).add(Registration::new::<T, E>(reducer));
    }

    /// Installs a declarative slice: registers its reducer methods and sets the slice to `[initial]`.
    pub fn install<S: DeclarativeSlice>(&self, initial: S) -> Result<(), JournalError> {
        {
            let mut state = self.lock();
            let registry = Arc::make_mut(&mut state.registry);
            for registration in declarative_registrations::<S>() {
                registry.add(registration);
            }
        }
        self.change_slice::<S>(SLICE_REPLACED, vec![initial])
    }

    /// Is an event type with this name registered?
    pub fn is_event_type_registered(&self, type_name: &str) -> bool {
        self.lock().registry.event_names.contains_key(type_name)
    }

    /// Is a slice type with this name registered?
    pub fn is_slice_type_registered(&self, type_name: &str) -> bool {
        self.lock().registry.slice_names.contains_key(type_name)
    }

    /// The slices an event type reduces into: the slice of every reducer registered for it, in registration
    /// order (a slice once even when several reducers target it), or its own ledger slice when it has no
    /// reducer. `None` when no event type of that name is registered.
    ///
    /// ```
    /// let session = wink_session::Session::new();
    /// assert_eq!(
    ///     session.slices_reduced_by("SetVisibilityOverride"),
    ///     Some(vec!["VisibilityOverrides"])
    /// );
    /// assert_eq!(session.slices_reduced_by("PromptRendered"), Some(vec!["PromptRendered"]));
    /// assert_eq!(session.slices_reduced_by("Nope"), None);
    /// ```
    pub fn slices_reduced_by(&self, event_type: &str) -> Option<Vec<&'static str>> {
        let state = self.lock();
        let registry = &state.registry;
        // An event type's slice name is its event type name (`SliceItem` for events delegates to `Event`).
        let (ledger, entry) = registry.events.iter().find_map(|(type_id, entry)| {
            let name = registry.slices.get(type_id).copied()?;
            (name == event_type).then_some((name, entry))
        })?;
        if entry.reducers.is_empty() {
            return Some(vec![ledger]);
        }
        let mut targets: Vec<&'static str> = Vec::new();
        for reducer in &entry.reducers {
            if !targets.contains(&reducer.slice_name()) {
                targets.push(reducer.slice_name());
            }
        }
        Some(targets)
    }

    /// Dispatches an event: journal, reducers (or the default ledger), then the bus. Failures of reducers,
    /// subscribers or the journal are isolated and reported in the result; a failed reducer leaves its slice
    /// unchanged, and a journal failure means the event was neither applied nor published.
    pub fn dispatch<E: Event>(&self, event: E) -> DispatchResult {
        self.dispatch_with(event, DispatchMode::Live)
    }

    pub(crate) fn dispatch_with<E: Event>(&self, event: E, mode: DispatchMode) -> DispatchResult {
        let type_id = TypeId::of::<E>();
        let live = mode == DispatchMode::Live;
        let publish = live && self.core.bus.has_subscribers::<E>();
        let mut result = DispatchResult::default();
        let leftover = {
            let mut guard = self.lock();
            let state = &mut *guard;
            if !state.registry.events.contains_key(&type_id) {
                Arc::make_mut(&mut state.registry).register_event::<E>();
            }
            if live
                && let Some(journal) = &state.journal
                && let Err(error) = journal.append(E::type_name(), &event)
            {
                tracing::error!(event_type = E::type_name(), error = %error, "Journal append failed; event dropped.");
                result.errors.push(HandlerFailure {
                    handler: HandlerKind::Journal,
                    error: error.to_string(),
                });
                return result;
            }
            state.changed = true;
            let slices = Arc::make_mut(&mut state.slices);
            let reducers = state
                .registry
                .events
                .get(&type_id)
                .map(|entry| entry.reducers.as_slice())
                .unwrap_or(&[]);
            if reducers.is_empty() {
                match slices.view_mut::<E>() {
                    Some(ledger) => {
                        result.reducers_applied += 1;
                        ledger.push(event);
                        publish.then(|| Published::Stored(ledger.clone()))
                    }
                    None => {
                        result.errors.push(HandlerFailure {
                            handler: HandlerKind::Reducer {
                                event_type: E::type_name(),
                                slice_type: E::type_name(),
                            },
                            error: "internal: ledger storage has another type".to_owned(),
                        });
                        publish.then_some(Published::Owned(event))
                    }
                }
            } else {
                for reducer in reducers {
                    match reducer.apply(slices, &event) {
                        Ok(()) => result.reducers_applied += 1,
                        Err(error) => {
                            tracing::warn!(
                                event_type = E::type_name(),
                                slice_type = reducer.slice_name(),
                                error = %error,
                                "Reducer application failed."
                            );
                            result.errors.push(HandlerFailure {
                                handler: HandlerKind::Reducer {
                                    event_type: E::type_name(),
                                    slice_type: reducer.slice_name(),
                                },
                                error,
                            });
                        }
                    }
                }
                publish.then_some(Published::Owned(event))
            }
        };
        match &leftover {
            Some(Published::Stored(ledger)) => {
                if let Some(event) = ledger.latest() {
                    self.core.bus.publish_into(event, type_id, &mut result);
                }
            }
            Some(Published::Owned(event)) => {
                self.core.bus.publish_into(event, type_id, &mut result);
            }
            None => {}
        }
        result
    }

    /// The current items of the `T` slice (an immutable O(1) view).
    pub fn slice<T: SliceItem>(&self) -> SliceView<T> {
        self.lock().slices.view::<T>().cloned().unwrap_or_default()
    }

    /// The current [`VisibilityOverrides`] (the latest item of its slice; empty when none).
    pub fn visibility_overrides(&self) -> VisibilityOverrides {
        self.lock()
            .slices
            .view::<VisibilityOverrides>()
            .and_then(SliceView::latest)
            .cloned()
            .unwrap_or_default()
    }

    /// Appends items to the `T` slice directly (not through reducers); journaled as `wink.slice_extended`.
    pub fn seed<T: SliceItem>(
        &self,
        items: impl IntoIterator<Item = T>,
    ) -> Result<(), JournalError> {
        self.change_slice::<T>(SLICE_EXTENDED, items.into_iter().collect())
    }

    /// Empties the `T` slice; journaled as `wink.slice_replaced` with no items.
    pub fn clear<T: SliceItem>(&self) -> Result<(), JournalError> {
        self.change_slice::<T>(SLICE_REPLACED, Vec::new())
    }

    /// Removes the items of the `T` slice matching `predicate`; journaled as `wink.slice_replaced` with the
    /// remaining items.
    pub fn clear_where<T: SliceItem>(
        &self,
        predicate: impl Fn(&T) -> bool,
    ) -> Result<(), JournalError> {
        let kept = self.slice::<T>().filter(|item| !predicate(item));
        self.change_slice::<T>(SLICE_REPLACED, kept)
    }

    fn change_slice<T: SliceItem>(
        &self,
        kind: &'static str,
        items: Vec<T>,
    ) -> Result<(), JournalError> {
        let mut state = self.lock();
        Arc::make_mut(&mut state.registry).register_slice::<T>();
        if let Some(journal) = &state.journal {
            let json: Result<Vec<Value>, _> = items.iter().map(serde_json::to_value).collect();
            let json = json.map_err(|error| {
                JournalError::new(format!(
                    "cannot encode {} items: {error}",
                    T::slice_type_name()
                ))
            })?;
            journal.append(
                kind,
                &SliceItemsRecord {
                    slice: T::slice_type_name().to_owned(),
                    items: json,
                },
            )?;
        }
        state.changed = true;
        let slice = Arc::make_mut(&mut state.slices)
            .view_mut::<T>()
            .ok_or_else(|| {
                JournalError::new(format!(
                    "internal: slice storage is not {}",
                    T::slice_type_name()
                ))
            })?;
        if kind == SLICE_EXTENDED {
            slice.apply(SliceOp::Extend(items));
        } else {
            slice.apply(SliceOp::Replace(items));
        }
        Ok(())
    }

    /// Clears every slice (declarative slices included); journaled as `wink.reset`.
    pub fn reset(&self) -> Result<(), JournalError> {
        let mut state = self.lock();
        if let Some(journal) = &state.journal {
            journal.append(RESET, &ResetRecord {})?;
        }
        state.changed = true;
        state.slices = Arc::new(SliceMap::default());
        Ok(())
    }

    /// An immutable snapshot of every slice; O(1).
    pub fn snapshot(&self) -> Snapshot {
        let state = self.lock();
        Snapshot {
            slices: Arc::clone(&state.slices),
            session_id: self.core.id,
            parent_id: self.core.parent_id,
            children_ids: Arc::clone(&state.children_ids),
            tags: Arc::clone(&state.tags),
            created_at: Timestamp::now(),
        }
    }

    /// Sets every slice to its state in `snapshot` (slices absent from the snapshot become empty).
    ///
    /// Fails, leaving the session unchanged, when the snapshot holds a slice type this session has not
    /// registered: `Slice types not registered: Note`. Journaled as `wink.restored`.
    pub fn restore(&self, snapshot: &Snapshot) -> Result<(), SnapshotRestoreError> {
        let mut state = self.lock();
        let mut missing: Vec<String> = snapshot
            .slices
            .type_ids()
            .filter(|(type_id, _)| !state.registry.slices.contains_key(type_id))
            .map(|(_, name)| name.to_owned())
            .collect();
        if !missing.is_empty() {
            missing.sort();
            return Err(SnapshotRestoreError::UnregisteredSliceTypes(missing));
        }
        if let Some(journal) = &state.journal {
            let slices = snapshot
                .slice_records()
                .map_err(|error| SnapshotRestoreError::Journal(error.to_string()))?;
            journal
                .append(RESTORED, &RestoreRecord { slices })
                .map_err(|error| SnapshotRestoreError::Journal(error.to_string()))?;
        }
        state.changed = true;
        state.slices = Arc::clone(&snapshot.slices);
        Ok(())
    }

    /// Seed 002's name for [`Session::restore`].
    pub fn rollback(&self, snapshot: &Snapshot) -> Result<(), SnapshotRestoreError> {
        self.restore(snapshot)
    }

    /// Restores a snapshot from its JSON form ([`Snapshot::to_json`]); every slice type must be registered.
    pub fn restore_json(&self, snapshot: &Value) -> Result<(), SnapshotRestoreError> {
        let records = parse_snapshot_slices(snapshot)?;
        self.restore_records(records, DispatchMode::Live)
    }

    fn restore_records(
        &self,
        records: Vec<SliceRecord>,
        mode: DispatchMode,
    ) -> Result<(), SnapshotRestoreError> {
        let mut state = self.lock();
        let decoded = decode_records(&state.registry, records.clone())?;
        if mode == DispatchMode::Live
            && let Some(journal) = &state.journal
        {
            journal
                .append(RESTORED, &RestoreRecord { slices: records })
                .map_err(|error| SnapshotRestoreError::Journal(error.to_string()))?;
        }
        state.changed = true;
        state.slices = Arc::new(decoded);
        Ok(())
    }

    /// A child session started from a snapshot of this one taken now: same registrations, same slices, a
    /// fresh id, this session as parent, a copy of the tags, and its own (empty) bus and no journal. Nothing the
    /// child does reaches this session. [`Session::fork_from`] starts a child from an earlier snapshot.
    pub fn fork(&self) -> Session {
        let snapshot = self.snapshot();
        let registry = Arc::clone(&self.lock().registry);
        self.adopt_child(registry, &snapshot)
    }

    /// A child session started from `snapshot`, normally one this session took earlier: the child holds the
    /// slices and tags as they were in the snapshot (changes this session made since are not in it), this
    /// session's registrations, a fresh id, this session as parent (the child is added to
    /// [`Session::children_ids`]), its own empty bus and no journal. Nothing the child does reaches this session.
    ///
    /// Fails like [`Session::restore`], creating no child, when the snapshot holds a slice type this session
    /// has not registered (`Slice types not registered: Note`).
    ///
    /// ```
    /// use wink_session::{Event, Session};
    /// #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    /// struct Note(String);
    /// impl Event for Note {}
    ///
    /// let parent = Session::new();
    /// parent.dispatch(Note("before".into()));
    /// let earlier = parent.snapshot();
    /// parent.dispatch(Note("after".into()));
    ///
    /// let child = parent.fork_from(&earlier)?;
    /// assert_eq!(child.slice::<Note>().all(), [Note("before".into())]);
    /// assert_eq!(child.parent_id(), Some(parent.id()));
    /// assert_eq!(parent.children_ids(), [child.id()]);
    /// # Ok::<(), wink_session::SnapshotRestoreError>(())
    /// ```
    pub fn fork_from(&self, snapshot: &Snapshot) -> Result<Session, SnapshotRestoreError> {
        let registry = Arc::clone(&self.lock().registry);
        let mut missing: Vec<String> = snapshot
            .slices
            .type_ids()
            .filter(|(type_id, _)| !registry.slices.contains_key(type_id))
            .map(|(_, name)| name.to_owned())
            .collect();
        if !missing.is_empty() {
            missing.sort();
            return Err(SnapshotRestoreError::UnregisteredSliceTypes(missing));
        }
        Ok(self.adopt_child(registry, snapshot))
    }

    fn adopt_child(&self, registry: Arc<Registry>, snapshot: &Snapshot) -> Session {
        let child = Session::from_parts(
            SessionId::new(),
            Some(self.core.id),
            Timestamp::now(),
            registry,
            Arc::clone(&snapshot.slices),
            Arc::clone(&snapshot.tags),
        );
        let mut state = self.lock();
        Arc::make_mut(&mut state.children_ids).push(child.id());
        child.lock().trace.clone_from(&state.trace);
        child
    }

    /// Attaches a journal: from now on every change is appended to it before it is applied.
    ///
    /// When the session already changed since it was created, a `wink.restored` record holding the current
    /// slices is appended first, so that replaying the journal reproduces the state.
    pub fn attach_journal(&self, journal: Arc<dyn Journal>) -> Result<(), JournalError> {
        let mut state = self.lock();
        if state.changed {
            let slices = slice_records(&state.slices).map_err(|error| {
                JournalError::new(format!("cannot encode the current slices: {error}"))
            })?;
            journal.append(RESTORED, &RestoreRecord { slices })?;
        }
        state.journal = Some(journal);
        Ok(())
    }

    /// Attaches a journal that already holds this session's history (a log that was just replayed into it):
    /// unlike [`Session::attach_journal`] no baseline record is written.
    pub fn resume_journal(&self, journal: Arc<dyn Journal>) {
        self.lock().journal = Some(journal);
    }

    /// Detaches the journal, returning it.
    pub fn detach_journal(&self) -> Option<Arc<dyn Journal>> {
        self.lock().journal.take()
    }

    /// Every slice's items as JSON, by slice type name (what `wink session show` prints).
    pub fn slices_json(&self) -> Result<BTreeMap<&'static str, Vec<Value>>, serde_json::Error> {
        self.snapshot().slices_json()
    }
}
