//! The crate's error type.

use std::path::PathBuf;

/// Failure to load an evaluation catalog or query set.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// A file or directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// What was being read.
        path: PathBuf,
        /// The I/O failure.
        source: std::io::Error,
    },
    /// A line is not what the format requires.
    #[error("{}:{line}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The input holds nothing to evaluate.
    #[error("{}: contains no {what}", path.display())]
    EmptyDataset {
        /// The file or directory.
        path: PathBuf,
        /// What was expected.
        what: &'static str,
    },
}
