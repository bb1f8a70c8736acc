//! May a missing model be downloaded? The rule a program asks before fetching the embedded
//! model for a run ([`fetch_consent`]), and how the text of a progress step reads
//! ([`FetchProgress::describe`]).

use std::ffi::OsStr;

use crate::FetchProgress;

/// May a missing default model be downloaded?
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchConsent {
    /// Yes, without asking (`--yes`, or running in CI).
    Granted,
    /// Ask on the terminal.
    Ask,
    /// No: nobody to ask, so the user gets the command to run instead.
    Refused,
}

/// The consent rule: `yes` or a `CI` variable (`ci`: set, non-empty and not `false`/`0`)
/// grants it, an interactive terminal (stdin and stderr both terminals) asks, anything else
/// refuses.
pub fn fetch_consent(yes: bool, ci: Option<&OsStr>, interactive: bool) -> FetchConsent {
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

/// Whether a typed answer to a `[y/N]` question means yes.
pub fn answer_is_yes(answer: &str) -> bool {
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

impl FetchProgress {
    /// The step as a line for a person watching (`None` for the quiet ones).
    pub fn describe(&self) -> Option<String> {
        Some(match self {
            Self::AlreadyPresent { .. } => "already present and verified".to_owned(),
            Self::Downloading { part, parts, .. } => format!("downloading part {part}/{parts}"),
            Self::Extracted {
                part,
                parts,
                bytes,
                total_bytes,
            } => format!(
                "extracted part {part}/{parts} ({:.0} of {:.0} MB)",
                *bytes as f64 / 1e6,
                *total_bytes as f64 / 1e6
            ),
            Self::Verifying => "verifying sha256".to_owned(),
            Self::Ready { .. } => "ready".to_owned(),
            Self::CheckingExisting { .. } => return None,
        })
    }
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

    #[test]
    fn progress_reads_as_lines() {
        let extracted = FetchProgress::Extracted {
            part: 2,
            parts: 3,
            bytes: 700_000_000,
            total_bytes: 986_000_000,
        };
        assert_eq!(
            extracted.describe().as_deref(),
            Some("extracted part 2/3 (700 of 986 MB)")
        );
        assert_eq!(
            FetchProgress::Verifying.describe().as_deref(),
            Some("verifying sha256")
        );
        let checking = FetchProgress::CheckingExisting {
            path: "m.gguf".into(),
        };
        assert_eq!(checking.describe(), None);
    }
}
