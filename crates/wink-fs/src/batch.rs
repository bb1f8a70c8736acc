//! Concurrent writers whose changes can each be undone alone.
//!
//! A snapshot restores *everything* since it was taken, so when several tool calls share one
//! filesystem at the same time, restoring after one of them fails would also erase what the others
//! wrote. An [`FsBatch`] gives each concurrent writer a [member](FsBatch::member) view of the same
//! filesystem that logs every change it makes (a redo log, in the order the changes happened).
//! [`FsBatch::discard`] undoes one member: it restores the snapshot taken when the batch began and
//! replays the logged changes of every other member. Operations of all members are serialised
//! (each holds the batch lock for its duration), so no member ever observes a half-done discard.
//!
//! ```
//! use std::sync::Arc;
//! use wink_fs::{Filesystem, FsBatch, InMemoryFilesystem, WriteMode};
//!
//! let fs: Arc<dyn Filesystem> = Arc::new(InMemoryFilesystem::new());
//! let batch = FsBatch::begin(Arc::clone(&fs)).unwrap();
//! let (a, b) = (batch.member(0), batch.member(1));
//! a.write("a.txt", "from a", WriteMode::Overwrite).unwrap();
//! b.write("b.txt", "from b", WriteMode::Overwrite).unwrap();
//! a.write("shared.txt", "a was here\n", WriteMode::Append).unwrap();
//! b.write("shared.txt", "b was here\n", WriteMode::Append).unwrap();
//! // `b` failed: its changes go, `a`'s stay.
//! assert!(batch.discard(1).unwrap().is_empty());
//! assert_eq!(fs.read_to_string("a.txt").unwrap(), "from a");
//! assert!(!fs.exists("b.txt"));
//! assert_eq!(fs.read_to_string("shared.txt").unwrap(), "a was here\n");
//! ```

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::{
    EditResult, FileInfo, Filesystem, FsError, FsLimits, FsSnapshot, GrepMatch, ReadResult,
    WriteMode, WriteResult,
};

/// One logged change.
#[derive(Debug, Clone)]
enum Change {
    Write {
        path: String,
        content: Vec<u8>,
        mode: WriteMode,
    },
    Edit {
        path: String,
        old: String,
        new: String,
        replace_all: bool,
    },
    Mkdir {
        path: String,
        parents: bool,
        exist_ok: bool,
    },
    Remove {
        path: String,
        recursive: bool,
    },
    /// A member restored a snapshot of its own: everything before is superseded for everyone.
    Restore(FsSnapshot),
}

impl Change {
    fn apply(&self, fs: &dyn Filesystem) -> Result<(), FsError> {
        match self {
            Self::Write {
                path,
                content,
                mode,
            } => fs.write_bytes(path, content, *mode).map(drop),
            Self::Edit {
                path,
                old,
                new,
                replace_all,
            } => fs.edit(path, old, new, *replace_all).map(drop),
            Self::Mkdir {
                path,
                parents,
                exist_ok,
            } => fs.mkdir(path, *parents, *exist_ok),
            Self::Remove { path, recursive } => fs.remove(path, *recursive),
            Self::Restore(snapshot) => fs.restore(snapshot),
        }
    }

    fn describe(&self) -> String {
        match self {
            Self::Write { path, .. } => format!("write {path}"),
            Self::Edit { path, .. } => format!("edit {path}"),
            Self::Mkdir { path, .. } => format!("mkdir {path}"),
            Self::Remove { path, .. } => format!("remove {path}"),
            Self::Restore(_) => "restore a snapshot".to_owned(),
        }
    }
}

struct BatchState {
    start: FsSnapshot,
    log: Vec<(usize, Change)>,
}

/// A filesystem shared by concurrent writers, each of which can be undone alone.
pub struct FsBatch {
    base: Arc<dyn Filesystem>,
    state: Mutex<BatchState>,
}

impl fmt::Debug for FsBatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FsBatch")
            .field("base", &self.base.root_label())
            .field("changes", &self.lock().log.len())
            .finish()
    }
}

impl FsBatch {
    /// Starts a batch over `base`, taking the snapshot that [`FsBatch::discard`] goes back to.
    ///
    /// # Errors
    /// The base cannot take a snapshot.
    pub fn begin(base: Arc<dyn Filesystem>) -> Result<Arc<Self>, FsError> {
        let start = base.snapshot()?;
        Ok(Arc::new(Self {
            base,
            state: Mutex::new(BatchState {
                start,
                log: Vec::new(),
            }),
        }))
    }

    /// The view writer `index` works through: reads and writes reach the base at once; writes are
    /// logged under `index`.
    pub fn member(self: &Arc<Self>, index: usize) -> Arc<dyn Filesystem> {
        Arc::new(BatchMember {
            batch: Arc::clone(self),
            index,
        })
    }

