//! Reducers: pure functions from (slice view, event) to a [`SliceOp`], the four built-ins, and declarative
//! slices (a state type whose methods reduce events into its next value).

use std::any::Any;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crate::bus::{HandlerError, panic_message};
use crate::event::{Event, SliceItem};
use crate::slice::{SliceMap, SliceOp, SliceView};

/// The error a reducer reports; the slice is left untouched and the failure appears in the
/// [`DispatchResult`](crate::DispatchResult).
pub type ReducerError = HandlerError;

/// Reduces events of type `E` into the slice of `T`.
///
/// Implemented for closures `Fn(&SliceView<T>, &E) -> Result<SliceOp<T>, ReducerError>`. A reducer must be
/// deterministic (replaying a log runs it again) and must not call back into the session.
pub trait Reducer<T, E>: Send + Sync + 'static {
    /// The operation to apply to the slice for this event.
    fn reduce(&self, slice: &SliceView<T>, event: &E) -> Result<SliceOp<T>, ReducerError>;
}

impl<T, E, F> Reducer<T, E> for F
where
    F: Fn(&SliceView<T>, &E) -> Result<SliceOp<T>, ReducerError> + Send + Sync + 'static,
{
    fn reduce(&self, slice: &SliceView<T>, event: &E) -> Result<SliceOp<T>, ReducerError> {
        self(slice, event)
    }
}

/// Appends every event (the ledger; the default for event types without a reducer).
#[derive(Debug, Clone, Copy, Default)]
pub struct AppendAll;

/// Keeps only the latest event.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplaceLatest;

/// Replaces, in place, the item whose key equals the event's key, or appends when no item has that key.
#[derive(Debug, Clone, Copy)]
pub struct UpsertBy<F>(F);

/// Removes every item whose key equals the event's key and appends the event: the slice holds the latest item
/// per key, ordered by last update.
#[derive(Debug, Clone, Copy)]
pub struct ReplaceLatestBy<F>(F);

/// The ledger reducer: [`SliceOp::Append`] of every event.
pub fn append_all() -> AppendAll {
    AppendAll
}

/// [`SliceOp::Replace`] with just the event.
pub fn replace_latest() -> ReplaceLatest {
    ReplaceLatest
}

/// Upsert by a key function (see [`UpsertBy`]).
pub fn upsert_by<T, K: PartialEq>(
    key: impl Fn(&T) -> K + Send + Sync + 'static,
) -> UpsertBy<impl Fn(&T) -> K> {
    UpsertBy(key)
}

/// Latest item per key (see [`ReplaceLatestBy`]).
pub fn replace_latest_by<T, K: PartialEq>(
    key: impl Fn(&T) -> K + Send + Sync + 'static,
) -> ReplaceLatestBy<impl Fn(&T) -> K> {
    ReplaceLatestBy(key)
}

impl<T, E> Reducer<T, E> for AppendAll
where
    E: Clone + Into<T>,
{
    fn reduce(&self, _: &SliceView<T>, event: &E) -> Result<SliceOp<T>, ReducerError> {
        Ok(SliceOp::Append(event.clone().into()))
    }
}

impl<T, E> Reducer<T, E> for ReplaceLatest
where
    E: Clone + Into<T>,
{
    fn reduce(&self, _: &SliceView<T>, event: &E) -> Result<SliceOp<T>, ReducerError> {
        Ok(SliceOp::Replace(vec![event.clone().into()]))
    }
}

impl<T, E, K, F> Reducer<T, E> for UpsertBy<F>
where
    T: Clone + 'static,
    E: Clone + Into<T>,
    K: PartialEq,
    F: Fn(&T) -> K + Send + Sync + 'static,
{
    fn reduce(&self, slice: &SliceView<T>, event: &E) -> Result<SliceOp<T>, ReducerError> {
        let item: T = event.clone().into();
        let key = (self.0)(&item);
        match slice.iter().position(|existing| (self.0)(existing) == key) {
            None => Ok(SliceOp::Append(item)),
            Some(index) => {
                let mut items = slice.all();
                items[index] = item;
                Ok(SliceOp::Replace(items))
            }
        }
    }
}

impl<T, E, K, F> Reducer<T, E> for ReplaceLatestBy<F>
where
    T: Clone + 'static,
    E: Clone + Into<T>,
    K: PartialEq,
    F: Fn(&T) -> K + Send + Sync + 'static,
{
    fn reduce(&self, slice: &SliceView<T>, event: &E) -> Result<SliceOp<T>, ReducerError> {
        let item: T = event.clone().into();
        let key = (self.0)(&item);
        if !slice.iter().any(|existing| (self.0)(existing) == key) {
            return Ok(SliceOp::Append(item));
        }
        let mut items = slice.filter(|existing| (self.0)(existing) != key);
        items.push(item);
        Ok(SliceOp::Replace(items))
    }
}

