//! Opaque, cheaply clonable filesystem snapshots.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::FsError;

static NEXT_FILESYSTEM_ID: AtomicU64 = AtomicU64::new(1);
static NEXT_SNAPSHOT_SEQUENCE: AtomicU64 = AtomicU64::new(1);

/// Identity of one filesystem instance; snapshots only restore into the instance that took them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FilesystemId(u64);

impl FilesystemId {
    /// A process-wide unique id (for backends, once per instance).
    #[must_use]
    pub fn fresh() -> Self {
        Self(NEXT_FILESYSTEM_ID.fetch_add(1, Ordering::Relaxed))
    }
}

impl fmt::Display for FilesystemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// The state of a filesystem at one moment, to hand back to
/// [`Filesystem::restore`](crate::Filesystem::restore).
///
/// Opaque to callers and cheap to clone (one reference count). What it holds
/// is up to the backend that took it.
#[derive(Clone)]
pub struct FsSnapshot {
    origin: FilesystemId,
    origin_label: Arc<str>,
    sequence: u64,
    state: Arc<dyn Any + Send + Sync>,
}

impl FsSnapshot {
    /// Wrap backend state (for backend implementations).
    #[must_use]
    pub fn new(
        origin: FilesystemId,
        origin_label: &str,
        state: Arc<dyn Any + Send + Sync>,
    ) -> Self {
        Self {
            origin,
            origin_label: Arc::from(origin_label),
            sequence: NEXT_SNAPSHOT_SEQUENCE.fetch_add(1, Ordering::Relaxed),
            state,
        }
    }

    /// The filesystem instance that took this snapshot.
    #[must_use]
    pub fn origin(&self) -> FilesystemId {
        self.origin
    }

    /// Process-wide sequence number, increasing with every snapshot taken.
    #[must_use]
    pub fn sequence(&self) -> u64 {
        self.sequence
    }

    /// The backend state, checked to come from `target` (for backend implementations).
    ///
    /// # Errors
    /// [`FsError::ForeignSnapshot`] when the snapshot was taken by another instance
    /// or holds another backend's state.
    pub fn state_for<T: Any + Send + Sync>(
        &self,
        target: FilesystemId,
        target_label: &str,
    ) -> Result<&T, FsError> {
        let foreign = || FsError::ForeignSnapshot {
            snapshot_origin: format!("{} ({})", self.origin_label, self.origin),
            target: format!("{target_label} ({target})"),
        };
        if self.origin != target {
            return Err(foreign());
        }
        self.state.downcast_ref::<T>().ok_or_else(foreign)
    }
}

impl fmt::Debug for FsSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FsSnapshot")
            .field(
                "origin",
                &format_args!("{} ({})", self.origin_label, self.origin),
            )
            .field("sequence", &self.sequence)
            .finish_non_exhaustive()
    }
}
