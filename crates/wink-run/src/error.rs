//! [`RunError`]: what can go wrong while preparing or running a prompt.

use std::path::PathBuf;

/// Why a run could not be prepared or carried out. The CLI exits 2 for [`RunError::Usage`] and
/// [`RunError::ModelMissing`] (the user must change something before trying again) and 1 for
/// [`RunError::Failed`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Bad input: a flag, a prompt file, params, a cases file. The message names what was wrong
    /// and where (`--params: …`, `FILE:LINE: KEY: …`).
    #[error("{0}")]
    Usage(String),
    /// The embedded model's file is not downloaded yet.
    #[error("the local model is missing at {}", path.display())]
    ModelMissing {
        /// Where it is expected.
        path: PathBuf,
        /// Whether it is the small (0.5B) model.
        small: bool,
    },
    /// Something failed once the run was under way (an output file that cannot be written, the
    /// async runtime).
    #[error("{0}")]
    Failed(String),
}

impl RunError {
    /// A [`RunError::Usage`].
    pub fn usage(message: impl Into<String>) -> Self {
        Self::Usage(message.into())
    }

    /// A [`RunError::Failed`].
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed(message.into())
    }

    /// Whether the user must change the command or its files before trying again.
    #[must_use]
    pub fn is_usage(&self) -> bool {
        matches!(self, Self::Usage(_) | Self::ModelMissing { .. })
    }

    /// The same error with `prefix: ` before its message (usage and failures only).
    #[must_use]
    pub fn context(self, prefix: &str) -> Self {
        match self {
            Self::Usage(m) => Self::Usage(format!("{prefix}: {m}")),
            Self::Failed(m) => Self::Failed(format!("{prefix}: {m}")),
            other => other,
        }
    }
}

/// `Result` with [`RunError`].
pub type Result<T, E = RunError> = std::result::Result<T, E>;
