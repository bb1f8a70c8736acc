//! Snapshots of a host workspace.
//!
//! A snapshot is a manifest of every directory, file and symbolic link under
//! the root, with the full content of every file held in memory (nothing is
//! written to disk, so there is no hidden store for a tool to find). Content
//! is shared between snapshots through a blob cache keyed by path and stat
//! signature (device, inode, size, mode, mtime and ctime to the nanosecond):
//! a file whose signature has not changed since it was last read is not read
//! again. As in git's index, a signature is trusted only when its ctime is at
//! least two seconds older than the moment the content was read, so a write
//! landing in the same clock tick as a read can never be mistaken for "unchanged".
//!
//! Cost: a snapshot walks the tree (`lstat` per entry) and reads the files
//! that changed since the previous snapshot; memory grows with the distinct
//! file contents held by live snapshots, capped by [`SnapshotLimits`].
//!
//! Files beyond those caps (over 16 MiB each, or once 512 MiB are held) do
//! not disable the workspace: they are recorded without their content. A
//! restore leaves such a file as it finds it — a failed call's changes to it
//! are not undone, and if the call removed it, it stays removed — while every
//! other entry is restored as usual (a large file the call *created* is
//! removed like any new entry).
//!
//! Restore walks the current tree, removes entries the snapshot does not
//! have (deepest first, links removed and never followed), recreates missing
//! directories, files and links with their recorded permission bits, and
//! rewrites files whose content differs. Files whose signature still matches
//! a trusted snapshot entry are left untouched. FIFOs, sockets and devices
//! are neither captured nor removed. Modification times are not restored.
//! A restore that fails part way (I/O error, concurrent changes) leaves the
//! workspace partly restored and reports the error.

use std::collections::{BTreeMap, HashMap};
use std::fs::{self, File, Metadata, OpenOptions, Permissions};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use wink_fs::FsError;
use wink_fs::path::file_name;

use crate::HostFilesystem;
use crate::host::walk;
use crate::resolve::{Leaf, Walk, child_path, io_error, open_dir_nofollow, verify_same};

/// How long after its ctime a file's content must have been read for its
/// stat signature to vouch for that content.
const RACY_WINDOW: Duration = Duration::from_secs(2);

/// Caps on what one snapshot may hold in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotLimits {
    /// Largest single file a snapshot may hold.
    pub max_file_bytes: u64,
    /// Largest total of file contents one snapshot may hold.
    pub max_total_bytes: u64,
}

impl Default for SnapshotLimits {
    /// 16 MiB per file, 512 MiB per snapshot.
    fn default() -> Self {
        Self {
            max_file_bytes: 16 * 1024 * 1024,
            max_total_bytes: 512 * 1024 * 1024,
        }
    }
}

