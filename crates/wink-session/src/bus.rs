//! In-process event bus: type-scoped and catch-all subscribers, synchronous in-order delivery on the
//! publishing thread, and failure isolation (errors and panics of one handler never stop the others).

use std::any::{Any, TypeId};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};

use crate::event::{ErasedEvent, Event};
use crate::slice::TypeMap;

/// Identifier of one subscription, returned by [`EventBus::subscribe`]; pass it to [`EventBus::unsubscribe`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SubscriptionId(u64);

impl fmt::Display for SubscriptionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "subscription#{}", self.0)
    }
}

/// The error a handler (or reducer) reports.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HandlerError {
    message: String,
}

impl HandlerError {
    /// An error with this message.
    pub fn new(message: impl fmt::Display) -> Self {
        Self {
            message: message.to_string(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<String> for HandlerError {
    fn from(message: String) -> Self {
        Self { message }
    }
}

impl From<&str> for HandlerError {
    fn from(message: &str) -> Self {
        Self {
            message: message.to_owned(),
        }
    }
}

/// Which part of a dispatch failed.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandlerKind {
    /// A reducer registered for `event_type` that writes the `slice_type` slice.
    Reducer {
        /// Name of the dispatched event type.
        event_type: &'static str,
        /// Name of the slice the reducer writes.
        slice_type: &'static str,
    },
    /// A bus subscriber.
    Subscriber(SubscriptionId),
    /// The session's journal (durable log): the event was not recorded and therefore not applied.
    Journal,
}

impl fmt::Display for HandlerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandlerKind::Reducer {
                event_type,
                slice_type,
            } => write!(f, "reducer {event_type} -> {slice_type}"),
            HandlerKind::Subscriber(id) => write!(f, "{id}"),
            HandlerKind::Journal => f.write_str("journal"),
        }
    }
}

/// One failure captured during a dispatch: the handler and its error (a returned error or a caught panic).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandlerFailure {
    /// Which handler failed.
    pub handler: HandlerKind,
    /// What it reported (`panicked: <message>` for panics).
    pub error: String,
}

impl fmt::Display for HandlerFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} -> {}", self.handler, self.error)
    }
}

/// Outcome of [`Session::dispatch`](crate::Session::dispatch) or [`EventBus::publish`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DispatchResult {
    /// Number of bus subscribers the event was delivered to.
    pub handlers_invoked: usize,
    /// Number of reducers that ran successfully (the default ledger counts as one).
    pub reducers_applied: usize,
    /// Failures, in the order they happened. Empty when everything succeeded.
    pub errors: Vec<HandlerFailure>,
}

/// All failures of a dispatch, as one error (see [`DispatchResult::raise_if_errors`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("dispatch of {event_type} had {} failure(s): {}", failures.len(), join_failures(failures))]
pub struct DispatchError {
    /// The dispatched event type.
    pub event_type: &'static str,
    /// The failures, in order.
    pub failures: Vec<HandlerFailure>,
}

fn join_failures(failures: &[HandlerFailure]) -> String {
    failures
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl DispatchResult {
    /// True when no handler failed.
    pub fn ok(&self) -> bool {
        self.errors.is_empty()
    }

    /// `Err` carrying every failure when any handler failed (opt-in propagation).
    pub fn raise_if_errors(self, event_type: &'static str) -> Result<Self, DispatchError> {
        if self.errors.is_empty() {
            Ok(self)
        } else {
            Err(DispatchError {
                event_type,
                failures: self.errors,
            })
        }
    }
}

type ErasedHandler = dyn Fn(&dyn ErasedEvent) -> Result<(), HandlerError> + Send + Sync;

#[derive(Clone)]
struct Subscriber {
    id: SubscriptionId,
    handler: Arc<ErasedHandler>,
}

#[derive(Default)]
struct Subscribers {
    by_type: TypeMap<Arc<[Subscriber]>>,
    all_events: Option<Arc<[Subscriber]>>,
    next_id: u64,
}

/// The in-process event bus. Every session owns one ([`Session::bus`](crate::Session::bus)); it can also be
/// used on its own.
///
/// Delivery is synchronous on the publishing thread: first the subscribers of the event's type, then the
/// catch-all subscribers, each group in subscription order. A handler that returns an error or panics is
/// logged (`tracing::warn`) and reported in [`DispatchResult::errors`]; the remaining handlers still run.
/// Handlers may publish or dispatch further events (no lock is held while they run).
pub struct EventBus {
    subscribers: RwLock<Subscribers>,
    subscription_count: AtomicUsize,
}

impl Default for EventBus {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for EventBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventBus")
            .field("subscriptions", &self.subscription_count())
            .finish()
    }
}

