//! Writing a session log: the [`SessionLog`] journal with crash-safe appends.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use wink_session::journal::encode_record_line;
use wink_session::{ErasedEvent, Journal, JournalError, LogHeader, PromptIdentity, Session};

use crate::error::StoreError;
use crate::read::{ReplayReport, repair_log, replay_records};

/// When a [`SessionLog`] forces appended lines to stable storage.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FsyncPolicy {
    /// `fsync` (`sync_data`) after every line, before the dispatch returns: an acknowledged event survives
    /// process crashes, kernel crashes and power loss. Costs one disk flush per event.
    #[default]
    EveryEvent,
    /// Never `fsync` appended lines: each line is handed to the operating system with a single `write` before
    /// the dispatch returns, so an acknowledged event survives a crash of the process but may be lost if the
    /// machine crashes or loses power before the OS writes it back. The header is always synced.
    Never,
}

struct Writer {
    file: File,
    len: u64,
    next_seq: u64,
    buffer: Vec<u8>,
    broken: Option<String>,
}

/// An append-only JSON Lines session log, attached to a [`Session`] as its [`Journal`].
///
/// Each change is encoded into one complete line in memory and written with a single `write_all` to a file
/// opened in append mode, then synced according to the [`FsyncPolicy`], before the session applies the
/// change. If the write or sync fails, the file is truncated back to the previous line boundary and the
/// session does not apply the change (the failure is reported in its `DispatchResult`); if even that
/// truncation fails the log refuses all further appends rather than risk a corrupt middle line.
pub struct SessionLog {
    path: PathBuf,
    policy: FsyncPolicy,
    writer: Mutex<Writer>,
}

impl fmt::Debug for SessionLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionLog")
            .field("path", &self.path)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

fn io_error(path: &Path, action: &'static str) -> impl FnOnce(io::Error) -> StoreError {
    let path = path.to_path_buf();
    move |source| StoreError::Io {
        path,
        action,
        source,
    }
}

#[cfg(unix)]
fn sync_parent_directory(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => File::open(parent)?.sync_all(),
        _ => File::open(".")?.sync_all(),
    }
}

#[cfg(not(unix))]
fn sync_parent_directory(_: &Path) -> io::Result<()> {
    Ok(())
}

/// Takes the log's exclusive lock (an OS file lock, `flock` on Unix) for as long as `file` stays
/// open, so two processes never append to one log; fails at once when another holds it.
fn lock(path: &Path, file: &File) -> Result<(), StoreError> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::Locked {
            path: path.to_path_buf(),
        }),
        Err(std::fs::TryLockError::Error(error)) => Err(io_error(path, "lock")(error)),
    }
}

/// Opens an existing log for append and takes its lock (see [`SessionLog::resume`]).
pub(crate) fn open_locked(path: &Path) -> Result<File, StoreError> {
    let file = OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(io_error(path, "open for append"))?;
    lock(path, &file)?;
    Ok(file)
}

impl SessionLog {
    /// Creates a new log at `path` (which must not exist) for `session` and attaches it.
    ///
    /// Writes and syncs the header line (and the directory entry). When the session already has state, the
    /// first record is a `wink.restored` record holding it.
    pub fn create(
        path: impl AsRef<Path>,
        session: &Session,
        policy: FsyncPolicy,
    ) -> Result<Arc<Self>, StoreError> {
        Self::create_for_prompt(path, session, policy, None)
    }