/// A state type whose reducer methods fold events into its next value (WINK's `@reducer(on=...)` methods).
///
/// The slice holds one item, the current state; when it is empty the reducers start from `Self::default()`.
/// Install it with [`Session::install`](crate::Session::install).
pub trait DeclarativeSlice: SliceItem + Default {
    /// Registers the state's reducer methods.
    fn register_reducers(reducers: &mut DeclarativeReducers<Self>);
}

/// The reducer methods of a [`DeclarativeSlice`], collected by
/// [`DeclarativeSlice::register_reducers`].
pub struct DeclarativeReducers<S> {
    pub(crate) registrations: Vec<Registration>,
    _state: PhantomData<fn() -> S>,
}

impl<S> std::fmt::Debug for DeclarativeReducers<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeclarativeReducers")
            .field("registrations", &self.registrations.len())
            .finish()
    }
}

impl<S: DeclarativeSlice> DeclarativeReducers<S> {
    pub(crate) fn new() -> Self {
        Self {
            registrations: Vec::new(),
            _state: PhantomData,
        }
    }

    /// On `E`, the state becomes `method(&state, &event)`.
    pub fn on<E: Event>(&mut self, method: fn(&S, &E) -> S) -> &mut Self {
        self.try_on::<E>(move |state, event| Ok(method(state, event)))
    }

    /// On `E`, the state becomes `method(&state, &event)`, or stays when it fails.
    pub fn try_on<E: Event>(
        &mut self,
        method: impl Fn(&S, &E) -> Result<S, ReducerError> + Send + Sync + 'static,
    ) -> &mut Self {
        let reducer = move |slice: &SliceView<S>, event: &E| {
            let next = match slice.latest() {
                Some(state) => method(state, event)?,
                None => method(&S::default(), event)?,
            };
            Ok(SliceOp::Replace(vec![next]))
        };
        self.registrations.push(Registration::new::<S, E>(reducer));
        self
    }
}

/// A type-erased reducer bound to its slice and event types.
pub(crate) trait ErasedReducer: Send + Sync {
    fn slice_name(&self) -> &'static str;
    /// Runs the reducer on the slice; the slice changes only when the reducer succeeds.
    fn apply(&self, slices: &mut SliceMap, event: &dyn Any) -> Result<(), String>;
}

struct TypedReducer<T, E, R> {
    reducer: R,
    _types: PhantomData<fn(&E) -> T>,
}

impl<T: SliceItem, E: Event, R: Reducer<T, E>> ErasedReducer for TypedReducer<T, E, R> {
    fn slice_name(&self) -> &'static str {
        T::slice_type_name()
    }

    fn apply(&self, slices: &mut SliceMap, event: &dyn Any) -> Result<(), String> {
        let event = event
            .downcast_ref::<E>()
            .ok_or_else(|| format!("internal: event is not a {}", E::type_name()))?;
        let slice = slices
            .view_mut::<T>()
            .ok_or_else(|| format!("internal: slice storage is not {}", T::slice_type_name()))?;
        let outcome = catch_unwind(AssertUnwindSafe(|| self.reducer.reduce(slice, event)));
        match outcome {
            Ok(Ok(op)) => {
                slice.apply(op);
                Ok(())
            }
            Ok(Err(error)) => Err(error.message().to_owned()),
            Err(payload) => Err(panic_message(payload.as_ref())),
        }
    }
}

/// A reducer registration: the event type it listens to plus the erased reducer, and how to register the
/// involved types.
pub(crate) struct Registration {
    pub(crate) event_type: std::any::TypeId,
    pub(crate) reducer: Arc<dyn ErasedReducer>,
    pub(crate) register_types: fn(&mut crate::registry::Registry),
}

impl Registration {
    pub(crate) fn new<T: SliceItem, E: Event>(reducer: impl Reducer<T, E>) -> Self {
        Self {
            event_type: std::any::TypeId::of::<E>(),
            reducer: Arc::new(TypedReducer::<T, E, _> {
                reducer,
                _types: PhantomData,
            }),
            register_types: |registry| {
                registry.register_event::<E>();
                registry.register_slice::<T>();
            },
        }
    }
}
