//! `wink session show`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::exit::usage;
use crate::output::Format;

/// `wink session ...`
#[derive(Debug, Args)]
pub struct SessionArgs {
    #[command(subcommand)]
    pub command: SessionCommand,
}

/// Session subcommands.
#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Print a session log's slices and events.
    Show(ShowArgs),
}

/// `wink session show FILE [--slice TYPE] [--format text|json]`
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The session log (JSON Lines).
    pub file: PathBuf,
    /// Only this slice (type name) and the events that reduced into it.
    #[arg(long, value_name = "TYPE")]
    pub slice: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: &SessionArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        SessionCommand::Show(show) => {
            let format = match show.format {
                Format::Text => wink_store::ShowFormat::Text,
                Format::Json => wink_store::ShowFormat::Json,
            };
            let text = wink_store::show(&show.file, show.slice.as_deref(), format)
                .map_err(|e| usage(e.to_string()))?;
            crate::output::println(text.trim_end())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
