//! The one error type of the filesystem layer.

use crate::types::FileKind;

/// Everything that can go wrong in a [`Filesystem`](crate::Filesystem) call.
///
/// Messages are written for the model as much as for people: each names the
/// workspace-relative path involved (`.` is the root) and, where it helps,
/// what to do instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FsError {
    /// No file exists at the path (or a directory was found where a file was needed to exist).
    #[error("File not found: {path}")]
    FileNotFound {
        /// Normalised path.
        path: String,
    },
    /// No directory exists at the path.
    #[error("Directory not found: {path}")]
    DirectoryNotFound {
        /// Normalised path.
        path: String,
    },
    /// A file operation was asked of a directory.
    #[error("Is a directory, not a file: {path}")]
    IsADirectory {
        /// Normalised path.
        path: String,
    },
    /// A directory operation was asked of a file, or a path goes through a file.
    #[error("Not a directory: {path}")]
    NotADirectory {
        /// Normalised path of the offending entry.
        path: String,
    },
    /// Something already exists where a new entry was to be created.
    #[error("{} already exists: {path}", kind.capitalized_label())]
    AlreadyExists {
        /// Normalised path.
        path: String,
        /// What is already there.
        kind: FileKind,
    },
    /// A directory was removed without `recursive` while it still has entries.
    #[error("Directory not empty: {path} (remove it recursively to delete its contents too)")]
    DirectoryNotEmpty {
        /// Normalised path.
        path: String,
    },
    /// The entry is neither a regular file nor a directory (FIFO, socket, device).
    #[error("Not a regular file or directory: {path}")]
    SpecialFile {
        /// Normalised path.
        path: String,
    },
    /// The workspace root itself may not be removed.
    #[error("Cannot remove the workspace root")]
    RootRemoval,
    /// `..` segments climb above the workspace root.
    #[error("Path escapes the workspace root: {path}")]
    EscapesRoot {
        /// The path as given.
        path: String,
    },
    /// Absolute paths are refused: every path is relative to the workspace root.
    #[error("Absolute paths are not allowed, use a path relative to the workspace root: {path}")]
    AbsolutePath {
        /// The path as given.
        path: String,
    },
    /// A symbolic link on the path leads outside the workspace root.
    #[error("Path escapes the workspace root through a symbolic link: {path}")]
    SymlinkEscape {
        /// Normalised path whose resolution left the root.
        path: String,
    },
    /// A symbolic link on the path is dangling, or loops.
    #[error("Cannot resolve symbolic link: {path} ({reason})")]
    UnresolvableSymlink {
        /// Normalised path of the link.
        path: String,
        /// Why it could not be resolved.
        reason: String,
    },
    /// The path changed between the safety check and its use (for instance a
    /// directory swapped for a symbolic link); the operation was refused.
    #[error("Path changed while it was being accessed, refusing to continue: {path}")]
    ConcurrentModification {
        /// Normalised path.
        path: String,
    },
    /// The path is malformed (NUL byte, over-long segment, ...).
    #[error("Invalid path {path:?}: {reason}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A file is larger than the read limit allows to load whole.
    #[error(
        "File too large to read: {path} is {size_bytes} bytes, the read limit is {limit_bytes} bytes (read it in pages with offset and limit)"
    )]
    FileTooLarge {
        /// Normalised path.
        path: String,
        /// Size of the file.
        size_bytes: u64,
        /// The configured read limit.
        limit_bytes: usize,
    },
    /// A single line is longer than the read limit, so no page can hold it.
    #[error(
        "Line {line_number} of {path} is {line_bytes} bytes, longer than the read limit of {limit_bytes} bytes"
    )]
    LineTooLong {
        /// Normalised path.
        path: String,
        /// One-based line number.
        line_number: usize,
        /// Length of that line.
        line_bytes: usize,
        /// The configured read limit.
        limit_bytes: usize,
    },
    /// Content handed to a write (or edit) is larger than the write limit.
    #[error(
        "Content for {path} is {size_bytes} bytes, the write limit is {limit_bytes} bytes (split it into smaller appends)"
    )]
    WriteTooLarge {
        /// Normalised path.
        path: String,
        /// Size of the rejected content.
        size_bytes: usize,
        /// The configured write limit.
        limit_bytes: usize,
    },
    /// The file holds bytes that are not UTF-8 text.
    #[error("File is not valid UTF-8 text: {path}")]
    NotUtf8 {
        /// Normalised path.
        path: String,
    },
    /// An edit was asked to replace the empty string.
    #[error("The text to replace must not be empty (editing {path})")]
    EmptyEdit {
        /// Normalised path.
        path: String,
    },
    /// The text to replace does not occur in the file.
    #[error("The text to replace was not found in {path}")]
    EditTargetNotFound {
        /// Normalised path.
        path: String,
    },
    /// The text to replace occurs several times and `replace_all` was not set.
    #[error(
        "The text to replace occurs {occurrences} times in {path}; include more surrounding text to make it unique, or replace all occurrences"
    )]
    AmbiguousEdit {
        /// Normalised path.
        path: String,
        /// How many times it occurs.
        occurrences: usize,
    },
    /// A glob pattern could not be parsed.
    #[error("Invalid glob pattern '{pattern}': {reason}")]
    InvalidGlob {
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A regular expression could not be compiled.
    #[error("Invalid regular expression '{pattern}': {reason}")]
    InvalidRegex {
        /// The pattern as given.
        pattern: String,
        /// The compiler's explanation.
        reason: String,
    },
    /// A snapshot taken from one filesystem was handed to another.
    #[error("Snapshot was taken from {snapshot_origin}, it cannot be restored into {target}")]
    ForeignSnapshot {
        /// Where the snapshot comes from.
        snapshot_origin: String,
        /// The filesystem asked to restore it.
        target: String,
    },
    /// The workspace is too large for the backend to snapshot.
    #[error("Cannot snapshot the workspace: {reason}")]
    SnapshotTooLarge {
        /// Which cap was exceeded, with the path involved.
        reason: String,
    },
    /// The backend cannot be used on this system or with this root.
    #[error("Workspace root unavailable: {root}: {reason}")]
    RootUnavailable {
        /// The root as given.
        root: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// The operating system refused access.
    #[error("Permission denied: {path}")]
    PermissionDenied {
        /// Normalised path.
        path: String,
    },
    /// Any other I/O failure.
    #[error("I/O error while {operation} {path}: {source}")]
    Io {
        /// What was being done ("reading", "creating directory", ...).
        operation: &'static str,
        /// Normalised path.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}
