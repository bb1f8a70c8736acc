//! Race-safe path resolution beneath the workspace root.
//!
//! # How escapes are prevented
//!
//! Every operation starts from a directory handle on the root, opened once in
//! [`HostFilesystem::open`](crate::HostFilesystem::open), and walks the
//! normalised path one component at a time. A component is always reached
//! *through the handle of its verified parent*, by opening
//! `/proc/self/fd/<parent>/<name>`: the kernel resolves the magic link to the
//! very directory the handle refers to, so renaming or swapping any directory
//! on the way cannot redirect the walk (this is `openat(2)` without unsafe code).
//!
//! For each component:
//!
//! 1. `lstat` it (no symlink following).
//! 2. A directory is opened with `O_DIRECTORY | O_NOFOLLOW`; if a symbolic
//!    link was swapped in since step 1 the open fails with `ELOOP`, and if
//!    another directory was swapped in, its device and inode differ from
//!    step 1. Both abort with [`FsError::ConcurrentModification`].
//! 3. A symbolic link is resolved with `realpath` and must land inside the
//!    root, else [`FsError::SymlinkEscape`]; the walk then restarts from the
//!    root with the target's components (at most 40 hops), so the target is
//!    verified by the same rules.
//!
//! The final component is opened through the verified parent with
//! `O_NOFOLLOW` (and `O_EXCL` when creating), then its device and inode are
//! compared with what step 1 saw. Writes open without `O_TRUNC` and truncate
//! only after that check, so a lost race never truncates the wrong file.
//!
//! Hard links: a file whose inode has other links (possibly outside the root)
//! is never written through. Writes, appends, edits and snapshot restores
//! replace its directory entry with a new file of the same permission bits
//! ([`Resolved::rewrite_file`]), so the other links keep their old content.
//! Reading through a hard link reads the shared content.
//!
//! Not covered: a directory that another
//! process moves out of the root while an operation holds it open (the
//! operation finishes in the moved directory).

use std::fs::{self, File, Metadata, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use wink_fs::FsError;
use wink_fs::path::join;

/// Most symbolic links followed while resolving one path.
const MAX_SYMLINK_HOPS: usize = 40;

/// `/proc/self/fd/<fd>`: the path of an open handle.
pub(crate) fn fd_path(handle: &File) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", handle.as_raw_fd()))
}

/// `/proc/self/fd/<dir>/<name>`: `name` inside the directory the handle refers to.
pub(crate) fn child_path(dir: &File, name: &str) -> PathBuf {
    let mut path = fd_path(dir);
    path.push(name);
    path
}

