//! Exit codes: 0 success, 1 a run that failed at runtime, 2 bad usage or bad input files.

use std::process::ExitCode;

/// Bad usage, bad files or bad params.
pub const USAGE: u8 = 2;
/// The command ran but failed (provider error, budget exhausted, ...).
pub const FAILURE: u8 = 1;

/// A usage/input error: exits with [`USAGE`].
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Build a usage error.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// The exit code for an error: usage errors → 2, anything else → 1.
pub fn code_for(error: &anyhow::Error) -> ExitCode {
    if error.downcast_ref::<UsageError>().is_some() {
        ExitCode::from(USAGE)
    } else {
        ExitCode::from(FAILURE)
    }
}
