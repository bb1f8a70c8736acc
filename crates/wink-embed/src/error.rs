//! The crate's error type.

use std::path::PathBuf;

/// Failure to load or assemble an embedding model.
///
/// `origin` names where the bytes came from: a file path for the loaders, or a short label
/// (`"tokenizer JSON"`, `"safetensors bytes"`) for the in-memory parsers.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O failure.
        source: std::io::Error,
    },
    /// The weights file is not a usable safetensors file.
    #[error("{origin}: invalid safetensors file: {reason}")]
    Safetensors {
        /// The file path or a label.
        origin: String,
        /// What is wrong.
        reason: String,
    },
    /// The tokenizer file is not a tokenizer this crate can run.
    #[error("{origin}: unusable tokenizer: {reason}")]
    Tokenizer {
        /// The file path or a label.
        origin: String,
        /// What is wrong or unsupported.
        reason: String,
    },
    /// The tokenizer and the embedding table do not fit together.
    #[error("tokenizer and embedding table do not match: {reason}")]
    Mismatch {
        /// What does not fit.
        reason: String,
    },
}