fn append_subscriber(
    list: Option<&Arc<[Subscriber]>>,
    subscriber: Subscriber,
) -> Arc<[Subscriber]> {
    let mut items: Vec<Subscriber> = list.map(|l| l.to_vec()).unwrap_or_default();
    items.push(subscriber);
    items.into()
}

impl EventBus {
    /// A bus without subscribers.
    pub fn new() -> Self {
        Self {
            subscribers: RwLock::new(Subscribers::default()),
            subscription_count: AtomicUsize::new(0),
        }
    }

    /// Calls `handler` with every published `E`.
    pub fn subscribe<E: Event>(
        &self,
        handler: impl Fn(&E) -> Result<(), HandlerError> + Send + Sync + 'static,
    ) -> SubscriptionId {
        let erased = move |event: &dyn ErasedEvent| match event.as_any().downcast_ref::<E>() {
            Some(event) => handler(event),
            None => Err(HandlerError::new(format!(
                "expected event type {}",
                E::type_name()
            ))),
        };
        self.add(Some(TypeId::of::<E>()), Arc::new(erased))
    }

    /// Calls `handler` with every published event of any type.
    pub fn subscribe_all(
        &self,
        handler: impl Fn(&dyn ErasedEvent) -> Result<(), HandlerError> + Send + Sync + 'static,
    ) -> SubscriptionId {
        self.add(None, Arc::new(handler))
    }

    fn add(&self, type_id: Option<TypeId>, handler: Arc<ErasedHandler>) -> SubscriptionId {
        let mut subscribers = self
            .subscribers
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        subscribers.next_id += 1;
        let id = SubscriptionId(subscribers.next_id);
        let subscriber = Subscriber { id, handler };
        match type_id {
            Some(type_id) => {
                let list = append_subscriber(subscribers.by_type.get(&type_id), subscriber);
                subscribers.by_type.insert(type_id, list);
            }
            None => {
                subscribers.all_events = Some(append_subscriber(
                    subscribers.all_events.as_ref(),
                    subscriber,
                ))
            }
        }
        self.subscription_count.fetch_add(1, Ordering::Release);
        id
    }

    /// Removes a subscription; `false` when it was not (or no longer) subscribed.
    pub fn unsubscribe(&self, id: SubscriptionId) -> bool {
        let mut subscribers = self
            .subscribers
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let remove = |list: &Arc<[Subscriber]>| -> Option<Arc<[Subscriber]>> {
            list.iter()
                .any(|s| s.id == id)
                .then(|| list.iter().filter(|s| s.id != id).cloned().collect())
        };
        let mut removed = false;
        if let Some(list) = subscribers.all_events.as_ref().and_then(remove) {
            subscribers.all_events = (!list.is_empty()).then_some(list);
            removed = true;
        } else {
            let found = subscribers
                .by_type
                .iter()
                .find_map(|(type_id, list)| remove(list).map(|l| (*type_id, l)));
            if let Some((type_id, list)) = found {
                if list.is_empty() {
                    subscribers.by_type.remove(&type_id);
                } else {
                    subscribers.by_type.insert(type_id, list);
                }
                removed = true;
            }
        }
        if removed {
            self.subscription_count.fetch_sub(1, Ordering::Release);
        }
        removed
    }

    /// Number of live subscriptions.
    pub fn subscription_count(&self) -> usize {
        self.subscription_count.load(Ordering::Acquire)
    }

    /// True when publishing an `E` would reach at least one subscriber.
    pub fn has_subscribers<E: Event>(&self) -> bool {
        if self.subscription_count() == 0 {
            return false;
        }
        let subscribers = self
            .subscribers
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        subscribers.all_events.is_some() || subscribers.by_type.contains_key(&TypeId::of::<E>())
    }

    /// Delivers `event` to its subscribers and reports what happened.
    pub fn publish<E: Event>(&self, event: &E) -> DispatchResult {
        let mut result = DispatchResult::default();
        self.publish_into(event, TypeId::of::<E>(), &mut result);
        result
    }

