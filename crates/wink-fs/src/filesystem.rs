//! The [`Filesystem`] trait.

use std::fmt;

use crate::{
    EditResult, FileInfo, FsError, FsLimits, FsSnapshot, GrepMatch, ReadResult, WriteMode,
    WriteResult,
};

/// A workspace of files and directories that tools read and change.
///
/// Paths are workspace-relative POSIX strings, normalised by
/// [`normalize_path`](crate::normalize_path): `a/./b/` is `a/b`, `""` and `.`
/// are the root, and absolute paths or `..` climbing above the root are
/// refused. Results carry normalised paths.
///
/// Methods take `&self`: backends use interior mutability so one
/// `Arc<dyn Filesystem>` can be shared by every tool of a session. Each call
/// is atomic with respect to other calls on the same instance, and failed
/// calls leave the workspace unchanged.
///
/// The model-facing workspace tools map onto it one to one: `ls` →
/// [`list`](Self::list), `read_file(file_path, offset, limit)` →
/// [`read`](Self::read), `write_file(file_path, content, mode)` →
/// [`write`](Self::write), `edit_file(file_path, old_string, new_string,
/// replace_all)` → [`edit`](Self::edit), `glob(pattern, path)` →
/// [`glob`](Self::glob), `grep(pattern, path, glob)` → [`grep`](Self::grep),
/// `rm(path)` → [`remove`](Self::remove).
pub trait Filesystem: Send + Sync + fmt::Debug {
    /// The size limits this instance enforces.
    fn limits(&self) -> FsLimits;

    /// Read lines `offset..offset + limit` of a UTF-8 text file (`limit: None`
    /// reads to the end). The page also stops before it would exceed
    /// [`FsLimits::max_read_bytes`]; `truncated` tells whether lines remain.
    ///
    /// # Errors
    /// [`FsError::FileNotFound`], [`FsError::IsADirectory`],
    /// [`FsError::NotUtf8`], [`FsError::LineTooLong`], path errors.
    fn read(&self, path: &str, offset: usize, limit: Option<usize>) -> Result<ReadResult, FsError>;

    /// The whole content of a file, as bytes.
    ///
    /// # Errors
    /// [`FsError::FileNotFound`], [`FsError::IsADirectory`],
    /// [`FsError::FileTooLarge`] above [`FsLimits::max_read_bytes`], path errors.
    fn read_bytes(&self, path: &str) -> Result<Vec<u8>, FsError>;

    /// The whole content of a UTF-8 text file.
    ///
    /// # Errors
    /// As [`read_bytes`](Self::read_bytes), plus [`FsError::NotUtf8`].
    fn read_to_string(&self, path: &str) -> Result<String, FsError> {
        let bytes = self.read_bytes(path)?;
        String::from_utf8(bytes).map_err(|_| FsError::NotUtf8 {
            path: crate::normalize_path(path).unwrap_or_else(|_| path.to_owned()),
        })
    }

    /// Write raw bytes; missing parent directories are created.
    ///
    /// # Errors
    /// [`FsError::AlreadyExists`] for [`WriteMode::Create`] on an existing
    /// file, [`FsError::IsADirectory`], [`FsError::NotADirectory`] when a
    /// parent is a file, [`FsError::WriteTooLarge`] above
    /// [`FsLimits::max_write_bytes`], path errors.
    fn write_bytes(
        &self,
        path: &str,
        content: &[u8],
        mode: WriteMode,
    ) -> Result<WriteResult, FsError>;

    /// Write UTF-8 text; see [`write_bytes`](Self::write_bytes).
    ///
    /// # Errors
    /// As [`write_bytes`](Self::write_bytes).
    fn write(&self, path: &str, content: &str, mode: WriteMode) -> Result<WriteResult, FsError> {
        self.write_bytes(path, content.as_bytes(), mode)
    }

    /// Replace the exact text `old` with `new` in a UTF-8 file: it must occur
    /// once, or any number of times when `replace_all` is set. Only `new` is
    /// held to the write limit, so large files stay editable.
    ///
    /// # Errors
    /// [`FsError::EmptyEdit`], [`FsError::EditTargetNotFound`],
    /// [`FsError::AmbiguousEdit`], and the errors of
    /// [`read_to_string`](Self::read_to_string).
    fn edit(
        &self,
        path: &str,
        old: &str,
        new: &str,
        replace_all: bool,
    ) -> Result<EditResult, FsError>;

    /// Create a directory (`parents`: also missing ancestors; `exist_ok`: an
    /// existing directory is not an error).
    ///
    /// # Errors
    /// [`FsError::AlreadyExists`], [`FsError::DirectoryNotFound`] for a
    /// missing parent without `parents`, [`FsError::NotADirectory`], path errors.
    fn mkdir(&self, path: &str, parents: bool, exist_ok: bool) -> Result<(), FsError>;

    /// Entries directly inside a directory, sorted by name.
    ///
    /// # Errors
    /// [`FsError::DirectoryNotFound`], [`FsError::NotADirectory`], path errors.
    fn list(&self, path: &str) -> Result<Vec<FileInfo>, FsError>;

    /// Files under the directory `path` whose path *relative to it* matches
    /// the [`GlobPattern`](crate::GlobPattern); returns workspace-relative
    /// paths, sorted. A missing base yields no matches.
    ///
    /// # Errors
    /// [`FsError::InvalidGlob`], [`FsError::NotADirectory`], path errors.
    fn glob(&self, pattern: &str, path: &str) -> Result<Vec<String>, FsError>;

    /// Lines matching the regular expression in text files under `path` (a
    /// directory or a single file), optionally filtered by `glob` (matched
    /// against the file name when it has no `/`, else against the path
    /// relative to `path`). Sorted by path then line; at most
    /// [`FsLimits::max_grep_matches`]; files that are not UTF-8 or larger than
    /// [`FsLimits::max_read_bytes`] are skipped. A missing base yields no matches.
    ///
    /// # Errors
    /// [`FsError::InvalidRegex`], [`FsError::InvalidGlob`], path errors.
    fn grep(
        &self,
        pattern: &str,
        path: &str,
        glob: Option<&str>,
    ) -> Result<Vec<GrepMatch>, FsError>;

    /// Remove a file, an empty directory, or (with `recursive`) a directory and its contents.
    ///
    /// # Errors
    /// [`FsError::FileNotFound`], [`FsError::DirectoryNotEmpty`],
    /// [`FsError::RootRemoval`], path errors.
    fn remove(&self, path: &str, recursive: bool) -> Result<(), FsError>;

    /// Metadata of one entry (the root included).
    ///
    /// # Errors
    /// [`FsError::FileNotFound`], path errors.
    fn stat(&self, path: &str) -> Result<FileInfo, FsError>;

    /// Whether anything usable exists at `path` (invalid paths do not).
    fn exists(&self, path: &str) -> bool {
        self.stat(path).is_ok()
    }

    /// Capture the whole workspace.
    ///
    /// # Errors
    /// Backend-specific: [`FsError::SnapshotTooLarge`], I/O errors.
    fn snapshot(&self) -> Result<FsSnapshot, FsError>;

    /// Put the workspace back exactly as it was when `snapshot` was taken.
    ///
    /// # Errors
    /// [`FsError::ForeignSnapshot`] for a snapshot of another instance; I/O errors.
    fn restore(&self, snapshot: &FsSnapshot) -> Result<(), FsError>;

    /// A short description of the workspace for messages (`memory`, a host directory path).
    fn root_label(&self) -> String;
}