    /// Undoes everything member `index` changed: restores the starting snapshot, then replays the
    /// other members' changes in their original order. Returns the replayed changes that no longer
    /// apply (a member that edited a file only the discarded member had created, say), which are
    /// skipped.
    ///
    /// # Errors
    /// The base cannot restore the starting snapshot.
    pub fn discard(&self, index: usize) -> Result<Vec<String>, FsError> {
        let mut state = self.lock();
        state.log.retain(|(member, _)| *member != index);
        self.base.restore(&state.start)?;
        let mut skipped = Vec::new();
        for (member, change) in &state.log {
            if let Err(error) = change.apply(self.base.as_ref()) {
                skipped.push(format!("{} by call {member} ({error})", change.describe()));
            }
        }
        Ok(skipped)
    }

    fn lock(&self) -> MutexGuard<'_, BatchState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One writer's view of an [`FsBatch`].
struct BatchMember {
    batch: Arc<FsBatch>,
    index: usize,
}

impl fmt::Debug for BatchMember {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchMember")
            .field("base", &self.batch.base.root_label())
            .field("index", &self.index)
            .finish()
    }
}

impl BatchMember {
    fn base(&self) -> &dyn Filesystem {
        self.batch.base.as_ref()
    }

    /// Runs a change against the base under the batch lock, logging it when it succeeds.
    fn change<T>(
        &self,
        change: Change,
        run: impl FnOnce(&dyn Filesystem) -> Result<T, FsError>,
    ) -> Result<T, FsError> {
        let mut state = self.batch.lock();
        let value = run(self.base())?;
        state.log.push((self.index, change));
        Ok(value)
    }

    /// Runs a read against the base under the batch lock.
    fn read_op<T>(&self, run: impl FnOnce(&dyn Filesystem) -> T) -> T {
        let _state = self.batch.lock();
        run(self.base())
    }
}

impl Filesystem for BatchMember {
    fn limits(&self) -> FsLimits {
        self.base().limits()
    }

    fn read(&self, path: &str, offset: usize, limit: Option<usize>) -> Result<ReadResult, FsError> {
        self.read_op(|fs| fs.read(path, offset, limit))
    }

    fn read_bytes(&self, path: &str) -> Result<Vec<u8>, FsError> {
        self.read_op(|fs| fs.read_bytes(path))
    }

    fn write_bytes(
        &self,
        path: &str,
        content: &[u8],
        mode: WriteMode,
    ) -> Result<WriteResult, FsError> {
        let change = Change::Write {
            path: path.to_owned(),
            content: content.to_vec(),
            mode,
        };
        self.change(change, |fs| fs.write_bytes(path, content, mode))
    }

    fn edit(
        &self,
        path: &str,
        old: &str,
        new: &str,
        replace_all: bool,
    ) -> Result<EditResult, FsError> {
        let change = Change::Edit {
            path: path.to_owned(),
            old: old.to_owned(),
            new: new.to_owned(),
            replace_all,
        };
        self.change(change, |fs| fs.edit(path, old, new, replace_all))
    }

    fn mkdir(&self, path: &str, parents: bool, exist_ok: bool) -> Result<(), FsError> {
        let change = Change::Mkdir {
            path: path.to_owned(),
            parents,
            exist_ok,
        };
        self.change(change, |fs| fs.mkdir(path, parents, exist_ok))
    }

    fn list(&self, path: &str) -> Result<Vec<FileInfo>, FsError> {
        self.read_op(|fs| fs.list(path))
    }

    fn glob(&self, pattern: &str, path: &str) -> Result<Vec<String>, FsError> {
        self.read_op(|fs| fs.glob(pattern, path))
    }

    fn grep(
        &self,
        pattern: &str,
        path: &str,
        glob: Option<&str>,
    ) -> Result<Vec<GrepMatch>, FsError> {
        self.read_op(|fs| fs.grep(pattern, path, glob))
    }

    fn remove(&self, path: &str, recursive: bool) -> Result<(), FsError> {
        let change = Change::Remove {
            path: path.to_owned(),
            recursive,
        };
        self.change(change, |fs| fs.remove(path, recursive))
    }

    fn stat(&self, path: &str) -> Result<FileInfo, FsError> {
        self.read_op(|fs| fs.stat(path))
    }

    fn snapshot(&self) -> Result<FsSnapshot, FsError> {
        self.read_op(|fs| fs.snapshot())
    }

    fn restore(&self, snapshot: &FsSnapshot) -> Result<(), FsError> {
        self.change(Change::Restore(snapshot.clone()), |fs| fs.restore(snapshot))
    }

    fn root_label(&self) -> String {
        self.base().root_label()
    }
}
