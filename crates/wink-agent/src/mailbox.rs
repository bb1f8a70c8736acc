//! Request/response mailboxes so a main loop can run as a worker: at-least-once delivery, a
//! visibility timeout (a received message is hidden until acked or the timeout passes), ack,
//! nack with delay, and a dead-letter list after too many deliveries.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Identifies one delivery of a message (ack/nack it with this).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Receipt {
    id: u64,
    delivery: u32,
}

impl Receipt {
    /// The message's id (the same for every delivery of one message).
    pub fn message_id(&self) -> u64 {
        self.id
    }
}

/// A received message.
#[derive(Debug, Clone)]
pub struct Delivery<T, R = Receipt> {
    /// The message.
    pub body: T,
    /// For ack/nack.
    pub receipt: R,
    /// How many times it has been delivered (1 the first time).
    pub delivery_count: u32,
}

/// Mailbox errors.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailboxError {
    /// The receipt does not match an in-flight delivery (already acked, or it expired and the
    /// message was delivered again).
    #[error("receipt {0} is not in flight (acked already, or its visibility timeout expired)")]
    StaleReceipt(u64),
}

/// A queue with SQS-like semantics.
pub trait Mailbox<T>: Send + Sync {
    /// Enqueue a message.
    fn send(&self, body: T);
    /// Receive up to `max` visible messages, hiding them for `visibility_timeout`.
    fn receive(&self, max: usize, visibility_timeout: Duration) -> Vec<Delivery<T>>;
    /// Remove a delivered message for good.
    fn ack(&self, receipt: &Receipt) -> Result<(), MailboxError>;
    /// Make a delivered message visible again after `delay`.
    fn nack(&self, receipt: &Receipt, delay: Duration) -> Result<(), MailboxError>;
    /// Messages waiting (visible or in flight).
    fn len(&self) -> usize;
    /// Whether empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A boxed future of an [`AsyncMailbox`] operation: `T`, or why it failed.
pub type MailboxFuture<'a, T, E> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, E>> + Send + 'a>>;

/// The messages one [`AsyncMailbox::receive`] returns.
pub type Deliveries<T, R> = Vec<Delivery<T, R>>;

/// The same contract as [`Mailbox`] for a queue behind a network (Redis, ...): every operation
/// is a future and can fail, `send` returns the new message's id, and receipts are the backend's
/// own.
pub trait AsyncMailbox<T>: Send + Sync {
    /// Identifies one delivery.
    type Receipt: Clone + Send + Sync + fmt::Debug + 'static;
    /// Why an operation failed.
    type Error: std::error::Error + Send + Sync + 'static;
    /// Enqueue a message; returns its id.
    fn send(&self, body: T) -> MailboxFuture<'_, String, Self::Error>;
    /// Receive up to `max` visible messages, hiding them for `visibility_timeout`.
    fn receive(
        &self,
        max: usize,
        visibility_timeout: Duration,
    ) -> MailboxFuture<'_, Deliveries<T, Self::Receipt>, Self::Error>;
    /// Remove a delivered message for good.
    fn ack<'a>(&'a self, receipt: &'a Self::Receipt) -> MailboxFuture<'a, (), Self::Error>;
    /// Make a delivered message visible again after `delay`.
    fn nack<'a>(
        &'a self,
        receipt: &'a Self::Receipt,
        delay: Duration,
    ) -> MailboxFuture<'a, (), Self::Error>;
}

struct Entry<T> {
    id: u64,
    body: T,
    deliveries: u32,
    visible_at: Instant,
    in_flight: bool,
}

struct State<T> {
    next_id: u64,
    queue: VecDeque<Entry<T>>,
    dead: Vec<T>,
}

/// An in-memory mailbox.
pub struct InMemoryMailbox<T> {
    state: Mutex<State<T>>,
    max_deliveries: u32,
}

impl<T> fmt::Debug for InMemoryMailbox<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryMailbox")
            .field("max_deliveries", &self.max_deliveries)
            .finish_non_exhaustive()
    }
}

