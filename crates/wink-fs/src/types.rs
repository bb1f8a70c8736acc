//! Plain data exchanged through the [`Filesystem`](crate::Filesystem) trait.

use std::fmt;
use std::str::FromStr;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

/// Whether an entry is a file or a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
}

impl FileKind {
    /// `"file"` or `"directory"`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::File => "file",
            Self::Directory => "directory",
        }
    }

    /// `"File"` or `"Directory"`, for the start of a sentence.
    #[must_use]
    pub fn capitalized_label(self) -> &'static str {
        match self {
            Self::File => "File",
            Self::Directory => "Directory",
        }
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Metadata of one entry, as returned by `stat` and `list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileInfo {
    /// Normalised workspace-relative path (`""` for the root).
    pub path: String,
    /// Last path segment (`""` for the root).
    pub name: String,
    /// File or directory.
    pub kind: FileKind,
    /// Size in bytes (0 for directories).
    pub size_bytes: u64,
    /// Last modification time, when the backend knows it.
    pub modified: Option<SystemTime>,
}

impl FileInfo {
    /// True for regular files.
    #[must_use]
    pub fn is_file(&self) -> bool {
        self.kind == FileKind::File
    }

    /// True for directories.
    #[must_use]
    pub fn is_dir(&self) -> bool {
        self.kind == FileKind::Directory
    }
}

/// How `write` treats an existing file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum WriteMode {
    /// Fail with [`FsError::AlreadyExists`](crate::FsError::AlreadyExists) if the file exists.
    Create,
    /// Replace the content; create the file if it is missing.
    #[default]
    Overwrite,
    /// Add to the end; create the file if it is missing.
    Append,
}

impl WriteMode {
    /// `"create"`, `"overwrite"` or `"append"` (the wire spelling of WINK's `mode`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Overwrite => "overwrite",
            Self::Append => "append",
        }
    }
}

impl fmt::Display for WriteMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error returned when parsing an unknown [`WriteMode`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Unknown write mode '{0}': expected one of create, overwrite, append")]
pub struct UnknownWriteMode(pub String);

impl FromStr for WriteMode {
    type Err = UnknownWriteMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "create" => Ok(Self::Create),
            "overwrite" => Ok(Self::Overwrite),
            "append" => Ok(Self::Append),
            other => Err(UnknownWriteMode(other.to_owned())),
        }
    }
}

/// A page of lines read from a text file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadResult {
    /// Normalised path of the file.
    pub path: String,
    /// The selected lines joined with `\n` (no trailing newline; `\r\n` endings become `\n`).
    pub content: String,
    /// Number of lines in the whole file.
    pub total_lines: usize,
    /// Zero-based index of the first returned line (the requested offset, clamped to `total_lines`).
    pub offset: usize,
    /// Number of lines returned.
    pub limit: usize,
    /// True when lines remain after the returned page.
    pub truncated: bool,
}

/// What a write did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteResult {
    /// Normalised path of the file.
    pub path: String,
    /// The mode used.
    pub mode: WriteMode,
    /// Bytes handed to this call.
    pub bytes_written: u64,
    /// Size of the file afterwards.
    pub size_bytes: u64,
    /// True when the file did not exist before.
    pub created: bool,
}

/// What an edit did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditResult {
    /// Normalised path of the file.
    pub path: String,
    /// Number of occurrences replaced.
    pub replacements: usize,
    /// Size of the file afterwards.
    pub size_bytes: u64,
}

/// One line matched by `grep`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrepMatch {
    /// Normalised path of the file.
    pub path: String,
    /// One-based line number.
    pub line_number: usize,
    /// The whole line, without its line ending.
    pub line: String,
    /// Byte offset of the first match within `line`.
    pub match_start: usize,
    /// Byte offset just past the first match within `line`.
    pub match_end: usize,
}

/// Size limits a backend enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FsLimits {
    /// Largest page `read` returns, and the largest file `read_bytes`, `edit`
    /// and `grep` load whole (`grep` skips larger files).
    pub max_read_bytes: usize,
    /// Largest content one `write` call (or the replacement text of one `edit`) accepts.
    pub max_write_bytes: usize,
    /// Most matches one `grep` call returns.
    pub max_grep_matches: usize,
}

impl FsLimits {
    /// 1 MiB reads, 48 000-byte writes (WINK's write cap), 1 000 grep matches.
    pub const DEFAULT: Self = Self {
        max_read_bytes: 1024 * 1024,
        max_write_bytes: 48_000,
        max_grep_matches: 1_000,
    };
}

impl Default for FsLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