/// What `lstat` says about a file, enough to notice any change to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StatSignature {
    dev: u64,
    ino: u64,
    size: u64,
    mode: u32,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl StatSignature {
    fn of(metadata: &Metadata) -> Self {
        Self {
            dev: metadata.dev(),
            ino: metadata.ino(),
            size: metadata.len(),
            mode: metadata.mode(),
            mtime: (metadata.mtime(), metadata.mtime_nsec()),
            ctime: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }

    /// Can content read at `read_at` be trusted to still match this signature later?
    fn vouches_for_read_at(&self, read_at: SystemTime) -> bool {
        let (seconds, nanos) = self.ctime;
        let Ok(seconds) = u64::try_from(seconds) else {
            return false;
        };
        let nanos = u32::try_from(nanos).unwrap_or(0);
        let changed = UNIX_EPOCH + Duration::new(seconds, nanos);
        changed + RACY_WINDOW < read_at
    }
}

/// Content of one file kept between snapshots.
#[derive(Debug, Clone)]
pub(crate) struct CachedBlob {
    signature: StatSignature,
    content: Arc<[u8]>,
}

#[derive(Debug)]
enum Entry {
    Directory {
        mode: u32,
    },
    File {
        content: Arc<[u8]>,
        mode: u32,
        signature: StatSignature,
        /// The signature vouches for the content (see the module docs).
        trusted: bool,
    },
    Symlink {
        target: PathBuf,
    },
    /// A file too large to hold (see the module docs): kept as found on restore.
    Untracked,
}

/// The state a host snapshot holds.
#[derive(Debug)]
pub(crate) struct HostSnapshot {
    entries: BTreeMap<String, Entry>,
}

fn root_handle(fs: &HostFilesystem) -> Result<File, FsError> {
    fs.resolver()
        .root
        .try_clone()
        .map_err(|e| io_error("opening", "", e))
}

/// Read a file through its verified parent handle; returns the content and whether it is trusted.
fn read_file(dir: &File, path: &str, seen: &Metadata) -> Result<(Arc<[u8]>, bool), FsError> {
    let mut handle = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(child_path(dir, file_name(path)))
        .map_err(|e| io_error("opening", path, e))?;
    verify_same(&handle, seen, path)?;
    let mut content = Vec::new();
    handle
        .read_to_end(&mut content)
        .map_err(|e| io_error("reading", path, e))?;
    let read_at = SystemTime::now();
    let after = handle
        .metadata()
        .map_err(|e| io_error("inspecting", path, e))?;
    let signature = StatSignature::of(seen);
    let trusted = StatSignature::of(&after) == signature && signature.vouches_for_read_at(read_at);
    Ok((Arc::from(content), trusted))
}

pub(crate) fn capture(
    fs: &HostFilesystem,
    limits: SnapshotLimits,
) -> Result<HostSnapshot, FsError> {
    let root = root_handle(fs)?;
    let mut cache = fs.blob_cache();
    let mut next_cache = HashMap::with_capacity(cache.len());
    let mut entries = BTreeMap::new();
    let mut total = 0u64;
    walk(&root, "", &mut |dir, path, metadata| {
        let file_type = metadata.file_type();
        if file_type.is_dir() {
            entries.insert(
                path.to_owned(),
                Entry::Directory {
                    mode: metadata.mode(),
                },
            );
        } else if file_type.is_symlink() {
            let target = fs::read_link(child_path(dir, file_name(path)))
                .map_err(|e| io_error("reading link", path, e))?;
            entries.insert(path.to_owned(), Entry::Symlink { target });
        } else if file_type.is_file() {
            if metadata.len() > limits.max_file_bytes
                || total.saturating_add(metadata.len()) > limits.max_total_bytes
            {
                entries.insert(path.to_owned(), Entry::Untracked);
                return Ok(());
            }
            let signature = StatSignature::of(metadata);
            let (content, trusted) = match cache.get(path) {
                Some(blob) if blob.signature == signature => (Arc::clone(&blob.content), true),
                _ => read_file(dir, path, metadata)?,
            };
            total += content.len() as u64;
            if trusted {
                next_cache.insert(
                    path.to_owned(),
                    CachedBlob {
                        signature,
                        content: Arc::clone(&content),
                    },
                );
            }
            entries.insert(
                path.to_owned(),
                Entry::File {
                    content,
                    mode: metadata.mode(),
                    signature,
                    trusted,
                },
            );
        }
        Ok(())
    })?;
    *cache = next_cache;
    Ok(HostSnapshot { entries })
}

#[derive(Debug)]
enum Current {
    Directory,
    File(StatSignature),
    Symlink(PathBuf),
    Special,
}

fn same_kind(current: &Current, wanted: &Entry) -> bool {
    match (current, wanted) {
        (Current::Directory, Entry::Directory { .. })
        | (Current::File(_), Entry::File { .. } | Entry::Untracked) => true,
        (Current::Symlink(now), Entry::Symlink { target }) => now == target,
        _ => false,
    }
}

pub(crate) fn restore(fs: &HostFilesystem, snapshot: &HostSnapshot) -> Result<(), FsError> {
    let root = root_handle(fs)?;
    let mut current = BTreeMap::new();
    walk(&root, "", &mut |dir, path, metadata| {
        let file_type = metadata.file_type();
        let state = if file_type.is_dir() {
            Current::Directory
        } else if file_type.is_file() {
            Current::File(StatSignature::of(metadata))
        } else if file_type.is_symlink() {
            let target = fs::read_link(child_path(dir, file_name(path)))
                .map_err(|e| io_error("reading link", path, e))?;
            Current::Symlink(target)
        } else {
            Current::Special
        };
        current.insert(path.to_owned(), state);
        Ok(())
    })?;

    // Children sort after their parent, so reverse order removes the deepest entries first.
    for (path, state) in current.iter().rev() {
        let keep = matches!(state, Current::Special)
            || snapshot
                .entries
                .get(path)
                .is_some_and(|wanted| same_kind(state, wanted));
        if !keep {
            remove_entry(fs, path)?;
        }
    }

    for (path, wanted) in &snapshot.entries {
        let existing = current.get(path).filter(|state| same_kind(state, wanted));
        match (wanted, existing) {
            (Entry::Directory { .. }, Some(_))
            | (Entry::Symlink { .. }, Some(_))
            | (Entry::Untracked, _) => {}
            (Entry::Directory { mode }, None) => create_directory(fs, path, *mode)?,
            (Entry::Symlink { target }, None) => {
                let resolved = fs.resolver().resolve(path, Walk::NO_FOLLOW)?;
                std::os::unix::fs::symlink(target, resolved.leaf_path())
                    .map_err(|e| io_error("creating link", path, e))?;
            }
            (
                Entry::File {
                    signature, trusted, ..
                },
                Some(Current::File(now)),
            ) if *trusted && now == signature => {}
            (Entry::File { content, mode, .. }, existing) => {
                write_file(fs, path, content, *mode, existing.is_some())?;
            }
        }
    }
    Ok(())
}

fn remove_entry(fs: &HostFilesystem, path: &str) -> Result<(), FsError> {
    let resolved = fs.resolver().resolve(path, Walk::NO_FOLLOW)?;
    let target = resolved.leaf_path();
    match resolved.leaf {
        Leaf::Missing => Ok(()),
        Leaf::Directory(_) => {
            fs::remove_dir_all(&target).map_err(|e| io_error("removing", path, e))
        }
        Leaf::File(_) | Leaf::Symlink | Leaf::Special => {
            fs::remove_file(&target).map_err(|e| io_error("removing", path, e))
        }
    }
}

fn create_directory(fs: &HostFilesystem, path: &str, mode: u32) -> Result<(), FsError> {
    let resolved = fs.resolver().resolve(path, Walk::NO_FOLLOW)?;
    let target = resolved.leaf_path();
    fs::create_dir(&target).map_err(|e| io_error("creating directory", path, e))?;
    let created = fs::symlink_metadata(&target).map_err(|e| io_error("inspecting", path, e))?;
    let handle = open_dir_nofollow(&target).map_err(|e| io_error("opening", path, e))?;
    verify_same(&handle, &created, path)?;
    handle
        .set_permissions(Permissions::from_mode(mode & 0o7777))
        .map_err(|e| io_error("setting permissions on", path, e))
}

fn write_file(
    fs: &HostFilesystem,
    path: &str,
    content: &[u8],
    mode: u32,
    exists: bool,
) -> Result<(), FsError> {
    let resolved = fs.resolver().resolve(path, Walk::NO_FOLLOW)?;
    let mut handle = match (&resolved.leaf, exists) {
        (Leaf::File(_), true) => {
            let mut handle = resolved.open_file(OpenOptions::new().read(true))?;
            let mut now = Vec::new();
            handle
                .read_to_end(&mut now)
                .map_err(|e| io_error("reading", path, e))?;
            if now == content {
                return Ok(());
            }
            // Truncated, or replaced when other hard links share the inode.
            resolved.rewrite_file()?
        }
        (Leaf::Missing, _) => resolved.create_file()?,
        _ => {
            return Err(FsError::ConcurrentModification {
                path: path.to_owned(),
            });
        }
    };
    handle
        .write_all(content)
        .map_err(|e| io_error("writing", path, e))?;
    handle
        .set_permissions(Permissions::from_mode(mode & 0o7777))
        .map_err(|e| io_error("setting permissions on", path, e))
}
