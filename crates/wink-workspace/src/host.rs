//! [`HostFilesystem`]: the [`Filesystem`] trait over a real directory.

use std::collections::HashMap;
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::{Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use wink_fs::path::{display_path, join, parent_of, relative_to};
use wink_fs::text::{GrepQuery, ReadWindow, apply_edit, check_read_size, write_target};
use wink_fs::{
    EditResult, FileInfo, FileKind, Filesystem, FilesystemId, FsError, FsLimits, FsSnapshot,
    GlobPattern, GrepMatch, ReadResult, WriteMode, WriteResult, normalize_path,
};

use crate::resolve::{
    Leaf, Resolved, Resolver, Walk, child_path, fd_path, io_error, open_dir_nofollow, sorted_names,
    verify_same,
};
use crate::snapshot::{self, CachedBlob, SnapshotLimits};

/// A workspace rooted at a host directory; nothing outside the root can be
/// read, written, listed or removed through it.
///
/// See the [`resolve`](crate::resolve) module for how `..`, absolute paths,
/// symbolic links leading out and check-then-use races are refused, and
/// [`snapshot`](crate::snapshot) for how snapshots are kept. Linux only: it
/// needs `/proc/self/fd`.
///
/// Calls on one instance are serialised against each other (reads run in
/// parallel); other processes changing the directory are not.
#[derive(Debug)]
pub struct HostFilesystem {
    id: FilesystemId,
    label: String,
    resolver: Resolver,
    limits: FsLimits,
    snapshot_limits: SnapshotLimits,
    operations: RwLock<()>,
    blob_cache: Mutex<HashMap<String, CachedBlob>>,
}

impl HostFilesystem {
    /// Open the workspace rooted at `root`, which must be an existing directory.
    ///
    /// # Errors
    /// [`FsError::RootUnavailable`] when the root cannot be opened or
    /// `/proc/self/fd` is not available.
    pub fn open(root: impl AsRef<Path>, limits: FsLimits) -> Result<Self, FsError> {
        let given = root.as_ref();
        let unavailable = |reason: String| FsError::RootUnavailable {
            root: given.display().to_string(),
            reason,
        };
        let root_path = fs::canonicalize(given).map_err(|e| unavailable(e.to_string()))?;
        let handle = open_dir_nofollow(&root_path).map_err(|e| unavailable(e.to_string()))?;
        let seen = fs::read_link(fd_path(&handle)).map_err(|e| {
            unavailable(format!(
                "/proc/self/fd is needed to confine paths safely ({e})"
            ))
        })?;
        if seen != root_path {
            return Err(unavailable(format!(
                "the root moved while it was opened (now at {})",
                seen.display()
            )));
        }
        Ok(Self {
            id: FilesystemId::fresh(),
            label: root_path.display().to_string(),
            resolver: Resolver {
                root: handle,
                root_path,
            },
            limits,
            snapshot_limits: SnapshotLimits::default(),
            operations: RwLock::new(()),
            blob_cache: Mutex::new(HashMap::new()),
        })
    }

    /// Replace the caps on what one snapshot may hold in memory.
    #[must_use]
    pub fn with_snapshot_limits(mut self, snapshot_limits: SnapshotLimits) -> Self {
        self.snapshot_limits = snapshot_limits;
        self
    }

    /// The canonical root directory.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.resolver.root_path
    }

    fn shared(&self) -> RwLockReadGuard<'_, ()> {
        self.operations
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn exclusive(&self) -> RwLockWriteGuard<'_, ()> {
        self.operations
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn resolver(&self) -> &Resolver {
        &self.resolver
    }

    pub(crate) fn blob_cache(&self) -> std::sync::MutexGuard<'_, HashMap<String, CachedBlob>> {
        self.blob_cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Resolve a path that must name an existing regular file.
    fn existing_file(&self, normalized: &str) -> Result<Resolved, FsError> {
        let resolved = self.resolver.resolve(normalized, Walk::FOLLOW)?;
        match resolved.leaf {
            Leaf::File(_) => Ok(resolved),
            Leaf::Directory(_) => Err(FsError::IsADirectory {
                path: display_path(normalized).to_owned(),
            }),
            Leaf::Special => Err(FsError::SpecialFile {
                path: normalized.to_owned(),
            }),
            Leaf::Missing | Leaf::Symlink => Err(FsError::FileNotFound {
                path: normalized.to_owned(),
            }),
        }
    }

    /// Resolve a directory for glob/grep: `None` when it does not exist.
    fn search_base(&self, base: &str) -> Result<Option<Resolved>, FsError> {
        let resolved = self.resolver.resolve(base, Walk::FOLLOW)?;
        Ok(match resolved.leaf {
            Leaf::Missing => None,
            _ => Some(resolved),
        })
    }

    /// Every file under the directory `base` (the handle `dir`), following
    /// links to files inside the root but never descending into linked directories.
    fn files_under(&self, dir: &File, base: &str) -> Result<Vec<(String, u64)>, FsError> {
        let mut files = Vec::new();
        walk(dir, base, &mut |_, path, metadata| {
            if metadata.file_type().is_file() {
                files.push((path.to_owned(), metadata.len()));
            } else if metadata.file_type().is_symlink()
                && let Ok(Resolved {
                    leaf: Leaf::File(target),
                    ..
                }) = self.resolver.resolve(path, Walk::FOLLOW)
            {
                files.push((path.to_owned(), target.len()));
            }
            Ok(())
        })?;
        files.sort();
        Ok(files)
    }

    fn info(&self, normalized: &str, metadata: &Metadata) -> FileInfo {
        let is_dir = metadata.is_dir();
        FileInfo {
            path: normalized.to_owned(),
            name: wink_fs::path::file_name(normalized).to_owned(),
            kind: if is_dir {
                FileKind::Directory
            } else {
                FileKind::File
            },
            size_bytes: if is_dir { 0 } else { metadata.len() },
            modified: metadata.modified().ok(),
        }
    }

    fn read_whole(&self, normalized: &str, resolved: &Resolved) -> Result<Vec<u8>, FsError> {
        let handle = resolved.open_file(OpenOptions::new().read(true))?;
        read_capped(handle, normalized, self.limits.max_read_bytes)
    }
}

