//! A runtime-agnostic deadline timer and a race between a future and a deadline, so that a
//! model call that never answers still ends the run when the wall-clock deadline passes.
//!
//! The timer parks a helper thread until the deadline and then wakes the task that polled it;
//! dropping the timer (the raced future won) unparks the thread so it exits at once. No async
//! runtime is required: it works under `wink_core::block_on`, tokio or any other executor.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread::Thread;

use wink_core::Deadline;

#[derive(Default)]
struct Shared {
    cancelled: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

/// Completes when `deadline` has passed.
pub(crate) struct DeadlineTimer {
    deadline: Deadline,
    shared: Arc<Shared>,
    thread: Option<Thread>,
    spawn_failed: bool,
}

impl DeadlineTimer {
    pub(crate) fn new(deadline: Deadline) -> Self {
        Self {
            deadline,
            shared: Arc::default(),
            thread: None,
            spawn_failed: false,
        }
    }

    fn start_thread(&mut self) {
        let shared = Arc::clone(&self.shared);
        let deadline = self.deadline;
        let spawned = std::thread::Builder::new()
            .name("wink-deadline".into())
            .spawn(move || {
                loop {
                    if shared.cancelled.load(Ordering::Acquire) {
                        return;
                    }
                    let remaining = deadline.remaining();
                    if remaining.is_zero() {
                        let waker = shared
                            .waker
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .take();
                        if let Some(waker) = waker {
                            waker.wake();
                        }
                        return;
                    }
                    std::thread::park_timeout(remaining);
                }
            });
        match spawned {
            Ok(handle) => self.thread = Some(handle.thread().clone()),
            Err(error) => {
                // Without a timer thread the deadline is still checked before every call.
                tracing::warn!(%error, "could not start the deadline timer thread");
                self.spawn_failed = true;
            }
        }
    }
}

impl Future for DeadlineTimer {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        if this.deadline.is_expired() {
            return Poll::Ready(());
        }
        *this
            .shared
            .waker
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(cx.waker().clone());
        if this.thread.is_none() && !this.spawn_failed {
            this.start_thread();
        }
        Poll::Pending
    }
}

impl Drop for DeadlineTimer {
    fn drop(&mut self) {
        self.shared.cancelled.store(true, Ordering::Release);
        if let Some(thread) = &self.thread {
            thread.unpark();
        }
    }
}

/// Run `future` until it completes or `deadline` passes (`None`: no deadline). The future is
/// dropped, and so cancelled, when the deadline wins.
pub(crate) async fn until_deadline<F: Future>(
    future: F,
    deadline: Option<Deadline>,
) -> Result<F::Output, DeadlineExpired> {
    match deadline {
        None => Ok(future.await),
        Some(deadline) => {
            Race {
                future: Box::pin(future),
                timer: DeadlineTimer::new(deadline),
            }
            .await
        }
    }
}

/// The deadline passed before the raced future completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeadlineExpired;

struct Race<F: Future> {
    future: Pin<Box<F>>,
    timer: DeadlineTimer,
}

impl<F: Future> Future for Race<F> {
    type Output = Result<F::Output, DeadlineExpired>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if let Poll::Ready(value) = this.future.as_mut().poll(cx) {
            return Poll::Ready(Ok(value));
        }
        match Pin::new(&mut this.timer).poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(DeadlineExpired)),
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use wink_core::block_on;

    use super::*;

    #[test]
    fn a_pending_future_loses_to_the_deadline() {
        let result = block_on(until_deadline(
            std::future::pending::<u8>(),
            Some(Deadline::after(Duration::from_millis(20))),
        ));
        assert_eq!(result, Err(DeadlineExpired));
    }

    #[test]
    fn a_ready_future_wins_and_no_deadline_means_no_race() {
        let result = block_on(until_deadline(
            async { 7 },
            Some(Deadline::after(Duration::from_secs(3600))),
        ));
        assert_eq!(result, Ok(7));
        assert_eq!(block_on(until_deadline(async { 8 }, None)), Ok(8));
    }

    #[test]
    fn an_expired_deadline_still_lets_a_ready_future_win() {
        // The future is polled first: an answer that is already there is not thrown away.
        let result = block_on(until_deadline(
            async { 9 },
            Some(Deadline::after(Duration::ZERO)),
        ));
        assert_eq!(result, Ok(9));
    }
}