    /// [`create`](Self::create), recording in the header which prompt the log belongs to.
    pub fn create_for_prompt(
        path: impl AsRef<Path>,
        session: &Session,
        policy: FsyncPolicy,
        prompt: Option<PromptIdentity>,
    ) -> Result<Arc<Self>, StoreError> {
        let path = path.as_ref();
        let mut file = match OpenOptions::new().append(true).create_new(true).open(path) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                return Err(StoreError::AlreadyExists {
                    path: path.to_path_buf(),
                });
            }
            Err(error) => return Err(io_error(path, "create")(error)),
        };
        lock(path, &file)?;
        let header = LogHeader::new(session.id(), session.created_at())
            .with_prompt(prompt)
            .encode_line()
            .map_err(|source| StoreError::Encode {
                path: path.to_path_buf(),
                source,
            })?;
        file.write_all(&header)
            .map_err(io_error(path, "write header"))?;
        file.sync_all().map_err(io_error(path, "sync header"))?;
        sync_parent_directory(path).map_err(io_error(path, "sync directory"))?;
        let log = Arc::new(Self::from_file(path, file, header.len() as u64, 1, policy));
        session
            .attach_journal(Arc::clone(&log) as Arc<dyn Journal>)
            .map_err(|source| StoreError::Journal {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(log)
    }

    /// Reopens an existing log for `session`: truncates a torn last line, replays the records into the
    /// session, and attaches the log so new changes are appended after the existing records.
    ///
    /// The session must have the logged id (build it with [`session_builder`](crate::session_builder)) and
    /// every event type of the log registered.
    pub fn resume(
        path: impl AsRef<Path>,
        session: &Session,
        policy: FsyncPolicy,
    ) -> Result<(Arc<Self>, ReplayReport), StoreError> {
        let path = path.as_ref();
        Self::resume_locked(path, open_locked(path)?, session, policy)
    }

    /// [`resume`](Self::resume) with the log already opened for append and locked ([`open_locked`]).
    pub(crate) fn resume_locked(
        path: &Path,
        file: File,
        session: &Session,
        policy: FsyncPolicy,
    ) -> Result<(Arc<Self>, ReplayReport), StoreError> {
        let contents = repair_log(path)?;
        if contents.header.session_id != session.id() {
            return Err(StoreError::SessionMismatch {
                path: path.to_path_buf(),
                logged: contents.header.session_id,
                given: session.id(),
            });
        }
        let report = replay_records(path, &contents, session)?;
        let log = Arc::new(Self::from_file(
            path,
            file,
            contents.valid_len,
            contents.last_seq() + 1,
            policy,
        ));
        session.resume_journal(Arc::clone(&log) as Arc<dyn Journal>);
        Ok((log, report))
    }

    fn from_file(path: &Path, file: File, len: u64, next_seq: u64, policy: FsyncPolicy) -> Self {
        Self {
            path: path.to_path_buf(),
            policy,
            writer: Mutex::new(Writer {
                file,
                len,
                next_seq,
                buffer: Vec::with_capacity(256),
                broken: None,
            }),
        }
    }

    /// The log file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The sync policy.
    pub fn policy(&self) -> FsyncPolicy {
        self.policy
    }

    /// The seq the next record will get.
    pub fn next_seq(&self) -> u64 {
        self.writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .next_seq
    }
}

impl Journal for SessionLog {
    fn append(&self, type_name: &str, payload: &dyn ErasedEvent) -> Result<(), JournalError> {
        let mut guard = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let writer = &mut *guard;
        if let Some(reason) = &writer.broken {
            return Err(JournalError::new(format!(
                "session log {} refuses appends after an unrecoverable write failure: {reason}",
                self.path.display()
            )));
        }
        writer.buffer.clear();
        encode_record_line(writer.next_seq, type_name, payload, &mut writer.buffer)
            .map_err(|error| JournalError::new(format!("cannot encode {type_name}: {error}")))?;
        let written = writer
            .file
            .write_all(&writer.buffer)
            .and_then(|()| match self.policy {
                FsyncPolicy::EveryEvent => writer.file.sync_data(),
                FsyncPolicy::Never => Ok(()),
            });
        match written {
            Ok(()) => {
                writer.len += writer.buffer.len() as u64;
                writer.next_seq += 1;
                Ok(())
            }
            Err(error) => {
                let rollback = writer
                    .file
                    .set_len(writer.len)
                    .and_then(|()| writer.file.sync_data());
                if let Err(rollback_error) = rollback {
                    writer.broken = Some(format!(
                        "{error}; truncating the partial line failed: {rollback_error}"
                    ));
                }
                Err(JournalError::new(format!(
                    "cannot append to session log {}: {error}",
                    self.path.display()
                )))
            }
        }
    }
}