/// Read a whole file, refusing more than `cap` bytes.
fn read_capped(handle: File, normalized: &str, cap: usize) -> Result<Vec<u8>, FsError> {
    let size = handle
        .metadata()
        .map_err(|e| io_error("inspecting", normalized, e))?
        .len();
    check_read_size(normalized, size, cap)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    handle
        .take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error("reading", normalized, e))?;
    // The file may have grown since it was inspected.
    check_read_size(normalized, bytes.len() as u64, cap)?;
    Ok(bytes)
}

/// Depth-first visit of every entry beneath the directory handle `dir`
/// (normalised path `base`), children in name order, symbolic links not followed.
pub(crate) fn walk(
    dir: &File,
    base: &str,
    visit: &mut dyn FnMut(&File, &str, &Metadata) -> Result<(), FsError>,
) -> Result<(), FsError> {
    for name in sorted_names(dir, base)? {
        let path = join(base, &name);
        let child = child_path(dir, &name);
        let metadata = match fs::symlink_metadata(&child) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
            Err(error) => return Err(io_error("inspecting", &path, error)),
        };
        visit(dir, &path, &metadata)?;
        if metadata.is_dir() {
            let handle = open_dir_nofollow(&child).map_err(|e| io_error("opening", &path, e))?;
            verify_same(&handle, &metadata, &path)?;
            walk(&handle, &path, visit)?;
        }
    }
    Ok(())
}

impl Filesystem for HostFilesystem {
    fn limits(&self) -> FsLimits {
        self.limits
    }