    pub(crate) fn publish_into(
        &self,
        event: &dyn ErasedEvent,
        type_id: TypeId,
        result: &mut DispatchResult,
    ) {
        if self.subscription_count() == 0 {
            return;
        }
        let (typed, all) = {
            let subscribers = self
                .subscribers
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            (
                subscribers.by_type.get(&type_id).cloned(),
                subscribers.all_events.clone(),
            )
        };
        for subscriber in typed.iter().chain(all.iter()).flat_map(|list| list.iter()) {
            result.handlers_invoked += 1;
            let outcome = catch_unwind(AssertUnwindSafe(|| (subscriber.handler)(event)));
            let error = match outcome {
                Ok(Ok(())) => continue,
                Ok(Err(error)) => error.message,
                Err(payload) => panic_message(payload.as_ref()),
            };
            tracing::warn!(
                event_type = event.event_type_name(),
                subscription = %subscriber.id,
                error = %error,
                "Event handler failed."
            );
            result.errors.push(HandlerFailure {
                handler: HandlerKind::Subscriber(subscriber.id),
                error,
            });
        }
    }
}

/// `panicked: <message>` for a caught panic payload.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    let message = panic_payload_text(payload).unwrap_or("non-string panic payload");
    format!("panicked: {message}")
}

/// The text of a caught panic's payload (`panic!("...")` with a literal or a formatted
/// message), `None` for any other payload. The one copy in the workspace: every crate that
/// catches panics words its message from this.
pub fn panic_payload_text(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde::{Deserialize, Serialize};

    use super::*;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Ping(u32);
    impl Event for Ping {}

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Pong;
    impl Event for Pong {}

    #[test]
    fn publish_without_subscribers_is_ok() {
        let bus = EventBus::new();
        let result = bus.publish(&Ping(1));
        assert_eq!(result, DispatchResult::default());
        assert!(result.ok());
    }

    #[test]
    fn delivers_in_order_and_isolates_failures() {
        let bus = EventBus::new();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let first = bus.subscribe(move |ping: &Ping| {
            log.lock().unwrap().push(format!("first {}", ping.0));
            Ok(())
        });
        let failing = bus.subscribe(|_: &Ping| Err(HandlerError::from("boom")));
        let panicking = bus.subscribe(|_: &Ping| -> Result<(), HandlerError> { panic!("kaput") });
        let log = Arc::clone(&seen);
        let all = bus.subscribe_all(move |event| {
            log.lock()
                .unwrap()
                .push(format!("all {}", event.event_type_name()));
            Ok(())
        });
        let result = bus.publish(&Ping(7));
        assert_eq!(*seen.lock().unwrap(), ["first 7", "all Ping"]);
        assert_eq!(result.handlers_invoked, 4);
        assert_eq!(
            result.errors,
            [
                HandlerFailure {
                    handler: HandlerKind::Subscriber(failing),
                    error: "boom".into()
                },
                HandlerFailure {
                    handler: HandlerKind::Subscriber(panicking),
                    error: "panicked: kaput".into()
                },
            ]
        );
        assert_eq!(result.errors[0].to_string(), format!("{failing} -> boom"));
        let error = result.raise_if_errors("Ping").unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "dispatch of Ping had 2 failure(s): {failing} -> boom; {panicking} -> panicked: kaput"
            )
        );

        let pong = bus.publish(&Pong);
        assert_eq!(pong.handlers_invoked, 1);
        assert_eq!(*seen.lock().unwrap(), ["first 7", "all Ping", "all Pong"]);

        assert!(bus.unsubscribe(first));
        assert!(!bus.unsubscribe(first));
        assert!(bus.unsubscribe(all));
        assert_eq!(bus.subscription_count(), 2);
        assert!(!bus.has_subscribers::<Pong>());
        assert!(bus.has_subscribers::<Ping>());
        assert_eq!(bus.publish(&Ping(8)).handlers_invoked, 2);
        assert_eq!(seen.lock().unwrap().len(), 3);
    }

    #[test]
    fn handlers_may_publish_reentrantly() {
        let bus = Arc::new(EventBus::new());
        let inner = Arc::clone(&bus);
        let pongs = Arc::new(Mutex::new(0));
        let counter = Arc::clone(&pongs);
        bus.subscribe(move |_: &Pong| {
            *counter.lock().unwrap() += 1;
            Ok(())
        });
        bus.subscribe(move |_: &Ping| {
            inner.publish(&Pong);
            Ok(())
        });
        assert!(bus.publish(&Ping(1)).ok());
        assert_eq!(*pongs.lock().unwrap(), 1);
    }
}