/// Open a directory handle without following a final symbolic link.
pub(crate) fn open_dir_nofollow(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Same device and inode.
pub(crate) fn same_inode(a: &Metadata, b: &Metadata) -> bool {
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// What the last component of a resolved path is.
#[derive(Debug)]
pub(crate) enum Leaf {
    /// Nothing there (and every ancestor exists as a directory).
    Missing,
    /// A regular file.
    File(Metadata),
    /// A directory.
    Directory(Metadata),
    /// A symbolic link (only when asked not to follow the last component).
    Symlink,
    /// A FIFO, socket or device.
    Special,
}

/// A path resolved to a verified parent directory handle and a leaf name.
#[derive(Debug)]
pub(crate) struct Resolved {
    /// Handle on the directory holding the leaf (the root itself for the root).
    pub parent: File,
    /// The leaf's name in `parent` (`""` for the root).
    pub name: String,
    /// Real workspace-relative path of the leaf, after following symbolic links.
    pub real_path: String,
    /// What the leaf is.
    pub leaf: Leaf,
    /// True when [`Leaf::Missing`] is about an ancestor, not the leaf itself.
    pub missing_ancestor: bool,
}

impl Resolved {
    /// `/proc/self/fd/<parent>/<name>` (the parent itself for the root).
    pub fn leaf_path(&self) -> PathBuf {
        if self.name.is_empty() {
            fd_path(&self.parent)
        } else {
            child_path(&self.parent, &self.name)
        }
    }

    /// Open the leaf directory (which must be [`Leaf::Directory`]) race-safely.
    pub fn open_directory(&self) -> Result<File, FsError> {
        let Leaf::Directory(seen) = &self.leaf else {
            return Err(FsError::NotADirectory {
                path: self.real_path.clone(),
            });
        };
        if self.name.is_empty() {
            return self
                .parent
                .try_clone()
                .map_err(|e| io_error("opening", &self.real_path, e));
        }
        let handle = open_dir_nofollow(&self.leaf_path())
            .map_err(|e| io_error("opening", &self.real_path, e))?;
        verify_same(&handle, seen, &self.real_path)?;
        Ok(handle)
    }

    /// Open the leaf file (which must be [`Leaf::File`]) race-safely with the given options.
    pub fn open_file(&self, options: &mut OpenOptions) -> Result<File, FsError> {
        let Leaf::File(seen) = &self.leaf else {
            return Err(FsError::FileNotFound {
                path: self.real_path.clone(),
            });
        };
        let handle = options
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
            .open(self.leaf_path())
            .map_err(|e| io_error("opening", &self.real_path, e))?;
        verify_same(&handle, seen, &self.real_path)?;
        Ok(handle)
    }

    /// Open the existing file leaf to rewrite it from scratch: truncated, or — when its inode
    /// has other hard links — replaced by a new empty file with the same permission bits, so the
    /// other links (possibly outside the root) are never written through.
    pub fn rewrite_file(&self) -> Result<File, FsError> {
        let Leaf::File(seen) = &self.leaf else {
            return Err(FsError::FileNotFound {
                path: self.real_path.clone(),
            });
        };
        if seen.nlink() > 1 {
            fs::remove_file(self.leaf_path())
                .map_err(|e| io_error("unlinking", &self.real_path, e))?;
            let handle = self.create_file()?;
            handle
                .set_permissions(std::os::unix::fs::PermissionsExt::from_mode(
                    seen.mode() & 0o777,
                ))
                .map_err(|e| io_error("setting permissions on", &self.real_path, e))?;
            return Ok(handle);
        }
        let handle = self.open_file(OpenOptions::new().write(true))?;
        handle
            .set_len(0)
            .map_err(|e| io_error("truncating", &self.real_path, e))?;
        Ok(handle)
    }

    /// Create the missing leaf as a new, empty file (`O_EXCL`, never through a link).
    pub fn create_file(&self) -> Result<File, FsError> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(self.leaf_path())
            .map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => FsError::ConcurrentModification {
                    path: self.real_path.clone(),
                },
                _ => io_error("creating", &self.real_path, e),
            })
    }
}

/// Check that an opened handle is the entry that was inspected before opening.
pub(crate) fn verify_same(handle: &File, seen: &Metadata, path: &str) -> Result<(), FsError> {
    let opened = handle
        .metadata()
        .map_err(|e| io_error("inspecting", path, e))?;
    if same_inode(&opened, seen) {
        Ok(())
    } else {
        Err(FsError::ConcurrentModification {
            path: path.to_owned(),
        })
    }
}

/// Map an I/O error to the closest [`FsError`].
pub(crate) fn io_error(operation: &'static str, path: &str, error: io::Error) -> FsError {
    let path = wink_fs::path::display_path(path).to_owned();
    match error.raw_os_error() {
        Some(libc::ELOOP | libc::ENOTDIR) => return FsError::ConcurrentModification { path },
        Some(libc::ENOTEMPTY) => return FsError::DirectoryNotEmpty { path },
        _ => {}
    }
    match error.kind() {
        io::ErrorKind::NotFound => FsError::FileNotFound { path },
        io::ErrorKind::PermissionDenied => FsError::PermissionDenied { path },
        _ => FsError::Io {
            operation,
            path,
            source: error,
        },
    }
}

/// Resolve paths beneath one root directory handle.
#[derive(Debug)]
pub(crate) struct Resolver {
    /// Handle on the root directory, opened once.
    pub root: File,
    /// Canonical path of the root when it was opened.
    pub root_path: PathBuf,
}

/// Options of one resolution.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Walk {
    /// Follow a symbolic link in the last component (inside the root only).
    pub follow_leaf: bool,
    /// Create missing intermediate directories.
    pub create_parents: bool,
}

impl Walk {
    pub const FOLLOW: Self = Self {
        follow_leaf: true,
        create_parents: false,
    };
    pub const NO_FOLLOW: Self = Self {
        follow_leaf: false,
        create_parents: false,
    };
    pub const CREATE_PARENTS: Self = Self {
        follow_leaf: true,
        create_parents: true,
    };
}