    fn read(&self, path: &str, offset: usize, limit: Option<usize>) -> Result<ReadResult, FsError> {
        let normalized = normalize_path(path)?;
        let _guard = self.shared();
        let resolved = self.existing_file(&normalized)?;
        let handle = resolved.open_file(OpenOptions::new().read(true))?;
        let mut reader = BufReader::new(handle);
        let mut window = ReadWindow::new(&normalized, offset, limit, self.limits.max_read_bytes);
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            let read = reader
                .read_until(b'\n', &mut buffer)
                .map_err(|e| io_error("reading", &normalized, e))?;
            if read == 0 {
                break;
            }
            if buffer.last() == Some(&b'\n') {
                buffer.pop();
                if buffer.last() == Some(&b'\r') {
                    buffer.pop();
                }
            }
            let line = std::str::from_utf8(&buffer).map_err(|_| FsError::NotUtf8 {
                path: normalized.clone(),
            })?;
            window.push(line)?;
        }
        Ok(window.finish())
    }

    fn read_bytes(&self, path: &str) -> Result<Vec<u8>, FsError> {
        let normalized = normalize_path(path)?;
        let _guard = self.shared();
        let resolved = self.existing_file(&normalized)?;
        self.read_whole(&normalized, &resolved)
    }

    fn write_bytes(
        &self,
        path: &str,
        content: &[u8],
        mode: WriteMode,
    ) -> Result<WriteResult, FsError> {
        let normalized = write_target(path, content.len(), self.limits.max_write_bytes)?;
        let _guard = self.exclusive();
        let resolved = self.resolver.resolve(&normalized, Walk::CREATE_PARENTS)?;
        let (mut handle, created) = match (&resolved.leaf, mode) {
            (Leaf::Missing, _) => (resolved.create_file()?, true),
            (Leaf::Directory(_), _) => return Err(FsError::IsADirectory { path: normalized }),
            (Leaf::Special | Leaf::Symlink, _) => {
                return Err(FsError::SpecialFile { path: normalized });
            }
            (Leaf::File(_), WriteMode::Create) => {
                return Err(FsError::AlreadyExists {
                    path: normalized,
                    kind: FileKind::File,
                });
            }
            (Leaf::File(seen), WriteMode::Append) if seen.nlink() > 1 => {
                // Never append through a hard link: rewrite the old content into a new file.
                let old = self.read_whole(&normalized, &resolved)?;
                let mut handle = resolved.rewrite_file()?;
                handle
                    .write_all(&old)
                    .map_err(|e| io_error("writing", &normalized, e))?;
                (handle, false)
            }
            (Leaf::File(_), WriteMode::Append) => {
                (resolved.open_file(OpenOptions::new().append(true))?, false)
            }
            (Leaf::File(_), _) => (resolved.rewrite_file()?, false),
        };
        handle
            .write_all(content)
            .map_err(|e| io_error("writing", &normalized, e))?;
        let size_bytes = handle
            .metadata()
            .map_err(|e| io_error("inspecting", &normalized, e))?
            .len();
        Ok(WriteResult {
            path: normalized,
            mode,
            bytes_written: content.len() as u64,
            size_bytes,
            created,
        })
    }

    fn edit(
        &self,
        path: &str,
        old: &str,
        new: &str,
        replace_all: bool,
    ) -> Result<EditResult, FsError> {
        let normalized = normalize_path(path)?;
        let _guard = self.exclusive();
        let resolved = self.existing_file(&normalized)?;
        let bytes = read_capped(
            resolved.open_file(OpenOptions::new().read(true))?,
            &normalized,
            self.limits.max_read_bytes,
        )?;
        let text = String::from_utf8(bytes).map_err(|_| FsError::NotUtf8 {
            path: normalized.clone(),
        })?;
        let (updated, replacements) = apply_edit(
            &normalized,
            &text,
            old,
            new,
            replace_all,
            self.limits.max_write_bytes,
        )?;
        resolved
            .rewrite_file()?
            .write_all(updated.as_bytes())
            .map_err(|e| io_error("writing", &normalized, e))?;
        Ok(EditResult {
            path: normalized,
            replacements,
            size_bytes: updated.len() as u64,
        })
    }

    fn mkdir(&self, path: &str, parents: bool, exist_ok: bool) -> Result<(), FsError> {
        let normalized = normalize_path(path)?;
        let _guard = self.exclusive();
        let walk = if parents {
            Walk::CREATE_PARENTS
        } else {
            Walk::FOLLOW
        };
        let resolved = self.resolver.resolve(&normalized, walk)?;
        match resolved.leaf {
            Leaf::Missing if resolved.missing_ancestor => Err(FsError::DirectoryNotFound {
                path: display_path(parent_of(&normalized)).to_owned(),
            }),
            Leaf::Missing => fs::create_dir(resolved.leaf_path()).map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => FsError::ConcurrentModification {
                    path: normalized.clone(),
                },
                _ => io_error("creating directory", &normalized, e),
            }),
            Leaf::Directory(_) if exist_ok => Ok(()),
            Leaf::Directory(_) => Err(FsError::AlreadyExists {
                path: display_path(&normalized).to_owned(),
                kind: FileKind::Directory,
            }),
            Leaf::File(_) | Leaf::Special | Leaf::Symlink => Err(FsError::AlreadyExists {
                path: normalized,
                kind: FileKind::File,
            }),
        }
    }

    fn list(&self, path: &str) -> Result<Vec<FileInfo>, FsError> {
        let normalized = normalize_path(path)?;
        let _guard = self.shared();
        let resolved = self.resolver.resolve(&normalized, Walk::FOLLOW)?;
        let handle = match resolved.leaf {
            Leaf::Directory(_) => resolved.open_directory()?,
            Leaf::Missing => {
                return Err(FsError::DirectoryNotFound {
                    path: display_path(&normalized).to_owned(),
                });
            }
            _ => return Err(FsError::NotADirectory { path: normalized }),
        };
        let mut entries = Vec::new();
        for name in sorted_names(&handle, &normalized)? {
            let entry_path = join(&normalized, &name);
            let Ok(metadata) = fs::symlink_metadata(child_path(&handle, &name)) else {
                continue;
            };
            let file_type = metadata.file_type();
            if file_type.is_file() || file_type.is_dir() {
                entries.push(self.info(&entry_path, &metadata));
            } else if file_type.is_symlink()
                && let Ok(Resolved {
                    leaf: Leaf::File(target) | Leaf::Directory(target),
                    ..
                }) = self.resolver.resolve(&entry_path, Walk::FOLLOW)
            {
                // Links are listed as what they lead to, when that is inside the root.
                entries.push(self.info(&entry_path, &target));
            }
        }
        Ok(entries)
    }

    fn glob(&self, pattern: &str, path: &str) -> Result<Vec<String>, FsError> {
        let base = normalize_path(path)?;
        let pattern = GlobPattern::new(pattern)?;
        let _guard = self.shared();
        let Some(resolved) = self.search_base(&base)? else {
            return Ok(Vec::new());
        };
        let handle = match resolved.leaf {
            Leaf::Directory(_) => resolved.open_directory()?,
            _ => return Err(FsError::NotADirectory { path: base }),
        };
        Ok(self
            .files_under(&handle, &base)?
            .into_iter()
            .map(|(file, _)| file)
            .filter(|file| pattern.matches(relative_to(file, &base)))
            .collect())
    }

    fn grep(
        &self,
        pattern: &str,
        path: &str,
        glob: Option<&str>,
    ) -> Result<Vec<GrepMatch>, FsError> {
        let base = normalize_path(path)?;
        let query = GrepQuery::new(pattern, &base, glob)?;
        let _guard = self.shared();
        let Some(resolved) = self.search_base(&base)? else {
            return Ok(Vec::new());
        };
        let candidates = match resolved.leaf {
            Leaf::Directory(_) => self.files_under(&resolved.open_directory()?, &base)?,
            Leaf::File(ref metadata) => vec![(base.clone(), metadata.len())],
            _ => Vec::new(),
        };
        let cap = self.limits.max_grep_matches;
        let mut out = Vec::new();
        for (file, size) in candidates {
            if out.len() >= cap {
                break;
            }
            if size > self.limits.max_read_bytes as u64 || !query.accepts_path(&file) {
                continue;
            }
            let Ok(resolved) = self.existing_file(&file) else {
                continue;
            };
            let Ok(bytes) = self.read_whole(&file, &resolved) else {
                continue;
            };
            if let Ok(text) = std::str::from_utf8(&bytes) {
                query.search(&file, text, cap - out.len(), &mut out);
            }
        }
        Ok(out)
    }

    fn remove(&self, path: &str, recursive: bool) -> Result<(), FsError> {
        let normalized = normalize_path(path)?;
        if normalized.is_empty() {
            return Err(FsError::RootRemoval);
        }
        let _guard = self.exclusive();
        let resolved = self.resolver.resolve(&normalized, Walk::NO_FOLLOW)?;
        let target = resolved.leaf_path();
        match resolved.leaf {
            Leaf::Missing => Err(FsError::FileNotFound { path: normalized }),
            Leaf::Directory(_) if recursive => {
                // std's remove_dir_all never follows symbolic links inside the tree.
                fs::remove_dir_all(&target).map_err(|e| io_error("removing", &normalized, e))
            }
            Leaf::Directory(_) => {
                fs::remove_dir(&target).map_err(|e| io_error("removing", &normalized, e))
            }
            Leaf::File(_) | Leaf::Symlink | Leaf::Special => {
                fs::remove_file(&target).map_err(|e| io_error("removing", &normalized, e))
            }
        }
    }

    fn stat(&self, path: &str) -> Result<FileInfo, FsError> {
        let normalized = normalize_path(path)?;
        let _guard = self.shared();
        let resolved = self.resolver.resolve(&normalized, Walk::FOLLOW)?;
        match &resolved.leaf {
            Leaf::File(metadata) | Leaf::Directory(metadata) => {
                Ok(self.info(&normalized, metadata))
            }
            Leaf::Special => Err(FsError::SpecialFile { path: normalized }),
            Leaf::Missing | Leaf::Symlink => Err(FsError::FileNotFound { path: normalized }),
        }
    }

    fn snapshot(&self) -> Result<FsSnapshot, FsError> {
        let _guard = self.shared();
        let state = snapshot::capture(self, self.snapshot_limits)?;
        Ok(FsSnapshot::new(
            self.id,
            &self.label,
            std::sync::Arc::new(state),
        ))
    }

    fn restore(&self, snapshot: &FsSnapshot) -> Result<(), FsError> {
        let state: &snapshot::HostSnapshot = snapshot.state_for(self.id, &self.label)?;
        let _guard = self.exclusive();
        snapshot::restore(self, state)
    }

    fn root_label(&self) -> String {
        self.label.clone()
    }
}