impl<T: Clone + Send> InMemoryMailbox<T> {
    /// A mailbox that dead-letters a message once it has been delivered `max_deliveries` times
    /// without an ack.
    pub fn new(max_deliveries: u32) -> Self {
        Self {
            state: Mutex::new(State {
                next_id: 1,
                queue: VecDeque::new(),
                dead: Vec::new(),
            }),
            max_deliveries: max_deliveries.max(1),
        }
    }

    /// Messages moved to the dead-letter list.
    pub fn dead_letters(&self) -> Vec<T> {
        self.lock().dead.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: Clone + Send> Mailbox<T> for InMemoryMailbox<T> {
    fn send(&self, body: T) {
        let mut s = self.lock();
        let id = s.next_id;
        s.next_id += 1;
        s.queue.push_back(Entry {
            id,
            body,
            deliveries: 0,
            visible_at: Instant::now(),
            in_flight: false,
        });
    }

    fn receive(&self, max: usize, visibility_timeout: Duration) -> Vec<Delivery<T>> {
        let now = Instant::now();
        let mut s = self.lock();
        let max_deliveries = self.max_deliveries;
        // Expired in-flight messages become visible again; exhausted ones are dead-lettered.
        let mut dead = Vec::new();
        s.queue.retain(|e| {
            if e.visible_at <= now && e.deliveries >= max_deliveries {
                dead.push(e.body.clone());
                false
            } else {
                true
            }
        });
        s.dead.extend(dead);
        let mut out = Vec::new();
        for e in s.queue.iter_mut() {
            if out.len() >= max {
                break;
            }
            if e.visible_at <= now {
                e.deliveries += 1;
                e.in_flight = true;
                e.visible_at = now + visibility_timeout;
                out.push(Delivery {
                    body: e.body.clone(),
                    receipt: Receipt {
                        id: e.id,
                        delivery: e.deliveries,
                    },
                    delivery_count: e.deliveries,
                });
            }
        }
        out
    }

    fn ack(&self, receipt: &Receipt) -> Result<(), MailboxError> {
        let mut s = self.lock();
        let pos = s
            .queue
            .iter()
            .position(|e| e.id == receipt.id && e.deliveries == receipt.delivery && e.in_flight);
        match pos {
            Some(p) => {
                s.queue.remove(p);
                Ok(())
            }
            None => Err(MailboxError::StaleReceipt(receipt.id)),
        }
    }

    fn nack(&self, receipt: &Receipt, delay: Duration) -> Result<(), MailboxError> {
        let mut s = self.lock();
        let entry = s
            .queue
            .iter_mut()
            .find(|e| e.id == receipt.id && e.deliveries == receipt.delivery && e.in_flight);
        match entry {
            Some(e) => {
                e.in_flight = false;
                e.visible_at = Instant::now() + delay;
                Ok(())
            }
            None => Err(MailboxError::StaleReceipt(receipt.id)),
        }
    }

    fn len(&self) -> usize {
        self.lock().queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_once_with_visibility_timeout_ack_nack_and_dead_letters() {
        let mb = InMemoryMailbox::new(2);
        mb.send("a");
        mb.send("b");
        let first = mb.receive(1, Duration::from_secs(60));
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].body, "a");
        // "a" is hidden; next receive gets "b".
        let second = mb.receive(10, Duration::from_secs(60));
        assert_eq!(second.iter().map(|d| d.body).collect::<Vec<_>>(), ["b"]);
        mb.ack(&second[0].receipt).unwrap();
        assert_eq!(
            mb.ack(&second[0].receipt),
            Err(MailboxError::StaleReceipt(2))
        );
        // Nack "a" with no delay: delivered again, count 2.
        mb.nack(&first[0].receipt, Duration::ZERO).unwrap();
        let again = mb.receive(10, Duration::ZERO);
        assert_eq!(again[0].delivery_count, 2);
        // The stale first receipt can no longer ack.
        assert!(mb.ack(&first[0].receipt).is_err());
        // Timeout expired (zero) and max deliveries reached: dead-lettered on next receive.
        assert!(mb.receive(10, Duration::ZERO).is_empty());
        assert_eq!(mb.dead_letters(), ["a"]);
        assert!(mb.is_empty());
    }
}