impl Resolver {
    /// Resolve a normalised workspace-relative path.
    ///
    /// Missing intermediate directories yield [`Leaf::Missing`] for the
    /// first missing component (with `real_path` naming it) unless
    /// `create_parents` is set; a file used as a directory is
    /// [`FsError::NotADirectory`].
    pub fn resolve(&self, normalized: &str, walk: Walk) -> Result<Resolved, FsError> {
        let mut components: Vec<String> = split(normalized);
        let mut hops = 0usize;
        'restart: loop {
            let mut dir = self
                .root
                .try_clone()
                .map_err(|e| io_error("opening", "", e))?;
            let mut real = String::new();
            let mut index = 0;
            while index < components.len() {
                let name = components[index].clone();
                let is_last = index + 1 == components.len();
                let here = join(&real, &name);
                let path = child_path(&dir, &name);
                let metadata = match fs::symlink_metadata(&path) {
                    Ok(metadata) => metadata,
                    Err(error) if error.kind() == io::ErrorKind::NotFound => {
                        if is_last || !walk.create_parents {
                            return Ok(Resolved {
                                parent: dir,
                                name,
                                real_path: here,
                                leaf: Leaf::Missing,
                                missing_ancestor: !is_last,
                            });
                        }
                        match fs::create_dir(&path) {
                            Ok(()) => {}
                            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                            Err(e) => return Err(io_error("creating directory", &here, e)),
                        }
                        continue;
                    }
                    Err(error) => return Err(io_error("inspecting", &here, error)),
                };
                let file_type = metadata.file_type();
                if file_type.is_symlink() {
                    if is_last && !walk.follow_leaf {
                        return Ok(Resolved {
                            parent: dir,
                            name,
                            real_path: here,
                            leaf: Leaf::Symlink,
                            missing_ancestor: false,
                        });
                    }
                    hops += 1;
                    let target = self.symlink_target(&path, &here, hops)?;
                    let mut rest = split(&target);
                    rest.extend(components.drain(index + 1..));
                    components = rest;
                    continue 'restart;
                }
                if file_type.is_dir() {
                    if is_last {
                        return Ok(Resolved {
                            parent: dir,
                            name,
                            real_path: here,
                            leaf: Leaf::Directory(metadata),
                            missing_ancestor: false,
                        });
                    }
                    let next =
                        open_dir_nofollow(&path).map_err(|e| io_error("opening", &here, e))?;
                    verify_same(&next, &metadata, &here)?;
                    dir = next;
                    real = here;
                    index += 1;
                    continue;
                }
                if !is_last {
                    return Err(FsError::NotADirectory { path: here });
                }
                let leaf = if file_type.is_file() {
                    Leaf::File(metadata)
                } else {
                    Leaf::Special
                };
                return Ok(Resolved {
                    parent: dir,
                    name,
                    real_path: here,
                    leaf,
                    missing_ancestor: false,
                });
            }
            let metadata = dir.metadata().map_err(|e| io_error("inspecting", "", e))?;
            return Ok(Resolved {
                parent: dir,
                name: String::new(),
                real_path: real,
                leaf: Leaf::Directory(metadata),
                missing_ancestor: false,
            });
        }
    }

    /// Where the link at `path` leads, as a normalised path inside the root.
    fn symlink_target(&self, path: &Path, here: &str, hops: usize) -> Result<String, FsError> {
        if hops > MAX_SYMLINK_HOPS {
            return Err(FsError::UnresolvableSymlink {
                path: here.to_owned(),
                reason: "too many levels of symbolic links".to_owned(),
            });
        }
        let target = fs::canonicalize(path).map_err(|error| FsError::UnresolvableSymlink {
            path: here.to_owned(),
            reason: match error.raw_os_error() {
                Some(libc::ELOOP) => "too many levels of symbolic links".to_owned(),
                Some(libc::ENOENT) => "it points to nothing".to_owned(),
                _ => error.to_string(),
            },
        })?;
        let relative =
            target
                .strip_prefix(&self.root_path)
                .map_err(|_| FsError::SymlinkEscape {
                    path: here.to_owned(),
                })?;
        relative
            .to_str()
            .map(str::to_owned)
            .ok_or_else(|| FsError::InvalidPath {
                path: here.to_owned(),
                reason: "the link target is not valid UTF-8".to_owned(),
            })
    }
}

fn split(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Names in a directory handle that are valid UTF-8, sorted (others are not addressable).
pub(crate) fn sorted_names(dir: &File, display: &str) -> Result<Vec<String>, FsError> {
    let mut names: Vec<String> = fs::read_dir(fd_path(dir))
        .map_err(|e| io_error("listing", display, e))?
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
        .collect();
    names.sort();
    Ok(names)
}
